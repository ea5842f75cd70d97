/**
 * B15 payouts with APMs: which APMs support payouts (the catalogue), `apm` mandatory when the service
 * has more than one way to transfer funds, payouts to a phone (BIZUM, MBWAY) and to a stored bank
 * account (TRANSFER) through the sandbox APM provider, refusals, a lost answer settled by the
 * reconciler, and bad input as a 400 that changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APM_CATALOGUE, PAYOUT_APMS } from '../../src/processors/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder, paidOrder } from '../helpers/payments.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let t: TestApp;
let a: TestMerchant;
let rx: Receiver;

const IBAN = 'ES91 2100 0418 4502 0005 1332';

beforeAll(async () => {
  t = await createTestApp();
  rx = await startReceiver();
  a = await t.merchant({ name: 'Payout shop' });
  const r = await a.api.put(`/service/${a.service_uuid}/apms`, { apms: ['BIZUM', 'MBWAY', 'TRANSFER', 'IDEAL'] });
  expect(r.status, r.raw).toBe(200);
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

const payoutOrder = (m: TestMerchant, body: Record<string, unknown> = {}) => createOrder(m, { operative: 'PAYOUT', amount: 4200, customer_ext_id: 'cust-p', ...body });

async function bankAccount(m: TestMerchant, customer = 'cust-p'): Promise<string> {
  const r = await m.api.post('/payment-method/bank', { customer_ext_id: customer, account_holder: 'Ana Pérez', iban: IBAN });
  expect(r.status, r.raw).toBe(200);
  return r.body.Source.uuid;
}

async function notified(orderUuid: string) {
  await t.p.jobs.drain();
  return rx.received.map((x) => JSON.parse(x.body)).filter((b) => b.order?.uuid === orderUuid).map((b) => b.order.status);
}

describe('which APMs pay out', () => {
  it('the catalogue marks BIZUM, MBWAY (to a phone) and TRANSFER (to a bank account); the others take payments only', async () => {
    expect([...PAYOUT_APMS].sort()).toEqual(['BIZUM', 'MBWAY', 'TRANSFER']);
    const r = await a.api.get('/apms');
    expect(r.status, r.raw).toBe(200);
    const by = Object.fromEntries(r.body.apms.map((x: any) => [x.apm, x]));
    expect(by.BIZUM).toMatchObject({ payouts: true, payout_to: 'PHONE' });
    expect(by.MBWAY).toMatchObject({ payouts: true, payout_to: 'PHONE' });
    expect(by.TRANSFER).toMatchObject({ payouts: true, payout_to: 'BANK_ACCOUNT' });
    for (const info of APM_CATALOGUE.filter((x) => !PAYOUT_APMS.includes(x.apm))) {
      expect(by[info.apm].payouts, info.apm).toBe(false);
      expect(by[info.apm].payout_to, info.apm).toBeUndefined();
    }
  });
});

describe('payouts with an APM', () => {
  it('BIZUM to a phone: SUCCESS, the phone masked on the transaction, notified', async () => {
    const o = await payoutOrder(a, { url_post: `${rx.url}/p1` });
    const r = await a.api.post('/payment/payout', { order_uuid: o.uuid, apm: 'bizum', phone: '+34 700 000 000' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(r.body.order.transactions).toHaveLength(1);
    expect(r.body.order.transactions[0]).toMatchObject({
      operative: 'PAYOUT', status: 'SUCCESS', amount: 4200, error: 'NONE',
      source: { object: 'BIZUM', apm: 'BIZUM', kind: 'push', phone: '******000' },
    });
    expect(r.raw).not.toContain('700000000');
    expect(await notified(o.uuid)).toEqual(['SUCCESS']);
    // payouts are not refundable
    expect((await a.api.post('/payment/refund', { order_uuid: o.uuid })).status).toBe(400);
  });

  it('MBWAY to a phone that cannot receive: REFUSED, and the order can be paid out again', async () => {
    const o = await payoutOrder(a);
    const r = await a.api.post('/payment/payout', { order_uuid: o.uuid, apm: 'MBWAY', phone: '912000001' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.status).toBe('REFUSED');
    expect(r.body.order.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED' });
    const again = await a.api.post('/payment/payout', { order_uuid: o.uuid, apm: 'MBWAY', phone: '912000000' });
    expect(again.body.order.status).toBe('SUCCESS');
    expect(again.body.order.transactions.map((x: any) => x.status)).toEqual(['REFUSED', 'SUCCESS']);
  });

  it('TRANSFER to the customer\'s stored bank account; a bank account as source_uuid chooses TRANSFER by itself', async () => {
    const bank = await bankAccount(a);
    const o = await payoutOrder(a);
    const r = await a.api.post('/payment/payout', { order_uuid: o.uuid, apm: 'TRANSFER', source_uuid: bank });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.status).toBe('SUCCESS');
    expect(r.body.order.transactions[0]).toMatchObject({ operative: 'PAYOUT', status: 'SUCCESS', source: { uuid: bank, object: 'BANK_ACCOUNT', last4: '1332' } });
    expect(r.raw).not.toContain('2100041845');
    const implicit = await payoutOrder(a);
    const r2 = await a.api.post('/payment/payout', { order_uuid: implicit.uuid, source_uuid: bank });
    expect(r2.status, r2.raw).toBe(200);
    expect(r2.body.order.transactions[0].source.object).toBe('BANK_ACCOUNT');
    // a TRANSFER order (bank transfer) paid out to the bank account
    const transfer = await payoutOrder(a, { operative: 'TRANSFER' });
    const r3 = await a.api.post('/payment/payout', { order_uuid: transfer.uuid, apm: 'TRANSFER', source_uuid: bank });
    expect(r3.body.order.transactions[0]).toMatchObject({ operative: 'TRANSFER', status: 'SUCCESS' });
  });

  it('a lost answer leaves the payout pending; the reconciler settles it from the provider\'s record (autorecover_transactions)', async () => {
    await t.p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', a.client_uuid).execute();
    const o = await payoutOrder(a);
    t.m.processors.simulator.injectFault({ operation: 'apmPayout', kind: 'timeout' });
    const r = await a.api.post('/payment/payout', { order_uuid: o.uuid, apm: 'BIZUM', phone: '700000000' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.status).toBe('PENDING_PROCESSOR_RESPONSE');
    expect(r.body.order.transactions[0].status).toBe('PENDING');
    // while it is pending, no second payout
    expect((await a.api.post('/payment/payout', { order_uuid: o.uuid, apm: 'BIZUM', phone: '700000000' })).status).toBe(409);
    await t.m.payments.reconcile({ olderThanMs: 0 });
    const after = (await a.api.get(`/order/${o.uuid}`)).body.order;
    expect(after.status).toBe('SUCCESS');
    expect(after.transactions).toHaveLength(1);
  });
});

describe('the way of a payout and what is refused', () => {
  it('apm is mandatory when the service has several ways to transfer funds and nothing else says which', async () => {
    const o = await payoutOrder(a);
    const r = await a.api.post('/payment/payout', { order_uuid: o.uuid });
    expect(r.status).toBe(400);
    expect(r.body.details).toBe('apm is required: the order\'s service transfers funds to cards and with BIZUM, TRANSFER, MBWAY');
    // a card named by source_uuid is the way: paid out to the card as before
    const paid = await paidOrder(t, a, { customer_ext_id: 'cust-p' });
    const card = paid.transactions[0].source.uuid;
    const r2 = await a.api.post('/payment/payout', { order_uuid: o.uuid, source_uuid: card });
    expect(r2.status, r2.raw).toBe(200);
    expect(r2.body.order.transactions[0].source).toMatchObject({ uuid: card, object: 'CARD' });
  });

  it('a service without payout APMs pays out to cards without apm, as before', async () => {
    const m = await t.merchant();
    await m.api.put(`/service/${m.service_uuid}/apms`, { apms: ['IDEAL', 'PIX'] });
    await paidOrder(t, m, { customer_ext_id: 'cust-q' });
    const o = await payoutOrder(m, { customer_ext_id: 'cust-q' });
    const r = await m.api.post('/payment/payout', { order_uuid: o.uuid });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order).toMatchObject({ status: 'SUCCESS' });
    expect(r.body.order.transactions[0].source.object).toBe('CARD');
    // and an APM it does not offer is refused
    const bad = await m.api.post('/payment/payout', { order_uuid: o.uuid, apm: 'BIZUM', phone: '700000000' });
    expect(bad.status).toBe(400);
  });

  it('bad input is 400 (404 for another merchant\'s order) and changes nothing', async () => {
    const o = await payoutOrder(a);
    const card = (await paidOrder(t, a, { customer_ext_id: 'cust-p' })).transactions[0].source.uuid;
    const otherBank = await bankAccount(a, 'someone-else');
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ apm: 'IDEAL' }, 400, 'IDEAL does not support payouts'],
      [{ apm: 'PIX' }, 400, 'PIX does not support payouts'],
      [{ apm: 'NOPE' }, 400, 'NOPE is not an APM'],
      [{ apm: 'BIZUM' }, 400, 'phone: required'],
      [{ apm: 'BIZUM', phone: '912000000' }, 400, 'phone: not a valid Bizum'],
      [{ apm: 'MBWAY', phone: 'abc' }, 400, 'phone: not a valid MB WAY'],
      [{ apm: 'TRANSFER' }, 400, 'source_uuid is required'],
      [{ apm: 'TRANSFER', source_uuid: card }, 400, 'is not a bank account'],
      [{ apm: 'TRANSFER', source_uuid: otherBank }, 400, "does not belong to the order's customer"],
      [{ apm: 'TRANSFER', source_uuid: '00000000-0000-4000-8000-000000000000' }, 404, 'not found'],
    ];
    for (const [body, status, text] of cases) {
      const r = await a.api.post('/payment/payout', { order_uuid: o.uuid, ...body });
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.body.details, JSON.stringify(body)).toContain(text);
    }
    const m = await t.merchant();
    await m.api.put(`/service/${m.service_uuid}/apms`, { apms: ['TRANSFER'] });
    const foreign = await payoutOrder(m);
    expect((await a.api.post('/payment/payout', { order_uuid: foreign.uuid, apm: 'BIZUM', phone: '700000000' })).status).toBe(404);
    expect((await m.api.post('/payment/payout', { order_uuid: foreign.uuid, apm: 'BIZUM', phone: '700000000' })).body.details).toContain('does not offer BIZUM');
    // an order that is not a payout
    const sale = await createOrder(a);
    expect((await a.api.post('/payment/payout', { order_uuid: sale.uuid, apm: 'BIZUM', phone: '700000000' })).body.details).toContain('Only PAYOUT and TRANSFER');
    expect((await a.api.get(`/order/${o.uuid}`)).body.order).toMatchObject({ status: 'CREATED', transactions: [] });
    expect((await a.api.get(`/order/${sale.uuid}`)).body.order).toMatchObject({ status: 'CREATED', transactions: [] });
  });
});
