/**
 * The payments module's public interface, used the way the subscriptions, batch and device modules use
 * it: a caller context from the key that set the work up, an order created with a caller-chosen uuid (a
 * retried step finds it instead of creating a second one), a merchant-initiated payment with a stored
 * card, a refund, and the notification every order gets.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../src/processors/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;
let receiver: Receiver;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
  b = await t.merchant();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const storeCard = async (m: TestMerchant, customer: string, pan: string) => {
  const r = await m.api.post('/payment-method/card', { card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: 12, card_expiry_year: 30, customer_ext_id: customer });
  expect(r.status, r.raw).toBe(200);
  return r.body.Source.uuid as string;
};

describe('payments public interface', () => {
  it('contextForKey gives the context of a request made with that key', async () => {
    const ctx = await t.m.merchants.contextForKey(a.key_id);
    expect(ctx.merchant.id).toBe(a.client_uuid);
    expect(ctx.env).toBe('sandbox');
    expect(ctx.keyId).toBe(a.key_id);
    expect(ctx.signature().reveal()).toBe(a.signature);
    await expect(t.m.merchants.contextForKey(randomUUID())).rejects.toMatchObject({ status: 404 });
  });

  it('create with a chosen uuid is idempotent; MIT payment with a stored card; refund; notified', async () => {
    const ctx = await t.m.merchants.contextForKey(a.key_id);
    const source = await storeCard(a, 'sub-1', TEST_CARDS.APPROVED);
    const orderId = randomUUID();
    const input = { amount: 1999, operative: 'AUTHORIZATION' as const, secure: true, description: 'recurring', service: a.service_uuid, customer_ext_id: 'sub-1', url_post: receiver.url };
    const first = await t.m.payments.create(ctx, input, { orderId });
    expect(first.order.uuid).toBe(orderId);
    expect(first.order.status).toBe('CREATED');
    const again = await t.m.payments.create(ctx, { ...input, amount: 5 }, { orderId });
    expect(again.order.uuid).toBe(orderId);
    expect(again.order.amount).toBe(1999);
    const count = await t.p.database.db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).where('id', '=', orderId).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);

    // merchant-initiated: no 3DS even on a secure order, the customer is not there
    const paid = await t.m.payments.pay(ctx, orderId, { channel: 'MIT', card: { kind: 'source', sourceUuid: source } });
    expect(paid.redirect).toBeNull();
    expect(paid.order.status).toBe('SUCCESS');
    expect(paid.order.paid).toBe(true);
    expect(paid.order.transactions).toHaveLength(1);
    expect(paid.order.transactions[0]).toMatchObject({ operative: 'AUTHORIZATION', status: 'SUCCESS', amount: 1999 });

    const refunded = await t.m.payments.refund(ctx, { order_uuid: orderId, amount: 999 });
    expect(refunded.order.status).toBe('PARTIALLY_REFUNDED');
    expect(refunded.order.refunded).toBe(999);

    // the same order through the API, hashed with the key's signature
    const read = await a.api.get(`/order/${orderId}`);
    expect(read.body.order.status).toBe('PARTIALLY_REFUNDED');
    expect(t.m.payments.respond(ctx, await t.m.payments.getOrder(ctx, orderId)).validation_hash).toBe(read.body.validation_hash);

    await t.p.jobs.drain();
    const bodies = receiver.received.map((r) => JSON.parse(r.body));
    expect(bodies.map((x) => x.order.status)).toEqual(['SUCCESS', 'PARTIALLY_REFUNDED']);
  });

  it('create of an existing uuid answers the order and its transactions from one read: never paid false next to a SUCCESS', async () => {
    const ctx = await t.m.merchants.contextForKey(a.key_id);
    const source = await storeCard(a, 'sub-3', TEST_CARDS.APPROVED);
    const input = { amount: 700, operative: 'AUTHORIZATION' as const, secure: false, description: 'recurring', service: a.service_uuid, customer_ext_id: 'sub-3' };
    // one statement: a payment settling meanwhile is seen whole or not at all (two reads, the order then its
    // transactions, could see the order before the payment and the transaction after it)
    const orderId = randomUUID();
    await t.m.payments.create(ctx, input, { orderId });
    await t.m.payments.pay(ctx, orderId, { channel: 'MIT', card: { kind: 'source', sourceUuid: source } });
    const before = t.p.database.stats.roundTrips;
    const found = await t.m.payments.create(ctx, input, { orderId });
    expect(t.p.database.stats.roundTrips - before).toBe(1);
    expect(found.order).toMatchObject({ paid: true, status: 'SUCCESS' });
    expect(found.order.transactions).toHaveLength(1);
    // and while payments settle: every answer agrees with itself
    for (let i = 0; i < 10; i++) {
      const id = randomUUID();
      await t.m.payments.create(ctx, input, { orderId: id });
      const [, ...reads] = await Promise.all([
        t.m.payments.pay(ctx, id, { channel: 'MIT', card: { kind: 'source', sourceUuid: source } }),
        ...Array.from({ length: 4 }, () => t.m.payments.create(ctx, input, { orderId: id })),
      ]);
      for (const r of reads) {
        const success = r.order.transactions.some((tx: { status: string }) => tx.status === 'SUCCESS');
        expect(r.order.paid, JSON.stringify(r.order.transactions)).toBe(success);
      }
    }
  });

  it('a declined MIT payment is a REFUSED transaction; another merchant cannot create over or pay the order', async () => {
    const ctx = await t.m.merchants.contextForKey(a.key_id);
    const other = await t.m.merchants.contextForKey(b.key_id);
    const source = await storeCard(a, 'sub-2', TEST_CARDS.REFUSED);
    const orderId = randomUUID();
    await t.m.payments.create(ctx, { amount: 500, operative: 'AUTHORIZATION', secure: false, description: 'recurring', service: a.service_uuid, customer_ext_id: 'sub-2' }, { orderId });
    await expect(t.m.payments.create(other, { amount: 500, operative: 'AUTHORIZATION', secure: false, description: 'x', service: b.service_uuid }, { orderId })).rejects.toMatchObject({ status: 409 });
    await expect(t.m.payments.pay(other, orderId, { channel: 'MIT', card: { kind: 'source', sourceUuid: source } })).rejects.toMatchObject({ status: 404 });
    const r = await t.m.payments.pay(ctx, orderId, { channel: 'MIT', card: { kind: 'source', sourceUuid: source } });
    expect(r.order.status).toBe('REFUSED');
    expect(r.order.transactions[0].status).toBe('REFUSED');
  });
});
