/** The Bizum page (B5) with its service switch, and the checkout page for orders with extra_data.checkout. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder } from '../helpers/payments.js';
import { h1, nonceOf, open, pagePath, post } from '../helpers/pages.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Bizum shop' });
  const r = await a.api.put(`/service/${a.service_uuid}`, { bizum_enabled: true });
  expect(r.status, r.raw).toBe(200);
  expect(r.body.service.bizum_enabled).toBe(true);
});
afterAll(async () => t?.close());

const SHOP = { url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko', customer_ext_id: null };

describe('the Bizum switch of a service', () => {
  it('is off by default, REDSYS family only, on POST /service and PUT /service/{uuid}', async () => {
    const m = await t.merchant();
    expect((await m.api.get(`/service/${m.service_uuid}`)).body.service.bizum_enabled).toBe(false);
    const created = await m.api.post('/service', { name: 'bizum', type: 'REDSYSPSD2', bizum_enabled: true });
    expect(created.status, created.raw).toBe(200);
    expect(created.body.service.bizum_enabled).toBe(true);
    const other = await m.api.post('/service', { name: 'x', type: 'CREDORAX', bizum_enabled: true });
    expect(other.status).toBe(400);
    expect(other.body.details).toContain('bizum_enabled');
    const credorax = (await m.api.post('/service', { name: 'y', type: 'CREDORAX' })).body.service;
    expect((await m.api.put(`/service/${credorax.uuid}`, { bizum_enabled: true })).status).toBe(400);
  });
});

describe('Bizum page', () => {
  async function payBizum(phone: string, lang = 'en') {
    const o = await createOrder(a, SHOP);
    const page = await open(t, `${pagePath(o, 'bizum')}?lang=${lang}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/name="phone" type="tel"[^>]*autocomplete="tel-national"/);
    const r = await post(t, `${pagePath(o, 'bizum')}?lang=${lang}`, { nonce: nonceOf(page.body), phone });
    return { o, page, r };
  }

  it('700000000 pays: url_ok, SUCCESS, a transaction whose source is Bizum with the phone masked', async () => {
    const { o, page, r } = await payBizum('700000000');
    expect(h1(page.body)).toBe('Pay with Bizum');
    expect(page.body).toContain('700000000 pays, 700000001 is refused');
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe('https://shop.example/ok');
    const order = (await a.api.get(`/order/${o.uuid}`)).body.order;
    expect(order).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(order.transactions[0]).toMatchObject({ operative: 'AUTHORIZATION', status: 'SUCCESS', source: { object: 'BIZUM', phone: '******000' } });
  });

  it('700000001 is refused: url_ko, REFUSED; the page can be used again', async () => {
    const { o, r } = await payBizum('+34 700 000 001');
    expect(r.headers.location).toBe('https://shop.example/ko');
    const order = (await a.api.get(`/order/${o.uuid}`)).body.order;
    expect(order.status).toBe('REFUSED');
    expect(order.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED' });
    expect((await open(t, `${pagePath(o, 'bizum')}?lang=en`)).body).toContain('Payment refused');
  });

  it('a phone that is not a Spanish mobile is shown again with the message, nothing charged', async () => {
    const { o, r } = await payBizum('912345678', 'es');
    expect(r.statusCode).toBe(422);
    expect(r.body).toContain('Introduce un número de móvil español válido (9 cifras).');
    expect((await a.api.get(`/order/${o.uuid}`)).body.order.transactions).toHaveLength(0);
  });

  it('the card page links to Bizum, ?apm=BIZUM goes there', async () => {
    const o = await createOrder(a, SHOP);
    expect((await open(t, pagePath(o))).body).toContain(`href="${pagePath(o, 'bizum')}?lang=es"`);
    const r = await open(t, `${pagePath(o)}?apm=bizum&lang=en`);
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe(`${pagePath(o, 'bizum')}?lang=en`);
  });

  it('not available without the switch, or for DEFERRED orders', async () => {
    const m = await t.merchant();
    const o = await createOrder(m, SHOP);
    const r = await open(t, `${pagePath(o, 'bizum')}?lang=en`);
    expect(r.statusCode).toBe(400);
    expect(h1(r.body)).toBe('Payment method not available');
    const d = await createOrder(a, { ...SHOP, operative: 'DEFERRED' });
    expect((await open(t, `${pagePath(d, 'bizum')}?lang=en`)).statusCode).toBe(400);
    const page = await open(t, `${pagePath(o)}?lang=en`);
    const posted = await post(t, `${pagePath(o, 'bizum')}?lang=en`, { nonce: nonceOf(page.body), phone: '700000000' });
    expect(posted.statusCode).toBe(400);
    expect((await m.api.get(`/order/${o.uuid}`)).body.order.transactions).toHaveLength(0);
  });
});

describe('checkout page', () => {
  const checkout = (extra: Record<string, unknown> = {}) => ({
    checkout: {
      uuid: 'co-1',
      payment_methods: ['CARD', 'BIZUM', 'PAYPAL'],
      default_payment_method: 'BIZUM',
      customization: { theme_type: 'dark', font: 'Georgia', description: 'Pedido <b>#42</b>', payment_details: { order_number: 'A-42<script>' } },
      ...extra,
    },
  });

  it('the hosted page sends the customer to the checkout, which offers the allowed methods with the customization', async () => {
    const o = await createOrder(a, { ...SHOP, extra_data: checkout() });
    const r = await open(t, `${pagePath(o)}?lang=en`);
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe(`${pagePath(o, 'checkout')}?lang=en`);
    const page = await open(t, r.headers.location as string);
    expect(page.statusCode).toBe(200);
    expect(h1(page.body)).toBe('Choose how to pay');
    expect([...page.body.matchAll(/data-method="([A-Z]+)"/g)].map((m) => m[1])).toEqual(['CARD', 'BIZUM']);
    expect(page.body).toMatch(/class="method suggested"[^>]*data-method="BIZUM"/);
    expect(page.body).toContain('Pedido &lt;b&gt;#42&lt;/b&gt;');
    expect(page.body).toContain('A-42&lt;script&gt;');
    expect(page.body).toContain('--font:Georgia, serif');
    expect(page.body).toContain('--panel:#1D2127');
    expect(page.body).toContain(`href="${pagePath(o)}?lang=en&amp;method=card"`);
  });

  it('choosing the card pays on the card page and keeps the checkout look', async () => {
    const o = await createOrder(a, { ...SHOP, extra_data: checkout() });
    const page = await open(t, `${pagePath(o)}?lang=en&method=card`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('--panel:#1D2127');
    const r = await post(t, `${pagePath(o)}?lang=en&method=card`, { nonce: nonceOf(page.body), holder: 'Ana', number: '4548812049400004', expiry: '12/30', cvv: '123' });
    expect(r.headers.location).toBe('https://shop.example/ok');
  });

  it('unknown customization values fall back safely; only methods the order can use are offered', async () => {
    const m = await t.merchant();
    const o = await createOrder(m, { ...SHOP, extra_data: { checkout: { payment_methods: ['BIZUM', 'CARD'], customization: { font: 'x}</style><script>alert(1)</script>', theme_type: 'neon' } } } });
    const page = await open(t, `${pagePath(o, 'checkout')}?lang=en`);
    expect([...page.body.matchAll(/data-method="([A-Z]+)"/g)].map((x) => x[1])).toEqual(['CARD']);
    expect(page.body).not.toContain('alert(1)');
    expect(page.body).toContain('--panel:#FFFFFF');
    const none = await createOrder(m, { ...SHOP, extra_data: { checkout: { payment_methods: ['PAYPAL'] } } });
    expect((await open(t, `${pagePath(none, 'checkout')}?lang=en`)).statusCode).toBe(400);
    const plain = await createOrder(m, SHOP);
    expect((await open(t, pagePath(plain, 'checkout'))).headers.location).toBe(`${pagePath(plain)}?lang=es`);
  });
});
