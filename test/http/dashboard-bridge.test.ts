/**
 * The dashboard's bridge to the merchant API (/dashboard/api/v1/...): the same route a key reaches, for
 * the merchant and environment the user looks at. The role matrix over every operation of the table (a
 * group without the permission is 403 before anything runs; with it, the operation runs), operations
 * outside the table refused, card numbers refused, changes audited, nothing in the API request log,
 * and a ticket that a network request cannot forge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { useTestSeed } from '../helpers/seed.js';
import { API_OPERATIONS, GROUPS, can } from '../../src/modules/dashboard/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createUser, signedIn, type DashClient } from '../helpers/dashboard.js';
import { paidOrder, TEST_CARDS } from '../helpers/payments.js';
import fs from 'node:fs';

const openapi = JSON.parse(fs.readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));

useTestSeed(import.meta.url);

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;
const clients = new Map<string, DashClient>();

/** operationId → method and path of the merchant API (sandbox, relative to /v1/sandbox) */
const ROUTES = new Map<string, { method: string; path: string }>();
for (const [path, ops] of Object.entries((openapi as any).paths as Record<string, Record<string, any>>)) {
  for (const [method, op] of Object.entries(ops)) if (op?.operationId) ROUTES.set(op.operationId, { method: method.toUpperCase(), path });
}

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_DASHBOARD_LOCKOUT_FAILURES: '1000' });
  a = await t.merchant({ name: 'Bridge Shop', isPci: true });
  b = await t.merchant({ name: 'Other Shop', isPci: true });
  for (const g of GROUPS) clients.set(g, await signedIn(t.app, await createUser(a, g)));
});
afterAll(async () => t?.close());

const UUID = '6f1c2b5e-8a7d-4e3f-9b21-0c4d5e6f7a8b';

describe('the role matrix over every operation of the table', () => {
  it('every operation of the table is a merchant API operation', () => {
    for (const op of Object.keys(API_OPERATIONS)) expect(ROUTES.has(op), op).toBe(true);
  });

  it('a group without the permission gets 403 naming it; a group with it reaches the operation', async () => {
    let reached = 0;
    for (const [op, permission] of Object.entries(API_OPERATIONS)) {
      const r = ROUTES.get(op)!;
      const path = r.path.replace(/\{[^}]+\}/g, UUID);
      for (const g of GROUPS) {
        const c = clients.get(g)!;
        const res = await c.request(r.method, `/v1${path}`, r.method === 'GET' ? {} : { body: {} });
        const label = `${g} ${op} ${r.method} ${path} -> ${res.status} ${res.raw.slice(0, 200)}`;
        expect(res.status, label).toBeLessThan(500);
        const refusedForRole = res.status === 403 && /may not do this/.test(String(res.body?.details));
        expect(refusedForRole, label).toBe(!can(g, permission));
        if (can(g, permission)) reached++;
      }
    }
    expect(reached).toBeGreaterThan(100);
  });

  it('an operation outside the table is 403, whatever the group (card data, pages, device calls)', async () => {
    const c = clients.get('MANAGER')!;
    for (const [method, path] of [['POST', '/payment/single-step'], ['POST', '/payment/moto'], ['POST', '/payment-method/card'], ['GET', '/payment/process/abc'], ['POST', '/sandbox-wallet/token'], ['GET', '/card-present/sync']] as const) {
      const res = await c.request(method, `/v1${path}`, method === 'GET' ? {} : { body: {} });
      expect(res.status, `${method} ${path} ${res.raw}`).toBeGreaterThanOrEqual(401);
      expect(res.status, `${method} ${path} ${res.raw}`).toBeLessThan(404);
    }
    expect((await c.get('/v1/no/such/route')).status).toBe(404);
  });
});

describe('what the bridge does', () => {
  it('an order created through it is the merchant\'s, with the API\'s own answer; a change is audited, never in the request log', async () => {
    const c = clients.get('MANAGER')!;
    const res = await c.post('/v1/payment', { amount: 1250, operative: 'AUTHORIZATION', service: a.service_uuid, customer_ext_id: 'bridge-1', description: 'Phone order', url_post: 'https://example.com/n' });
    expect(res.status, res.raw).toBe(200);
    const uuid = res.body.order.uuid as string;
    const viaApi = await a.api.get(`/order/${uuid}`);
    expect(viaApi.status).toBe(200);
    expect(viaApi.body.order.amount).toBe(1250);
    // the other merchant's key does not see it; and the dashboard of a sees nothing of b
    expect((await b.api.get(`/order/${uuid}`)).status).toBe(404);
    const bOrder = await paidOrder(t, b);
    expect((await c.get(`/v1/order/${bOrder.uuid}`)).status).toBe(404);
    const audit = await c.get('/audit', { action: 'api.createOrder' });
    expect(audit.status, audit.raw).toBe(200);
    expect(audit.body.entries[0]).toMatchObject({ action: 'api.createOrder', target: 'POST /v1/sandbox/payment', details: { status: 200 } });
    await t.m.dashboard.requestLog.flush();
    // the merchant's own GET is there; the dashboard's POST is not
    const log = await c.get('/developers/requests', { order_uuid: uuid });
    expect(log.body.requests.map((r: { method: string }) => r.method)).toEqual(['GET']);
  });

  it('a refusal is the API\'s own answer and is audited as refused', async () => {
    const c = clients.get('MANAGER')!;
    const res = await c.post('/v1/payment/refund', { order_uuid: UUID, amount: 10 });
    expect(res.status).toBe(404);
    const audit = await c.get('/audit', { action: 'api.refundOrder.refused' });
    expect(audit.body.entries[0]).toMatchObject({ target: 'POST /v1/sandbox/payment/refund', details: { status: 404 } });
  });

  it('a card number in a body is 400 and reaches no operation', async () => {
    const c = clients.get('MANAGER')!;
    const res = await c.post('/v1/payment', { amount: 100, operative: 'AUTHORIZATION', service: a.service_uuid, description: `card ${TEST_CARDS.APPROVED}` });
    expect(res.status).toBe(400);
    expect(res.raw).not.toContain(TEST_CARDS.APPROVED);
  });

  it('the ticket header from outside is an unknown key (401), and the dashboard needs its CSRF token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/sandbox/orders', headers: { 'x-paygate-internal-ticket': 'forged-ticket-value' } });
    expect(res.statusCode).toBe(401);
    const c = clients.get('MANAGER')!;
    expect((await c.request('POST', '/v1/payment', { body: { amount: 1 }, csrf: null })).status).toBe(403);
  });
});

describe('malformed input through the bridge', () => {
  it('text, broken JSON, an array or a string body is a 4xx envelope, never a 5xx', async () => {
    const c = clients.get('MANAGER')!;
    for (const [label, type, payload] of [
      ['text/plain', 'text/plain', 'amount=1'],
      ['broken JSON', 'application/json', '{"amount":'],
      ['array', 'application/json', '[1]'],
      ['string', 'application/json', '"x"'],
      ['null', 'application/json', 'null'],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url: '/dashboard/api/v1/payment', headers: { cookie: c.cookieHeader(), 'x-csrf-token': c.csrf ?? '', 'x-forwarded-proto': 'https', 'content-type': type }, payload });
      expect(res.statusCode, `${label}: ${res.body}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, `${label}: ${res.body}`).toBeLessThan(500);
      expect(JSON.parse(res.body).code, label).toBe(res.statusCode);
    }
  });
});

describe('property: random input through the bridge never causes a 5xx', () => {
  it('random bodies and path parameters on every change of the table, as a MANAGER', async () => {
    const c = clients.get('MANAGER')!;
    const junk = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string({ maxLength: 20 }), fc.integer(), fc.constantFrom(null, true, '', 'EUR', 'AUTHORIZATION', a.service_uuid, UUID, -1, 1e20));
    const writes = Object.keys(API_OPERATIONS).map((op) => ({ op, ...ROUTES.get(op)! })).filter((r) => r.method !== 'GET');
    expect(writes.length).toBeGreaterThan(60);
    for (const r of writes) {
      await fc.assert(
        fc.asyncProperty(fc.dictionary(fc.string({ maxLength: 12 }), junk, { maxKeys: 6 }), fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 20 }).filter((x) => !/[/?#%.\\]/.test(x))), async (body, param) => {
          const path = r.path.replace(/\{[^}]+\}/g, encodeURIComponent(param));
          const res = await c.request(r.method, `/v1${path}`, { body });
          if (res.status >= 500) throw new Error(`${r.op} ${r.method} ${path} -> ${res.status} ${res.raw} for ${JSON.stringify(body)}`);
          expect(() => JSON.parse(res.raw), `${r.op} answers JSON`).not.toThrow();
        }),
        { numRuns: 4 },
      );
    }
  }, 120_000);
});
