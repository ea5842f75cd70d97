/**
 * The dashboard's developers section: the API request log (every request of the merchant's keys, its
 * bodies redacted, found by request id, linked to the orders it touched, pruned after its retention),
 * API keys (created with profiles and shown once, last use, revoked), and the url_post deliveries.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestLogStore } from '../../src/modules/dashboard/dashboard.request-log.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createUser, signedIn, type DashClient } from '../helpers/dashboard.js';
import { TEST_CARDS } from '../helpers/payments.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;
let rx: Receiver;
let manager: DashClient;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Dev Shop', isPci: true });
  b = await t.merchant({ name: 'Other Shop' });
  rx = await startReceiver();
  manager = await signedIn(t.app, await createUser(a, 'MANAGER'));
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

describe('the API request log', () => {
  it('records each request with its bodies redacted, found by request id and by order', async () => {
    const pay = await a.api.post('/payment/single-step', {
      amount: 2000, operative: 'AUTHORIZATION', secure: false, customer_ext_id: 'dev-1', service: a.service_uuid, description: 'logged',
      card_holder: 'Ana Pérez', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '30', card_cvv: '987',
    });
    expect(pay.status, pay.raw).toBe(200);
    const order = pay.body.order.uuid as string;
    const refund = await a.api.post('/payment/refund', { order_uuid: order, amount: 500 }, { 'idempotency-key': 'refund-dev-1' });
    expect(refund.status, refund.raw).toBe(200);
    const refundId = String(refund.headers['x-request-id']);
    const found = await manager.get('/developers/requests', { request_id: refundId });
    expect(found.status, found.raw).toBe(200);
    expect(found.body.retention_days).toBe(7);
    expect(found.body.requests).toHaveLength(1);
    const entry = found.body.requests[0];
    expect(entry).toMatchObject({ method: 'POST', path: '/v1/sandbox/payment/refund', status: 200, idempotency_key: 'refund-dev-1', request_id: refundId, order_uuid: order, key_uuid: a.key_id });
    expect(entry.duration_ms).toBeGreaterThanOrEqual(0);
    const detail = await manager.get(`/developers/requests/${entry.uuid}`);
    expect(detail.status, detail.raw).toBe(200);
    expect(JSON.parse(detail.body.request.request_body)).toEqual({ signature: '[REDACTED]', order_uuid: order, amount: 500 });
    expect(JSON.parse(detail.body.request.response_body).order.refunded).toBe(500);
    // the payment's own entry: card number, CVV and signature never stored
    const payId = String(pay.headers['x-request-id']);
    const payEntry = (await manager.get('/developers/requests', { request_id: payId })).body.requests[0];
    const payDetail = (await manager.get(`/developers/requests/${payEntry.uuid}`)).body.request;
    const sent = JSON.parse(payDetail.request_body);
    expect(sent.card_pan).toBe('[REDACTED]');
    expect(sent.card_cvv).toBe('[REDACTED]');
    expect(sent.signature).toBe('[REDACTED]');
    expect(sent.card_holder).toBe('Ana Pérez');
    expect(payDetail.response_body).toContain('"last4":"0004"');
    const raw = await sql<{ t: string }>`select concat(request_body, response_body, path) as t from request_logs union all select array_to_string(bodies, ' ') from request_log_bodies`.execute(t.p.database.db);
    expect(raw.rows.some((r) => r.t.includes('"card_pan":"[REDACTED]"'))).toBe(true);
    for (const r of raw.rows) {
      expect(r.t).not.toContain(TEST_CARDS.APPROVED);
      expect(r.t).not.toContain('"987"');
      expect(r.t).not.toContain(a.signature);
    }
    // the order's page lists the requests that touched it
    const d = await manager.get(`/orders/${order}`);
    expect(d.body.requests.map((x: any) => x.request_id).sort()).toEqual([payId, refundId].sort());
  });

  it('records refused requests too, and never another merchant\'s', async () => {
    const bad = await a.api.post('/payment', { amount: 'ten', operative: 'AUTHORIZATION', description: 'x' });
    expect(bad.status).toBe(400);
    const id = String(bad.headers['x-request-id']);
    const r = await manager.get('/developers/requests', { request_id: id });
    expect(r.body.requests).toHaveLength(1);
    expect(r.body.requests[0].status).toBe(400);
    expect((await manager.get('/developers/requests', { status: 'error' })).body.requests.map((x: any) => x.request_id)).toContain(id);
    const other = await b.api.get('/auth/check');
    const otherId = String(other.headers['x-request-id']);
    expect((await manager.get('/developers/requests', { request_id: otherId })).body.requests).toEqual([]);
    const otherEntry = await t.p.database.db.selectFrom('request_logs').select('id').where('request_id', '=', otherId).executeTakeFirstOrThrow();
    expect((await manager.get(`/developers/requests/${otherEntry.id}`)).status).toBe(404);
  });

  it('is written off the request path with bounded memory: when the database is slower than the traffic, entries past the bound are dropped and counted', async () => {
    const store = t.m.dashboard.requestLog;
    await store.flush();
    // the database does not answer the log's writes for a while
    const db = t.p.database;
    const original = db.db;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    (db as { db: typeof original }).db = new Proxy(original, {
      get(target, prop, recv) {
        // the log's batch insert waits until released; every other statement runs
        if (prop === 'getExecutor') {
          const executor = target.getExecutor();
          return () => new Proxy(executor, {
            get(e, name, r) {
              if (name !== 'executeQuery') return Reflect.get(e, name, r);
              return async (q: { sql: string }, id: unknown) => {
                if (q.sql.includes('insert into request_log_bodies')) await held;
                return (e.executeQuery as (q: unknown, id: unknown) => unknown)(q, id);
              };
            },
          });
        }
        return Reflect.get(target, prop, recv);
      },
    });
    const droppedBefore = store.dropped;
    const capture = (i: number) => ({ merchantId: a.client_uuid, env: 'sandbox' as const, keyId: null, method: 'GET', url: `/v1/sandbox/auth/check?i=${i}`, status: 200, durationMs: 1, idempotencyKey: null, requestId: `bound-${i}`, body: undefined, answer: '{"code":200}', at: new Date() });
    try {
      for (let i = 0; i < RequestLogStore.MAX_PENDING + 50; i++) store.capture(capture(i));
      expect(store.pending).toBe(RequestLogStore.MAX_PENDING);
      expect(store.dropped - droppedBefore).toBe(50);
      expect(await (await t.app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(/paygate_request_log_dropped_total \d+/);
    } finally {
      release();
      (db as { db: typeof original }).db = original;
    }
    await store.flush();
    expect(store.pending).toBe(0);
  });

  it('keeps the bodies of a batch together, each entry finding its own; entries written before batches still read', async () => {
    const store = t.m.dashboard.requestLog;
    await store.flush();
    const ids = [0, 1, 2].map((i) => `batch-${i}-${Date.now()}`);
    for (const [i, requestId] of ids.entries()) {
      store.capture({ merchantId: a.client_uuid, env: 'sandbox', keyId: a.key_id, method: 'POST', url: '/v1/sandbox/payment', status: 200 + i, durationMs: 1, idempotencyKey: null, requestId, body: { n: i, card_cvv: '123' }, answer: `{"n":${i}}`, at: new Date() });
    }
    await store.flush();
    const batches = await sql<{ batch_id: string }>`select distinct batch_id from request_logs where request_id in (${sql.join(ids)})`.execute(t.p.database.db);
    expect(batches.rows).toHaveLength(1);
    for (const [i, requestId] of ids.entries()) {
      const entry = (await manager.get('/developers/requests', { request_id: requestId })).body.requests[0];
      const detail = (await manager.get(`/developers/requests/${entry.uuid}`)).body.request;
      expect(detail.status).toBe(200 + i);
      expect(JSON.parse(detail.request_body)).toEqual({ n: i, card_cvv: '[REDACTED]' });
      expect(detail.response_body).toBe(`{"n":${i}}`);
    }
    // an entry as the log wrote it before (bodies in its own row)
    const old = '0190a000-0000-7000-8000-000000000001';
    await sql`insert into request_logs (id, merchant_id, env, key_id, method, path, status, duration_ms, request_id, request_body, response_body, created_at)
      values (${old}, ${a.client_uuid}, 'sandbox', ${a.key_id}, 'POST', '/v1/sandbox/payment', 201, 2, 'old-entry', '{"old":true}', '{"kept":true}', now())`.execute(t.p.database.db);
    const detail = (await manager.get(`/developers/requests/${old}`)).body.request;
    expect(detail.request_body).toBe('{"old":true}');
    expect(detail.response_body).toBe('{"kept":true}');
  });

  it('pages by cursor, and prunes entries past the retention', async () => {
    for (let i = 0; i < 3; i++) await a.api.get('/auth/check');
    const first = await manager.get('/developers/requests', { method: 'GET', limit: '2' });
    expect(first.body.requests).toHaveLength(2);
    const second = await manager.get('/developers/requests', { method: 'GET', limit: '2', cursor: first.body.next_cursor });
    expect(second.body.requests.length).toBeGreaterThan(0);
    expect(second.body.requests.map((x: any) => x.uuid)).not.toContain(first.body.requests[0].uuid);
    await t.m.dashboard.requestLog.flush();
    const old = first.body.requests[0].uuid;
    await sql`update request_logs set created_at = now() - interval '8 days' where id = ${old}`.execute(t.p.database.db);
    const n = await t.m.dashboard.pruneRequestLogs();
    expect(n).toBe(1);
    expect((await manager.get(`/developers/requests/${old}`)).status).toBe(404);
    // the entries kept keep their bodies: a batch goes only once no entry of it is left
    const kept = (await manager.get(`/developers/requests/${first.body.requests[1].uuid}`)).body.request;
    expect(kept.response_body).toMatch(/\S/);
  });
});

describe('API keys', () => {
  it('creates a key with profiles (shown once), sees its prefix and last use, and revokes it', async () => {
    const list = await manager.get('/developers/keys');
    expect(list.status, list.raw).toBe(200);
    // the dashboard's own key is never listed
    expect(list.body.keys.every((k: any) => k.description !== 'dashboard')).toBe(true);
    expect(list.body.keys.map((k: any) => k.prefix)).toContain(a.api_key.slice(0, 6));
    const c = await manager.post('/developers/keys', { profiles: ['readonly'], description: 'reporting' });
    expect(c.status, c.raw).toBe(200);
    expect(c.body.api_key).toMatch(/^[0-9a-f]{32}$/);
    const api = a.api.withCreds({ api_key: c.body.api_key, signature: c.body.signature });
    expect((await api.get('/auth/check')).status).toBe(200);
    // readonly: no payments
    expect((await api.post('/payment', { amount: 100, operative: 'AUTHORIZATION', description: 'x', service: a.service_uuid })).status).toBe(403);
    const again = (await manager.get('/developers/keys')).body.keys.find((k: any) => k.uuid === c.body.uuid);
    expect(again).toMatchObject({ prefix: c.body.api_key.slice(0, 6), profiles: ['readonly'], description: 'reporting', revoked_at: null });
    expect(again.last_used_at).not.toBeNull();
    expect(JSON.stringify((await manager.get('/developers/keys')).body)).not.toContain(c.body.api_key);
    expect((await manager.post('/developers/keys', { profiles: ['everything'] })).status).toBe(400);
    const rv = await manager.post(`/developers/keys/${c.body.uuid}/revoke`);
    expect(rv.status, rv.raw).toBe(200);
    expect((await api.get('/auth/check')).status).toBe(401);
    expect((await manager.post(`/developers/keys/${c.body.uuid}/revoke`)).status).toBe(400);
    // another merchant's key: not found
    const otherKey = await t.p.database.db.selectFrom('api_keys').select('id').where('merchant_id', '=', b.client_uuid).executeTakeFirstOrThrow();
    expect((await manager.post(`/developers/keys/${otherKey.id}/revoke`)).status).toBe(404);
    expect((await b.api.get('/auth/check')).status).toBe(200);
    const audit = await t.p.database.db.selectFrom('dashboard_audit').select('action').where('target', '=', c.body.uuid).orderBy('id').execute();
    expect(audit.map((x) => x.action)).toEqual(['key.create', 'key.revoke']);
  });

  it('is for managers only', async () => {
    const user = await signedIn(t.app, await createUser(a, 'USER'));
    expect((await user.get('/developers/keys')).status).toBe(403);
    expect((await user.post('/developers/keys', { profiles: ['all'] })).status).toBe(403);
    expect((await user.get('/developers/requests')).status).toBe(403);
  });
});

describe('url_post deliveries', () => {
  it('lists deliveries filtered by state, and resends one', async () => {
    rx.byPath.set('/fails', 500);
    const r = await a.api.post('/payment/single-step', {
      amount: 1500, operative: 'AUTHORIZATION', secure: false, customer_ext_id: 'dev-2', service: a.service_uuid, description: 'notified',
      card_holder: 'Ana Pérez', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '30', url_post: `${rx.url}/fails`,
    });
    expect(r.status, r.raw).toBe(200);
    await t.p.jobs.drain();
    // the merchant does not resend failed notifications: one attempt, FAILED
    const failed = await manager.get('/developers/deliveries', { status: 'FAILED' });
    expect(failed.status, failed.raw).toBe(200);
    const ev = failed.body.events.find((e: any) => e.order_uuid === r.body.order.uuid);
    expect(ev).toBeDefined();
    expect((await manager.get('/developers/deliveries', { status: 'DELIVERED' })).body.events.map((e: any) => e.uuid)).not.toContain(ev.uuid);
    rx.byPath.set('/fails', 200);
    const before = rx.received.filter((x) => x.path === '/fails').length;
    expect((await manager.post(`/notifications/${ev.uuid}/resend`)).status).toBe(200);
    await t.p.jobs.drain();
    expect(rx.received.filter((x) => x.path === '/fails').length).toBe(before + 1);
    expect((await manager.get('/developers/deliveries', { status: 'DELIVERED' })).body.events.map((e: any) => e.uuid)).toContain(ev.uuid);
  });
});
