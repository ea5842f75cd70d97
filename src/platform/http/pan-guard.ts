/**
 * A full card number must never land outside the vault. Every string a merchant (or a device) sends is
 * stored or echoed somewhere (descriptions, references, external ids, metadata keys and values, file
 * names, query filters that reach the logs), so every one of them is checked: the JSON body at any
 * depth (keys and values, strings and integers), the query parameters, the path parameters and the
 * Idempotency-Key header. One that carries a card number (security/card-numbers.ts: Luhn-valid, in a
 * brand's issuer ranges, of that brand's length) is refused with 400 naming the field, before anything
 * is stored; the number is never echoed back.
 *
 * The only places a card number may be sent are the card fields, listed in CARD_FIELDS below (a field
 * that is not listed is checked, so a new field cannot slip past). CSV files are checked cell by cell
 * by the CSV reader (platform/csv), with the same definition.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../errors/errors.js';
import { containsCardNumber } from '../security/card-numbers.js';

export { containsCardNumber } from '../security/card-numbers.js';

/**
 * A field where a card number belongs. `field` is the field's path with array indexes written `[]`
 * (`cards[].card_pan`, `items[]`); `when` looks at the object that holds the field.
 */
export interface CardField {
  field: RegExp;
  /** The route (as registered, without the /v1 or /v1/sandbox prefix) and method, when the field is one route's. */
  route?: { method: string; url: RegExp };
  when?: (holder: Record<string, unknown>) => boolean;
  why: string;
}

const upper = (v: unknown) => (typeof v === 'string' ? v.trim().toUpperCase() : '');

export const CARD_FIELDS: readonly CardField[] = [
  { field: /^(.+\.)?card_pan$/, why: 'the card number of a payment, a stored card or a sandbox wallet token' },
  { field: /^card\.(pan|track2)$/, route: { method: 'POST', url: /^\/card-present\// }, why: 'the card a device read' },
  { field: /^(items\[\]\.)?value$/, route: { method: 'POST', url: /^\/security-list(\/:list_uuid\/items)?$/ }, when: (h) => upper(h.type) === 'CARD', why: 'a CARD item of a security list (kept as a keyed fingerprint)' },
  { field: /^items\[\]$/, route: { method: 'DELETE', url: /^\/security-list\/:list_uuid\/items$/ }, why: 'removing a CARD item names its card number' },
  { field: /^account_number$/, route: { method: 'POST|PUT', url: /^\/customer\/account$/ }, when: (h) => upper(h.account_type) === 'CARD_NUMBER', why: 'a customer account of type CARD_NUMBER (sealed, shown as BIN and last 4)' },
];

/** The route a request was matched to, without its environment prefix. */
function routeOf(req: FastifyRequest): string {
  return (req.routeOptions.url ?? '').replace(/^\/v1(\/sandbox)?(?=\/)/, '');
}

function isCardField(shape: string, holder: Record<string, unknown>, method: string, route: string | null): boolean {
  if (route === null) return false;
  return CARD_FIELDS.some(
    (c) => c.field.test(shape) && (!c.route || (c.route.method.split('|').includes(method) && c.route.url.test(route))) && (!c.when || c.when(holder)),
  );
}

const cardLike = (v: unknown) => (typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v))) && containsCardNumber(String(v));

/** `a.b[0].c` (as clients name a field) and `a.b[].c` (its shape, for CARD_FIELDS) of a path. */
function nameOf(path: Array<string | number>): { field: string; shape: string } {
  let field = '';
  let shape = '';
  for (const p of path) {
    if (typeof p === 'number') {
      field += `[${p}]`;
      shape += '[]';
    } else {
      field += field === '' ? p : `.${p}`;
      shape += shape === '' ? p : `.${p}`;
    }
  }
  return { field, shape };
}

/**
 * The field (as clients name it) of the first key or value under `value` that carries a card number
 * outside the card fields, or null. `method` and `route` say which card fields apply (route null: none).
 * Field names are built only for a hit: the walk itself allocates nothing per field.
 */
export function findCardNumber(value: unknown, method = '', route: string | null = null, root = 'the body'): string | null {
  const path: Array<string | number> = [];
  const walk = (v: unknown, depth: number): string | null => {
    if (depth > 32 || v === null || typeof v !== 'object') return null;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        const hit = visit(v[i], v as unknown as Record<string, unknown>, depth);
        path.pop();
        if (hit) return hit;
      }
      return null;
    }
    for (const k in v as Record<string, unknown>) {
      if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
      if (containsCardNumber(k)) return path.length === 0 ? `a key of ${root}` : `a key of ${nameOf(path).field}`;
      path.push(k);
      const hit = visit((v as Record<string, unknown>)[k], v as Record<string, unknown>, depth);
      path.pop();
      if (hit) return hit;
    }
    return null;
  };
  const visit = (x: unknown, holder: Record<string, unknown>, depth: number): string | null => {
    if (typeof x === 'object' && x !== null) return walk(x, depth + 1);
    if (!cardLike(x)) return null;
    const { field, shape } = nameOf(path);
    return isCardField(shape, holder, method, route) ? null : field;
  };
  return walk(value, 0);
}

/** Compatibility name: the first field under `value` carrying a card number, no card field allowed. */
export function findCardNumberInText(value: unknown): string | null {
  return findCardNumber(value);
}

export function cardNumberRefusal(field: string) {
  return badRequest(`${field} must not contain a card number: card numbers go only in the card fields`);
}

/**
 * Throws 400 when a merchant-supplied string of `req` carries a card number outside the card fields:
 * path parameters, query parameters, the Idempotency-Key header, then the body.
 */
export function refuseCardNumbers(req: FastifyRequest, parts: { body?: boolean; query?: boolean; params?: boolean; headers?: boolean; cardFields?: boolean } = {}): void {
  const { body = true, query = true, params = true, headers = true, cardFields = true } = parts;
  const method = req.method;
  const route = cardFields ? routeOf(req) : null;
  // a key is named by what holds it ("a key of the query"), a value by its field ("query parameter q")
  const named = (hit: string, kind: string) => (hit.startsWith('a key of ') ? hit : `${kind} ${hit}`);
  if (params) {
    const hit = findCardNumber(req.params, method, null, 'the path');
    if (hit) throw cardNumberRefusal(named(hit, 'path parameter'));
  }
  if (query) {
    const hit = findCardNumber(req.query, method, null, 'the query');
    if (hit) throw cardNumberRefusal(named(hit, 'query parameter'));
  }
  if (headers) {
    const idem = req.headers['idempotency-key'];
    if (idem !== undefined && [idem].flat().some((h) => containsCardNumber(h))) throw cardNumberRefusal('the Idempotency-Key header');
  }
  if (body && typeof req.body === 'object' && req.body !== null && !Buffer.isBuffer(req.body)) {
    const hit = findCardNumber(req.body, method, route);
    if (hit) throw cardNumberRefusal(hit);
  } else if (body && typeof req.body === 'string' && containsCardNumber(req.body)) {
    throw cardNumberRefusal('the request body');
  }
}

/** Every API route (not the customer-facing pages, which take the card form) goes through the guard. */
export function installPanGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    const cfg = req.routeOptions.config;
    if (!cfg?.env || cfg.page) return;
    refuseCardNumbers(req);
  });
}
