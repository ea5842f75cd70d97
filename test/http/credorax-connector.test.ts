/**
 * Credorax in production against its simulator, beyond the conformance scenarios: the terminal's
 * credentials as the contract names them (checked, and tested against Credorax without moving money),
 * American Express cards through the Amex merchant, EMV 3-D Secure 2 through Credorax driven by the hosted
 * page (frictionless; the ACS challenge passed and failed, the ACS's answer posted back, the 3-D Secure
 * completion), and the stored-credential indicators Credorax received for a card's first use and a
 * merchant-initiated charge. PostgreSQL only (the conformance suite covers the connector there; these add
 * no engine-specific behaviour).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { storeCard } from '../helpers/payments.js';
import { harnessOf, luhnCard } from '../helpers/connectors.js';
import { declarationNamed } from '../../src/processors/connectors.js';
import type { CredoraxSimulator } from '../../src/processors/credorax/simulator/server.js';
import { CREDORAX_SIM_CARDS } from '../../src/processors/credorax/simulator/rules.js';

const HTTPS = { 'x-forwarded-proto': 'https' };
const FORM = { ...HTTPS, 'content-type': 'application/x-www-form-urlencoded' };

describe.skipIf(process.env.PAYGATE_TEST_DB !== 'postgres')('Credorax connector', () => {
  const h = harnessOf<CredoraxSimulator>(declarationNamed('credorax')!);
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
  const singleStep = (pan: string, fields: Record<string, unknown> = {}) =>
    m.api.post('/payment/single-step', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'credorax', service: m.service_uuid, customer_ext_id: `crx-${++n}`, card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123', ...fields });

  it("production CREDORAX terminals take the contract's credential names, checked; test_credentials asks Credorax without moving money", async () => {
    const half = await m.api.post('/terminal', { currency_code: 'EUR', type: 'CREDORAX', description: 'c', credentials: { merchant_id: 'SHOP0001', signing_api_key: 'key', merchant_id_amex: 'AMEX0001' } });
    expect(half.status).toBe(400);
    expect(half.body.details).toMatch(/merchant_id_amex and credentials.signing_api_key_amex go together/);
    const missing = await m.api.post('/terminal', { currency_code: 'EUR', type: 'CREDORAX', description: 'c', credentials: { merchant_id: 'SHOP0001' } });
    expect(missing.status).toBe(400);
    // the test is a capture referring to no transaction: nothing is approved
    const before = h.sim.transactionCount();
    const ok = await m.api.post('/terminal', { currency_code: 'EUR', type: 'CREDORAX', description: 'c', credentials: h.terminal.credentials, test_credentials: true });
    expect(ok.status, ok.raw).toBe(200);
    expect(Object.keys(ok.body.terminal.credentials).sort()).toEqual(['merchant_id', 'merchant_id_amex', 'signing_api_key', 'signing_api_key_amex', 'sub_merchant_id', 'sub_merchant_phone_amex', 'target_mid_amex']);
    const wrong = await m.api.post('/terminal', { currency_code: 'EUR', type: 'CREDORAX', description: 'c', credentials: { ...h.terminal.credentials, signing_api_key: 'not-the-key' }, test_credentials: true });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toMatch(/did not sign its answer with the key of credentials.merchant_id \/ signing_api_key/);
    expect(h.sim.transactionCount()).toBe(before);
  });

  it('an American Express card goes through the Amex merchant with its processor MID and phone, and so does its refund', async () => {
    const o = (await singleStep(CREDORAX_SIM_CARDS.AMEX)).body.order;
    expect(o).toMatchObject({ status: 'SUCCESS', paid: true });
    const at = h.sim.transaction(o.transactions[0].processor_id)!;
    expect(at).toMatchObject({ merchantId: h.terminal.credentials.merchant_id_amex, request: { r2: h.terminal.credentials.target_mid_amex, h8: h.terminal.credentials.sub_merchant_phone_amex, h3: h.terminal.credentials.sub_merchant_id } });
    const refunded = await m.api.post('/payment/refund', { order_uuid: o.uuid, amount: 400 });
    expect(refunded.status, refunded.raw).toBe(200);
    expect(refunded.body.order.transactions.at(-1)).toMatchObject({ operative: 'REFUND', status: 'SUCCESS', amount: 400 });
    expect(h.sim.transaction(o.transactions[0].processor_id)!.refunded).toBe(400);
    // a Visa card goes through the main merchant
    const visa = (await singleStep(luhnCard('44446666', ++n))).body.order;
    expect(h.sim.transaction(visa.transactions[0].processor_id)!.merchantId).toBe(h.terminal.credentials.merchant_id);
  });

  it("a confirmed pre-authorization's refund refers to its capture (g2, g4 of the capture)", async () => {
    const held = (await singleStep(luhnCard('44448888', ++n), { operative: 'DEFERRED', amount: 2000 })).body.order;
    expect(held.status, JSON.stringify(held)).toBe('PENDING_CONFIRMATION');
    const confirmed = await m.api.post('/payment/confirmation', { order_uuid: held.uuid, amount: 1500 });
    expect(confirmed.status, confirmed.raw).toBe(200);
    const capture = confirmed.body.order.transactions.at(-1);
    expect(capture).toMatchObject({ status: 'SUCCESS', amount: 1500 });
    const refund = await m.api.post('/payment/refund', { order_uuid: held.uuid, amount: 500 });
    expect(refund.status, refund.raw).toBe(200);
    expect(refund.body.order.transactions.at(-1)).toMatchObject({ operative: 'REFUND', status: 'SUCCESS', amount: 500 });
    expect(h.sim.transaction(capture.processor_id)).toMatchObject({ kind: 'capture', amount: 1500, refunded: 500 });
  });

  /** A stored card's payment soft-declined (asks for 3-D Secure), then the hosted page's browser data posted. */
  async function toAuthentication(pan: string, amount: number) {
    const c = `crx3ds-${++n}`;
    const source = await storeCard(t, m, pan, c);
    const created = (await m.api.post('/payment', { amount, operative: 'AUTHORIZATION', secure: false, description: '3ds', service: m.service_uuid, customer_ext_id: c, url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' })).body.order;
    const r = await m.api.post('/payment/direct', { order_uuid: created.uuid, card_uuid: source });
    expect(r.status, r.raw).toBe(303);
    const tokenized = `/v1/payment/tokenized/${created.token}`;
    const page = await t.app.inject({ method: 'GET', url: tokenized, headers: HTTPS });
    expect(page.statusCode, page.body.slice(0, 500)).toBe(200);
    const browser = { nonce: attr(page.body, /name="nonce" value="([^"]+)"/), method: 'U', js: 'true', java: 'false', language: 'en-GB', color_depth: '24', screen_height: '900', screen_width: '1440', tz: '0' };
    const auth = await t.app.inject({ method: 'POST', url: `${tokenized}/authenticate`, headers: FORM, payload: new URLSearchParams(browser).toString() });
    return { created, tokenized, auth };
  }

  /** The cardholder at the simulated ACS: the gateway's page posts creq there, the cardholder answers, the ACS posts cres back. */
  async function atTheAcs(auth: { body: string }, answer: 'Y' | 'N') {
    const acs = attr(auth.body, /<form method="post" action="([^"]+)" id="threeds-acs">/);
    expect(acs).toMatch(new RegExp(`^${h.sim.url}/sim/acs/`));
    const creq = JSON.parse(Buffer.from(attr(auth.body, /name="creq" value="([^"]+)"/), 'base64url').toString());
    expect(creq).toMatchObject({ messageType: 'CReq', threeDSServerTransID: acs.split('/').at(-1) });
    const shown = await fetch(acs, { method: 'POST', body: new URLSearchParams({ creq: attr(auth.body, /name="creq" value="([^"]+)"/) }) });
    expect(await shown.text()).toContain('id="pass"');
    const back = await (await fetch(acs, { method: 'POST', body: new URLSearchParams({ result: answer }) })).text();
    return { action: new URL(attr(back, /<form id="f" method="post" action="([^"]+)">/)), cres: attr(back, /name="cres" value="([^"]+)"/) };
  }

  it('a soft decline goes through the ACS challenge: the cardholder passes, the 3-D Secure completion approves once', async () => {
    const { created, tokenized, auth } = await toAuthentication(CREDORAX_SIM_CARDS.CHALLENGE, 1800);
    expect(auth.statusCode).toBe(200);
    const { action, cres } = await atTheAcs(auth, 'Y');
    expect(action.pathname).toBe(`${tokenized}/cres`);
    const final = await t.app.inject({ method: 'POST', url: action.pathname, headers: FORM, payload: new URLSearchParams({ cres }).toString() });
    expect(final.statusCode, final.body.slice(0, 300)).toBe(303);
    expect(final.headers.location).toBe('https://shop.example/ok');
    const after = await order(created.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(h.sim.transaction(after.transactions.at(-1).processor_id)).toMatchObject({ kind: 'sale', amount: 1800, request: { threeds: true } });
    // the ACS's answer posted again changes nothing
    const again = await t.app.inject({ method: 'POST', url: action.pathname, headers: FORM, payload: new URLSearchParams({ cres }).toString() });
    expect(again.statusCode).toBeLessThan(500);
    expect((await order(created.uuid)).transactions).toHaveLength(after.transactions.length);
    // and the approved payment can be refunded: its request id is the payment's
    const refund = await m.api.post('/payment/refund', { order_uuid: created.uuid, amount: 800 });
    expect(refund.body.order.transactions.at(-1), refund.raw).toMatchObject({ operative: 'REFUND', status: 'SUCCESS' });
  });

  it('a failed challenge refuses the payment (AUTHENTICATION_FAILED) and sends the customer to url_ko', async () => {
    const { created, auth } = await toAuthentication(CREDORAX_SIM_CARDS.CHALLENGE, 1500);
    const { action, cres } = await atTheAcs(auth, 'N');
    const final = await t.app.inject({ method: 'POST', url: action.pathname, headers: FORM, payload: new URLSearchParams({ cres }).toString() });
    expect(final.statusCode).toBe(303);
    expect(final.headers.location).toBe('https://shop.example/ko');
    const after = await order(created.uuid);
    expect(after.status).toBe('REFUSED');
    expect(after.transactions.at(-1)).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
    expect(after.transactions.at(-1).error_details).toMatch(/z2 -38/);
  });

  it('frictionless: Credorax authenticates and approves in the same answer, no challenge shown', async () => {
    const { created, auth } = await toAuthentication(CREDORAX_SIM_CARDS.SOFT_DECLINE, 1200);
    expect(auth.statusCode).toBe(303);
    expect(auth.headers.location).toBe('https://shop.example/ok');
    const after = await order(created.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(h.sim.transaction(after.transactions.at(-1).processor_id)!.request.threeds).toBe(true);
  });

  it("stored credentials: the first payment says the card is being stored (a9 9); a subscription's charge is recurring (a9 2) quoting its scheme reference (g6)", async () => {
    const c = `crxcof-${++n}`;
    const first = (await singleStep(luhnCard('44447777', n), { customer_ext_id: c, save_card: true })).body.order;
    expect(first.status).toBe('SUCCESS');
    const firstAt = h.sim.transaction(first.transactions[0].processor_id)!;
    expect(firstAt.request.a9).toBe('9');
    expect(first.cof_txnid).toBe(firstAt.networkId);
    await m.api.post('/subscriptions/product', { name: `P ${c}`, external_id: `prod-${c}` });
    await m.api.post('/subscriptions/plan', { name: `Plan ${c}`, external_id: `plan-${c}`, product: `prod-${c}`, amount: 990, interval: 1, interval_type: 'MONTHLY' });
    const sub = await m.api.post('/subscriptions/subscription', { plan: `plan-${c}`, customer: c, payment_attempts_limit: 1, additional_data: { source_uuid: first.transactions[0].source.uuid } });
    expect(sub.status, sub.raw).toBe(200);
    const charge = (await t.p.database.db.selectFrom('transactions').select('processor_id').where('amount', '=', 990).orderBy('created_at', 'desc').executeTakeFirstOrThrow()).processor_id!;
    expect(h.sim.transaction(charge)!.request).toMatchObject({ a9: '2', g6: first.cof_txnid });
  });
});
