/**
 * Statements run as named prepared statements, and PostgreSQL may settle on a generic plan for one while
 * its tables are small (a new database warming up) and keep it until the next ANALYZE. A lookup by
 * primary key must stay one whatever the statistics: here every statement of the common flows (orders,
 * payments, refunds, with and without url_post, deferred capture, cards, reads) has its generic plan
 * made on small tables, and none may find a row by another index (or a sequential scan) and then filter
 * on the key — the plan that once read all of a merchant's orders for every payment.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, createOrder, paidOrder, storeCard } from '../helpers/payments.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ isPci: true });
});
afterAll(async () => t?.close());

/** The generic plan of a statement (text with $n placeholders), made now. */
async function genericPlan(text: string): Promise<string> {
  const params = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  return t.p.database.transaction(async (trx) => {
    await sql.raw(`set local plan_cache_mode = force_generic_plan`).execute(trx);
    await sql.raw(`prepare generic_plan_check as ${text}`).execute(trx);
    try {
      const { rows } = await sql.raw<{ 'QUERY PLAN': string }>(`explain execute generic_plan_check(${Array.from({ length: params }, () => 'null').join(', ')})`).execute(trx);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await sql.raw('deallocate generic_plan_check').execute(trx);
    }
  });
}

/** Indexes whose scan is bounded by nature: the transactions of one order (a handful). */
const BOUNDED = ['using transactions_order on '];

/** A primary key looked up through something else: an `id = $n` that is only a filter of another scan. */
function keyFilters(plan: string): string[] {
  const lines = plan.split('\n');
  const bad: string[] = [];
  lines.forEach((line, i) => {
    if (!/^\s*Filter: /.test(line) || !/\(id = \$\d+\)/.test(line)) return;
    // the scan the filter belongs to: the nearest line above that names one
    for (let j = i - 1; j >= 0; j--) {
      if (/Scan/.test(lines[j])) {
        if (!/_pkey on /.test(lines[j]) && !BOUNDED.some((b) => lines[j].includes(b))) bad.push(`${lines[j].trim()} | ${line.trim()}`);
        break;
      }
    }
  });
  return bad;
}

describe('generic plans of prepared statements on small tables', () => {
  it('every statement of the common flows looks its rows up by key, not through another index', async () => {
    const seen = new Set<string>();
    t.p.database.stats.statements = seen;
    try {
      const card = await storeCard(t, a, TEST_CARDS.APPROVED, 'plans');
      for (let i = 0; i < 3; i++) {
        const o = await createOrder(a, { customer_ext_id: 'plans' });
        expect((await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card })).body.order.status).toBe('SUCCESS');
        expect((await a.api.post('/payment/refund', { order_uuid: o.uuid, amount: 100 })).status).toBe(200);
        expect((await a.api.get(`/order/${o.uuid}`)).status).toBe(200);
        const d = await createOrder(a, { customer_ext_id: 'plans', operative: 'DEFERRED' });
        expect((await a.api.post('/payment/direct', { order_uuid: d.uuid, card_uuid: card })).status).toBe(200);
        expect((await a.api.post(i % 2 ? '/payment/confirmation' : '/payment/cancellation', { order_uuid: d.uuid })).status).toBe(200);
        // an order with url_post: step 1 reads its transactions back, the settle writes the notification
        const n = await createOrder(a, { customer_ext_id: 'plans', url_post: 'https://merchant.example/notify' });
        expect((await a.api.post('/payment/direct', { order_uuid: n.uuid, card_uuid: card })).body.order.status).toBe('SUCCESS');
        expect((await a.api.post('/payment/refund', { order_uuid: n.uuid, amount: 100 })).status).toBe(200);
        await paidOrder(t, a, { customer_ext_id: 'plans' });
        expect((await a.api.get('/orders', { limit: '10' })).status).toBe(200);
        expect((await a.api.get(`/customer/plans/sources`)).status).toBe(200);
      }
      expect((await a.api.post('/payment/single-step', {
        amount: 1000, operative: 'AUTHORIZATION', secure: false, customer_ext_id: 'plans', service: a.service_uuid, description: 'one step',
        card_holder: 'Ana Pérez', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
      })).status).toBe(200);
    } finally {
      delete t.p.database.stats.statements;
    }
    expect(seen.size).toBeGreaterThan(10);
    // the url_post order's settle, with its notification, is among them
    expect([...seen].some((q) => q.includes('insert into events') && q.includes('string_agg(x.xmin::text'))).toBe(true);
    const problems: string[] = [];
    for (const text of seen) {
      const plan = await genericPlan(text);
      for (const p of keyFilters(plan)) problems.push(`${text.replace(/\s+/g, ' ').slice(0, 160)}\n    ${p}`);
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
