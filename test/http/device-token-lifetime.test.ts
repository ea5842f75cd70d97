/**
 * Issue 31 items 4 and 5: what ends a device's bearer token (docs/devices.md, "Device token lifetime"),
 * each shown on the card-present API (K1) and on the device's WebSocket:
 *  - revoking the API key the device acts for: 401, the socket closes (4003); rotating the token with an
 *    active key gives the device a working token again, acting for that key;
 *  - disabling the device: 403, the socket closes (4001);
 *  - the operator's `paygate device revoke-token`: 401, the socket closes (4004);
 *  - rotating the token: the old one 401, the socket closes (4002), the new one works.
 * And K1/K5 check X-Service-MID / X-Service-TID against the token's device: a mismatch is 403, nothing charged;
 * a device's status reports and cancellation reasons carry no card number either (issue 31 item 1).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReferenceDevice } from '../../scripts/reference-device.js';
import { buildCli } from '../../src/cli/main.js';
import { createTestApp, toApiResponse, type ApiClient, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS } from '../helpers/payments.js';

let t: TestApp;
let wsBase: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  wsBase = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t?.close());

interface Dev {
  id: string;
  token: string;
  mid: string;
  tid: string;
}

let seq = 0;
async function register(api: ApiClient, m: TestMerchant): Promise<Dev> {
  const r = await api.post('/device', { service: m.service_uuid, identifier: `life-${++seq}`, communication_type: 'SOCKET' });
  expect(r.status, r.raw).toBe(200);
  return { id: r.body.device.id, token: r.body.token, mid: r.body.device.mid, tid: r.body.device.terminal_id };
}

/** A second key of the merchant (the one the device is registered with, revoked later). */
async function secondKey(m: TestMerchant): Promise<{ keyId: string; api: ApiClient }> {
  const k = await t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, m.client_uuid, 'sandbox', ['all'], 'devices', t.p.clock.now()));
  return { keyId: k.keyId, api: m.api.withCreds({ api_key: k.apiKey, signature: k.signature }) };
}

let stan = 500;
async function k1(token: string, d: Dev, headers: Record<string, string> = {}, path = '/card-present/payment') {
  const body = { card: { track2: `${TEST_CARDS.APPROVED}=4912201000000000` }, amount: 1200, currency: 'EUR', mid: d.mid, stan: String(++stan).padStart(6, '0'), card_reading_method: 'ICC', card_sequence_number: '001', pin: { block: '041234FFFFFFFFFF', format: 0 }, device: { serial_number: 'SN', model: 'A920' }, sca: null };
  const res = await t.app.inject({ method: 'POST', url: `/v1/sandbox${path}`, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-proto': 'https', ...headers }, payload: JSON.stringify(body) });
  return toApiResponse(res);
}

const socket = async (token: string) => {
  const d = new ReferenceDevice(`${wsBase}/v1/sandbox/device/socket`, token);
  await d.connect();
  return d;
};

describe('device token lifetime', () => {
  it('revoking the key the device acts for ends its token (401, socket closed); rotating with an active key revives it', async () => {
    const m = await t.merchant();
    const k = await secondKey(m);
    const d = await register(k.api, m);
    expect((await k1(d.token, d)).status).toBe(200);
    const ws = await socket(d.token);

    await t.m.merchants.revokeKey(k.keyId);
    const refused = await k1(d.token, d);
    expect(refused.status, refused.raw).toBe(401);
    expect(refused.body.details).toMatch(/API key the device acts for was revoked/);
    expect(await ws.closed).toBe(4003);
    await expect(socket(d.token)).rejects.toThrow(/401/);
    // the revoked key cannot rotate it; the merchant's active key can, and the device acts for that key
    expect((await k.api.post(`/device/${d.id}/token`, {})).status).toBe(401);
    const rotated = await m.api.post(`/device/${d.id}/token`, {});
    expect(rotated.status, rotated.raw).toBe(200);
    expect((await k1(rotated.body.token, d)).status).toBe(200);
    expect((await k1(d.token, d)).status).toBe(401);
  });

  it('disabling the device ends its token (403, socket closed); enabling it again brings it back', async () => {
    const m = await t.merchant();
    const d = await register(m.api, m);
    const ws = await socket(d.token);
    await m.api.put(`/device/${d.id}/enabled`, { enabled: false });
    const r = await k1(d.token, d);
    expect(r.status, r.raw).toBe(403);
    expect(r.body.details).toMatch(/disabled/);
    expect(await ws.closed).toBe(4001);
    await m.api.put(`/device/${d.id}/enabled`, { enabled: true });
    expect((await k1(d.token, d)).status).toBe(200);
  });

  it('the operator revokes a device token (paygate device revoke-token): 401 at once, socket closed; rotation gives a new one', async () => {
    const m = await t.merchant();
    const d = await register(m.api, m);
    const ws = await socket(d.token);
    expect(await t.m.devices.revokeToken(d.id)).toBe(true);
    expect((await k1(d.token, d)).status).toBe(401);
    expect(await ws.closed).toBe(4004);
    expect(await t.m.devices.revokeToken('00000000-0000-4000-8000-000000000000')).toBe(false);
    const rotated = await m.api.post(`/device/${d.id}/token`, {});
    expect((await k1(rotated.body.token, d)).status).toBe(200);
    // the command is there for the operator
    const device = buildCli().commands.find((c) => c.name() === 'device');
    expect(device?.commands.map((c) => c.name())).toContain('revoke-token');
  });

  it('rotating the token ends the old one (401, socket closed) and the new one works', async () => {
    const m = await t.merchant();
    const d = await register(m.api, m);
    const ws = await socket(d.token);
    const rotated = await m.api.post(`/device/${d.id}/token`, {});
    expect(rotated.status).toBe(200);
    expect((await k1(d.token, d)).status).toBe(401);
    expect(await ws.closed).toBe(4002);
    expect((await k1(rotated.body.token, d)).status).toBe(200);
  });
});

describe('what a device sends over its socket', () => {
  it('a status or a cancellation reason carrying a card number is refused and not stored', async () => {
    const m = await t.merchant();
    const d = await register(m.api, m);
    const ws = await socket(d.token);
    const refused = await ws.status({ build_version: `v ${TEST_CARDS.APPROVED}` });
    expect(refused).toMatchObject({ type: 'error', code: 400, details: 'status.build_version must not contain a card number' });
    const row = await t.p.database.db.selectFrom('devices').selectAll().where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(TEST_CARDS.APPROVED);
    expect(await ws.status({ build_version: 'v 8412345678907' })).toMatchObject({ type: 'status_saved' });
    const cancel = await ws.cancel('00000000-0000-4000-8000-000000000000', `card ${TEST_CARDS.APPROVED}`);
    expect(cancel).toMatchObject({ type: 'error', code: 400, details: 'reason must not contain a card number' });
    await ws.close();
  });
});

describe('X-Service-MID / X-Service-TID on K1 and K5', () => {
  it('a MID or TID that is not the token device\'s is 403 and charges nothing; the device\'s own pass', async () => {
    const m = await t.merchant();
    const d = await register(m.api, m);
    const other = await register(m.api, m);
    const before = await t.p.database.db.selectFrom('orders').select(t.p.database.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    for (const path of ['/card-present/payment', '/card-present/preauthorization']) {
      const wrongTid = await k1(d.token, d, { 'x-service-mid': d.mid, 'x-service-tid': other.tid }, path);
      expect(wrongTid.status, wrongTid.raw).toBe(403);
      expect(wrongTid.body.details).toMatch(/tid is not the TID of this device/);
      const wrongMid = await k1(d.token, d, { 'x-service-mid': 'MID-OTHER', 'x-service-tid': d.tid }, path);
      expect(wrongMid.status, wrongMid.raw).toBe(403);
      expect(wrongMid.body.details).toMatch(/mid is not the MID of this device/);
    }
    const after = await t.p.database.db.selectFrom('orders').select(t.p.database.db.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    const right = await k1(d.token, d, { 'x-service-mid': d.mid, 'x-service-tid': d.tid });
    expect(right.status, right.raw).toBe(200);
  });
});
