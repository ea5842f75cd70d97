/**
 * Dynamic currency conversion on the hosted page (docs/dcc.md), over HTTP as a browser without
 * JavaScript posts the forms: a card in another currency than the order's gets the offer screen; the
 * cardholder accepts or declines; the order is charged in its own currency with the choice recorded on
 * the order and its transaction, in the notification and under validation_hash; no offer when the card,
 * the service or the order do not qualify; a lapsed offer; repeated posts; what is (not) stored.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toWireJson } from '../../src/platform/http/json.js';
import { SANDBOX_DCC_CARDS, TEST_CARDS, type PaymentRequest } from '../../src/processors/index.js';
import { purgeOffers } from '../../src/modules/dcc/dcc.repo.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { recordKnownPans } from '../helpers/capture.js';
import { createOrder } from '../helpers/payments.js';
import { CARD, h1, nonceOf, open, pagePath, post } from '../helpers/pages.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let t: TestApp;
let a: TestMerchant;
let rx: Receiver;
/** What the simulated processor was asked to authorize. */
const authorized: PaymentRequest[] = [];

const SHOP = { url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko', customer_ext_id: null };
const spaced = (pan: string) => pan.replace(/(\d{4})(?=\d)/g, '$1 ');

beforeAll(async () => {
  t = await createTestApp();
  rx = await startReceiver();
  a = await t.merchant({ name: 'Tienda Sol' });
  const r = await a.api.put(`/service/${a.service_uuid}`, { is_dcc_allowed: true });
  expect(r.status, r.raw).toBe(200);
  expect(r.body.service).toMatchObject({ dcc_allowed: true, dcc_mode: 'DYNAMIC' });
  recordKnownPans(Object.values(SANDBOX_DCC_CARDS));
  const sim = t.m.processors.simulator;
  const original = sim.authorize.bind(sim);
  sim.authorize = async (req) => {
    authorized.push(req);
    return original(req);
  };
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

/** Posts a card on the order's hosted page (a browser without JavaScript). */
async function postCard(o: { token: string }, pan: string, lang = 'en') {
  const url = `${pagePath(o)}?lang=${lang}`;
  const page = await open(t, url);
  expect(page.statusCode, page.body).toBe(200);
  return post(t, url, { nonce: nonceOf(page.body), ...CARD, number: spaced(pan) });
}

/** Posts a card and expects the offer screen; returns its URL and HTML. */
async function offerFor(o: { token: string }, pan: string, lang = 'en') {
  const r = await postCard(o, pan, lang);
  expect(r.statusCode, r.body).toBe(303);
  const location = String(r.headers.location);
  expect(location).toMatch(new RegExp(`^/v1/sandbox/payment/dcc/${o.token}\\?offer=[0-9a-f-]{36}&lang=${lang}$`));
  const page = await open(t, location);
  expect(page.statusCode, page.body).toBe(200);
  return { location, page, offer: /name="offer" value="([^"]+)"/.exec(page.body)![1] };
}

async function choose(location: string, html: string, choice: 'accept' | 'decline', offer?: string) {
  return post(t, location, { nonce: nonceOf(html), offer: offer ?? /name="offer" value="([^"]+)"/.exec(html)![1], choice });
}

const order = async (m: TestMerchant, uuid: string) => (await m.api.get(`/order/${uuid}`)).body.order;

/** A merchant whose service offers DCC (its own antifraud velocity counts: the tests reuse the cards). */
async function dccMerchant(mode?: string) {
  const m = await t.merchant();
  const r = await m.api.put(`/service/${m.service_uuid}`, { is_dcc_allowed: true, ...(mode ? { dcc_mode: mode } : {}) });
  expect(r.status, r.raw).toBe(200);
  return m;
}

describe('the offer', () => {
  it('accepted: charged in the order currency with the conversion recorded on the order, the transaction, the notification and the hash', async () => {
    const o = await createOrder(a, { ...SHOP, amount: 1050, url_post: `${rx.url}/dcc-1` });
    const verifications = t.m.processors.simulator.callCount('verifyCard');
    const { location, page } = await offerFor(o, SANDBOX_DCC_CARDS.USD);
    // the card and its security code were checked when the offer was made; nothing is charged yet
    expect(t.m.processors.simulator.callCount('verifyCard')).toBe(verifications + 1);
    expect(await order(a, o.uuid)).toMatchObject({ status: 'CREATED', transactions: [], dcc: null });
    expect(h1(page.body)).toBe('Choose the currency to pay in');
    expect(page.body).toContain('data-first="order"');
    expect(page.body).toContain('€10.50');
    expect(page.body).toContain('US$11.79');
    expect(page.body).toContain('1 EUR = 1.122975 USD');
    expect(page.body).toContain('3.50%');
    expect(page.body).toContain('•••• 0006');
    expect(page.body).toContain('SANDBOX');
    expect(page.body).not.toContain(SANDBOX_DCC_CARDS.USD.slice(6, 12));
    // both choices are buttons of one form: accept (the card's currency) and decline (the order's)
    expect(page.body).toMatch(/<button type="submit" name="choice" value="decline" class="dcc-option" data-currency="EUR">.*<button type="submit" name="choice" value="accept" class="dcc-option" data-currency="USD">/s);

    authorized.length = 0;
    const done = await choose(location, page.body, 'accept');
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('https://shop.example/ok');
    const dcc = { offered: true, accepted: true, cardholder_currency: '840', cardholder_amount: 1179, rate: '1.122975', markup: '3.50', source: 'SANDBOX' };
    const read = await a.api.get(`/order/${o.uuid}`);
    expect(read.body.order).toMatchObject({ status: 'SUCCESS', paid: true, amount: 1050, currency: '978', dcc });
    expect(Date.parse(read.body.order.dcc.timestamp)).toBeGreaterThan(0);
    expect(read.body.order.transactions).toHaveLength(1);
    expect(read.body.order.transactions[0]).toMatchObject({ status: 'SUCCESS', amount: 1050, dcc });
    // the processor was asked for the order's amount, with the conversion and without the security code
    expect(authorized).toHaveLength(1);
    expect(authorized[0]).toMatchObject({ amount: 1050, currency: 'EUR', dcc: { accepted: true, currency: 'USD', amount: 1179, rate: '1.122975', markup: '3.50', source: 'SANDBOX' } });
    expect(authorized[0].card.cvv ?? null).toBeNull();
    // notified with the conversion, under a validation_hash that covers it
    await t.p.jobs.drain();
    const hook = rx.received.find((x) => x.path === '/dcc-1')!;
    const body = JSON.parse(hook.body);
    expect(body.order.dcc).toEqual(read.body.order.dcc);
    const hashed = createHash('sha256').update(toWireJson({ order: body.order, client: body.client }) + a.signature).digest('hex');
    expect(body.validation_hash).toBe(hashed);
    expect(read.body.validation_hash).toBe(createHash('sha256').update(toWireJson({ order: read.body.order, client: read.body.client }) + a.signature).digest('hex'));
  });

  it('declined: charged in the order currency, recorded as declined', async () => {
    const m = await dccMerchant();
    const o = await createOrder(m, { ...SHOP, amount: 2000 });
    const { location, page } = await offerFor(o, SANDBOX_DCC_CARDS.GBP, 'es');
    expect(h1(page.body)).toBe('Elige la moneda de pago');
    expect(page.body).toContain('libra esterlina');
    authorized.length = 0;
    const done = await choose(location, page.body, 'decline');
    expect(done.headers.location).toBe('https://shop.example/ok');
    const got = await order(m, o.uuid);
    expect(got).toMatchObject({ status: 'SUCCESS', amount: 2000, dcc: { offered: true, accepted: false, cardholder_currency: '826', cardholder_amount: 1749, source: 'SANDBOX' } });
    expect(authorized[0]).toMatchObject({ amount: 2000, currency: 'EUR', dcc: { accepted: false, currency: 'GBP' } });
  });

  it('currencies with other minor units: yen (no decimals) and dinars (three)', async () => {
    const m = await dccMerchant();
    const yen = await createOrder(m, { ...SHOP, amount: 1050 });
    const y = await offerFor(yen, SANDBOX_DCC_CARDS.JPY);
    expect(y.page.body).toContain('JP¥1,766');
    await choose(y.location, y.page.body, 'accept');
    expect((await order(m, yen.uuid)).dcc).toMatchObject({ cardholder_currency: '392', cardholder_amount: 1766 });
    const kwd = await createOrder(m, { ...SHOP, amount: 1050 });
    const k = await offerFor(kwd, SANDBOX_DCC_CARDS.KWD);
    await choose(k.location, k.page.body, 'accept');
    expect((await order(m, kwd.uuid)).dcc).toMatchObject({ cardholder_currency: '414', cardholder_amount: 3619 });
  });

  it('a DEFERRED order gets the offer; the hold and its confirmation stay in the order currency', async () => {
    const m = await dccMerchant();
    const o = await createOrder(m, { ...SHOP, operative: 'DEFERRED', amount: 5000 });
    const { location, page } = await offerFor(o, SANDBOX_DCC_CARDS.CHF);
    await choose(location, page.body, 'accept');
    expect(await order(m, o.uuid)).toMatchObject({ status: 'PENDING_CONFIRMATION', dcc: { accepted: true, cardholder_currency: '756' } });
    const confirmed = await m.api.post('/payment/confirmation', { order_uuid: o.uuid });
    expect(confirmed.status, confirmed.raw).toBe(200);
    expect(confirmed.body.order).toMatchObject({ status: 'SUCCESS', dcc: { accepted: true } });
    expect(confirmed.body.order.transactions.map((x: any) => [x.operative, x.dcc === null])).toEqual([['DEFERRED', false], ['CONFIRMATION', true]]);
  });

  it('a secure order: the choice, then 3-D Secure, then the payment with the conversion', async () => {
    const m = await dccMerchant();
    const o = await createOrder(m, { ...SHOP, secure: true });
    const { location, page } = await offerFor(o, SANDBOX_DCC_CARDS.USD);
    const to3ds = await choose(location, page.body, 'accept');
    expect(to3ds.headers.location).toBe(`/v1/sandbox/payment/tokenized/${o.token}?lang=en`);
    expect((await order(m, o.uuid)).status).toBe('PENDING_3DS_RESPONSE');
    const acs = await open(t, String(to3ds.headers.location));
    authorized.length = 0;
    const done = await post(t, String(to3ds.headers.location), { nonce: nonceOf(acs.body), result: 'approve' });
    expect(done.headers.location).toBe('https://shop.example/ok');
    expect(await order(m, o.uuid)).toMatchObject({ status: 'SUCCESS', safe: true, dcc: { accepted: true, cardholder_currency: '840' } });
    expect(authorized[0].dcc).toMatchObject({ accepted: true, currency: 'USD' });
  });

  it('the card is kept sealed only while the cardholder chooses', async () => {
    const m = await dccMerchant();
    const o = await createOrder(m, SHOP);
    const { location, page } = await offerFor(o, SANDBOX_DCC_CARDS.USD);
    const rows = await t.p.database.db.selectFrom('dcc_offers').selectAll().where('order_id', '=', o.uuid).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(SANDBOX_DCC_CARDS.USD);
    expect(rows[0]).toMatchObject({ card_last4: '0006', currency: 'EUR', cardholder_currency: 'USD' });
    expect(Object.keys(rows[0]).some((k) => /cvv|cvc|security/i.test(k))).toBe(false);
    await choose(location, page.body, 'decline');
    expect(await t.p.database.db.selectFrom('dcc_offers').selectAll().where('order_id', '=', o.uuid).execute()).toHaveLength(0);
    // offers nobody chose are purged with their card
    const other = await createOrder(m, SHOP);
    await offerFor(other, SANDBOX_DCC_CARDS.GBP);
    expect(await purgeOffers(t.p.database.db, new Date(Date.now() + 3600_000))).toBeGreaterThanOrEqual(1);
    expect(await t.p.database.db.selectFrom('dcc_offers').selectAll().where('order_id', '=', other.uuid).execute()).toHaveLength(0);
  });
});

describe('when no offer is made', () => {
  it('a card in the order currency, a card of unknown country, a service without DCC or in LOCAL mode: paid at once', async () => {
    const m = await dccMerchant();
    for (const pan of [SANDBOX_DCC_CARDS.EUR, TEST_CARDS.APPROVED]) {
      const o = await createOrder(m, SHOP);
      const r = await postCard(o, pan);
      expect(r.headers.location, pan.slice(-4)).toBe('https://shop.example/ok');
      expect(await order(m, o.uuid)).toMatchObject({ status: 'SUCCESS', dcc: null });
    }
    const plain = await t.merchant();
    const o1 = await createOrder(plain, SHOP);
    expect((await postCard(o1, SANDBOX_DCC_CARDS.USD)).headers.location).toBe('https://shop.example/ok');
    const local = await t.merchant();
    expect((await local.api.put(`/service/${local.service_uuid}`, { is_dcc_allowed: true, dcc_mode: 'LOCAL' })).body.service.dcc_mode).toBe('LOCAL');
    const o2 = await createOrder(local, SHOP);
    expect((await postCard(o2, SANDBOX_DCC_CARDS.USD)).headers.location).toBe('https://shop.example/ok');
    expect(await order(local, o2.uuid)).toMatchObject({ status: 'SUCCESS', dcc: null });
    expect(await order(local, o2.uuid).then((x) => x.transactions[0].dcc)).toBeNull();
  });

  it('a card that fails the verification gets no offer: it is charged as usual (and the processor answers)', async () => {
    const m = await dccMerchant();
    const o = await createOrder(m, SHOP);
    t.m.processors.simulator.injectFault({ operation: 'verifyCard', kind: 'decline', error: 'DENIED' });
    const r = await postCard(o, SANDBOX_DCC_CARDS.USD);
    expect(r.headers.location).toBe('https://shop.example/ok');
    expect(await order(m, o.uuid)).toMatchObject({ status: 'SUCCESS', dcc: null });
  });

  it('PARTIAL_AUTHORIZATION orders and payments through the API get none', async () => {
    const m = await dccMerchant();
    const o = await createOrder(m, { ...SHOP, operative: 'PARTIAL_AUTHORIZATION' });
    expect((await postCard(o, SANDBOX_DCC_CARDS.USD)).headers.location).toBe('https://shop.example/ok');
    const pci = await t.merchant({ isPci: true });
    await pci.api.put(`/service/${pci.service_uuid}`, { is_dcc_allowed: true });
    const single = await pci.api.post('/payment/single-step', {
      amount: 500, operative: 'AUTHORIZATION', secure: false, description: 'x', service: pci.service_uuid, customer_ext_id: 'c-1',
      card_holder: 'Ana', card_pan: SANDBOX_DCC_CARDS.USD, card_expiry_month: 12, card_expiry_year: 2030, card_cvv: '123',
    });
    expect(single.status, single.raw).toBe(200);
    expect(single.body.order).toMatchObject({ status: 'SUCCESS', dcc: null });
  });
});

describe('modes, templates and languages', () => {
  it('FOREIGN shows the card currency first; the DCC template styles the screen', async () => {
    const m = await t.merchant();
    await m.api.put(`/service/${m.service_uuid}`, { is_dcc_allowed: true, dcc_mode: 'FOREIGN' });
    const tpl = (await m.api.post('/template', { name: 'dcc green', type: 'DCC', button_color: '#0B7A3B' })).body.template;
    const o = await createOrder(m, { ...SHOP, dcc_template_uuid: tpl.uuid });
    const { page } = await offerFor(o, SANDBOX_DCC_CARDS.USD);
    expect(page.body).toContain('data-first="card"');
    expect(page.body).toMatch(/value="accept" class="dcc-option" data-currency="USD">.*value="decline" class="dcc-option" data-currency="EUR">/s);
    expect(page.body).toContain('--accent:#0B7A3B');
    // the card page keeps the payment-card template
    expect((await open(t, pagePath(o))).body).not.toContain('--accent:#0B7A3B');
  });

  it('the screen in each of the 14 languages, with its language menu keeping the offer', async () => {
    const m = await dccMerchant();
    const o = await createOrder(m, SHOP);
    const { location, page } = await offerFor(o, SANDBOX_DCC_CARDS.USD, 'de');
    expect(h1(page.body)).toBe('Wählen Sie die Zahlungswährung');
    const offer = /offer=([0-9a-f-]{36})/.exec(location)![1];
    for (const lang of ['es', 'en', 'ca', 'eu', 'gl', 'pt', 'fr', 'de', 'it', 'nl', 'pl', 'ro', 'sv', 'da']) {
      expect(page.body).toContain(`/v1/sandbox/payment/dcc/${o.token}?offer=${offer}&amp;lang=${lang}`);
      const p = await open(t, `/v1/sandbox/payment/dcc/${o.token}?offer=${offer}&lang=${lang}`);
      expect(p.statusCode, lang).toBe(200);
      expect(p.body, lang).not.toMatch(/\bdcc\.[a-z_.]+\b/);
    }
  });
});

describe('lapsed offers, repeated posts, bad input', () => {
  it('an offer is valid 10 minutes on the merchant clock; after that the cardholder enters the card again', async () => {
    const m = await t.merchant();
    await m.api.put(`/service/${m.service_uuid}`, { is_dcc_allowed: true });
    const o = await createOrder(m, { ...SHOP, expires_in: 3600 });
    const { location, page } = await offerFor(o, SANDBOX_DCC_CARDS.USD);
    expect((await m.api.post('/test-clock', { advance_seconds: 601 })).status).toBe(200);
    const lapsed = await open(t, location);
    expect(lapsed.statusCode).toBe(410);
    expect(h1(lapsed.body)).toBe('The currency offer has expired');
    const r = await choose(location, page.body, 'accept');
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe(location);
    expect(await order(m, o.uuid)).toMatchObject({ status: 'CREATED', transactions: [], dcc: null });
    // the card page still pays (with a new offer)
    const again = await offerFor(o, SANDBOX_DCC_CARDS.USD);
    expect((await choose(again.location, again.page.body, 'decline')).headers.location).toBe('https://shop.example/ok');
  });

  it('a repeated post pays once and ends where the first ended; a second form of the same offer finds it gone', async () => {
    const m = await dccMerchant();
    const o = await createOrder(m, SHOP);
    const { location, page } = await offerFor(o, SANDBOX_DCC_CARDS.USD);
    const second = await open(t, location);
    const [r1, r2] = await Promise.all([choose(location, page.body, 'accept'), choose(location, page.body, 'accept')]);
    expect(r1.headers.location).toBe('https://shop.example/ok');
    expect(r2.headers.location).toBe('https://shop.example/ok');
    const other = await choose(location, second.body, 'decline');
    expect(other.statusCode).toBe(303);
    const got = await order(m, o.uuid);
    expect(got.transactions).toHaveLength(1);
    expect(got.dcc.accepted).toBe(true);
  });

  it('a later attempt without a conversion clears the order\'s (the refused attempt keeps its own)', async () => {
    const m = await dccMerchant();
    const o = await createOrder(m, SHOP);
    const { location, page } = await offerFor(o, SANDBOX_DCC_CARDS.USD);
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'decline', error: 'DENIED' });
    expect((await choose(location, page.body, 'accept')).headers.location).toBe('https://shop.example/ko');
    expect(await order(m, o.uuid)).toMatchObject({ status: 'REFUSED', dcc: { accepted: true } });
    expect((await postCard(o, SANDBOX_DCC_CARDS.EUR)).headers.location).toBe('https://shop.example/ok');
    const got = await order(m, o.uuid);
    expect(got).toMatchObject({ status: 'SUCCESS', dcc: null });
    expect(got.transactions.map((x: any) => [x.status, x.dcc?.accepted ?? null])).toEqual([['REFUSED', true], ['SUCCESS', null]]);
  });

  it('bad forms are 4xx pages and change nothing', async () => {
    const m = await dccMerchant();
    const o = await createOrder(m, SHOP);
    const { location, page, offer } = await offerFor(o, SANDBOX_DCC_CARDS.USD);
    expect((await post(t, location, { nonce: 'forged', offer, choice: 'accept' })).statusCode).toBe(400);
    expect((await post(t, location, { nonce: nonceOf(page.body), offer, choice: 'maybe' })).statusCode).toBe(400);
    expect((await post(t, location, { nonce: nonceOf((await open(t, location)).body), choice: 'accept' })).statusCode).toBe(400);
    const unknown = await post(t, location, { nonce: nonceOf((await open(t, location)).body), offer: '00000000-0000-4000-8000-000000000000', choice: 'accept' });
    expect(unknown.statusCode).toBe(303);
    expect((await open(t, String(unknown.headers.location))).statusCode).toBe(410);
    expect((await open(t, `/v1/sandbox/payment/dcc/${o.token}`)).statusCode).toBe(410);
    expect((await open(t, `/v1/sandbox/payment/dcc/${'0'.repeat(40)}?offer=${offer}`)).statusCode).toBe(404);
    expect(await order(m, o.uuid)).toMatchObject({ status: 'CREATED', transactions: [] });
    // the offer is still there to choose
    expect((await open(t, location)).statusCode).toBe(200);
  });
});

describe('service settings', () => {
  it('DCC settings are for the REDSYS family; allowing it without a mode means DYNAMIC', async () => {
    const m = await t.merchant();
    const credorax = (await m.api.post('/service', { name: 'c', type: 'CREDORAX' })).body.service;
    expect((await m.api.put(`/service/${credorax.uuid}`, { is_dcc_allowed: true })).status).toBe(400);
    expect((await m.api.put(`/service/${m.service_uuid}`, { dcc_mode: 'SOMETIMES' })).status).toBe(400);
    const created = await m.api.post('/service', { name: 'r', type: 'REDSYSPSD2', is_dcc_allowed: true });
    expect(created.body.service).toMatchObject({ dcc_allowed: true, dcc_mode: 'DYNAMIC' });
    const off = await m.api.put(`/service/${m.service_uuid}`, { is_dcc_allowed: false });
    expect(off.body.service.dcc_allowed).toBe(false);
  });
});
