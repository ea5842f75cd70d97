/**
 * Two gateways started as a user would (`npm start`, each with its worker process) on one PostgreSQL: a
 * payment sent through gateway A reaches the device whose socket gateway B holds, at once (B's periodic
 * check is off: the NOTIFY did it); the device reads the card on B, the order settles and the merchant's
 * server is notified (by a worker). Then the device goes offline mid-operation: at the documented
 * deadline (120 s on the sandbox clock) the operation fails, the order is closed and notified.
 *
 * PostgreSQL only: the embedded database belongs to one process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReferenceDevice } from '../../scripts/reference-device.js';
import { freePort, gatewayEnv, printedExports, startGateway, type Gateway, type GatewayEnv } from '../helpers/process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testDbKind } from '../helpers/db.js';
import { TEST_CARDS } from '../helpers/payments.js';

const postgres = testDbKind() === 'postgres';
if (!postgres) console.warn('SKIPPED: devices across gateway processes needs PostgreSQL (the embedded database belongs to one process)');

let g: GatewayEnv;
let gwA: Gateway;
let gwB: Gateway;
let urlB: string;
let rx: Receiver;
let vars: Record<string, string>;

beforeAll(async () => {
  if (!postgres) return;
  rx = await startReceiver();
  g = await gatewayEnv({ PAYGATE_SWEEP_EVERY_MS: '200', PAYGATE_JOB_POLL_MS: '100', PAYGATE_DEVICE_POLL_MS: '3600000' });
  gwA = await startGateway(g);
  vars = printedExports(gwA.stdout());
  const portB = await freePort();
  urlB = `ws://127.0.0.1:${portB}/v1/sandbox/device/socket`;
  gwB = await startGateway({ ...g, env: { ...g.env, PORT: String(portB) } });
}, 240_000);
afterAll(async () => {
  await gwB?.stop();
  await gwA?.stop();
  await g?.cleanup();
  await rx?.close();
});

function logs() {
  return `A:\n${gwA?.stdout().slice(-2000)}\n${gwA?.stderr().slice(-1000)}\nB:\n${gwB?.stdout().slice(-2000)}\n${gwB?.stderr().slice(-1000)}`;
}

/** Waits for what another process brings about (bounded, polling). */
async function eventually<T>(what: string, fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}\n${logs()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function within<T>(what: string, p: Promise<T>, ms = 30_000): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}\n${logs()}`)), ms)))]).finally(() => clearTimeout(timer));
}

async function api(method: string, path: string, body?: Record<string, unknown>) {
  const res = await fetch(`${g.url}/v1/sandbox${path}`, {
    method,
    headers: { authorization: `Bearer ${vars.PAYGATE_API_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify({ signature: vars.PAYGATE_SIGNATURE, ...body }) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const notified = (orderUuid: string) => rx.received.filter((r) => JSON.parse(r.body).order?.uuid === orderUuid).map((r) => JSON.parse(r.body).order.status);

describe('a device on one gateway process, payments sent through another', () => {
  it.skipIf(!postgres)('J3 through A reaches the socket on B; the card read on B pays the order and the merchant is notified; offline mid-operation fails at the deadline', async () => {
    const reg = await api('POST', '/device', { service: vars.PAYGATE_SERVICE, identifier: 'counter-e2e', communication_type: 'SOCKET' });
    expect(reg.status, JSON.stringify(reg.body)).toBe(200);
    const d = new ReferenceDevice(urlB, reg.body.token);
    await within('the device to connect to B', d.connect());

    const sent = await api('POST', '/device/payment', { device: reg.body.device.id, amount: 2750, description: 'two processes', url_post: `${rx.url}/pos` });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.order).toMatchObject({ status: 'PENDING_PROCESSOR_RESPONSE', transactions: [{ status: 'PENDING', authorization: '' }] });
    const op = await within('the operation on B', d.nextOperation());
    expect(op.operation).toMatchObject({ uuid: sent.body.operation.uuid, amount: 2750 });
    const r = await d.card(op.operation.uuid, { pan: TEST_CARDS.APPROVED, expiration_date: '4912' }, { method: 'ICC', pin: { block: '041234FFFFFFFFFF', format: 0 } });
    expect(r).toMatchObject({ type: 'result', operation: { status: 'APPROVED' } });
    expect((await api('GET', `/order/${sent.body.order.uuid}`)).body.order).toMatchObject({ status: 'SUCCESS', paid: true });
    await eventually('the SUCCESS notification', () => notified(sent.body.order.uuid).length > 0);
    expect(notified(sent.body.order.uuid)).toEqual(['SUCCESS']);

    // offline mid-operation: the device has the operation, then its connection drops
    const second = await api('POST', '/device/payment', { device: reg.body.device.id, amount: 1950, description: 'dropped', url_post: `${rx.url}/pos` });
    await within('the second operation on B', d.next((m) => m.type === 'operation' && m.operation.uuid === second.body.operation.uuid));
    await d.close();
    await eventually('the device to be OFFLINE', async () => (await api('GET', `/device/${reg.body.device.id}`)).body.device.communication.status === 'OFFLINE');
    expect((await api('POST', '/test-clock', { advance_seconds: 121 })).status).toBe(200);
    await eventually('the EXPIRED notification', () => notified(second.body.order.uuid).length > 0);
    expect(notified(second.body.order.uuid)).toEqual(['EXPIRED']);
    expect((await api('GET', `/order/${second.body.order.uuid}`)).body.order).toMatchObject({ status: 'EXPIRED', paid: false, transactions: [{ status: 'CANCELLED' }] });
  }, 120_000);
});
