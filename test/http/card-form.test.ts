/**
 * The embedded card form over HTTP (decisions §10): the loader at /js/v1-iframe.js, the form page a
 * customer token opens, storing a card through it, and the token's lifetime and revocation. The
 * browser side (postMessage, cross-origin isolation) is in test/browser/card-form.browser.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, advance, createOrder } from '../helpers/payments.js';
import { CARD_FORM_MAX_FAILURES } from '../../src/modules/pages/index.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Form shop' });
});
afterAll(async () => t?.close());

const SHOP = 'https://shop.example';

async function tokenFor(customer: string, m: TestMerchant = a): Promise<string> {
  const r = await m.api.post('/customer', { customer_ext_id: customer });
  expect(r.status, r.raw).toBe(200);
  return r.body.Customer.token;
}

async function openForm(token: string, env = 'sandbox', query = `origin=${encodeURIComponent(SHOP)}&lang=en`) {
  const res = await t.app.inject({ method: 'GET', url: `/v1${env === 'sandbox' ? '/sandbox' : ''}/card-form/${token}?${query}` });
  const nonce = /name="nonce" value="([^"]+)"/.exec(res.body)?.[1] ?? '';
  return { res, nonce };
}

async function store(token: string, nonce: string, card: Record<string, string> = {}) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/sandbox/card-form/${token}?lang=en`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ nonce, holder: 'Ana Pérez', number: '4548 8120 4940 0004', expiry: '12/30', cvv: '321', ...card }),
  });
  return { status: res.statusCode, body: JSON.parse(res.body), raw: res.body, headers: res.headers };
}

describe('GET /js/v1-iframe.js', () => {
  it('serves the loader as a widget: JavaScript, cacheable with an ETag, any origin', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/js/v1-iframe.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    for (const name of ['setMode', 'initializate', 'validate', 'storeSourceCard', 'window.paylands']) expect(res.body).toContain(name);
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await t.app.inject({ method: 'GET', url: '/js/v1-iframe.js', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // not under /v1, and no API key needed
    expect((await t.app.inject({ method: 'GET', url: '/v1/js/v1-iframe.js' })).statusCode).toBe(404);
  });
});

describe('the card form', () => {
  it('a token from POST /customer opens the form; storing a card answers savedCard, and the card pays an order', async () => {
    const token = await tokenFor('form-1');
    const { res, nonce } = await openForm(token);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain('frame-ancestors *');
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("form-action 'none'");
    expect(csp).toMatch(/script-src 'nonce-[^']+'/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain(`data-parent-origin="${SHOP}"`);
    expect(res.body).toContain('Cardholder name');
    expect(nonce).not.toBe('');

    const saved = await store(token, nonce);
    expect(saved.status, saved.raw).toBe(200);
    expect(Object.keys(saved.body)).toEqual(['code', 'current_time', 'source', 'customer']);
    expect(saved.body.code).toBe(200);
    expect(saved.body.current_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4}$/);
    expect(Object.keys(saved.body.source)).toEqual(['uuid', 'type', 'brand', 'holder', 'bin', 'last4', 'expire_month', 'expire_year', 'additional', 'validation_date', 'creation_date']);
    expect(saved.body.source).toMatchObject({ brand: 'VISA', holder: 'Ana Pérez', bin: 454881, last4: '0004', expire_month: '12', expire_year: '30', additional: null });
    expect(saved.body.source.validation_date).not.toBeNull();
    expect(saved.body.customer).toEqual({ external_id: 'form-1' });
    expect(saved.raw).not.toContain('4548812049400004');

    // the card is the customer's: listed (validated by the merchant's service) and it pays
    const list = await a.api.get('/customer/form-1/cards');
    expect(list.body.cards).toHaveLength(1);
    expect(list.body.cards[0]).toMatchObject({ uuid: saved.body.source.uuid, origin: 'CARD_FORM', tokenization_service_uuid: a.service_uuid, is_blacklisted: false });
    const order = await createOrder(a, { customer_ext_id: 'form-1' });
    const paid = await a.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: saved.body.source.uuid });
    expect(paid.status, paid.raw).toBe(200);
    expect(paid.body.order).toMatchObject({ status: 'SUCCESS', paid: true });
  });

  it('refuses what must be refused: a failed CVV check, invalid fields, a forged nonce; nothing is stored', async () => {
    const token = await tokenFor('form-2');
    const { nonce } = await openForm(token);
    const cvv = await store(token, nonce, { number: TEST_CARDS.CVV_FAIL });
    expect(cvv.status).toBe(400);
    expect(cvv.body).toEqual({ error: { message: 'The card could not be saved. Check the details or use another card.' } });
    const invalid = await store(token, nonce, { number: '4548 8120 4940 0005', expiry: '01/20', cvv: '12' });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.message).toBe('Please correct the highlighted fields.');
    const forged = await store(token, `${nonce.slice(0, -2)}xx`);
    expect(forged.status).toBe(400);
    const other = await store(token, (await openForm(await tokenFor('form-other'))).nonce);
    expect(other.status).toBe(400);
    expect((await a.api.get('/customer/form-2/cards', { status: 'ALL' })).body.cards).toEqual([]);
  });

  it('the form speaks the customer\'s language, and follows the merchant\'s framing settings', async () => {
    const token = await tokenFor('form-3');
    const es = await openForm(token, 'sandbox', `origin=${encodeURIComponent(SHOP)}&lang=es`);
    expect(es.res.body).toContain('<html lang="es"');
    expect(es.res.body).toContain('Titular de la tarjeta');
    const m = await t.merchant();
    expect((await m.api.put('/page-settings', { frame_ancestors: [SHOP] })).status).toBe(200);
    const framed = await openForm(await tokenFor('form-4', m));
    expect(framed.res.headers['content-security-policy']).toContain(`frame-ancestors ${SHOP}`);
    // without ?origin the Referer names the merchant page
    const byReferer = await t.app.inject({ method: 'GET', url: `/v1/sandbox/card-form/${token}`, headers: { referer: `${SHOP}/checkout?step=2` } });
    expect(byReferer.body).toContain(`data-parent-origin="${SHOP}"`);
  });

  it('too many failed tries with one token: the form refuses more (card testing)', async () => {
    const token = await tokenFor('form-5');
    const { nonce } = await openForm(token);
    for (let i = 0; i < CARD_FORM_MAX_FAILURES; i++) expect((await store(token, nonce, { number: TEST_CARDS.CVV_FAIL })).status).toBe(400);
    const blocked = await store(token, nonce);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.message).toBe('Too many attempts. Try again later.');
  });
});

describe('customer tokens', () => {
  it('are usable in their environment only; unknown tokens are 410 with a message for the page', async () => {
    const token = await tokenFor('tok-1');
    // production refuses plain HTTP before anything else (403); over https a sandbox token is unknown there
    expect((await openForm(token, 'production')).res.statusCode).toBe(403);
    const prodHttps = await t.app.inject({ method: 'GET', url: `/v1/card-form/${token}?origin=${encodeURIComponent(SHOP)}`, headers: { 'x-forwarded-proto': 'https' } });
    expect(prodHttps.statusCode).toBe(410);
    const unknown = await openForm('ab'.repeat(20));
    expect(unknown.res.statusCode).toBe(410);
    expect(unknown.res.body).toContain('data-state="expired"');
    expect(unknown.res.body).toContain('This card form has expired');
  });

  it('expire after PAYGATE_CUSTOMER_TOKEN_TTL_S on the merchant clock; POST /customer extends a valid token and replaces an expired one', async () => {
    const m = await t.merchant();
    const first = await tokenFor('tok-2', m);
    await advance(m, 1800);
    // still valid: the same token, extended for another hour from now
    expect(await tokenFor('tok-2', m)).toBe(first);
    await advance(m, 3000);
    expect((await openForm(first)).res.statusCode).toBe(200);
    await advance(m, 700);
    const expired = await openForm(first);
    expect(expired.res.statusCode).toBe(410);
    const second = await tokenFor('tok-2', m);
    expect(second).not.toBe(first);
    expect((await openForm(second)).res.statusCode).toBe(200);
    expect((await openForm(first)).res.statusCode).toBe(410);
  });

  it('can be revoked (DELETE /customer/token); a stored form can no longer post', async () => {
    const token = await tokenFor('tok-3');
    const { nonce } = await openForm(token);
    const revoked = await a.api.delete('/customer/token', { customer_ext_id: 'tok-3' });
    expect(revoked.status, revoked.raw).toBe(200);
    expect((await openForm(token)).res.statusCode).toBe(410);
    const late = await store(token, nonce);
    expect(late.status).toBe(410);
    expect(late.body.error.message).toBe('This card form has expired. Reload the page to enter your card again.');
    expect((await a.api.delete('/customer/token', { customer_ext_id: 'nobody' })).status).toBe(404);
    // the next POST /customer issues a fresh token
    const fresh = await tokenFor('tok-3');
    expect(fresh).not.toBe(token);
    expect((await openForm(fresh)).res.statusCode).toBe(200);
  });

  it("another merchant cannot revoke this merchant's customer token", async () => {
    const token = await tokenFor('tok-4');
    const b = await t.merchant();
    expect((await b.api.delete('/customer/token', { customer_ext_id: 'tok-4' })).status).toBe(404);
    expect((await openForm(token)).res.statusCode).toBe(200);
  });
});
