/**
 * The dashboard's failed-charge view of subscriptions: every declined or not chargeable attempt, newest
 * due first, with its reason and what happens next (a retry scheduled on the subscription's next charge
 * date, retried by a later attempt, or none once the subscription ended), each as the API's I14 reports
 * it; never another merchant's; 403 for a group without subscriptions.read.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHARGE_QUEUE } from '../../src/modules/subscriptions/index.js';
import { DELIVER_QUEUE } from '../../src/modules/events/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createUser, signedIn, type DashClient } from '../helpers/dashboard.js';
import { TEST_CARDS, advance, storeCard } from '../helpers/payments.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;
let viewer: DashClient;
let otherViewer: DashClient;

const drain = () => t.p.jobs.drain({ queues: [CHARGE_QUEUE, DELIVER_QUEUE] });

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Failed Charges Shop' });
  b = await t.merchant({ name: 'Failed Charges Other' });
  viewer = await signedIn(t.app, await createUser(a, 'VIEWER'));
  otherViewer = await signedIn(t.app, await createUser(b, 'VIEWER'));
}, 180_000);
afterAll(async () => t?.close());

async function ok(p: Promise<{ status: number; raw: string; body: any }>) {
  const r = await p;
  expect(r.status, r.raw).toBe(200);
  return r.body;
}

describe('GET /subscriptions/failed-charges', () => {
  it('each failed attempt with its reason and its retry state, newest first, as the subscription reports it', async () => {
    await ok(a.api.post('/subscriptions/product', { name: 'Box', external_id: 'box' }));
    await ok(a.api.post('/subscriptions/plan', { name: 'Weekly box', external_id: 'box-weekly', product: 'box', amount: 1250, interval_type: 'WEEKLY' }));
    const refused = await storeCard(t, a, TEST_CARDS.REFUSED, 'late-box');
    const late = await ok(a.api.post('/subscriptions/subscription', { plan: 'box-weekly', customer: 'late-box', payment_attempts_limit: 3, additional_data: { source_uuid: refused } }));
    expect(late.status).toBe('FAILED');

    let r = await viewer.get('/subscriptions/failed-charges');
    expect(r.status, r.raw).toBe(200);
    let s = (await ok(a.api.get(`/subscriptions/subscription/${late.subscription}`))).subscription;
    expect(r.body.count).toBe(1);
    expect(r.body.next_offset).toBeNull();
    expect(r.body.charges).toEqual([{
      id: s.payments[0].id,
      subscription: late.subscription,
      customer: 'late-box',
      plan: 'box-weekly',
      subscription_status: 'UNPAID',
      payment_number: 1,
      attempt: 1,
      status: 'FAILED',
      payment_date: s.payments[0].payment_date,
      amount: 1250,
      currency: 'EUR',
      order_uuid: JSON.parse(s.payments[0].payment_details).order_uuid,
      reason: 'The payment was declined',
      retry: 'SCHEDULED',
      retry_attempt: null,
      retry_status: null,
      next_attempt_at: s.next_charge_date,
      attempts_limit: 3,
    }]);

    // a day on: attempt 2 fails too; attempt 1 was retried, attempt 2 waits for its own retry
    await advance(a, 86400);
    await drain();
    r = await viewer.get('/subscriptions/failed-charges');
    s = (await ok(a.api.get(`/subscriptions/subscription/${late.subscription}`))).subscription;
    expect(r.body.charges.map((c: any) => [c.attempt, c.retry, c.retry_attempt, c.retry_status, c.next_attempt_at])).toEqual([
      [2, 'SCHEDULED', null, null, s.next_charge_date],
      [1, 'RETRIED', 2, 'FAILED', null],
    ]);

    // a card that does not exist: no order could be made, the reason says why
    const wrong = await ok(a.api.post('/subscriptions/subscription', { plan: 'box-weekly', customer: 'no-card', payment_attempts_limit: 2, additional_data: { source_uuid: randomUUID() } }));
    r = await viewer.get('/subscriptions/failed-charges', { limit: '1' });
    expect(r.body.count).toBe(3);
    expect(r.body.next_offset).toBe(1);
    const notChargeable = r.body.charges[0];
    expect(notChargeable).toMatchObject({ subscription: wrong.subscription, status: 'FAILED_NOTIFICATION', order_uuid: null });
    expect(notChargeable.reason).toBeTruthy();

    // cancelled: no retry any more
    await ok(a.api.delete(`/subscriptions/subscription/${late.subscription}`, {}));
    r = await viewer.get('/subscriptions/failed-charges');
    const ofLate = r.body.charges.filter((c: any) => c.subscription === late.subscription);
    expect(ofLate.map((c: any) => [c.attempt, c.retry, c.subscription_status])).toEqual([[2, 'NONE', 'CANCELLED'], [1, 'RETRIED', 'CANCELLED']]);

    // another merchant's staff sees none of them
    const other = await otherViewer.get('/subscriptions/failed-charges');
    expect(other.status, other.raw).toBe(200);
    expect(other.body).toMatchObject({ count: 0, charges: [], next_offset: null });
  });

  it('a group without subscriptions.read (BATCH) is refused: 403', async () => {
    const batch = await signedIn(t.app, await createUser(a, 'BATCH'));
    const r = await batch.get('/subscriptions/failed-charges');
    expect(r.status, r.raw).toBe(403);
    expect(r.body.charges).toBeUndefined();
  });
});
