/**
 * Worldpay in production against its simulator, beyond the conformance scenarios: terminal credentials
 * checked and tested against Worldpay; 3-D Secure 2 through Worldpay driven by the hosted page (a soft
 * decline authorized once device data is supplied; the challenge page posted the challenge's JWT, its
 * TransactionId posted back, the payment completed through `complete3dsChallenge`, then refunded through the actions of its answer); a settle whose answer was
 * lost, found again among the payment's events by the reconciler; a payment whose answer was lost, found
 * by the reconciler (its own link read from the Payment Queries API) and then refunded; events: a forged
 * one (another secret, or none) changes nothing and is not recorded, a replayed one is recognised by its
 * event id, and the payment it settled can be refunded. A refund
 * Worldpay takes (sentForRefund) is PENDING until Worldpay processes it: its `refunded` event settles it;
 * `refundFailed` declines it (nothing refunded, the amount refundable again, the merchant notified);
 * without events, the reconciler reads it among the payment's events.
 * PostgreSQL only (the conformance suite covers the connector there; these add no engine-specific
 * behaviour).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { storeCard } from '../helpers/payments.js';
import { harnessOf, luhnCard, type WebhookSend } from '../helpers/connectors.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { declarationNamed } from '../../src/processors/connectors.js';
import type { WorldpaySimulator } from '../../src/processors/worldpay/simulator/server.js';
import { WORLDPAY_SIM_CARDS, WORLDPAY_SIM_FAILED_REFUND_AMOUNT } from '../../src/processors/worldpay/simulator/rules.js';

const HTTPS = { 'x-forwarded-proto': 'https' };
const FORM = { ...HTTPS, 'content-type': 'application/x-www-form-urlencoded' };
const WEBHOOK = '/v1/processor/worldpay/webhook';

describe.skipIf(process.env.PAYGATE_TEST_DB !== 'postgres')('Worldpay connector', () => {
  const h = harnessOf<WorldpaySimulator>(declarationNamed('worldpay')!);
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

  const attr = (body: string, re: RegExp) => {
    const v = re.exec(body)?.[1];
    if (v === undefined) throw new Error(`not in the page: ${re}\n${body.slice(0, 2000)}`);
    return v.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#x2F;/g, '/');
  };
  const order = async (uuid: string) => (await m.api.get(`/order/${uuid}`)).body.order;
  const key = h.terminal.credentials.event_signature_key;
  const sign = (body: string, secret = key) => `1/SHA256/${createHmac('sha256', secret).update(body).digest('hex')}`;
  const deliver = async (body: string, signature: string | null) => {
    const r = await t.app.inject({ method: 'POST', url: WEBHOOK, headers: { ...HTTPS, 'content-type': 'application/vnd.worldpay.events-v1.hal+json', ...(signature === null ? {} : { 'event-signature': signature }) }, payload: body });
    expect(r.statusCode).toBe(200);
    return r.body.replace(/^[\s\S]*<\/title>/, '').trim();
  };
  const send: WebhookSend = async (d) => {
    const r = await t.app.inject({ method: 'POST', url: d.path, headers: d.headers, payload: d.body });
    return { status: r.statusCode, body: r.body };
  };
  /** A refund: PENDING when Worldpay takes it (nothing refunded yet), then the order once Worldpay processed it and its event arrived. */
  const refund = async (uuid: string, amount: number) => {
    const r = await m.api.post('/payment/refund', { order_uuid: uuid, amount });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.transactions.at(-1)).toMatchObject({ operative: 'REFUND', status: 'PENDING', amount });
    await h.deliverDecisions!(send);
    return order(uuid);
  };
  const events = async (reference: string) => (await sql<{ event_id: string }>`select event_id from connector_events where connector = 'worldpay' and reference = ${reference}`.execute(t.p.database.db)).rows;
  const single = (fields: Record<string, unknown>) => m.api.post('/payment/single-step', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'worldpay', service: m.service_uuid, customer_ext_id: `wp-${++n}`, card_holder: 'Ana', card_pan: luhnCard('44443334', n), card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123', ...fields });

  it('production WORLDPAY terminals need the Access credentials (400 naming what is wrong); test_credentials asks Worldpay without moving money', async () => {
    const bad = await m.api.post('/terminal', { currency_code: 'EUR', type: 'WORLDPAY', description: 'w', credentials: { username: 'u:x', password: 'p' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toMatch(/missing: entity, event_signature_key/);
    expect(bad.body.details).toMatch(/credentials.username/);
    const calls = h.paymentCalls();
    expect((await m.api.post('/terminal', { currency_code: 'EUR', type: 'WORLDPAY', description: 'w', credentials: h.terminal.credentials, test_credentials: true })).status).toBe(200);
    const wrong = await m.api.post('/terminal', { currency_code: 'EUR', type: 'WORLDPAY', description: 'w', credentials: { ...h.terminal.credentials, password: 'not-the-password-0000' }, test_credentials: true });
    expect(wrong.status).toBe(400);
    expect(wrong.body.details).toMatch(/were refused by Worldpay/);
    expect(h.paymentCalls()).toBe(calls);
  });

  const threedsPage = async (token: string) => {
    const tokenized = `/v1/payment/tokenized/${token}`;
    const page = await t.app.inject({ method: 'GET', url: tokenized, headers: HTTPS });
    expect(page.statusCode, page.body.slice(0, 500)).toBe(200);
    const browser = { nonce: attr(page.body, /name="nonce" value="([^"]+)"/), method: 'U', js: 'true', java: 'false', language: 'en-GB', color_depth: '24', screen_height: '900', screen_width: '1440', tz: '0' };
    return { tokenized, auth: await t.app.inject({ method: 'POST', url: `${tokenized}/authenticate`, headers: FORM, payload: new URLSearchParams(browser).toString() }) };
  };

  it('a soft decline goes through Worldpay\'s 3-D Secure from the hosted page: device data supplied, authorized without a challenge', async () => {
    const c = `wsoft-${++n}`;
    const soft = await storeCard(t, m, WORLDPAY_SIM_CARDS.SOFT_DECLINE, c);
    const created = (await m.api.post('/payment', { amount: 1500, operative: 'AUTHORIZATION', secure: false, description: 'soft', service: m.service_uuid, customer_ext_id: c, url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' })).body.order;
    const r = await m.api.post('/payment/direct', { order_uuid: created.uuid, card_uuid: soft });
    expect(r.status, r.raw).toBe(303);
    const { auth } = await threedsPage(created.token);
    expect(auth.statusCode).toBe(303);
    expect(auth.headers.location).toBe('https://shop.example/ok');
    const after = await order(created.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    // the soft-declined attempt went under our reference, the authenticated one under a reference of its own
    const tx = after.transactions.at(-1);
    expect(h.sim.paymentByReference(tx.uuid)).toMatchObject({ state: 'refused', refusal: { code: '1A' } });
    expect(h.sim.paymentByReference(`${tx.uuid}-3ds`)).toMatchObject({ state: 'settled', settled: 1500 });
    // a refund follows the actions of the authenticated payment; its refunded event names the authenticated payment's reference
    expect(await refund(created.uuid, 1500)).toMatchObject({ status: 'REFUNDED', refunded: 1500 });
    expect(h.sim.paymentByReference(`${tx.uuid}-3ds`)).toMatchObject({ refunded: 1500 });
  });

  it('the 3-D Secure challenge: Worldpay\'s challenge page posted its JWT, its TransactionId posted back, completed once through complete3dsChallenge; then refunded in part', async () => {
    const c = `w3ds-${++n}`;
    const card = await storeCard(t, m, WORLDPAY_SIM_CARDS.CHALLENGE, c);
    const created = (await m.api.post('/payment', { amount: 1800, operative: 'AUTHORIZATION', secure: true, description: 'challenge', service: m.service_uuid, customer_ext_id: c, url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' })).body.order;
    const r = await m.api.post('/payment/direct', { order_uuid: created.uuid, card_uuid: card });
    expect(r.status, r.raw).toBe(303);
    const { tokenized, auth } = await threedsPage(created.token);
    expect(auth.statusCode, String(auth.headers.location)).toBe(200);
    const acs = attr(auth.body, /<form method="post" action="([^"]+)" id="threeds-acs">/);
    expect(acs).toMatch(new RegExp(`^${h.sim.url}/sim/3ds/`));
    const tx = (await order(created.uuid)).transactions.at(-1);
    expect(h.sim.paymentByReference(tx.uuid)).toMatchObject({ state: 'challenge', amount: 1800 });
    // our page posts Worldpay's challenge JWT to its challenge page, as Worldpay's page takes it
    const jwt = attr(auth.body, /name="JWT" value="([^"]+)"/);
    expect(jwt.split('.')).toHaveLength(3);
    const shown = await fetch(acs, { method: 'POST', body: new URLSearchParams({ JWT: jwt }) });
    expect(await shown.text()).toContain('id="pass"');
    const back = await (await fetch(acs, { method: 'POST', body: new URLSearchParams({ result: 'Y' }) })).text();
    const returnUrl = new URL(attr(back, /<form id="f" method="post" action="([^"]+)">/));
    expect(returnUrl.pathname).toBe(`${tokenized}/cres`);
    // the challenge page posts back its transaction id
    const returned = { TransactionId: attr(back, /name="TransactionId" value="([^"]+)"/) };
    const final = await t.app.inject({ method: 'POST', url: returnUrl.pathname, headers: FORM, payload: new URLSearchParams(returned).toString() });
    expect(final.statusCode).toBe(303);
    expect(final.headers.location).toBe('https://shop.example/ok');
    const after = await order(created.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(h.sim.paymentByReference(tx.uuid)).toMatchObject({ state: 'settled', settled: 1800 });
    // back again: nothing more happens
    const again = await t.app.inject({ method: 'POST', url: returnUrl.pathname, headers: FORM, payload: new URLSearchParams(returned).toString() });
    expect(again.statusCode).toBeLessThan(500);
    expect((await order(created.uuid)).transactions).toHaveLength(after.transactions.length);
    // the refund follows the actions of the completed payment's answer
    const refunded = await refund(created.uuid, 500);
    expect(refunded).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 500 });
    expect(h.sim.paymentByReference(tx.uuid)).toMatchObject({ refunded: 500 });
  });

  it('a settle whose answer was lost: PENDING, then found among the payment\'s events by the reconciler, once; a refund then follows the payment\'s current actions', async () => {
    const pre = (await single({ operative: 'DEFERRED' })).body.order;
    expect(pre.status).toBe('PENDING_CONFIRMATION');
    h.fault('answer-lost');
    const lost = (await m.api.post('/payment/confirmation', { order_uuid: pre.uuid, amount: 600 })).body.order;
    expect(lost.transactions.at(-1)).toMatchObject({ operative: 'CONFIRMATION', status: 'PENDING' });
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(1);
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
    const after = await order(pre.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(after.transactions.at(-1)).toMatchObject({ operative: 'CONFIRMATION', status: 'SUCCESS', amount: 600 });
    // the actions kept are the pre-authorization's: the refund asks the payment's own link for the current ones
    const refunded = await refund(pre.uuid, 200);
    expect(refunded).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 200 });
    expect(h.sim.paymentByReference(pre.transactions[0].uuid)).toMatchObject({ settled: 600, refunded: 200 });
  });

  it('a payment whose answer was lost: found by the reconciler (Payment Queries), then refunded by the merchant through the payment\'s own link', async () => {
    h.webhooks!.deliverTo(null);
    const queriesBefore = h.sim.calls.queries;
    h.fault('answer-lost');
    const lost = (await single({ amount: 900 })).body.order;
    expect(lost.transactions[0]).toMatchObject({ operative: 'AUTHORIZATION', status: 'PENDING' });
    const reference = lost.transactions[0].uuid;
    expect(h.sim.paymentByReference(reference)).toMatchObject({ state: 'settled', settled: 900, refunded: 0 });
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(1);
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
    expect(await order(lost.uuid)).toMatchObject({ status: 'SUCCESS', paid: true });
    // the payment found by its reference, then retrieved by its id for its own link
    expect(h.sim.calls.queries - queriesBefore).toBe(2);
    const refunded = await refund(lost.uuid, 300);
    expect(refunded).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 300 });
    expect(refunded.transactions.at(-1)).toMatchObject({ operative: 'REFUND', status: 'SUCCESS', amount: 300 });
    // the refund's event found the refund (by the payment's id, kept from the link the query gave)
    expect((await refundEvents(refunded.transactions.at(-1).uuid)).map((e) => e.type)).toEqual(['refunded']);
    expect(h.sim.paymentByReference(reference)).toMatchObject({ settled: 900, refunded: 300 });
    const rest = await refund(lost.uuid, 600);
    expect(rest).toMatchObject({ status: 'REFUNDED', refunded: 900 });
    expect(h.sim.paymentByReference(reference)).toMatchObject({ refunded: 900 });
  });

  it('a forged event (another secret, or unsigned) changes nothing and is not recorded; a replayed one is recognised', async () => {
    h.webhooks!.deliverTo(null);
    const before = h.webhooks!.sent().length;
    h.fault('webhook-only');
    const o = (await single({ amount: 700 })).body.order;
    expect(o.status).toBe('PENDING_PROCESSOR_RESPONSE');
    const hook = h.webhooks!.sent()[before];
    expect(hook.headers['content-type']).toBe('application/vnd.worldpay.events-v1.hal+json');
    expect(JSON.parse(hook.body).eventDetails).toMatchObject({ type: 'authorized', transactionReference: o.transactions[0].uuid });
    expect(await deliver(hook.body, sign(hook.body, 'another-secret-0123456789abcdef'))).toBe('ignored');
    expect(await deliver(hook.body, null)).toBe('ignored');
    expect(await events(o.transactions[0].uuid)).toHaveLength(0);
    expect((await order(o.uuid)).status).toBe('PENDING_PROCESSOR_RESPONSE');
    // signed with a renewed secret's keyId first: the entry that verifies counts
    expect(await deliver(hook.body, `2/SHA256/${'0'.repeat(64)},${hook.headers['event-signature']}`)).toBe('settled');
    expect((await order(o.uuid)).status).toBe('SUCCESS');
    expect(await deliver(hook.body, hook.headers['event-signature'])).toBe('ignored');
    expect(await events(o.transactions[0].uuid)).toHaveLength(1);
    // the settlement's event settles nothing: captures and refunds are decided by their answers
    const settlement = h.webhooks!.sent()[before + 1];
    expect(JSON.parse(settlement.body).eventDetails.type).toBe('sentForSettlement');
    expect(await deliver(settlement.body, settlement.headers['event-signature'])).toBe('ignored');
    // settled by its event, the payment has no link kept: a refund finds it by its reference first
    const refunded = await refund(o.uuid, 700);
    expect(refunded).toMatchObject({ status: 'REFUNDED', refunded: 700 });
    expect(h.sim.paymentByReference(o.transactions[0].uuid)).toMatchObject({ settled: 700, refunded: 700 });
  });

  // ---- a refund is decided when Worldpay processes it ---------------------------------------------------

  const refundEvents = async (reference: string) => (await sql<{ type: string; outcome: string }>`select type, outcome from connector_events where connector = 'worldpay' and reference = ${reference} order by received_at`.execute(t.p.database.db)).rows;
  /** The notifications the merchant's url_post got for an order, oldest first. */
  const notified = async (o: { path: string }) => {
    await t.p.jobs.drain();
    return rx.received.filter((r) => r.path === o.path).map((r) => JSON.parse(r.body).order);
  };
  const paidWithNotifications = async () => {
    const path = `/wp/${++n}`;
    const paid = await single({ url_post: `${rx.url}${path}` });
    expect(paid.status, paid.raw).toBe(200);
    expect(paid.body.order.status).toBe('SUCCESS');
    return { ...paid.body.order, path };
  };

  it('a refund Worldpay takes and then fails (refundFailed): PENDING, then declined; the order is not refunded, the amount is refundable again, the merchant is notified', async () => {
    const paid = await paidWithNotifications();
    h.sim.failNextRefund({ code: '5', description: 'REFUSED' });
    const r = await m.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 400 });
    expect(r.status, r.raw).toBe(200);
    const tx = r.body.order.transactions.at(-1);
    expect(tx).toMatchObject({ operative: 'REFUND', status: 'PENDING', amount: 400 });
    expect(r.body.order).toMatchObject({ status: 'SUCCESS', refunded: 0 });
    // what is not refunded yet is not refundable twice while it waits
    expect((await m.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 700 })).status).toBe(400);
    const before = (await notified(paid)).length;
    await h.deliverDecisions!(send);
    const after = await order(paid.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', refunded: 0 });
    expect(after.transactions.at(-1)).toMatchObject({ uuid: tx.uuid, status: 'REFUSED', error: 'DENIED' });
    expect(after.transactions.at(-1).error_details).toMatch(/refundFailed, 5/);
    expect(await refundEvents(tx.uuid)).toEqual([{ type: 'refundFailed', outcome: 'DECLINED' }]);
    expect(h.sim.paymentByReference(paid.transactions[0].uuid)).toMatchObject({ refunded: 0 });
    // the merchant hears of it: nobody was waiting for the refund's answer
    const sent = (await notified(paid)).slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ uuid: paid.uuid, status: 'SUCCESS', refunded: 0 });
    expect(sent[0].transactions.at(-1)).toMatchObject({ uuid: tx.uuid, status: 'REFUSED' });
    // the whole amount is refundable again, once the retry rules' wait after a failure has passed
    expect((await m.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 1000 })).status).toBe(429);
    await t.p.database.db.updateTable('order_operation_retries').set({ last_failure_at: new Date(Date.now() - 3_600_000) }).where('order_id', '=', paid.uuid).execute();
    const again = await refund(paid.uuid, 1000);
    expect(again).toMatchObject({ status: 'REFUNDED', refunded: 1000 });
    expect(again.transactions.at(-1)).toMatchObject({ operative: 'REFUND', status: 'SUCCESS', amount: 1000 });
  });

  it('a refund confirmed by its refunded event ends SUCCESS; the event replayed, or sent late, changes nothing', async () => {
    const paid = await paidWithNotifications();
    h.webhooks!.deliverTo(null);
    const kept = h.webhooks!.sent().length;
    const r = await m.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 300 });
    const tx = r.body.order.transactions.at(-1);
    expect(tx.status).toBe('PENDING');
    await h.deliverDecisions!(send);
    const after = await order(paid.uuid);
    expect(after).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 300 });
    expect(after.transactions.at(-1)).toMatchObject({ uuid: tx.uuid, status: 'SUCCESS' });
    const refunded = h.webhooks!.sent().slice(kept).find((d) => JSON.parse(d.body).eventDetails.type === 'refunded')!;
    expect(JSON.parse(refunded.body).eventDetails).toMatchObject({ transactionReference: paid.transactions[0].uuid, reference: tx.uuid, amount: { value: 300 } });
    expect(await deliver(refunded.body, refunded.headers['event-signature'])).toBe('ignored');
    expect(await refundEvents(tx.uuid)).toEqual([{ type: 'refunded', outcome: 'APPROVED' }]);
    // a forged refundFailed (another secret) is not believed
    const forged = JSON.stringify({ ...JSON.parse(refunded.body), eventId: 'forged-0001', eventDetails: { ...JSON.parse(refunded.body).eventDetails, type: 'refundFailed' } });
    expect(await deliver(forged, sign(forged, 'another-secret-0123456789abcdef'))).toBe('ignored');
    expect((await order(paid.uuid)).transactions.at(-1)).toMatchObject({ uuid: tx.uuid, status: 'SUCCESS' });
  });

  it('refunds whose events never come: the reconciler leaves them PENDING while Worldpay has not processed them, then reads them among the payment\'s events (submitted: SUCCESS; failed: declined)', async () => {
    const ok = await paidWithNotifications();
    const ko = await paidWithNotifications();
    h.sim.holdDecisions = true;
    try {
      const good = (await m.api.post('/payment/refund', { order_uuid: ok.uuid, amount: 1000 })).body.order.transactions.at(-1);
      // the simulator's refund amount that fails (rules.ts)
      const bad = (await m.api.post('/payment/refund', { order_uuid: ko.uuid, amount: WORLDPAY_SIM_FAILED_REFUND_AMOUNT })).body.order.transactions.at(-1);
      expect([good.status, bad.status]).toEqual(['PENDING', 'PENDING']);
      const queries = h.sim.calls.queries;
      expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
      expect(h.sim.calls.queries).toBeGreaterThan(queries);
      expect((await order(ok.uuid)).transactions.at(-1)).toMatchObject({ uuid: good.uuid, status: 'PENDING' });
      // processed; their events are lost (never delivered): the payments' events say it
      await h.sim.decide();
      expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(2);
      expect(await order(ok.uuid)).toMatchObject({ status: 'REFUNDED', refunded: 1000 });
      const failed = await order(ko.uuid);
      expect(failed).toMatchObject({ status: 'SUCCESS', refunded: 0 });
      expect(failed.transactions.at(-1)).toMatchObject({ uuid: bad.uuid, status: 'REFUSED', error: 'PROCESSOR_ERROR' });
      expect((await notified(ko)).at(-1)!.transactions.at(-1)).toMatchObject({ uuid: bad.uuid, status: 'REFUSED' });
    } finally {
      h.sim.holdDecisions = false;
      // the undelivered decisions' events: already settled, change nothing
      await h.deliverDecisions!(send);
    }
    expect(await order(ko.uuid)).toMatchObject({ status: 'SUCCESS', refunded: 0 });
  });
});
