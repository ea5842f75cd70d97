/**
 * Recurring billing (section I): products, plans and subscriptions over HTTP, and their charges driven
 * by the sandbox test clock: one real order per period, anchored months, signed notifications to the
 * product's notification_url, retries of a declined card and cancellation at the attempts limit,
 * FAILED_NOTIFICATION. The schedule, charges that run twice or die, listings and bad input:
 * subscriptions-schedule.test.ts.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { TestApp, TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, storeCard } from '../helpers/payments.js';
import type { Receiver } from '../helpers/receiver.js';
import { advanceDays, clockTo, drain, ok, ordersOfCustomer, plan, subscription, verifySignatureHeader, closeSubscriptionsApp, openSubscriptionsApp } from '../helpers/subscriptions.js';

let t: TestApp;
let a: TestMerchant;
let other: TestMerchant;
let rx: Receiver;

beforeAll(async () => {
  ({ t, a, other, rx } = await openSubscriptionsApp());
});
afterAll(closeSubscriptionsApp);

describe('company, products and plans', () => {
  it('creates the company without a signature, once per merchant', async () => {
    const first = await t.app.inject({ method: 'POST', url: '/v1/sandbox/subscriptions/company', headers: { authorization: `Bearer ${other.api_key}`, 'x-forwarded-proto': 'https' } });
    expect(first.statusCode, first.body).toBe(200);
    const c = JSON.parse(first.body).company;
    expect(c).toMatchObject({ uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), name: expect.any(String) });
    const again = await ok(other.api.post('/subscriptions/company', {}));
    expect(again.company.uuid).toBe(c.uuid);
    expect((await ok(other.api.get('/subscriptions/company'))).company.uuid).toBe(c.uuid);
  });

  it('creates, reads, lists and removes products and plans; duplicates are 409, unknown ones 404', async () => {
    const created = await ok(a.api.post('/subscriptions/product', { name: 'Yoga', external_id: 'yoga', notification_url: 'https://shop.example.com/n' }));
    expect(created.product).toMatchObject({ external_id: 'yoga', name: 'Yoga', sandbox: true, notification_url: 'https://shop.example.com/n' });
    expect(created.product.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect((await a.api.post('/subscriptions/product', { name: 'Yoga again', external_id: 'yoga' })).status).toBe(409);
    expect((await ok(a.api.get('/subscriptions/product/yoga'))).product.name).toBe('Yoga');
    expect((await ok(a.api.get('/subscriptions/products'))).products.map((p: any) => p.external_id)).toContain('yoga');
    // numeric external ids are kept as strings
    expect((await ok(a.api.post('/subscriptions/product', { name: 'Numeric', external_id: 42 }))).product.external_id).toBe('42');

    const p = await ok(a.api.post('/subscriptions/plan', { name: 'Yearly', external_id: 'yoga-y', product: 'yoga', amount: '12000', interval: 1, interval_type: 'YEARLY', trial_available: 1, interval_offset: 7, interval_offset_type: 'daily' }));
    expect(p.plan).toMatchObject({ external_id: 'yoga-y', amount: 12000, interval_type: 'ANNUAL', trial_available: true, interval_offset: 7, interval_offset_type: 'DAILY', product: { external_id: 'yoga' } });
    expect((await a.api.post('/subscriptions/plan', { name: 'dup', external_id: 'yoga-y', product: 'yoga', amount: 1, interval_type: 'DAILY' })).status).toBe(409);
    expect((await ok(a.api.get('/subscriptions/plan/yoga-y'))).plan.amount).toBe(12000);
    expect((await ok(a.api.get('/subscriptions/plans', { product: 'yoga' }))).plans.map((x: any) => x.external_id)).toEqual(['yoga-y']);

    // another merchant sees none of it
    expect((await other.api.get('/subscriptions/product/yoga')).status).toBe(404);
    expect((await other.api.get('/subscriptions/plan/yoga-y')).status).toBe(404);
    expect((await other.api.delete('/subscriptions/plan/yoga-y')).status).toBe(404);

    expect((await ok(a.api.delete('/subscriptions/plan/yoga-y'))).deleted).toBe(1);
    expect((await a.api.get('/subscriptions/plan/yoga-y')).status).toBe(404);
    expect((await ok(a.api.delete('/subscriptions/product/yoga'))).deleted).toBe(1);
    expect((await a.api.get('/subscriptions/product/yoga')).status).toBe(404);
    expect((await a.api.post('/subscriptions/plan', { name: 'x', external_id: 'x', product: 'yoga', amount: 1, interval_type: 'DAILY' })).status).toBe(404);
  });
});

describe('production', () => {
  it('the routes exist under /v1 with data of their own (a sandbox product is not there)', async () => {
    const prod = await t.merchant({ env: 'production' });
    const created = await ok(prod.api.post('/subscriptions/product', { name: 'Live', external_id: 'prod-live' }));
    expect(created.product.sandbox).toBe(false);
    expect((await ok(prod.api.get('/subscriptions/products'))).products.map((p: any) => p.external_id)).toEqual(['prod-live']);
    expect((await a.api.get('/subscriptions/product/prod-live')).status).toBe(404);
    // a sandbox key is refused on production routes
    expect((await a.api.withEnv('production').get('/subscriptions/products')).status).toBe(401);
  });
});

describe('a year of a monthly subscription', () => {
  it('charges 12 times on anchored dates (from 31 January), one order each, notified and signed, then FINISHED', async () => {
    const m = await t.merchant({ name: 'Year shop' });
    const card = await storeCard(t, m, TEST_CARDS.APPROVED, 'member-1');
    const { rows } = await sql<{ y: number }>`select extract(year from now())::int as y`.execute(t.p.database.db);
    const year = rows[0].y + 1;
    await clockTo(m, `${year}-01-31T10:00:00+01:00`);
    const pl = await plan(m);
    const sub = await ok(m.api.post('/subscriptions/subscription', {
      plan: pl.plan,
      customer: 'member-1',
      total_payment_number: 12,
      payment_attempts_limit: 3,
      additional_data: { source_uuid: card, url_post: `${rx.url}/orders-year` },
    }));
    expect(sub).toMatchObject({ status: 'PAID', payment_number: 1, attempt: 1, amount: pl.amount, currency: 'EUR', plan: pl.plan, product: pl.product, customer: 'member-1' });
    expect(sub.payment_date.slice(0, 10)).toBe(`${year}-01-31`);

    const days = ['02-28', '03-31', '04-30', '05-31', '06-30', '07-31', '08-31', '09-30', '10-31', '11-30', '12-31'];
    for (const d of days) {
      // the day before, nothing is due
      const s = await subscription(m, sub.subscription);
      expect(s.next_charge_date.slice(0, 10), d).toBe(`${year}-${d}`);
      const due = new Date(s.next_charge_date).getTime();
      await clockTo(m, new Date(due - 3600_000).toISOString());
      expect((await subscription(m, sub.subscription)).payments.length).toBe(days.indexOf(d) + 1);
      await clockTo(m, new Date(due + 60_000).toISOString());
      // running the queue again changes nothing
      await drain();
    }
    const s = await subscription(m, sub.subscription);
    expect(s).toMatchObject({ status: 'FINISHED', active: false, total_payment_charged: 12, next_charge_date: null });
    expect(s.payments.map((p: any) => p.payment_date.slice(0, 10))).toEqual([`${year}-01-31`, ...days.map((d) => `${year}-${d}`)]);
    expect(s.payments.every((p: any) => p.status === 'PAID' && p.attempt === 1)).toBe(true);
    expect(s.payments.map((p: any) => p.payment_number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);

    // every charge is a real, paid order with one transaction, listed like any order
    expect(await ordersOfCustomer('member-1')).toBe(12);
    for (const p of s.payments) {
      const details = JSON.parse(p.payment_details);
      expect(details.source_uuid).toBe(card);
      const o = await ok(m.api.get(`/order/${details.order_uuid}`));
      expect(o.order).toMatchObject({ paid: true, status: 'SUCCESS', amount: pl.amount, customer: 'member-1' });
      expect(o.order.transactions).toHaveLength(1);
      expect(o.order.transactions[0].uuid).toBe(details.transaction_uuid);
    }

    // 12 notifications to the product's url, each signed with the merchant's signature
    const got = rx.received.filter((r) => r.path === pl.path);
    expect(got).toHaveLength(12);
    for (const r of got) {
      expect(verifySignatureHeader(String(r.headers['paygate-signature']), r.body, m.signature)).toBe(true);
      const body = JSON.parse(r.body);
      expect(body).toMatchObject({ code: 200, subscription: sub.subscription, plan: pl.plan, product: pl.product, customer: 'member-1', status: 'PAID', amount: pl.amount, currency: 'EUR' });
      const hashed = `{${r.body.slice(r.body.indexOf('"payment_id"'), r.body.lastIndexOf(',"validation_hash":'))}}`;
      expect(createHash('sha256').update(hashed + m.signature).digest('hex')).toBe(body.validation_hash);
    }
    expect(got.map((r) => JSON.parse(r.body).payment_number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // the orders notified their url_post as well, and the events are listed
    expect(rx.received.filter((r) => r.path === '/orders-year')).toHaveLength(12);
    const ev = await ok(m.api.get('/events', { limit: '100' }));
    expect(ev.events.filter((e: any) => e.type === 'SUBSCRIPTION_PAYMENT')).toHaveLength(12);
  });
});

describe('failed charges', () => {
  it('retries a declined card 1, 3 and 5 days after the due date, then cancels at the attempts limit', async () => {
    const m = await t.merchant();
    const card = await storeCard(t, m, TEST_CARDS.REFUSED, 'late-payer');
    const pl = await plan(m);
    const sub = await ok(m.api.post('/subscriptions/subscription', { plan: pl.plan, customer: 'late-payer', payment_attempts_limit: 4, additional_data: { source_uuid: card } }));
    expect(sub.status).toBe('FAILED');
    let s = await subscription(m, sub.subscription);
    expect(s).toMatchObject({ status: 'UNPAID', active: true });
    const due = new Date(s.first_charge_date).getTime();
    const day = 86400_000;
    expect(new Date(s.next_charge_date).getTime()).toBe(due + day);
    await advanceDays(m, 1);
    s = await subscription(m, sub.subscription);
    expect(s.payments.map((p: any) => [p.payment_number, p.attempt, p.status])).toEqual([[1, 1, 'FAILED'], [1, 2, 'FAILED']]);
    expect(new Date(s.next_charge_date).getTime()).toBe(due + 3 * day);
    await advanceDays(m, 1); // day 2: nothing due
    expect((await subscription(m, sub.subscription)).payments).toHaveLength(2);
    await advanceDays(m, 1); // day 3
    s = await subscription(m, sub.subscription);
    expect(s.payments).toHaveLength(3);
    expect(new Date(s.next_charge_date).getTime()).toBe(due + 5 * day);
    await advanceDays(m, 2); // day 5: the 4th consecutive failure reaches the limit
    s = await subscription(m, sub.subscription);
    expect(s).toMatchObject({ status: 'CANCELLED', active: false, next_charge_date: null, total_payment_charged: 0 });
    expect(s.payments.map((p: any) => p.attempt)).toEqual([1, 2, 3, 4]);
    expect(s.payments.map((p: any) => new Date(p.payment_date).getTime() - due)).toEqual([0, day, 3 * day, 5 * day]);
    await advanceDays(m, 30);
    expect((await subscription(m, sub.subscription)).payments).toHaveLength(4);
    expect(await ordersOfCustomer('late-payer')).toBe(4);
    const notified = rx.received.filter((r) => r.path === pl.path).map((r) => JSON.parse(r.body));
    expect(notified.map((b) => [b.attempt, b.status])).toEqual([[1, 'FAILED'], [2, 'FAILED'], [3, 'FAILED'], [4, 'FAILED']]);
  });

  it('a card that starts failing: a successful retry resets the count, the limit counts consecutive failures', async () => {
    const m = await t.merchant();
    const card = await storeCard(t, m, TEST_CARDS.APPROVED, 'flaky');
    // a black list holding the customer, switched on and off, makes the card fail and work again
    const list = (await ok(m.api.post('/security-list', { type: 'BLACKLIST', enabled: false, description: 'flaky' }))).colorlists.uuid;
    await ok(m.api.post(`/security-list/${list}/service`, { service_uuid: m.service_uuid }));
    await ok(m.api.post(`/security-list/${list}/items`, { items: [{ type: 'CUSTOMER', value: 'flaky' }] }));
    const failing = (on: boolean) => ok(m.api.put(`/security-list/${list}/enabled`, { enabled: on }));
    const pl = await plan(m);
    const sub = await ok(m.api.post('/subscriptions/subscription', { plan: pl.plan, customer: 'flaky', payment_attempts_limit: 3, additional_data: { source_uuid: card } }));
    expect(sub.status).toBe('PAID');
    await failing(true);
    let s = await subscription(m, sub.subscription);
    await clockTo(m, new Date(new Date(s.next_charge_date).getTime() + 60_000).toISOString()); // charge 2, attempt 1
    await advanceDays(m, 1); // attempt 2
    expect((await subscription(m, sub.subscription)).status).toBe('UNPAID');
    await failing(false);
    await advanceDays(m, 2); // attempt 3 succeeds
    s = await subscription(m, sub.subscription);
    expect(s).toMatchObject({ status: 'PAID', active: true, total_payment_charged: 2 });
    await failing(true);
    await clockTo(m, new Date(new Date(s.next_charge_date).getTime() + 60_000).toISOString()); // charge 3, attempt 1
    await advanceDays(m, 1);
    expect((await subscription(m, sub.subscription))).toMatchObject({ status: 'UNPAID', active: true });
    await advanceDays(m, 2); // the third consecutive failure
    s = await subscription(m, sub.subscription);
    expect(s).toMatchObject({ status: 'CANCELLED', active: false });
    expect(s.payments.map((p: any) => [p.payment_number, p.attempt, p.status])).toEqual([
      [1, 1, 'PAID'], [2, 1, 'FAILED'], [2, 2, 'FAILED'], [2, 3, 'PAID'], [3, 1, 'FAILED'], [3, 2, 'FAILED'], [3, 3, 'FAILED'],
    ]);
    const refused = await ok(m.api.get(`/order/${JSON.parse(s.payments[1].payment_details).order_uuid}`));
    expect(refused.order).toMatchObject({ paid: false, status: 'BLACKLISTED' });
  });

  it('registers the subscription with a FAILED_NOTIFICATION payment when the card is wrong, and tells the product', async () => {
    const m = await t.merchant();
    const pl = await plan(m);
    const sub = await ok(m.api.post('/subscriptions/subscription', { plan: pl.plan, customer: 'nocard', payment_attempts_limit: 1, additional_data: { source_uuid: '00000000-0000-4000-8000-000000000000' } }));
    expect(sub).toMatchObject({ status: 'FAILED_NOTIFICATION', currency: null });
    const s = await subscription(m, sub.subscription);
    expect(s).toMatchObject({ status: 'CANCELLED', active: false });
    expect(JSON.parse(s.payments[0].payment_details).error).toMatch(/not found/i);
    await drain();
    const notified = rx.received.filter((r) => r.path === pl.path).map((r) => JSON.parse(r.body));
    expect(notified).toEqual([expect.objectContaining({ status: 'FAILED_NOTIFICATION', payment_id: sub.payment_id, customer: 'nocard' })]);
    expect(await ordersOfCustomer('nocard')).toBe(0);
  });
});
