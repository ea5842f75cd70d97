/**
 * Card-present operations (K1–K9) with a device's bearer token: payments and pre-authorizations of the
 * card the device read, follow-ups by rrn, the automatic void, lookups by STAN and RRN, STAN reuse, and a
 * token that opens only its own device's operations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, toApiResponse, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, advance } from '../helpers/payments.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

interface Dev {
  id: string;
  token: string;
  tid: string;
  mid: string;
}

let devices = 0;
async function register(m: TestMerchant): Promise<Dev> {
  const r = await m.api.post('/device', { service: m.service_uuid, identifier: `pos-${++devices}`, communication_type: 'SOCKET' });
  expect(r.status, r.raw).toBe(200);
  return { id: r.body.device.id, token: r.body.token, tid: r.body.device.terminal_id, mid: r.body.device.mid };
}

let stanSeq = 100;
const nextStan = () => String(++stanSeq).padStart(6, '0');

async function call(d: Dev | string, method: 'GET' | 'POST', url: string, body?: unknown, headers: Record<string, string> = {}) {
  const token = typeof d === 'string' ? d : d.token;
  const res = await t.app.inject({ method, url: `/v1/sandbox${url}`, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, payload: body === undefined ? undefined : JSON.stringify(body) });
  return toApiResponse(res);
}

const payment = (d: Dev, extra: Record<string, unknown> = {}) => ({
  card: { track2: `${TEST_CARDS.APPROVED}=4912201000000000` },
  amount: 2500,
  currency: 'EUR',
  mid: d.mid,
  stan: nextStan(),
  card_reading_method: 'ICC',
  card_sequence_number: '001',
  pin: { block: '041234FFFFFFFFFF', format: 0 },
  device: { serial_number: 'SN-1', model: 'A920' },
  sca: null,
  ...extra,
});

const ids = (d: Dev) => ({ 'x-service-mid': d.mid, 'x-service-tid': d.tid });

describe('card-present (K routes)', () => {
  it('K1 pays the card read, answers the order with pos; K8/K9 find it; K2 refunds it by rrn', async () => {
    const m = await t.merchant();
    const d = await register(m);
    const body = payment(d);
    const r = await call(d, 'POST', '/card-present/payment', body);
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order).toMatchObject({ status: 'SUCCESS', paid: true, amount: 2500 });
    expect(r.body.client.uuid).toBe(m.client_uuid);
    expect(r.body.pos).toMatchObject({ device_id: d.id, tid: d.tid, mid: d.mid, stan: body.stan, card_reading_method: 'ICC', entry_mode: '05' });
    expect(r.body.pos.rrn).toMatch(/^[0-9]{12}$/);
    expect(r.raw).not.toContain(TEST_CARDS.APPROVED);
    // the merchant sees the order like any other
    expect((await m.api.get(`/order/${r.body.order.uuid}`)).body.order.status).toBe('SUCCESS');

    const byStan = await call(d, 'GET', `/card-present/order/stan/${body.stan}`, undefined, ids(d));
    expect(byStan.status, byStan.raw).toBe(200);
    expect(byStan.body.order.uuid).toBe(r.body.order.uuid);
    expect(byStan.body.validation_hash).toMatch(/^[0-9a-f]{64}$/);
    const byRrn = await call(d, 'GET', `/card-present/order/rrn/${r.body.pos.rrn}`, undefined, ids(d));
    expect(byRrn.body.order.uuid).toBe(r.body.order.uuid);

    const refund = await call(d, 'POST', '/card-present/refund', { mid: d.mid, tid: d.tid, stan: nextStan(), rrn: r.body.pos.rrn, amount: 1000 });
    expect(refund.status, refund.raw).toBe(200);
    expect(refund.body.order).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 1000 });
  });

  it('a refused card, a repeated STAN (409, nothing charged), and bad card data (400)', async () => {
    const m = await t.merchant();
    const d = await register(m);
    const refused = await call(d, 'POST', '/card-present/payment', payment(d, { card: { pan: TEST_CARDS.REFUSED, expiration_date: '4912' }, card_reading_method: 'NFC', pin: { block: null } }));
    expect(refused.status).toBe(200);
    expect(refused.body.order).toMatchObject({ status: 'REFUSED', paid: false });
    expect(refused.body.pos.entry_mode).toBe('07');

    const body = payment(d);
    expect((await call(d, 'POST', '/card-present/payment', body)).status).toBe(200);
    const before = await sql<{ n: number }>`select count(*)::int as n from orders where merchant_id = ${m.client_uuid}`.execute(t.p.database.db);
    const again = await call(d, 'POST', '/card-present/payment', body);
    expect(again.status).toBe(409);
    expect(again.body.details).toContain('STAN');
    const after = await sql<{ n: number }>`select count(*)::int as n from orders where merchant_id = ${m.client_uuid}`.execute(t.p.database.db);
    expect(after.rows[0].n).toBe(before.rows[0].n);

    for (const [bad, field] of [
      [{ card: { track2: 'nonsense' } }, 'track2'],
      [{ card: { pan: TEST_CARDS.APPROVED } }, 'expiration_date'],
      [{ card: {} }, 'card'],
      [{ pin: { block: '12', format: 0 } }, 'pin.block'],
      [{ amount: -1 }, 'amount'],
      [{ currency: 'USD' }, 'currency'],
      [{ card_sequence_number: '1' }, 'card_sequence_number'],
      [{ stan: 'abc' }, 'stan'],
      [{ device: undefined }, 'device'],
    ] as const) {
      const r = await call(d, 'POST', '/card-present/payment', payment(d, bad as Record<string, unknown>));
      expect(r.status, `${field}: ${r.raw}`).toBe(400);
      expect(r.body.details, field).toContain(field);
      expect(r.raw).not.toContain(TEST_CARDS.APPROVED);
    }
  });

  it('K5 pre-authorization, K7 confirmation and K6 cancellation by rrn; K4 voids the last operation', async () => {
    const m = await t.merchant();
    const d = await register(m);
    const pre = await call(d, 'POST', '/card-present/preauthorization', payment(d, { amount: 8000 }));
    expect(pre.body.order.status).toBe('PENDING_CONFIRMATION');
    const conf = await call(d, 'POST', '/card-present/preauthorization/confirmation', { mid: d.mid, tid: d.tid, stan: nextStan(), rrn: pre.body.pos.rrn, amount: 6000 });
    expect(conf.status, conf.raw).toBe(200);
    expect(conf.body.order).toMatchObject({ status: 'SUCCESS', paid: true });

    const pre2 = await call(d, 'POST', '/card-present/preauthorization', payment(d, { amount: 3000 }));
    const cancel = await call(d, 'POST', '/card-present/preauthorization/cancellation', { mid: d.mid, tid: d.tid, stan: nextStan(), rrn: pre2.body.pos.rrn });
    expect(cancel.status, cancel.raw).toBe(200);
    expect(cancel.body.order.status).toBe('CANCELLED');

    const last = payment(d, { amount: 4400 });
    const paid = await call(d, 'POST', '/card-present/payment', last);
    expect(paid.body.order.status).toBe('SUCCESS');
    const wrongStan = await call(d, 'POST', '/card-present/void', { stan: '999999', mid: d.mid, device: { serial_number: 'SN-1' } });
    expect(wrongStan.status).toBe(404);
    const voided = await call(d, 'POST', '/card-present/void', { stan: last.stan, mid: d.mid, device: { serial_number: 'SN-1' } });
    expect(voided.status, voided.raw).toBe(200);
    expect(voided.body.order).toMatchObject({ uuid: paid.body.order.uuid, status: 'REFUNDED', refunded: 4400 });
    // the terminal repeating the void (it lost this answer too) changes nothing more
    const twice = await call(d, 'POST', '/card-present/void', { stan: last.stan, mid: d.mid, device: { serial_number: 'SN-1' } });
    expect(twice.status, twice.raw).toBe(200);
    expect(twice.body.order).toMatchObject({ status: 'REFUNDED', refunded: 4400 });
    expect((await m.api.get(`/order/${paid.body.order.uuid}`)).body.order.refunded).toBe(4400);
  });

  it('K3 sync answers the device its ids and EMV configuration', async () => {
    const m = await t.merchant();
    const d = await register(m);
    const r = await call(d, 'GET', `/card-present/sync?tid=${d.tid}&mid=${d.mid}&serialNumber=SN-1`, undefined, ids(d));
    expect(r.status, r.raw).toBe(200);
    expect(r.body).toMatchObject({ mid: d.mid, tid: d.tid, serial_number: 'SN-1', service_uuid: m.service_uuid });
    expect(JSON.parse(r.body.emv_config)).toMatchObject({ currency: 'EUR' });
    expect((await call(d, 'GET', `/card-present/sync?tid=${d.tid}&mid=${d.mid}&serialNumber=SN-1`, undefined, { ...ids(d), 'x-service-tid': '00000000' })).status).toBe(403);
    expect((await call(d, 'GET', `/card-present/sync?tid=${d.tid}&mid=${d.mid}&serialNumber=SN-1`)).status).toBe(400);
  });

  it('a token opens only its own device: another device, an API key, no token, a disabled device', async () => {
    const m = await t.merchant();
    const other = await t.merchant();
    const d = await register(m);
    const mine = await register(m);
    const theirs = await register(other);
    const paid = await call(d, 'POST', '/card-present/payment', payment(d));
    const rrn = paid.body.pos.rrn;
    // another device of the same merchant, and of another merchant
    for (const x of [mine, theirs]) {
      expect((await call(x, 'GET', `/card-present/order/rrn/${rrn}`, undefined, ids(x))).status).toBe(404);
      expect((await call(x, 'GET', `/card-present/order/stan/${paid.body.pos.stan}`, undefined, ids(x))).status).toBe(404);
      expect((await call(x, 'POST', '/card-present/refund', { mid: x.mid, tid: x.tid, stan: nextStan(), rrn })).status).toBe(404);
      expect((await call(x, 'POST', '/card-present/preauthorization/confirmation', { mid: x.mid, tid: x.tid, stan: nextStan(), rrn })).status).toBe(404);
      expect((await call(x, 'POST', '/card-present/preauthorization/cancellation', { mid: x.mid, tid: x.tid, stan: nextStan(), rrn })).status).toBe(404);
      expect((await call(x, 'POST', '/card-present/void', { stan: paid.body.pos.stan, mid: x.mid, device: { serial_number: 'SN-1' } })).status).toBe(404);
      // another device's TID in the body is 403 on the money routes too (the MID is the service's: shared)
      expect((await call(x, 'POST', '/card-present/refund', { mid: d.mid, tid: d.tid, stan: nextStan(), rrn })).status).toBe(403);
      // the MID/TID of another device with its own token
      expect((await call(x, 'GET', `/card-present/order/rrn/${rrn}`, undefined, ids(d))).status).toBe(403);
    }
    // the order itself is untouched by all of that
    expect((await m.api.get(`/order/${paid.body.order.uuid}`)).body.order).toMatchObject({ status: 'SUCCESS', refunded: 0 });
    expect((await call(m.api_key, 'GET', `/card-present/order/rrn/${rrn}`, undefined, ids(d))).status).toBe(401);
    expect((await call('', 'POST', '/card-present/payment', payment(d))).status).toBe(401);
    const prod = await t.app.inject({ method: 'GET', url: `/v1/card-present/order/rrn/${rrn}`, headers: { authorization: `Bearer ${d.token}`, ...ids(d) } });
    expect(prod.statusCode).toBe(403);
    await m.api.put(`/device/${d.id}/enabled`, { enabled: false });
    expect((await call(d, 'GET', `/card-present/order/rrn/${rrn}`, undefined, ids(d))).status).toBe(403);
  });

  it('C2 shows where the card was read: pos on the transaction of a card-present payment', async () => {
    const m = await t.merchant();
    const d = await register(m);
    const body = payment(d, { card_reading_method: 'NFC' });
    const r = await call(d, 'POST', '/card-present/payment', body);
    const o = (await m.api.get(`/order/${r.body.order.uuid}`)).body.order;
    expect(o.transactions[0].pos).toEqual({ device_id: d.id, tid: d.tid, mid: d.mid, stan: body.stan, rrn: r.body.pos.rrn, card_reading_method: 'NFC', entry_mode: '07' });
    expect(o.transactions[0].payment_data).toBeUndefined();
    // a refund by rrn is a follow-up, not a card read: it has no pos of its own
    const refund = await call(d, 'POST', '/card-present/refund', { mid: d.mid, tid: d.tid, stan: nextStan(), rrn: r.body.pos.rrn });
    expect(refund.body.order.transactions.map((x: any) => [x.operative, x.pos?.rrn ?? null])).toEqual([['AUTHORIZATION', r.body.pos.rrn], ['REFUND', null]]);
  });

  it('no PAN, track 2 or PIN block is stored: card-present rows keep BIN and last 4', async () => {
    const { rows } = await sql<{ j: string }>`select row_to_json(x)::text as j from card_present_operations x`.execute(t.p.database.db);
    expect(rows.length).toBeGreaterThan(5);
    const all = rows.map((r) => r.j).join('\n');
    for (const pan of Object.values(TEST_CARDS)) expect(all).not.toContain(pan);
    expect(all).not.toContain('041234FFFFFFFFFF');
    expect(all).toContain('"card_last4":"0004"');
  });
});

describe('strong customer authentication on the terminal (K1, K5)', () => {
  const tap = (d: Dev, amount: number, extra: Record<string, unknown> = {}) =>
    payment(d, { amount, card: { pan: TEST_CARDS.APPROVED, expiration_date: '4912' }, card_reading_method: 'NFC', pin: { block: null }, ...extra });
  const countOrders = async (m: TestMerchant) => (await sql<{ n: number }>`select count(*)::int as n from orders where merchant_id = ${m.client_uuid}`.execute(t.p.database.db)).rows[0].n;

  it('contactless above 5000 without PIN answers AUTHENTICATION_REQUIRED with REQUEST_PIN; the repeat with the PIN pays the same order', async () => {
    const m = await t.merchant();
    const d = await register(m);
    // at the limit no PIN is needed
    const small = await call(d, 'POST', '/card-present/payment', tap(d, 5000));
    expect(small.body.order.status).toBe('SUCCESS');

    const first = await call(d, 'POST', '/card-present/payment', tap(d, 5001));
    expect(first.status, first.raw).toBe(200);
    expect(first.body.order).toMatchObject({ status: 'AUTHENTICATION_REQUIRED', paid: false, amount: 5001 });
    expect(first.body.order.transactions).toHaveLength(1);
    expect(first.body.order.transactions[0]).toMatchObject({ status: 'REFUSED', payment_data: { terminal_action: 'REQUEST_PIN' }, pos: { card_reading_method: 'NFC', rrn: first.body.pos.rrn } });
    const before = await countOrders(m);

    const repeat = await call(d, 'POST', '/card-present/payment', tap(d, 5001, { pin: { block: '041234FFFFFFFFFF', format: 0 }, sca: { original_order_uuid: first.body.order.uuid } }));
    expect(repeat.status, repeat.raw).toBe(200);
    expect(repeat.body.order).toMatchObject({ uuid: first.body.order.uuid, status: 'SUCCESS', paid: true });
    expect(repeat.body.order.transactions.map((x: any) => x.status)).toEqual(['REFUSED', 'SUCCESS']);
    expect(repeat.body.order.transactions[1].pos.rrn).toBe(repeat.body.pos.rrn);
    expect(repeat.body.pos.rrn).not.toBe(first.body.pos.rrn);
    expect(await countOrders(m)).toBe(before); // one order throughout
    // the merchant sees one paid order; K9 by either rrn finds it
    expect((await m.api.get(`/order/${first.body.order.uuid}`)).body.order).toMatchObject({ status: 'SUCCESS', transactions: [{}, {}] });
    for (const rrn of [first.body.pos.rrn, repeat.body.pos.rrn]) expect((await call(d, 'GET', `/card-present/order/rrn/${rrn}`, undefined, ids(d))).body.order.status).toBe('SUCCESS');
    // repeating once more: the order no longer waits for SCA (400), nothing charged
    const third = await call(d, 'POST', '/card-present/payment', tap(d, 5001, { pin: { block: '041234FFFFFFFFFF', format: 0 }, sca: { original_order_uuid: first.body.order.uuid } }));
    expect(third.status).toBe(400);
    expect(third.body.details).toContain('AUTHENTICATION_REQUIRED');
    expect((await m.api.get(`/order/${first.body.order.uuid}`)).body.order.transactions).toHaveLength(2);
  });

  it('the switch-interface card answers SWITCH_INTERFACE; the repeat with the chip pays the same order (K5 pre-authorization too)', async () => {
    const m = await t.merchant();
    const d = await register(m);
    const card = { pan: TEST_CARDS.SCA_SWITCH_INTERFACE, expiration_date: '4912' };
    const first = await call(d, 'POST', '/card-present/payment', tap(d, 1200, { card }));
    expect(first.body.order).toMatchObject({ status: 'AUTHENTICATION_REQUIRED', transactions: [{ payment_data: { terminal_action: 'SWITCH_INTERFACE' } }] });
    // the same interface again is asked again (still one order, a second refused attempt)
    const tappedAgain = await call(d, 'POST', '/card-present/payment', tap(d, 1200, { card, pin: { block: '041234FFFFFFFFFF', format: 0 }, sca: { original_order_uuid: first.body.order.uuid } }));
    expect(tappedAgain.body.order).toMatchObject({ uuid: first.body.order.uuid, status: 'AUTHENTICATION_REQUIRED' });
    const chip = await call(d, 'POST', '/card-present/payment', tap(d, 1200, { card, card_reading_method: 'ICC', sca: { original_order_uuid: first.body.order.uuid } }));
    expect(chip.status, chip.raw).toBe(200);
    expect(chip.body.order).toMatchObject({ uuid: first.body.order.uuid, status: 'SUCCESS', paid: true });
    expect(chip.body.order.transactions.map((x: any) => [x.status, x.payment_data?.terminal_action ?? null, x.pos.entry_mode])).toEqual([
      ['REFUSED', 'SWITCH_INTERFACE', '07'], ['REFUSED', 'SWITCH_INTERFACE', '07'], ['SUCCESS', null, '05'],
    ]);

    const pre = await call(d, 'POST', '/card-present/preauthorization', tap(d, 8000));
    expect(pre.body.order).toMatchObject({ status: 'AUTHENTICATION_REQUIRED', transactions: [{ operative: 'DEFERRED', payment_data: { terminal_action: 'REQUEST_PIN' } }] });
    const held = await call(d, 'POST', '/card-present/preauthorization', tap(d, 8000, { pin: { block: '041234FFFFFFFFFF', format: 0 }, sca: { original_order_uuid: pre.body.order.uuid } }));
    expect(held.body.order).toMatchObject({ uuid: pre.body.order.uuid, status: 'PENDING_CONFIRMATION' });
    // confirming by the rrn of the repeat captures it
    const conf = await call(d, 'POST', '/card-present/preauthorization/confirmation', { mid: d.mid, tid: d.tid, stan: nextStan(), rrn: held.body.pos.rrn });
    expect(conf.body.order).toMatchObject({ status: 'SUCCESS', paid: true });
  });

  it('a repeat must be of this device, the same operation, amount and card, for an order waiting for SCA: clear 4xx, nothing changes', async () => {
    const m = await t.merchant();
    const other = await t.merchant();
    const d = await register(m);
    const d2 = await register(m);
    const foreign = await register(other);
    const first = await call(d, 'POST', '/card-present/payment', tap(d, 7000));
    const uuid = first.body.order.uuid;
    const pin = { block: '041234FFFFFFFFFF', format: 0 };
    const snapshot = async () => (await m.api.get(`/order/${uuid}`)).body.order;
    const before = await snapshot();
    const cases: Array<[Dev, Record<string, unknown>, number, string]> = [
      [d2, tap(d2, 7000, { pin, sca: { original_order_uuid: uuid } }), 404, 'sca.original_order_uuid'],
      [foreign, tap(foreign, 7000, { pin, sca: { original_order_uuid: uuid } }), 404, 'sca.original_order_uuid'],
      [d, tap(d, 7000, { pin, sca: { original_order_uuid: '8a9b0c1d-2e3f-4a5b-8c7d-9e0f1a2b3c4d' } }), 404, 'sca.original_order_uuid'],
      [d, tap(d, 6999, { pin, sca: { original_order_uuid: uuid } }), 400, 'amount'],
      [d, tap(d, 7000, { pin, currency: 'USD', sca: { original_order_uuid: uuid } }), 400, 'currency'],
      [d, tap(d, 7000, { pin, card: { pan: TEST_CARDS.NON_3DS_OK, expiration_date: '4912' }, sca: { original_order_uuid: uuid } }), 400, 'card'],
      [d, tap(d, 7000, { pin, sca: { original_order_uuid: 'not-a-uuid' } }), 400, 'sca.original_order_uuid'],
    ];
    for (const [dev, body, status, field] of cases) {
      const r = await call(dev, 'POST', '/card-present/payment', body);
      expect(r.status, `${field}: ${r.raw}`).toBe(status);
      expect(r.body.details, field).toContain(field);
    }
    const wrongKind = await call(d, 'POST', '/card-present/preauthorization', tap(d, 7000, { pin, sca: { original_order_uuid: uuid } }));
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.details).toContain('payment');
    expect(await snapshot()).toEqual(before);
    // a merchant API key cannot continue it through another channel either
    expect((await m.api.post('/payment/direct', { order_uuid: uuid, card_uuid: '00000000-0000-4000-8000-000000000000' })).status).toBeGreaterThanOrEqual(400);
    expect(await snapshot()).toEqual(before);
  });

  it('an abandoned SCA order expires like other open orders (the expiry sweep, on the merchant clock)', async () => {
    const m = await t.merchant();
    const d = await register(m);
    const first = await call(d, 'POST', '/card-present/payment', tap(d, 7000));
    expect(first.body.order.status).toBe('AUTHENTICATION_REQUIRED');
    await advance(m, 599);
    await t.m.payments.expireDue();
    expect((await t.p.database.db.selectFrom('orders').select('status').where('id', '=', first.body.order.uuid).executeTakeFirstOrThrow()).status).toBe('AUTHENTICATION_REQUIRED');
    await advance(m, 2);
    await t.m.payments.expireDue();
    expect((await t.p.database.db.selectFrom('orders').select('status').where('id', '=', first.body.order.uuid).executeTakeFirstOrThrow()).status).toBe('EXPIRED');
    const late = await call(d, 'POST', '/card-present/payment', tap(d, 7000, { pin: { block: '041234FFFFFFFFFF', format: 0 }, sca: { original_order_uuid: first.body.order.uuid } }));
    expect(late.status).toBe(400);
    expect(late.body.details).toContain('EXPIRED');
  });
});
