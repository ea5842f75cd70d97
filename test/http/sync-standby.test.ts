/**
 * PAYGATE_REQUIRE_SYNC_STANDBY on a PostgreSQL primary that no synchronous standby follows (the test
 * server has none: what pg_auto_failover's wait_primary looks like to the gateway): nothing is
 * acknowledged. /readyz answers 503; a payment is refused before the processor is called (nothing
 * sent, the PENDING transaction closed by the reconciler); an order, which commits before its answer, is
 * answered 503 and its key stays committed (the retry is told the order); no background job runs.
 * Without the setting the same gateway acknowledges as PostgreSQL does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { testDatabaseUrl, testDbKind } from '../helpers/db.js';
import { TEST_CARDS } from '../helpers/payments.js';

describe.skipIf(testDbKind() !== 'postgres')('a synchronous standby required, none streaming', () => {
  let t: TestApp;
  let m: TestMerchant;
  beforeAll(async () => {
    t = await createTestApp({ PAYGATE_REQUIRE_SYNC_STANDBY: 'true', DATABASE_URL: testDatabaseUrl() });
    m = await t.merchant({ isPci: true });
  });
  afterAll(async () => t?.close());

  it('is not ready', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(r.statusCode).toBe(503);
    expect(JSON.parse(r.body).status).toMatch(/no synchronous standby: the primary takes writes alone/);
  });

  it('calls no processor: a payment answers 503 and its transaction is closed without a charge', async () => {
    const before = t.m.processors.simulator.callCount('authorize');
    const r = await m.api.post('/payment/single-step', {
      amount: 900, operative: 'AUTHORIZATION', secure: false, description: 'no standby', service: m.service_uuid, customer_ext_id: 'c1',
      card_holder: 'Ana Pérez', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
    }, { 'idempotency-key': 'no-standby-pay' });
    expect(r.status, r.raw).toBe(503);
    expect(r.body.details).toMatch(/Nothing was sent to the processor: no synchronous standby/);
    expect(t.m.processors.simulator.callCount('authorize')).toBe(before);
    // the reconciler asks the processor, which never had it: the payment failed, nothing was charged
    await t.m.payments.reconcile({ olderThanMs: 0 });
    const tx = await t.p.database.db.selectFrom('transactions as t').innerJoin('orders as o', 'o.id', 't.order_id').select(['t.status', 'o.status as order_status'])
      .where('o.merchant_id', '=', m.client_uuid).where('o.description', '=', 'no standby').executeTakeFirstOrThrow();
    expect(tx, JSON.stringify(tx)).toMatchObject({ status: 'ERROR', order_status: 'ERROR' });
  });

  it('answers no write as done: an order committed is answered 503, and the retry is told which order', async () => {
    const body = { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'committed, not acknowledged', service: m.service_uuid };
    const r = await m.api.post('/payment', body, { 'idempotency-key': 'no-standby-order' });
    expect(r.status, r.raw).toBe(503);
    expect(r.body.details).toMatch(/The outcome is not confirmed: no synchronous standby/);
    const rows = await t.p.database.db.selectFrom('orders').select('id').where('merchant_id', '=', m.client_uuid).where('description', '=', body.description).execute();
    expect(rows).toHaveLength(1);
    await t.m.idempotency.finish(m.client_uuid, 'no-standby-order', 503, '');
    const retry = await m.api.post('/payment', body, { 'idempotency-key': 'no-standby-order' });
    expect(retry.status, retry.raw).toBe(409);
    expect(retry.body.order_uuid).toBe(rows[0].id);
    // reads are answered
    expect((await m.api.get(`/order/${rows[0].id}`)).status).toBe(200);
  });

  it('runs no background job', async () => {
    await t.p.jobs.enqueue(t.p.database.db, { queue: 'idempotency.purge', payload: {} });
    expect(await t.p.jobs.drain({ queues: ['idempotency.purge'] })).toBe(0);
  });
});

describe.skipIf(testDbKind() !== 'postgres')('no synchronous standby required (the default)', () => {
  it('acknowledges what PostgreSQL acknowledges', async () => {
    const t = await createTestApp();
    try {
      const m = await t.merchant();
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      const r = await m.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'default', service: m.service_uuid });
      expect(r.status, r.raw).toBe(200);
    } finally {
      await t.close();
    }
  });
});
