/**
 * Checkout.com in production against its simulator, beyond the conformance scenarios: 3-D Secure 2
 * through Checkout.com's authentication page driven by the hosted page (a soft decline, the page, the
 * cardholder back with cko-session-id, one approved payment), and webhooks: a forged one (another key),
 * a replayed one (the same event id), reordered ones (a capture's decision before its authorization's
 * event) and a late one for a settled payment: recorded, never applied twice. PostgreSQL only
 * (the conformance suite covers the connector there; these add no engine-specific behaviour).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { storeCard } from '../helpers/payments.js';
import { CHECKOUT_ACCOUNT, checkoutHarness, luhnCard } from '../helpers/connectors.js';
import { CHECKOUT_SIM_CARDS } from '../../src/processors/checkout/simulator/rules.js';

const HTTPS = { 'x-forwarded-proto': 'https' };
const FORM = { ...HTTPS, 'content-type': 'application/x-www-form-urlencoded' };
const WEBHOOK = '/v1/processor/checkout/webhook';

describe.skipIf(process.env.PAYGATE_TEST_DB !== 'postgres')('Checkout.com connector', () => {
  const h = checkoutHarness();
  let t: TestApp;
  let m: TestMerchant;
  let n = 0;

  beforeAll(async () => {
    await h.start();
    t = await createTestApp(h.env());
    m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
  });
  afterAll(async () => {
    await t?.close();
    await h.close();
  });

  const attr = (body: string, re: RegExp) => {
    const v = re.exec(body)?.[1];
    if (v === undefined) throw new Error(`not in the page: ${re}\n${body.slice(0, 2000)}`);
    return v.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#x2F;/g, '/');
  };
  const order = async (uuid: string) => (await m.api.get(`/order/${uuid}`)).body.order;
  const deliver = async (body: string, signature: string) => {
    const r = await t.app.inject({ method: 'POST', url: WEBHOOK, headers: { ...HTTPS, 'content-type': 'application/json', 'cko-signature': signature }, payload: body });
    expect(r.statusCode).toBe(200);
    return r.body.replace(/^[\s\S]*<\/title>/, '').trim();
  };
  const sign = (body: string, key = CHECKOUT_ACCOUNT.webhookKey) => createHmac('sha256', key).update(body).digest('hex');
  const events = async (reference: string) => (await t.p.database.db.selectFrom('checkout_webhook_events').selectAll().where('reference', '=', reference).execute());

  it('production CHECKOUT and PAYPAL terminals need their connector\'s credentials, in their formats (400 naming what is wrong); test_credentials asks Checkout.com', async () => {
    const bad = await m.api.post('/terminal', { currency_code: 'EUR', type: 'CHECKOUT', description: 'c', credentials: { secret_key: 'pk_test', processing_channel_id: 'pc_1' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toMatch(/webhook_signature_key/);
    expect(bad.body.details).toMatch(/secret_key must be a Checkout.com secret key/);
    const paypal = await m.api.post('/terminal', { currency_code: 'EUR', type: 'PAYPAL', description: 'p', credentials: { client_id: 'AbCdEfGhIjKlMnOpQr', client_secret: 's' } });
    expect(paypal.status).toBe(400);
    expect(paypal.body.details).toMatch(/missing: webhook_id/);
    expect((await m.api.post('/terminal', { currency_code: 'EUR', type: 'CHECKOUT', description: 'c', credentials: h.terminal.credentials })).status).toBe(200);
    // tested against Checkout.com without moving money (test_credentials)
    const calls = h.paymentCalls();
    expect((await m.api.post('/terminal', { currency_code: 'EUR', type: 'CHECKOUT', description: 'c', credentials: h.terminal.credentials, test_credentials: true })).status).toBe(200);
    const wrong = await m.api.post('/terminal', { currency_code: 'EUR', type: 'CHECKOUT', description: 'c', credentials: { ...h.terminal.credentials, secret_key: 'sk_sbox_wrongwrongwrong' }, test_credentials: true });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toMatch(/secret_key was refused by Checkout.com/);
    expect(h.paymentCalls()).toBe(calls);
  });

  it('a soft decline goes through Checkout.com\'s 3-D Secure page from the hosted page: back with cko-session-id, approved once', async () => {
    const c = `c3ds-${++n}`;
    const source = await storeCard(t, m, CHECKOUT_SIM_CARDS.SOFT_DECLINE, c);
    const created = (await m.api.post('/payment', { amount: 1800, operative: 'AUTHORIZATION', secure: false, description: 'soft', service: m.service_uuid, customer_ext_id: c, url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' })).body.order;
    const r = await m.api.post('/payment/direct', { order_uuid: created.uuid, card_uuid: source });
    expect(r.status, r.raw).toBe(303);
    const tokenized = `/v1/payment/tokenized/${created.token}`;
    const page = await t.app.inject({ method: 'GET', url: tokenized, headers: HTTPS });
    expect(page.statusCode, page.body.slice(0, 500)).toBe(200);
    const browser = { nonce: attr(page.body, /name="nonce" value="([^"]+)"/), method: 'U', js: 'true', java: 'false', language: 'en-GB', color_depth: '24', screen_height: '900', screen_width: '1440', tz: '0' };
    const auth = await t.app.inject({ method: 'POST', url: `${tokenized}/authenticate`, headers: FORM, payload: new URLSearchParams(browser).toString() });
    // our page posts to Checkout.com's authentication page
    expect(auth.statusCode, String(auth.headers.location)).toBe(200);
    const acs = attr(auth.body, /<form method="post" action="([^"]+)" id="threeds-acs">/);
    expect(acs).toMatch(new RegExp(`^${h.sim.url}/sim/3ds/pay_`));
    const shown = await fetch(acs, { method: 'POST', body: new URLSearchParams({ creq: attr(auth.body, /name="creq" value="([^"]+)"/) }) });
    expect(await shown.text()).toContain('id="pass"');
    const back = await fetch(acs, { method: 'POST', body: new URLSearchParams({ result: 'Y' }), redirect: 'manual' });
    const location = new URL(String(back.headers.get('location')));
    expect(location.pathname).toBe(`${tokenized}/cres`);
    expect(location.searchParams.get('cko-session-id')).toMatch(/^sid_/);
    const final = await t.app.inject({ method: 'GET', url: `${location.pathname}${location.search}`, headers: HTTPS });
    expect(final.statusCode).toBe(303);
    expect(final.headers.location).toBe('https://shop.example/ok');
    const after = await order(created.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    // the soft-declined attempt, then the authenticated payment: Checkout.com holds one approved payment for it
    const paid = h.sim.payment(after.transactions.at(-1).processor_id);
    expect(paid).toMatchObject({ approved: true, amount: 1800, status: 'Captured' });
    // back again with the same session: nothing more happens
    const again = await t.app.inject({ method: 'GET', url: `${location.pathname}${location.search}`, headers: HTTPS });
    expect(again.statusCode).toBeLessThan(500);
    expect((await order(created.uuid)).transactions).toHaveLength(after.transactions.length);
  });

  it('a forged webhook (signed with another key, or unsigned) changes nothing and is not recorded', async () => {
    h.webhooks!.deliverTo(null);
    const before = h.webhooks!.sent().length;
    h.fault('webhook-only');
    const o = (await m.api.post('/payment/single-step', { amount: 700, operative: 'AUTHORIZATION', secure: false, description: 'forged', service: m.service_uuid, customer_ext_id: `cf-${++n}`, card_holder: 'Ana', card_pan: luhnCard('42424243', n), card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' })).body.order;
    expect(o.status).toBe('PENDING_PROCESSOR_RESPONSE');
    const hook = h.webhooks!.sent()[before];
    expect(await deliver(hook.body, sign(hook.body, 'another-key-0123456789abcdef'))).toBe('ignored');
    expect(await deliver(hook.body, '')).toBe('ignored');
    expect(await events(o.transactions[0].uuid)).toHaveLength(0);
    expect((await order(o.uuid)).status).toBe('PENDING_PROCESSOR_RESPONSE');
    expect(await deliver(hook.body, hook.headers['cko-signature'])).toBe('settled');
    expect((await order(o.uuid)).status).toBe('SUCCESS');
  });

  it('replayed, reordered and late webhooks: each recorded once, none applied twice', async () => {
    h.webhooks!.deliverTo(null);
    const before = h.webhooks!.sent().length;
    const pre = (await m.api.post('/payment/single-step', { amount: 1000, operative: 'DEFERRED', secure: false, description: 'late', service: m.service_uuid, customer_ext_id: `cl-${++n}`, card_holder: 'Ana', card_pan: luhnCard('42424244', n), card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' })).body.order;
    // the capture is accepted (202) and decided later: PENDING until its webhook
    const accepted = (await m.api.post('/payment/confirmation', { order_uuid: pre.uuid, amount: 600 })).body.order;
    expect(accepted).toMatchObject({ status: 'PENDING_CONFIRMATION' });
    expect(accepted.transactions.at(-1)).toMatchObject({ operative: 'CONFIRMATION', status: 'PENDING' });
    await h.sim.settled();
    const [approved, captured] = h.webhooks!.sent().slice(before);
    expect(JSON.parse(approved.body).type).toBe('payment_approved');
    expect(JSON.parse(captured.body).type).toBe('payment_captured');
    // reordered: the capture's decision arrives before the authorization's event, and settles the capture
    expect(await deliver(captured.body, captured.headers['cko-signature'])).toBe('settled');
    const settled = await order(pre.uuid);
    expect(settled).toMatchObject({ status: 'SUCCESS' });
    expect(settled.transactions.at(-1)).toMatchObject({ operative: 'CONFIRMATION', status: 'SUCCESS', amount: 600 });
    // late: the authorization was settled by its answer
    expect(await deliver(approved.body, approved.headers['cko-signature'])).toBe('already-settled');
    // replayed: recognised by their event ids
    expect(await deliver(approved.body, approved.headers['cko-signature'])).toBe('ignored');
    expect(await deliver(captured.body, captured.headers['cko-signature'])).toBe('ignored');
    expect(await order(pre.uuid)).toEqual(settled);
    const recorded = [...(await events(settled.transactions[0].uuid)), ...(await events(settled.transactions[1].uuid))];
    expect(recorded.map((e) => [e.type, e.outcome]).sort()).toEqual([['payment_approved', 'APPROVED'], ['payment_captured', 'APPROVED']]);
  });
});
