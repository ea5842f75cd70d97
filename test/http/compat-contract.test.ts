/**
 * Contract rules (issue 30 items 6-8): K1/K5 without `stan` (assigned, unique per device and day);
 * L1/L5 `enabled` in every boolean spelling; J5/J6/J7 only on orders sent to a device of the caller;
 * J1 with an unknown filter value is 400 naming the allowed ones; G1/G2 PHONE with a subject over 11
 * characters is 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, toApiResponse, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, paidOrder } from '../helpers/payments.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
});
afterAll(async () => t?.close());

let seq = 0;
async function register(m: TestMerchant, type: 'SOCKET' | 'SIMULATION' = 'SOCKET') {
  const r = await m.api.post('/device', { service: m.service_uuid, identifier: `compat-${++seq}`, communication_type: type });
  expect(r.status, r.raw).toBe(200);
  return { id: r.body.device.id as string, token: r.body.token as string, mid: r.body.device.mid as string, tid: r.body.device.terminal_id as string };
}

async function k(token: string, path: string, body: unknown) {
  return toApiResponse(await t.app.inject({ method: 'POST', url: `/v1/sandbox${path}`, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) }));
}

const cardPresent = (mid: string) => ({
  card: { track2: `${TEST_CARDS.APPROVED}=4912201000000000` },
  amount: 1200,
  currency: 'EUR',
  mid,
  card_reading_method: 'ICC',
  pin: { block: '041234FFFFFFFFFF', format: 0 },
  device: { serial_number: 'SN-1', model: 'A920' },
});

describe('K1/K5 without stan', () => {
  it('the gateway assigns a STAN, unique per device and day, and answers it', async () => {
    const d = await register(a);
    const stans = new Set<string>();
    for (const path of ['/card-present/payment', '/card-present/payment', '/card-present/preauthorization']) {
      const r = await k(d.token, path, cardPresent(d.mid));
      expect(r.status, r.raw).toBe(200);
      expect(r.body.pos.stan).toMatch(/^[0-9]{6}$/);
      stans.add(r.body.pos.stan);
    }
    expect(stans.size).toBe(3);
    // the device finds the operation by the STAN it was given
    const found = toApiResponse(await t.app.inject({ method: 'GET', url: `/v1/sandbox/card-present/order/stan/${[...stans][0]}`, headers: { authorization: `Bearer ${d.token}`, 'x-service-mid': d.mid, 'x-service-tid': d.tid } }));
    expect(found.status, found.raw).toBe(200);
    // a STAN the device sends itself is still its own: a repeat is 409
    const own = await k(d.token, '/card-present/payment', { ...cardPresent(d.mid), stan: '424242' });
    expect(own.body.pos.stan).toBe('424242');
    expect((await k(d.token, '/card-present/payment', { ...cardPresent(d.mid), stan: '424242' })).status).toBe(409);
  });
});

describe('L1/L5 enabled in every boolean spelling', () => {
  it('1, "1", "true", true, 0, "0", "false", false', async () => {
    for (const [spelling, value] of [[1, true], ['1', true], ['true', true], [true, true], [0, false], ['0', false], ['false', false], [false, false]] as const) {
      const r = await a.api.post('/security-list', { type: 'BLACKLIST', enabled: spelling, description: `l-${String(spelling)}` });
      expect(r.status, `${JSON.stringify(spelling)}: ${r.raw}`).toBe(200);
      expect(r.body.colorlists.enabled).toBe(value);
      const flip = await a.api.put(`/security-list/${r.body.colorlists.uuid}/enabled`, { enabled: typeof spelling === 'boolean' ? !spelling : typeof spelling === 'number' ? 1 - spelling : spelling === '1' ? '0' : spelling === '0' ? '1' : spelling === 'true' ? 'false' : 'true' });
      expect(flip.status, flip.raw).toBe(200);
      expect(flip.body.colorlists.enabled).toBe(!value);
    }
    expect((await a.api.post('/security-list', { type: 'BLACKLIST', enabled: 'yes', description: 'x' })).status).toBe(400);
  });

  it('the antifraud rules take them too', async () => {
    const r = await a.api.put('/antifraud/rules', { enabled: '1', rules: { COUNTRY_MISMATCH: { enabled: 0 } } });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.antifraud.enabled).toBe(true);
    expect(r.body.antifraud.rules.COUNTRY_MISMATCH.enabled).toBe(false);
  });
});

describe('J5/J6/J7 act only on orders sent to a device of the caller', () => {
  it('a web order is 404, as another merchant\'s', async () => {
    const d = await register(a, 'SIMULATION');
    const web = await paidOrder(t, a);
    for (const path of ['/device/confirmation', '/device/cancellation', '/device/refund']) {
      const r = await a.api.post(path, { device: d.id, order_uuid: web.uuid });
      expect(r.status, `${path}: ${r.raw}`).toBe(404);
      expect(r.body.details).toContain(`was not sent to the device ${d.id}`);
    }
    const after = await a.api.get(`/order/${web.uuid}`);
    expect(after.body.order).toMatchObject({ status: 'SUCCESS', refunded: 0 });
  });
});

describe('filters and subjects', () => {
  it('J1 with an unknown communication_type is 400 naming the allowed values', async () => {
    const r = await a.api.get('/devices', { communication_type: 'FAX' });
    expect(r.status, r.raw).toBe(400);
    expect(r.body.details).toContain('communication_type must be one of: SIMULATION, SOCKET');
    expect((await a.api.get('/devices', { communication_type: 'SOCKET' })).status).toBe(200);
  });

  it('G1/G2 PHONE with a subject over 11 characters (the SMS sender) is 400; MAIL keeps long subjects', async () => {
    const expires = new Date(Date.now() + 5 * 86400_000).toISOString().slice(0, 10);
    const payments = [{ amount: 100, operative: 'AUTHORIZATION', secure: false, destination: '+34612345678' }];
    const phone = await a.api.post('/moto/campaign', { description: 'x', expires_at: expires, service_uuid: a.service_uuid, subject: 'Tienda Central', type: 'PHONE', payments });
    expect(phone.status, phone.raw).toBe(400);
    expect(phone.body.details).toMatch(/SMS sender name .* at most 11 characters \(it has 14\)/);
    const csv = Buffer.from('AMOUNT,OPERATIVE,DESTINATION\n100,AUTHORIZATION,+34612345678\n').toString('base64');
    const file = await a.api.post('/moto/campaign/file', { description: 'x', expires_at: expires, service_uuid: a.service_uuid, subject: 'Tienda Central', type: 'PHONE', file: `data:text/csv;base64,${csv}`, filename: 'a.csv' });
    expect(file.status, file.raw).toBe(400);
    const ok = await a.api.post('/moto/campaign', { description: 'x', expires_at: expires, service_uuid: a.service_uuid, subject: 'Tienda', type: 'PHONE', payments });
    expect(ok.status, ok.raw).toBe(200);
    const mail = await a.api.post('/moto/campaign', { description: 'x', expires_at: expires, service_uuid: a.service_uuid, subject: 'Your invoice of March from Tienda Central', type: 'MAIL', payments: [{ ...payments[0], destination: 'ana@example.com' }] });
    expect(mail.status, mail.raw).toBe(200);
  });
});
