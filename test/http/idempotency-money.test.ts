/**
 * A money step sent with an Idempotency-Key is never done twice, even when its answer is lost after the
 * processor was called (a failover cut the connection before the settle, a gateway node died): the
 * first commit of the step (the PENDING transaction) also marks the key `committed`, in the same
 * statement or transaction, so neither a 5xx answer nor the lapse of the key's lock frees it again. A
 * retry meets 409 and reads the order, which the reconciler settles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder, paidOrder } from '../helpers/payments.js';
import { TEST_CARDS } from '../../src/processors/index.js';
import type { FollowUpRequest, PaymentRequest } from '../../src/processors/connector.js';

let t: TestApp;
let m: TestMerchant;
beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant({ isPci: true });
});
afterAll(async () => t?.close());

const keyStatus = async (key: string) =>
  (await t.p.database.db.selectFrom('idempotency_keys').select(['status', 'response_status']).where('merchant_id', '=', m.client_uuid).where('key', '=', key).executeTakeFirst()) ?? null;

/** Runs `fn` with the simulator's `op` replaced by one that notes the key's state while the processor is called. */
async function duringCall<T>(op: 'refund' | 'authorize', key: string, fn: () => Promise<T>): Promise<{ result: T; seen: string | null }> {
  const sim = t.m.processors.simulator;
  const original = sim[op].bind(sim) as (r: unknown) => ReturnType<typeof sim.refund>;
  let seen: string | null = null;
  (sim as any)[op] = async (r: FollowUpRequest | PaymentRequest) => {
    seen = (await keyStatus(key))?.status ?? null;
    return original(r);
  };
  try {
    return { result: await fn(), seen };
  } finally {
    (sim as any)[op] = original;
  }
}

const refunds = async (orderUuid: string) =>
  (await t.p.database.db.selectFrom('transactions').select(['status', 'amount']).where('order_id', '=', orderUuid).where('operative', '=', 'REFUND').execute());

describe('Idempotency-Key on money steps', () => {
  it('a refund (one-statement path) marks its key committed before the processor is called; a lost answer is never refunded again', async () => {
    const order = await paidOrder(t, m);
    const { result: r, seen } = await duringCall('refund', 'refund-1', () => m.api.post('/payment/refund', { order_uuid: order.uuid, amount: 300 }, { 'idempotency-key': 'refund-1' }));
    expect(r.status, r.raw).toBe(200);
    expect(seen).toBe('committed');
    expect(await keyStatus('refund-1')).toMatchObject({ status: 'done', response_status: 200 });

    // a refund whose answer is lost after the call: the key is committed while the processor is called;
    // the gateway then dies (or its database goes away) before it records an answer: the key stays so
    const { seen: seen2 } = await duringCall('refund', 'refund-2', () => m.api.post('/payment/refund', { order_uuid: order.uuid, amount: 200 }, { 'idempotency-key': 'refund-2' }));
    expect(seen2).toBe('committed');
    await t.p.database.db.updateTable('idempotency_keys').set({ status: 'committed', response_status: null, response_body: null }).where('key', '=', 'refund-2').execute();
    expect((await keyStatus('refund-2'))?.status).toBe('committed');
    // a 5xx answer does not free it, nor does its lock lapsing
    await t.m.idempotency.finish(m.client_uuid, 'refund-2', 503, '');
    await t.p.database.db.updateTable('idempotency_keys').set({ locked_until: new Date(Date.now() - 3_600_000) }).where('key', '=', 'refund-2').execute();
    const retry = await m.api.post('/payment/refund', { order_uuid: order.uuid, amount: 200 }, { 'idempotency-key': 'refund-2' });
    expect(retry.status, retry.raw).toBe(409);
    expect(retry.body.details).toMatch(/carried out but its answer was lost/);
    const rows = await refunds(order.uuid);
    expect(rows.filter((x) => Number(x.amount) === 200)).toHaveLength(1);
    // without a key nothing is marked: the same body refunds again (a second, distinct refund)
    const again = await m.api.post('/payment/refund', { order_uuid: order.uuid, amount: 200 });
    expect(again.status, again.raw).toBe(200);
    expect((await refunds(order.uuid)).filter((x) => Number(x.amount) === 200)).toHaveLength(2);
  });

  it('a payment with card data (the transaction path) marks its key committed before the processor is called', async () => {
    const order = await createOrder(m);
    const { result: r, seen } = await duringCall('authorize', 'moto-1', () =>
      m.api.post('/payment/moto', { order_uuid: order.uuid, method: 'PHONE', card_holder: 'Ana Pérez', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' }, { 'idempotency-key': 'moto-1' }),
    );
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.status).toBe('SUCCESS');
    expect(seen).toBe('committed');
    expect(await keyStatus('moto-1')).toMatchObject({ status: 'done', response_status: 200 });
    // replayed, not paid again
    const again = await m.api.post('/payment/moto', { order_uuid: order.uuid, method: 'PHONE', card_holder: 'Ana Pérez', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' }, { 'idempotency-key': 'moto-1' });
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('an order or a subscription created with a key whose answer is lost is never created again', async () => {
    // the answer is lost: nothing records it (the gateway died after the work)
    const store = t.m.idempotency;
    const lost = async <T>(fn: () => Promise<T>): Promise<T> => {
      const finish = store.finish;
      store.finish = async () => {};
      try {
        return await fn();
      } finally {
        store.finish = finish;
      }
    };
    const orders = async () => (await t.p.database.db.selectFrom('orders').select('id').where('merchant_id', '=', m.client_uuid).where('description', '=', 'lost answer').execute()).length;
    const body = { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'lost answer', service: m.service_uuid, customer_ext_id: 'cust-lost' };
    const first = await lost(() => m.api.post('/payment', body, { 'idempotency-key': 'order-lost' }));
    expect(first.status, first.raw).toBe(200);
    expect((await keyStatus('order-lost'))?.status).toBe('committed');
    await t.p.database.db.updateTable('idempotency_keys').set({ locked_until: new Date(Date.now() - 3_600_000) }).where('key', '=', 'order-lost').execute();
    const retry = await m.api.post('/payment', body, { 'idempotency-key': 'order-lost' });
    expect(retry.status, retry.raw).toBe(409);
    expect(await orders()).toBe(1);

    const card = await (await import('../helpers/payments.js')).storeCard(t, m, TEST_CARDS.APPROVED, 'sub-lost');
    expect((await m.api.post('/subscriptions/product', { name: 'P', external_id: 'lost-p' })).status).toBe(200);
    expect((await m.api.post('/subscriptions/plan', { name: 'Monthly', external_id: 'lost-m', product: 'lost-p', amount: 500, interval_type: 'MONTHLY' })).status).toBe(200);
    const sub = { plan: 'lost-m', customer: 'sub-lost', payment_attempts_limit: 1, additional_data: { source_uuid: card, service: m.service_uuid } };
    const s1 = await lost(() => m.api.post('/subscriptions/subscription', sub, { 'idempotency-key': 'sub-lost' }));
    expect(s1.status, s1.raw).toBe(200);
    expect((await keyStatus('sub-lost'))?.status).toBe('committed');
    await t.p.database.db.updateTable('idempotency_keys').set({ locked_until: new Date(Date.now() - 3_600_000) }).where('key', '=', 'sub-lost').execute();
    expect((await m.api.post('/subscriptions/subscription', sub, { 'idempotency-key': 'sub-lost' })).status).toBe(409);
    const subs = await t.p.database.db.selectFrom('subscriptions').select('id').where('customer_ext_id', '=', 'sub-lost').execute();
    expect(subs).toHaveLength(1);
  });

  it('a request that fails before it commits anything leaves its key free for the retry', async () => {
    const order = await paidOrder(t, m);
    const r = await m.api.post('/payment/refund', { order_uuid: order.uuid, amount: 999_999 }, { 'idempotency-key': 'too-much' });
    expect(r.status).toBe(400);
    expect(await keyStatus('too-much')).toMatchObject({ status: 'done', response_status: 400 });
  });
});
