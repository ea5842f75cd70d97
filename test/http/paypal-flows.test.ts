/**
 * PayPal's documented flows, through the public API in production mode against the PayPal simulator
 * (which checks every request and answer against src/processors/paypal/spec.ts; the harness fails the
 * file on any violation):
 *  - 3-D Secure ("3D Secure: Orders API"): a capture PayPal answers 422 PAYER_ACTION_REQUIRED is sent to
 *    the 3-D Secure page, whose cardholder goes to the order's payer-action link with redirect_uri back;
 *  - after it, PayPal's table of recommended actions ("3D Secure response parameters"): authenticated,
 *    captured; failed or not completed, never captured; not enrolled, captured but not recorded as
 *    authenticated;
 *  - MoTo as a customer-initiated payment verified by AVS/CVV (no MERCHANT/ONE_TIME stored credential);
 *  - stored credentials: FIRST on the payment that stores the card, the card's network (with its date for
 *    Mastercard) quoted by merchant-initiated payments;
 *  - PENDING captures and authorizations: the transaction stays PENDING until PAYMENT.CAPTURE.COMPLETED /
 *    DENIED or the reconciler reads the order;
 *  - currencies without decimals in PayPal (HUF).
 * PostgreSQL only, like the connector's conformance run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { CHARGE_QUEUE } from '../../src/modules/subscriptions/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { storeCard } from '../helpers/payments.js';
import { luhnCard, paypalHarness, type WebhookDelivery } from '../helpers/connectors.js';
import { PAYPAL_SIM_CARDS } from '../../src/processors/paypal/simulator/rules.js';

const HTTPS = { 'x-forwarded-proto': 'https' };

describe.skipIf(process.env.PAYGATE_TEST_DB !== 'postgres')('PayPal flows as PayPal documents them', () => {
  const h = paypalHarness();
  let t: TestApp;
  let m: TestMerchant;
  let n = 0;

  beforeAll(async () => {
    await h.start();
    t = await createTestApp(h.env());
    m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
    await t.p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', m.client_uuid).execute();
  });
  afterAll(async () => {
    await t?.close();
    await h.close();
  });

  async function ok(p: Promise<{ status: number; raw: string; body: any }>, status = 200) {
    const r = await p;
    expect(r.status, r.raw).toBe(status);
    return r.body;
  }
  const customer = () => `ppf-${++n}`;
  const card = (pan: string) => ({ card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' });
  const order = async (uuid: string, api = m.api) => (await ok(api.get(`/order/${uuid}`))).order;
  const create = (fields: Record<string, unknown> = {}, api = m.api, service = m.service_uuid) =>
    ok(api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'flows', service, customer_ext_id: customer(), url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko', ...fields })).then((b) => b.order);
  const singleStep = (pan: string, fields: Record<string, unknown> = {}, api = m.api, service = m.service_uuid) =>
    ok(api.post('/payment/single-step', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'flows', service, customer_ext_id: customer(), ...card(pan), ...fields })).then((b) => b.order);
  /** The PayPal order of a transaction (recorded by the connector before the card was sent). */
  const simOrderOf = async (txUuid: string) => {
    const op = await t.p.database.db.selectFrom('paypal_operations').select(['order_id', 'payment_id']).where('reference', '=', txUuid).executeTakeFirstOrThrow();
    return { ...h.sim.order(op.order_id!)!, paymentId: op.payment_id };
  };
  const txRow = (txUuid: string) => t.p.database.db.selectFrom('transactions').select(['status', 'processor_id']).where('id', '=', txUuid).executeTakeFirstOrThrow();
  const deliver = async (d: WebhookDelivery) => {
    const r = await t.app.inject({ method: 'POST', url: d.path, headers: d.headers, payload: d.body });
    expect(r.statusCode).toBe(200);
    return r.body.replace(/^[\s\S]*<\/title>/, '').trim();
  };
  const hooksOf = (resourceId: string, from = 0) => h.webhooks!.sent().slice(from).filter((d) => JSON.parse(d.body).resource.id === resourceId);
  const attr = (body: string, re: RegExp) => (re.exec(body)?.[1] ?? '').replace(/&amp;/g, '&').replace(/&#x2F;/g, '/').replace(/&quot;/g, '"');

  /** The hosted 3-D Secure page of a payment waiting for it, up to PayPal's page (the payer-action link). */
  async function toPaypalPage(token: string): Promise<string> {
    const tokenized = `/v1/payment/tokenized/${token}`;
    const page = await t.app.inject({ method: 'GET', url: tokenized, headers: HTTPS });
    expect(page.statusCode).toBe(200);
    const browser = { nonce: attr(page.body, /name="nonce" value="([^"]+)"/), method: 'U', js: 'true', java: 'false', language: 'en-GB', color_depth: '24', screen_height: '900', screen_width: '1440', tz: '0' };
    const auth = await t.app.inject({ method: 'POST', url: `${tokenized}/authenticate`, headers: { ...HTTPS, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(browser).toString() });
    expect(auth.statusCode, String(auth.headers.location)).toBe(200);
    // PayPal's payer-action link is a page to visit as it is (GET, its query kept), not an ACS to post to
    expect(auth.body).not.toContain('id="threeds-acs"');
    return attr(auth.body, /<a class="button" href="([^"]+)" id="threeds-acs-link">/);
  }

  /** The cardholder's answer on PayPal's 3-D Secure page, then back on the gateway's page: where it sends the browser. */
  async function authenticate(acs: string, result: 'Y' | 'N' | 'U' | null): Promise<string> {
    const back = await fetch(acs, { method: 'POST', body: new URLSearchParams(result ? { result } : {}), redirect: 'manual' });
    expect(back.status).toBe(302);
    const location = new URL(String(back.headers.get('location')));
    const final = await t.app.inject({ method: 'GET', url: `${location.pathname}${location.search}`, headers: HTTPS });
    expect(final.statusCode).toBe(303);
    return String(final.headers.location);
  }

  it('a card whose issuer requires 3-D Secure: PayPal\'s 422 PAYER_ACTION_REQUIRED sends it to the 3-D Secure page (not refused), the cardholder to the order\'s payer-action link and back; authenticated, captured once', async () => {
    const c = customer();
    const source = await storeCard(t, m, PAYPAL_SIM_CARDS.SOFT_DECLINE, c);
    const o = await create({ customer_ext_id: c });
    const calls = h.paymentCalls();
    const r = await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: source });
    expect(r.status, r.raw).toBe(303);
    expect(r.body.order).toMatchObject({ status: 'PENDING_3DS_RESPONSE', paid: false });
    // the capture was answered 422 PAYER_ACTION_REQUIRED: one call, nothing captured
    expect(h.paymentCalls()).toBe(calls + 1);
    const paypalOrder = await simOrderOf(r.body.order.transactions[0].uuid);
    expect(paypalOrder).toMatchObject({ status: 'PAYER_ACTION_REQUIRED', captures: [] });
    const acs = await toPaypalPage(o.token);
    expect(acs.startsWith(`${h.sim.url}/sim/3ds/${paypalOrder.id}?`)).toBe(true);
    expect(new URL(acs).searchParams.get('redirect_uri')).toMatch(new RegExp(`/v1/payment/tokenized/${o.token}/cres$`));
    expect(await authenticate(acs, 'Y')).toBe('https://shop.example/ok');
    expect(h.paymentCalls()).toBe(calls + 2);
    const after = await order(o.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true, safe: true, threeds_data: { status: 'Y', flow: 'CHALLENGE' } });
    expect(h.sim.order(paypalOrder.id)).toMatchObject({ status: 'COMPLETED', captures: [{ status: 'COMPLETED' }] });
  });

  it('a secure order: the card sent asking for SCA_ALWAYS, PayPal\'s page, authenticated: SUCCESS, recorded as authenticated', async () => {
    const c = customer();
    const source = await storeCard(t, m, luhnCard('41111113', ++n), c);
    const o = await create({ customer_ext_id: c, secure: true });
    expect((await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: source })).status).toBe(303);
    const acs = await toPaypalPage(o.token);
    const tx = (await order(o.uuid)).transactions[0].uuid;
    expect(await simOrderOf(tx)).toMatchObject({ status: 'PAYER_ACTION_REQUIRED', verification: 'SCA_ALWAYS' });
    expect(await authenticate(acs, 'Y')).toBe('https://shop.example/ok');
    expect(await order(o.uuid)).toMatchObject({ status: 'SUCCESS', paid: true, safe: true, threeds_data: { status: 'Y' } });
  });

  it('3-D Secure failed (liability NO): PayPal\'s table says do not continue; the order is never captured, the payment refused AUTHENTICATION_FAILED', async () => {
    const c = customer();
    const source = await storeCard(t, m, luhnCard('41111113', ++n), c);
    const o = await create({ customer_ext_id: c, secure: true });
    expect((await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: source })).status).toBe(303);
    const acs = await toPaypalPage(o.token);
    const calls = h.paymentCalls();
    expect(await authenticate(acs, 'N')).toBe('https://shop.example/ko');
    expect(h.paymentCalls()).toBe(calls);
    const after = await order(o.uuid);
    expect(after).toMatchObject({ paid: false, safe: false, threeds_data: { status: 'N' } });
    expect(after.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
    expect(after.transactions[0].error_details).toMatch(/not authenticated.*liability NO/);
    const paypalOrder = await simOrderOf(after.transactions[0].uuid);
    expect(paypalOrder.captures).toEqual([]);
  });

  it('3-D Secure could not be completed (liability UNKNOWN): not continued, the cardholder may try again; nothing captured', async () => {
    const c = customer();
    const source = await storeCard(t, m, luhnCard('41111113', ++n), c);
    const o = await create({ customer_ext_id: c, secure: true });
    expect((await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: source })).status).toBe(303);
    const acs = await toPaypalPage(o.token);
    const calls = h.paymentCalls();
    expect(await authenticate(acs, 'U')).toBe('https://shop.example/ko');
    expect(h.paymentCalls()).toBe(calls);
    const after = await order(o.uuid);
    expect(after).toMatchObject({ paid: false, safe: false, threeds_data: { status: 'U' } });
    expect(after.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
    expect(after.transactions[0].error_details).toMatch(/may try again/);
    expect((await simOrderOf(after.transactions[0].uuid)).captures).toEqual([]);
  });

  it('a card not enrolled in 3-D Secure (liability NO, enrollment N): continued and captured, but not recorded as authenticated', async () => {
    const c = customer();
    const source = await storeCard(t, m, PAYPAL_SIM_CARDS.NOT_ENROLLED, c);
    const o = await create({ customer_ext_id: c, secure: true });
    expect((await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: source })).status).toBe(303);
    const acs = await toPaypalPage(o.token);
    const calls = h.paymentCalls();
    // PayPal's page sends the cardholder straight back: no challenge for a card not enrolled
    expect(await authenticate(acs, null)).toBe('https://shop.example/ok');
    expect(h.paymentCalls()).toBe(calls + 1);
    const after = await order(o.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true, safe: false, threeds_data: { status: 'U' } });
  });

  it('MoTo: customer-initiated, with the security code, verified by AVS/CVV (no 3-D Secure); never MERCHANT with ONE_TIME', async () => {
    for (const pan of [luhnCard('41111114', ++n), PAYPAL_SIM_CARDS.SOFT_DECLINE]) {
      const o = await create();
      const paid = (await ok(m.api.post('/payment/moto', { order_uuid: o.uuid, method: 'PHONE', ...card(pan) }))).order;
      expect(paid, pan.slice(-4)).toMatchObject({ status: 'SUCCESS', paid: true });
      const paypalOrder = await simOrderOf(paid.transactions[0].uuid);
      expect(paypalOrder.verification).toBe('AVS_CVV');
      // the card is stored for the order's customer by this payment: its first use as a stored credential
      expect(paypalOrder.storedCredential).toEqual({ payment_initiator: 'CUSTOMER', payment_type: 'UNSCHEDULED', usage: 'FIRST' });
    }
  });

  it('stored credentials: FIRST on the payment that stores the card; merchant-initiated charges quote its reference with the card\'s network and date (Mastercard)', async () => {
    const c = customer();
    const first = await singleStep(luhnCard('55555555', ++n), { customer_ext_id: c });
    expect(first).toMatchObject({ status: 'SUCCESS' });
    const firstOrder = await simOrderOf(first.transactions[0].uuid);
    expect(firstOrder.storedCredential).toEqual({ payment_initiator: 'CUSTOMER', payment_type: 'UNSCHEDULED', usage: 'FIRST' });
    const reference = firstOrder.captures[0].network_transaction_reference!;
    expect(reference).toMatchObject({ network: 'MASTERCARD', date: expect.stringMatching(/^\d{4}$/) });
    expect(first.cof_txnid).toBe(reference.id);
    const cof = await t.p.database.db.selectFrom('paypal_cof').selectAll().where('network_reference', '=', reference.id).executeTakeFirstOrThrow();
    expect(cof).toMatchObject({ network: 'MASTERCARD', network_date: reference.date });

    // a subscription's charge (RECURRING) and a batch line (UNSCHEDULED): merchant-initiated
    const source = first.transactions[0].source.uuid as string;
    await ok(m.api.post('/subscriptions/product', { name: `P ${c}`, external_id: `prod-${c}` }));
    await ok(m.api.post('/subscriptions/plan', { name: `Plan ${c}`, external_id: `plan-${c}`, product: `prod-${c}`, amount: 990, interval: 1, interval_type: 'MONTHLY' }));
    expect(await ok(m.api.post('/subscriptions/subscription', { plan: `plan-${c}`, customer: c, payment_attempts_limit: 1, additional_data: { source_uuid: source } }))).toMatchObject({ status: 'PAID' });
    await t.p.jobs.drain({ queues: [CHARGE_QUEUE] });
    const file = Buffer.from(`amount,card,customer_external_id,service,additional,url_post\n450,${source},${c},${m.service_uuid},batch line,\n`).toString('base64');
    const batch = (await ok(m.api.post('/batch/authorizations', { data: file, filename: 'lines.csv' }))).batch;
    await t.m.batch.drain();
    const { rows } = await sql<{ id: string }>`select t.id from transactions t join orders o on o.id = t.order_id where o.customer_ext_id = ${c} and o.id <> ${first.uuid}`.execute(t.p.database.db);
    expect(rows).toHaveLength(2);
    const types: string[] = [];
    for (const row of rows) {
      const mit = await simOrderOf(row.id);
      expect(mit.status).toBe('COMPLETED');
      expect(mit.storedCredential).toMatchObject({ payment_initiator: 'MERCHANT', usage: 'SUBSEQUENT', previous_network_transaction_reference: { id: reference.id, network: 'MASTERCARD', date: reference.date } });
      types.push(String((mit.storedCredential as { payment_type?: string } | null)?.payment_type));
    }
    expect(types.sort()).toEqual(['RECURRING', 'UNSCHEDULED']);
    expect((await ok(m.api.get(`/batch/${batch.uuid}`))).lines[0]).toMatchObject({ status: 'SUCCEEDED', outcome: 'SUCCESS' });
  });

  it('a capture PENDING at PayPal is PENDING: not paid until PAYMENT.CAPTURE.COMPLETED; PAYMENT.CAPTURE.PENDING and the reconciler leave it waiting', async () => {
    const before = h.webhooks!.sent().length;
    const o = await singleStep(PAYPAL_SIM_CARDS.PENDING);
    expect(o).toMatchObject({ status: 'PENDING_PROCESSOR_RESPONSE', paid: false });
    const tx = o.transactions[0].uuid as string;
    const captureId = (await simOrderOf(tx)).paymentId!;
    expect(await txRow(tx)).toEqual({ status: 'PENDING', processor_id: captureId });
    await expect.poll(() => hooksOf(captureId, before).length).toBe(1);
    const [pending] = hooksOf(captureId, before);
    expect(JSON.parse(pending.body)).toMatchObject({ event_type: 'PAYMENT.CAPTURE.PENDING', resource: { status: 'PENDING', status_details: { reason: 'PENDING_REVIEW' } } });
    expect(await deliver(pending)).toBe('ignored');
    // the reconciler asks PayPal: still PENDING, nothing settled
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
    expect((await order(o.uuid)).status).toBe('PENDING_PROCESSOR_RESPONSE');
    await h.sim.decidePending(captureId, 'COMPLETED');
    const completed = hooksOf(captureId, before).find((d) => JSON.parse(d.body).event_type === 'PAYMENT.CAPTURE.COMPLETED')!;
    expect(await deliver(completed)).toBe('settled');
    expect(await order(o.uuid)).toMatchObject({ status: 'SUCCESS', paid: true });
  });

  it('a PENDING capture PayPal then denies: PAYMENT.CAPTURE.DENIED settles it declined, with PayPal\'s reason', async () => {
    const before = h.webhooks!.sent().length;
    const o = await singleStep(PAYPAL_SIM_CARDS.PENDING);
    expect(o.status).toBe('PENDING_PROCESSOR_RESPONSE');
    const captureId = (await simOrderOf(o.transactions[0].uuid)).paymentId!;
    await h.sim.decidePending(captureId, 'DENIED');
    const denied = hooksOf(captureId, before).find((d) => JSON.parse(d.body).event_type === 'PAYMENT.CAPTURE.DENIED')!;
    expect(await deliver(denied)).toBe('settled');
    const after = await order(o.uuid);
    expect(after).toMatchObject({ status: 'REFUSED', paid: false });
    expect(after.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED' });
    expect(after.transactions[0].error_details).toMatch(/PayPal denied the capture \(OTHER\)/);
  });

  it('an authorization PENDING at PayPal is PENDING, not declined: the reconciler settles it once PayPal decides', async () => {
    const o = await singleStep(PAYPAL_SIM_CARDS.PENDING, { operative: 'DEFERRED' });
    expect(o).toMatchObject({ status: 'PENDING_PROCESSOR_RESPONSE', paid: false });
    const authId = (await simOrderOf(o.transactions[0].uuid)).paymentId!;
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
    await h.sim.decidePending(authId, 'COMPLETED');
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(1);
    expect(await order(o.uuid)).toMatchObject({ status: 'PENDING_CONFIRMATION' });
  });

  it('HUF, which PayPal takes without decimals: amounts sent and read in whole forints; an amount with fillér is refused before anything is sent', async () => {
    const huf = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal, currency: 'HUF' });
    await t.p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', huf.client_uuid).execute();
    // 1500 forints: 150000 in the gateway's minor units (ISO 4217 gives HUF two)
    const paid = await singleStep(luhnCard('41111115', ++n), { amount: 150000 }, huf.api, huf.service_uuid);
    expect(paid).toMatchObject({ status: 'SUCCESS', paid: true, amount: 150000 });
    const paypalOrder = await simOrderOf(paid.transactions[0].uuid);
    expect(paypalOrder.amount).toEqual({ currency_code: 'HUF', value: '1500' });
    const refunded = (await ok(huf.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 50000 }))).order;
    expect(refunded).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 50000 });
    expect(h.sim.order(paypalOrder.id)!.refunds.map((r) => r.amount)).toEqual([{ currency_code: 'HUF', value: '500' }]);
    const orders = h.sim.calls.orders;
    const odd = await singleStep(luhnCard('41111115', ++n), { amount: 150050 }, huf.api, huf.service_uuid);
    expect(odd.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'PROCESSOR_ERROR' });
    expect(odd.transactions[0].error_details).toMatch(/HUF amounts without decimals/);
    expect(h.sim.calls.orders).toBe(orders);
  });
});
