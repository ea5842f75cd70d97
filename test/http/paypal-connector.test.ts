/**
 * PayPal in production against its simulator, beyond the conformance scenarios: a card's soft decline
 * authenticated on PayPal's 3-D Secure page from the hosted page (the order's payer-action link with
 * redirect_uri; back with the order's token), a buyer's PayPal
 * account by redirect (the PAYPAL APM: the order's approval page, PayPal's CHECKOUT.ORDER.APPROVED
 * webhook, the capture, SUCCESS once), and webhooks that PayPal's verification call does not confirm
 * (altered, or sent for another webhook id), replayed and late ones: recorded once, never applied
 * twice. PostgreSQL only, like the connector's conformance run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { storeCard } from '../helpers/payments.js';
import { luhnCard, paypalHarness, type WebhookDelivery } from '../helpers/connectors.js';
import { PAYPAL_SIM_CARDS } from '../../src/processors/paypal/simulator/rules.js';

const HTTPS = { 'x-forwarded-proto': 'https' };

describe.skipIf(process.env.PAYGATE_TEST_DB !== 'postgres')('PayPal connector', () => {
  const h = paypalHarness();
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

  const order = async (uuid: string) => (await m.api.get(`/order/${uuid}`)).body.order;
  const deliver = async (d: WebhookDelivery) => {
    const r = await t.app.inject({ method: 'POST', url: d.path, headers: d.headers, payload: d.body });
    expect(r.statusCode).toBe(200);
    return r.body.replace(/^[\s\S]*<\/title>/, '').trim();
  };
  const events = (reference: string) => t.p.database.db.selectFrom('paypal_webhook_events').selectAll().where('reference', '=', reference).execute();

  it('test_credentials asks PayPal for the app\'s token: accepted, or refused naming why', async () => {
    expect((await m.api.post('/terminal', { currency_code: 'EUR', type: 'PAYPAL', description: 'p', credentials: h.terminal.credentials, test_credentials: true })).status).toBe(200);
    const wrong = await m.api.post('/terminal', { currency_code: 'EUR', type: 'PAYPAL', description: 'p', credentials: { ...h.terminal.credentials, client_secret: 'not-the-secret' }, test_credentials: true });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toMatch(/PayPal refused the client id and secret/);
  });

  it('a card PayPal asks 3-D Secure for: the 3DS page, PayPal\'s authentication page, back with the order\'s token, captured once', async () => {
    const attr = (body: string, re: RegExp) => (re.exec(body)?.[1] ?? '').replace(/&amp;/g, '&').replace(/&#x2F;/g, '/');
    const c = `p3ds-${++n}`;
    const source = await storeCard(t, m, PAYPAL_SIM_CARDS.SOFT_DECLINE, c);
    const created = (await m.api.post('/payment', { amount: 1500, operative: 'AUTHORIZATION', secure: false, description: 'soft', service: m.service_uuid, customer_ext_id: c, url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' })).body.order;
    expect((await m.api.post('/payment/direct', { order_uuid: created.uuid, card_uuid: source })).status).toBe(303);
    const tokenized = `/v1/payment/tokenized/${created.token}`;
    const page = await t.app.inject({ method: 'GET', url: tokenized, headers: HTTPS });
    const browser = { nonce: attr(page.body, /name="nonce" value="([^"]+)"/), method: 'U', js: 'true', java: 'false', language: 'en-GB', color_depth: '24', screen_height: '900', screen_width: '1440', tz: '0' };
    const auth = await t.app.inject({ method: 'POST', url: `${tokenized}/authenticate`, headers: { ...HTTPS, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(browser).toString() });
    expect(auth.statusCode, String(auth.headers.location)).toBe(200);
    const acs = attr(auth.body, /<a class="button" href="([^"]+)" id="threeds-acs-link">/);
    // the order's payer-action link, with redirect_uri back to the page (PayPal "3D Secure: Orders API")
    expect(acs).toMatch(new RegExp(`^${h.sim.url}/sim/3ds/[A-Z0-9]+\\?redirect_uri=`));
    expect(new URL(acs).searchParams.get('redirect_uri')).toMatch(new RegExp(`/v1/payment/tokenized/${created.token}/cres$`));
    expect(await (await fetch(acs, { method: 'POST', body: new URLSearchParams({ creq: 'x' }) })).text()).toContain('id="pass"');
    const calls = h.paymentCalls();
    const back = await fetch(acs, { method: 'POST', body: new URLSearchParams({ result: 'Y' }), redirect: 'manual' });
    const location = new URL(String(back.headers.get('location')));
    expect(location.pathname).toBe(`${tokenized}/cres`);
    const final = await t.app.inject({ method: 'GET', url: `${location.pathname}${location.search}`, headers: HTTPS });
    expect(final.statusCode).toBe(303);
    expect(final.headers.location).toBe('https://shop.example/ok');
    expect(h.paymentCalls()).toBe(calls + 1);
    const after = await order(created.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true, safe: true });
    expect(h.sim.order(location.searchParams.get('token')!)).toMatchObject({ status: 'COMPLETED' });
  });

  it('a PayPal account by redirect: the buyer approves on PayPal, the webhook has the order captured, SUCCESS once', async () => {
    expect((await m.api.put(`/service/${m.service_uuid}/apms`, { apms: ['PAYPAL'] })).status).toBe(200);
    const created = (await m.api.post('/payment', { amount: 2599, operative: 'AUTHORIZATION', description: 'PayPal order', service: m.service_uuid, customer_ext_id: `pp-${++n}` })).body.order;
    const r = await m.api.post('/payment/push', { order_uuid: created.uuid, apm: 'paypal' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.status).toBe('PENDING_PROCESSOR_RESPONSE');
    // the buyer leaves from the gateway's own page, whose form goes to PayPal's approval page
    const leave = new URL(String(r.body.extra_data.apm.redirect_url));
    expect(leave.pathname).toBe(`/v1/processor/paypal/redirect/${r.body.order.transactions[0].uuid}`);
    const page0 = await t.app.inject({ method: 'GET', url: leave.pathname, headers: HTTPS });
    expect(page0.statusCode).toBe(200);
    const approval = /<form method="get" action="([^"]+)" id="provider-redirect">/.exec(page0.body)?.[1] ?? '';
    expect(approval).toMatch(new RegExp(`^${h.sim.url}/sim/approve/[A-Z0-9]+$`));
    expect(page0.headers['content-security-policy']).toContain(h.sim.url);
    // the buyer approves on PayPal and comes back to the order's page; PayPal's webhook follows
    h.webhooks!.deliverTo(null);
    const before = h.webhooks!.sent().length;
    const page = await fetch(approval);
    expect(await page.text()).toContain('id="approve"');
    const back = await fetch(approval, { method: 'POST', body: new URLSearchParams({ action: 'approve' }), redirect: 'manual' });
    expect(back.status).toBe(302);
    expect(new URL(String(back.headers.get('location'))).searchParams.get('token')).toBe(approval.split('/').at(-1));
    await expect.poll(() => h.webhooks!.sent().length).toBeGreaterThan(before);
    const approved = h.webhooks!.sent()[before];
    expect(JSON.parse(approved.body).event_type).toBe('CHECKOUT.ORDER.APPROVED');
    const calls = h.paymentCalls();
    expect(await deliver(approved)).toBe('settled');
    expect(h.paymentCalls()).toBe(calls + 1);
    const after = await order(created.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(h.sim.order(approval.split('/').at(-1)!)).toMatchObject({ status: 'COMPLETED' });
    // delivered again: a replay, nothing captured again
    expect(await deliver(approved)).toBe('ignored');
    expect(h.paymentCalls()).toBe(calls + 1);
    expect(await order(created.uuid)).toEqual(after);
  });

  it('webhooks PayPal does not verify (altered, or for another webhook id) change nothing; replayed and late ones are recorded once', async () => {
    h.webhooks!.deliverTo(null);
    const before = h.webhooks!.sent().length;
    h.fault('webhook-only');
    const o = (await m.api.post('/payment/single-step', { amount: 880, operative: 'AUTHORIZATION', secure: false, description: 'hooks', service: m.service_uuid, customer_ext_id: `pw-${++n}`, card_holder: 'Ana', card_pan: luhnCard('41111112', n), card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' })).body.order;
    expect(o.status).toBe('PENDING_PROCESSOR_RESPONSE');
    const hook = h.webhooks!.sent()[before];
    expect(JSON.parse(hook.body).event_type).toBe('PAYMENT.CAPTURE.COMPLETED');
    const altered = JSON.parse(hook.body);
    altered.resource.amount.value = '0.01';
    expect(await deliver({ ...hook, body: JSON.stringify(altered) })).toBe('ignored');
    // signed for another app's webhook: PayPal's verification fails for this terminal's webhook id
    const foreign = await h.sim.send({ clientSecret: 'x', webhookId: 'ANOTHERWEBHOOK0000000000', webhookUrl: 'https://gateway.test/v1/processor/paypal/webhook' }, hook.body);
    expect(foreign).toBe(0);
    expect(await deliver(h.webhooks!.sent().at(-1)!)).toBe('ignored');
    expect(await events(o.transactions[0].uuid)).toHaveLength(0);
    expect((await order(o.uuid)).status).toBe('PENDING_PROCESSOR_RESPONSE');
    // the genuine one settles it; the same event again is a replay; a later retransmission is late
    expect(await deliver(hook)).toBe('settled');
    const settled = await order(o.uuid);
    expect(settled).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(await deliver(hook)).toBe('ignored');
    await h.sim.send({ clientSecret: '', webhookId: '8PT597110X687430LKGECATA', webhookUrl: 'https://gateway.test/v1/processor/paypal/webhook' }, hook.body.replace(/"id":"WH-[A-Z0-9]+"/, '"id":"WH-LATE0000000000000000"'));
    expect(await deliver(h.webhooks!.sent().at(-1)!)).toBe('already-settled');
    expect(await order(o.uuid)).toEqual(settled);
    expect((await events(o.transactions[0].uuid)).map((e) => e.event_type)).toEqual(['PAYMENT.CAPTURE.COMPLETED', 'PAYMENT.CAPTURE.COMPLETED']);
  });
});
