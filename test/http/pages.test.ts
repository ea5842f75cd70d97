/**
 * The hosted payment page (B4) and the tokenized 3DS page (B7) over HTTP, without a browser: what the
 * pages show, the headers they send, paying with the form (as a browser without JavaScript does), the
 * redirects, 3DS, repeated posts, and the token and card data staying out of logs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, createOrder, storeCard } from '../helpers/payments.js';
import { CARD, h1, nonceOf, open, pagePath, payOnPage, post } from '../helpers/pages.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_PRODUCTION_SIMULATOR: 'true' });
  a = await t.merchant({ name: 'Tienda <b>Ñandú</b> & Co' });
});
afterAll(async () => t?.close());

const SHOP = { url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' };

async function order(body: Record<string, unknown> = {}) {
  return createOrder(a, { customer_ext_id: null, ...SHOP, ...body });
}

async function orderRow(uuid: string) {
  const r = await a.api.get(`/order/${uuid}`);
  expect(r.status).toBe(200);
  return r.body.order;
}

describe('the page', () => {
  it('shows merchant (escaped), amount in the currency\'s minor units and language, and a card form with the right autocomplete', async () => {
    const o = await order({ amount: 123456, description: 'Pedido <i>42</i>' });
    const r = await open(t, `${pagePath(o)}?lang=es`);
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.body).toContain('<html lang="es">');
    expect(r.body).toContain('Tienda &lt;b&gt;Ñandú&lt;/b&gt; &amp; Co');
    expect(r.body).not.toContain('<b>Ñandú');
    expect(r.body).toContain('Pedido &lt;i&gt;42&lt;/i&gt;');
    expect(r.body.replace(/\u00a0/g, ' ')).toContain('1234,56 €');
    for (const [name, ac] of [['holder', 'cc-name'], ['number', 'cc-number'], ['expiry', 'cc-exp'], ['cvv', 'cc-csc']]) {
      expect(r.body).toMatch(new RegExp(`name="${name}"[^>]*autocomplete="${ac}"`));
    }
    expect(r.body).toContain('Modo de prueba');
    expect(r.body).toMatch(/<form method="post" action="\/v1\/sandbox\/payment\/process\/[0-9a-f]+\?lang=es"/);
  });

  it('amounts of zero-decimal and three-decimal currencies', async () => {
    const jpy = await t.merchant({ currency: 'JPY' });
    const o = await createOrder(jpy, { amount: 1500, service: jpy.service_uuid, customer_ext_id: null });
    const r = await open(t, `${pagePath(o)}?lang=en`);
    expect(r.body).toContain('¥1,500');
    const kwd = await t.merchant({ currency: 'KWD' });
    const k = await createOrder(kwd, { amount: 12345, service: kwd.service_uuid, customer_ext_id: null });
    expect((await open(t, `${pagePath(k)}?lang=en`)).body.replace(/\u00a0/g, ' ')).toContain('KWD 12.345');
  });

  it('language: ?lang=, then Accept-Language, then Spanish', async () => {
    const o = await order();
    expect((await open(t, `${pagePath(o)}?lang=DE`)).body).toContain('<html lang="de">');
    expect((await open(t, pagePath(o), { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.8' })).body).toContain('<html lang="fr">');
    expect((await open(t, `${pagePath(o)}?lang=xx`, { 'accept-language': 'ja' })).body).toContain('<html lang="es">');
  });

  it('security headers: strict CSP with a fresh nonce, framing allowed, forms to the gateway and the redirect targets only', async () => {
    const o = await order();
    const r1 = await open(t, pagePath(o));
    const r2 = await open(t, pagePath(o));
    const csp = String(r1.headers['content-security-policy']);
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    expect(csp).toBe(`default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'none'; form-action 'self' https://shop.example; frame-ancestors *; base-uri 'none'; connect-src 'none'; font-src 'none'; object-src 'none'`);
    expect(r2.headers['content-security-policy']).not.toContain(nonce);
    expect(r1.body).toContain(`<script nonce="${nonce}">`);
    expect(r1.body).toContain(`<style nonce="${nonce}">`);
    expect((r1.body.match(/<script(?![^>]*type="application\/json")[^>]*>/g) ?? []).every((s) => s.includes(`nonce="${nonce}"`))).toBe(true);
    expect(r1.body).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet|\sstyle="/);
    expect(r1.headers['referrer-policy']).toBe('no-referrer');
    expect(r1.headers['x-content-type-options']).toBe('nosniff');
    expect(r1.headers['cache-control']).toBe('no-store');
    expect(r1.headers['x-frame-options']).toBeUndefined();
  });

  it('unknown, foreign-environment, used and expired tokens: a clear page with the right status, never a stack trace', async () => {
    const nf = await open(t, `/v1/sandbox/payment/process/${'a'.repeat(40)}?lang=fr`);
    expect(nf.statusCode).toBe(404);
    expect(h1(nf.body)).toBe('Paiement introuvable');
    const junk = await open(t, `/v1/sandbox/payment/process/%3Cscript%3E?lang=en`);
    expect(junk.statusCode).toBe(404);
    expect(junk.body).not.toContain('<script>');

    const o = await order();
    const prod = await open(t, `${pagePath(o, 'process', 'production')}?lang=en`, { 'x-forwarded-proto': 'https' });
    expect(prod.statusCode).toBe(404);

    const paid = await payOnPage(t, pagePath(o));
    expect(paid.statusCode).toBe(303);
    const used = await open(t, `${pagePath(o)}?lang=en`);
    expect(used.statusCode).toBe(410);
    expect(h1(used.body)).toBe('This payment has already been made');
    expect(used.body).toContain('href="https://shop.example/ok"');

    const e = await order();
    await a.api.post(`/order/${e.uuid}/expire`, {});
    const expired = await open(t, `${pagePath(e)}?lang=it`);
    expect(expired.statusCode).toBe(410);
    expect(h1(expired.body)).toBe('Questo link di pagamento è scaduto');
  });

  it('production pages over plain HTTP are an HTML 403 in the customer\'s language; over HTTPS they work', async () => {
    const p = await t.merchant({ env: 'production' });
    const o = await createOrder(p, { customer_ext_id: null });
    const plain = await open(t, `${pagePath(o, 'process', 'production')}?lang=pt`);
    expect(plain.statusCode).toBe(403);
    expect(plain.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(h1(plain.body)).toBe('É necessária uma ligação segura');
    const tls = await open(t, `${pagePath(o, 'process', 'production')}?lang=pt`, { 'x-forwarded-proto': 'https' });
    expect(tls.statusCode).toBe(200);
    expect(tls.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(tls.body).not.toContain('Modo de teste');
  });
});

describe('paying with the form (no JavaScript needed)', () => {
  it('an approved card: 303 to url_ok, the order is paid and the merchant is notified', async () => {
    const o = await order({ url_post: 'https://shop.example/notify' });
    const r = await payOnPage(t, pagePath(o));
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe('https://shop.example/ok');
    const row = await orderRow(o.uuid);
    expect(row).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(row.transactions).toHaveLength(1);
    expect(row.transactions[0]).toMatchObject({ operative: 'AUTHORIZATION', status: 'SUCCESS', source: null });
    const events = await t.p.database.db.selectFrom('events').select(['url', 'status']).where('order_id', '=', o.uuid).execute();
    expect(events).toEqual([{ url: 'https://shop.example/notify', status: 'PENDING' }]);
  });

  it('a refused card: 303 to url_ko; the page stays usable and says the last try was refused', async () => {
    const o = await order();
    const r = await payOnPage(t, `${pagePath(o)}?lang=en`, { number: TEST_CARDS.REFUSED });
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe('https://shop.example/ko');
    expect((await orderRow(o.uuid)).status).toBe('REFUSED');
    const again = await open(t, `${pagePath(o)}?lang=en`);
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain('Payment refused');
    const ok = await payOnPage(t, `${pagePath(o)}?lang=en`);
    expect(ok.headers.location).toBe('https://shop.example/ok');
  });

  it('without url_ok / url_ko the flow ends on the gateway\'s own result page', async () => {
    const o = await createOrder(a, { customer_ext_id: null });
    const r = await payOnPage(t, `${pagePath(o)}?lang=en`);
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe(`${pagePath(o)}?lang=en&result=ok`);
    const done = await open(t, r.headers.location as string);
    expect(done.statusCode).toBe(200);
    expect(h1(done.body)).toBe('Payment completed');
    const ko = await createOrder(a, { customer_ext_id: null });
    const refused = await payOnPage(t, `${pagePath(ko)}?lang=en`, { number: TEST_CARDS.REFUSED_VISA });
    expect(refused.headers.location).toBe(`${pagePath(ko)}?lang=en&result=ko`);
    expect((await open(t, refused.headers.location as string)).body).toContain('Payment refused');
  });

  it('the server checks the same rules as the page: errors are shown in the language, nothing is charged', async () => {
    const o = await order();
    const before = t.m.processors.simulator.callCount('authorize');
    const page = await open(t, `${pagePath(o)}?lang=en`);
    const r = await post(t, `${pagePath(o)}?lang=en`, { nonce: nonceOf(page.body), holder: 'Ana <script>', number: '4548 8120 4940 0005', expiry: '01/20', cvv: '12' });
    expect(r.statusCode).toBe(422);
    expect(r.body).toContain('The card number is not valid.');
    expect(r.body).toContain('The card has expired.');
    expect(r.body).toContain('The security code has 3 digits.');
    expect(r.body).toContain('value="Ana &lt;script&gt;"');
    expect(r.body).not.toContain('4548 8120 4940 0005');
    expect(t.m.processors.simulator.callCount('authorize')).toBe(before);
    expect((await orderRow(o.uuid)).transactions).toHaveLength(0);
    // the re-rendered form has a fresh nonce and pays
    const ok = await post(t, `${pagePath(o)}?lang=en`, { nonce: nonceOf(r.body), ...CARD });
    expect(ok.headers.location).toBe('https://shop.example/ok');
  });

  it('a forged, foreign or stale nonce is refused', async () => {
    const o = await order();
    const other = await order();
    const foreign = nonceOf((await open(t, pagePath(other))).body);
    const own = nonceOf((await open(t, pagePath(o))).body);
    // the page's own nonce with its last hex digit changed (a fixed suffix equals the real one now and then)
    const stale = `${own.slice(0, -1)}${own.endsWith('0') ? '1' : '0'}`;
    expect(stale).not.toBe(own);
    for (const nonce of ['', 'x.y.z', foreign, stale]) {
      const r = await post(t, `${pagePath(o)}?lang=en`, { nonce, ...CARD });
      expect(r.statusCode, nonce).toBe(400);
      expect(h1(r.body)).toBe('The request is not valid');
    }
    expect((await orderRow(o.uuid)).transactions).toHaveLength(0);
  });

  it('a double submit never charges twice: two concurrent posts of one form, one charge, both sent to url_ok', async () => {
    const o = await order();
    const page = await open(t, pagePath(o));
    const nonce = nonceOf(page.body);
    const before = t.m.processors.simulator.callCount('authorize');
    t.m.processors.simulator.latencyMs = 150;
    try {
      const [r1, r2] = await Promise.all([post(t, pagePath(o), { nonce, ...CARD }), post(t, pagePath(o), { nonce, ...CARD })]);
      expect([r1.statusCode, r2.statusCode]).toEqual([303, 303]);
      expect([r1.headers.location, r2.headers.location]).toEqual(['https://shop.example/ok', 'https://shop.example/ok']);
    } finally {
      t.m.processors.simulator.latencyMs = 0;
    }
    expect(t.m.processors.simulator.callCount('authorize') - before).toBe(1);
    expect((await orderRow(o.uuid)).transactions).toHaveLength(1);
    // a later repeat of the same post (reload) goes to the same place, still without paying
    const again = await post(t, pagePath(o), { nonce, ...CARD });
    expect(again.headers.location).toBe('https://shop.example/ok');
    expect(t.m.processors.simulator.callCount('authorize') - before).toBe(1);
  });

  it('two different forms of one order posted at once: the order lock lets only one charge through', async () => {
    const o = await order();
    const n1 = nonceOf((await open(t, pagePath(o))).body);
    const n2 = nonceOf((await open(t, pagePath(o))).body);
    t.m.processors.simulator.latencyMs = 100;
    try {
      const rs = await Promise.all([post(t, pagePath(o), { nonce: n1, ...CARD }), post(t, pagePath(o), { nonce: n2, ...CARD })]);
      expect(rs.map((r) => r.statusCode)).toEqual([303, 303]);
    } finally {
      t.m.processors.simulator.latencyMs = 0;
    }
    const row = await orderRow(o.uuid);
    expect(row.status).toBe('SUCCESS');
    expect(row.transactions.filter((x: any) => x.status === 'SUCCESS')).toHaveLength(1);
  });

  it('stores the card under the order\'s customer when there is one', async () => {
    const o = await createOrder(a, { ...SHOP, customer_ext_id: 'page-customer' });
    await payOnPage(t, pagePath(o));
    const row = await orderRow(o.uuid);
    expect(row.transactions[0].source).toMatchObject({ last4: '0004', holder: 'Ana Pérez', brand: 'VISA' });
  });

  it('after too many failed tries the page stops taking cards (410)', async () => {
    const o = await order();
    for (let i = 0; i < 10; i++) await payOnPage(t, pagePath(o), { number: TEST_CARDS.REFUSED });
    const r = await open(t, `${pagePath(o)}?lang=en`);
    expect(r.statusCode).toBe(410);
    expect(h1(r.body)).toBe('Too many attempts');
  });

  it('apm: BIZUM goes to the Bizum page when the service has it; other APMs are not available; junk is 400', async () => {
    const o = await order();
    const unavailable = await open(t, `${pagePath(o)}?apm=BIZUM&lang=en`);
    expect(unavailable.statusCode).toBe(400);
    expect(h1(unavailable.body)).toBe('Payment method not available');
    expect((await open(t, `${pagePath(o)}?apm=PAYPAL&lang=en`)).statusCode).toBe(400);
    expect((await open(t, `${pagePath(o)}?apm=<x>&lang=en`)).statusCode).toBe(400);
  });
});

describe('3D Secure', () => {
  async function challenge(url: string, result: 'approve' | 'fail', lang = 'en') {
    const page = await open(t, `${url}?lang=${lang}`);
    expect(page.statusCode, page.body).toBe(200);
    return { page, answer: await post(t, `${url}?lang=${lang}`, { nonce: nonceOf(page.body), result }) };
  }

  it('a secure order without a customer: PENDING_3DS_RESPONSE, the ACS challenge, approve, url_ok; threeds_data filled; the kept card is gone', async () => {
    const o = await order({ secure: true });
    const r = await payOnPage(t, `${pagePath(o)}?lang=en`, { number: TEST_CARDS.THREEDS_OK });
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe(`${pagePath(o, 'tokenized')}?lang=en`);
    expect((await orderRow(o.uuid)).status).toBe('PENDING_3DS_RESPONSE');
    const kept = await t.p.database.db.selectFrom('threeds_card_sessions').selectAll().where('order_id', '=', o.uuid).execute();
    expect(kept).toHaveLength(1);
    expect(kept[0].card_sealed).not.toContain(TEST_CARDS.THREEDS_OK);
    expect(kept[0].card_sealed).not.toContain('123');

    // the hosted page meanwhile says the payment waits for the bank
    const waiting = await open(t, `${pagePath(o)}?lang=en`);
    expect(h1(waiting.body)).toBe('Confirm the payment with your bank');

    const { page, answer } = await challenge(pagePath(o, 'tokenized'), 'approve');
    expect(h1(page.body)).toBe('3-D Secure authentication');
    expect(page.body).toContain('•••• 1011');
    expect(answer.statusCode).toBe(303);
    expect(answer.headers.location).toBe('https://shop.example/ok');
    const row = await orderRow(o.uuid);
    expect(row).toMatchObject({ status: 'SUCCESS', paid: true, safe: true });
    expect(row.threeds_data).toMatchObject({ version: '2.2.0', flow: 'CHALLENGE', sca_requested: true, status: 'Y', eci: '05' });
    expect(await t.p.database.db.selectFrom('threeds_card_sessions').selectAll().where('order_id', '=', o.uuid).execute()).toHaveLength(0);
    // the challenge cannot be answered twice
    expect((await open(t, `${pagePath(o, 'tokenized')}?lang=en`)).statusCode).toBe(410);
  });

  it('the cardholder fails the challenge: url_ko, REFUSED with AUTHENTICATION_FAILED, and the page can be tried again', async () => {
    const o = await order({ secure: true });
    await payOnPage(t, pagePath(o), { number: TEST_CARDS.THREEDS_OK });
    const { answer } = await challenge(pagePath(o, 'tokenized'), 'fail');
    expect(answer.headers.location).toBe('https://shop.example/ko');
    const row = await orderRow(o.uuid);
    expect(row.status).toBe('REFUSED');
    expect(row.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
    expect(row.threeds_data).toMatchObject({ flow: 'CHALLENGE', status: 'N', eci: '07' });
    expect((await open(t, pagePath(o))).statusCode).toBe(200);
  });

  it('the 3DS-fail card fails even when the challenge is approved', async () => {
    const o = await order({ secure: true });
    await payOnPage(t, pagePath(o), { number: TEST_CARDS.THREEDS_FAIL });
    const { answer } = await challenge(pagePath(o, 'tokenized'), 'approve');
    expect(answer.headers.location).toBe('https://shop.example/ko');
    expect((await orderRow(o.uuid)).transactions[0].error).toBe('AUTHENTICATION_FAILED');
  });

  it('a soft decline on a non-secure order goes through the challenge and is then approved', async () => {
    const o = await order({ secure: false });
    const r = await payOnPage(t, pagePath(o), { number: TEST_CARDS.SOFT_DECLINE });
    expect(r.headers.location).toBe(`${pagePath(o, 'tokenized')}?lang=es`);
    expect((await orderRow(o.uuid)).status).toBe('PENDING_3DS_RESPONSE');
    const { answer } = await challenge(pagePath(o, 'tokenized'), 'approve');
    expect(answer.headers.location).toBe('https://shop.example/ok');
    expect(await orderRow(o.uuid)).toMatchObject({ status: 'SUCCESS', safe: true });
  });

  it('a secure order with a customer keeps the card as a source and completes 3DS with it', async () => {
    const o = await createOrder(a, { ...SHOP, secure: true, customer_ext_id: 'cust-3ds' });
    await payOnPage(t, pagePath(o), { number: TEST_CARDS.THREEDS_OK });
    expect(await t.p.database.db.selectFrom('threeds_card_sessions').selectAll().where('order_id', '=', o.uuid).execute()).toHaveLength(0);
    const { answer } = await challenge(pagePath(o, 'tokenized'), 'approve');
    expect(answer.headers.location).toBe('https://shop.example/ok');
  });

  it('B7 after a WebService payment that answered 303: the same challenge page', async () => {
    const o = await createOrder(a, { ...SHOP, secure: true });
    const card = await storeCard(t, a, TEST_CARDS.THREEDS_OK);
    const r = await a.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card });
    expect(r.status).toBe(303);
    expect(r.headers.location).toBeUndefined();
    expect(r.body.details).toBe(o.urls['3ds_tokenized']);
    const { page, answer } = await challenge(pagePath(o, 'tokenized'), 'approve');
    expect(page.body).toContain('•••• 1011');
    expect(answer.headers.location).toBe('https://shop.example/ok');
  });

  it('B7 for an order created with a stored card: the page starts the payment with 3DS', async () => {
    const card = await storeCard(t, a, TEST_CARDS.APPROVED);
    const o = await createOrder(a, { ...SHOP, source_uuid: card });
    const { answer } = await challenge(pagePath(o, 'tokenized'), 'approve');
    expect(answer.headers.location).toBe('https://shop.example/ok');
    expect(await orderRow(o.uuid)).toMatchObject({ status: 'SUCCESS', safe: true });
    // without a stored card the tokenized page sends the customer to the card form
    const plain = await order();
    const r = await open(t, pagePath(plain, 'tokenized'));
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe(`${pagePath(plain)}?lang=es`);
  });

  it('a challenge left unanswered times out: the kept card is dropped and the order can be paid again', async () => {
    const o = await order({ secure: true });
    await payOnPage(t, pagePath(o), { number: TEST_CARDS.THREEDS_OK });
    await sql`update threeds_card_sessions set expires_at = now() - interval '1 minute' where order_id = ${o.uuid}`.execute(t.p.database.db);
    expect(await t.m.payments.expireKeptCardChallenges()).toBe(1);
    const row = await orderRow(o.uuid);
    expect(row.status).toBe('REFUSED');
    expect(row.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
    expect(await t.p.database.db.selectFrom('threeds_card_sessions').selectAll().where('order_id', '=', o.uuid).execute()).toHaveLength(0);
    expect((await payOnPage(t, pagePath(o), { number: TEST_CARDS.THREEDS_OK })).headers.location).toBe(`${pagePath(o, 'tokenized')}?lang=es`);
  });
});
