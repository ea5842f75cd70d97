/**
 * EMV 3-D Secure 2 through Redsys on the 3DS page, in production against the Redsys simulator: card
 * configuration with and without a 3DS method, frictionless approval, the ACS challenge (our page posts
 * creq to the ACS, the ACS posts cres back to the gateway), a failed challenge, and the 0195 soft decline
 * of a stored-card payment leading to authentication and one retry. threeds_data and safe on the order.
 * The browser's part is played here with HTTP requests (test/browser runs it in Chromium).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { storeCard } from '../helpers/payments.js';
import { redsysHarness } from '../helpers/connectors.js';
import { SIM_CARDS } from '../../src/processors/redsys/simulator/rules.js';

const h = redsysHarness();
let t: TestApp;
let m: TestMerchant;
const HTTPS = { 'x-forwarded-proto': 'https' };
const FORM = { ...HTTPS, 'content-type': 'application/x-www-form-urlencoded' };

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
  if (v === undefined) throw new Error(`not in the page: ${re}\n${body.slice(0, 3000)}`);
  return v.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#x2F;/g, '/');
};
const get = (url: string) => t.app.inject({ method: 'GET', url, headers: HTTPS });
const post = (url: string, fields: Record<string, string>) => t.app.inject({ method: 'POST', url, headers: FORM, payload: new URLSearchParams(fields).toString() });
const sim = (path: string, fields: Record<string, string>) => fetch(`${h.sim.url}${path}`, { method: 'POST', body: new URLSearchParams(fields) }).then((r) => r.text());
const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');

/** A secure single-step payment: 303 to the 3DS page. */
async function securePayment(pan: string, extra: Record<string, unknown> = {}) {
  const r = await m.api.post('/payment/single-step', {
    amount: 2500, operative: 'AUTHORIZATION', secure: true, description: '3ds', service: m.service_uuid, customer_ext_id: `c-${pan.slice(-4)}-${randomUUID()}`,
    url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko', card_holder: 'Ana', card_pan: pan, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123', ...extra,
  });
  expect(r.status, r.raw).toBe(303);
  return r.body.order as { uuid: string; token: string };
}

/** What the page's script does: posts the browser data (and the method's completion). */
function browserData(page: string, method: string) {
  return { nonce: attr(page, /name="nonce" value="([^"]+)"/), method, js: 'true', java: 'false', language: 'es-ES', color_depth: '24', screen_height: '900', screen_width: '1440', tz: '-60' };
}

const order = async (uuid: string) => (await m.api.get(`/order/${uuid}`)).body.order;

describe('EMV 3-D Secure 2 through Redsys', () => {
  it('challenge: 3DS method in a hidden frame, browser data, creq to the ACS, cres back, the payment authorized once', async () => {
    const o = await securePayment(SIM_CARDS.CHALLENGE);
    const tokenized = `/v1/payment/tokenized/${o.token}`;
    const page = await get(tokenized);
    expect(page.statusCode, page.body.slice(0, 500)).toBe(200);
    // the 3DS method: posted to the issuer's method URL in a hidden frame, the frame allowed by the CSP
    const methodUrl = attr(page.body, /<form id="threeds-method-form" method="post" action="([^"]+)"/);
    expect(methodUrl).toBe(`${h.sim.url}/sim/3ds-method`);
    expect(page.headers['content-security-policy']).toContain(`frame-src ${h.sim.url} 'self'`);
    const methodData = attr(page.body, /name="threeDSMethodData" value="([^"]+)"/);
    // the issuer runs its method, then posts back to the gateway's method notification URL in the frame
    const methodPage = await sim('/sim/3ds-method', { threeDSMethodData: methodData });
    const notification = attr(methodPage, /action="([^"]+)"/);
    expect(notification).toBe(`${t.p.config.publicUrl}${tokenized}/method`);
    const done = await post(local(notification), { threeDSMethodData: methodData });
    expect(done.body).toContain("parent.postMessage('paygate:3ds-method'");
    // the browser's data: the issuer wants a challenge
    const auth = await post(`${tokenized}/authenticate`, browserData(page.body, 'Y'));
    expect(auth.statusCode, auth.body.slice(0, 500)).toBe(200);
    const acsUrl = attr(auth.body, /<form method="post" action="([^"]+)" id="threeds-acs">/);
    expect(acsUrl).toBe(`${h.sim.url}/sim/acs`);
    expect(auth.headers['content-security-policy']).toContain(h.sim.url);
    expect((await order(o.uuid)).status).toBe('PENDING_3DS_RESPONSE');
    // the cardholder authenticates at the ACS, which posts cres to the gateway
    const creq = attr(auth.body, /name="creq" value="([^"]+)"/);
    expect(await sim('/sim/acs', { creq })).toContain('acs-authenticate');
    const back = await sim('/sim/acs/answer', { creq, result: 'Y' });
    expect(attr(back, /action="([^"]+)"/)).toBe(`${t.p.config.publicUrl}${tokenized}/cres`);
    const final = await post(`${tokenized}/cres`, { cres: attr(back, /name="cres" value="([^"]+)"/) });
    expect(final.statusCode).toBe(303);
    expect(final.headers.location).toBe('https://shop.example/ok');
    const after = await order(o.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true, safe: true });
    expect(after.threeds_data).toMatchObject({ flow: 'CHALLENGE', status: 'Y', version: '2.1.0', sca_requested: true });
    expect(after.transactions).toHaveLength(1);
    expect(after.transactions[0]).toMatchObject({ status: 'SUCCESS', amount: 2500 });
    // the ACS posting again changes nothing
    const again = await post(`${tokenized}/cres`, { cres: attr(back, /name="cres" value="([^"]+)"/) });
    expect(again.statusCode).toBe(303);
    expect((await order(o.uuid)).transactions).toHaveLength(1);
  });

  it('frictionless without a 3DS method: no frame, the browser data approve the payment at once', async () => {
    const o = await securePayment(SIM_CARDS.FRICTIONLESS_NO_METHOD);
    const tokenized = `/v1/payment/tokenized/${o.token}`;
    const page = await get(tokenized);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('<form id="threeds-method-form"');
    expect(page.body).toContain('data-method="none"');
    const auth = await post(`${tokenized}/authenticate`, browserData(page.body, 'U'));
    expect(auth.statusCode, auth.body.slice(0, 300)).toBe(303);
    expect(auth.headers.location).toBe('https://shop.example/ok');
    const after = await order(o.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', safe: true });
    expect(after.threeds_data).toMatchObject({ flow: 'FRICTIONLESS', status: 'Y' });
    // the browser data reached Redsys
    const emv = JSON.parse(Buffer.from((h.sim.requests.at(-1)!.body as { Ds_MerchantParameters: string }).Ds_MerchantParameters, 'base64').toString()).DS_MERCHANT_EMV3DS;
    expect(emv).toMatchObject({ threeDSInfo: 'AuthenticationData', browserJavascriptEnabled: true, browserScreenWidth: '1440', browserTZ: '-60', threeDSCompInd: 'U', notificationURL: `${t.p.config.publicUrl}${tokenized}/cres` });
  });

  it('a failed challenge refuses the payment (AUTHENTICATION_FAILED) and the page can be paid again', async () => {
    const o = await securePayment(SIM_CARDS.CHALLENGE_FAILS);
    const tokenized = `/v1/payment/tokenized/${o.token}`;
    const page = await get(tokenized);
    const auth = await post(`${tokenized}/authenticate`, browserData(page.body, 'N'));
    const creq = attr(auth.body, /name="creq" value="([^"]+)"/);
    const back = await sim('/sim/acs/answer', { creq, result: 'Y' });
    const final = await post(`${tokenized}/cres`, { cres: attr(back, /name="cres" value="([^"]+)"/) });
    expect(final.statusCode).toBe(303);
    expect(final.headers.location).toBe('https://shop.example/ko');
    const after = await order(o.uuid);
    expect(after).toMatchObject({ status: 'REFUSED', paid: false, safe: false });
    expect(after.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
    expect(after.transactions[0].error_details).toContain('0184');
  });

  it('0195 on a stored-card payment (B10): 303, authentication on the 3DS page, then one retry that is approved', async () => {
    const c = 'soft-1';
    const card = await storeCard(t, m, SIM_CARDS.SOFT_DECLINE, c);
    const created = await m.api.post('/payment', { amount: 1800, operative: 'AUTHORIZATION', secure: false, description: 'soft', service: m.service_uuid, customer_ext_id: c, url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' });
    const o = created.body.order;
    const calls = { ...h.sim.calls };
    const r = await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card });
    expect(r.status, r.raw).toBe(303);
    expect(r.body.order.status).toBe('PENDING_3DS_RESPONSE');
    expect(r.body.order.transactions[0].status).toBe('PENDING');
    const tokenized = `/v1/payment/tokenized/${o.token}`;
    const page = await get(tokenized);
    const auth = await post(`${tokenized}/authenticate`, browserData(page.body, 'N'));
    const creq = attr(auth.body, /name="creq" value="([^"]+)"/);
    const back = await sim('/sim/acs/answer', { creq, result: 'Y' });
    const final = await post(`${tokenized}/cres`, { cres: attr(back, /name="cres" value="([^"]+)"/) });
    expect(final.headers.location).toBe('https://shop.example/ok');
    const after = await order(o.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true, safe: true });
    expect(after.transactions).toHaveLength(1);
    // Redsys saw: the payment (0195), the card configuration, the authentication (challenge), the final call
    expect(h.sim.calls.trataPeticion - calls.trataPeticion).toBe(3);
    expect(h.sim.calls.iniciaPeticion - calls.iniciaPeticion).toBe(1);
    expect(h.sim.order('999008881', '001', after.transactions[0].processor_id)).toMatchObject({ approved: true, securePayment: '2' });
  });

  it('3-D Secure 1 is refused cleanly: a card configuration of 3DS 1 only (NO_3DS_v2)', async () => {
    // refused at once, nothing authorized
    const v1 = await securePayment(SIM_CARDS.THREEDS1_ONLY);
    const page = await get(`/v1/payment/tokenized/${v1.token}`);
    expect(page.statusCode).toBeLessThan(500);
    const refused = await order(v1.uuid);
    expect(refused).toMatchObject({ status: 'REFUSED', paid: false });
    expect(refused.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
    expect(refused.transactions[0].error_details).toMatch(/3-D Secure 1 .*not supported/);
  });

  it('3-D Secure 1 is refused cleanly: a 3DS 1 challenge (MD, PAReq) where EMV 3DS 2.2.0 was announced, not left waiting', async () => {
    const o = await securePayment(SIM_CARDS.THREEDS1_CHALLENGE);
    const tokenized = `/v1/payment/tokenized/${o.token}`;
    const p2 = await get(tokenized);
    expect(p2.body).toContain('data-method="none"');
    const auth = await post(`${tokenized}/authenticate`, browserData(p2.body, 'U'));
    expect(auth.statusCode).toBe(303);
    expect(auth.headers.location).toBe('https://shop.example/ko');
    const after = await order(o.uuid);
    expect(after).toMatchObject({ status: 'REFUSED', paid: false });
    expect(after.transactions).toHaveLength(1);
    expect(after.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
    expect(after.transactions[0].error_details).toMatch(/3-D Secure 1 .*not supported/);
  });

  it('the 3DS method notification page and a bad cres are harmless', async () => {
    const o = await securePayment(SIM_CARDS.CHALLENGE_NO_METHOD);
    const tokenized = `/v1/payment/tokenized/${o.token}`;
    const bad: LightMyRequestResponse = await post(`${tokenized}/cres`, { cres: '<script>' });
    expect(bad.statusCode).toBe(400);
    expect((await order(o.uuid)).status).toBe('PENDING_3DS_RESPONSE');
    expect((await post(`${tokenized}/cres`, {})).statusCode).toBe(400);
  });
});
