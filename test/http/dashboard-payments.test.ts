/**
 * The dashboard's payments: the list with its filters, search and keyset paging; the CSV export of a
 * filtered list; the order detail; the actions, which are the API's own operations (a partial refund
 * from the dashboard is the B12 refund: the merchant's url_post is notified, a refused one answers the
 * contract's error) and are audited; saved views per user; sandbox and production never mixed; the web
 * app served at /dashboard.
 */
import { sql } from 'kysely';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { DashClient, createUser, signedIn } from '../helpers/dashboard.js';
import { TEST_CARDS, createOrder, paidOrder } from '../helpers/payments.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;
let rx: Receiver;
let manager: DashClient;
let viewer: DashClient;

beforeAll(async () => {
  // production orders in the environment test run on the simulator (a staging set-up)
  t = await createTestApp({ PAYGATE_PRODUCTION_SIMULATOR: 'true' });
  a = await t.merchant({ name: 'Tienda A', isPci: true });
  b = await t.merchant({ name: 'Tienda B' });
  rx = await startReceiver();
  manager = await signedIn(t.app, await createUser(a, 'MANAGER'));
  viewer = await signedIn(t.app, await createUser(a, 'VIEWER'));
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

/** B3 single-step payment with a card of our choice. */
async function payWith(m: TestMerchant, pan: string, body: Record<string, unknown> = {}) {
  const r = await m.api.post('/payment/single-step', {
    amount: 1000, operative: 'AUTHORIZATION', secure: false, customer_ext_id: 'cust-1', service: m.service_uuid, description: 'single step',
    card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '30', ...body,
  });
  expect(r.status, r.raw).toBe(200);
  return r.body.order as { uuid: string; status: string; transactions: { uuid: string }[] };
}

describe('the payments list', () => {
  let p1: { uuid: string };
  let p2: { uuid: string };
  let created: { uuid: string };
  beforeAll(async () => {
    p1 = await payWith(a, TEST_CARDS.APPROVED, { reference: 'REF-A-1', customer_ext_id: 'alice', amount: 2500 });
    p2 = await payWith(a, '5555555555554444', { reference: 'REF-A-2', customer_ext_id: 'bob', amount: 700 });
    created = await createOrder(a, { reference: 'REF-A-3', customer_ext_id: 'carol', amount: 9900 });
    await paidOrder(t, b, { reference: 'REF-B-1' });
  });

  it('lists the merchant\'s orders newest first, never another merchant\'s', async () => {
    const r = await manager.get('/orders');
    expect(r.status, r.raw).toBe(200);
    const refs = r.body.orders.map((o: any) => o.reference);
    expect(refs.slice(0, 3)).toEqual(['REF-A-3', 'REF-A-2', 'REF-A-1']);
    expect(refs).not.toContain('REF-B-1');
    const first = r.body.orders.find((o: any) => o.uuid === p1.uuid);
    expect(first).toMatchObject({ status: 'SUCCESS', amount: 2500, currency: 'EUR', customer: 'alice', method: 'CARD', card: { bin: '454881', last4: '0004' } });
    // BIN and last 4 only
    expect(r.raw).not.toContain(TEST_CARDS.APPROVED);
  });

  it('filters by status, amount, customer, reference, last 4, method and dates, and searches', async () => {
    const uuids = async (q: Record<string, string | string[]>) => {
      const r = await manager.get('/orders', q);
      expect(r.status, r.raw).toBe(200);
      return r.body.orders.map((o: any) => o.uuid);
    };
    expect(await uuids({ status: 'CREATED' })).toEqual([created.uuid]);
    expect(await uuids({ status: ['SUCCESS', 'CREATED'], amount_min: '800' })).toEqual([created.uuid, p1.uuid]);
    expect(await uuids({ amount_max: '800' })).toEqual([p2.uuid]);
    expect(await uuids({ customer: 'bob' })).toEqual([p2.uuid]);
    expect(await uuids({ reference: 'REF-A-1' })).toEqual([p1.uuid]);
    expect(await uuids({ last4: '4444' })).toEqual([p2.uuid]);
    expect(await uuids({ method: 'card' })).toEqual([p2.uuid, p1.uuid]);
    expect(await uuids({ from: '2000-01-01', to: '2000-01-02' })).toEqual([]);
    // one search box: last 4, uuid (of the order or of a transaction), reference, customer
    expect(await uuids({ q: '0004' })).toEqual([p1.uuid]);
    expect(await uuids({ q: p2.uuid.toUpperCase() })).toEqual([p2.uuid]);
    const tx = (await a.api.get(`/order/${p1.uuid}`)).body.order.transactions[0].uuid;
    expect(await uuids({ q: tx })).toEqual([p1.uuid]);
    expect(await uuids({ q: 'REF-A-3' })).toEqual([created.uuid]);
    expect(await uuids({ q: 'carol' })).toEqual([created.uuid]);
    // another merchant's order is not found by its uuid either
    expect(await uuids({ q: (await paidOrder(t, b)).uuid })).toEqual([]);
    const bad = await manager.get('/orders', { last4: '12a4' });
    expect(bad.status).toBe(400);
    expect((await manager.get('/orders', { from: 'yesterday' })).status).toBe(400);
  });

  it('filters by the customer\'s e-mail (its profile)', async () => {
    await a.api.post('/customer', { customer_ext_id: 'bob' });
    const prof = await a.api.post('/customer/profile', { external_id: 'bob', first_name: 'Bob', last_name: 'Ruiz', email: 'Bob@Shop.example' });
    expect(prof.status, prof.raw).toBe(200);
    const r = await manager.get('/orders', { email: 'bob@shop.example' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.orders.map((o: any) => o.uuid)).toEqual([p2.uuid]);
    expect((await manager.get('/orders', { email: 'nobody@shop.example' })).body.orders).toEqual([]);
  });

  it('searches a last 4 that thousands of payments share (walked newest first) the same as a rare one', async () => {
    // 2,100 copies of a paid order on a Mastercard ending 5100, cloned in SQL as the gateway writes them
    const m = await t.merchant({ name: 'Busy card', isPci: true });
    const seed = await payWith(m, '5105105105105100', { reference: 'BUSY-SEED' });
    const db = t.p.database.db;
    const cols = (await sql<{ c: string }>`select string_agg(quote_ident(column_name), ', ' order by ordinal_position) as c
      from information_schema.columns where table_schema = current_schema() and table_name = 'orders' and is_generated = 'NEVER'`.execute(db)).rows[0].c;
    await sql`
      with so as (select to_jsonb(o) - 'reference' as j from orders o where id = ${seed.uuid}),
      st as (select to_jsonb(x) as j from transactions x where order_id = ${seed.uuid}),
      gen as materialized (select gen_random_uuid() as oid, gen_random_uuid() as tid, now() - (g || ' minutes')::interval as at from generate_series(1, 2100) g),
      ins as (${sql.raw(`insert into orders (${cols}) select ${cols.split(', ').map((c) => `r.${c}`).join(', ')}`)} from gen, so,
        lateral jsonb_populate_record(null::orders, so.j || jsonb_build_object('id', oid, 'token', md5(oid::text), 'created_at', at, 'updated_at', at)) r returning id)
      insert into transactions select r.* from gen, st, lateral jsonb_populate_record(null::transactions, st.j || jsonb_build_object('id', tid, 'order_id', oid, 'created_at', at, 'updated_at', at, 'started_at', at)) r`.execute(db);
    const rare = await payWith(m, TEST_CARDS.APPROVED, { reference: 'BUSY-RARE' });
    const mgr = await signedIn(t.app, await createUser(m, 'MANAGER'));
    const page1 = await mgr.get('/orders', { last4: '5100', limit: '50' });
    expect(page1.status, page1.raw).toBe(200);
    expect(page1.body.orders).toHaveLength(50);
    // newest first: the seed (made now) then the copies, one a minute back
    expect(page1.body.orders[0].uuid).toBe(seed.uuid);
    const times = page1.body.orders.map((o: any) => o.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(page1.body.orders.every((o: any) => o.card.last4 === '5100')).toBe(true);
    const page2 = await mgr.get('/orders', { last4: '5100', limit: '50', cursor: page1.body.next_cursor });
    expect(page2.body.orders.map((o: any) => o.uuid)).not.toContain(page1.body.orders[49].uuid);
    expect(page2.body.orders[0].created_at < page1.body.orders[49].created_at).toBe(true);
    expect((await mgr.get('/orders', { q: '5100', limit: '3' })).body.orders[0].uuid).toBe(seed.uuid);
    expect((await mgr.get('/orders', { last4: '0004' })).body.orders.map((o: any) => o.uuid)).toEqual([rare.uuid]);
    expect((await mgr.get('/orders', { q: '0004' })).body.orders.map((o: any) => o.uuid)).toEqual([rare.uuid]);
  });

  it('pages by cursor without gaps or repeats', async () => {
    for (let i = 0; i < 5; i++) await createOrder(a, { reference: `PAGE-${i}`, customer_ext_id: 'pager' });
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const r = await manager.get('/orders', { customer: 'pager', limit: '2', ...(cursor ? { cursor } : {}) });
      expect(r.status, r.raw).toBe(200);
      seen.push(...r.body.orders.map((o: any) => o.reference));
      cursor = r.body.next_cursor ?? undefined;
      if (!cursor) break;
    }
    // the pages in a row are the list in one page (newest first; orders made in the same millisecond
    // by their id): nothing missing, nothing twice
    const whole = await manager.get('/orders', { customer: 'pager', limit: '50' });
    expect(seen).toEqual(whole.body.orders.map((o: any) => o.reference));
    expect([...seen].sort()).toEqual(['PAGE-0', 'PAGE-1', 'PAGE-2', 'PAGE-3', 'PAGE-4']);
    expect((await manager.get('/orders', { cursor: 'garbage' })).status).toBe(400);
  });

  it('exports the filtered list as CSV, one line per order, matching the list', async () => {
    // with what its disputes mean for the order: 900 of it lost to an accepted dispute
    const raised = await a.api.post('/disputes/simulate', { order_uuid: p1.uuid, amount: 900 });
    expect(raised.status, raised.raw).toBe(200);
    expect((await a.api.post(`/disputes/${raised.body.dispute.uuid}/accept`, {})).status).toBe(200);
    expect((await manager.get(`/orders/${p1.uuid}`)).body.order.disputes).toEqual({ disputed: 0, lost: 900, won: 0 });
    const r = await t.app.inject({ method: 'GET', url: '/dashboard/api/orders/export.csv?status=SUCCESS&customer=alice', headers: { cookie: manager.cookieHeader(), 'x-forwarded-proto': 'https' } });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.headers['content-type']).toMatch(/text\/csv/);
    const lines = r.body.trim().split('\r\n');
    expect(lines[0].split(',')).toContain('card_last4');
    expect(lines).toHaveLength(2);
    const cols = lines[0].split(',');
    const row = lines[1].split(',');
    expect(row[cols.indexOf('uuid')]).toBe(p1.uuid);
    expect(row[cols.indexOf('amount')]).toBe('2500');
    expect(row[cols.indexOf('card_last4')]).toBe('0004');
    expect(row[cols.indexOf('status')]).toBe('SUCCESS');
    expect([row[cols.indexOf('disputed')], row[cols.indexOf('dispute_lost')], row[cols.indexOf('dispute_won')]]).toEqual(['0', '900', '0']);
    // an order never disputed has the dispute cells empty
    const all = await t.app.inject({ method: 'GET', url: '/dashboard/api/orders/export.csv?status=SUCCESS', headers: { cookie: manager.cookieHeader(), 'x-forwarded-proto': 'https' } });
    const others = all.body.trim().split('\r\n').slice(1).map((l) => l.split(',')).filter((x) => x[cols.indexOf('uuid')] !== p1.uuid);
    expect(others.length).toBeGreaterThan(0);
    for (const x of others) expect(['disputed', 'dispute_lost', 'dispute_won'].map((c) => x[cols.indexOf(c)])).toEqual(['', '', '']);
    // not routed: the last payment went to the service the order named, no rule
    for (const x of others) expect([x[cols.indexOf('last_payment_service_uuid')], x[cols.indexOf('routing_rule')]]).toEqual([x[cols.indexOf('service_uuid')], '']);
    const audit = await t.p.database.db.selectFrom('dashboard_audit').select('action').where('action', '=', 'payments.export').execute();
    expect(audit.length).toBeGreaterThan(0);
  });
});

describe('the order detail and its actions', () => {
  it('shows the order with its card (BIN and last 4), timeline and notifications; a partial refund is B12 and is notified', async () => {
    const order = await payWith(a, TEST_CARDS.APPROVED, { url_post: `${rx.url}/notify`, amount: 5000 });
    await t.p.jobs.drain();
    const before = rx.received.length;
    const d = await manager.get(`/orders/${order.uuid}`);
    expect(d.status, d.raw).toBe(200);
    expect(d.body.currency).toBe('EUR');
    expect(d.body.order.transactions[0].source).toMatchObject({ bin: 454881, last4: '0004' });
    expect(d.body.notifications).toHaveLength(1);
    expect(d.body.notifications[0].deliveries[0].http_status).toBe(200);
    expect(d.body.payment_url).toBeNull();
    // too much: the contract's own error, nothing refunded
    const tooMuch = await manager.post(`/orders/${order.uuid}/refund`, { amount: 999999 });
    expect(tooMuch.status).toBe(400);
    const api = await a.api.post('/payment/refund', { order_uuid: order.uuid, amount: 999999 });
    expect(tooMuch.body.details).toBe(api.body.details);
    const r = await manager.post(`/orders/${order.uuid}/refund`, { amount: 1200 });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.refunded).toBe(1200);
    expect(r.body.order.status).toBe('PARTIALLY_REFUNDED');
    await t.p.jobs.drain();
    const notified = rx.received.slice(before).map((x) => JSON.parse(x.body));
    expect(notified).toHaveLength(1);
    expect(notified[0].order.uuid).toBe(order.uuid);
    expect(notified[0].order.refunded).toBe(1200);
    // the API sees the same order
    expect((await a.api.get(`/order/${order.uuid}`)).body.order.refunded).toBe(1200);
    const audit = await t.p.database.db.selectFrom('dashboard_audit').select(['action', 'target', 'details']).where('target', '=', order.uuid).orderBy('id').execute();
    expect(audit.map((x) => x.action)).toEqual(['order.refund.refused', 'order.refund']);
  });

  it('confirms and cancels DEFERRED orders, expires an open one, resends a notification, attaches metadata', async () => {
    const held = await payWith(a, TEST_CARDS.APPROVED, { operative: 'DEFERRED', amount: 3000 });
    expect(held.status).toBe('PENDING_CONFIRMATION');
    const c = await manager.post(`/orders/${held.uuid}/confirm`, { amount: null });
    expect(c.status, c.raw).toBe(200);
    expect(c.body.order.status).toBe('SUCCESS');
    const held2 = await payWith(a, TEST_CARDS.APPROVED, { operative: 'DEFERRED', amount: 3000 });
    const x = await manager.post(`/orders/${held2.uuid}/cancel`);
    expect(x.status, x.raw).toBe(200);
    expect(x.body.order.status).toBe('CANCELLED');
    const open = await createOrder(a);
    const d = await manager.get(`/orders/${open.uuid}`);
    expect(d.body.payment_url).toMatch(new RegExp(`/payment/process/${open.token}$`));
    const e = await manager.post(`/orders/${open.uuid}/expire`);
    expect(e.status, e.raw).toBe(200);
    expect(e.body.order.status).toBe('EXPIRED');
    expect((await manager.post(`/orders/${open.uuid}/expire`)).status).toBe(400);
    const notifiedOrder = await payWith(a, TEST_CARDS.APPROVED, { url_post: `${rx.url}/again` });
    await t.p.jobs.drain();
    const ev = (await manager.get(`/orders/${notifiedOrder.uuid}`)).body.notifications[0];
    const before = rx.received.filter((r) => r.path === '/again').length;
    const resent = await manager.post(`/notifications/${ev.uuid}/resend`);
    expect(resent.status, resent.raw).toBe(200);
    await t.p.jobs.drain();
    expect(rx.received.filter((r) => r.path === '/again').length).toBe(before + 1);
    const tx = notifiedOrder.transactions[0].uuid;
    const m = await manager.put(`/transactions/${tx}/metadata`, { metadata: { invoice: 'F-2026-001' } });
    expect(m.status, m.raw).toBe(200);
    expect((await a.api.get(`/order/${notifiedOrder.uuid}`)).status).toBe(200);
    const stored = await t.p.database.db.selectFrom('transactions').select('metadata').where('id', '=', tx).executeTakeFirstOrThrow();
    expect(stored.metadata).toEqual({ invoice: 'F-2026-001' });
  });

  it('answers the order\'s description apart from its additional text, until when it can be paid, and each transaction\'s metadata', async () => {
    const o = await createOrder(a, { description: 'Order #1042', additional: 'gift wrap', expires_in: 7 * 86400 });
    const r = await manager.get(`/orders/${o.uuid}`);
    expect(r.status, r.raw).toBe(200);
    expect(r.body.description).toBe('Order #1042');
    expect(r.body.order.additional).toBe('gift wrap');
    const ms = new Date(r.body.expires_at).getTime() - Date.now();
    expect(ms).toBeGreaterThan(7 * 86400_000 - 120_000);
    expect(ms).toBeLessThanOrEqual(7 * 86400_000);
    const paid = await payWith(a, TEST_CARDS.APPROVED, { description: 'with metadata' });
    const tx = paid.transactions[0].uuid;
    expect((await a.api.post(`/transaction/${tx}/metadata`, { metadata: { a: '1', b: '2' } })).status).toBe(200);
    const d = await manager.get(`/orders/${paid.uuid}`);
    expect(d.body.metadata[tx]).toEqual({ a: '1', b: '2' });
    expect(d.body.description).toBe('with metadata');
  });

  it('refuses every action to a VIEWER, who can still read', async () => {
    const order = await payWith(a, TEST_CARDS.APPROVED);
    expect((await viewer.get(`/orders/${order.uuid}`)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', `/orders/${order.uuid}/refund`, { amount: 100 }],
      ['POST', `/orders/${order.uuid}/confirm`, {}],
      ['POST', `/orders/${order.uuid}/cancel`, undefined],
      ['POST', `/orders/${order.uuid}/expire`, undefined],
      ['PUT', `/transactions/${order.transactions[0].uuid}/metadata`, { metadata: { a: 'b' } }],
    ] as const) {
      const r = await viewer.request(method, path, { body });
      expect(r.status, `${method} ${path}`).toBe(403);
    }
    expect((await a.api.get(`/order/${order.uuid}`)).body.order.refunded).toBe(0);
  });
});

describe('card numbers typed into the dashboard', () => {
  it('are refused in any field of a change, and kept out of the audit log when searched or typed at sign-in', async () => {
    const order = await payWith(a, TEST_CARDS.APPROVED);
    const tx = order.transactions[0].uuid;
    const meta = await manager.put(`/transactions/${tx}/metadata`, { metadata: { note: `card ${TEST_CARDS.APPROVED}` } });
    expect(meta.status).toBe(400);
    expect(meta.body.details).toMatch(/metadata\.note must not contain a card number/);
    expect(meta.raw).not.toContain(TEST_CARDS.APPROVED);
    const view = await manager.post('/views', { name: 'by card', filters: { q: '4548 8120 4940 0004' } });
    expect(view.status).toBe(400);
    // a search by a whole card number finds nothing and leaves no card number behind
    const csv = await t.app.inject({ method: 'GET', url: `/dashboard/api/orders/export.csv?q=${TEST_CARDS.APPROVED}`, headers: { cookie: manager.cookieHeader(), 'x-forwarded-proto': 'https' } });
    expect(csv.statusCode).toBe(200);
    // typed as a user name at sign-in: refused before anything is looked up or recorded
    const signIn = await new DashClient(t.app).signIn(TEST_CARDS.APPROVED, 'whatever');
    expect(signIn.status).toBe(400);
    const audit = await sql<{ t: string }>`select concat(target, details::text) as t from dashboard_audit`.execute(t.p.database.db);
    expect(audit.rows.length).toBeGreaterThan(0);
    for (const r of audit.rows) expect(r.t ?? '').not.toContain(TEST_CARDS.APPROVED);
    const views = await sql<{ t: string }>`select filters::text as t from dashboard_saved_views`.execute(t.p.database.db);
    for (const r of views.rows) expect(r.t).not.toMatch(/4548 ?8120 ?4940 ?0004/);
  });
});

describe('saved views', () => {
  it('keeps each user\'s views to that user', async () => {
    const v = await manager.post('/views', { name: 'Morning', filters: { status: ['SUCCESS'], amount_min: 1000 } });
    expect(v.status, v.raw).toBe(200);
    const again = await manager.post('/views', { name: 'Morning', filters: { status: ['REFUSED'] } });
    expect(again.status).toBe(200);
    const mine = await manager.get('/views');
    expect(mine.body.views).toEqual([{ uuid: v.body.view.uuid, name: 'Morning', filters: { status: ['REFUSED'] } }]);
    expect((await viewer.get('/views')).body.views).toEqual([]);
    expect((await viewer.delete(`/views/${v.body.view.uuid}`)).status).toBe(404);
    expect((await manager.delete(`/views/${v.body.view.uuid}`)).status).toBe(200);
    expect((await manager.get('/views')).body.views).toEqual([]);
  });
});

describe('sandbox and production', () => {
  it('shows one environment at a time: the user\'s twins, switched in the session', async () => {
    const prod = await t.merchant({ env: 'production', name: 'Tienda A (production)' });
    await sql`update merchants set sandbox_twin_id = ${a.client_uuid} where id = ${prod.client_uuid}`.execute(t.p.database.db);
    const u = await createUser(a, 'MANAGER');
    const c = await signedIn(t.app, u);
    const me = await c.get('/session');
    expect(me.body.envs).toEqual(['sandbox', 'production']);
    // a user with a production merchant lands in production
    expect(me.body.env).toBe('production');
    const prodOrder = await createOrder(prod, { reference: 'PROD-1' });
    const sbOrder = await createOrder(a, { reference: 'SB-ONLY' });
    const inProd = (await c.get('/orders')).body.orders.map((o: any) => o.uuid);
    expect(inProd).toContain(prodOrder.uuid);
    expect(inProd).not.toContain(sbOrder.uuid);
    expect((await c.get(`/orders/${sbOrder.uuid}`)).status).toBe(404);
    const sw = await c.put('/session/env', { env: 'sandbox' });
    expect(sw.status, sw.raw).toBe(200);
    expect(sw.body.merchant.uuid).toBe(a.client_uuid);
    const inSb = (await c.get('/orders')).body.orders.map((o: any) => o.uuid);
    expect(inSb).toContain(sbOrder.uuid);
    expect(inSb).not.toContain(prodOrder.uuid);
    expect((await c.get(`/orders/${prodOrder.uuid}`)).status).toBe(404);
    // a user of a merchant without production cannot switch to it
    const only = await signedIn(t.app, await createUser(b, 'MANAGER'));
    expect((await only.put('/session/env', { env: 'production' })).status).toBe(400);
  });

  it("lets a partner's user switch to a child merchant, and no further", async () => {
    const partner = await t.merchant({ name: 'Socio' });
    const child = await t.merchant({ name: 'Hija de A', parentId: partner.client_uuid });
    const c = await signedIn(t.app, await createUser(partner, 'MANAGER'));
    const me = await c.get('/session');
    expect(me.body.merchants.map((m: any) => m.uuid)).toContain(child.client_uuid);
    const childOrder = await createOrder(child, { reference: 'CHILD-1' });
    expect((await c.get(`/orders/${childOrder.uuid}`)).status).toBe(404);
    const sw = await c.put('/session/merchant', { merchant_uuid: child.client_uuid });
    expect(sw.status, sw.raw).toBe(200);
    expect(sw.body.merchant.name).toBe('Hija de A');
    expect((await c.get(`/orders/${childOrder.uuid}`)).status).toBe(200);
    expect((await c.put('/session/merchant', { merchant_uuid: b.client_uuid })).status).toBe(404);
    // the child's user cannot switch up to the parent
    const childUser = await signedIn(t.app, await createUser(child, 'MANAGER'));
    expect((await childUser.put('/session/merchant', { merchant_uuid: partner.client_uuid })).status).toBe(404);
  });
});

describe('the web app', () => {
  it('is served at /dashboard with a strict policy, for every path of the app; unknown API paths are JSON 404', async () => {
    for (const url of ['/dashboard', '/dashboard/', '/dashboard/payments/0b7c9a52-3f0e-4d2a-9c1e-6f5a4b3c2d1e']) {
      const r = await t.app.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(200);
      expect(r.headers['content-type']).toMatch(/text\/html/);
      expect(r.body).toContain('<div id="root">');
      expect(String(r.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    }
    const html = (await t.app.inject({ method: 'GET', url: '/dashboard' })).body;
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)![1];
    const js = await t.app.inject({ method: 'GET', url: script });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect((await t.app.inject({ method: 'GET', url: '/dashboard/assets/../../package.json' })).statusCode).toBe(404);
    const api404 = await t.app.inject({ method: 'GET', url: '/dashboard/api/nothing-here' });
    expect(api404.statusCode).toBe(404);
    expect(JSON.parse(api404.body).code).toBe(404);
  });

  it('turns off the browser features the pages never use (Permissions-Policy)', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/dashboard' });
    const policy = String(r.headers['permissions-policy']);
    for (const feature of ['camera=()', 'microphone=()', 'geolocation=()', 'payment=()']) expect(policy).toContain(feature);
  });

  it('sends the sign-in page a small first script, the areas as scripts of their own, compressed as the browser accepts, cached for good', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/dashboard', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(String(page.headers.vary)).toMatch(/Accept-Encoding/i);
    // the page itself is a few hundred bytes: sent as it is
    const html = (page.headers['content-encoding'] === 'br' ? brotliDecompressSync(page.rawPayload) : page.rawPayload).toString('utf8');
    expect(html).toContain('<div id="root">');
    const entry = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)![1];
    const plain = await t.app.inject({ method: 'GET', url: entry });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const br = await t.app.inject({ method: 'GET', url: entry, headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(Number(br.headers['content-length'])).toBe(br.rawPayload.length);
    expect(brotliDecompressSync(br.rawPayload).equals(plain.rawPayload)).toBe(true);
    const gz = await t.app.inject({ method: 'GET', url: entry, headers: { 'accept-encoding': 'br;q=0, gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).equals(plain.rawPayload)).toBe(true);
    // what the sign-in page downloads: one script, well under what the whole app weighs
    expect(br.rawPayload.length).toBeLessThan(150 * 1024);
    // the pages and areas (the overview's charts, the payments list...) are other scripts, loaded on use
    expect(plain.body).toMatch(/assets\/overview-[\w-]+\.js/);
    expect(plain.body).toMatch(/assets\/Payments-[\w-]+\.js/);
    expect(plain.body).not.toContain('recharts');
    // the compressed copies are not files of their own
    expect((await t.app.inject({ method: 'GET', url: `${entry}.br` })).statusCode).toBe(404);
  });
});
