/**
 * Checkouts as resources (decisions §10): CRUD, other merchants' 404, bad input, the merged
 * configuration an order's checkout page uses, and `GET /client/resources` without an envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder } from '../helpers/payments.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Checkout shop' });
  b = await t.merchant();
});
afterAll(async () => t?.close());

const CONTRACT_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4}$/;

/** A page of the gateway (no API key: the order token is the credential). */
async function page(url: string) {
  const res = await t.app.inject({ method: 'GET', url: new URL(url).pathname + new URL(url).search });
  return { status: res.statusCode, body: res.body, location: res.headers.location as string | undefined };
}

describe('checkout CRUD', () => {
  it('creates, reads, lists (oldest first), updates and deletes', async () => {
    const created = await a.api.post('/checkout', {
      name: 'Web shop',
      payment_methods: ['card', 'BIZUM', 'GOOGLE_PAY', 'PAYMENT_CARD'],
      default_payment_method: 'Bizum',
      customization: { theme_type: 'dark', font: 'Georgia', description: 'Spring sale', payment_details: { order_number: 1042 } },
    });
    expect(created.status, created.raw).toBe(200);
    const c = created.body.checkout;
    expect(c).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Web shop',
      payment_methods: ['PAYMENT_CARD', 'BIZUM', 'GOOGLE_PAY'],
      default_payment_method: 'BIZUM',
      customization: { theme_type: 'dark', font: 'Georgia', description: 'Spring sale', payment_details: { order_number: '1042' } },
      created: expect.stringMatching(CONTRACT_DATE),
      updated: expect.stringMatching(CONTRACT_DATE),
    });
    expect(created.body).toMatchObject({ code: 200, message: 'OK' });

    const second = (await a.api.post('/checkout', { name: 'Minimal' })).body.checkout;
    expect(second).toMatchObject({ payment_methods: [], default_payment_method: null, customization: null });

    expect((await a.api.get(`/checkout/${c.uuid.toUpperCase()}`)).body.checkout).toEqual(c);
    expect((await a.api.get('/checkouts')).body.checkouts.map((x: any) => x.uuid)).toEqual([c.uuid, second.uuid]);

    // partial update: what is left out is kept; customization is replaced as a whole
    const upd = await a.api.put(`/checkout/${c.uuid}`, { name: 'Web shop 2', customization: { theme_type: 'light' } });
    expect(upd.status, upd.raw).toBe(200);
    expect(upd.body.checkout).toMatchObject({
      name: 'Web shop 2',
      payment_methods: ['PAYMENT_CARD', 'BIZUM', 'GOOGLE_PAY'],
      default_payment_method: 'BIZUM',
      customization: { theme_type: 'light', font: null, description: null, payment_details: null },
    });
    // methods without the default one: the default must go too
    expect((await a.api.put(`/checkout/${c.uuid}`, { payment_methods: ['CARD'] })).status).toBe(400);
    const cleared = await a.api.put(`/checkout/${c.uuid}`, { payment_methods: ['CARD'], default_payment_method: null, customization: null });
    expect(cleared.body.checkout).toMatchObject({ payment_methods: ['PAYMENT_CARD'], default_payment_method: null, customization: null });

    const del = await a.api.delete(`/checkout/${second.uuid}`);
    expect(del.status).toBe(200);
    expect(del.body.checkout.uuid).toBe(second.uuid);
    expect((await a.api.get(`/checkout/${second.uuid}`)).status).toBe(404);
    expect((await a.api.delete(`/checkout/${second.uuid}`)).status).toBe(404);
    expect((await a.api.get('/checkouts')).body.checkouts.map((x: any) => x.uuid)).toEqual([c.uuid]);
  });

  it("another merchant's checkout is 404 on read, update and delete, and is not listed", async () => {
    const c = (await a.api.post('/checkout', { name: 'Private' })).body.checkout;
    expect((await b.api.get(`/checkout/${c.uuid}`)).status).toBe(404);
    expect((await b.api.put(`/checkout/${c.uuid}`, { name: 'mine' })).status).toBe(404);
    expect((await b.api.delete(`/checkout/${c.uuid}`)).status).toBe(404);
    expect((await b.api.get('/checkouts')).body.checkouts).toEqual([]);
    expect((await a.api.get(`/checkout/${c.uuid}`)).body.checkout.name).toBe('Private');
  });

  it('bad input is 400 naming the field', async () => {
    const bad = async (body: Record<string, unknown>, field: string) => {
      const r = await a.api.post('/checkout', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.details).toContain(field);
    };
    await bad({}, 'name');
    await bad({ name: '' }, 'name');
    await bad({ name: 'x', payment_methods: ['CASH'] }, 'payment_methods[0]');
    await bad({ name: 'x', payment_methods: 'CARD' }, 'payment_methods');
    await bad({ name: 'x', payment_methods: ['CARD'], default_payment_method: 'BIZUM' }, 'default_payment_method');
    await bad({ name: 'x', default_payment_method: 'MONEY' }, 'default_payment_method');
    await bad({ name: 'x', customization: 'dark' }, 'customization');
    expect((await a.api.get('/checkout/not-a-uuid')).status).toBe(400);
    expect((await a.api.get('/checkout/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe('an order names a checkout (extra_data.checkout.uuid)', () => {
  it('the page offers the checkout\'s methods that the service can take, with the order\'s fields overriding', async () => {
    await a.api.put(`/service/${a.service_uuid}`, { bizum_enabled: true });
    const c = (await a.api.post('/checkout', {
      name: 'Both',
      payment_methods: ['PAYMENT_CARD', 'BIZUM', 'KLARNA'],
      default_payment_method: 'BIZUM',
      customization: { theme_type: 'dark', description: 'From the checkout', payment_details: { order_number: 'CK-1' } },
    })).body.checkout;
    // `service: ""` means absent: the merchant's service for the currency is used (decisions §10)
    const r = await a.api.post('/payment', {
      amount: 1999, operative: 'AUTHORIZATION', description: 'order', service: '', currency: 'EUR', customer_ext_id: 'ck-1',
      extra_data: { checkout: { uuid: c.uuid, customization: { description: 'From the order' } } },
    });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.service_uuid).toBe(a.service_uuid);
    expect(r.body.extra_data.checkout.uuid).toBe(c.uuid);
    const order = r.body.order;
    const first = await page(order.urls.payment_card);
    expect(first.status).toBe(303);
    expect(first.location).toContain(`/payment/checkout/${order.token}`);
    const co = await page(`http://x${first.location}&lang=en`);
    expect(co.status).toBe(200);
    // KLARNA is accepted in the configuration but not offered: the service cannot take it
    expect([...co.body.matchAll(/data-method="([A-Z]+)"/g)].map((m) => m[1])).toEqual(['CARD', 'BIZUM']);
    expect(co.body).toMatch(/class="method suggested"[^>]*data-method="BIZUM"/);
    expect(co.body).toContain('From the order');
    expect(co.body).not.toContain('From the checkout');
    expect(co.body).toContain('CK-1');
    expect(co.body).toContain('--panel:#1D2127'); // dark theme from the checkout

    // the order's own methods override the checkout's
    const onlyCard = await createOrder(a, { extra_data: { checkout: { uuid: c.uuid, payment_methods: ['CARD'] } } });
    const p2 = await page(`http://x/v1/sandbox/payment/checkout/${onlyCard.token}?lang=en`);
    expect([...p2.body.matchAll(/data-method="([A-Z]+)"/g)].map((m) => m[1])).toEqual(['CARD']);

    // an update of the checkout applies to open orders that name it
    await a.api.put(`/checkout/${c.uuid}`, { payment_methods: ['CARD'], default_payment_method: null });
    const p3 = await page(`http://x${first.location}&lang=en`);
    expect([...p3.body.matchAll(/data-method="([A-Z]+)"/g)].map((m) => m[1])).toEqual(['CARD']);
  });

  it('an unknown or foreign checkout uuid is accepted and ignored: the order\'s own fields and every method the service can take', async () => {
    const foreign = (await b.api.post('/checkout', { name: 'B', payment_methods: ['BIZUM'], customization: { description: 'B only' } })).body.checkout;
    for (const uuid of [foreign.uuid, '00000000-0000-4000-8000-000000000000', 'not-even-a-uuid']) {
      const o = await createOrder(a, { extra_data: { checkout: { uuid } } });
      const p = await page(`http://x/v1/sandbox/payment/checkout/${o.token}?lang=en`);
      expect(p.status, uuid).toBe(200);
      expect([...p.body.matchAll(/data-method="([A-Z]+)"/g)].map((m) => m[1])).toEqual(['CARD', 'BIZUM']);
      expect(p.body).not.toContain('B only');
    }
  });
});

describe('GET /client/resources', () => {
  /** A client that treats any `code` key as an error, as existing checkout clients do. */
  function parseResources(raw: string) {
    const body = JSON.parse(raw);
    if ('code' in body) throw new Error(`error answer: ${raw}`);
    return body as { services: any[]; checkouts: any[]; googlePay: { enabled: boolean }; applePay: { enabled: boolean } };
  }

  it('answers services, checkouts and wallet flags with no envelope', async () => {
    const m = await t.merchant({ name: 'Resources' });
    const c1 = (await m.api.post('/checkout', { name: 'One', payment_methods: ['CARD'], customization: { font: 'Arial' } })).body.checkout;
    const c2 = (await m.api.post('/checkout', { name: 'Two', payment_methods: ['APPLE_PAY', 'PAYPAL'] })).body.checkout;
    const r = await m.api.get('/client/resources');
    expect(r.status).toBe(200);
    const res = parseResources(r.raw);
    expect(Object.keys(res)).toEqual(['services', 'checkouts', 'googlePay', 'applePay']);
    expect(res.services).toHaveLength(1);
    expect(res.services[0]).toMatchObject({ uuid: m.service_uuid, type: 'REDSYSPSD2', enabled: true, created: expect.stringMatching(CONTRACT_DATE) });
    expect(res.checkouts).toEqual([
      { uuid: c1.uuid, name: 'One', payment_methods: ['PAYMENT_CARD'], default_payment_method: null, customization: { theme_type: null, font: 'Arial', description: null, payment_details: null } },
      { uuid: c2.uuid, name: 'Two', payment_methods: ['APPLE_PAY', 'PAYPAL'], default_payment_method: null, customization: null },
    ]);
    expect(res.googlePay).toEqual({ enabled: false });
    expect(res.applePay).toEqual({ enabled: false });
    // the raw answer starts with the services: nothing of the envelope anywhere at the top level
    expect(r.raw.startsWith('{"services":[')).toBe(true);
    for (const k of ['code', 'message', 'current_time']) expect(res).not.toHaveProperty(k);
  });

  it('errors keep the envelope (the client sees the code)', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/v1/sandbox/client/resources', headers: { authorization: 'Bearer nope' } });
    expect(r.statusCode).toBe(401);
    expect(() => parseResources(r.body)).toThrow(/error answer/);
  });
});
