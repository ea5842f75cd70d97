/**
 * Checkout.com as Checkout.com documents it, through the public API in production mode against the
 * simulator (which holds every request and answer to the API reference, spec.ts):
 *  - payment details (`GET /payments/{id}`, `GET /payments?reference=`) carry `status` and `approved`,
 *    no response code: a lost answer is settled by the reconciler from them, a decline's reason read from
 *    the payment's actions; a failed 3-D Secure authentication's code comes from the actions summary;
 *  - a capture, void or refund answered 202 is accepted, not done: PENDING (with its action id) until its
 *    webhook or the payment's actions decide it, which may be a decline (`payment_refund_declined`...);
 *  - stored credentials: the payment that stores a card says so (`store_for_future_use`), one that does
 *    not says that; merchant-initiated payments are `merchant_initiated` with `source.stored`, the first
 *    payment's scheme id as `previous_payment_id` and their payment type.
 * PostgreSQL only, like the Checkout.com conformance run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { CHARGE_QUEUE } from '../../src/modules/subscriptions/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { storeCard } from '../helpers/payments.js';
import { checkoutHarness, luhnCard, type WebhookSend } from '../helpers/connectors.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { CHECKOUT_SIM_CARDS } from '../../src/processors/checkout/simulator/rules.js';

const HTTPS = { 'x-forwarded-proto': 'https' };
const FORM = { ...HTTPS, 'content-type': 'application/x-www-form-urlencoded' };

describe.skipIf(process.env.PAYGATE_TEST_DB !== 'postgres')('Checkout.com as documented', () => {
  const h = checkoutHarness();
  let t: TestApp;
  let m: TestMerchant;
  let rx: Receiver;
  let n = 0;

  beforeAll(async () => {
    rx = await startReceiver();
    await h.start();
    t = await createTestApp(h.env());
    m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
    await t.p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', m.client_uuid).execute();
  });
  afterAll(async () => {
    await t?.close();
    await h.close();
    await rx?.close();
  });

  const send: WebhookSend = async (d) => {
    const r = await t.app.inject({ method: 'POST', url: d.path, headers: d.headers, payload: d.body });
    return { status: r.statusCode, body: r.body };
  };
  const order = async (uuid: string) => (await m.api.get(`/order/${uuid}`)).body.order;
  const card = (pan: string) => ({ card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' });
  const customer = () => `fid-${++n}`;
  const pay = async (pan: string, fields: Record<string, unknown> = {}) => {
    const r = await m.api.post('/payment/single-step', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'fidelity', service: m.service_uuid, customer_ext_id: customer(), ...card(pan), ...fields });
    expect(r.status, r.raw).toBe(200);
    return r.body.order;
  };
  const reconcile = () => t.m.payments.reconcile({ olderThanMs: 0 });

  // ---- C1: payment details carry no response code ----------------------------------------------------------

  it('a lost answer of an approved payment is settled by the reconciler from the payment\'s details (status, approved)', async () => {
    h.fault('answer-lost');
    const lost = await pay(luhnCard('42424245', ++n));
    expect(lost).toMatchObject({ status: 'PENDING_PROCESSOR_RESPONSE' });
    const found = h.sim.paymentByReference(lost.transactions[0].uuid)!;
    expect(found).toMatchObject({ approved: true, status: 'Captured' });
    expect(await reconcile()).toBe(1);
    const after = await order(lost.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(after.transactions[0]).toMatchObject({ status: 'SUCCESS', processor_id: found.id });
    // the authorization code is the authorization action's (details have none)
    expect(after.transactions[0].authorization).toBe(found.authCode);
  });

  it('a lost answer of a declined payment is settled as declined, its reason read from the payment\'s actions', async () => {
    h.fault('answer-lost');
    const lost = await pay(CHECKOUT_SIM_CARDS.INSUFFICIENT_FUNDS);
    expect(lost).toMatchObject({ status: 'PENDING_PROCESSOR_RESPONSE' });
    expect(await reconcile()).toBe(1);
    const after = await order(lost.uuid);
    expect(after.status).toBe('REFUSED');
    expect(after.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'INSUFFICIENT_FUNDS' });
    expect(after.transactions[0].error_details).toContain('20051');
  });

  it('a cardholder who fails Checkout.com\'s 3-D Secure page: the payment is refused with the code of its actions summary (20151)', async () => {
    const c = customer();
    const source = await storeCard(t, m, CHECKOUT_SIM_CARDS.SOFT_DECLINE, c);
    const created = (await m.api.post('/payment', { amount: 1500, operative: 'AUTHORIZATION', secure: false, description: '3ds fails', service: m.service_uuid, customer_ext_id: c, url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' })).body.order;
    expect((await m.api.post('/payment/direct', { order_uuid: created.uuid, card_uuid: source })).status).toBe(303);
    const tokenized = `/v1/payment/tokenized/${created.token}`;
    const page = await t.app.inject({ method: 'GET', url: tokenized, headers: HTTPS });
    const nonce = /name="nonce" value="([^"]+)"/.exec(page.body)![1];
    const browser = { nonce, method: 'U', js: 'true', java: 'false', language: 'en-GB', color_depth: '24', screen_height: '900', screen_width: '1440', tz: '0' };
    const auth = await t.app.inject({ method: 'POST', url: `${tokenized}/authenticate`, headers: FORM, payload: new URLSearchParams(browser).toString() });
    const acs = /<form method="post" action="([^"]+)" id="threeds-acs">/.exec(auth.body)![1].replace(/&amp;/g, '&');
    const back = await fetch(acs, { method: 'POST', body: new URLSearchParams({ result: 'N' }), redirect: 'manual' });
    const location = new URL(String(back.headers.get('location')));
    expect(location.searchParams.get('cko-session-id')).toMatch(/^sid_/);
    const final = await t.app.inject({ method: 'GET', url: `${location.pathname}${location.search}`, headers: HTTPS });
    expect(final.statusCode).toBe(303);
    expect(final.headers.location).toBe('https://shop.example/ko');
    const after = await order(created.uuid);
    expect(after.status).toBe('REFUSED');
    expect(after.transactions.at(-1)).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
    expect(after.transactions.at(-1).error_details).toContain('20151');
  });

  // ---- C2: captures, voids and refunds are asynchronous ----------------------------------------------------

  it('a refund accepted (202) and then declined by Checkout.com: PENDING, then refused by its webhook; nothing was refunded, the merchant is notified', async () => {
    const paid = await pay(luhnCard('42424246', ++n), { url_post: `${rx.url}/declined-refund` });
    h.sim.declineNextFollowUp({ kind: 'refund', code: '20057' });
    const r = await m.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 400 });
    expect(r.status, r.raw).toBe(200);
    const refund = r.body.order.transactions.at(-1);
    expect(refund).toMatchObject({ operative: 'REFUND', status: 'PENDING', amount: 400 });
    expect(r.body.order).toMatchObject({ status: 'SUCCESS', refunded: 0 });
    // the transaction keeps Checkout.com's action id while it waits
    const accepted = h.sim.payment(paid.transactions[0].processor_id)!;
    expect(refund.processor_id).toMatch(/^act_/);
    expect(h.sim.isFollowUpAction(refund.processor_id)).toBe(true);
    await h.deliverDecisions!(send);
    const after = await order(paid.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', refunded: 0 });
    expect(after.transactions.at(-1)).toMatchObject({ uuid: refund.uuid, status: 'REFUSED', error: 'DENIED' });
    expect(after.transactions.at(-1).error_details).toContain('20057');
    expect(accepted.actions.at(-1)).toMatchObject({ type: 'Refund', approved: false, response_code: '20057' });
    const events = await t.p.database.db.selectFrom('checkout_webhook_events').select(['type', 'outcome']).where('reference', '=', refund.uuid).execute();
    expect(events).toEqual([{ type: 'payment_refund_declined', outcome: 'DECLINED' }]);
    // nobody was waiting for the refund's answer: the refusal is notified (after the payment's own notification)
    await t.p.jobs.drain();
    const sent = rx.received.filter((x) => x.path === '/declined-refund').map((x) => JSON.parse(x.body).order);
    expect(sent.map((o) => [o.status, o.transactions.at(-1).status])).toEqual([['SUCCESS', 'SUCCESS'], ['SUCCESS', 'REFUSED']]);
  });

  it('a capture declined after acceptance leaves the pre-authorization to confirm; a void accepted then approved cancels it', async () => {
    const pre = await pay(luhnCard('42424247', ++n), { operative: 'DEFERRED' });
    h.sim.declineNextFollowUp({ kind: 'capture' });
    const capture = (await m.api.post('/payment/confirmation', { order_uuid: pre.uuid, amount: 1000 })).body.order;
    expect(capture).toMatchObject({ status: 'PENDING_CONFIRMATION' });
    expect(capture.transactions.at(-1)).toMatchObject({ operative: 'CONFIRMATION', status: 'PENDING' });
    await h.deliverDecisions!(send);
    const declined = await order(pre.uuid);
    expect(declined).toMatchObject({ status: 'PENDING_CONFIRMATION', paid: false });
    expect(declined.transactions.at(-1)).toMatchObject({ operative: 'CONFIRMATION', status: 'REFUSED', error: 'DENIED' });
    const cancelling = (await m.api.post('/payment/cancellation', { order_uuid: pre.uuid })).body.order;
    expect(cancelling).toMatchObject({ status: 'PENDING_CONFIRMATION' });
    expect(cancelling.transactions.at(-1)).toMatchObject({ operative: 'CANCELLATION', status: 'PENDING' });
    await h.deliverDecisions!(send);
    const cancelled = await order(pre.uuid);
    expect(cancelled.status).toBe('CANCELLED');
    expect(cancelled.transactions.at(-1)).toMatchObject({ operative: 'CANCELLATION', status: 'SUCCESS' });
  });

  it('a refund whose webhook never comes: the reconciler leaves it PENDING while Checkout.com has not decided it, then settles it from the payment\'s actions', async () => {
    const paid = await pay(luhnCard('42424248', ++n));
    h.sim.holdDecisions = true;
    try {
      const refund = (await m.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 1000 })).body.order.transactions.at(-1);
      expect(refund.status).toBe('PENDING');
      // accepted, not decided: asked, and left as it is
      const queries = h.sim.calls.queries;
      expect(await reconcile()).toBe(0);
      expect(h.sim.calls.queries).toBeGreaterThan(queries);
      expect((await order(paid.uuid)).transactions.at(-1)).toMatchObject({ uuid: refund.uuid, status: 'PENDING' });
      // decided; its webhook is lost (never delivered): the payment's actions say it
      await h.sim.decide();
      expect(await reconcile()).toBe(1);
      const after = await order(paid.uuid);
      expect(after).toMatchObject({ status: 'REFUNDED', refunded: 1000 });
      expect(after.transactions.at(-1)).toMatchObject({ uuid: refund.uuid, status: 'SUCCESS' });
    } finally {
      h.sim.holdDecisions = false;
      // the undelivered decision's webhook: already settled, changes nothing
      await h.deliverDecisions!(send);
    }
  });

  it('with autorecover_transactions off too, a refund Checkout.com accepted is decided by Checkout.com, not timed out by the reconciler', async () => {
    const other = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
    const paid = (await other.api.post('/payment/single-step', { amount: 800, operative: 'AUTHORIZATION', secure: false, description: 'no autorecover', service: other.service_uuid, customer_ext_id: customer(), ...card(luhnCard('42424251', ++n)) })).body.order;
    expect(paid.status).toBe('SUCCESS');
    h.sim.holdDecisions = true;
    try {
      const refund = (await other.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 800 })).body.order.transactions.at(-1);
      expect(refund.status).toBe('PENDING');
      expect(await reconcile()).toBe(0);
      expect((await other.api.get(`/order/${paid.uuid}`)).body.order.transactions.at(-1)).toMatchObject({ uuid: refund.uuid, status: 'PENDING' });
      await h.sim.decide();
      expect(await reconcile()).toBe(1);
      expect((await other.api.get(`/order/${paid.uuid}`)).body.order).toMatchObject({ status: 'REFUNDED', refunded: 800 });
    } finally {
      h.sim.holdDecisions = false;
      await h.deliverDecisions!(send);
    }
  });

  // ---- C3: stored credentials ---------------------------------------------------------------------------

  it('the payment that stores the card says so; one that does not store it says that', async () => {
    const stored = await pay(luhnCard('42424249', ++n));
    expect(h.sim.paymentByReference(stored.transactions[0].uuid)!.request).toEqual({ paymentType: 'Regular', merchantInitiated: false, stored: false, storeForFutureUse: true, previousPaymentId: null });
    // a MoTo payment of an order without a customer: the card is not kept
    const o = (await m.api.post('/payment', { amount: 700, operative: 'AUTHORIZATION', secure: false, description: 'moto', service: m.service_uuid })).body.order;
    const moto = (await m.api.post('/payment/moto', { order_uuid: o.uuid, method: 'PHONE', ...card(luhnCard('42424250', ++n)) })).body.order;
    expect(moto.status).toBe('SUCCESS');
    expect(h.sim.paymentByReference(moto.transactions[0].uuid)!.request).toMatchObject({ paymentType: 'MOTO', merchantInitiated: false, storeForFutureUse: false });
  });

  it('merchant-initiated charges (a subscription\'s, a batch line) are flagged as Checkout.com\'s stored-card rules ask: the card that needs SCA is charged', async () => {
    // the card asks for authentication unless the payment is MoTo or a merchant-initiated one flagged as stored
    const c = customer();
    const first = (await m.api.post('/payment/single-step', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'first', service: m.service_uuid, customer_ext_id: c, ...card(CHECKOUT_SIM_CARDS.SOFT_DECLINE), threeds_data: { version: '2.2.0', trans_status: 'Y', eci: '05', cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', ds_trans_id: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' } })).body.order;
    expect(first).toMatchObject({ status: 'SUCCESS' });
    const firstPayment = h.sim.paymentByReference(first.transactions[0].uuid)!;
    expect(firstPayment.request.storeForFutureUse).toBe(true);
    const source = first.transactions[0].source.uuid as string;
    await m.api.post('/subscriptions/product', { name: `P ${c}`, external_id: `prod-${c}` });
    await m.api.post('/subscriptions/plan', { name: `Plan ${c}`, external_id: `plan-${c}`, product: `prod-${c}`, amount: 990, interval: 1, interval_type: 'MONTHLY' });
    const sub = await m.api.post('/subscriptions/subscription', { plan: `plan-${c}`, customer: c, payment_attempts_limit: 1, additional_data: { source_uuid: source } });
    expect(sub.status, sub.raw).toBe(200);
    await t.p.jobs.drain({ queues: [CHARGE_QUEUE] });
    const { rows } = await sql<{ id: string; status: string }>`select id, status from orders where customer_ext_id = ${c} and id <> ${first.uuid}`.execute(t.p.database.db);
    expect(rows).toHaveLength(1);
    expect(rows[0].status).toBe('SUCCESS');
    const charge = await order(rows[0].id);
    const sent = h.sim.paymentByReference(charge.transactions[0].uuid)!.request;
    expect(sent).toMatchObject({ merchantInitiated: true, stored: true, storeForFutureUse: null, previousPaymentId: firstPayment.schemeId });
    expect(['Recurring', 'Unscheduled']).toContain(sent.paymentType);

    const file = Buffer.from(`amount,card,customer_external_id,service,additional,url_post\n450,${source},${c},${m.service_uuid},batch line,\n`).toString('base64');
    const batch = (await m.api.post('/batch/authorizations', { data: file, filename: 'lines.csv' })).body.batch;
    await t.m.batch.drain();
    const line = (await m.api.get(`/batch/${batch.uuid}`)).body.lines[0];
    expect(line).toMatchObject({ status: 'SUCCEEDED', outcome: 'SUCCESS' });
    const lineOrder = await order(line.order_uuid);
    expect(h.sim.paymentByReference(lineOrder.transactions[0].uuid)!.request).toEqual({ paymentType: 'Unscheduled', merchantInitiated: true, stored: true, storeForFutureUse: null, previousPaymentId: firstPayment.schemeId });
  });
});
