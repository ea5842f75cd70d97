/**
 * The hosted page with `?apm=`: every APM the service offers, with the screen of its kind (redirect to
 * the sandbox bank page, phone and wait for the sandbox phone, voucher with QR code or barcode), to
 * url_ok or url_ko, in the page's language.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APM_CATALOGUE } from '../../src/processors/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder } from '../helpers/payments.js';
import { h1, nonceOf, open, pagePath, post } from '../helpers/pages.js';

let t: TestApp;
let a: TestMerchant;

const SHOP = { url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko', customer_ext_id: null };
const apmPath = (o: { token: string }) => `/v1/sandbox/payment/apm/${o.token}`;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'APM page shop' });
  const r = await a.api.put(`/service/${a.service_uuid}/apms`, { apms: APM_CATALOGUE.map((x) => x.apm).filter((x) => x !== 'BIZUM') });
  expect(r.status, r.raw).toBe(200);
});
afterAll(async () => t?.close());

/** Opens the APM page of `apm` through B4 `?apm=` and posts its form. */
async function startOnPage(apm: string, fields: Record<string, string> = {}, lang = 'en') {
  const o = await createOrder(a, SHOP);
  const entry = await open(t, `${pagePath(o)}?apm=${apm.toLowerCase()}&lang=${lang}`);
  expect(entry.statusCode, entry.body).toBe(303);
  expect(entry.headers.location).toBe(`${apmPath(o)}?apm=${apm}&lang=${lang}`);
  const page = await open(t, String(entry.headers.location));
  expect(page.statusCode, page.body).toBe(200);
  const r = await post(t, String(entry.headers.location), { nonce: nonceOf(page.body), ...fields });
  return { o, page, r };
}

describe('every APM of the service has its page', () => {
  for (const info of APM_CATALOGUE.filter((x) => x.apm !== 'BIZUM')) {
    it(`${info.apm}: the ${info.kind} screen`, async () => {
      const o = await createOrder(a, SHOP);
      const page = await open(t, `${apmPath(o)}?apm=${info.apm}&lang=en`);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`data-apm="${info.apm}" data-kind="${info.kind}"`);
      expect(h1(page.body)).toBe(`Pay with ${info.label}`.replace(/&/g, '&amp;'));
      if (info.kind === 'push') expect(page.body).toContain('name="phone"');
    });
  }
});

describe('redirect: the sandbox bank page', () => {
  it('approve: url_ok, SUCCESS', async () => {
    const { o, page, r } = await startOnPage('IDEAL');
    expect(page.body).toContain('Continue to iDEAL');
    expect(r.statusCode).toBe(303);
    const bank = String(r.headers.location);
    expect(bank).toMatch(new RegExp(`/v1/sandbox/sandbox-apm/bank/${o.token}$`));
    expect((await a.api.get(`/order/${o.uuid}`)).body.order.status).toBe('PENDING_PROCESSOR_RESPONSE');
    // the hosted page sends a returning customer back to the bank while it waits
    expect((await open(t, pagePath(o))).headers.location).toBe(`${apmPath(o)}?apm=IDEAL&lang=es`);
    const bankPage = await open(t, `${new URL(bank).pathname}?lang=en`);
    expect(bankPage.statusCode).toBe(200);
    expect(bankPage.body).toContain('Sandbox iDEAL');
    const done = await post(t, new URL(bank).pathname, { nonce: nonceOf(bankPage.body), result: 'approve' });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('https://shop.example/ok');
    expect((await a.api.get(`/order/${o.uuid}`)).body.order).toMatchObject({ status: 'SUCCESS', paid: true });
    // a second answer changes nothing
    expect((await post(t, new URL(bank).pathname, { nonce: nonceOf(bankPage.body), result: 'fail' })).headers.location).toBe('https://shop.example/ok');
  });

  it('refuse: url_ko, REFUSED, and the page can be used again', async () => {
    const { o, r } = await startOnPage('KLARNA');
    const path = new URL(String(r.headers.location)).pathname;
    const bankPage = await open(t, path);
    const done = await post(t, path, { nonce: nonceOf(bankPage.body), result: 'fail' });
    expect(done.headers.location).toBe('https://shop.example/ko');
    expect((await a.api.get(`/order/${o.uuid}`)).body.order.status).toBe('REFUSED');
    const again = await open(t, `${apmPath(o)}?apm=KLARNA&lang=en`);
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain('Payment refused');
  });
});

describe('push: the phone and the sandbox phone', () => {
  it('MB WAY: the page waits, the sandbox phone approves: url_ok', async () => {
    const { o, page, r } = await startOnPage('MBWAY', { phone: '912 000 000' });
    expect(page.body).toContain('912000000 can approve, 912000001 is refused');
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe(`${apmPath(o)}?apm=MBWAY&lang=en&wait=1`);
    const wait = await open(t, String(r.headers.location));
    expect(wait.statusCode).toBe(200);
    expect(wait.body).toContain('Approve the payment of');
    expect(wait.body).toMatch(/<meta http-equiv="refresh" content="3">/);
    const phoneHref = /id="pg-sandbox-phone" href="([^"]+)"/.exec(wait.body)![1].replace(/&amp;/g, '&');
    const phone = await open(t, phoneHref);
    expect(phone.statusCode).toBe(200);
    const done = await post(t, phoneHref, { nonce: nonceOf(phone.body), result: 'approve' });
    expect(done.headers.location).toBe('https://shop.example/ok');
    expect((await a.api.get(`/order/${o.uuid}`)).body.order.transactions[0]).toMatchObject({ status: 'SUCCESS', source: { apm: 'MBWAY', phone: '******000' } });
    // the waiting page, refreshed, goes on to url_ok
    expect((await open(t, String(r.headers.location))).headers.location).toBe('https://shop.example/ok');
  });

  it('a refused phone goes to url_ko; an invalid one is shown again (422), nothing started', async () => {
    const refused = await startOnPage('MBWAY', { phone: '912000001' });
    expect(refused.r.headers.location).toBe('https://shop.example/ko');
    const bad = await startOnPage('MBWAY', { phone: '612345678' }, 'pt');
    expect(bad.r.statusCode).toBe(422);
    expect(bad.r.body).toContain('aria-invalid="true"');
    expect((await a.api.get(`/order/${bad.o.uuid}`)).body.order.transactions).toHaveLength(0);
  });
});

describe('voucher: the data to pay, drawn codes, the sandbox payment', () => {
  it('Multibanco: entity, reference and expiry; the sandbox pays it: url_ok', async () => {
    const { o, r } = await startOnPage('MULTIBANCO', {}, 'pt');
    expect(r.headers.location).toBe(`${apmPath(o)}?apm=MULTIBANCO&lang=pt&wait=1`);
    const v = (await a.api.get(`/order/${o.uuid}`)).body.order.transactions[0].source.voucher;
    const page = await open(t, String(r.headers.location));
    expect(page.statusCode).toBe(200);
    expect(h1(page.body)).toBe('Os seus dados de pagamento');
    expect(page.body).toContain(`<code>${v.entity}</code>`);
    expect(page.body).toContain(`<code>${v.reference}</code>`);
    expect(page.body).toContain('Pague até');
    const action = /data-form="sandbox-voucher"/.test(page.body) ? /action="([^"]+)" data-form="sandbox-voucher"/.exec(page.body)![1].replace(/&amp;/g, '&') : '';
    expect(action).toContain(`/sandbox-apm/voucher/${o.token}`);
    const done = await post(t, action, { nonce: nonceOf(page.body), result: 'approve' });
    expect(done.headers.location).toBe('https://shop.example/ok');
    expect((await a.api.get(`/order/${o.uuid}`)).body.order.status).toBe('SUCCESS');
  });

  it('Boleto shows a barcode image, PIX a QR code image, bank transfer the IBAN and concept', async () => {
    const boleto = await startOnPage('BOLETO');
    const b = await open(t, String(boleto.r.headers.location));
    expect(b.body).toMatch(/<svg class="barcode" role="img" aria-label="Barcode"/);
    const pix = await startOnPage('PIX');
    const p = await open(t, String(pix.r.headers.location));
    expect(p.body).toMatch(/<svg class="qr" role="img" aria-label="QR code"/);
    expect(p.body).toContain('000201');
    const tr = await startOnPage('TRANSFER', {}, 'es');
    const tp = await open(t, String(tr.r.headers.location));
    expect(tp.body).toContain('ES7921000813610123456789');
    expect(tp.body).toContain('<code>test order</code>');
  });
});

describe('the checkout lists the APMs of the service', () => {
  it('every APM of the service, or those the checkout names; each leads to its APM page', async () => {
    const all = await createOrder(a, { ...SHOP, extra_data: { checkout: { default_payment_method: 'MBWAY' } } });
    const page = await open(t, `${pagePath(all, 'checkout')}?lang=en`);
    expect(page.statusCode).toBe(200);
    const listed = [...page.body.matchAll(/data-method="([A-Z_]+)"/g)].map((m) => m[1]);
    expect(listed).toEqual(['CARD', ...APM_CATALOGUE.map((x) => x.apm).filter((x) => x !== 'BIZUM')]);
    expect(page.body).toMatch(/class="method suggested" href="[^"]+" data-method="MBWAY"/);
    const some = await createOrder(a, { ...SHOP, extra_data: { checkout: { payment_methods: ['PIX', 'IDEAL'] } } });
    const p2 = await open(t, `${pagePath(some, 'checkout')}?lang=en`);
    expect([...p2.body.matchAll(/data-method="([A-Z_]+)"/g)].map((m) => m[1])).toEqual(['IDEAL', 'PIX']);
    expect(p2.body).toContain(`href="${apmPath(some)}?apm=IDEAL&amp;lang=en"`);
  });
});

describe('what the page refuses', () => {
  it('an APM the service does not offer, an unknown APM, the sandbox pages in production or with nothing waiting', async () => {
    const m = await t.merchant();
    const o = await createOrder(m, SHOP);
    expect((await open(t, `${pagePath(o)}?apm=IDEAL`)).statusCode).toBe(400);
    expect((await open(t, `${pagePath(o)}?apm=NOPE`)).statusCode).toBe(400);
    expect((await open(t, `${apmPath(o)}?apm=IDEAL`)).statusCode).toBe(400);
    expect((await open(t, `${apmPath(o)}`)).statusCode).toBe(400);
    const bank = await open(t, `/v1/sandbox/sandbox-apm/bank/${o.token}`);
    expect(bank.statusCode).toBe(410);
    // production has no sandbox provider (its pages also need HTTPS)
    expect([403, 404]).toContain((await open(t, `/v1/sandbox-apm/bank/${o.token}`)).statusCode);
    expect((await post(t, `/v1/sandbox/sandbox-apm/phone/${o.token}`, { nonce: 'x', result: 'approve' })).statusCode).toBe(400);
  });
});
