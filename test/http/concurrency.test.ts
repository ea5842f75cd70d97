/**
 * Concurrency: parallel refunds of one order never refund more than was charged and exactly the right
 * number succeed; confirmation against cancellation has one winner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { storeCard } from '../helpers/payments.js';

let t: TestApp;
let a: TestMerchant;
let card: string;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
  card = await storeCard(t, a);
  t.m.processors.simulator.latencyMs = 1; // keep refunds in flight at the same time
});
afterAll(async () => t?.close());

async function paid(operative = 'AUTHORIZATION') {
  const o = await a.api.post('/payment', { amount: 1000, operative, secure: false, description: 'c', service: a.service_uuid, customer_ext_id: 'cust-1' });
  const r = await a.api.post('/payment/direct', { order_uuid: o.body.order.uuid, card_uuid: card });
  expect(r.status).toBe(200);
  return o.body.order.uuid as string;
}

describe('concurrency', () => {
  it('32 parallel refunds of one order, 100 times: exactly 10 of 100 succeed, never more than the amount', async () => {
    for (let round = 0; round < 100; round++) {
      const id = await paid();
      const results = await Promise.all(Array.from({ length: 32 }, () => a.api.post('/payment/refund', { order_uuid: id, amount: 100 })));
      const codes = results.map((r) => r.status);
      expect(codes.filter((c) => c === 200).length, `round ${round}: ${codes.join(',')}`).toBe(10);
      expect(codes.filter((c) => c !== 200).every((c) => c === 400)).toBe(true);
      const row = await t.p.database.db.selectFrom('orders').select(['refunded', 'refund_reserved', 'status', 'captured']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(row).toEqual({ refunded: 1000, refund_reserved: 0, status: 'REFUNDED', captured: 1000 });
      const refunds = await t.p.database.db.selectFrom('transactions').select(['amount', 'status']).where('order_id', '=', id).where('operative', '=', 'REFUND').execute();
      expect(refunds).toHaveLength(10);
      expect(refunds.every((x) => x.status === 'SUCCESS' && x.amount === 100)).toBe(true);
    }
    // 3,200 refunds: slow on a loaded 2-core machine, so more time than the suite's default
  }, 180_000);

  it('the database refuses a refund total above the captured amount whatever the code does', async () => {
    const id = await paid();
    await expect(t.p.database.db.updateTable('orders').set({ refunded: 1001 }).where('id', '=', id).execute()).rejects.toThrow(/orders_refunds_le_captured/);
    await expect(t.p.database.db.updateTable('orders').set({ refund_reserved: 600, refunded: 500 }).where('id', '=', id).execute()).rejects.toThrow(/orders_refunds_le_captured/);
    await expect(t.p.database.db.updateTable('orders').set({ amount: -1 }).where('id', '=', id).execute()).rejects.toThrow();
    await expect(t.p.database.db.updateTable('orders').set({ captured: 1001 }).where('id', '=', id).execute()).rejects.toThrow();
  });

  it('confirmation against cancellation, 50 times: one winner', async () => {
    for (let round = 0; round < 50; round++) {
      const id = await paid('DEFERRED');
      const [c, x] = await Promise.all([
        a.api.post('/payment/confirmation', { order_uuid: id }),
        a.api.post('/payment/cancellation', { order_uuid: id }),
      ]);
      const wins = [c, x].filter((r) => r.status === 200);
      expect(wins, `round ${round}: ${c.status} ${x.status}`).toHaveLength(1);
      const loser = c.status === 200 ? x : c;
      expect([400, 409]).toContain(loser.status);
      const row = await t.p.database.db.selectFrom('orders').select(['status', 'busy_tx_id', 'captured', 'paid']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(row).toEqual(c.status === 200 ? { status: 'SUCCESS', busy_tx_id: null, captured: 1000, paid: true } : { status: 'CANCELLED', busy_tx_id: null, captured: 0, paid: false });
      const ops = await t.p.database.db.selectFrom('transactions').select(['operative', 'status']).where('order_id', '=', id).where('operative', 'in', ['CONFIRMATION', 'CANCELLATION']).execute();
      expect(ops).toHaveLength(1);
      expect(ops[0].status).toBe('SUCCESS');
    }
  });

  it('orders created at once are committed together; a reference held by a paid order is 409 in the batch', async () => {
    const held = await a.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'c', service: a.service_uuid, customer_ext_id: 'cust-1', reference: 'held-ref' });
    expect((await a.api.post('/payment/direct', { order_uuid: held.body.order.uuid, card_uuid: card })).status).toBe(200);
    const body = (i: number, ref: string | null) => ({ amount: 100 + i, operative: 'AUTHORIZATION', secure: false, description: `b${i}`, service: a.service_uuid, reference: ref });
    const rs = await Promise.all(Array.from({ length: 50 }, (_, i) => a.api.post('/payment', body(i, i % 10 === 0 ? 'held-ref' : i % 10 === 1 ? 'same-ref' : `ref-batch-${i}`))));
    const ok = rs.filter((r) => r.status === 200);
    expect(ok).toHaveLength(45);
    expect(rs.filter((r) => r.status === 409)).toHaveLength(5);
    for (const r of ok) {
      const read = await a.api.get(`/order/${r.body.order.uuid}`);
      expect(read.status).toBe(200);
      expect(read.body.order.amount).toBe(r.body.order.amount);
    }
    // orders never paid do not hold their reference: all five with `same-ref` exist
    const same = await t.p.database.db.selectFrom('orders').select('id').where('reference', '=', 'same-ref').execute();
    expect(same).toHaveLength(5);
  });

  it('two payments of one order at once: one is paid, the other refused, one charge', async () => {
    for (let round = 0; round < 20; round++) {
      const o = await a.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'c', service: a.service_uuid, customer_ext_id: 'cust-1' });
      const id = o.body.order.uuid;
      const rs = await Promise.all([0, 1, 2].map(() => a.api.post('/payment/direct', { order_uuid: id, card_uuid: card })));
      expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
      const txs = await t.p.database.db.selectFrom('transactions').select('status').where('order_id', '=', id).execute();
      expect(txs).toEqual([{ status: 'SUCCESS' }]);
    }
  });
});
