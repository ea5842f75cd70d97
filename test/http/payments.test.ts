import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, createOrder, paidOrder, storeCard } from '../helpers/payments.js';
import { toWireJson } from '../../src/platform/http/json.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
});
afterAll(async () => t?.close());

const hashOf = (body: any, signature: string) =>
  createHash('sha256').update(toWireJson(body.extra_data === undefined ? { order: body.order, client: body.client } : { order: body.order, client: body.client, extra_data: body.extra_data }) + signature).digest('hex');

describe('B1 create order', () => {
  it('creates an order with every field of the record, in order', async () => {
    const r = await a.api.post('/payment', {
      amount: 1050, operative: 'AUTHORIZATION', secure: false, description: 'Book', service: a.service_uuid,
      customer_ext_id: 'c-9', additional: 'José/ref-1', url_post: 'https://example.com/n', reference: 'ref-a1',
      extra_data: { checkout: { uuid: 'chk-1', payment_methods: ['CARD'] }, cof: { reason: 'RECURRING' } },
    });
    expect(r.status, r.raw).toBe(200);
    expect(Object.keys(r.body)).toEqual(['message', 'code', 'current_time', 'order', 'client', 'extra_data', 'validation_hash']);
    const o = r.body.order;
    expect(Object.keys(o)).toEqual([
      'uuid', 'created', 'created_from_client_timezone', 'amount', 'currency', 'paid', 'status', 'safe', 'refunded', 'additional',
      'service', 'service_uuid', 'customer', 'cof_txnid', 'transactions', 'token', 'ip', 'urls', 'reference', 'dynamic_descriptor', 'threeds_data', 'dcc',
    ]);
    expect(o).toMatchObject({ amount: 1050, currency: '978', paid: false, status: 'CREATED', safe: false, refunded: 0, additional: 'José/ref-1', service: 'REDSYSPSD2', service_uuid: a.service_uuid, customer: 'c-9', transactions: [], reference: 'ref-a1' });
    expect(o.token).toMatch(/^[0-9a-f]{40}$/);
    expect(o.urls.payment_card).toMatch(new RegExp(`/v1/sandbox/payment/process/${o.token}$`));
    expect(o.urls['3ds_tokenized']).toMatch(new RegExp(`/v1/sandbox/payment/tokenized/${o.token}$`));
    expect(o.urls.bizum).toMatch(/\/bizum\//);
    expect(r.body.client).toEqual({ uuid: a.client_uuid });
    expect(r.body.extra_data).toEqual({ checkout: { uuid: 'chk-1', payment_methods: ['CARD'] }, cof: { reason: 'RECURRING' } });
    expect(r.raw).toContain('Jos\\u00e9\\/ref-1');
    expect(r.body.validation_hash).toBe(hashOf(r.body, a.signature));
  });

  it('validates the fields', async () => {
    const base = { amount: 100, operative: 'AUTHORIZATION', secure: false, description: 'x', service: a.service_uuid };
    for (const [patch, text] of [
      [{ amount: -1 }, 'amount'],
      [{ amount: 10.5 }, 'amount'],
      [{ operative: 'SALE' }, 'operative'],
      [{ secure: 2 }, 'secure'],
      [{ description: undefined }, 'description'],
      [{ expires_in: 599 }, 'expires_in'],
      [{ expires_in: 31536001 }, 'expires_in'],
      [{ service: undefined }, 'currency'],
      [{ service: undefined, currency: 'XYZ' }, 'currency'],
      [{ service: undefined, currency: 'USD' }, 'USD'],
      [{ currency: 'USD' }, 'currency'],
      [{ url_post: 'ftp://x' }, 'url_post'],
    ] as const) {
      const r = await a.api.post('/payment', { ...base, ...patch });
      expect(r.status, JSON.stringify(patch)).toBe(400);
      expect(r.body.details).toContain(text);
    }
    const other = await t.merchant();
    expect((await a.api.post('/payment', { ...base, service: other.service_uuid })).status).toBe(404);
  });

  it('currency without service uses the default service; expires_in defaults to 600', async () => {
    const r = await a.api.post('/payment', { amount: 5, operative: 'DEFERRED', secure: false, description: 'x', currency: 'EUR' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.service_uuid).toBe(a.service_uuid);
    expect(r.body).not.toHaveProperty('extra_data');
    const row = await t.p.database.db.selectFrom('orders').select(['expires_at', 'created_at']).where('id', '=', r.body.order.uuid).executeTakeFirstOrThrow();
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBe(600_000);
  });

  it('a reference held by a paid order of the merchant: 409', async () => {
    await paidOrder(t, a, { reference: 'dup-1' });
    const r = await a.api.post('/payment', { amount: 1, operative: 'AUTHORIZATION', secure: false, description: 'x', service: a.service_uuid, reference: 'dup-1' });
    expect(r.status).toBe(409);
    expect(r.body.details).toMatch(/reference "dup-1" is SUCCESS/);
    const b = await t.merchant();
    await createOrder(b, { reference: 'dup-1', service: b.service_uuid });
  });
});

describe('C2 read order', () => {
  it('an order answer is the wire serialization of its fields, byte for byte (key order, escapes)', async () => {
    const o = await createOrder(a, { additional: 'Zoë/€ 😀', description: 'a/b' });
    const card = await storeCard(t, a);
    const paid = await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card });
    const read = await a.api.get(`/order/${o.uuid}`);
    for (const r of [paid, read]) {
      expect(r.status, r.raw).toBe(200);
      expect(Object.keys(r.body)).toEqual(['message', 'code', 'current_time', 'order', 'client', 'validation_hash']);
      expect(r.raw).toBe(toWireJson(r.body));
      expect(r.raw).toContain('Zo\\u00eb\\/\\u20ac \\ud83d\\ude00');
      expect(r.body.validation_hash).toBe(hashOf(r.body, a.signature));
    }
  });

  it('reads its own order; another merchant gets 404', async () => {
    const o = await createOrder(a);
    const r = await a.api.get(`/order/${o.uuid}`);
    expect(r.status).toBe(200);
    expect(r.body.order.uuid).toBe(o.uuid);
    expect(r.body.validation_hash).toBe(hashOf(r.body, a.signature));
    const b = await t.merchant();
    expect((await b.api.get(`/order/${o.uuid}`)).status).toBe(404);
    expect((await a.api.get('/order/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe('B10 direct payment stories', () => {
  it('approved: order SUCCESS, paid, transaction SUCCESS with source', async () => {
    const o = await paidOrder(t, a);
    expect(o).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(o.transactions).toHaveLength(1);
    expect(o.transactions[0]).toMatchObject({ operative: 'AUTHORIZATION', amount: 1000, status: 'SUCCESS', error: 'NONE' });
    expect(o.transactions[0].authorization).toMatch(/^\d{6}$/);
    expect(o.transactions[0].source).toMatchObject({ object: 'CARD', last4: '0004', bin: 454881 });
    expect(Object.keys(o.transactions[0])).toEqual(['uuid', 'created', 'created_from_client_timezone', 'operative', 'amount', 'authorization', 'processor_id', 'status', 'error', 'source', 'antifraud', 'device', 'error_details', 'dcc']);
    // paying again is refused
    const card = await storeCard(t, a);
    const again = await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card });
    expect(again.status).toBe(400);
  });

  it('declined: HTTP 200, transaction REFUSED, order REFUSED and still payable', async () => {
    const order = await createOrder(a);
    const bad = await storeCard(t, a, TEST_CARDS.REFUSED);
    const r = await a.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: bad });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ message: 'OK', code: 200 });
    expect(r.body.order).toMatchObject({ status: 'REFUSED', paid: false });
    expect(r.body.order.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED' });
    const good = await storeCard(t, a);
    const r2 = await a.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: good });
    expect(r2.body.order).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(r2.body.order.transactions.map((x: any) => x.status)).toEqual(['REFUSED', 'SUCCESS']);
  });

  it('soft decline: 303 with the tokenized 3DS URL; completing 3DS pays the order safely', async () => {
    const order = await createOrder(a);
    const card = await storeCard(t, a, TEST_CARDS.SOFT_DECLINE);
    const r = await a.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
    expect(r.status, r.raw).toBe(303);
    expect(r.headers.location).toBeUndefined();
    expect(r.body).toMatchObject({ code: 303, message: 'See Other', details: order.urls['3ds_tokenized'], url: order.urls['3ds_tokenized'] });
    expect(r.body.order.status).toBe('PENDING_3DS_RESPONSE');
    expect(r.body.validation_hash).toBe(hashOf(r.body, a.signature));
    const done = await t.m.payments.completeAfter3ds(order.token);
    expect(done.order).toMatchObject({ status: 'SUCCESS', paid: true, safe: true });
    expect(done.order.threeds_data).toMatchObject({ status: 'Y', sca_requested: true });
    expect(done.order.transactions).toHaveLength(1);
  });

  it('secure order: 303 at once; a card that fails 3DS leaves the order REFUSED', async () => {
    const order = await createOrder(a, { secure: true });
    const card = await storeCard(t, a, TEST_CARDS.THREEDS_FAIL);
    const calls = t.m.processors.simulator.callCount('authorize');
    const r = await a.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
    expect(r.status).toBe(303);
    expect(t.m.processors.simulator.callCount('authorize')).toBe(calls);
    const done = await t.m.payments.completeAfter3ds(order.token);
    expect(done.order).toMatchObject({ status: 'REFUSED', paid: false });
    expect(done.order.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
  });

  it("another merchant's card or order is not found", async () => {
    const b = await t.merchant();
    const order = await createOrder(a);
    const bcard = await storeCard(t, b);
    expect((await a.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: bcard })).status).toBe(404);
    expect((await b.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: bcard })).status).toBe(404);
  });
});
