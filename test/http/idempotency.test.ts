import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder } from '../helpers/payments.js';
import { listApiRoutes, canonicalTarget } from '../../src/platform/http/platform.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
  b = await t.merchant();
});
afterAll(async () => t?.close());

const body = (name: string) => ({ name, email: `${name}@example.com`, timezone: 'Europe/Madrid' });
const countMerchants = async (name: string) =>
  (await t.p.database.db.selectFrom('merchants').select('id').where('name', '=', name).execute()).length;

describe('Idempotency-Key (decisions §9)', () => {
  it('replays the first response for the same key and body, without doing the work twice', async () => {
    const first = await a.api.post('/client', body('idem-one'), { 'idempotency-key': 'k-1' });
    expect(first.status).toBe(200);
    const again = await a.api.post('/client', body('idem-one'), { 'idempotency-key': 'k-1' });
    expect(again.status).toBe(200);
    expect(again.raw).toBe(first.raw);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await countMerchants('idem-one')).toBe(1);
    // without the header, the same body creates another one
    await a.api.post('/client', body('idem-one'));
    expect(await countMerchants('idem-one')).toBe(2);
  });

  it('the same key with another body is 422 and changes nothing', async () => {
    await a.api.post('/client', body('idem-two'), { 'idempotency-key': 'k-2' });
    const other = await a.api.post('/client', body('idem-other'), { 'idempotency-key': 'k-2' });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ code: 422, message: 'Unprocessable Entity' });
    expect(await countMerchants('idem-other')).toBe(0);
  });

  it('while the first request is in flight, 409; once its lock expires it can run', async () => {
    const fp = t.p.vault.fingerprint('idempotency', `POST /v1/sandbox/client\n${JSON.stringify({ signature: a.signature, ...body('idem-three') })}`);
    await t.m.idempotency.begin(a.client_uuid, 'k-3', fp);
    const busy = await a.api.post('/client', body('idem-three'), { 'idempotency-key': 'k-3' });
    expect(busy.status).toBe(409);
    expect(await countMerchants('idem-three')).toBe(0);
    // a request that died mid-flight frees its key after the lock (60 s)
    await t.p.database.db.updateTable('idempotency_keys').set({ locked_until: new Date(Date.now() - 1000) }).where('key', '=', 'k-3').execute();
    const retried = await a.api.post('/client', body('idem-three'), { 'idempotency-key': 'k-3' });
    expect(retried.status).toBe(200);
    expect(await countMerchants('idem-three')).toBe(1);
  });

  it('an answer whose record could not be written (the database went away) is recorded once the database is back', async () => {
    const { IdempotencyStore } = await import('../../src/platform/http/idempotency.js');
    // a database that fails its next two uses, as during a failover
    let failures = 2;
    const flaky = {
      ...t.p.database,
      get db() {
        if (failures > 0) {
          failures--;
          throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
        }
        return t.p.database.db;
      },
    };
    const store = new IdempotencyStore(flaky as typeof t.p.database, () => new Date());
    const fp = t.p.vault.fingerprint('idempotency', 'POST /v1/sandbox/anything\n{}');
    await new IdempotencyStore(t.p.database, () => new Date()).begin(a.client_uuid, 'k-later', fp);
    await expect(store.finish(a.client_uuid, 'k-later', 200, '{"ok":1}')).rejects.toThrow(/Connection terminated/);
    store.finishLater(a.client_uuid, 'k-later', 200, '{"ok":1}');
    await vi.waitFor(async () => {
      const row = await t.p.database.db.selectFrom('idempotency_keys').selectAll().where('key', '=', 'k-later').executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'done', response_status: 200, response_body: '{"ok":1}' });
    }, { timeout: 10_000, interval: 100 });
    // a retry is replayed, not run again
    expect(await store.begin(a.client_uuid, 'k-later', fp)).toEqual({ kind: 'replay', status: 200, body: '{"ok":1}' });
  });

  it('keys are per merchant; errors other than 5xx are replayed too', async () => {
    const r1 = await a.api.post('/client', body('idem-four'), { 'idempotency-key': 'shared' });
    const r2 = await b.api.post('/client', body('idem-four'), { 'idempotency-key': 'shared' });
    expect(r1.status).toBe(200);
    expect(r2.status).toBe(200);
    expect(r2.body.client.uuid).not.toBe(r1.body.client.uuid);
    const bad = await a.api.post('/client', { ...body('idem-five'), mcc: '123' }, { 'idempotency-key': 'k-5' });
    expect(bad.status).toBe(400);
    const badAgain = await a.api.post('/client', { ...body('idem-five'), mcc: '123' }, { 'idempotency-key': 'k-5' });
    expect(badAgain.status).toBe(400);
  });

  it('a key longer than 255 characters is refused', async () => {
    const r = await a.api.post('/client', body('idem-six'), { 'idempotency-key': 'x'.repeat(256) });
    expect(r.status).toBe(400);
  });
});

/** A valid body for every POST route with a path parameter (a new route must be added here). */
const PATH_ROUTE_BODIES: Record<string, Record<string, unknown>> = {
  '/client/:uuid/promote': {},
  '/device/:id/token': {},
  '/disputes/:dispute_uuid/accept': {},
  '/disputes/:dispute_uuid/evidence': { fields: { product_description: 'A blue kettle, delivered' } },
  '/disputes/:dispute_uuid/submit': {},
  '/event/:uuid/resend': {},
  '/order/:order_uuid/expire': {},
  '/routing-profiles/:uuid/replay': { days: 1 },
  '/routing-profiles/:uuid/test': { bin: '45488120', amount: 100, currency: 'EUR' },
  '/sandbox-apm/:order_uuid/pay': {},
  '/payment-method/:type/verify-holder': { source_uuid: '00000000-0000-4000-8000-000000000001', service: '00000000-0000-4000-8000-000000000002', holder: { name: 'Ann Example' } },
  '/security-list/:list_uuid/items': { items: [{ type: 'EMAIL', value: 'idem@example.com' }] },
  '/security-list/:list_uuid/service': { service_uuid: '00000000-0000-4000-8000-000000000003' },
  '/transaction/:transaction_uuid/metadata': { metadata: { k: 'v' } },
};
const PARAM_VALUES: Record<string, [string, string]> = { type: ['card', 'bank'] };

describe('Idempotency-Key covers the full path', () => {
  it('route by route: the same key and body on another resource is never a replay of the first', async () => {
    const routes = listApiRoutes(t.app).filter((r) => r.env === 'sandbox' && r.method === 'POST' && r.url.includes('/:'));
    const patterns = routes.map((r) => r.url.replace(/^\/v1\/sandbox/, ''));
    expect(patterns.sort()).toEqual(Object.keys(PATH_ROUTE_BODIES).sort());
    for (const pattern of patterns) {
      const paths = ([0, 1] as const).map((i) => pattern.replace(/:([a-z_]+)/g, (_m, name: string) => PARAM_VALUES[name]?.[i] ?? randomUUID()));
      const fill = (i: 0 | 1) => paths[i];
      const key = `route-${pattern}`;
      const first = await a.api.post(fill(0), PATH_ROUTE_BODIES[pattern], { 'idempotency-key': key });
      // the first answer passed validation and was stored (otherwise this route proves nothing)
      expect(first.status, `${pattern}: ${first.raw}`).not.toBe(400);
      const stored = await t.p.database.db.selectFrom('idempotency_keys').select('status').where('merchant_id', '=', a.client_uuid).where('key', '=', key).executeTakeFirst();
      expect(stored?.status, pattern).toBe('done');
      const second = await a.api.post(fill(1), PATH_ROUTE_BODIES[pattern], { 'idempotency-key': key });
      expect(second.headers['idempotent-replayed'], `${pattern} replayed the first answer: ${second.raw}`).toBeUndefined();
      expect(second.status, pattern).toBe(422);
      // the same path again is still a replay
      const again = await a.api.post(fill(0), PATH_ROUTE_BODIES[pattern], { 'idempotency-key': key });
      expect(again.headers['idempotent-replayed'], pattern).toBe('true');
      expect(again.raw).toBe(first.raw);
    }
  });

  it('expiring another order with the same key does not replay the first order\'s answer (the second stays untouched and says so)', async () => {
    const o1 = await createOrder(a);
    const o2 = await createOrder(a);
    const e1 = await a.api.post(`/order/${o1.uuid}/expire`, {}, { 'idempotency-key': 'expire-k' });
    expect(e1.status, e1.raw).toBe(200);
    expect(e1.body.order).toMatchObject({ uuid: o1.uuid, status: 'EXPIRED' });
    const e2 = await a.api.post(`/order/${o2.uuid}/expire`, {}, { 'idempotency-key': 'expire-k' });
    expect(e2.status).toBe(422);
    expect(e2.raw).not.toContain(o1.uuid);
    // a new key expires it
    const e3 = await a.api.post(`/order/${o2.uuid}/expire`, {}, { 'idempotency-key': 'expire-k2' });
    expect(e3.body.order).toMatchObject({ uuid: o2.uuid, status: 'EXPIRED' });
  });

  it('promoting another child with the same key never returns the first child\'s API key', async () => {
    const c1 = await a.api.post('/client', body('idem-child-1'));
    const c2 = await a.api.post('/client', body('idem-child-2'));
    expect(c1.status, c1.raw).toBe(200);
    const p1 = await a.api.post(`/client/${c1.body.client.uuid}/promote`, {}, { 'idempotency-key': 'promote-k' });
    const p2 = await a.api.post(`/client/${c2.body.client.uuid}/promote`, {}, { 'idempotency-key': 'promote-k' });
    expect(p2.headers['idempotent-replayed']).toBeUndefined();
    expect(p2.status).toBe(422);
    if (p1.status === 200) expect(p2.raw).not.toContain(p1.body.api_key);
  });

  it('one request written two ways is one request: trailing slash, encoding, query order', () => {
    expect(canonicalTarget('/v1/sandbox/order/abc/expire/')).toBe('/v1/sandbox/order/abc/expire');
    expect(canonicalTarget('/v1/sandbox/order/%61bc/expire')).toBe('/v1/sandbox/order/abc/expire');
    expect(canonicalTarget('/v1/sandbox/x?b=2&a=1')).toBe(canonicalTarget('/v1/sandbox/x?a=1&b=2'));
    expect(canonicalTarget('/v1/sandbox/order/a%2fb')).toBe('/v1/sandbox/order/a%2Fb');
    expect(canonicalTarget('/v1/sandbox/order/abc')).not.toBe(canonicalTarget('/v1/sandbox/order/abd'));
  });
});
