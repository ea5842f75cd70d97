/**
 * What existing Paylands clients send and expect (decisions §10), sent the way those clients send it:
 * PHP integers for booleans, float totals, digit strings, empty optional fields, numeric customer ids,
 * national phone numbers, redirect-following HTTP clients. Each answer is checked field by field. Plus
 * the bounds of every integer the API takes (no 500, no silently rounded amount).
 */
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, createOrder, storeCard } from '../helpers/payments.js';
import { toWireJson } from '../../src/platform/http/json.js';

let t: TestApp;
let a: TestMerchant;
let pci: TestMerchant;
let url: string;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'PHP shop' });
  pci = await t.merchant({ isPci: true });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t?.close());

const CONTRACT_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4}$/;
const hashOf = (body: any, signature: string) =>
  createHash('sha256').update(toWireJson({ order: body.order, client: body.client }) + signature).digest('hex');

/** A B1 body as a PHP plugin builds it (no `secure` unless given). */
const orderBody = (extra: Record<string, unknown> = {}) => ({ amount: 1000, operative: 'AUTHORIZATION', description: 'PHP order', service: a.service_uuid, customer_ext_id: 'php-1', ...extra });

/** A raw JSON body, exactly as written (numbers beyond what JavaScript literals keep, for instance). */
async function postRaw(m: TestMerchant, path: string, json: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/sandbox${path}`,
    headers: { authorization: `Basic ${Buffer.from(`${m.api_key}:`).toString('base64')}`, 'content-type': 'application/json' },
    payload: json,
  });
  return { status: res.statusCode, body: JSON.parse(res.body), raw: res.body };
}

const signed = (m: TestMerchant, fields: string) => `{"signature":"${m.signature}",${fields}}`;

describe('booleans as PHP sends them', () => {
  it('`secure: 1` and "true" ask for 3DS (303); `secure: 0`, "0", "false" and no `secure` at all do not (200)', async () => {
    for (const secure of [1, '1', 'true', true]) {
      const o = await createOrder(a, orderBody({ secure }));
      const card = await storeCard(t, a, TEST_CARDS.APPROVED, 'php-1');
      const r = await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card });
      expect(r.status, `secure ${JSON.stringify(secure)}`).toBe(303);
    }
    for (const secure of [0, '0', 'false', false, undefined]) {
      const r = await a.api.post('/payment', orderBody(secure === undefined ? {} : { secure }));
      expect(r.status, r.raw).toBe(200);
      const card = await storeCard(t, a, TEST_CARDS.APPROVED, 'php-1');
      const paid = await a.api.post('/payment/direct', { order_uuid: r.body.order.uuid, card_uuid: card });
      expect(paid.status, `secure ${JSON.stringify(secure)}`).toBe(200);
      expect(paid.body.order).toMatchObject({ status: 'SUCCESS', paid: true, safe: false });
    }
    for (const secure of [2, 'yes', 'TRUE', null, [true]]) {
      const r = await a.api.post('/payment', orderBody({ secure }));
      expect(r.status, `secure ${JSON.stringify(secure)}`).toBe(400);
      expect(r.body.details).toContain('secure');
    }
  });

  it('booleans of other routes too: save_card, validate (F2), default (addresses), unique (listings)', async () => {
    const saved = await a.api.post('/payment', orderBody({ save_card: 0 }));
    expect(saved.status, saved.raw).toBe(200);
    const card = await a.api.post('/payment-method/card', {
      customer_ext_id: 'php-bool', card_holder: 'Ana', card_pan: TEST_CARDS.APPROVED, card_expiry_month: 12, card_expiry_year: 2030, validate: '1', service: a.service_uuid,
    });
    expect(card.status, card.raw).toBe(200);
    expect(card.body.Source.validation_date).not.toBeNull();
    const address = await a.api.post('/customer/address', {
      external_id: 'php-bool', address1: 'Calle Mayor 1', city: 'Madrid', country: 'ESP', default: 1, state_code: 'M', type: 'BILLING', zip_code: '28001',
    });
    expect(address.status, address.raw).toBe(200);
    expect(address.body.customer_address.default).toBe(true);
    const list = await a.api.get('/customer/php-bool/sources', { unique: '1' });
    expect(list.status).toBe(200);
    expect(list.body.sources).toHaveLength(1);
  });
});

describe('amounts as PHP computes them', () => {
  it('19.99*100 (1998.9999999999998) is 1999; a string of digits is its integer', async () => {
    const float = await postRaw(a, '/payment', signed(a, `"amount":${19.99 * 100},"operative":"AUTHORIZATION","description":"float","service":"${a.service_uuid}"`));
    expect(19.99 * 100).toBe(1998.9999999999998);
    expect(float.status, float.raw).toBe(200);
    expect(float.body.order.amount).toBe(1999);
    expect(float.raw).toContain('"amount":1999,');
    const str = await a.api.post('/payment', orderBody({ amount: '2500' }));
    expect(str.status, str.raw).toBe(200);
    expect(str.body.order.amount).toBe(2500);
    // a partial refund with a float amount as well
    const card = await storeCard(t, a, TEST_CARDS.APPROVED, 'php-1');
    await a.api.post('/payment/direct', { order_uuid: str.body.order.uuid, card_uuid: card });
    const refund = await postRaw(a, '/payment/refund', signed(a, `"order_uuid":"${str.body.order.uuid}","amount":${5.1 * 100}`));
    expect(5.1 * 100).toBe(509.99999999999994);
    expect(refund.status, refund.raw).toBe(200);
    expect(refund.body.order).toMatchObject({ refunded: 510, status: 'PARTIALLY_REFUNDED' });
  });

  it('any other fraction, and strings that are not digits, are 400 naming amount', async () => {
    for (const amount of [19.5, 1998.99, '19.99', '1e3', ' 100', '', 'abc']) {
      const r = await a.api.post('/payment', orderBody({ amount }));
      expect(r.status, `amount ${JSON.stringify(amount)}`).toBe(400);
      expect(r.body.details).toContain('amount');
    }
  });

  it('other integers read the same way: expires_in as a digit string', async () => {
    const r = await a.api.post('/payment', orderBody({ expires_in: '3600' }));
    expect(r.status, r.raw).toBe(200);
  });
});

describe('empty optional fields mean absent', () => {
  it('service: "" uses the currency\'s service; customer_ip: "" and url_post: "" are not set', async () => {
    const r = await a.api.post('/payment', { amount: 700, operative: 'AUTHORIZATION', description: 'empty', service: '', currency: 'EUR', customer_ip: '', url_post: '', url_ok: '', customer_ext_id: '', template_uuid: '' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order).toMatchObject({ service_uuid: a.service_uuid, ip: null, customer: null });
    // no url_post: no notification is queued when the order is paid
    const card = await storeCard(t, a, TEST_CARDS.APPROVED, 'someone');
    expect((await a.api.post('/payment/direct', { order_uuid: r.body.order.uuid, card_uuid: card, customer_ip: '' })).body.order.status).toBe('SUCCESS');
    expect((await a.api.get('/events', { order_uuid: r.body.order.uuid })).body.events).toEqual([]);
    // service "" without a currency: the usual rule (currency is required when service is omitted)
    const none = await a.api.post('/payment', { amount: 700, operative: 'AUTHORIZATION', description: 'x', service: '' });
    expect(none.status).toBe(400);
    expect(none.body.details).toContain('currency');
  });
});

describe('customer_ip', () => {
  it('must be an IPv4 or IPv6 address (400 otherwise); it is recorded as sent', async () => {
    for (const ip of ['203.0.113.7', '2001:db8::1']) {
      const r = await a.api.post('/payment', orderBody({ customer_ip: ip }));
      expect(r.status, ip).toBe(200);
      expect(r.body.order.ip).toBe(ip);
    }
    for (const ip of ['localhost', '300.1.1.1', '1.2.3', 'fe80::zz', 'https://203.0.113.7']) {
      const r = await a.api.post('/payment', orderBody({ customer_ip: ip }));
      expect(r.status, ip).toBe(400);
      expect(r.body.details).toContain('customer_ip');
    }
    const o = await createOrder(a);
    const bad = await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: await storeCard(t, a), customer_ip: 'not-an-ip' });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toContain('customer_ip');
  });
});

describe('numeric customer ids are kept as strings', () => {
  it('POST /customer, B1, B3 and F2 with customer_ext_id 12345', async () => {
    const c = await a.api.post('/customer', { customer_ext_id: 12345 });
    expect(c.body.Customer.external_id).toBe('12345');
    expect(c.raw).toContain('"external_id":"12345"');
    const o = await a.api.post('/payment', orderBody({ customer_ext_id: 12345 }));
    expect(o.body.order.customer).toBe('12345');
    const f2 = await a.api.post('/payment-method/card', { customer_ext_id: 12345, card_holder: 'Ana', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '30' });
    expect(f2.body.Customer.external_id).toBe('12345');
    const b3 = await pci.api.post('/payment/single-step', {
      amount: 100, operative: 'AUTHORIZATION', customer_ext_id: 678, service: pci.service_uuid, description: 'x',
      card_holder: 'Ana', card_pan: TEST_CARDS.APPROVED, card_expiry_month: 12, card_expiry_year: 2030, card_cvv: '555',
    });
    expect(b3.status, b3.raw).toBe(200);
    expect(b3.body.order.customer).toBe('678');
    expect((await a.api.get('/customer/12345/sources', { status: 'ALL' })).body.sources).toHaveLength(1);
    // a number that does not fit a double exactly would be a different customer: 400
    const huge = await postRaw(a, '/customer', signed(a, '"customer_ext_id":12345678901234567890'));
    expect(huge.status).toBe(400);
    expect(huge.body.details).toContain('customer_ext_id');
  });
});

describe('phones', () => {
  it('prefix may be null or absent; number and prefix are echoed as sent', async () => {
    await a.api.post('/customer', { customer_ext_id: 'php-phone' });
    const r = await a.api.post('/customer/profile', {
      external_id: 'php-phone', first_name: 'Ana', last_name: 'Pérez',
      phone: { number: '600123456' },
      mobile_phone: { number: '612 345 678', prefix: null },
      work_phone: { number: '911234567', prefix: '34' },
      home_phone: { number: '+34 911 234 567', prefix: '' },
    });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.customer_profile).toMatchObject({
      phone: { number: '600123456', prefix: null },
      mobile_phone: { number: '612 345 678', prefix: null },
      work_phone: { number: '911234567', prefix: '34' },
      home_phone: { number: '+34 911 234 567', prefix: null },
    });
    const read = await a.api.get('/customer/profile/php-phone');
    expect(read.body.customer_profile.phone).toEqual({ number: '600123456', prefix: null });
    expect(read.body.customer_profile.work_phone).toEqual({ number: '911234567', prefix: '34' });
  });
});

describe('303 answers', () => {
  it('a 3DS-needing direct payment read by a client that follows redirects: 303, See Other, the URL in details and url, no Location', async () => {
    const o = await createOrder(a, { secure: 1 });
    const card = await storeCard(t, a, TEST_CARDS.THREEDS_OK, 'cust-1');
    // fetch follows redirects by default: with a Location header it would re-send the request to the page
    const res = await fetch(`${url}/v1/sandbox/payment/direct`, {
      method: 'POST',
      redirect: 'follow',
      headers: { authorization: `Basic ${Buffer.from(`${a.api_key}:`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ signature: a.signature, order_uuid: o.uuid, card_uuid: card }),
    });
    expect(res.redirected).toBe(false);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toContain('application/json');
    const body: any = await res.json();
    expect(Object.keys(body)).toEqual(['message', 'code', 'current_time', 'details', 'url', 'order', 'client', 'validation_hash']);
    expect(body.message).toBe('See Other');
    expect(body.code).toBe(303);
    expect(body.current_time).toMatch(CONTRACT_DATE);
    expect(body.details).toBe(o.urls['3ds_tokenized']);
    expect(body.url).toBe(o.urls['3ds_tokenized']);
    expect(body.order).toMatchObject({ uuid: o.uuid, status: 'PENDING_3DS_RESPONSE', paid: false, amount: 1000 });
    // threeds_data.version is a string as soon as the 3DS flow starts
    expect(body.order.threeds_data).toEqual({ version: '2.2.0', flow: 'CHALLENGE', sca_requested: true, status: 'PENDING', eci: null, exemption: null });
    expect(body.client).toEqual({ uuid: a.client_uuid });
    expect(body.validation_hash).toBe(hashOf(body, a.signature));
    // the URL is the tokenized 3DS page, where the customer completes the payment
    const done = await t.m.payments.completeAfter3ds(o.token);
    expect(done.order).toMatchObject({ status: 'SUCCESS', safe: true });
    expect(done.order.threeds_data?.version).toBe('2.2.0');
  });

  it('B3 with secure: "1" answers the same way; a soft decline gives a string version too', async () => {
    const r = await pci.api.post('/payment/single-step', {
      amount: 100, operative: 'AUTHORIZATION', secure: '1', customer_ext_id: 'ss', service: pci.service_uuid, description: 'x',
      card_holder: 'Ana', card_pan: TEST_CARDS.THREEDS_OK, card_expiry_month: 12, card_expiry_year: 2030,
    });
    expect(r.status, r.raw).toBe(303);
    expect(r.headers.location).toBeUndefined();
    expect(r.body).toMatchObject({ code: 303, message: 'See Other', details: r.body.url });
    expect(r.body.order.threeds_data.version).toBe('2.2.0');
    const o = await createOrder(a);
    const soft = await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: await storeCard(t, a, TEST_CARDS.SOFT_DECLINE) });
    expect(soft.status).toBe(303);
    expect(soft.body.order.threeds_data).toMatchObject({ version: '2.2.0', status: 'PENDING' });
  });
});

describe('card listings', () => {
  it('oldest first, exactly, even for cards stored in the same millisecond; each card with tokenization_service_uuid and is_blacklisted', async () => {
    const customer = 'php-list';
    const uuids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await a.api.post('/payment-method/card', {
        customer_ext_id: customer, card_holder: `Holder ${i}`, card_pan: i % 2 ? TEST_CARDS.NON_3DS_OK : TEST_CARDS.APPROVED, card_expiry_month: 12, card_expiry_year: 2030,
        ...(i === 1 ? { validate: true, service: a.service_uuid } : {}),
      });
      expect(r.status, r.raw).toBe(200);
      uuids.push(r.body.Source.uuid);
    }
    // the same instant for all of them, rewritten newest first so the table's physical order is reversed
    for (const id of [...uuids].reverse()) {
      await sql`update sources set created_at = '2030-01-01T10:00:00.000Z' where id = ${id}`.execute(t.p.database.db);
    }
    // the fourth card pays an order first: its service becomes its tokenization service
    const o = await createOrder(a, { customer_ext_id: customer });
    expect((await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: uuids[3] })).body.order.status).toBe('SUCCESS');

    const f10 = (await a.api.get(`/customer/${customer}/sources`, { status: 'ALL' })).body.sources;
    expect(f10.map((s: any) => s.uuid)).toEqual(uuids);
    expect(f10.map((s: any) => s.tokenization_service_uuid)).toEqual([null, a.service_uuid, null, a.service_uuid, null]);
    expect(f10.map((s: any) => s.is_blacklisted)).toEqual([false, false, false, false, false]);
    const f11 = await a.api.get(`/customer/${customer}/cards`, { status: 'ALL' });
    expect(f11.body.cards.map((s: any) => s.uuid)).toEqual(uuids);
    expect(Object.keys(f11.body.cards[0]).slice(-2)).toEqual(['tokenization_service_uuid', 'is_blacklisted']);
    // unique keeps the newest entry of each card, still oldest first
    const unique = (await a.api.get(`/customer/${customer}/sources`, { status: 'ALL', unique: 'true' })).body.sources;
    expect(unique.map((s: any) => s.uuid)).toEqual([uuids[3], uuids[4]]);
    // VALIDATED (the default): the validated card and the charged one
    expect((await a.api.get(`/customer/${customer}/cards`)).body.cards.map((s: any) => s.uuid)).toEqual([uuids[1], uuids[3]]);
  });
});

describe('records of the contract', () => {
  it("a terminal's acquirer is a string: as given, or the one its type implies", async () => {
    const implied = await a.api.post('/terminal', { currency_code: 'EUR', type: 'CREDORAX', description: 't', credentials: { merchant_id: 'M-1', signing_api_key: 'k' } });
    expect(implied.status, implied.raw).toBe(200);
    expect(implied.body.terminal.acquirer).toBe('CREDORAX');
    const redsys = await a.api.post('/terminal', { currency_code: 'EUR', type: 'REDSYSPSD2', description: 't', acquirer: '', credentials: { key_secure: 'a', key_not_secure: 'b', terminal_secure: '1', terminal_not_secure: '2' } });
    expect(redsys.body.terminal.acquirer).toBe('REDSYS');
    const given = await a.api.post('/terminal', { currency_code: 'EUR', type: 'PAYGATE', description: 't', acquirer: 'Banco Ejemplo' });
    expect(given.body.terminal.acquirer).toBe('Banco Ejemplo');
  });

  it('F12 verification.created uses the contract date format', async () => {
    const src = await storeCard(t, a);
    const r = await a.api.post('/payment-method/card/verify-holder', { source_uuid: src, service: a.service_uuid, holder: { name: 'Ana Pérez' } });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.verification.created).toMatch(CONTRACT_DATE);
  });
});

describe('bounds of every integer (no 500, no silently rounded amount)', () => {
  const AMOUNT_DETAILS = /amount must be <= 999999999999/;

  it('amount 2^63, 1e308 and 9007199254740993 (as numbers and as digit strings) are 400 with a clear details', async () => {
    for (const amount of ['9223372036854775808', '1e308', '9007199254740993', '"9223372036854775808"', '"9007199254740993"', '1000000000000']) {
      const r = await postRaw(a, '/payment', signed(a, `"amount":${amount},"operative":"AUTHORIZATION","description":"big","service":"${a.service_uuid}"`));
      expect(r.status, amount).toBe(400);
      expect(r.body.details, amount).toMatch(AMOUNT_DETAILS);
    }
    // the largest amount is accepted and charged exactly
    const max = await postRaw(a, '/payment', signed(a, `"amount":999999999999,"operative":"AUTHORIZATION","description":"max","service":"${a.service_uuid}"`));
    expect(max.status, max.raw).toBe(200);
    expect(max.body.order.amount).toBe(999999999999);
    const refund = await postRaw(a, '/payment/refund', signed(a, `"order_uuid":"${max.body.order.uuid}","amount":9223372036854775808`));
    expect(refund.status).toBe(400);
    expect(refund.body.details).toMatch(AMOUNT_DETAILS);
  });

  it('offset 1e20 and other unbounded listing values are 400 naming the parameter', async () => {
    for (const [path, query, field] of [
      ['/orders', { offset: '1e20' }, 'offset'],
      ['/orders', { offset: '100000000000000000000' }, 'offset'],
      ['/orders', { offset: '9007199254740993' }, 'offset'],
      ['/orders', { limit: '1e20' }, 'limit'],
      ['/orders', { terminal: '1e20' }, 'terminal'],
      ['/events', { offset: '1e20' }, 'offset'],
    ] as const) {
      const r = await a.api.get(path, query);
      expect(r.status, `${path} ${JSON.stringify(query)}`).toBe(400);
      expect(r.body.details).toContain(field);
    }
    expect((await a.api.get('/orders', { offset: '1000000000' })).status).toBe(200);
  });

  it('expires_in, test clock and marketplace amounts beyond their maxima are 400', async () => {
    expect((await a.api.post('/payment', orderBody({ expires_in: 1e20 }))).status).toBe(400);
    expect((await a.api.post('/test-clock', { advance_seconds: 1e20 })).status).toBe(400);
    const r = await postRaw(a, '/payment/refund', signed(a, `"order_uuid":"${(await createOrder(a)).uuid}","extra_data":{"marketplace_refunds":[{"merchant_location_id":1e20,"amount":1,"description":"x","net_amount":1}]}`));
    expect(r.status).toBe(400);
    expect(r.body.details).toContain('merchant_location_id');
  });
});
