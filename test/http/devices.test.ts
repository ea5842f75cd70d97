/**
 * Physical devices end to end: the registry (register, list with filters, read, enable/disable, rotate
 * the token), the simulated device settling by the test clock, and a socket device (the reference device
 * program over a real WebSocket) reading cards, cancelling, and going offline mid-operation.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ReferenceDevice } from '../../scripts/reference-device.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, advance } from '../helpers/payments.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let t: TestApp;
let rx: Receiver;
let wsBase: string;

beforeAll(async () => {
  t = await createTestApp();
  rx = await startReceiver();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  wsBase = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

async function register(m: TestMerchant, body: Record<string, unknown> = {}) {
  const r = await m.api.post('/device', { service: m.service_uuid, identifier: `dev-${Math.random().toString(36).slice(2, 10)}`, communication_type: 'SIMULATION', ...body });
  expect(r.status, r.raw).toBe(200);
  return r.body as { device: { id: string; terminal_id: string; [k: string]: any }; token: string };
}

async function send(m: TestMerchant, device: string, amount: number, extra: Record<string, unknown> = {}) {
  const r = await m.api.post('/device/payment', { device, amount, description: 'counter sale', url_post: `${rx.url}/dev`, ...extra });
  expect(r.status, r.raw).toBe(200);
  return r.body;
}

const notificationsFor = (orderUuid: string) => rx.received.filter((x) => JSON.parse(x.body).order?.uuid === orderUuid).map((x) => JSON.parse(x.body).order);

describe('device registry', () => {
  it('registers, lists with filters, reads, disables and rotates the token; another merchant sees nothing', async () => {
    const m = await t.merchant();
    const other = await t.merchant();
    const sim = await register(m, { identifier: 'SIM-1', properties: { name: 'Counter 1', model: 'virtual' } });
    const sock = await register(m, { identifier: 'PAX-1', communication_type: 'SOCKET' });
    expect(sim.token).toMatch(/^pgd_/);
    expect(sim.device).toMatchObject({
      identifier: 'SIM-1', service_uuid: m.service_uuid, active: true, configured: true,
      communication: { type: 'SIMULATION', status: 'ONLINE' }, merchant: { uuid: m.client_uuid },
      properties: { name: 'Counter 1', model: 'virtual', system_name: null }, status: { pending_transactions: 0, battery_level: null },
    });
    expect(sim.device.terminal_id).toMatch(/^[0-9]{8}$/);
    expect(sock.device).toMatchObject({ configured: false, communication: { type: 'SOCKET', status: 'OFFLINE' } });

    const dup = await m.api.post('/device', { service: m.service_uuid, identifier: 'SIM-1', communication_type: 'SIMULATION' });
    expect(dup.status).toBe(409);

    const all = await m.api.get('/devices');
    expect(all.body.devices.map((d: any) => d.identifier)).toEqual(['SIM-1', 'PAX-1']);
    expect(all.raw).not.toContain(sim.token);
    expect((await m.api.get('/devices', { communication_type: 'SOCKET' })).body.devices.map((d: any) => d.identifier)).toEqual(['PAX-1']);
    expect((await m.api.get('/devices', { terminal_id: sim.device.terminal_id })).body.devices).toHaveLength(1);
    expect((await m.api.get('/devices', { configured: '0' })).body.devices.map((d: any) => d.identifier)).toEqual(['PAX-1']);
    expect((await m.api.get('/devices', { created_at_from: '209901010000' })).body.devices).toEqual([]);
    expect((await m.api.get('/devices', { created_at_to: '209901010000', identifier: 'SIM-1' })).body.devices).toHaveLength(1);
    const badDate = await m.api.get('/devices', { updated_at_to: '2026-01-01' });
    expect(badDate.status).toBe(400);
    expect(badDate.body.details).toContain('updated_at_to');

    expect((await m.api.get(`/device/${sim.device.id}`)).body.device.identifier).toBe('SIM-1');
    expect((await other.api.get(`/device/${sim.device.id}`)).status).toBe(404);
    expect((await other.api.get('/devices')).body.devices).toEqual([]);
    expect((await other.api.post('/device/payment', { device: sim.device.id, amount: 500, description: 'x' })).status).toBe(404);

    const off = await m.api.put(`/device/${sim.device.id}/enabled`, { enabled: false });
    expect(off.body.device.active).toBe(false);
    expect((await m.api.get('/devices', { active: 'false' })).body.devices.map((d: any) => d.identifier)).toEqual(['SIM-1']);
    const refused = await m.api.post('/device/payment', { device: sim.device.id, amount: 500, description: 'x' });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toContain('disabled');

    const rotated = await m.api.post(`/device/${sock.device.id}/token`, {});
    expect(rotated.status).toBe(200);
    expect(rotated.body.token).not.toBe(sock.token);
    await expect(new ReferenceDevice(`${wsBase}/v1/sandbox/device/socket`, sock.token).connect()).rejects.toThrow(/401/);
    const d = new ReferenceDevice(`${wsBase}/v1/sandbox/device/socket`, rotated.body.token);
    expect((await d.connect()).device.id).toBe(sock.device.id);
    await d.close();
  });

  it('SIMULATION is sandbox only; an unknown or foreign service is 404', async () => {
    const m = await t.merchant();
    const other = await t.merchant();
    expect((await m.api.post('/device', { service: other.service_uuid, identifier: 'x', communication_type: 'SOCKET' })).status).toBe(404);
    const bad = await m.api.post('/device', { service: m.service_uuid, identifier: 'x', communication_type: 'BLUETOOTH' });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toContain('communication_type');
  });
});

describe('the simulated device (sandbox)', () => {
  it('settles 10 s later on the merchant clock: 100 cancelled, 200 refused, other amounts paid; each notified', async () => {
    const m = await t.merchant();
    const { device } = await register(m);
    rx.received.length = 0;
    const sent = await Promise.all([100, 200, 1500].map((amount) => send(m, device.id, amount)));
    for (const s of sent) {
      expect(s.order.status).toBe('CREATED');
      expect(s.operation).toMatchObject({ status: 'QUEUED', device_id: device.id, order_uuid: s.order.uuid });
      expect(s.device.id).toBe(device.id);
      expect(s.client.uuid).toBe(m.client_uuid);
    }
    expect((await m.api.get(`/device/${device.id}`)).body.device.status.pending_transactions).toBe(3);

    // nothing is due before the merchant's clock moves 10 s (the test takes far less real time)
    await t.p.jobs.drain();
    expect((await m.api.get(`/order/${sent[2].order.uuid}`)).body.order.status).toBe('CREATED');

    await advance(m, 11);
    await t.p.jobs.drain();
    const [cancelled, refused, paid] = await Promise.all(sent.map(async (s) => (await m.api.get(`/order/${s.order.uuid}`)).body.order));
    expect(cancelled).toMatchObject({ status: 'EXPIRED', paid: false });
    expect(refused).toMatchObject({ status: 'REFUSED', paid: false });
    expect(refused.transactions[0]).toMatchObject({ status: 'REFUSED' });
    expect(paid).toMatchObject({ status: 'SUCCESS', paid: true, amount: 1500 });
    expect(paid.transactions[0]).toMatchObject({ status: 'SUCCESS', operative: 'AUTHORIZATION' });
    expect(paid.transactions[0].source?.last4 ?? '0004').toBe('0004');

    await t.p.jobs.drain();
    expect(notificationsFor(cancelled.uuid).map((o) => o.status)).toEqual(['EXPIRED']);
    expect(notificationsFor(refused.uuid).map((o) => o.status)).toEqual(['REFUSED']);
    expect(notificationsFor(paid.uuid).map((o) => o.status)).toEqual(['SUCCESS']);

    const ops = await t.p.database.db.selectFrom('device_operations').selectAll().where('device_id', '=', device.id).orderBy('amount').execute();
    expect(ops.map((o) => [Number(o.amount), o.status, o.card_last4])).toEqual([
      [100, 'CANCELLED', null],
      [200, 'REFUSED', TEST_CARDS.REFUSED_VISA.slice(-4)],
      [1500, 'APPROVED', TEST_CARDS.APPROVED.slice(-4)],
    ]);
    expect((await m.api.get(`/device/${device.id}`)).body.device.status.pending_transactions).toBe(0);
  });

  it('a pre-authorization is held, then confirmed (J5) and refunded (J7) through the device routes', async () => {
    const m = await t.merchant();
    const { device } = await register(m);
    const s = (await m.api.post('/device/preauthorization', { device: device.id, amount: 3000, description: 'hotel deposit' })).body;
    await advance(m, 11);
    await t.p.jobs.drain();
    expect((await m.api.get(`/order/${s.order.uuid}`)).body.order.status).toBe('PENDING_CONFIRMATION');
    const confirmed = await m.api.post('/device/confirmation', { device: device.id, order_uuid: s.order.uuid, amount: 2000 });
    expect(confirmed.status, confirmed.raw).toBe(200);
    expect(confirmed.body.order).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(confirmed.body.device.id).toBe(device.id);
    const refunded = await m.api.post('/device/refund', { device: device.id, order_uuid: s.order.uuid });
    expect(refunded.status, refunded.raw).toBe(200);
    expect(refunded.body.order.status).toBe('REFUNDED');
  });

  it('J6 cancels an operation before the device reads a card: nothing is charged later', async () => {
    const m = await t.merchant();
    const { device } = await register(m);
    const s = await send(m, device.id, 2500);
    const c = await m.api.post('/device/cancellation', { device: device.id, order_uuid: s.order.uuid });
    expect(c.status, c.raw).toBe(200);
    expect(c.body.order.status).toBe('EXPIRED');
    await advance(m, 200);
    await t.p.jobs.drain();
    const o = (await m.api.get(`/order/${s.order.uuid}`)).body.order;
    expect(o).toMatchObject({ status: 'EXPIRED', paid: false, transactions: [] });
    const op = await t.p.database.db.selectFrom('device_operations').select(['status']).where('order_id', '=', s.order.uuid).executeTakeFirstOrThrow();
    expect(op.status).toBe('CANCELLED');
  });
});

describe('a socket device (the reference device over a real WebSocket)', () => {
  const url = () => `${wsBase}/v1/sandbox/device/socket`;

  it('receives the payment, reads the card with a PIN, the order is paid and notified; status reports are kept', async () => {
    const m = await t.merchant();
    const { device, token } = await register(m, { communication_type: 'SOCKET' });
    // an operation sent while the device is offline waits for it
    rx.received.length = 0;
    const waiting = await send(m, device.id, 4200);
    expect(waiting.operation.status).toBe('QUEUED');
    const d = new ReferenceDevice(url(), token);
    const hello = await d.connect();
    expect(hello.device).toMatchObject({ id: device.id, configured: true, communication: { status: 'ONLINE' } });
    const op1 = await d.nextOperation();
    expect(op1.operation).toMatchObject({ uuid: waiting.operation.uuid, amount: 4200, currency: 'EUR', kind: 'PAYMENT', order_uuid: waiting.order.uuid });
    expect((await d.status({ battery_level: 64, connection_type: 'WIFI', charging: false })).type).toBe('status_saved');

    const r1 = await d.card(op1.operation.uuid, { track2: `${TEST_CARDS.APPROVED}=4912201000000000` }, { method: 'ICC', pin: { block: '041234FFFFFFFFFF', format: 0 } });
    expect(r1).toMatchObject({ type: 'result', operation: { status: 'APPROVED', card: { bin: '454881', last4: '0004', reading_method: 'ICC' } } });
    expect(JSON.stringify(r1)).not.toContain(TEST_CARDS.APPROVED);

    // online now: the next one is delivered at once
    const live = await send(m, device.id, 990);
    expect(live.operation.status).toBe('SENT');
    const op2 = await d.nextOperation();
    const r2 = await d.card(op2.operation.uuid, { pan: TEST_CARDS.REFUSED, expiration_date: '4912' }, { method: 'NFC' });
    expect(r2.operation.status).toBe('REFUSED');

    // a card for an operation that is finished, or of another device, is refused
    const again = await d.card(op1.operation.uuid, { pan: TEST_CARDS.APPROVED, expiration_date: '4912' });
    expect(again).toMatchObject({ type: 'error', code: 409 });
    const bad = await d.card(op2.operation.uuid, { track2: 'not-a-track' });
    expect(bad).toMatchObject({ type: 'error', code: 400 });
    const badPin = await (async () => {
      const o = await send(m, device.id, 700);
      const got = await d.nextOperation();
      expect(got.operation.uuid).toBe(o.operation.uuid);
      return d.card(got.operation.uuid, { pan: TEST_CARDS.APPROVED, expiration_date: '4912' }, { pin: { block: '12', format: 0 } });
    })();
    expect(badPin).toMatchObject({ type: 'error', code: 400 });
    expect(badPin.details).toContain('pin.block');

    const o1 = (await m.api.get(`/order/${waiting.order.uuid}`)).body.order;
    expect(o1).toMatchObject({ status: 'SUCCESS', paid: true });
    const got = (await m.api.get(`/device/${device.id}`)).body.device;
    expect(got.status).toMatchObject({ battery_level: 64, connection_type: 'WIFI', charging: false, pending_transactions: 1 });
    await t.p.jobs.drain();
    expect(notificationsFor(waiting.order.uuid).map((o) => o.status)).toEqual(['SUCCESS']);
    expect(notificationsFor(live.order.uuid).map((o) => o.status)).toEqual(['REFUSED']);
    await d.close();
  });

  it('the customer cancels on the terminal: the order is closed and notified', async () => {
    const m = await t.merchant();
    const { device, token } = await register(m, { communication_type: 'SOCKET' });
    const d = new ReferenceDevice(url(), token);
    await d.connect();
    const s = await send(m, device.id, 1234);
    const op = await d.nextOperation();
    const r = await d.cancel(op.operation.uuid);
    expect(r.operation).toMatchObject({ status: 'CANCELLED' });
    expect((await m.api.get(`/order/${s.order.uuid}`)).body.order.status).toBe('EXPIRED');
    await d.close();
  });

  it('a device that goes offline mid-operation: the operation fails at its deadline, the order is closed, nothing is charged', async () => {
    const m = await t.merchant();
    const { device, token } = await register(m, { communication_type: 'SOCKET' });
    const d = new ReferenceDevice(url(), token);
    await d.connect();
    rx.received.length = 0;
    const s = await send(m, device.id, 5100);
    expect((await d.nextOperation()).operation.uuid).toBe(s.operation.uuid);
    await d.close();
    // the disconnection is recorded asynchronously by the server: poll the state, not the time
    for (let i = 0; i < 200 && (await m.api.get(`/device/${device.id}`)).body.device.communication.status !== 'OFFLINE'; i++) await new Promise((r) => setImmediate(r));
    expect((await m.api.get(`/device/${device.id}`)).body.device.communication.status).toBe('OFFLINE');

    await advance(m, 60);
    await t.p.jobs.drain();
    expect((await m.api.get(`/order/${s.order.uuid}`)).body.order.status).toBe('CREATED');
    await advance(m, 61);
    await t.p.jobs.drain();
    const o = (await m.api.get(`/order/${s.order.uuid}`)).body.order;
    expect(o).toMatchObject({ status: 'EXPIRED', paid: false, transactions: [] });
    const op = await t.p.database.db.selectFrom('device_operations').selectAll().where('id', '=', s.operation.uuid).executeTakeFirstOrThrow();
    expect(op).toMatchObject({ status: 'TIMED_OUT', card_last4: null });
    await t.p.jobs.drain();
    expect(notificationsFor(s.order.uuid).map((x) => x.status)).toEqual(['EXPIRED']);

    // back online later: the timed-out operation is not offered again, and a card for it is refused
    const again = new ReferenceDevice(url(), token);
    await again.connect();
    const late = await again.card(s.operation.uuid, { pan: TEST_CARDS.APPROVED, expiration_date: '4912' });
    expect(late).toMatchObject({ type: 'error', code: 409 });
    expect(again.received.filter((x) => x.type === 'operation')).toEqual([]);
    expect((await m.api.get(`/order/${s.order.uuid}`)).body.order.transactions).toEqual([]);
    await again.close();
  });

  it('the socket refuses a missing or wrong token, a token of the other environment and a disabled device', async () => {
    const m = await t.merchant();
    const { device, token } = await register(m, { communication_type: 'SOCKET' });
    await expect(new ReferenceDevice(url(), 'pgd_nonsense-token-that-is-long-enough').connect()).rejects.toThrow(/401/);
    await expect(new ReferenceDevice(`${wsBase}/v1/device/socket`, token).connect()).rejects.toThrow(/403/);
    await m.api.put(`/device/${device.id}/enabled`, { enabled: 0 });
    await expect(new ReferenceDevice(url(), token).connect()).rejects.toThrow(/403/);
  });

  it('nothing of the card but BIN and last 4 is stored: no PAN, track 2 or PIN block in any table', async () => {
    const { rows } = await sql<{ j: string }>`select row_to_json(x)::text as j from device_operations x`.execute(t.p.database.db);
    const all = rows.map((r) => r.j).join('\n');
    expect(rows.length).toBeGreaterThan(3);
    for (const pan of Object.values(TEST_CARDS)) expect(all).not.toContain(pan);
    expect(all).not.toContain('041234FFFFFFFFFF');
    expect(all).not.toContain('4912201000000000');
  });
});
