/**
 * Recurring billing (section I), continued from subscriptions.test.ts: trials, later first charges,
 * cancel, a charge that runs twice or in two runs at once (made once), a subscription changed during its
 * charge (settled under the lock), runs that died mid-charge, listings, and bad input.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { CHARGE_QUEUE, chargeOrderId } from '../../src/modules/subscriptions/index.js';
import { JobQueue } from '../../src/platform/jobs/queue.js';
import { createLogger } from '../../src/platform/logging.js';
import type { TestApp, TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, merchantDay, storeCard } from '../helpers/payments.js';
import { advanceDays, drain, ok, ordersOfCustomer, plan, subscription, closeSubscriptionsApp, openSubscriptionsApp } from '../helpers/subscriptions.js';

let t: TestApp;
let a: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  ({ t, a, other } = await openSubscriptionsApp());
});
afterAll(closeSubscriptionsApp);

describe('schedule', () => {
  it('a trial delays the first charge', async () => {
    const m = await t.merchant();
    const card = await storeCard(t, m, TEST_CARDS.APPROVED, 'trial-1');
    const pl = await plan(m, { interval_type: 'WEEKLY', trial_available: true, interval_offset: 14, interval_offset_type: 'DAILY' });
    const sub = await ok(m.api.post('/subscriptions/subscription', { plan: pl.plan, customer: 'trial-1', payment_attempts_limit: 2, additional_data: { source_uuid: card } }));
    expect(sub).toMatchObject({ status: 'CREATED', payment_id: null, payment_number: 1 });
    await advanceDays(m, 13);
    expect((await subscription(m, sub.subscription))).toMatchObject({ status: 'CREATED', payments: [] });
    await advanceDays(m, 1);
    let s = await subscription(m, sub.subscription);
    expect(s).toMatchObject({ status: 'PAID', total_payment_charged: 1 });
    await advanceDays(m, 7);
    s = await subscription(m, sub.subscription);
    expect(s.total_payment_charged).toBe(2);
    expect(await ordersOfCustomer('trial-1')).toBe(2);
  });

  it('a later initial_date schedules the first charge on that day', async () => {
    const m = await t.merchant();
    const card = await storeCard(t, m, TEST_CARDS.APPROVED, 'later-1');
    const pl = await plan(m, { interval_type: 'DAILY', interval: 2 });
    const tomorrow = await merchantDay(m, 3);
    const sub = await ok(m.api.post('/subscriptions/subscription', { plan: pl.plan, customer: 'later-1', payment_attempts_limit: 1, initial_date: tomorrow, total_payment_number: 2, additional_data: { source_uuid: card } }));
    expect(sub).toMatchObject({ status: 'CREATED', payment_id: null });
    await advanceDays(m, 4);
    expect((await subscription(m, sub.subscription)).total_payment_charged).toBe(1);
    await advanceDays(m, 2);
    expect((await subscription(m, sub.subscription))).toMatchObject({ status: 'FINISHED', total_payment_charged: 2 });
  });

  it('cancel stops every later charge at once', async () => {
    const m = await t.merchant();
    const card = await storeCard(t, m, TEST_CARDS.APPROVED, 'quitter');
    const pl = await plan(m);
    const sub = await ok(m.api.post('/subscriptions/subscription', { plan: pl.plan, customer: 'quitter', payment_attempts_limit: 2, additional_data: { source_uuid: card } }));
    expect(sub.status).toBe('PAID');
    expect((await ok(m.api.delete(`/subscriptions/subscription/${sub.subscription}`))).deleted).toBe(1);
    expect((await ok(m.api.delete(`/subscriptions/subscription/${sub.subscription}`))).deleted).toBe(0);
    await advanceDays(m, 70);
    const s = await subscription(m, sub.subscription);
    expect(s).toMatchObject({ status: 'CANCELLED', active: false, total_payment_charged: 1, next_charge_date: null });
    expect(s.payments).toHaveLength(1);
    expect(await ordersOfCustomer('quitter')).toBe(1);
    // removing the plan and product cancels nothing of another subscription
    const card2 = await storeCard(t, m, TEST_CARDS.APPROVED, 'stayer');
    const sub2 = await ok(m.api.post('/subscriptions/subscription', { plan: pl.plan, customer: 'stayer', payment_attempts_limit: 2, additional_data: { source_uuid: card2 } }));
    await ok(m.api.delete(`/subscriptions/plan/${pl.plan}`));
    await ok(m.api.delete(`/subscriptions/product/${pl.product}`));
    await advanceDays(m, 32);
    expect((await subscription(m, sub2.subscription))).toMatchObject({ status: 'PAID', active: true, total_payment_charged: 2 });
  });

  it('a charge that runs twice, or in two runs at once, is made once', async () => {
    const m = await t.merchant();
    const card = await storeCard(t, m, TEST_CARDS.APPROVED, 'racer');
    const pl = await plan(m, { interval_type: 'DAILY' });
    const sub = await ok(m.api.post('/subscriptions/subscription', { plan: pl.plan, customer: 'racer', payment_attempts_limit: 2, additional_data: { source_uuid: card } }));
    expect(sub.status).toBe('PAID');
    // the job of payment 1 still runs (it finds the charge done), and so does a direct repeat
    const ref = { subscriptionId: sub.subscription, paymentNumber: 1, attempt: 1 };
    await t.m.subscriptions.charge(ref);
    await drain();
    expect(await ordersOfCustomer('racer')).toBe(1);
    // payment 2: three runs race (with and without the due date, which takes the one-statement claim),
    // then the job runs too
    const at = (await subscription(m, sub.subscription)).next_charge_date;
    await ok(m.api.post('/test-clock', { advance_seconds: 86400 + 60 }));
    const ref2 = { subscriptionId: sub.subscription, paymentNumber: 2, attempt: 1 };
    const results = await Promise.allSettled([t.m.subscriptions.charge(ref2), t.m.subscriptions.charge({ ...ref2, at }), t.m.subscriptions.charge({ ...ref2, at, keyId: m.key_id }), drain()]);
    for (const r of results) if (r.status === 'rejected') expect(String(r.reason)).toMatch(/another run/);
    await drain();
    const s = await subscription(m, sub.subscription);
    expect(s.payments.map((p: any) => [p.payment_number, p.attempt, p.status])).toEqual([[1, 1, 'PAID'], [2, 1, 'PAID']]);
    expect(await ordersOfCustomer('racer')).toBe(2);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from transactions t join orders o on o.id = t.order_id where o.customer_ext_id = 'racer'`.execute(t.p.database.db);
    expect(rows[0].n).toBe(2);
  });
});

describe('a subscription changed while its charge is paid', () => {
  it('the one-statement settle writes nothing and the charge is settled under the lock: paid once, the next charge scheduled once', async () => {
    const m = await t.merchant();
    const card = await storeCard(t, m, TEST_CARDS.APPROVED, 'changed-mid');
    const pl = await plan(m, { interval_type: 'DAILY' });
    const sub = await ok(m.api.post('/subscriptions/subscription', { plan: pl.plan, customer: 'changed-mid', payment_attempts_limit: 2, additional_data: { source_uuid: card } }));
    expect(sub.status).toBe('PAID');
    await drain();
    // between the claim of payment 2 (one statement, which reads the subscription's row version) and its
    // settle, the subscription's row gets a new version, as any change to it would give it
    const create = t.m.payments.create.bind(t.m.payments);
    let changed = 0;
    const spy = vi.spyOn(t.m.payments, 'create').mockImplementation(async (...args: Parameters<typeof create>) => {
      await sql`update subscriptions set updated_at = updated_at where id = ${sub.subscription}`.execute(t.p.database.db);
      changed++;
      return create(...args);
    });
    const seen = new Set<string>();
    t.p.database.stats.statements = seen;
    try {
      await ok(m.api.post('/test-clock', { advance_seconds: 86400 + 60 }));
      await drain();
    } finally {
      delete t.p.database.stats.statements;
      spy.mockRestore();
    }
    expect(changed).toBe(1);
    const statements = [...seen];
    // the guarded settle was sent, then the lock of the transaction path (the claim took none)
    expect(statements.some((q) => q.includes('with ls as') && q.includes('xmin::text'))).toBe(true);
    expect(statements.some((q) => q.includes('"subscription_companies"') && /for update/i.test(q))).toBe(true);
    const two = await subscription(m, sub.subscription);
    expect(two.payments.map((p: any) => [p.payment_number, p.attempt, p.status])).toEqual([[1, 1, 'PAID'], [2, 1, 'PAID']]);
    expect(two.total_payment_charged).toBe(2);
    // payment 3 is scheduled once and charged once, a day later
    await advanceDays(m, 1);
    const s = await subscription(m, sub.subscription);
    expect(s.payments.map((p: any) => [p.payment_number, p.attempt, p.status])).toEqual([[1, 1, 'PAID'], [2, 1, 'PAID'], [3, 1, 'PAID']]);
    expect(s.total_payment_charged).toBe(3);
    expect(await ordersOfCustomer('changed-mid')).toBe(3);
  });
});

describe('many charges due at once', () => {
  it('two workers sharing the queue charge each subscription once', async () => {
    const m = await t.merchant();
    const pl = await plan(m, { interval_type: 'WEEKLY' });
    const day = new Date(Date.now() + 2 * 86400_000).toISOString().slice(0, 10);
    const subs: string[] = [];
    for (let i = 0; i < 30; i++) {
      const card = await storeCard(t, m, TEST_CARDS.APPROVED, `crowd-${i}`);
      const r = await ok(m.api.post('/subscriptions/subscription', { plan: pl.plan, customer: `crowd-${i}`, payment_attempts_limit: 2, initial_date: day, additional_data: { source_uuid: card } }));
      expect(r.status).toBe('CREATED');
      subs.push(r.subscription);
    }
    await ok(m.api.post('/test-clock', { advance_seconds: 3 * 86400 }));
    const second = new JobQueue({ database: t.p.database, clock: t.p.clock, logger: createLogger('silent'), pollMs: 20, batchSize: 4 });
    second.register<{ subscriptionId: string; paymentNumber: number; attempt: number }>(CHARGE_QUEUE, async (job) => {
      await t.m.subscriptions.charge(job.payload);
    });
    await Promise.all([t.p.jobs.drain({ queues: [CHARGE_QUEUE] }), second.drain({ queues: [CHARGE_QUEUE] })]);
    const { rows } = await sql<{ n: number; paid: number }>`
      select count(*)::int as n, count(*) filter (where status = 'PAID')::int as paid from subscription_payments where subscription_id = any(${subs}::uuid[])`.execute(t.p.database.db);
    expect(rows[0]).toEqual({ n: 30, paid: 30 });
    const orders = await sql<{ n: number; tx: number }>`
      select count(distinct o.id)::int as n, count(t.id)::int as tx from orders o join transactions t on t.order_id = o.id where o.customer_ext_id like 'crowd-%'`.execute(t.p.database.db);
    expect(orders.rows[0]).toEqual({ n: 30, tx: 30 });
  });

  it('a run that died after paying is finished by the next run without a second charge', async () => {
    const m = await t.merchant();
    const card = await storeCard(t, m, TEST_CARDS.APPROVED, 'crashed');
    const pl = await plan(m, { interval_type: 'WEEKLY' });
    const day = new Date(Date.now() + 2 * 86400_000).toISOString().slice(0, 10);
    const sub = await ok(m.api.post('/subscriptions/subscription', { plan: pl.plan, customer: 'crashed', payment_attempts_limit: 2, initial_date: day, additional_data: { source_uuid: card } }));
    await ok(m.api.post('/test-clock', { advance_seconds: 3 * 86400 }));
    // what the dead run did: the order of the charge, created and paid (its own settling step never ran)
    const ctx = await t.m.merchants.contextForKey(m.key_id);
    const orderId = chargeOrderId(sub.subscription, 1, 1);
    await t.m.payments.create(ctx, { amount: pl.amount, operative: 'AUTHORIZATION', secure: false, description: 'charge', customer_ext_id: 'crashed', service: m.service_uuid, source_uuid: card }, { orderId });
    const paid = await t.m.payments.pay(ctx, orderId, { channel: 'MIT', card: { kind: 'source', sourceUuid: card } });
    expect(paid.order.paid).toBe(true);
    await drain();
    const s = await subscription(m, sub.subscription);
    expect(s.payments).toHaveLength(1);
    expect(s.payments[0]).toMatchObject({ status: 'PAID' });
    expect(JSON.parse(s.payments[0].payment_details).order_uuid).toBe(orderId);
    expect(await ordersOfCustomer('crashed')).toBe(1);
  });
});

describe('cancel after a run died mid-charge', () => {
  it('the charge a dead run left behind is settled without charging the card', async () => {
    const m = await t.merchant();
    const card = await storeCard(t, m, TEST_CARDS.APPROVED, 'cancelled-mid');
    const pl = await plan(m, { interval_type: 'WEEKLY' });
    const day = new Date(Date.now() + 2 * 86400_000).toISOString().slice(0, 10);
    const sub = await ok(m.api.post('/subscriptions/subscription', { plan: pl.plan, customer: 'cancelled-mid', payment_attempts_limit: 2, initial_date: day, additional_data: { source_uuid: card } }));
    // what a run that died right after claiming the charge left: its payment row, CREATED, lease over
    const now = new Date();
    await t.p.database.db.insertInto('subscription_payments').values({
      id: '11111111-2222-4333-8444-555555555555', subscription_id: sub.subscription, merchant_id: m.client_uuid, env: 'sandbox', payment_number: 1, attempt: 1,
      amount: pl.amount, currency: null, status: 'CREATED', payment_date: now, order_id: null, transaction_id: null, source_uuid: card, error: null,
      charging_until: new Date(now.getTime() - 1000), created_at: now, updated_at: now,
    }).execute();
    expect((await ok(m.api.delete(`/subscriptions/subscription/${sub.subscription}`))).deleted).toBe(1);
    const settled = await t.m.subscriptions.charge({ subscriptionId: sub.subscription, paymentNumber: 1, attempt: 1 });
    expect(settled).toMatchObject({ status: 'FAILED', order_id: null, error: expect.stringMatching(/cancelled/) });
    await advanceDays(m, 10);
    const s = await subscription(m, sub.subscription);
    expect(s).toMatchObject({ status: 'CANCELLED', active: false });
    expect(s.payments.map((p: any) => p.status)).toEqual(['FAILED']);
    expect(await ordersOfCustomer('cancelled-mid')).toBe(0);
  });
});

describe('listings', () => {
  it('lists subscriptions and payments with filters and pages; reads a payment with its subscription', async () => {
    const m = await t.merchant();
    const card = await storeCard(t, m, TEST_CARDS.APPROVED, 'lister');
    const bad = await storeCard(t, m, TEST_CARDS.REFUSED, 'lister-2');
    const pl = await plan(m);
    const s1 = await ok(m.api.post('/subscriptions/subscription', { plan: pl.plan, customer: 'lister', payment_attempts_limit: 2, additional_data: { source_uuid: card } }));
    const s2 = await ok(m.api.post('/subscriptions/subscription', { plan: pl.plan, customer: 'lister-2', payment_attempts_limit: 2, additional_data: { card_uuid: bad } }));
    const all = await ok(m.api.get('/subscriptions/subscriptions'));
    expect(all.count).toBe(2);
    expect(all.subscriptions.map((s: any) => s.id)).toEqual([s1.subscription, s2.subscription]);
    expect((await ok(m.api.get('/subscriptions/subscriptions', { status: 'UNPAID' }))).subscriptions.map((s: any) => s.id)).toEqual([s2.subscription]);
    expect((await ok(m.api.get('/subscriptions/subscriptions', { customer: 'lister' }))).count).toBe(1);
    expect((await ok(m.api.get('/subscriptions/subscriptions', { product: pl.product }))).count).toBe(2);
    expect((await ok(m.api.get('/subscriptions/subscriptions', { plan: 'nope' }))).count).toBe(0);
    const page = await ok(m.api.get('/subscriptions/subscriptions', { limit: '1' }));
    expect(page).toMatchObject({ count: 2, next_offset: 1 });
    expect((await ok(m.api.get('/subscriptions/subscriptions', { end: '200001010000' }))).count).toBe(0);

    const pays = await ok(m.api.get('/subscriptions/payments'));
    expect(pays.payments.map((p: any) => p.status)).toEqual(['PAID', 'FAILED']);
    expect((await ok(m.api.get('/subscriptions/payments', { status: 'FAILED' }))).payments[0].subscription).toBe(s2.subscription);
    const one = await ok(m.api.get(`/subscriptions/payment/${s1.payment_id}`));
    expect(one.payment).toMatchObject({ id: s1.payment_id, status: 'PAID', subscription: { id: s1.subscription, plan: { external_id: pl.plan } } });
    expect((await other.api.get(`/subscriptions/payment/${s1.payment_id}`)).status).toBe(404);
    expect((await other.api.get(`/subscriptions/subscription/${s1.subscription}`)).status).toBe(404);
    expect((await other.api.delete(`/subscriptions/subscription/${s1.subscription}`)).status).toBe(404);
  });
});

describe('bad input', () => {
  it('answers 4xx envelopes naming the problem, never 5xx', async () => {
    const pl = await plan(a);
    const cases: Array<[string, string, unknown, number]> = [
      ['POST', '/subscriptions/product', { external_id: 'x' }, 400],
      ['POST', '/subscriptions/product', { name: 'x', external_id: 'x', notification_url: 'ftp://x' }, 400],
      ['POST', '/subscriptions/product', { name: '', external_id: 'x' }, 400],
      ['POST', '/subscriptions/product', { name: 'x', external_id: {} }, 400],
      ['POST', '/subscriptions/plan', { name: 'x', external_id: 'x', product: pl.product, amount: 1, interval_type: 'HOURLY' }, 400],
      ['POST', '/subscriptions/plan', { name: 'x', external_id: 'x', product: pl.product, amount: -1, interval_type: 'DAILY' }, 400],
      ['POST', '/subscriptions/plan', { name: 'x', external_id: 'x', product: pl.product, amount: 1.5, interval_type: 'DAILY' }, 400],
      ['POST', '/subscriptions/plan', { name: 'x', external_id: 'x', product: pl.product, amount: 1, interval: 0, interval_type: 'DAILY' }, 400],
      ['POST', '/subscriptions/plan', { name: 'x', external_id: 'x', product: pl.product, amount: 1, interval_type: 'DAILY', trial_available: true }, 400],
      ['POST', '/subscriptions/plan', { name: 'x', external_id: 'x', product: 'nope', amount: 1, interval_type: 'DAILY' }, 404],
      ['POST', '/subscriptions/subscription', { plan: pl.plan, customer: 'c' }, 400],
      ['POST', '/subscriptions/subscription', { plan: pl.plan, customer: 'c', payment_attempts_limit: 0 }, 400],
      ['POST', '/subscriptions/subscription', { plan: pl.plan, customer: 'c', payment_attempts_limit: 1, initial_date: '2001-01-01' }, 400],
      ['POST', '/subscriptions/subscription', { plan: pl.plan, customer: 'c', payment_attempts_limit: 1, initial_date: '2030-02-30' }, 400],
      ['POST', '/subscriptions/subscription', { plan: pl.plan, customer: 'c', payment_attempts_limit: 1, additional_data: { operative: 'DEFERRED' } }, 400],
      ['POST', '/subscriptions/subscription', { plan: pl.plan, customer: 'c', payment_attempts_limit: 1, additional_data: { source_uuid: 'nope' } }, 400],
      ['POST', '/subscriptions/subscription', { plan: pl.plan, customer: 'c', payment_attempts_limit: 1, additional_data: { url_post: 'not a url' } }, 400],
      ['POST', '/subscriptions/subscription', { plan: 'nope', customer: 'c', payment_attempts_limit: 1 }, 404],
      ['GET', '/subscriptions/subscriptions?status=NOPE', undefined, 400],
      ['GET', '/subscriptions/subscriptions?limit=0', undefined, 400],
      ['GET', '/subscriptions/payments?start=2026', undefined, 400],
      ['GET', '/subscriptions/payments?start=202613010000', undefined, 400],
      ['GET', '/subscriptions/subscription/not-a-uuid', undefined, 404],
      ['GET', '/subscriptions/payment/00000000-0000-4000-8000-000000000000', undefined, 404],
      ['DELETE', '/subscriptions/subscription/nope', {}, 404],
    ];
    for (const [method, path, body, status] of cases) {
      const [p, q] = path.split('?');
      const r = await a.api.request(method, p, { body, query: q ? Object.fromEntries(new URLSearchParams(q)) : undefined });
      expect(r.status, `${method} ${path} ${JSON.stringify(body)}: ${r.raw}`).toBe(status);
      expect(r.body.code).toBe(status);
      expect(typeof r.body.details).toBe('string');
    }
    // writes need the signature (except the company), reads do not
    expect((await a.api.request('POST', '/subscriptions/product', { body: { name: 'x', external_id: 'y' }, sign: false })).status).toBe(403);
  });
});

