/**
 * A full card number must never land outside the vault. Free-text fields (descriptions, `additional`,
 * names, addresses, metadata values, comments) are stored and shown as they are, so a write whose
 * free text carries a Luhn-valid number of 13 to 19 digits (with or without spaces or dashes) is
 * refused with 400 naming the field, before anything is stored. The number is never echoed back.
 */
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../errors/errors.js';

/** Keys whose string values are free text (at any depth of the body). */
const FREE_TEXT = new Set([
  'description', 'additional', 'name', 'first_name', 'last_name', 'full_name', 'card_holder', 'holder_name',
  'address', 'address1', 'address2', 'address3', 'address_line1', 'address_line2', 'street', 'city', 'state',
  'province', 'comment', 'comments', 'note', 'notes', 'dynamic_descriptor', 'title', 'subject', 'message',
]);
/** Keys under which every string is free text. */
const FREE_TEXT_TREES = new Set(['metadata', 'holder', 'billing', 'shipping', 'billing_address', 'shipping_address', 'customer']);

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** True when `text` contains a Luhn-valid run of 13 to 19 digits (single spaces or dashes between). */
export function containsCardNumber(text: string): boolean {
  for (const m of text.matchAll(/\d(?:[ -]?\d)*/g)) {
    const digits = m[0].replace(/[ -]/g, '');
    if (digits.length >= 13 && digits.length <= 19 && luhn(digits)) return true;
  }
  return false;
}

/** The field (as clients name it) of the first free-text value carrying a card number, or null. */
export function findCardNumberInText(value: unknown, path = '', inTree = false, depth = 0): string | null {
  if (depth > 32 || value === null || typeof value !== 'object') return null;
  const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value as Record<string, unknown>);
  for (const [k, v] of entries) {
    const field = Array.isArray(value) ? `${path}[${k}]` : path === '' ? k : `${path}.${k}`;
    const key = k.toLowerCase();
    const free = inTree || FREE_TEXT.has(key);
    if (typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v))) {
      if (free && containsCardNumber(String(v))) return field;
    } else if (typeof v === 'object' && v !== null) {
      const hit = findCardNumberInText(v, field, inTree || FREE_TEXT_TREES.has(key) || (Array.isArray(v) && FREE_TEXT.has(key)), depth + 1);
      if (hit) return hit;
    }
  }
  return null;
}

export function installPanGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    const cfg = req.routeOptions.config;
    if (!cfg?.env || cfg.page || req.method === 'GET' || req.method === 'HEAD') return;
    const hit = findCardNumberInText(req.body);
    if (hit) throw badRequest(`${hit} must not contain a card number (a 13 to 19 digit number that passes the Luhn check): card numbers go only in the card fields`);
  });
}
