/**
 * J7 on a SIMULATION device: a refund is judged and its amount reserved when it is sent (more than is
 * left, counting the refunds already sent, is 400 at once and changes nothing, as POST /payment/refund),
 * then processed 10 s later (merchant clock), like a payment, with the contract's outcomes by amount:
 * 100 CANCELLED, 200 REFUSED, otherwise refunded. Every outcome is a transaction of the order and is
 * notified to url_post; refunds sent one after another keep their amounts whatever order they run in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { advance } from '../helpers/payments.js';
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

/** A SIMULATION device of `m` and an order it was paid with (settled 10 s after it was sent). */
async function paidOnDevice(m: TestMerchant, amount: number, identifier: string, urlPost?: string) {
  const reg = await m.api.post('/device', { service: m.service_uuid, identifier, communication_type: 'SIMULATION' });
  expect(reg.status, reg.raw).toBe(200);
  const device = reg.body.device.id as string;
  const sent = await m.api.post('/device/payment', { device, amount, description: 'coffee', ...(urlPost ? { url_post: urlPost } : {}) });
  expect(sent.status, sent.raw).toBe(200);
  await advance(m, 11);
  await t.p.jobs.drain();
  const uuid = sent.body.order.uuid as string;
  expect((await m.api.get(`/order/${uuid}`)).body.order.status).toBe('SUCCESS');
  return { device, uuid };
}

const notifiedRefunds = (uuid: string) =>
  rx.received
    .map((x) => JSON.parse(x.body))
    .filter((b) => b.order?.uuid === uuid)
    .map((b) => (b.order.transactions as Array<{ operative: string; amount: number; status: string }>).filter((x) => x.operative === 'REFUND').map((x) => `${x.amount}:${x.status}`).join(','));

describe('J7 on a simulated device', () => {
  it('processes the refund 10 s after it is sent: 100 cancelled, 200 refused, other amounts refunded; every outcome on the order and notified', async () => {
    const m = await t.merchant();
    const { device, uuid } = await paidOnDevice(m, 1500, 'sim-refunds', `${rx.url}/j7`);

    const refunds: string[] = [];
    for (const amount of [100, 200, 300]) {
      const r = await m.api.post('/device/refund', { device, order_uuid: uuid, amount });
      expect(r.status, r.raw).toBe(200);
      // answered at once: the order as it is (the refund pending on it), the refund queued
      expect(r.body.order).toMatchObject({ status: 'SUCCESS', refunded: 0 });
      expect(r.body.order.transactions.at(-1)).toMatchObject({ operative: 'REFUND', amount, status: 'PENDING' });
      expect(r.body.refund).toMatchObject({ device_id: device, order_uuid: uuid, amount, status: 'QUEUED', error: null });
      refunds.push(r.body.refund.uuid as string);
    }
    // more than is left once the refunds sent are counted (1500 - 600) is refused at once, nothing queued
    const tooMuch = await m.api.post('/device/refund', { device, order_uuid: uuid, amount: 901 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.details).toMatch(/more than the refundable remainder 900/);

    const statuses = async () => {
      const rows = await t.p.database.db.selectFrom('device_refunds').select(['id', 'status', 'error']).where('order_id', '=', uuid).execute();
      expect(rows).toHaveLength(3);
      return refunds.map((id) => rows.find((x) => x.id === id)!.status);
    };
    await advance(m, 9);
    await t.p.jobs.drain();
    expect(await statuses()).toEqual(['QUEUED', 'QUEUED', 'QUEUED']);
    expect((await m.api.get(`/order/${uuid}`)).body.order.refunded).toBe(0);

    await advance(m, 2);
    await t.p.jobs.drain();
    expect(await statuses()).toEqual(['CANCELLED', 'REFUSED', 'REFUNDED']);
    const after = (await m.api.get(`/order/${uuid}`)).body.order;
    expect(after).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 300 });
    const txs = after.transactions.filter((x: any) => x.operative === 'REFUND');
    expect(txs.map((x: any) => [x.amount, x.status])).toEqual([[100, 'REFUSED'], [200, 'REFUSED'], [300, 'SUCCESS']]);
    expect(txs[0].error_details).toBe('Cancelled on the terminal');
    expect(txs[1].error_details).toBe('Refused on the terminal');
    // each outcome was notified with the order as it then was
    await t.p.jobs.drain();
    const seen = notifiedRefunds(uuid);
    for (const outcome of ['100:REFUSED', '200:REFUSED', '300:SUCCESS']) expect(seen.some((s) => s.includes(outcome)), `${outcome} in ${JSON.stringify(seen)}`).toBe(true);
    // processed once: another drain changes nothing
    await advance(m, 30);
    await t.p.jobs.drain();
    expect((await m.api.get(`/order/${uuid}`)).body.order.refunded).toBe(300);
  });

  it('judged when sent: 2800 on an order of 2500 is 400 as on POST /payment/refund; "the rest" sent after 500 is the rest then, whatever order they run in', async () => {
    const m = await t.merchant();
    const { device, uuid } = await paidOnDevice(m, 2500, 'sim-refunds-2');
    const over = await m.api.post('/device/refund', { device, order_uuid: uuid, amount: 2800 });
    expect(over.status, over.raw).toBe(400);
    expect((await m.api.post('/payment/refund', { order_uuid: uuid, amount: 2800 })).status).toBe(400);
    expect(await t.p.database.db.selectFrom('device_refunds').select('id').where('order_id', '=', uuid).execute()).toHaveLength(0);

    const first = await m.api.post('/device/refund', { device, order_uuid: uuid, amount: 500 });
    const rest = await m.api.post('/device/refund', { device, order_uuid: uuid });
    expect(first.body.refund.amount).toBe(500);
    expect(rest.body.refund.amount).toBe(2000);
    // nothing is left to send
    expect((await m.api.post('/device/refund', { device, order_uuid: uuid, amount: 1 })).status).toBe(400);
    // "the rest" runs first: the 500 still finds its amount reserved
    await t.p.database.db.updateTable('jobs').set({ run_at: new Date(Date.now() - 60_000) }).where('queue', '=', 'devices.simulate-refund').where('payload', '@>', JSON.stringify({ refundId: rest.body.refund.uuid }) as any).execute();
    await t.p.jobs.drain({ queues: ['devices.simulate-refund'] });
    expect((await m.api.get(`/order/${uuid}`)).body.order).toMatchObject({ refunded: 2000, status: 'PARTIALLY_REFUNDED' });
    await advance(m, 11);
    await t.p.jobs.drain();
    const o = (await m.api.get(`/order/${uuid}`)).body.order;
    expect(o).toMatchObject({ refunded: 2500, status: 'REFUNDED' });
    const rows = await t.p.database.db.selectFrom('device_refunds').select(['amount', 'status']).where('order_id', '=', uuid).orderBy('created_at').execute();
    expect(rows.map((r) => [Number(r.amount), r.status])).toEqual([[500, 'REFUNDED'], [2000, 'REFUNDED']]);
  });
});
