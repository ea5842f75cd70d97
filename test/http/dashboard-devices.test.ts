/**
 * The dashboard's devices area route (GET /devices/:id/operations): what a device did, for the groups
 * that may see devices. Payments sent through the bridge with the state the device brought them to, the
 * device's own card-present operations with STAN and RRN, refunds sent to a simulated device; `order`
 * narrows to one order; cards as BIN and last 4 only; another merchant's device 404; groups without
 * devices.read 403.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, toApiResponse, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createUser, signedIn, type DashClient } from '../helpers/dashboard.js';
import { TEST_CARDS, advance } from '../helpers/payments.js';
import { GROUPS, ROLES } from '../../src/modules/dashboard/index.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;
let viewer: DashClient;
let cashier: DashClient;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Counter Shop' });
  b = await t.merchant({ name: 'Other Shop' });
  viewer = await signedIn(t.app, await createUser(a, 'VIEWER'));
  cashier = await signedIn(t.app, await createUser(a, 'MANUAL PAYMENT'));
});
afterAll(async () => t?.close());

let n = 0;
async function register(m: TestMerchant, type: 'SOCKET' | 'SIMULATION') {
  const r = await m.api.post('/device', { service: m.service_uuid, identifier: `till-${++n}`, communication_type: type });
  expect(r.status, r.raw).toBe(200);
  return r.body as { device: { id: string; terminal_id: string; mid: string }; token: string };
}

async function cardPresent(token: string, url: string, body: unknown) {
  const res = await t.app.inject({ method: 'POST', url: `/v1/sandbox${url}`, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  const r = toApiResponse(res);
  expect(r.status, r.raw).toBe(200);
  return r.body;
}

describe('GET /devices/:id/operations', () => {
  it('lists the device\'s card-present operations with STAN and RRN, newest first, BIN and last 4 only', async () => {
    const { device, token } = await register(a, 'SOCKET');
    const paid = await cardPresent(token, '/card-present/payment', {
      card: { track2: `${TEST_CARDS.APPROVED}=4912201000000000` }, amount: 2500, currency: 'EUR', mid: device.mid, stan: '000101',
      card_reading_method: 'ICC', card_sequence_number: '001', pin: { block: '041234FFFFFFFFFF', format: 0 }, device: { serial_number: 'SN-1', model: 'A920' }, sca: null,
    });
    await cardPresent(token, '/card-present/refund', { mid: device.mid, tid: device.terminal_id, stan: '000102', rrn: paid.pos.rrn, amount: 1000 });

    const r = await viewer.get(`/devices/${device.id}/operations`);
    expect(r.status, r.raw).toBe(200);
    expect(r.body.currency).toBe('EUR');
    expect(r.body.operations.map((o: any) => [o.source, o.kind, o.stan, o.amount])).toEqual([
      ['CARD_PRESENT', 'REFUND', '000102', 1000],
      ['CARD_PRESENT', 'PAYMENT', '000101', 2500],
    ]);
    const payment = r.body.operations[1];
    expect(payment).toMatchObject({ order_uuid: paid.order.uuid, rrn: paid.pos.rrn, currency: 'EUR', card: { bin: TEST_CARDS.APPROVED.slice(0, 6), last4: TEST_CARDS.APPROVED.slice(-4), reading_method: 'ICC' } });
    expect(r.raw).not.toContain(TEST_CARDS.APPROVED);
    expect(r.raw).not.toContain(token);
  });

  it('follows a payment sent through the bridge to a simulated device to its end, and the refund sent after it', async () => {
    const { device } = await register(a, 'SIMULATION');
    const sent = await cashier.post('/v1/device/payment', { device: device.id, amount: 1234, description: 'counter sale' });
    expect(sent.status, sent.raw).toBe(200);
    const order = sent.body.order.uuid as string;
    const other = await cashier.post('/v1/device/payment', { device: device.id, amount: 999, description: 'another sale' });
    expect(other.status, other.raw).toBe(200);

    const narrowed = await viewer.get(`/devices/${device.id}/operations`, { order });
    expect(narrowed.status, narrowed.raw).toBe(200);
    expect(narrowed.body.operations).toHaveLength(1);
    expect(narrowed.body.operations[0]).toMatchObject({ source: 'SENT', kind: 'PAYMENT', order_uuid: order, amount: 1234, currency: 'EUR', status: 'QUEUED', card: null, stan: null, rrn: null });
    expect((await viewer.get(`/devices/${device.id}/operations`)).body.operations.map((o: any) => o.amount)).toEqual([999, 1234]);

    await advance(a, 11);
    await t.p.jobs.drain();
    const done = (await viewer.get(`/devices/${device.id}/operations`, { order })).body.operations[0];
    expect(done).toMatchObject({ status: 'APPROVED', card: { last4: TEST_CARDS.APPROVED.slice(-4) } });

    const refund = await cashier.post('/v1/device/refund', { device: device.id, order_uuid: order, amount: 234 });
    expect(refund.status, refund.raw).toBe(200);
    const queued = (await viewer.get(`/devices/${device.id}/operations`, { order })).body.operations;
    expect(queued.map((o: any) => [o.source, o.kind, o.status, o.amount])).toEqual([['REFUND', 'REFUND', 'QUEUED', 234], ['SENT', 'PAYMENT', 'APPROVED', 1234]]);
    await advance(a, 11);
    await t.p.jobs.drain();
    expect((await viewer.get(`/devices/${device.id}/operations`, { order })).body.operations[0]).toMatchObject({ source: 'REFUND', status: 'REFUNDED' });
  });

  it('limit keeps the newest; another merchant\'s device is 404; a bad id or limit is 400', async () => {
    const { device } = await register(a, 'SIMULATION');
    for (const amount of [301, 302, 303]) expect((await cashier.post('/v1/device/payment', { device: device.id, amount, description: 'sale' })).status).toBe(200);
    const two = await viewer.get(`/devices/${device.id}/operations`, { limit: '2' });
    expect(two.body.operations.map((o: any) => o.amount)).toEqual([303, 302]);

    const foreign = await register(b, 'SIMULATION');
    const r = await viewer.get(`/devices/${foreign.device.id}/operations`);
    expect(r.status, r.raw).toBe(404);
    expect((await viewer.get('/devices/not-a-uuid/operations')).status).toBe(400);
    expect((await viewer.get(`/devices/${device.id}/operations`, { limit: '0' })).status).toBe(400);
  });

  it('403 for a group without devices.read, 401 signed out', async () => {
    const { device } = await register(a, 'SIMULATION');
    const refused = GROUPS.filter((g) => !ROLES[g].includes('devices.read'));
    expect(refused.length).toBeGreaterThan(0);
    for (const group of refused) {
      const c = await signedIn(t.app, await createUser(a, group));
      const r = await c.get(`/devices/${device.id}/operations`);
      expect(r.status, `${group}: ${r.raw}`).toBe(403);
    }
    // the groups that may (VIEWER and MANUAL PAYMENT signed in above; the bridge's matrix covers the rest)
    expect((await viewer.get(`/devices/${device.id}/operations`)).status).toBe(200);
    expect((await cashier.get(`/devices/${device.id}/operations`)).status).toBe(200);
    const anonymous = await t.app.inject({ method: 'GET', url: `/dashboard/api/devices/${device.id}/operations`, headers: { 'x-forwarded-proto': 'https' } });
    expect(anonymous.statusCode).toBe(401);
  });
});
