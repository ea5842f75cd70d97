/**
 * open_due_at (migration 0870): the expiry instant of an order while it can still expire, null once it
 * cannot. The sweep reads its index; the column names the open states itself (an index predicate cannot
 * call the application), so it must agree with the transition table: every status from which an order
 * can expire, and no other. An order whose status changes within or outside that set keeps its value, so
 * such updates touch no indexed column (HOT).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_STATUSES, fromStatuses } from '../../src/modules/payments/order-states.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { advance, createOrder, storeCard } from '../helpers/payments.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const db = () => t.p.database.db;
async function row(id: string) {
  const { rows } = await sql<{ status: string; due_at: Date; open_due_at: Date | null }>`
    select status, due_at, open_due_at from orders where id = ${id}`.execute(db());
  return rows[0];
}

describe('open_due_at', () => {
  it('is due_at in exactly the statuses from which an order can expire', async () => {
    const m = await t.merchant();
    const o = await createOrder(m, { expires_in: 600 });
    const expirable = new Set(fromStatuses('EXPIRED'));
    expect(expirable.size).toBeGreaterThan(0);
    for (const status of ORDER_STATUSES) {
      await sql`update orders set status = ${status} where id = ${o.uuid}`.execute(db());
      const r = await row(o.uuid);
      if (expirable.has(status)) expect(r.open_due_at?.getTime(), status).toBe(r.due_at.getTime());
      else expect(r.open_due_at, status).toBeNull();
    }
  });

  it('follows the order through a payment and the test clock; a paid order is never swept', async () => {
    const m = await t.merchant();
    const open = await createOrder(m, { expires_in: 600 });
    const paid = await createOrder(m, { expires_in: 600 });
    const before = await row(open.uuid);
    expect(before.open_due_at?.getTime()).toBe(before.due_at.getTime());
    const card = await storeCard(t, m);
    expect((await m.api.post('/payment/direct', { order_uuid: paid.uuid, card_uuid: card })).status).toBe(200);
    expect((await row(paid.uuid)).open_due_at).toBeNull();
    // the test clock moves due_at of open orders, and open_due_at with it
    await advance(m, 601);
    const moved = await row(open.uuid);
    expect(moved.open_due_at?.getTime()).toBe(moved.due_at.getTime());
    expect(before.due_at.getTime() - moved.due_at.getTime()).toBe(601_000);
    await t.p.jobs.enqueue(db(), { queue: 'payments.expire' });
    await t.p.jobs.drain({ queues: ['payments.expire'] });
    expect((await row(open.uuid)).status).toBe('EXPIRED');
    expect((await row(open.uuid)).open_due_at).toBeNull();
    expect((await row(paid.uuid)).status).toBe('SUCCESS');
  });
});
