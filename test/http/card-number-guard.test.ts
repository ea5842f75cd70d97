/**
 * Issue 31 item 1: one card-number guard for every merchant-supplied string. The test walks the OpenAPI
 * document (every operation, every path and query parameter, every field of every request body at any
 * depth, metadata keys, the Idempotency-Key header) and the column lists of the CSV files, puts a card
 * number into each one alone, and expects the guard's 400 naming it, except for the card fields, which
 * are listed here by hand: a new field is checked unless someone adds it to this list.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, toApiResponse, type ApiResponse, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS } from '../helpers/payments.js';
import { AUTH_OPTIONAL, AUTH_REQUIRED, REFUND_OPTIONAL, REFUND_REQUIRED } from '../../src/modules/batch/batch.domain.js';
import { CSV_OPTIONAL, CSV_REQUIRED } from '../../src/modules/campaigns/campaigns.domain.js';
import { listPageRoutes } from '../../src/platform/http/platform.js';

const PAN = TEST_CARDS.APPROVED;
const REFUSED = /must not contain a card number/;
/** Where a card number belongs (method, path of the document, field with arrays as []). */
const CARD_FIELDS = new Set([
  'POST /payment/single-step card_pan',
  'POST /payment/moto card_pan',
  'POST /payment-method/card card_pan',
  'POST /payment-method/cards cards[].card_pan',
  'POST /sandbox-wallet/token card_pan',
  'POST /routing-profiles/{uuid}/test card_pan',
  'POST /card-present/payment card.pan',
  'POST /card-present/payment card.track2',
  'POST /card-present/preauthorization card.pan',
  'POST /card-present/preauthorization card.track2',
  'DELETE /security-list/{list_uuid}/items items[]',
]);

let t: TestApp;
let a: TestMerchant;
let deviceToken: string;
let doc: any;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
  const d = await a.api.post('/device', { service: a.service_uuid, identifier: 'guard-pos', communication_type: 'SOCKET' });
  expect(d.status, d.raw).toBe(200);
  deviceToken = d.body.token;
  doc = JSON.parse(fs.readFileSync('docs/openapi.json', 'utf8'));
});
afterAll(async () => t?.close());

function deref(schema: any, seen = 0): any {
  if (seen > 20 || !schema || typeof schema !== 'object') return schema;
  if (schema.$ref) return deref(schema.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], doc), seen + 1);
  return schema;
}

/** Every leaf of a schema: [field shape, a body with the card number at that leaf]. Maps are tried by key and value. */
function leaves(schema: any, shape: string, put: (v: unknown) => unknown, depth = 0, out: Array<[string, unknown]> = []): Array<[string, unknown]> {
  const s = deref(schema);
  if (!s || depth > 12) return out;
  const branches = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])];
  if (branches.length > 0) {
    for (const b of branches) leaves(b, shape, put, depth + 1, out);
    return dedupe(out);
  }
  const types = [s.type].flat();
  if (types.includes('object') || s.properties || s.additionalProperties) {
    for (const [k, v] of Object.entries<any>(s.properties ?? {})) {
      leaves(v, shape === '' ? k : `${shape}.${k}`, (x) => put({ [k]: x }), depth + 1, out);
    }
    if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      out.push([`${shape} (a key)`, put({ [PAN]: 'x' })]);
      leaves(s.additionalProperties, `${shape}.note`, (x) => put({ note: x }), depth + 1, out);
    }
    return dedupe(out);
  }
  if (types.includes('array')) return leaves(s.items ?? {}, `${shape}[]`, (x) => put([x]), depth + 1, out);
  if (types.some((x: string) => x === 'string' || x === 'integer' || x === 'number') || types[0] === undefined) {
    out.push([shape, put(types.includes('string') || types[0] === undefined ? PAN : Number(PAN))]);
  }
  return dedupe(out);
}

function dedupe(list: Array<[string, unknown]>) {
  const seen = new Set<string>();
  return list.filter(([k]) => (seen.has(k) ? false : (seen.add(k), true)));
}

interface Probe {
  name: string;
  method: string;
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
  card: boolean;
}

const UUID = '00000000-0000-4000-8000-000000000000';

function probes(): Probe[] {
  const out: Probe[] = [];
  // the customer-facing pages take what the customer types (the card form); the merchant's API is checked
  const pages = new Set(listPageRoutes(t.app).map((r) => `${r.method} ${r.url.replace(/^\/v1(\/sandbox)?/, '').replace(/:([A-Za-z_]+)/g, '{$1}')}`));
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'delete', 'patch']) {
      const op = item[method];
      const M = method.toUpperCase();
      if (!op || pages.has(`${M} ${path}`)) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref);
      const pathParams = params.filter((p: any) => p.in === 'path').map((p: any) => p.name);
      const url = (pan?: string) => path.replace(/\{([^}]+)\}/g, (_, n) => (n === pan ? PAN : n === 'type' ? 'card' : UUID));
      const base = { method: M };
      for (const p of pathParams) out.push({ ...base, name: `${M} ${path} path ${p}`, url: url(p), card: false });
      for (const q of params.filter((p: any) => p.in === 'query')) out.push({ ...base, name: `${M} ${path} query ${q.name}`, url: `${url()}?${q.name}=${PAN}`, card: false });
      if (M === 'POST') out.push({ ...base, name: `${M} ${path} header Idempotency-Key`, url: url(), body: {}, headers: { 'idempotency-key': `key-${PAN}` }, card: false });
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (schema) {
        for (const [shape, body] of leaves(schema, '', (x) => x)) {
          out.push({ ...base, name: `${M} ${path} ${shape}`, url: url(), body, card: CARD_FIELDS.has(`${M} ${path} ${shape}`) });
        }
      }
    }
  }
  return out;
}

async function send(p: Probe): Promise<ApiResponse> {
  const device = p.url.startsWith('/card-present/');
  const headers: Record<string, string> = {
    'x-forwarded-proto': 'https',
    authorization: device ? `Bearer ${deviceToken}` : `Basic ${Buffer.from(`${a.api_key}:`).toString('base64')}`,
    ...(p.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(p.headers ?? {}),
  };
  const res = await t.app.inject({ method: p.method as any, url: `/v1/sandbox${p.url}`, headers, payload: p.body === undefined ? undefined : JSON.stringify(p.body) });
  return toApiResponse(res);
}

describe('the card-number guard covers every field of the API', () => {
  it('a card number in any parameter, header or body field is 400 naming it, except in the card fields', async () => {
    const all = probes();
    // the walk reached the document: many fields, and every card field it lists
    expect(all.length).toBeGreaterThan(500);
    expect(new Set(all.filter((p) => p.card).map((p) => p.name))).toEqual(CARD_FIELDS);
    const missed: string[] = [];
    const wronglyRefused: string[] = [];
    for (const p of all) {
      const r = await send(p);
      expect(r.raw, p.name).not.toContain(PAN);
      const refused = r.status === 400 && REFUSED.test(r.body?.details ?? '');
      if (p.card && refused) wronglyRefused.push(`${p.name}: ${r.body.details}`);
      if (!p.card && !refused) missed.push(`${p.name}: ${r.status} ${String(r.body?.details ?? r.raw).slice(0, 100)}`);
    }
    expect(missed).toEqual([]);
    expect(wronglyRefused).toEqual([]);
  });

  it('the conditional card fields: a CARD item of a security list, a CARD_NUMBER account; the same value elsewhere is refused', async () => {
    const list = await a.api.post('/security-list', { type: 'BLACKLIST', enabled: true, description: 'guard' });
    expect(list.status, list.raw).toBe(200);
    const items = `/security-list/${list.body.colorlists.uuid}/items`;
    const card = await a.api.post(items, { items: [{ type: 'CARD', value: PAN }] });
    expect(card.status, card.raw).toBe(200);
    const email = await a.api.post(items, { items: [{ type: 'CUSTOMER', value: `c-${PAN}` }] });
    expect(email.status).toBe(400);
    expect(email.body.details).toMatch(/^items\[0\]\.value must not contain a card number/);

    const customer = await a.api.post('/customer', { customer_ext_id: 'guard-acc' });
    expect(customer.status, customer.raw).toBe(200);
    const acc = await a.api.post('/customer/account', { external_id: 'guard-acc', account_type: 'CARD_NUMBER', account_number: PAN });
    expect(acc.status, acc.raw).toBe(200);
    expect(acc.body.customer_account.account_number).toBe('454881******0004');
    const plain = await a.api.post('/customer/account', { external_id: 'guard-acc', account_type: 'ACCOUNT_NUMBER', account_number: PAN });
    expect(plain.status).toBe(400);
    expect(plain.body.details).toMatch(/^account_number must not contain a card number/);
    expect(plain.raw).not.toContain(PAN);
    const rows = await t.p.database.db.selectFrom('customer_accounts').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(PAN);
  });

  it('an ordinary number that passes Luhn (an EAN-13 code, a millisecond timestamp) is accepted anywhere', async () => {
    const r = await a.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, service: a.service_uuid, description: 'Pack EAN 8412345678907', reference: 'ts-1763769600000', customer_ext_id: 'c-1' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.reference).toBe('ts-1763769600000');
  });

  it("a shop plugin's `<order id>-<unix time>` reference whose digits joined look like a card is accepted; a card number grouped in fours is not", async () => {
    // 636211796608201 passes Luhn in a Maestro range: the old guard joined the groups and refused the order
    const r = await a.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, service: a.service_uuid, description: 'Order 63621', reference: '63621-1796608201', customer_ext_id: 'c-1' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.reference).toBe('63621-1796608201');
    const grouped = await a.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, service: a.service_uuid, description: 'x', reference: PAN.replace(/(\d{4})(?=\d)/g, '$1-'), customer_ext_id: 'c-1' });
    expect(grouped.status).toBe(400);
    expect(grouped.body.details).toMatch(REFUSED);
  });
});

describe('the guard covers every column of the CSV files', () => {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const valid: Record<string, string> = { AMOUNT: '100', CARD: UUID, SERVICE: UUID, ORDER_UUID: UUID, OPERATIVE: 'AUTHORIZATION', DESTINATION: 'a@example.com', SECURE: 'false', LANGUAGE: 'es' };
  const file = (columns: readonly string[], bad: string, value: string) => {
    const row = columns.map((c) => (c === bad ? value : (valid[c] ?? 'x')));
    return `${columns.join(',')}\n${row.join(',')}\n`;
  };

  it.each([
    ['/batch/authorizations', [...AUTH_REQUIRED, ...AUTH_OPTIONAL]],
    ['/batch/refunds', [...REFUND_REQUIRED, ...REFUND_OPTIONAL]],
  ] as const)('%s: a card number in any column is 400 naming the line and column', async (path, columns) => {
    for (const c of columns) {
      for (const value of [PAN, `"note ${PAN.replace(/(\d{4})(?=\d)/g, '$1 ')}"`]) {
        const r = await a.api.post(path, { data: b64(file(columns, c, value)), filename: 'f.csv' });
        expect(r.status, `${c}: ${r.raw}`).toBe(400);
        expect(r.body.details).toBe(`data line 2, column ${c}, must not contain a card number: card numbers go only in the card fields`);
        expect(r.raw).not.toContain(PAN);
      }
    }
  });

  it('/moto/campaign/file: a card number in any column is 400 naming the line and column', async () => {
    const columns = [...CSV_REQUIRED, ...CSV_OPTIONAL];
    for (const c of columns) {
      const r = await a.api.post('/moto/campaign/file', { description: 'guard', expires_at: '2099-01-01', service_uuid: a.service_uuid, subject: 'Shop', type: 'MAIL', file: `data:text/csv;base64,${b64(file(columns, c, PAN))}`, filename: 'f.csv' });
      expect(r.status, `${c}: ${r.raw}`).toBe(400);
      expect(r.body.details).toBe(`file line 2, column ${c}, must not contain a card number: card numbers go only in the card fields`);
    }
  });
});
