/**
 * J7 on a SIMULATION device (issue 30 item 5): a refund is processed 10 s after it is sent (merchant
 * clock), like a payment, with the contract's outcomes by amount: 100 CANCELLED, 200 REFUSED, otherwise
 * refunded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { advance } from '../helpers/payments.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('J7 on a simulated device', () => {
  it('processes the refund 10 s after it is sent: 100 cancelled, 200 refused, other amounts refunded', async () => {
    const m = await t.merchant();
    const reg = await m.api.post('/device', { service: m.service_uuid, identifier: 'sim-refunds', communication_type: 'SIMULATION' });
    expect(reg.status, reg.raw).toBe(200);
    const device = reg.body.device.id as string;
    const sent = await m.api.post('/device/payment', { device, amount: 1500, description: 'coffee' });
    expect(sent.status, sent.raw).toBe(200);
    await advance(m, 11);
    await t.p.jobs.drain();
    const uuid = sent.body.order.uuid as string;
    expect((await m.api.get(`/order/${uuid}`)).body.order.status).toBe('SUCCESS');

    const refunds: string[] = [];
    for (const amount of [100, 200, 300]) {
      const r = await m.api.post('/device/refund', { device, order_uuid: uuid, amount });
      expect(r.status, r.raw).toBe(200);
      // answered at once: the order as it is, the refund queued
      expect(r.body.order).toMatchObject({ status: 'SUCCESS', refunded: 0 });
      expect(r.body.refund).toMatchObject({ device_id: device, order_uuid: uuid, amount, status: 'QUEUED', error: null });
      refunds.push(r.body.refund.uuid as string);
    }
    // more than is left is refused at once
    expect((await m.api.post('/device/refund', { device, order_uuid: uuid, amount: 1501 })).status).toBe(400);

    const statuses = async () => {
      const rows = await t.p.database.db.selectFrom('device_refunds').select(['id', 'status', 'error']).where('order_id', '=', uuid).execute();
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
    expect(after.transactions.filter((x: any) => x.operative === 'REFUND')).toMatchObject([{ amount: 300, status: 'SUCCESS' }]);
    // processed once: another drain changes nothing
    await advance(m, 30);
    await t.p.jobs.drain();
    expect((await m.api.get(`/order/${uuid}`)).body.order.refunded).toBe(300);
  });
});
