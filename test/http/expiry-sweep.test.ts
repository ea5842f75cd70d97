/**
 * The expiry sweep: indexable (due_at, the expiry on the real clock, kept in step with each merchant's
 * test clock) and set-based (orders with nothing else to do expire in one statement per thousand; those
 * with a notification to send go one by one and are notified).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { advance, createOrder } from '../helpers/payments.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const db = () => t.p.database.db;
async function order(id: string) {
  const { rows } = await sql<{ status: string; paid: boolean; updated_at: Date; due_at: Date; expires_at: Date }>`
    select status, paid, updated_at, due_at, expires_at from orders where id = ${id}`.execute(db());
  return rows[0];
}
async function sweep() {
  await t.p.jobs.enqueue(db(), { queue: 'payments.expire' });
  await t.p.jobs.drain({ queues: ['payments.expire'] });
}

describe('expiry sweep', () => {
  it('follows each merchant clock: due_at moves with the test clock, other merchants are untouched', async () => {
    const a = await t.merchant();
    const b = await t.merchant();
    const oa = await createOrder(a, { expires_in: 900 });
    const ob = await createOrder(b, { expires_in: 900 });
    const before = await order(oa.uuid);
    expect(before.expires_at.getTime() - before.due_at.getTime()).toBe(0);
    await advance(a, 899);
    const moved = await order(oa.uuid);
    expect(before.due_at.getTime() - moved.due_at.getTime()).toBe(899_000);
    await sweep();
    expect((await order(oa.uuid)).status).toBe('CREATED');
    await advance(a, 2);
    await sweep();
    const expired = await order(oa.uuid);
    expect(expired.status).toBe('EXPIRED');
    expect(expired.paid).toBe(false);
    // updated on the merchant's clock (about 901 s ahead of the real clock)
    expect(expired.updated_at.getTime() - Date.now()).toBeGreaterThan(890_000);
    expect((await order(ob.uuid)).status).toBe('CREATED');
    // an order created after the clock moved is due on that clock
    const later = await createOrder(a, { expires_in: 600 });
    const row = await order(later.uuid);
    expect(row.expires_at.getTime() - row.due_at.getTime()).toBe(901_000);
    await sweep();
    expect((await order(later.uuid)).status).toBe('CREATED');
    await advance(a, 601);
    await sweep();
    expect((await order(later.uuid)).status).toBe('EXPIRED');
  });

  it('an order with url_post is expired and notified; one without is expired without a notification', async () => {
    const m = await t.merchant();
    const quiet = await createOrder(m, { expires_in: 600 });
    const loud = await createOrder(m, { expires_in: 600, url_post: 'http://127.0.0.1:9/hook' });
    await advance(m, 601);
    await sweep();
    expect((await order(quiet.uuid)).status).toBe('EXPIRED');
    expect((await order(loud.uuid)).status).toBe('EXPIRED');
    const events = await db().selectFrom('events').select(['order_id', 'payload']).where('merchant_id', '=', m.client_uuid).execute();
    expect(events.map((e) => e.order_id)).toEqual([loud.uuid]);
    expect(JSON.parse(events[0].payload).order.status).toBe('EXPIRED');
  });

  it('expires a backlog larger than one statement batch in one sweep', async () => {
    const m = await t.merchant();
    const seed = await createOrder(m, { expires_in: 600 });
    await sql`insert into orders (id, merchant_id, env, key_id, service_id, service_type, operative, amount, currency, currency_number,
        secure, status, description, token, expires_at, created_at, updated_at)
      select gen_random_uuid(), merchant_id, env, key_id, service_id, service_type, operative, amount, currency, currency_number,
        secure, status, description, md5(random()::text || g::text), expires_at, created_at, updated_at
      from orders, generate_series(1, 1200) g where id = ${seed.uuid}`.execute(db());
    await advance(m, 601);
    await sweep();
    const { rows } = await sql<{ status: string; n: number }>`select status, count(*)::int as n from orders where merchant_id = ${m.client_uuid} group by status`.execute(db());
    expect(rows).toEqual([{ status: 'EXPIRED', n: 1201 }]);
  });
});
