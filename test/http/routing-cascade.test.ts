/**
 * Routing and cascading through the money path, on both databases: a service with an ACTIVE routing
 * profile sends a card payment to the rule's service; a retriable decline there (DENIED, injected on the
 * sandbox simulator) is tried on the fallback as a new transaction of the same order, and the processor
 * approves exactly one of them; a decline the retry table refuses (insufficient funds), or an answer
 * lost after sending (UNKNOWN), is never tried elsewhere; a request that never reached the processor
 * (not sent) is. The same on the hosted page, with MoTo card data, B3 and a batch line; a next attempt
 * lost on its way is settled once by the reconciler. Each attempt's transaction says which service took
 * it and why; the order keeps the service it named; a refund of a cascaded payment goes to the service
 * that took the money.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FollowUpRequest, PaymentRequest, ProcessorResult } from '../../src/processors/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder, storeCard } from '../helpers/payments.js';
import { testDbKind } from '../helpers/db.js';
import { createUser, signedIn } from '../helpers/dashboard.js';
import { pagePath, payOnPage } from '../helpers/pages.js';

let t: TestApp;
let m: TestMerchant;
let card: string;
let s2: string;
let s3: string;

/** What reached the simulator: every money call, with the service it was sent for and its outcome. */
const calls: Array<{ op: string; reference: string; service: string | null; outcome: string }> = [];
/** Answers given instead of the simulator's (a connection refused before anything was sent). */
const notSent: ProcessorResult[] = [];

/** Another sandbox service of the merchant, with its own terminal (the sandbox simulator processes every one). */
async function service(name: string): Promise<string> {
  const terminal = await m.api.post('/terminal', { currency_code: 'EUR', type: 'REDSYSPSD2', description: name, code: '1', credentials: { key_secure: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7', key_not_secure: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7', terminal_secure: '1', terminal_not_secure: '2' } });
  expect(terminal.status, terminal.raw).toBe(200);
  const r = await m.api.post('/service', { name, type: 'REDSYSPSD2', terminal_uuid: terminal.body.terminal.uuid });
  expect(r.status, r.raw).toBe(200);
  expect(r.body.service.enabled).toBe(true);
  return r.body.service.uuid;
}

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant({ name: 'Cascade Shop', isPci: true });
  card = await storeCard(t, m);
  s2 = await service('acquirer two');
  s3 = await service('acquirer three');
  const sim = t.m.processors.simulator;
  for (const op of ['authorize', 'preauthorize', 'refund'] as const) {
    const original = sim[op].bind(sim) as (r: PaymentRequest | FollowUpRequest) => Promise<ProcessorResult>;
    (sim as unknown as Record<string, unknown>)[op] = async (req: PaymentRequest | FollowUpRequest) => {
      const instead = notSent.shift();
      if (instead) return instead;
      const r = await original(req);
      calls.push({ op, reference: req.reference, service: req.terminal.serviceId ?? null, outcome: r.outcome });
      return r;
    };
  }
  const profile = await m.api.post('/routing-profiles', {
    service_uuid: m.service_uuid,
    name: 'two then three',
    status: 'ACTIVE',
    max_attempts: 3,
    rules: [{ name: 'everything', conditions: [{ type: 'amount', min: 1 }], action: { type: 'service', service_uuid: s2, fallbacks: [s3] } }],
  });
  expect(profile.status, profile.raw).toBe(200);
});
afterAll(async () => t?.close());
beforeEach(() => {
  calls.length = 0;
  notSent.length = 0;
  t.m.processors.simulator.clearFaults();
});

const txsOf = async (order: string) => {
  const r = await m.api.get(`/order/${order}`);
  expect(r.status, r.raw).toBe(200);
  return r.body.order as { service_uuid: string; status: string; paid: boolean; transactions: Array<Record<string, any>> };
};

describe(`routing and cascading in the money path (${testDbKind()})`, () => {
  it('a retriable decline on the rule\'s service is approved on the fallback: two attempts, one charge', async () => {
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'decline', error: 'DENIED' });
    const order = await createOrder(m, { amount: 2500 });
    const paid = await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
    expect(paid.status, paid.raw).toBe(200);
    const o = await txsOf(order.uuid);
    expect(o.paid).toBe(true);
    // the order keeps the service it named
    expect(o.service_uuid).toBe(m.service_uuid);
    const [first, second] = o.transactions;
    expect(o.transactions).toHaveLength(2);
    expect(first).toMatchObject({ status: 'REFUSED', error: 'DENIED', routing: { service_uuid: s2, rule: 'everything', attempt: 1 } });
    expect(second).toMatchObject({ status: 'SUCCESS', error: 'NONE', routing: { service_uuid: s3, attempt: 2 } });
    expect(second.routing.reason).not.toBe('');
    // the simulator: the first attempt for service two, declined; the second for three, approved; one charge
    expect(calls.map((c) => [c.reference, c.service, c.outcome])).toEqual([[first.uuid, s2, 'DECLINED'], [second.uuid, s3, 'APPROVED']]);

    // the C3 list shows the same routing and the service the order named
    const listed = await m.api.get(`/orders?order_uuid=${order.uuid}`);
    expect(listed.status, listed.raw).toBe(200);
    const entries = listed.body.transactions as Array<Record<string, any>>;
    expect(entries.map((e) => e.routing)).toEqual([first.routing, second.routing]);
    expect(entries.every((e) => e.service_uuid === m.service_uuid)).toBe(true);

    // the dashboard's CSV export: the service named, the one that took the last attempt, and the rule
    const manager = await signedIn(t.app, await createUser(m, 'MANAGER'));
    const csv = await t.app.inject({ method: 'GET', url: `/dashboard/api/orders/export.csv?q=${order.uuid}`, headers: { cookie: manager.cookieHeader(), 'x-forwarded-proto': 'https' } });
    expect(csv.statusCode, csv.body).toBe(200);
    const [head, line] = csv.body.trim().split('\r\n').map((l) => l.split(','));
    expect(line[head.indexOf('uuid')]).toBe(order.uuid);
    expect([line[head.indexOf('service_uuid')], line[head.indexOf('last_payment_service_uuid')], line[head.indexOf('routing_rule')]]).toEqual([m.service_uuid, s3, 'everything']);

    // a refund goes to the service that took the money
    calls.length = 0;
    const refund = await m.api.post('/payment/refund', { order_uuid: order.uuid, amount: 1000 });
    expect(refund.status, refund.raw).toBe(200);
    expect(calls).toEqual([expect.objectContaining({ op: 'refund', service: s3, outcome: 'APPROVED' })]);
  });

  it('a decline the retry table refuses (insufficient funds) stops the order: one attempt', async () => {
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'decline', error: 'INSUFFICIENT_FUNDS' });
    const order = await createOrder(m, { amount: 2600 });
    const paid = await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
    expect(paid.status, paid.raw).toBe(200);
    const o = await txsOf(order.uuid);
    expect(o.paid).toBe(false);
    expect(o.transactions).toHaveLength(1);
    expect(o.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'INSUFFICIENT_FUNDS', routing: { service_uuid: s2, attempt: 1 } });
    expect(calls).toHaveLength(1);
  });

  it('an answer lost after sending is never cascaded: the attempt waits for the reconciler, no second call', async () => {
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'timeout' });
    const order = await createOrder(m, { amount: 2700 });
    await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
    const o = await txsOf(order.uuid);
    expect(o.transactions).toHaveLength(1);
    expect(o.transactions[0]).toMatchObject({ status: 'PENDING', routing: { service_uuid: s2, attempt: 1 } });
    expect(calls).toHaveLength(0); // the simulated timeout throws before our spy records an answer
  });

  it('a request that never reached the processor (connection refused) is tried on the fallback', async () => {
    notSent.push({ outcome: 'UNKNOWN', details: 'connection refused', notSent: true });
    const order = await createOrder(m, { amount: 2800 });
    const paid = await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
    expect(paid.status, paid.raw).toBe(200);
    const o = await txsOf(order.uuid);
    expect(o.paid).toBe(true);
    expect(o.transactions.map((x) => [x.status, x.error, x.routing.service_uuid])).toEqual([['ERROR', 'PROCESSOR_ERROR', s2], ['SUCCESS', 'NONE', s3]]);
    expect(o.transactions[0].error_details).toMatch(/not sent/);
    expect(calls).toEqual([expect.objectContaining({ service: s3, outcome: 'APPROVED' })]);
  });

  it('no more fallbacks: the second retriable decline stops the order (two attempts, nothing charged)', async () => {
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'decline', error: 'DENIED', times: 2 });
    const order = await createOrder(m, { amount: 2900 });
    await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
    const o = await txsOf(order.uuid);
    expect(o.paid).toBe(false);
    expect(o.transactions.map((x) => [x.status, x.routing.service_uuid, x.routing.attempt])).toEqual([['REFUSED', s2, 1], ['REFUSED', s3, 2]]);
    expect(calls.filter((c) => c.outcome === 'APPROVED')).toHaveLength(0);
  });

  it('a B3 single-step payment cascades the same way (the card in the request)', async () => {
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'decline', error: 'PROCESSOR_ERROR' });
    const r = await m.api.post('/payment/single-step', {
      amount: 3100, operative: 'AUTHORIZATION', service: m.service_uuid, customer_ext_id: 'cust-b3', description: 'b3',
      card_holder: 'Ana Pérez', card_pan: '4548812049400004', card_expiry_month: '12', card_expiry_year: '30', card_cvv: '123',
    });
    expect(r.status, r.raw).toBe(200);
    const o = await txsOf(r.body.order.uuid);
    expect(o.paid).toBe(true);
    expect(o.transactions.map((x) => [x.status, x.error, x.routing.service_uuid])).toEqual([['REFUSED', 'PROCESSOR_ERROR', s2], ['SUCCESS', 'NONE', s3]]);
    expect(calls.filter((c) => c.outcome === 'APPROVED')).toHaveLength(1);
  });

  /** A cascaded payment: the first attempt DENIED on service two, the second approved on three, one charge. */
  const cascaded = async (orderId: string) => {
    const o = await txsOf(orderId);
    expect(o.paid).toBe(true);
    expect(o.transactions.map((x) => [x.status, x.routing?.service_uuid, x.routing?.attempt])).toEqual([['REFUSED', s2, 1], ['SUCCESS', s3, 2]]);
    expect(calls.filter((c) => c.outcome === 'APPROVED').map((c) => c.service)).toEqual([s3]);
  };

  it('the hosted payment page: the card typed on the page cascades the same way', async () => {
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'decline', error: 'DENIED' });
    const order = await createOrder(m, { amount: 3200 });
    const posted = await payOnPage(t, pagePath(order));
    expect(posted.statusCode).toBeLessThan(400);
    await cascaded(order.uuid);
  });

  it('a B11 MoTo payment with card data cascades the same way', async () => {
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'decline', error: 'DENIED' });
    const order = await createOrder(m, { amount: 3300 });
    const r = await m.api.post('/payment/moto', { order_uuid: order.uuid, method: 'PHONE', card_holder: 'Ana Pérez', card_pan: '4548812049400004', card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' });
    expect(r.status, r.raw).toBe(200);
    await cascaded(order.uuid);
  });

  it('a batch line (a merchant-initiated payment with a stored card) cascades to a service of the same type', async () => {
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'decline', error: 'DENIED' });
    const data = Buffer.from(`AMOUNT,CARD,SERVICE\n3400,${card},${m.service_uuid}\n`, 'utf8').toString('base64');
    const r = await m.api.post('/batch/authorizations', { data, filename: 'cascade.csv' });
    expect(r.status, r.raw).toBe(200);
    await t.m.batch.drain();
    const line = await t.p.database.db.selectFrom('batch_lines').selectAll().where('batch_id', '=', r.body.batch.uuid).executeTakeFirstOrThrow();
    expect(line.status).toBe('SUCCEEDED');
    await cascaded(line.order_id!);
  });

  it('the next attempt lost on its way (as when the process dies between two attempts) is settled once by the reconciler, never cascaded again', async () => {
    // the first attempt declined (retriable); the second never reaches the processor and gets no answer
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'decline', error: 'DENIED' });
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'lost' });
    const order = await createOrder(m, { amount: 3500 });
    await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
    const o = await txsOf(order.uuid);
    expect(o.transactions.map((x) => [x.status, x.routing.service_uuid])).toEqual([['REFUSED', s2], ['PENDING', s3]]);
    // the reconciler asks the processor, which has no record of it: the attempt fails, once; nothing charged
    // (the lost answer of an earlier test is reconciled in the same pass)
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBeGreaterThanOrEqual(1);
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
    const after = await txsOf(order.uuid);
    expect(after.paid).toBe(false);
    expect(after.transactions).toHaveLength(2);
    expect(after.transactions[1]).toMatchObject({ status: 'ERROR' });
    const mine = new Set(after.transactions.map((x) => x.uuid));
    expect(calls.filter((c) => mine.has(c.reference) && c.outcome === 'APPROVED')).toHaveLength(0);
  });

  it('a service without a profile is not routed: no routing on its transactions', async () => {
    const order = await createOrder(m, { amount: 900, service: s3 });
    const paid = await m.api.post('/payment/direct', { order_uuid: order.uuid, card_uuid: card });
    expect(paid.status, paid.raw).toBe(200);
    const o = await txsOf(order.uuid);
    expect(o.transactions).toHaveLength(1);
    expect(o.transactions[0].routing).toBeUndefined();
    expect(calls).toEqual([expect.objectContaining({ service: s3, outcome: 'APPROVED' })]);
  });
});
