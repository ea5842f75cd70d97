/**
 * Device sockets across gateway processes on one database: an operation is delivered only by the process
 * that holds the device's socket, whichever process queued it. Each "process" is a gateway instance of
 * its own (platform, modules, socket hub and, on PostgreSQL, its own pool and listening connection) on the
 * same schema, as in cross-process.test.ts; test/e2e/devices-processes.test.ts does the same with real
 * `npm start` processes.
 *
 *   A: the merchant's API calls and the background jobs (no device connects to it)
 *   B: holds the device's socket; hears of operations through NOTIFY (its periodic check is an hour)
 *   C: holds a socket with LISTEN off: the periodic check (100 ms) delivers
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReferenceDevice, type Message } from '../../scripts/reference-device.js';
import { createPeerApp, createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, advance } from '../helpers/payments.js';

type Peer = Awaited<ReturnType<typeof createPeerApp>>;
let a: TestApp;
let b: Peer;
let c: Peer;
let wsB: string;
let wsC: string;

async function listen(p: Peer) {
  await p.app.listen({ port: 0, host: '127.0.0.1' });
  return `ws://127.0.0.1:${(p.app.server.address() as AddressInfo).port}/v1/sandbox/device/socket`;
}

beforeAll(async () => {
  a = await createTestApp({ PAYGATE_DEVICE_POLL_MS: '3600000' });
  b = await createPeerApp(a, { PAYGATE_DEVICE_POLL_MS: '3600000' });
  c = await createPeerApp(a, { PAYGATE_DEVICE_LISTEN: 'false', PAYGATE_DEVICE_POLL_MS: '100' });
  wsB = await listen(b);
  wsC = await listen(c);
});
afterAll(async () => {
  await c?.close();
  await b?.close();
  await a?.close();
});

/** A message another process sends, with a generous bound (real I/O across processes on a loaded machine). */
function within<T>(what: string, p: Promise<T>, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)))]).finally(() => clearTimeout(timer));
}

let seq = 0;
async function socketDevice(m: TestMerchant) {
  const r = await m.api.post('/device', { service: m.service_uuid, identifier: `x-${++seq}`, communication_type: 'SOCKET' });
  expect(r.status, r.raw).toBe(200);
  return r.body as { device: { id: string }; token: string };
}

const send = async (m: TestMerchant, device: string, amount: number) => {
  const r = await m.api.post('/device/payment', { device, amount, description: 'across processes' });
  expect(r.status, r.raw).toBe(200);
  return r.body;
};

describe('an operation queued through one process reaches the socket another process holds', () => {
  it('by NOTIFY, at once (the holder does not poll): payment, merchant cancellation, deadline cancellation, disabling', async () => {
    const m = await a.merchant();
    const { device, token } = await socketDevice(m);
    const d = new ReferenceDevice(wsB, token);
    await d.connect();

    // J3 through A, which does not hold the socket: answered QUEUED, delivered by B
    const s = await send(m, device.id, 2500);
    expect(s.operation.status).toBe('QUEUED');
    const got = await within('the operation on B', d.nextOperation());
    expect(got.operation).toMatchObject({ uuid: s.operation.uuid, order_uuid: s.order.uuid, amount: 2500, description: 'across processes' });
    // B marked it SENT (claimed once: the notification and the answer's own attempt do not send it twice)
    expect((await m.api.get(`/device/${device.id}`)).body.device.status.pending_transactions).toBe(1);
    const op = await a.p.database.db.selectFrom('device_operations').select('status').where('id', '=', s.operation.uuid).executeTakeFirstOrThrow();
    expect(op.status).toBe('SENT');
    // the device answers on B; A's merchant sees the order paid
    const r = await d.card(got.operation.uuid, { pan: TEST_CARDS.APPROVED, expiration_date: '4912' }, { pin: { block: '041234FFFFFFFFFF', format: 0 } });
    expect(r.operation.status).toBe('APPROVED');
    expect((await m.api.get(`/order/${s.order.uuid}`)).body.order.status).toBe('SUCCESS');

    // J6 through A: the device on B is told to stop
    const s2 = await send(m, device.id, 900);
    await within('the second operation', d.next((x) => x.type === 'operation' && x.operation.uuid === s2.operation.uuid));
    expect((await m.api.post('/device/cancellation', { device: device.id, order_uuid: s2.order.uuid })).body.order.status).toBe('CANCELLED');
    expect((await within('the cancel message', d.next((x) => x.type === 'cancel'))).operation_uuid).toBe(s2.operation.uuid);

    // the deadline, run by A's job loop (a worker): B tells the device
    const s3 = await send(m, device.id, 1300);
    await within('the third operation', d.next((x) => x.type === 'operation' && x.operation.uuid === s3.operation.uuid));
    await advance(m, 121);
    await a.p.jobs.drain();
    expect((await within('the deadline cancel', d.next((x: Message) => x.type === 'cancel'))).operation_uuid).toBe(s3.operation.uuid);
    expect((await m.api.get(`/order/${s3.order.uuid}`)).body.order.status).toBe('EXPIRED');

    // disabled through A: B tells the device and closes its socket
    await m.api.put(`/device/${device.id}/enabled`, { enabled: false });
    expect(await within('the socket to close', d.closed)).toBe(4001);
    expect(d.received.some((x) => x.type === 'disabled')).toBe(true);
  });

  it('without LISTEN, the holder\'s periodic check delivers what is queued', async () => {
    const m = await a.merchant();
    const { device, token } = await socketDevice(m);
    const d = new ReferenceDevice(wsC, token);
    await d.connect();
    const s = await send(m, device.id, 4100);
    expect(s.operation.status).toBe('QUEUED');
    expect((await within('the operation on C', d.nextOperation())).operation.uuid).toBe(s.operation.uuid);
    const r = await d.card(s.operation.uuid, { track2: `${TEST_CARDS.APPROVED}=4912201000000000` }, { pin: { block: '041234FFFFFFFFFF', format: 0 } });
    expect(r.operation.status).toBe('APPROVED');
    await d.close();
  });

  it('a device that connects later to any process gets what was queued while it was offline', async () => {
    const m = await a.merchant();
    const { device, token } = await socketDevice(m);
    const s = await send(m, device.id, 1700);
    const d = new ReferenceDevice(wsB, token);
    await d.connect();
    expect((await within('the waiting operation', d.nextOperation())).operation.uuid).toBe(s.operation.uuid);
    // the device connects again through another process: the old socket on B is closed (one socket per
    // device), the device stays ONLINE, and the operation, still open (SENT), is sent again (devices
    // de-duplicate operations by uuid)
    const moved = new ReferenceDevice(wsC, token);
    await moved.connect();
    expect(await within('the old socket to close', d.closed)).toBe(4000);
    expect((await within('the operation again', moved.nextOperation())).operation.uuid).toBe(s.operation.uuid);
    expect((await m.api.get(`/device/${device.id}`)).body.device.communication.status).toBe('ONLINE');
    // and from now on operations go to C
    const s2 = await send(m, device.id, 1800);
    expect((await within('the next operation on C', moved.nextOperation())).operation.uuid).toBe(s2.operation.uuid);
    expect(d.received.filter((x) => x.type === 'operation').map((x) => x.operation.uuid)).toEqual([s.operation.uuid]);
    await moved.close();
  });
});
