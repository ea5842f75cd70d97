/**
 * A fast-path payment or refund of an order with url_post writes its notification in the statement that
 * settles it (no transaction around them): the answer and the notified order are predicted from the
 * order's transactions as step 1 read them back, and the statement writes only if the order's other
 * transactions are still at those row versions. Here: the predicted answer is what the database then
 * holds (an order with a refused attempt, metadata on it, a payment and two refunds; a confirmation and
 * a cancellation), and a change to another transaction between step 1 and the settle makes the settle
 * write nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fast from '../../src/modules/payments/fast.repo.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, createOrder, storeCard } from '../helpers/payments.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let t: TestApp;
let rx: Receiver;

beforeAll(async () => {
  t = await createTestApp();
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

/**
 * Runs an API call and tells whether it took the fast path with the notification in the settling
 * statement (that statement was sent), and its round trips: 3, or one or two more when a cache entry of
 * the caller's key or service lapsed in between (2 s); the settle in a transaction of its own took 6,
 * the ordinary path more.
 */
async function counted<T>(fn: () => Promise<T>): Promise<{ value: T; n: number; inSettle: boolean }> {
  const seen = new Set<string>();
  t.p.database.stats.statements = seen;
  const before = t.p.database.stats.roundTrips;
  try {
    const value = await fn();
    const inSettle = [...seen].some((q) => q.includes('string_agg(x.xmin::text') && q.includes('insert into events'));
    return { value, n: t.p.database.stats.roundTrips - before, inSettle };
  } finally {
    delete t.p.database.stats.statements;
  }
}

async function readOrder(m: TestMerchant, id: string) {
  const r = await m.api.get(`/order/${id}`);
  expect(r.status, r.raw).toBe(200);
  return r.body.order;
}

describe('the notification written by the settling statement', () => {
  it('the answer and each notified order are the order as the database then holds it', async () => {
    const m = await t.merchant({ isPci: true });
    const refusedCard = await storeCard(t, m, TEST_CARDS.REFUSED);
    const card = await storeCard(t, m);
    const order = await createOrder(m, { url_post: `${rx.url}/settle-${m.client_uuid}` });
    // a refused attempt first (the ordinary settle), with metadata of its own: another transaction of the order
    const refused = await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: refusedCard });
    expect(refused.status, refused.raw).toBe(200);
    const refusedTx = refused.body.order.transactions[0].uuid;
    expect(refused.body.order.transactions[0].status).toBe('REFUSED');
    expect((await m.api.post(`/transaction/${refusedTx}/metadata`, { metadata: { invoice: 'F-1', n: 2 } })).status).toBe(200);
    await t.p.jobs.drain();
    rx.received.length = 0;

    const answers: unknown[] = [];
    const paid = await counted(() => m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card }));
    expect(paid.value.status, paid.value.raw).toBe(200);
    expect(paid.value.body.order.status).toBe('SUCCESS');
    // the fast path: read, start, settle with the notification
    expect(paid.inSettle).toBe(true);
    expect(paid.n).toBeLessThanOrEqual(5);
    expect(paid.value.body.order).toEqual(await readOrder(m, order.uuid));
    answers.push(paid.value.body.order);
    for (const amount of [300, 200]) {
      const refund = await counted(() => m.api.post('/payment/refund', { order_uuid: order.uuid, amount }));
      expect(refund.value.status, refund.value.raw).toBe(200);
      expect(refund.inSettle).toBe(true);
      expect(refund.n).toBeLessThanOrEqual(5);
      expect(refund.value.body.order).toEqual(await readOrder(m, order.uuid));
      answers.push(refund.value.body.order);
    }
    const last = answers[2] as { status: string; transactions: Array<{ operative: string; status: string }> };
    expect(last.status).toBe('PARTIALLY_REFUNDED');
    expect(last.transactions.map((x) => `${x.operative} ${x.status}`)).toEqual(['AUTHORIZATION REFUSED', 'AUTHORIZATION SUCCESS', 'REFUND SUCCESS', 'REFUND SUCCESS']);

    await t.p.jobs.drain();
    const mine = rx.received.filter((r) => r.path === `/settle-${m.client_uuid}`).map((r) => JSON.parse(r.body).order);
    expect(mine).toEqual(answers);
  });

  it('a confirmation and a cancellation of deferred payments notify the order as then stored', async () => {
    const m = await t.merchant({ isPci: true });
    const card = await storeCard(t, m);
    const path = `/deferred-${m.client_uuid}`;
    for (const [op, status] of [['confirmation', 'SUCCESS'], ['cancellation', 'CANCELLED']] as const) {
      const order = await createOrder(m, { operative: 'DEFERRED', url_post: `${rx.url}${path}` });
      const paid = await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
      expect(paid.status, paid.raw).toBe(200);
      expect(paid.body.order.status).toBe('PENDING_CONFIRMATION');
      await t.p.jobs.drain();
      rx.received.length = 0;
      const r = await counted(() => m.api.post(`/payment/${op}`, { order_uuid: order.uuid }));
      expect(r.value.status, r.value.raw).toBe(200);
      expect(r.value.body.order.status).toBe(status);
      expect(r.inSettle).toBe(true);
      expect(r.n).toBeLessThanOrEqual(5);
      expect(r.value.body.order).toEqual(await readOrder(m, order.uuid));
      await t.p.jobs.drain();
      expect(rx.received.filter((x) => x.path === path).map((x) => JSON.parse(x.body).order)).toEqual([r.value.body.order]);
    }
  });

  it('writes nothing when another transaction of the order changed after step 1', async () => {
    const m = await t.merchant({ isPci: true });
    const card = await storeCard(t, m);
    const order = await createOrder(m, { url_post: `${rx.url}/guard-${m.client_uuid}` });
    const paid = await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
    expect(paid.status, paid.raw).toBe(200);
    const paymentTx = paid.body.order.transactions[0].uuid as string;
    const db = t.p.database.db;

    const refundOnce = async (change: boolean) => {
      const read = (await fast.readOrderForFollowUp(db, order.uuid, m.client_uuid, 'REFUND'))!;
      const now = new Date();
      const txId = randomUUID();
      const started = await fast.startStepWithTxs(
        db, order.uuid, read.version,
        { id: txId, merchantId: m.client_uuid, operative: 'REFUND', processorOperation: 'refund', amount: 100, sourceId: read.source_id,
          sourceJson: null, customerIp: null, antifraud: null, metadata: null, now, realNow: now },
        { status: read.status, paid: read.paid, sourceId: read.source_id, ip: read.ip, reserve: 100, busy: false },
      );
      expect(started).not.toBeNull();
      expect(started!.txs.map((x) => x.id)).toEqual(expect.arrayContaining([paymentTx, txId]));
      expect(started!.txs.find((x) => x.id === txId)!.status).toBe('PENDING');
      if (change) expect((await m.api.post(`/transaction/${paymentTx}/metadata`, { metadata: { changed: 'yes' } })).status).toBe(200);
      const settled: fast.ApprovedSettle = {
        txStatus: 'SUCCESS', authCode: 'A1', processorId: null, txAmount: null, orderStatus: 'PARTIALLY_REFUNDED', paid: true, authorized: null,
        captured: null, safe: null, refunded: Number(read.refunded) + 100, release: 100, clearBusy: false, sourceId: null, serviceId: null, now,
      };
      const written = await fast.settleApprovedNotifying(db, order.uuid, started!.version, txId, started!.others, settled, (when) =>
        t.m.events.notificationSql(
          { merchantId: m.client_uuid, env: m.env, orderId: order.uuid, keyId: read.key_id, url: `${rx.url}/guard`, payload: '{}', retries: false, at: now },
          when,
        ),
      );
      const tx = await db.selectFrom('transactions').select(['status']).where('id', '=', txId).executeTakeFirstOrThrow();
      const events = await db.selectFrom('events').select(['id']).where('order_id', '=', order.uuid).where('url', '=', `${rx.url}/guard`).execute();
      return { written, txStatus: tx.status, events: events.length };
    };

    // unchanged: the transaction settles and its notification is written with it
    expect(await refundOnce(false)).toEqual({ written: true, txStatus: 'SUCCESS', events: 1 });
    // another transaction's metadata changed in between: nothing is written (the ordinary settle takes over)
    expect(await refundOnce(true)).toEqual({ written: false, txStatus: 'PENDING', events: 1 });
  });
});
