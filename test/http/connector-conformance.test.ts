/**
 * Conformance of the production connectors, through the public API in production mode: the same
 * scenarios run against every connector of test/helpers/connectors.ts, each on its protocol simulator
 * (a separate HTTP server), and against the sandbox simulator service itself, on the databases each
 * harness names (PostgreSQL always). Authorization, pre-authorization with a partial confirmation,
 * cancellation, partial and full refunds, a stored-card payment (B10), MoTo (B11), merchant-initiated
 * charges (a subscription, a batch line) carrying the first payment's cof_txnid, declines with their
 * errors, a soft decline sent to authentication, a duplicate follow-up asked of the processor once, an
 * answer that cannot be trusted (PENDING, then settled by the reconciler), an answer lost (PENDING,
 * settled once; for a processor that cannot be asked, `lostPayments: 'failed'`, ERROR TIMEOUT once), payouts, card verification,
 * cascading (a soft decline on the first of two services of the processor paid on the second with one
 * charge at the processor; an answer lost on the first never tried again); for processors with webhooks: a tampered webhook refused,
 * a webhook arriving before the synchronous answer, a webhook arriving twice. A processor that decides
 * captures, voids and refunds after accepting them (decisions §13: Checkout.com's 202, Worldpay's
 * sentForRefund, CyberSource's refund PENDING) leaves them PENDING, never SUCCESS, until what it sends
 * about them (`deliverDecisions` of its harness) or, for a processor that sends nothing about them, the
 * reconciler's lookup settles them.
 *
 * A new connector is done when it passes these scenarios: add its harness to CONNECTOR_HARNESSES.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { CHARGE_QUEUE } from '../../src/modules/subscriptions/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { storeCard } from '../helpers/payments.js';
import { CONNECTOR_HARNESSES, type ConnectorHarness, type WebhookSend } from '../helpers/connectors.js';

const db = (process.env.PAYGATE_TEST_DB ?? 'pglite') as 'pglite' | 'postgres';
const runs = CONNECTOR_HARNESSES.map((make) => [make(), make] as const).filter(([probe]) => probe.databases.includes(db));

describe.each(runs.map(([probe, make]) => [probe.name, make, !!probe.webhooks] as const))('%s connector', (_name, make, hasWebhooks) => {
  let h: ConnectorHarness;
  let t: TestApp;
  let m: TestMerchant;
  let n = 0;

  beforeAll(async () => {
    h = make();
    await h.start();
    t = await createTestApp(h.env());
    m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
    await t.p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', m.client_uuid).execute();
  });
  afterAll(async () => {
    await t?.close();
    await h?.close();
  });

  async function ok(p: Promise<{ status: number; raw: string; body: any }>, status = 200) {
    const r = await p;
    expect(r.status, r.raw).toBe(status);
    return r.body;
  }
  /** What the gateway did with a webhook, as its answer says (its header; the page's body): settled, already-settled or ignored. */
  const outcomeOf = (r: { body: string; outcome?: string }) => r.outcome ?? r.body.replace(/^[\s\S]*<\/title>/, '').trim();
  const send: WebhookSend = async (d) => {
    const r = await t.app.inject({ method: 'POST', url: d.path, headers: d.headers, payload: d.body });
    const outcome = r.headers['paygate-notification'];
    return { status: r.statusCode, body: r.body, ...(typeof outcome === 'string' ? { outcome } : {}) };
  };
  /**
   * The order once the processor decided the follow-up an answer left PENDING (accepted, decided later):
   * nothing of it counts before (no money moved on the order), then what the processor sent about it is
   * delivered. An answer with the follow-up settled is the order as it is.
   */
  async function decided(answer: { order: any }): Promise<{ order: any }> {
    const last = answer.order.transactions.at(-1);
    if (last.status !== 'PENDING') return answer;
    expect(h.deliverDecisions, `${last.operative} left PENDING by a processor whose harness delivers no decisions`).toBeDefined();
    const refundedBefore = answer.order.transactions.filter((x: any) => x.operative === 'REFUND' && x.status === 'SUCCESS').reduce((a: number, x: any) => a + x.amount, 0);
    expect(answer.order.refunded).toBe(refundedBefore);
    if (last.operative !== 'REFUND') expect(answer.order.status).toBe('PENDING_CONFIRMATION');
    await h.deliverDecisions!(send);
    let after = await ok(m.api.get(`/order/${answer.order.uuid}`));
    if (after.order.transactions.find((x: any) => x.uuid === last.uuid).status === 'PENDING') {
      // nothing was sent about it (CyberSource sends no notifications): the reconciler asks the processor
      await t.m.payments.reconcile({ olderThanMs: 0 });
      after = await ok(m.api.get(`/order/${answer.order.uuid}`));
    }
    expect(after.order.transactions.find((x: any) => x.uuid === last.uuid).status).not.toBe('PENDING');
    return after;
  }
  /** A confirmation, cancellation or refund, and the order once the processor decided it. */
  const followUp = async (path: string, body: Record<string, unknown>, headers?: Record<string, string>) => decided(await ok(m.api.post(path, body, headers)));
  const customer = () => `cust-${++n}`;
  const card = (pan: string) => ({ card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' });
  const order = (fields: Record<string, unknown> = {}) =>
    ok(m.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'conformance', service: m.service_uuid, customer_ext_id: customer(), ...fields })).then((b) => b.order);
  const singleStep = (pan: string, fields: Record<string, unknown> = {}) =>
    m.api.post('/payment/single-step', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'conformance', service: m.service_uuid, customer_ext_id: customer(), ...card(pan), ...fields });

  it('the production service goes through the connector, not the sandbox simulator', async () => {
    const before = h.paymentCalls();
    const sandboxCalls = t.m.processors.simulator.callCount('authorize');
    const o = (await ok(singleStep(h.cards.approved()))).order;
    expect(o).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(h.paymentCalls()).toBe(before + 1);
    expect(t.m.processors.simulator.callCount('authorize')).toBe(sandboxCalls);
  });

  it('authorization (B3): SUCCESS with the authorization code and processor id; the first payment keeps cof_txnid', async () => {
    const o = (await ok(singleStep(h.cards.approved()))).order;
    expect(o).toMatchObject({ status: 'SUCCESS', paid: true, amount: 1000 });
    expect(o.transactions).toHaveLength(1);
    expect(o.transactions[0]).toMatchObject({ operative: 'AUTHORIZATION', status: 'SUCCESS', amount: 1000, error: 'NONE' });
    expect(o.transactions[0].authorization).toMatch(/\S/);
    if (h.storedCredentials) expect(o.cof_txnid).toMatch(/\S/);
  });

  it('pre-authorization, partial confirmation, then a cancellation of another one', async () => {
    const pre = (await ok(singleStep(h.cards.approved(), { operative: 'DEFERRED' }))).order;
    expect(pre.status).toBe('PENDING_CONFIRMATION');
    const confirmed = (await followUp('/payment/confirmation', { order_uuid: pre.uuid, amount: 600 })).order;
    expect(confirmed).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(confirmed.transactions.at(-1)).toMatchObject({ operative: 'CONFIRMATION', status: 'SUCCESS', amount: 600 });
    const other = (await ok(singleStep(h.cards.approved(), { operative: 'DEFERRED' }))).order;
    const cancelled = (await followUp('/payment/cancellation', { order_uuid: other.uuid })).order;
    expect(cancelled.status).toBe('CANCELLED');
    expect(cancelled.transactions.at(-1)).toMatchObject({ operative: 'CANCELLATION', status: 'SUCCESS' });
  });

  it('partial and full refunds', async () => {
    const o = (await ok(singleStep(h.cards.approved()))).order;
    const part = (await followUp('/payment/refund', { order_uuid: o.uuid, amount: 300 })).order;
    expect(part).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 300 });
    const rest = (await followUp('/payment/refund', { order_uuid: o.uuid, amount: 700 })).order;
    expect(rest).toMatchObject({ status: 'REFUNDED', refunded: 1000 });
    expect(rest.transactions.map((x: any) => [x.operative, x.status, x.amount])).toEqual([['AUTHORIZATION', 'SUCCESS', 1000], ['REFUND', 'SUCCESS', 300], ['REFUND', 'SUCCESS', 700]]);
    // nothing left
    expect((await m.api.post('/payment/refund', { order_uuid: o.uuid, amount: 1 })).status).toBe(400);
  });

  it('a payment with a stored card (B10) and a MoTo payment (B11), which needs no authentication', async () => {
    const c = customer();
    const source = await storeCard(t, m, h.cards.approved(), c);
    const o = await order({ customer_ext_id: c });
    const paid = (await ok(m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: source }))).order;
    expect(paid).toMatchObject({ status: 'SUCCESS', paid: true });
    const moto = await order();
    const r = (await ok(m.api.post('/payment/moto', { order_uuid: moto.uuid, method: 'PHONE', ...card(h.cards.softDecline) }))).order;
    expect(r).toMatchObject({ status: 'SUCCESS', paid: true });
  });

  it('merchant-initiated: a subscription charge and a batch line quote the first payment\'s cof_txnid', async () => {
    const c = customer();
    const first = (await ok(singleStep(h.cards.approved(), { customer_ext_id: c }))).order;
    const source = first.transactions[0].source.uuid as string;
    if (h.storedCredentials) expect(first.cof_txnid).toMatch(/\S/);
    await ok(m.api.post('/subscriptions/product', { name: `P ${c}`, external_id: `prod-${c}` }));
    await ok(m.api.post('/subscriptions/plan', { name: `Plan ${c}`, external_id: `plan-${c}`, product: `prod-${c}`, amount: 990, interval: 1, interval_type: 'MONTHLY' }));
    const sub = await ok(m.api.post('/subscriptions/subscription', { plan: `plan-${c}`, customer: c, payment_attempts_limit: 1, additional_data: { source_uuid: source } }));
    expect(sub).toMatchObject({ status: 'PAID', amount: 990 });
    await t.p.jobs.drain({ queues: [CHARGE_QUEUE] });
    const { rows } = await sql<{ id: string; cof_txnid: string | null; status: string }>`select id, cof_txnid, status from orders where customer_ext_id = ${c} and id <> ${first.uuid}`.execute(t.p.database.db);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'SUCCESS' });
    if (h.storedCredentials) expect(rows[0].cof_txnid).toBe(first.cof_txnid);

    const file = Buffer.from(`amount,card,customer_external_id,service,additional,url_post\n450,${source},${c},${m.service_uuid},batch line,\n`).toString('base64');
    const batch = (await ok(m.api.post('/batch/authorizations', { data: file, filename: 'lines.csv' }))).batch;
    await t.m.batch.drain();
    const line = (await ok(m.api.get(`/batch/${batch.uuid}`))).lines[0];
    expect(line).toMatchObject({ status: 'SUCCEEDED', outcome: 'SUCCESS', amount: 450 });
    const lineOrder = (await ok(m.api.get(`/order/${line.order_uuid}`))).order;
    if (h.storedCredentials) expect(lineOrder.cof_txnid).toBe(first.cof_txnid);
  });

  it('a soft decline sends the payment to authentication: 303 to the 3-D Secure page, the transaction waiting', async () => {
    const c = customer();
    const source = await storeCard(t, m, h.cards.softDecline, c);
    const o = await order({ customer_ext_id: c, url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' });
    const r = await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: source });
    expect(r.status, r.raw).toBe(303);
    expect(r.body.order).toMatchObject({ status: 'PENDING_3DS_RESPONSE', paid: false });
    expect(r.body.order.transactions[0].status).toBe('PENDING');
    const location = String(r.body.url);
    expect(location).toContain(`/payment/tokenized/${o.token}`);
    const page = await t.app.inject({ method: 'GET', url: new URL(location).pathname, headers: { 'x-forwarded-proto': 'https' } });
    expect(page.statusCode).toBe(200);
  });

  it('a duplicate follow-up is asked of the processor once: a second confirmation is refused, a refund repeated under its Idempotency-Key answered again', async () => {
    const pre = (await ok(singleStep(h.cards.approved(), { operative: 'DEFERRED' }))).order;
    await followUp('/payment/confirmation', { order_uuid: pre.uuid, amount: 1000 });
    let calls = h.paymentCalls();
    const again = await m.api.post('/payment/confirmation', { order_uuid: pre.uuid, amount: 1000 });
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(again.status).toBeLessThan(500);
    expect(h.paymentCalls()).toBe(calls);
    const key = { 'idempotency-key': `refund-${pre.uuid}` };
    const first = await ok(m.api.post('/payment/refund', { order_uuid: pre.uuid, amount: 400 }, key));
    calls = h.paymentCalls();
    const second = await ok(m.api.post('/payment/refund', { order_uuid: pre.uuid, amount: 400 }, key));
    expect(second).toEqual(first);
    expect(h.paymentCalls()).toBe(calls);
    await decided(first);
    expect((await ok(m.api.get(`/order/${pre.uuid}`))).order).toMatchObject({ status: 'PARTIALLY_REFUNDED', refunded: 400 });
    expect(h.paymentCalls()).toBe(calls);
  });

  it('declines carry their error and a clear error_details', async () => {
    const refused = (await ok(singleStep(h.cards.refused.pan))).order;
    expect(refused.status).toBe('REFUSED');
    expect(refused.transactions[0]).toMatchObject({ status: 'REFUSED', error: h.cards.refused.error });
    expect(refused.transactions[0].error_details).toMatch(/\S{6}/);
    const poor = (await ok(singleStep(h.cards.insufficientFunds))).order;
    expect(poor.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'INSUFFICIENT_FUNDS' });
    for (const d of h.cards.declines) {
      const o = (await ok(singleStep(d.pan))).order;
      expect(o.transactions[0], d.pan).toMatchObject({ status: 'REFUSED', error: d.error });
    }
  });

  it('an answer that fails verification is never a success: PENDING, then settled by the reconciler from the processor', async () => {
    h.fault('tampered');
    const r = await ok(singleStep(h.cards.refused.pan));
    expect(r.order).toMatchObject({ status: 'PENDING_PROCESSOR_RESPONSE', paid: false });
    expect(r.order.transactions[0].status).toBe('PENDING');
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(1);
    const after = (await ok(m.api.get(`/order/${r.order.uuid}`))).order;
    if (h.lostPayments === 'failed') {
      // the provider cannot be asked what it decided; nothing was captured
      expect(after.transactions[0]).toMatchObject({ status: 'ERROR', error: 'TIMEOUT' });
      expect(after.paid).toBe(false);
      return;
    }
    expect(after.status).toBe('REFUSED');
    expect(after.transactions[0]).toMatchObject({ status: 'REFUSED', error: h.cards.refused.error });
  });

  it('an answer lost after the processor charged: PENDING, resolved once by the reconciler; a request never received is ERROR', async () => {
    const c = customer();
    const source = await storeCard(t, m, h.cards.approved(), c);
    const o = await order({ customer_ext_id: c });
    h.fault('answer-lost');
    const r = (await ok(m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: source }))).order;
    expect(r).toMatchObject({ status: 'PENDING_PROCESSOR_RESPONSE', paid: false });
    // a second try while the first is unresolved is refused: the processor is not asked twice
    const calls = h.paymentCalls();
    expect((await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: source })).status).toBe(409);
    expect(h.paymentCalls()).toBe(calls);
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(1);
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
    const after = (await ok(m.api.get(`/order/${o.uuid}`))).order;
    expect(after.transactions).toHaveLength(1);
    if (h.lostPayments === 'failed') {
      // the authorization cannot be read back and was never captured: failed once, the processor not asked to pay again
      expect(after).toMatchObject({ paid: false });
      expect(after.transactions[0]).toMatchObject({ status: 'ERROR', error: 'TIMEOUT' });
      expect(h.paymentCalls()).toBe(calls);
    } else {
      expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
      expect(after.transactions[0].status).toBe('SUCCESS');
    }

    const lost = await order({ customer_ext_id: c });
    h.fault('request-lost');
    await ok(m.api.post('/payment/direct', { order_uuid: lost.uuid, card_uuid: source }));
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(1);
    expect((await ok(m.api.get(`/order/${lost.uuid}`))).order.transactions[0]).toMatchObject({ status: 'ERROR', error: 'TIMEOUT' });
  });

  it('payouts: done where the processor offers them, otherwise refused with a clear reason and nothing sent', async () => {
    const c = customer();
    await ok(singleStep(h.cards.approved(), { customer_ext_id: c }));
    const o = await order({ operative: 'PAYOUT', customer_ext_id: c, amount: 300 });
    const calls = h.paymentCalls();
    const r = (await ok(m.api.post('/payment/payout', { order_uuid: o.uuid }))).order;
    if (h.payouts) expect(r.status).toBe('SUCCESS');
    else {
      expect(r.transactions[0]).toMatchObject({ operative: 'PAYOUT', status: 'REFUSED', error: 'PROCESSOR_ERROR' });
      expect(r.transactions[0].error_details).toMatch(/not offered/);
      expect(h.paymentCalls()).toBe(calls);
    }
  });

  it('card verification when a card is stored with validate', async () => {
    const good = await m.api.post('/payment-method/card', { customer_ext_id: customer(), ...card(h.cards.approved()), validate: true, service: m.service_uuid });
    expect(good.status, good.raw).toBe(200);
    expect(good.body.Source.validation_date).not.toBeNull();
    const bad = await m.api.post('/payment-method/card', { customer_ext_id: customer(), ...card(h.cards.refused.pan), validate: true, service: m.service_uuid });
    expect(bad.status, bad.raw).toBe(400);
    expect(bad.body.details).toMatch(h.cards.refused.error);
  });

  // ---- routing and cascading (docs/routing.md) -----------------------------------------------------------

  it('cascading: a soft decline on the first service is paid on the fallback, one charge; an answer lost on the first is never tried again', async () => {
    // two more services of this processor, each with its own terminal (the harness's credentials)
    const { currency_code } = await t.p.database.db.selectFrom('services as s').innerJoin('terminals as tm', 'tm.id', 's.terminal_id')
      .select('tm.currency_code').where('s.id', '=', m.service_uuid!).executeTakeFirstOrThrow();
    const another = async (name: string) => {
      const tm = await ok(m.api.post('/terminal', { currency_code, type: h.serviceType, description: name, ...(h.terminal.code ? { code: h.terminal.code } : {}), credentials: h.terminal.credentials }));
      return (await ok(m.api.post('/service', { name, type: h.serviceType, terminal_uuid: tm.terminal.uuid }))).service.uuid as string;
    };
    const entry = await another('routed entry');
    const fallback = await another('fallback');
    await ok(m.api.post('/routing-profiles', {
      service_uuid: entry, name: 'entry then fallback', status: 'ACTIVE', max_attempts: 2,
      rules: [{ name: 'all', conditions: [{ type: 'amount', min: 1 }], action: { type: 'service', service_uuid: entry, fallbacks: [fallback] } }],
    }));
    // the first attempt's answer: a soft decline (DENIED) given at the connector's edge, without reaching
    // the processor; the fallback's goes to the processor through the connector
    const connector = t.m.processors.forService(h.serviceType, 'production') as unknown as Record<string, unknown>;
    const authorize = connector.authorize as (r: unknown) => Promise<unknown>;
    const sentFor: Array<string | null> = [];
    let declineNext = true;
    connector.authorize = async (r: { terminal: { serviceId: string | null } }) => {
      sentFor.push(r.terminal.serviceId);
      if (declineNext) {
        declineNext = false;
        return { outcome: 'DECLINED', error: 'DENIED', details: 'do not honour (soft decline)', processorId: null };
      }
      return authorize.call(connector, r);
    };
    try {
      const before = h.paymentCalls();
      const paid = (await ok(singleStep(h.cards.approved(), { service: entry }))).order;
      expect(paid).toMatchObject({ status: 'SUCCESS', paid: true, service_uuid: entry });
      expect(paid.transactions.map((x: any) => [x.status, x.routing?.service_uuid, x.routing?.attempt])).toEqual([['REFUSED', entry, 1], ['SUCCESS', fallback, 2]]);
      expect(sentFor).toEqual([entry, fallback]);
      expect(h.paymentCalls()).toBe(before + 1);

      // an answer lost after the processor charged: PENDING, never cascaded; the reconciler settles it once
      sentFor.length = 0;
      const lostBefore = h.paymentCalls();
      h.fault('answer-lost');
      const lost = (await ok(singleStep(h.cards.approved(), { service: entry }))).order;
      expect(lost.transactions).toHaveLength(1);
      expect(lost.transactions[0]).toMatchObject({ status: 'PENDING', routing: { service_uuid: entry, attempt: 1 } });
      expect(sentFor).toEqual([entry]);
      await t.m.payments.reconcile({ olderThanMs: 0 });
      const settled = (await ok(m.api.get(`/order/${lost.uuid}`))).order;
      expect(settled.transactions).toHaveLength(1);
      expect(settled.transactions[0].status).not.toBe('PENDING');
      expect(h.paymentCalls()).toBe(lostBefore + 1);
    } finally {
      connector.authorize = authorize;
    }
  });

  // ---- webhooks (processors that send them) ------------------------------------------------------------

  it.runIf(hasWebhooks)('a webhook arriving twice settles the payment once; a tampered one is refused', async () => {
    const w = h.webhooks!;
    w.deliverTo(null);
    const c = customer();
    const source = await storeCard(t, m, h.cards.approved(), c);
    const o = await order({ customer_ext_id: c });
    h.fault('webhook-only');
    const before = w.sent().length;
    const r = (await ok(m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: source }))).order;
    expect(r.status).toBe('PENDING_PROCESSOR_RESPONSE');
    // the payment's webhook (a processor may send more: its capture's)
    const hook = w.sent()[before];
    // what it says changed after signing: refused, the payment still waits
    expect((await send(w.tamper(hook))).status).toBe(200);
    expect((await ok(m.api.get(`/order/${o.uuid}`))).order.status).toBe('PENDING_PROCESSOR_RESPONSE');
    expect(outcomeOf(await send(hook))).toBe('settled');
    const after = (await ok(m.api.get(`/order/${o.uuid}`))).order;
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    // the second delivery changes nothing (already settled, or recognised as a replay); nothing is left to reconcile
    expect(['already-settled', 'ignored']).toContain(outcomeOf(await send(hook)));
    expect((await ok(m.api.get(`/order/${o.uuid}`))).order).toEqual(after);
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
  });

  it.runIf(hasWebhooks)('a webhook arriving before the synchronous answer settles the payment; the answer then changes nothing', async () => {
    const w = h.webhooks!;
    const answers: Array<{ body: string; outcome?: string }> = [];
    w.deliverTo(async (d) => {
      const r = await send(d);
      answers.push(r);
      return r;
    });
    try {
      h.fault('webhook-first');
      const calls = h.paymentCalls();
      const o = (await ok(singleStep(h.cards.approved()))).order;
      // the payment's webhook settled it; any other (its capture's) settled nothing
      expect(answers.map(outcomeOf)).toEqual(['settled', ...answers.slice(1).map(() => 'ignored')]);
      expect(o).toMatchObject({ status: 'SUCCESS', paid: true });
      expect(o.transactions).toHaveLength(1);
      expect(h.paymentCalls()).toBe(calls + 1);
    } finally {
      w.deliverTo(null);
    }
  });
});
