/**
 * Database round trips per API step of the money path, counted on the gateway's own database handle
 * (`Database.stats.roundTrips`: every statement sent, BEGIN and COMMIT included). Used by
 * bench/roundtrips.ts (prints them) and test/http/roundtrips.test.ts (keeps them at or under the
 * targets). Steps are measured warm (the second time round), as a running gateway sees them: the key,
 * service and risk-settings caches are filled by the first round.
 */
import { expect } from 'vitest';
import type { TestApp, TestMerchant } from './app.js';
import { TEST_CARDS } from './payments.js';

export interface RoundTrips {
  'create order': number;
  'direct payment': number;
  'partial refund': number;
  'read order': number;
  'direct payment (url_post)': number;
  'partial refund (url_post)': number;
}

/** What each step may cost at most. */
export const ROUND_TRIP_TARGETS: RoundTrips = {
  'create order': 1,
  'direct payment': 3,
  'partial refund': 4,
  'read order': 1,
  // the notification (its event and delivery job) is written by the settling statement itself
  'direct payment (url_post)': 3,
  'partial refund (url_post)': 3,
};

async function counted<T>(t: TestApp, fn: () => Promise<T>): Promise<{ value: T; n: number }> {
  const before = t.p.database.stats.roundTrips;
  const value = await fn();
  return { value, n: t.p.database.stats.roundTrips - before };
}

function ok(r: { status: number; raw: string }) {
  expect(r.status, r.raw).toBe(200);
}

/**
 * Runs create → direct payment → partial refund → read four times and gives each step's fewest round
 * trips over the last three (the first fills the caches; a cache entry that expires in between, after
 * 2 s on a slow machine, costs one read more in that round only).
 */
export async function countRoundTrips(t: TestApp, m: TestMerchant): Promise<RoundTrips> {
  const first = await m.api.post('/payment/single-step', {
    amount: 100, operative: 'AUTHORIZATION', secure: false, description: 'card', customer_ext_id: 'rt-customer', service: m.service_uuid,
    card_holder: 'Round Trip', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
  });
  ok(first);
  const card = first.body.order.transactions[0].source.uuid as string;
  const body = (extra: Record<string, unknown> = {}) => ({ amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'rt', service: m.service_uuid, customer_ext_id: 'rt-customer', ...extra });
  const rounds: RoundTrips[] = [];
  for (let round = 0; round < 4; round++) {
    const create = await counted(t, () => m.api.post('/payment', body()));
    ok(create.value);
    const id = create.value.body.order.uuid as string;
    const pay = await counted(t, () => m.api.post('/payment/direct', { order_uuid: id, card_uuid: card }));
    ok(pay.value);
    expect(pay.value.body.order.status).toBe('SUCCESS');
    const refund = await counted(t, () => m.api.post('/payment/refund', { order_uuid: id, amount: 300 }));
    ok(refund.value);
    expect(refund.value.body.order.status).toBe('PARTIALLY_REFUNDED');
    const read = await counted(t, () => m.api.get(`/order/${id}`));
    ok(read.value);
    expect(read.value.body.order.transactions).toHaveLength(2);
    // this one names its card on the order (source_uuid), not in the payment: read with the order all the same
    const notified = await m.api.post('/payment', body({ url_post: 'https://merchant.example/notify', source_uuid: card }));
    ok(notified);
    const payNotified = await counted(t, () => m.api.post('/payment/direct', { order_uuid: notified.body.order.uuid }));
    ok(payNotified.value);
    expect(payNotified.value.body.order.status).toBe('SUCCESS');
    const refundNotified = await counted(t, () => m.api.post('/payment/refund', { order_uuid: notified.body.order.uuid, amount: 300 }));
    ok(refundNotified.value);
    expect(refundNotified.value.body.order.status).toBe('PARTIALLY_REFUNDED');
    if (round === 0) continue;
    rounds.push({
      'create order': create.n,
      'direct payment': pay.n,
      'partial refund': refund.n,
      'read order': read.n,
      'direct payment (url_post)': payNotified.n,
      'partial refund (url_post)': refundNotified.n,
    });
  }
  const fewest = {} as RoundTrips;
  for (const step of Object.keys(ROUND_TRIP_TARGETS) as Array<keyof RoundTrips>) fewest[step] = Math.min(...rounds.map((r) => r[step]));
  return fewest;
}
