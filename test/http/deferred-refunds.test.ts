import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, advance, createOrder, paidOrder, storeCard } from '../helpers/payments.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
});
afterAll(async () => t?.close());

async function orderRow(id: string) {
  return t.p.database.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('DEFERRED: confirm and cancel (B8, B9)', () => {
  it('DEFERRED → PENDING_CONFIRMATION → confirm → SUCCESS with a CONFIRMATION transaction', async () => {
    const o = await paidOrder(t, a, { operative: 'DEFERRED' });
    expect(o).toMatchObject({ status: 'PENDING_CONFIRMATION', paid: false });
    expect(o.transactions[0]).toMatchObject({ operative: 'DEFERRED', status: 'SUCCESS' });
    const r = await a.api.post('/payment/confirmation', { order_uuid: o.uuid });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(r.body.order.transactions.map((x: any) => [x.operative, x.status, x.amount])).toEqual([['DEFERRED', 'SUCCESS', 1000], ['CONFIRMATION', 'SUCCESS', 1000]]);
    // confirming or cancelling again is refused and changes nothing
    expect((await a.api.post('/payment/confirmation', { order_uuid: o.uuid })).status).toBe(400);
    expect((await a.api.post('/payment/cancellation', { order_uuid: o.uuid })).status).toBe(400);
    expect((await a.api.get(`/order/${o.uuid}`)).body.order.transactions).toHaveLength(2);
  });

  it('DEFERRED → cancel → CANCELLED with a CANCELLATION transaction', async () => {
    const o = await paidOrder(t, a, { operative: 'DEFERRED' });
    const r = await a.api.post('/payment/cancellation', { order_uuid: o.uuid });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order).toMatchObject({ status: 'CANCELLED', paid: false });
    expect(r.body.order.transactions.map((x: any) => x.operative)).toEqual(['DEFERRED', 'CANCELLATION']);
    expect((await a.api.post('/payment/confirmation', { order_uuid: o.uuid })).status).toBe(400);
    expect((await a.api.post('/payment/refund', { order_uuid: o.uuid })).status).toBe(400);
  });

  it('partial confirmation where the service supports it, not above the hold; refunds then up to the captured amount', async () => {
    const o = await paidOrder(t, a, { operative: 'DEFERRED' });
    expect((await a.api.post('/payment/confirmation', { order_uuid: o.uuid, amount: 1001 })).status).toBe(400);
    expect((await a.api.post('/payment/confirmation', { order_uuid: o.uuid, amount: -5 })).status).toBe(400);
    const r = await a.api.post('/payment/confirmation', { order_uuid: o.uuid, amount: 600 });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.transactions[1]).toMatchObject({ operative: 'CONFIRMATION', amount: 600 });
    expect((await a.api.post('/payment/refund', { order_uuid: o.uuid, amount: 601 })).status).toBe(400);
    const full = await a.api.post('/payment/refund', { order_uuid: o.uuid });
    expect(full.body.order).toMatchObject({ status: 'REFUNDED', refunded: 600 });
  });

  it('a service without partial confirmation refuses a partial amount', async () => {
    const b = await t.merchant({ serviceType: 'PAYSHOP' });
    const o = await paidOrder(t, b, { operative: 'DEFERRED', service: b.service_uuid });
    const r = await b.api.post('/payment/confirmation', { order_uuid: o.uuid, amount: 500 });
    expect(r.status).toBe(400);
    expect(r.body.details).toMatch(/partial confirmation/);
    expect((await b.api.post('/payment/confirmation', { order_uuid: o.uuid })).status).toBe(200);
  });

  it('refunding an unconfirmed DEFERRED order is 400 and changes nothing', async () => {
    const o = await paidOrder(t, a, { operative: 'DEFERRED' });
    const r = await a.api.post('/payment/refund', { order_uuid: o.uuid, amount: 100 });
    expect(r.status).toBe(400);
    expect(r.body.details).toMatch(/DEFERRED/);
    const row = await orderRow(o.uuid);
    expect(row).toMatchObject({ status: 'PENDING_CONFIRMATION', refunded: 0, refund_reserved: 0 });
  });
});

describe('refunds (B12)', () => {
  it('full refund: REFUNDED, refunded equals the amount, a REFUND transaction', async () => {
    const o = await paidOrder(t, a);
    const r = await a.api.post('/payment/refund', { order_uuid: o.uuid });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order).toMatchObject({ status: 'REFUNDED', refunded: 1000 });
    expect(r.body.order.transactions[1]).toMatchObject({ operative: 'REFUND', amount: 1000, status: 'SUCCESS' });
  });

  it('partial refunds up to the amount, then refused; negative and above the remainder refused', async () => {
    const o = await paidOrder(t, a);
    let r = await a.api.post('/payment/refund', { order_uuid: o.uuid, amount: 300 });
    expect(r.body.order).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 300, paid: true });
    r = await a.api.post('/payment/refund', { order_uuid: o.uuid, amount: 701 });
    expect(r.status).toBe(400);
    expect(r.body.details).toMatch(/remainder 700/);
    r = await a.api.post('/payment/refund', { order_uuid: o.uuid, amount: -1 });
    expect(r.status).toBe(400);
    r = await a.api.post('/payment/refund', { order_uuid: o.uuid, amount: 0 });
    expect(r.status).toBe(400);
    r = await a.api.post('/payment/refund', { order_uuid: o.uuid, amount: 700 });
    expect(r.body.order).toMatchObject({ status: 'REFUNDED', refunded: 1000 });
    r = await a.api.post('/payment/refund', { order_uuid: o.uuid, amount: 1 });
    expect(r.status).toBe(400);
    expect((await orderRow(o.uuid)).refunded).toBe(1000);
    // rejected requests are no attempts: no wait was started
    expect((await t.p.database.db.selectFrom('order_operation_retries').selectAll().where('order_id', '=', o.uuid).executeTakeFirst())?.failures ?? 0).toBe(0);
  });

  it('partial authorization approves half; refunds are bounded by what was charged', async () => {
    const o = await paidOrder(t, a, { operative: 'PARTIAL_AUTHORIZATION', amount: 1000 }, TEST_CARDS.PARTIAL);
    expect(o).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(o.transactions[0]).toMatchObject({ amount: 500 });
    expect((await a.api.post('/payment/refund', { order_uuid: o.uuid, amount: 501 })).status).toBe(400);
    expect((await a.api.post('/payment/refund', { order_uuid: o.uuid })).body.order).toMatchObject({ status: 'REFUNDED', refunded: 500 });
  });

  it('marketplace refunds: the refunding merchant\'s amount must equal the outer amount', async () => {
    const o = await paidOrder(t, a);
    const bad = await a.api.post('/payment/refund', { order_uuid: o.uuid, amount: 200, extra_data: { marketplace_refunds: [{ merchant_location_id: 1, amount: 150, description: 'a', net_amount: 150 }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toMatch(/marketplace_refunds/);
    const good = await a.api.post('/payment/refund', { order_uuid: o.uuid, amount: 200, extra_data: { marketplace_refunds: [{ merchant_location_id: 1, amount: 200, description: 'a', net_amount: 180 }, { merchant_location_id: 2, amount: 0, description: 'b', net_amount: 0 }] } });
    expect(good.status, good.raw).toBe(200);
    expect(good.body.order.refunded).toBe(200);
  });

  it('a refund key may refund; a payment-only key may not', async () => {
    const o = await paidOrder(t, a);
    const issue = (profiles: any) => t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, a.client_uuid, 'sandbox', profiles));
    const pay = await issue(['payment']);
    const ref = await issue(['refund']);
    expect((await a.api.withCreds({ api_key: pay.apiKey, signature: pay.signature }).post('/payment/refund', { order_uuid: o.uuid, amount: 1 })).status).toBe(403);
    expect((await a.api.withCreds({ api_key: ref.apiKey, signature: ref.signature }).post('/payment/refund', { order_uuid: o.uuid, amount: 1 })).status).toBe(200);
  });
});

describe('retry rules (api.md Limits) on the sandbox clock', () => {
  it('fail, 429 within a minute, allowed after; three failures lock until the next day', async () => {
    const m = await t.merchant({ timezone: 'Europe/Madrid' });
    const o = await paidOrder(t, m);
    const sim = t.m.processors.simulator;
    const refund = () => m.api.post('/payment/refund', { order_uuid: o.uuid, amount: 100 });

    sim.injectFault({ operation: 'refund', kind: 'decline' });
    let r = await refund();
    expect(r.status, r.raw).toBe(402);
    expect(r.body.order.transactions.at(-1)).toMatchObject({ operative: 'REFUND', status: 'REFUSED', error: 'PROCESSOR_ERROR' });
    expect(r.body.order.refunded).toBe(0);

    r = await refund();
    expect(r.status).toBe(429);
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(60);
    const calls = sim.callCount('refund');
    await advance(m, 30);
    expect((await refund()).status).toBe(429);
    expect(sim.callCount('refund')).toBe(calls);

    await advance(m, 31);
    r = await refund();
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.refunded).toBe(100);
    // after a success, no wait
    r = await refund();
    expect(r.status).toBe(200);

    // failures 2 and 3 (a minute apart), then locked until 00:00 of the next day in Madrid
    sim.injectFault({ operation: 'refund', kind: 'decline' });
    expect((await refund()).status).toBe(402);
    await advance(m, 61);
    sim.injectFault({ operation: 'refund', kind: 'decline' });
    expect((await refund()).status).toBe(402);
    await advance(m, 61);
    r = await refund();
    expect(r.status).toBe(429);
    const now = new Date(Date.now() + (await t.m.merchants.findMerchant(t.p.database.db, m.client_uuid))!.clock_offset_ms);
    const { startOfNextDay } = await import('../../src/platform/time/format.js');
    const wait = (startOfNextDay(now, 'Europe/Madrid').getTime() - now.getTime()) / 1000;
    expect(Math.abs(Number(r.headers['retry-after']) - wait)).toBeLessThan(5);
    await advance(m, Math.ceil(wait) + 1);
    // the next day: one failed attempt allowed, then locked again until the following day
    sim.injectFault({ operation: 'refund', kind: 'decline' });
    expect((await refund()).status).toBe(402);
    await advance(m, 3600);
    expect((await refund()).status).toBe(429);
    await advance(m, 86400);
    r = await refund();
    expect(r.status).toBe(200);
    expect(r.body.order.refunded).toBe(300);
  });

  it('rules are per order and operation', async () => {
    const o1 = await paidOrder(t, a);
    const o2 = await paidOrder(t, a);
    t.m.processors.simulator.injectFault({ operation: 'refund', kind: 'decline' });
    expect((await a.api.post('/payment/refund', { order_uuid: o1.uuid, amount: 1 })).status).toBe(402);
    expect((await a.api.post('/payment/refund', { order_uuid: o1.uuid, amount: 1 })).status).toBe(429);
    expect((await a.api.post('/payment/refund', { order_uuid: o2.uuid, amount: 1 })).status).toBe(200);
    const d = await paidOrder(t, a, { operative: 'DEFERRED' });
    t.m.processors.simulator.injectFault({ operation: 'capture', kind: 'decline' });
    expect((await a.api.post('/payment/confirmation', { order_uuid: d.uuid })).status).toBe(402);
    expect((await a.api.post('/payment/confirmation', { order_uuid: d.uuid })).status).toBe(429);
    // cancellation is another operation: allowed
    expect((await a.api.post('/payment/cancellation', { order_uuid: d.uuid })).body.order.status).toBe('CANCELLED');
  });
});

describe('C1 expire, automatic expiry, C3 list, C4 metadata', () => {
  it('C1 expires an open order; paying it is refused; expiring a paid order is refused', async () => {
    const o = await createOrder(a);
    const r = await a.api.post(`/order/${o.uuid}/expire`, {});
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.status).toBe('EXPIRED');
    const card = await storeCard(t, a);
    expect((await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card })).status).toBe(400);
    expect((await a.api.post(`/order/${o.uuid}/expire`, {})).status).toBe(400);
    const paid = await paidOrder(t, a);
    expect((await a.api.post(`/order/${paid.uuid}/expire`, {})).status).toBe(400);
    expect((await a.api.get(`/order/${paid.uuid}`)).body.order.status).toBe('SUCCESS');
  });

  it('expires_in elapses on the sandbox clock: the sweep job expires it', async () => {
    const m = await t.merchant();
    const o = await createOrder(m, { expires_in: 900 });
    const paid = await paidOrder(t, m, { expires_in: 600 });
    await advance(m, 899);
    await t.m.payments.expireDue();
    expect((await orderRow(o.uuid)).status).toBe('CREATED');
    await advance(m, 2);
    await t.p.jobs.enqueue(t.p.database.db, { queue: 'payments.expire' });
    await t.p.jobs.drain();
    expect((await orderRow(o.uuid)).status).toBe('EXPIRED');
    expect((await orderRow(paid.uuid)).status).toBe('SUCCESS');
  });

  it('a due order reads as EXPIRED at once (lazy check) and cannot be paid', async () => {
    const m = await t.merchant();
    const o = await createOrder(m);
    await advance(m, 601);
    expect((await m.api.get(`/order/${o.uuid}`)).body.order.status).toBe('EXPIRED');
    const o2 = await createOrder(m);
    await advance(m, 601);
    const card = await storeCard(t, m);
    const r = await m.api.post('/payment/direct', { order_uuid: o2.uuid, card_uuid: card });
    expect(r.status).toBe(400);
    expect(r.body.details).toMatch(/expired/);
    expect((await orderRow(o2.uuid)).status).toBe('EXPIRED');
  });

  it('C3 lists the transactions of the merchant and its children with filters and paging', async () => {
    const parent = await t.merchant({ timezone: 'UTC' });
    const child = await t.merchant({ parentId: parent.client_uuid, timezone: 'UTC' });
    const stranger = await t.merchant();
    await paidOrder(t, parent, { service: parent.service_uuid });
    await paidOrder(t, parent, { service: parent.service_uuid });
    await paidOrder(t, child, { service: child.service_uuid });
    await paidOrder(t, stranger, { service: stranger.service_uuid });
    const all = await parent.api.get('/orders');
    expect(all.status, all.raw).toBe(200);
    expect(all.body.count).toBe(3);
    expect(new Set(all.body.transactions.map((x: any) => x.client_uuid))).toEqual(new Set([parent.client_uuid, child.client_uuid]));
    const page = await parent.api.get('/orders', { limit: '2', offset: '0' });
    expect(page.body.transactions).toHaveLength(2);
    expect(page.body.next_offset).toBe(2);
    const last = await parent.api.get('/orders', { limit: '2', offset: '2' });
    expect(last.body.transactions).toHaveLength(1);
    expect(last.body.next_offset).toBeNull();
    expect((await child.api.get('/orders')).body.count).toBe(1);
    const fmt = (d: Date) => d.toISOString().replace(/[-T:]/g, '').slice(0, 12);
    const future = fmt(new Date(Date.now() + 86_400_000));
    expect((await parent.api.get('/orders', { start: future })).body.count).toBe(0);
    expect((await parent.api.get('/orders', { end: future })).body.count).toBe(3);
    expect((await parent.api.get('/orders', { start: '2026-01-01' })).status).toBe(400);
    expect((await parent.api.get('/orders', { limit: '10001' })).status).toBe(400);
  });

  it('C4 attaches at most 20 metadata pairs to own transactions', async () => {
    const o = await paidOrder(t, a);
    const tx = o.transactions[0].uuid;
    const r = await a.api.post(`/transaction/${tx}/metadata`, { metadata: { invoice: 'F-1', n: 2 } });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.metadata).toEqual({ invoice: 'F-1', n: '2' });
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    expect((await a.api.post(`/transaction/${tx}/metadata`, { metadata: many })).status).toBe(400);
    const b = await t.merchant();
    expect((await b.api.post(`/transaction/${tx}/metadata`, { metadata: { x: 'y' } })).status).toBe(404);
    const listed = (await a.api.get('/orders')).body.transactions.find((x: any) => x.uuid === tx);
    expect(listed.metadata).toEqual({ invoice: 'F-1', n: '2' });
  });
});
