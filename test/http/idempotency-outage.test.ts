/**
 * A keyed retry never moves money twice (issue 42 item 1), for every operation that moves money. The
 * database dies in the middle of the request, where an independent failover probe found a single-step
 * payment charged twice: after the processor answered (the settle fails: 503), or while the request's
 * first commit was being acknowledged (the commit happened, the gateway never learned it: 503). The
 * database comes back, the key's record is released as the background `finishLater` releases it after
 * a 503, and the merchant retries with the same Idempotency-Key: the retry answers 409 ("carried out but
 * its answer was lost") and the processor was asked once; nothing is created twice. Card-present (K1)
 * calls carry the device's STAN instead of a key: a repeated STAN charges nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { advance, createOrder, paidOrder, storeCard, TEST_CARDS } from '../helpers/payments.js';
import { databaseOutage, type DatabaseOutage } from '../helpers/outage.js';
import type { ProcessorOperation } from '../../src/processors/index.js';

let t: TestApp;
let m: TestMerchant;
let outage: DatabaseOutage;
let seq = 0;

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant({ isPci: true });
  const apms = await m.api.put(`/service/${m.service_uuid}/apms`, { apms: ['MBWAY'] });
  expect(apms.status, apms.raw).toBe(200);
  outage = databaseOutage(t.p.database);
});
afterAll(async () => {
  outage?.restore();
  await t?.close();
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
const card = (pan: string = TEST_CARDS.APPROVED) => ({ card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' });
const sim = () => t.m.processors.simulator;

/** The database dies right after the processor answers `op` (once). */
function dieAfter(op: ProcessorOperation): () => void {
  const s = sim() as unknown as Record<string, (r: unknown) => Promise<unknown>>;
  const original = s[op];
  s[op] = async (r: unknown) => {
    const answer = await original.call(sim(), r);
    outage.down();
    return answer;
  };
  return () => {
    s[op] = original;
  };
}

/**
 * Sends `send(key)` with the database dying where `kill` says, brings it back, releases the key as the
 * background release does after a 503, and retries with the same key: the retry's answer.
 */
async function killedThenRetried(kill: { after: ProcessorOperation } | 'commit', send: (key: string) => Promise<{ status: number; raw: string; body: any }>) {
  const key = `outage-${++seq}`;
  const undo = kill === 'commit' ? (outage.loseNextCommitAck(), () => {}) : dieAfter(kill.after);
  let first;
  try {
    first = await send(key);
  } finally {
    undo();
    outage.up();
  }
  expect(first.status, first.raw).toBe(503);
  // what IdempotencyStore.finishLater does once the database is back, for the 503 the client got
  await t.m.idempotency.finish(m.client_uuid, key, 503, '');
  const retry = await send(key);
  return { first, retry };
}

function expectNotRunAgain(retry: { status: number; raw: string; body: any }) {
  expect(retry.status, retry.raw).toBe(409);
  expect(retry.body.details).toMatch(/carried out but its answer was lost/);
}

const count = async (table: 'orders' | 'batch_files' | 'moto_campaigns' | 'device_refunds' | 'subscriptions', where: (q: any) => any) =>
  Number((await where(t.p.database.db.selectFrom(table as any).select((e: any) => e.fn.countAll().as('n'))).executeTakeFirstOrThrow()).n);

describe('the database dies after the processor answered; the retry with the key', () => {
  it('B3 single-step: one charge, one order; the reconciler settles it once', async () => {
    await t.p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', m.client_uuid).execute();
    const before = sim().callCount('authorize');
    const description = `single-step ${seq}`;
    const body = { amount: 1234, operative: 'AUTHORIZATION', secure: false, description, service: m.service_uuid, customer_ext_id: 'b3-outage', ...card() };
    const { retry } = await killedThenRetried({ after: 'authorize' }, (key) => m.api.post('/payment/single-step', body, { 'idempotency-key': key }));
    expectNotRunAgain(retry);
    expect(sim().callCount('authorize') - before).toBe(1);
    const orders = await t.p.database.db.selectFrom('orders').select(['id', 'status']).where('merchant_id', '=', m.client_uuid).where('description', '=', description).execute();
    expect(orders).toHaveLength(1);
    // the retry is told which order the lost answer was about
    expect(retry.body.order_uuid).toBe(orders[0].id);
    expect(retry.body.details).toContain(orders[0].id);
    expect(orders[0].status).toBe('PENDING_PROCESSOR_RESPONSE');
    await t.m.payments.reconcile({ olderThanMs: 0 });
    const o = (await m.api.get(`/order/${orders[0].id}`)).body.order;
    expect(o).toMatchObject({ status: 'SUCCESS', paid: true, amount: 1234 });
    expect(o.transactions).toHaveLength(1);
  });

  it('B10 stored card and B11 MoTo: one charge each', async () => {
    const source = await storeCard(t, m, TEST_CARDS.APPROVED, 'b10-outage');
    const o1 = await createOrder(m, { customer_ext_id: 'b10-outage' });
    const before = sim().callCount('authorize');
    expectNotRunAgain((await killedThenRetried({ after: 'authorize' }, (key) => m.api.post('/payment/direct', { order_uuid: o1.uuid, card_uuid: source }, { 'idempotency-key': key }))).retry);
    const o2 = await createOrder(m, { customer_ext_id: 'b11-outage' });
    expectNotRunAgain((await killedThenRetried({ after: 'authorize' }, (key) => m.api.post('/payment/moto', { order_uuid: o2.uuid, method: 'PHONE', ...card() }, { 'idempotency-key': key }))).retry);
    expect(sim().callCount('authorize') - before).toBe(2);
  });

  it('B12 refund, B9 confirmation, B8 cancellation: each asked of the processor once', async () => {
    const paid = await paidOrder(t, m);
    const refunds = sim().callCount('refund');
    expectNotRunAgain((await killedThenRetried({ after: 'refund' }, (key) => m.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 300 }, { 'idempotency-key': key }))).retry);
    expect(sim().callCount('refund') - refunds).toBe(1);

    const held = await paidOrder(t, m, { operative: 'DEFERRED' });
    const captures = sim().callCount('capture');
    expectNotRunAgain((await killedThenRetried({ after: 'capture' }, (key) => m.api.post('/payment/confirmation', { order_uuid: held.uuid }, { 'idempotency-key': key }))).retry);
    expect(sim().callCount('capture') - captures).toBe(1);

    const held2 = await paidOrder(t, m, { operative: 'DEFERRED' });
    const cancels = sim().callCount('cancel');
    expectNotRunAgain((await killedThenRetried({ after: 'cancel' }, (key) => m.api.post('/payment/cancellation', { order_uuid: held2.uuid }, { 'idempotency-key': key }))).retry);
    expect(sim().callCount('cancel') - cancels).toBe(1);
  });

  it('B15 payouts to a card and with an APM: one each', async () => {
    const paid = await paidOrder(t, m, { customer_ext_id: 'po-outage' });
    const o = await createOrder(m, { operative: 'PAYOUT', customer_ext_id: 'po-outage', amount: 300 });
    const payouts = sim().callCount('payout');
    const body = { order_uuid: o.uuid, source_uuid: paid.transactions[0].source.uuid };
    expectNotRunAgain((await killedThenRetried({ after: 'payout' }, (key) => m.api.post('/payment/payout', body, { 'idempotency-key': key }))).retry);
    expect(sim().callCount('payout') - payouts).toBe(1);

    const o2 = await createOrder(m, { operative: 'PAYOUT', customer_ext_id: 'po-outage', amount: 400 });
    const apmPayouts = sim().callCount('apmPayout');
    expectNotRunAgain((await killedThenRetried({ after: 'apmPayout' }, (key) => m.api.post('/payment/payout', { order_uuid: o2.uuid, apm: 'mbway', phone: '+351 912 000 001' }, { 'idempotency-key': key }))).retry);
    expect(sim().callCount('apmPayout') - apmPayouts).toBe(1);
  });

  it('B13 an APM started and B14 a wallet payment: one each', async () => {
    const o = await createOrder(m);
    const starts = sim().callCount('apmStart');
    expectNotRunAgain((await killedThenRetried({ after: 'apmStart' }, (key) => m.api.post('/payment/push', { order_uuid: o.uuid, apm: 'MBWAY', phone: '+351 912 000 001' }, { 'idempotency-key': key }))).retry);
    expect(sim().callCount('apmStart') - starts).toBe(1);

    const put = await m.api.put(`/service/${m.service_uuid}/wallets`, { wallets: ['GOOGLEPAY'] });
    expect(put.status, put.raw).toBe(200);
    const token = await m.api.post('/sandbox-wallet/token', { wallet: 'GOOGLEPAY' });
    expect(token.status, token.raw).toBe(200);
    const o2 = await createOrder(m);
    const before = sim().callCount('authorize');
    expectNotRunAgain((await killedThenRetried({ after: 'authorize' }, (key) => m.api.post('/payment/wallet', { order_uuid: o2.uuid, wallet: 'GOOGLEPAY', payload: token.body.token.payload }, { 'idempotency-key': key }))).retry);
    expect(sim().callCount('authorize') - before).toBe(1);
  });

  it('K1 card-present: a repeated STAN charges nothing', async () => {
    const reg = await m.api.post('/device', { service: m.service_uuid, identifier: 'pos-outage', communication_type: 'SOCKET' });
    expect(reg.status, reg.raw).toBe(200);
    const d = { token: reg.body.token as string, mid: reg.body.device.mid as string };
    const body = { card: { track2: `${TEST_CARDS.APPROVED}=4912201000000000` }, amount: 2500, currency: 'EUR', mid: d.mid, stan: '424242', card_reading_method: 'ICC', card_sequence_number: '001', pin: { block: '041234FFFFFFFFFF', format: 0 }, device: { serial_number: 'SN-1', model: 'A920' }, sca: null };
    const send = async () => {
      const res = await t.app.inject({ method: 'POST', url: '/v1/sandbox/card-present/payment', headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json', 'x-forwarded-proto': 'https' }, payload: JSON.stringify(body) });
      return { status: res.statusCode, raw: res.body, body: JSON.parse(res.body) };
    };
    const before = sim().callCount('authorize');
    const undo = dieAfter('authorize');
    let first;
    try {
      first = await send();
    } finally {
      undo();
      outage.up();
    }
    expect(first.status, first.raw).toBe(503);
    const retry = await send();
    expect(retry.status, retry.raw).toBe(409);
    expect(retry.body.details).toMatch(/STAN 424242 was already used/);
    expect(sim().callCount('authorize') - before).toBe(1);
  });
});

describe('a release of an earlier attempt that comes late', () => {
  it("never frees the key of a later attempt: the later attempt's refund stays tied to the key (a proxy failover saw a refund made twice)", async () => {
    const paid = await paidOrder(t, m);
    const key = `late-release-${++seq}`;
    const store = t.m.idempotency;
    const begin = store.begin.bind(store);
    const attempts: Array<string | undefined> = [];
    let afterBegin: (() => Promise<void>) | null = null;
    store.begin = async (...args: Parameters<typeof begin>) => {
      const outcome = await begin(...args);
      if (args[1] === key && outcome.kind === 'proceed') {
        attempts.push(outcome.attempt);
        await afterBegin?.();
      }
      return outcome;
    };
    const refund = () => m.api.post('/payment/refund', { order_uuid: paid.uuid, amount: 250 }, { 'idempotency-key': key });
    const refunds = sim().callCount('refund');
    try {
      // attempt A: the database goes away right after it took the key, before anything of it committed;
      // its release (finishLater) cannot run yet
      afterBegin = async () => outage.down();
      const a = await refund();
      outage.up();
      expect(a.status, a.raw).toBe(503);
      // A's lock lapses (the database was away a while); B takes the key over
      await t.p.database.db.updateTable('idempotency_keys').set({ locked_until: new Date(Date.now() - 1000) }).where('key', '=', key).execute();
      // A's release runs at last, while B holds the key and before B's refund commits
      afterBegin = async () => store.finish(m.client_uuid, key, 503, '', attempts[0] ?? null);
      const undo = dieAfter('refund');
      let b;
      try {
        b = await refund();
      } finally {
        undo();
        outage.up();
      }
      expect(b.status, b.raw).toBe(503);
      afterBegin = null;
      await store.finish(m.client_uuid, key, 503, '', attempts[1] ?? null);
      const c = await refund();
      expectNotRunAgain(c);
    } finally {
      store.begin = begin;
    }
    expect(sim().callCount('refund') - refunds).toBe(1);
    expect(attempts[0]).not.toBe(attempts[1]);
  });
});

describe("the database dies while the request's first commit is acknowledged; the retry with the key", () => {
  it('a batch of authorizations and a batch of refunds are filed once', async () => {
    const source = await storeCard(t, m, TEST_CARDS.APPROVED, 'batch-outage');
    const auth = { data: b64(`AMOUNT,CARD,SERVICE\n700,${source},${m.service_uuid}\n`), filename: 'outage.csv' };
    expectNotRunAgain((await killedThenRetried('commit', (key) => m.api.post('/batch/authorizations', auth, { 'idempotency-key': key }))).retry);
    const paid = await paidOrder(t, m);
    const refunds = { data: b64(`ORDER_UUID,AMOUNT\n${paid.uuid},100\n`), filename: 'outage-refunds.csv' };
    expectNotRunAgain((await killedThenRetried('commit', (key) => m.api.post('/batch/refunds', refunds, { 'idempotency-key': key }))).retry);
    expect(await count('batch_files', (q) => q.where('merchant_id', '=', m.client_uuid))).toBe(2);
    // the lines run once
    await advance(m, 60);
    await t.p.jobs.drain();
    const o = (await m.api.get(`/order/${paid.uuid}`)).body.order;
    expect(o.refunded).toBe(100);
  });

  it("a subscription: one subscription, its first charge made once", async () => {
    const source = await storeCard(t, m, TEST_CARDS.APPROVED, 'sub-outage');
    expect((await m.api.post('/subscriptions/product', { name: 'P', external_id: 'outage-p' })).status).toBe(200);
    expect((await m.api.post('/subscriptions/plan', { name: 'Monthly', external_id: 'outage-m', product: 'outage-p', amount: 500, interval_type: 'MONTHLY' })).status).toBe(200);
    const before = sim().callCount('authorize');
    const body = { plan: 'outage-m', customer: 'sub-outage', payment_attempts_limit: 1, additional_data: { source_uuid: source, service: m.service_uuid } };
    expectNotRunAgain((await killedThenRetried('commit', (key) => m.api.post('/subscriptions/subscription', body, { 'idempotency-key': key }))).retry);
    expect(await count('subscriptions', (q) => q.where('customer_ext_id', '=', 'sub-outage'))).toBe(1);
    // the background job finds the first charge made (or makes it, if the request died before it)
    await t.p.jobs.drain();
    expect(sim().callCount('authorize') - before).toBe(1);
  });

  it('a MoTo campaign sends its payment requests once', async () => {
    const inDays = (n: number) => new Date(Date.now() + n * 86400_000).toISOString().slice(0, 10);
    const body = { description: 'Outage', expires_at: inDays(3), service_uuid: m.service_uuid, type: 'CUSTOM_DELIVERY', payments: [{ amount: 700 }] };
    expectNotRunAgain((await killedThenRetried('commit', (key) => m.api.post('/moto/campaign', body, { 'idempotency-key': key }))).retry);
    expect(await count('moto_campaigns', (q) => q.where('merchant_id', '=', m.client_uuid))).toBe(1);
  });

  it('J7 a refund queued on a simulated device is queued once', async () => {
    const reg = await m.api.post('/device', { service: m.service_uuid, identifier: 'sim-outage', communication_type: 'SIMULATION' });
    expect(reg.status, reg.raw).toBe(200);
    const device = reg.body.device.id as string;
    const sent = await m.api.post('/device/payment', { device, amount: 1500, description: 'outage coffee' });
    expect(sent.status, sent.raw).toBe(200);
    await advance(m, 11);
    await t.p.jobs.drain();
    const uuid = sent.body.order.uuid as string;
    expectNotRunAgain((await killedThenRetried('commit', (key) => m.api.post('/device/refund', { device, order_uuid: uuid, amount: 300 }, { 'idempotency-key': key }))).retry);
    expect(await count('device_refunds', (q) => q.where('order_id', '=', uuid))).toBe(1);
  });
});
