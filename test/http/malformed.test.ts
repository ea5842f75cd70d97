/**
 * Every API route, whatever its module: malformed requests get a 4xx envelope, and random bodies,
 * queries and path parameters never cause a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { listApiRoutes } from '../../src/platform/http/platform.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

let t: TestApp;
let a: TestMerchant;
/** A device of `a`: card-present routes authenticate with its token and MID/TID headers. */
let device: { token: string; headers: Record<string, string> };

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_BODY_LIMIT: '65536' });
  a = await t.merchant({ isPci: true });
  const d = await a.api.post('/device', { service: a.service_uuid, identifier: 'fuzz-pos', communication_type: 'SOCKET' });
  expect(d.status, d.raw).toBe(200);
  device = { token: d.body.token, headers: { 'x-service-mid': d.body.device.mid, 'x-service-tid': d.body.device.terminal_id } };
});
afterAll(async () => t?.close());

/** The credentials a route takes: the API key, or (card-present routes) the device token and its ids. */
const authFor = (r?: { auth: string }) => (r?.auth === 'device' ? { authorization: `Bearer ${device.token}`, ...device.headers } : { authorization: `Bearer ${a.api_key}` });
const fill = (url: string, value: string) => url.replace(/:[A-Za-z_]+/g, encodeURIComponent(value) || 'x');

function sandboxRoutes() {
  const routes = listApiRoutes(t.app).filter((r) => r.env === 'sandbox');
  expect(routes.length).toBeGreaterThan(10);
  return routes;
}

function expectEnvelope4xx(status: number, body: string, label: string) {
  expect(status, label).toBeGreaterThanOrEqual(400);
  expect(status, label).toBeLessThan(500);
  const parsed = JSON.parse(body);
  expect(parsed.code, label).toBe(status);
  expect(typeof parsed.message, label).toBe('string');
  expect(typeof parsed.details, label).toBe('string');
  expect(parsed.current_time, label).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4}$/);
}

describe('malformed requests on every route with a body', () => {
  it('non-JSON, broken JSON, empty JSON, wrong top-level types and oversized bodies are 4xx envelopes', async () => {
    const uuid = a.service_uuid!;
    for (const r of sandboxRoutes().filter((x) => x.hasBody)) {
      const url = fill(r.url, uuid);
      const cases: Array<[string, Record<string, string>, string]> = [
        ['text/plain', { 'content-type': 'text/plain' }, 'amount=10'],
        ['form', { 'content-type': 'application/x-www-form-urlencoded' }, 'amount=10'],
        ['broken JSON', { 'content-type': 'application/json' }, '{"signature":'],
        ['empty JSON', { 'content-type': 'application/json' }, ''],
        ['array', { 'content-type': 'application/json' }, JSON.stringify([a.signature])],
        ['number', { 'content-type': 'application/json' }, '42'],
        ['oversized', { 'content-type': 'application/json' }, JSON.stringify({ signature: a.signature, pad: 'x'.repeat((r.bodyLimit ?? 65536) + 4_000) })],
      ];
      for (const [label, headers, payload] of cases) {
        const res = await t.app.inject({ method: r.method as any, url, headers: { ...authFor(r), ...headers }, payload });
        expectEnvelope4xx(res.statusCode, res.body, `${r.method} ${r.url} ${label}`);
      }
      // routes that take files have their own, larger limit: over it they are 413 too
      const limit = r.bodyLimit ?? 65536;
      const big = await t.app.inject({ method: r.method as any, url, headers: { ...authFor(r), 'content-type': 'application/json' }, payload: JSON.stringify({ signature: a.signature, pad: 'x'.repeat(limit + 4_000) }) });
      expect(big.statusCode, `${r.method} ${r.url}`).toBe(413);
    }
  });

  it('wrong types and missing fields name the field', async () => {
    const wrongType = await a.api.post('/client', { name: 42, email: 'x@example.com', timezone: 'Europe/Madrid' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.details).toContain('name');
    const missing = await a.api.post('/client', { name: 'x', timezone: 'Europe/Madrid' });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toMatch(/email.*required/);
    const badEnum = await a.api.post('/service', { name: 'x', type: 'NOPE' });
    expect(badEnum.status).toBe(400);
    expect(badEnum.body.details).toMatch(/type must be one of: .*REDSYSPSD2/);
    // unknown fields are ignored, not rejected
    const extra = await a.api.post('/service', { name: 'x', type: 'PAYGATE', order_id: 'abc', whatever: { nested: true } });
    expect(extra.status).toBe(200);
  });
});

describe('text PostgreSQL cannot hold', () => {
  it('an unpaired UTF-16 surrogate in any string is 400 naming the field, before anything is stored', async () => {
    const card = { card_pan: '4548812049400004', card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' };
    const order = { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'surrogates', service: a.service_uuid, customer_ext_id: 'sur-1' };
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['/payment/single-step', { ...order, ...card, card_holder: '\ud800' }, /^body\/card_holder must not contain an unpaired UTF-16 surrogate/],
      ['/payment/single-step', { ...order, ...card, card_holder: 'Ana', card_additional: 'x\udc00' }, /^body\/card_additional must not contain an unpaired/],
      ['/payment', { ...order, extra_data: { profile: { first_name: 'An\ud83da' } } }, /^body\/extra_data\/profile\/first_name must not contain an unpaired/],
      ['/payment', { ...order, metadata_key: { ['k\udfff']: 1 } }, /^body\/metadata_key \(a key\) must not contain an unpaired/],
      ['/payment-method/card', { customer_ext_id: 'sur-1', card_holder: '\udbff', ...card }, /^body\/card_holder must not contain an unpaired/],
    ];
    const orders = async () => Number((await t.p.database.db.selectFrom('orders').select((e) => e.fn.countAll().as('n')).where('merchant_id', '=', a.client_uuid).executeTakeFirstOrThrow()).n);
    const before = await orders();
    for (const [path, body, expected] of cases) {
      const r = await a.api.post(path, body);
      expect(r.status, `${path} ${r.raw}`).toBe(400);
      expect(r.body.details, path).toMatch(expected);
    }
    expect(await orders()).toBe(before);
    // whole characters (a pair) are fine
    const ok = await a.api.post('/payment', { ...order, description: 'emoji \ud83d\ude00 ok' });
    expect(ok.status, ok.raw).toBe(200);
    // (a query string is UTF-8 once decoded: half a character there becomes U+FFFD, a whole one)
  });

  it('a card number used as a key is never echoed nor logged, whatever refuses the request', async () => {
    const pan = '4548812049400004';
    for (const [url, kind] of [[`/v1/sandbox/orders?${pan}=%00`, 'NUL'], [`/v1/sandbox/orders?${pan}=x`, 'guard']] as const) {
      const r = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${a.api_key}` } });
      expect(r.statusCode, kind).toBe(400);
      expect(r.body, kind).not.toContain(pan);
      if (kind === 'guard') expect(JSON.parse(r.body).details).toBe('a key of the query must not contain a card number: card numbers go only in the card fields');
      else expect(JSON.parse(r.body).details).toMatch(/^querystring\/\[REDACTED\] must not contain the NUL character/);
    }
    const body = await a.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'x', service: a.service_uuid, metadata: { [pan]: 'a\u0000' } });
    expect(body.status).toBe(400);
    expect(body.raw).not.toContain(pan);
  });
});

describe('property: random input never causes a 5xx', () => {
  const junk = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(null, true, -1, 0, 1e20, '', 'null', '0000-00-00', '2026-02-30', 'E_COMMERCE', 'REDSYSPSD2', 'EUR', '5411', '\ud800', 'a\udfffb', '\u0000'),
    // any code unit, lone surrogates included (half a character, which PostgreSQL refuses in JSON)
    fc.string({ unit: 'binary', maxLength: 6 }),
    fc.dictionary(fc.string({ maxLength: 4 }), fc.constantFrom('\ud800', 'x\udc00', 'ok'), { maxKeys: 2 }),
  );

  it('bodies (signed, so they reach validation and the handlers)', async () => {
    const routes = sandboxRoutes().filter((r) => r.hasBody);
    const fields = ['name', 'email', 'timezone', 'type', 'currency_code', 'description', 'mcc', 'amount', 'order_uuid', 'terminal_uuid', 'parent_uuid', 'credentials', 'advance_seconds', 'username', 'language', 'group', 'environment', 'code', 'file', 'data', 'filename', 'expires_at', 'service_uuid', 'subject', 'payments', 'execute_at', 'card', 'stan', 'rrn', 'tid', 'mid', 'pin', 'device', 'communication_type', 'identifier', 'service'];
    for (const r of routes) {
      await fc.assert(
        fc.asyncProperty(fc.dictionary(fc.oneof(fc.constantFrom(...fields), fc.string({ maxLength: 8 })), junk, { maxKeys: 8 }), fc.oneof(fc.uuid(), fc.string({ maxLength: 40 })), async (body, param) => {
          const res = await t.app.inject({
            method: r.method as any,
            url: fill(r.url, param),
            headers: { ...authFor(r), 'content-type': 'application/json' },
            payload: JSON.stringify({ ...body, signature: a.signature }),
          });
          if (res.statusCode >= 500) throw new Error(`${r.method} ${r.url} -> ${res.statusCode} ${res.body} for ${JSON.stringify(body)}`);
          expect(() => JSON.parse(res.body)).not.toThrow();
        }),
        { numRuns: 40 },
      );
    }
  });

  it('queries and path parameters of every route', async () => {
    for (const r of sandboxRoutes()) {
      await fc.assert(
        fc.asyncProperty(fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 }), { maxKeys: 5 }), fc.oneof(fc.uuid(), fc.string({ maxLength: 60 })), async (query, param) => {
          const res = await t.app.inject({
            method: r.method as any,
            url: fill(r.url, param),
            query,
            headers: { ...authFor(r), ...(r.hasBody ? { 'content-type': 'application/json' } : {}) },
            payload: r.hasBody ? JSON.stringify({ signature: a.signature }) : undefined,
            // a stream route (Server-Sent Events) stays open: answered once its status and headers are
            // written, its body is an event stream (refusals are still the JSON envelope)
            ...(r.stream ? { payloadAsStream: true } : {}),
          });
          if (r.stream) {
            const body = res.stream();
            if (res.statusCode === 200) {
              expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
              body.destroy();
              return;
            }
            const text = await new Promise<string>((resolve, reject) => {
              let out = '';
              body.on('data', (c: Buffer) => (out += c));
              body.on('end', () => resolve(out));
              body.on('error', reject);
            });
            if (res.statusCode >= 500) throw new Error(`${r.method} ${r.url} -> ${res.statusCode} ${text}`);
            expectEnvelope4xx(res.statusCode, text, `${r.method} ${r.url} ${JSON.stringify(query)}`);
            return;
          }
          if (res.statusCode >= 500) throw new Error(`${r.method} ${r.url} -> ${res.statusCode} ${res.body}`);
        }),
        { numRuns: 25 },
      );
    }
  });
});
