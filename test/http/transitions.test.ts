/**
 * Every API operation against orders in every status: a legal one moves the order as the table says;
 * an illegal one is a clear 4xx and changes nothing (order row and transactions).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, createOrder, paidOrder, storeCard } from '../helpers/payments.js';
import type { OrderStatus } from '../../src/modules/payments/order-states.js';

let t: TestApp;
let a: TestMerchant;
let card: string;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
  card = await storeCard(t, a);
});
afterAll(async () => t?.close());

type Op = 'pay' | 'confirm' | 'cancel' | 'refund' | 'expire';
const OPS: Op[] = ['pay', 'confirm', 'cancel', 'refund', 'expire'];

async function run(op: Op, id: string) {
  switch (op) {
    case 'pay':
      return a.api.post('/payment/direct', { order_uuid: id, card_uuid: card });
    case 'confirm':
      return a.api.post('/payment/confirmation', { order_uuid: id });
    case 'cancel':
      return a.api.post('/payment/cancellation', { order_uuid: id });
    case 'refund':
      return a.api.post('/payment/refund', { order_uuid: id, amount: 100 });
    case 'expire':
      return a.api.post(`/order/${id}/expire`, {});
  }
}

/** Makes an order in a status, through the API where one leads there, by SQL for the others. */
async function orderIn(status: OrderStatus, deferred = false): Promise<string> {
  const operative = deferred ? 'DEFERRED' : 'AUTHORIZATION';
  switch (status) {
    case 'CREATED':
      return (await createOrder(a, { operative })).uuid;
    case 'SUCCESS':
      return (await paidOrder(t, a)).uuid;
    case 'PENDING_CONFIRMATION':
      return (await paidOrder(t, a, { operative: 'DEFERRED' })).uuid;
    case 'REFUSED':
      return (await paidOrder(t, a, { operative }, TEST_CARDS.REFUSED)).uuid;
    case 'PARTIALLY_REFUNDED': {
      const o = await paidOrder(t, a);
      await a.api.post('/payment/refund', { order_uuid: o.uuid, amount: 10 });
      return o.uuid;
    }
    case 'REFUNDED': {
      const o = await paidOrder(t, a);
      await a.api.post('/payment/refund', { order_uuid: o.uuid });
      return o.uuid;
    }
    case 'CANCELLED': {
      const o = await paidOrder(t, a, { operative: 'DEFERRED' });
      await a.api.post('/payment/cancellation', { order_uuid: o.uuid });
      return o.uuid;
    }
    case 'EXPIRED': {
      const o = await createOrder(a);
      await a.api.post(`/order/${o.uuid}/expire`, {});
      return o.uuid;
    }
    case 'PENDING_3DS_RESPONSE': {
      const o = await createOrder(a, { secure: true, operative });
      await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card });
      return o.uuid;
    }
    case 'PENDING_PROCESSOR_RESPONSE': {
      const o = await createOrder(a, { operative });
      t.m.processors.simulator.injectFault({ operation: deferred ? 'preauthorize' : 'authorize', kind: 'timeout' });
      await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card });
      return o.uuid;
    }
    default: {
      // ERROR, FRAUD, BLACKLISTED, AUTHENTICATION_REQUIRED: forced
      const o = await createOrder(a, { operative });
      await t.p.database.db.updateTable('orders').set({ status }).where('id', '=', o.uuid).execute();
      return o.uuid;
    }
  }
}

/** What the API must do: the status after, or a 4xx. */
const EXPECT: Record<OrderStatus, Partial<Record<Op, OrderStatus>>> = {
  CREATED: { pay: 'SUCCESS', expire: 'EXPIRED' },
  REFUSED: { pay: 'SUCCESS', expire: 'EXPIRED' },
  ERROR: { pay: 'SUCCESS', expire: 'EXPIRED' },
  PENDING_3DS_RESPONSE: { expire: 'EXPIRED' },
  AUTHENTICATION_REQUIRED: { expire: 'EXPIRED' },
  PENDING_PROCESSOR_RESPONSE: {},
  PENDING_CONFIRMATION: { confirm: 'SUCCESS', cancel: 'CANCELLED' },
  SUCCESS: { refund: 'PARTIALLY_REFUNDED' },
  PARTIALLY_REFUNDED: { refund: 'PARTIALLY_REFUNDED' },
  REFUNDED: {},
  CANCELLED: {},
  FRAUD: {},
  BLACKLISTED: {},
  EXPIRED: {},
};

async function snapshot(id: string) {
  const db = t.p.database.db;
  const order = await db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const txs = await db.selectFrom('transactions').selectAll().where('order_id', '=', id).orderBy('created_at').orderBy('id').execute();
  return { order, txs };
}

describe('every operation in every status', () => {
  for (const status of Object.keys(EXPECT) as OrderStatus[]) {
    it(status, async () => {
      for (const op of OPS) {
        const id = await orderIn(status);
        const before = await snapshot(id);
        expect(before.order.status, `${status} setup`).toBe(status);
        const r = await run(op, id);
        const want = EXPECT[status][op];
        if (want) {
          expect(r.status, `${status} ${op}: ${r.raw}`).toBe(200);
          expect(r.body.order.status, `${status} ${op}`).toBe(want);
        } else {
          expect(r.status, `${status} ${op}: ${r.raw}`).toBeGreaterThanOrEqual(400);
          expect(r.status, `${status} ${op}`).toBeLessThan(500);
          expect(typeof r.body.details).toBe('string');
          expect(await snapshot(id), `${status} ${op} changed nothing`).toEqual(before);
        }
      }
    });
  }
});
