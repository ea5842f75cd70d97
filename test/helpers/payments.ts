/** Helpers of the payments tests: stored cards, orders, and paying them through the API. */
import { expect } from 'vitest';
import { Secret } from '../../src/platform/security/secret.js';
import { TEST_CARDS } from '../../src/processors/index.js';
import type { TestApp, TestMerchant } from './app.js';

export { TEST_CARDS };

/** Stores a card for a customer of the merchant (through the sources module) and returns its uuid. */
export async function storeCard(t: TestApp, m: TestMerchant, pan: string = TEST_CARDS.APPROVED, customer = 'cust-1'): Promise<string> {
  const row = await t.p.database.transaction((trx) =>
    t.m.sources.storeCard(trx, { merchantId: m.client_uuid, env: m.env }, {
      customerExtId: customer,
      holder: 'Ana Pérez',
      pan: new Secret(pan),
      expMonth: 12,
      expYear: 2030,
    }),
  );
  return row.id;
}

export async function createOrder(m: TestMerchant, body: Record<string, unknown> = {}) {
  const r = await m.api.post('/payment', {
    amount: 1000,
    operative: 'AUTHORIZATION',
    secure: false,
    description: 'test order',
    service: m.service_uuid,
    customer_ext_id: 'cust-1',
    ...body,
  });
  expect(r.status, r.raw).toBe(200);
  return r.body.order as { uuid: string; token: string; status: string; amount: number; [k: string]: any };
}

/** Creates an order and pays it with a stored test card. */
export async function paidOrder(t: TestApp, m: TestMerchant, body: Record<string, unknown> = {}, pan: string = TEST_CARDS.APPROVED) {
  const order = await createOrder(m, body);
  const card = await storeCard(t, m, pan, (body.customer_ext_id as string) ?? 'cust-1');
  const r = await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
  expect(r.status, r.raw).toBe(200);
  return r.body.order as { uuid: string; status: string; [k: string]: any };
}

export async function advance(m: TestMerchant, seconds: number) {
  const r = await m.api.post('/test-clock', { advance_seconds: seconds });
  expect(r.status, r.raw).toBe(200);
}

/**
 * The calendar day `days` after the merchant's today on its test clock (YYYY-MM-DD). Dates the API takes
 * (initial_date, expires_at) are days in the merchant's timezone on its clock: a day computed from the
 * real clock in UTC is one day off between midnight in Madrid and midnight in UTC, and further off once
 * the merchant's clock has moved. (`current_time` is in the server's timezone, which is the test
 * merchants' timezone too.)
 */
export async function merchantDay(m: TestMerchant, days: number): Promise<string> {
  const r = await m.api.get('/test-clock');
  expect(r.status, r.raw).toBe(200);
  const today = String(r.body.test_clock.current_time).slice(0, 10);
  const d = new Date(`${today}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
