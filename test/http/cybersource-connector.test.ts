/**
 * CyberSource in production against its simulator, beyond the conformance scenarios: the terminal's
 * credentials (formats, and tested against CyberSource's signature check without moving money), EMV
 * 3-D Secure 2 through CyberSource's Payer Authentication driven by the hosted page (frictionless; the
 * ACS challenge passed and failed, the ACS's answer posted back, the authentication validated), a payment
 * held for review (PENDING until the transaction search shows it decided), and the stored-credential fields CyberSource received for a card's first use and a merchant-initiated charge.
 * A refund CyberSource accepts (PENDING) is decided in its settlement batch: it stays PENDING until the
 * reconciler's transaction search shows it TRANSMITTED (SUCCESS) or FAILED (declined: nothing refunded,
 * the amount refundable again, the merchant notified).
 * PostgreSQL only (the conformance suite covers the connector there; these add no engine-specific
 * behaviour).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { storeCard } from '../helpers/payments.js';
import { harnessOf, luhnCard } from '../helpers/connectors.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { declarationNamed } from '../../src/processors/connectors.js';
import type { CybersourceSimulator } from '../../src/processors/cybersource/simulator/server.js';
import { CYBERSOURCE_SIM_CARDS } from '../../src/processors/cybersource/simulator/rules.js';

const HTTPS = { 'x-forwarded-proto': 'https' };
const FORM = { ...HTTPS, 'content-type': 'application/x-www-form-urlencoded' };

describe.skipIf(process.env.PAYGATE_TEST_DB !== 'postgres')('CyberSource connector', () => {
  const h = harnessOf<CybersourceSimulator>(declarationNamed('cybersource')!);
  let t: TestApp;
  let m: TestMerchant;
  let rx: Receiver;
  let n = 0;

  beforeAll(async () => {
    rx = await startReceiver();
    await h.start();
    t = await createTestApp(h.env());
    m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
    // a payment approved after review is kept (not reversed as a late approval)
    await t.p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', m.client_uuid).execute();
  });
  afterAll(async () => {
    await t?.close();
    await h.close();
    await rx?.close();
  });

  const attr = (body: string, re: RegExp) => {
    const v = re.exec(body)?.[1];
    if (v === undefined) throw new Error(`not in the page: ${re}\n${body.slice(0, 2000)}`);
    return v.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#x2F;/g, '/');
  };
  const order = async (uuid: string) => (await m.api.get(`/order/${uuid}`)).body.order;

  it('production CYBERSOURCE terminals need the merchant id, key serial number and shared secret in their formats; test_credentials asks CyberSource', async () => {
    const bad = await m.api.post('/terminal', { currency_code: 'EUR', type: 'CYBERSOURCE', description: 'c', credentials: { merchant_id: 'paygate conformance', key_id: 'k1' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toMatch(/missing: shared_secret_key/);
    expect(bad.body.details).toMatch(/credentials.key_id must be the key serial number/);
    const calls = h.paymentCalls();
    expect((await m.api.post('/terminal', { currency_code: 'EUR', type: 'CYBERSOURCE', description: 'c', credentials: h.terminal.credentials, test_credentials: true })).status).toBe(200);
    const wrong = await m.api.post('/terminal', { currency_code: 'EUR', type: 'CYBERSOURCE', description: 'c', credentials: { ...h.terminal.credentials, shared_secret_key: Buffer.alloc(32, 7).toString('base64') }, test_credentials: true });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toMatch(/CyberSource refused the signature/);
    expect(h.paymentCalls()).toBe(calls);
  });

  /** A stored card's payment soft-declined (asks for 3-D Secure), then the hosted page's browser data posted. */
  async function toAuthentication(pan: string, amount: number) {
    const c = `cs3ds-${++n}`;
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
    const shown = await fetch(acs, { method: 'POST', body: new URLSearchParams({ creq: attr(auth.body, /name="creq" value="([^"]+)"/) }) });
    expect(await shown.text()).toContain('id="pass"');
    const back = await (await fetch(acs, { method: 'POST', body: new URLSearchParams({ result: answer }) })).text();
    return { action: new URL(attr(back, /<form id="f" method="post" action="([^"]+)">/)), cres: attr(back, /name="cres" value="([^"]+)"/) };
  }

  it('a soft decline goes through the ACS challenge: the cardholder passes, CyberSource validates the authentication and approves once', async () => {
    const { created, tokenized, auth } = await toAuthentication(CYBERSOURCE_SIM_CARDS.CHALLENGE, 1800);
    expect(auth.statusCode).toBe(200);
    const { action, cres } = await atTheAcs(auth, 'Y');
    expect(action.pathname).toBe(`${tokenized}/cres`);
    const final = await t.app.inject({ method: 'POST', url: action.pathname, headers: FORM, payload: new URLSearchParams({ cres }).toString() });
    expect(final.statusCode, final.body.slice(0, 300)).toBe(303);
    expect(final.headers.location).toBe('https://shop.example/ok');
    const after = await order(created.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    const paid = h.sim.payment(after.transactions.at(-1).processor_id)!;
    expect(paid).toMatchObject({ approved: true, amount: 1800, capture: true });
    expect(paid.request.actionList).toEqual(['VALIDATE_CONSUMER_AUTHENTICATION']);
    // the ACS's answer posted again changes nothing
    const again = await t.app.inject({ method: 'POST', url: action.pathname, headers: FORM, payload: new URLSearchParams({ cres }).toString() });
    expect(again.statusCode).toBeLessThan(500);
    expect((await order(created.uuid)).transactions).toHaveLength(after.transactions.length);
  });

  it('a failed challenge refuses the payment (AUTHENTICATION_FAILED) and sends the customer to url_ko', async () => {
    const { created, auth } = await toAuthentication(CYBERSOURCE_SIM_CARDS.CHALLENGE, 1500);
    const { action, cres } = await atTheAcs(auth, 'N');
    const final = await t.app.inject({ method: 'POST', url: action.pathname, headers: FORM, payload: new URLSearchParams({ cres }).toString() });
    expect(final.statusCode).toBe(303);
    expect(final.headers.location).toBe('https://shop.example/ko');
    const after = await order(created.uuid);
    expect(after.status).toBe('REFUSED');
    expect(after.transactions.at(-1)).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
    expect(after.transactions.at(-1).error_details).toMatch(/CONSUMER_AUTHENTICATION_FAILED/);
  });

  it('frictionless: CyberSource authenticates and authorizes in the same answer, no challenge shown', async () => {
    const { created, auth } = await toAuthentication(CYBERSOURCE_SIM_CARDS.SOFT_DECLINE, 1200);
    expect(auth.statusCode).toBe(303);
    expect(auth.headers.location).toBe('https://shop.example/ok');
    const after = await order(created.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(h.sim.payment(after.transactions.at(-1).processor_id)!.request.actionList).toEqual(['CONSUMER_AUTHENTICATION']);
  });

  it('a payment Decision Manager holds for review stays PENDING until CyberSource decides it: accepted, SUCCESS; rejected, refused as fraud', async () => {
    const pay = async () => (await m.api.post('/payment/single-step', { amount: 1300, operative: 'AUTHORIZATION', secure: false, description: 'review', service: m.service_uuid, customer_ext_id: `csrev-${++n}`, card_holder: 'Ana Pérez', card_pan: CYBERSOURCE_SIM_CARDS.REVIEW, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' })).body.order;
    const accepted = await pay();
    const rejected = await pay();
    for (const o of [accepted, rejected]) {
      expect(o).toMatchObject({ status: 'PENDING_PROCESSOR_RESPONSE', paid: false });
      expect(o.transactions[0].status).toBe('PENDING');
    }
    // the search still shows the review (reason code 480): nothing is settled
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
    expect((await order(accepted.uuid)).status).toBe('PENDING_PROCESSOR_RESPONSE');
    h.sim.decideReview(accepted.transactions[0].uuid, true);
    h.sim.decideReview(rejected.transactions[0].uuid, false);
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(2);
    expect(await order(accepted.uuid)).toMatchObject({ status: 'SUCCESS', paid: true });
    const refused = await order(rejected.uuid);
    // a fraud decline's order is FRAUD (the contract's status for FRAUD_SUSPECTED)
    expect(refused).toMatchObject({ status: 'FRAUD', paid: false });
    expect(refused.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'FRAUD_SUSPECTED' });
  });

  it('stored credentials: the first payment says the card is stored on file; a merchant-initiated charge quotes its network transaction id', async () => {
    const c = `cscof-${++n}`;
    const first = (await m.api.post('/payment/single-step', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'first', service: m.service_uuid, customer_ext_id: c, card_holder: 'Ana Pérez', card_pan: luhnCard('41111112', n), card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123', save_card: true })).body.order;
    expect(first.status).toBe('SUCCESS');
    const firstAtCs = h.sim.payment(first.transactions[0].processor_id)!;
    expect(firstAtCs.request).toMatchObject({ commerceIndicator: 'internet', initiatorType: 'customer', credentialStoredOnFile: true });
    expect(first.cof_txnid).toBe(firstAtCs.networkId);
    await m.api.post('/subscriptions/product', { name: `P ${c}`, external_id: `prod-${c}` });
    await m.api.post('/subscriptions/plan', { name: `Plan ${c}`, external_id: `plan-${c}`, product: `prod-${c}`, amount: 990, interval: 1, interval_type: 'MONTHLY' });
    const sub = await m.api.post('/subscriptions/subscription', { plan: `plan-${c}`, customer: c, payment_attempts_limit: 1, additional_data: { source_uuid: first.transactions[0].source.uuid } });
    expect(sub.status, sub.raw).toBe(200);
    const charge = (await t.p.database.db.selectFrom('transactions').select('processor_id').where('amount', '=', 990).orderBy('created_at', 'desc').executeTakeFirstOrThrow()).processor_id!;
    expect(h.sim.payment(charge)!.request).toMatchObject({ commerceIndicator: 'recurring', initiatorType: 'merchant', storedCredentialUsed: true, previousTransactionId: first.cof_txnid });
  });

  // ---- a refund is decided in CyberSource's settlement batch ---------------------------------------------

  const reconcile = () => t.m.payments.reconcile({ olderThanMs: 0 });
  const paidWithNotifications = async () => {
    const path = `/cs/${++n}`;
    const r = await m.api.post('/payment/single-step', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'refund', service: m.service_uuid, customer_ext_id: `csref-${n}`, card_holder: 'Ana Pérez', card_pan: luhnCard('41111113', n), card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123', url_post: `${rx.url}${path}` });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.status).toBe('SUCCESS');
    return { ...r.body.order, path };
  };
  /** The notifications the merchant's url_post got for an order, oldest first. */
  const notified = async (o: { path: string }) => {
    await t.p.jobs.drain();
    return rx.received.filter((r) => r.path === o.path).map((r) => JSON.parse(r.body).order);
  };

  it('a refund CyberSource accepts (PENDING) and its settlement batch fails: PENDING until the search says FAILED, then declined; not refunded, refundable again, the merchant notified', async () => {
    const paid = await paidWithNotifications();
    h.sim.holdDecisions = true;
    try {
      h.sim.failNextRefund();
      const r = await m.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 400 });
      expect(r.status, r.raw).toBe(200);
      const tx = r.body.order.transactions.at(-1);
      expect(tx).toMatchObject({ operative: 'REFUND', status: 'PENDING', amount: 400 });
      expect(r.body.order).toMatchObject({ status: 'SUCCESS', refunded: 0 });
      // the transaction keeps CyberSource's refund id while it waits
      expect(tx.processor_id).toMatch(/^\d{22}$/);
      // the batch has not run: the search shows it PENDING, nothing is settled
      const searches = h.sim.calls.searches;
      expect(await reconcile()).toBe(0);
      expect(h.sim.calls.searches).toBeGreaterThan(searches);
      expect((await order(paid.uuid)).transactions.at(-1)).toMatchObject({ uuid: tx.uuid, status: 'PENDING' });
      const before = (await notified(paid)).length;
      await h.sim.decide();
      expect(await reconcile()).toBe(1);
      const after = await order(paid.uuid);
      expect(after).toMatchObject({ status: 'SUCCESS', refunded: 0 });
      expect(after.transactions.at(-1)).toMatchObject({ uuid: tx.uuid, status: 'REFUSED', error: 'PROCESSOR_ERROR' });
      expect(after.transactions.at(-1).error_details).toMatch(/settlement batch \(PROCESSOR_DECLINED\)/);
      const sent = (await notified(paid)).slice(before);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ uuid: paid.uuid, status: 'SUCCESS', refunded: 0 });
      expect(sent[0].transactions.at(-1)).toMatchObject({ uuid: tx.uuid, status: 'REFUSED' });
      // the whole amount is refundable again (at CyberSource too), once the retry rules' wait has passed
      expect((await m.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 1000 })).status).toBe(429);
      await t.p.database.db.updateTable('order_operation_retries').set({ last_failure_at: new Date(Date.now() - 3_600_000) }).where('order_id', '=', paid.uuid).execute();
      const again = (await m.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 1000 })).body.order;
      expect(again.transactions.at(-1)).toMatchObject({ operative: 'REFUND', status: 'PENDING', amount: 1000 });
      await h.sim.decide();
      expect(await reconcile()).toBe(1);
      expect(await order(paid.uuid)).toMatchObject({ status: 'REFUNDED', refunded: 1000 });
    } finally {
      h.sim.holdDecisions = false;
    }
  });

  it('a refund transmitted in the settlement batch ends SUCCESS once the search says so; the merchant is notified of the refund', async () => {
    const paid = await paidWithNotifications();
    const r = (await m.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 300 })).body.order;
    const tx = r.transactions.at(-1);
    expect(tx).toMatchObject({ operative: 'REFUND', status: 'PENDING' });
    expect(r).toMatchObject({ status: 'SUCCESS', refunded: 0 });
    await h.sim.decide();
    expect(await reconcile()).toBe(1);
    const after = await order(paid.uuid);
    expect(after).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 300 });
    expect(after.transactions.at(-1)).toMatchObject({ uuid: tx.uuid, status: 'SUCCESS', processor_id: tx.processor_id });
    expect((await notified(paid)).at(-1)).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 300 });
    // decided once
    expect(await reconcile()).toBe(0);
  });
});
