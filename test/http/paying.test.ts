import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, createOrder, paidOrder, storeCard } from '../helpers/payments.js';

let t: TestApp;
let pci: TestMerchant;
let plain: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  pci = await t.merchant({ isPci: true });
  plain = await t.merchant();
});
afterAll(async () => t?.close());

const card = (pan: string = TEST_CARDS.APPROVED) => ({ card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' });
const single = (m: TestMerchant, extra: Record<string, unknown> = {}) =>
  m.api.post('/payment/single-step', { amount: 2500, operative: 'AUTHORIZATION', secure: false, customer_ext_id: 'ss-1', service: m.service_uuid, description: 'single', ...card(), ...extra });

describe('B3 single-step payment', () => {
  it('PCI merchants only', async () => {
    const r = await single(plain);
    expect(r.status).toBe(400);
    expect(r.body.details).toMatch(/PCI/);
  });

  it('creates the order, stores the card (never the CVV) and pays', async () => {
    const r = await single(pci);
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order).toMatchObject({ status: 'SUCCESS', paid: true, amount: 2500, customer: 'ss-1' });
    const src = r.body.order.transactions[0].source;
    expect(src).toMatchObject({ object: 'CARD', last4: '0004', holder: 'Ana Pérez', origin: 'SINGLE_STEP' });
    const row = await t.p.database.db.selectFrom('sources').selectAll().where('id', '=', src.uuid).executeTakeFirstOrThrow();
    expect(row.first_paid_at).not.toBeNull();
    // no card number or CVV anywhere in clear: orders, transactions, jobs, events
    for (const table of ['orders', 'transactions', 'jobs', 'events', 'sources'] as const) {
      const dump = JSON.stringify(await t.p.database.db.selectFrom(table).selectAll().execute());
      expect(dump, table).not.toContain(TEST_CARDS.APPROVED);
    }
    // the stored card pays another order (B10)
    const o = await createOrder(pci, { customer_ext_id: 'ss-1' });
    const paid = await pci.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: src.uuid });
    expect(paid.body.order.status).toBe('SUCCESS');
  });

  it('Luhn-invalid card, failed CVV check, expired card; any other CVV of the right length passes', async () => {
    expect((await single(pci, { card_pan: '4548812049400005' })).status).toBe(400);
    expect((await single(pci, { card_expiry_year: '2020' })).status).toBe(400);
    const cvv = await single(pci, { card_pan: TEST_CARDS.CVV_FAIL, card_cvv: '123' });
    expect(cvv.status).toBe(200);
    expect(cvv.body.order.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED', error_details: 'CVV check failed' });
    const other = await single(pci, { card_cvv: '999' });
    expect(other.status).toBe(200);
    expect(other.body.order.transactions[0]).toMatchObject({ status: 'SUCCESS', error: 'NONE' });
  });

  it('secure: 303 to the tokenized 3DS page; with external MPI data it pays at once and is safe', async () => {
    const r = await single(pci, { secure: true, card_pan: TEST_CARDS.THREEDS_OK });
    expect(r.status).toBe(303);
    expect(r.headers.location).toBeUndefined();
    expect(r.body.details).toContain('/payment/tokenized/');
    const ext = await single(pci, { secure: true, threeds_data: { version: 2, trans_status: 'Y', eci: 5, cavv: 'AAAB', ds_trans_id: 'ds-1' } });
    expect(ext.status, ext.raw).toBe(200);
    expect(ext.body.order).toMatchObject({ status: 'SUCCESS', safe: true });
    expect(ext.body.order.threeds_data).toMatchObject({ version: '2', flow: 'EXTERNAL', status: 'Y', eci: '5' });
    const failed = await single(pci, { secure: true, threeds_data: { version: 2, trans_status: 'N' } });
    expect(failed.body.order.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
  });

  it('dpan_data (network token) pays; keyentry profile allowed, readonly not', async () => {
    const r = await single(pci, { dpan_data: { cryptogram: 'AgAAAAAABk4DWZ4C28yUQAAAAAA=', eci: '07' } });
    expect(r.body.order.status).toBe('SUCCESS');
    const key = await t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, pci.client_uuid, 'sandbox', ['keyentry']));
    const ro = await t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, pci.client_uuid, 'sandbox', ['readonly']));
    const k = pci.api.withCreds({ api_key: key.apiKey, signature: key.signature });
    expect((await k.post('/payment/single-step', { amount: 1, operative: 'AUTHORIZATION', secure: false, customer_ext_id: 'x', service: pci.service_uuid, description: 'd', ...card() })).status).toBe(200);
    expect((await pci.api.withCreds({ api_key: ro.apiKey, signature: ro.signature }).post('/payment/single-step', { amount: 1 })).status).toBe(403);
  });
});

describe('B11 MoTo', () => {
  it('card data or a stored card; exempt from SCA (soft-decline card approves)', async () => {
    const o = await createOrder(pci, { secure: true });
    const r = await pci.api.post('/payment/moto', { order_uuid: o.uuid, method: 'PHONE', ...card(TEST_CARDS.SOFT_DECLINE) });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order).toMatchObject({ status: 'SUCCESS', paid: true });
    const o2 = await createOrder(pci);
    const stored = await storeCard(t, pci, TEST_CARDS.THREEDS_FAIL);
    const r2 = await pci.api.post('/payment/moto', { order_uuid: o2.uuid, method: 'MAIL', source_uuid: stored });
    expect(r2.body.order.status).toBe('SUCCESS');
    expect((await pci.api.post('/payment/moto', { order_uuid: o2.uuid, method: 'MAIL' })).status).toBe(400);
    const o3 = await createOrder(plain, { service: plain.service_uuid });
    expect((await plain.api.post('/payment/moto', { order_uuid: o3.uuid, method: 'MAIL', ...card() })).status).toBe(400);
  });
});

describe('B15 payout', () => {
  it("pays out to the customer's last card with a successful payment", async () => {
    const paid = await paidOrder(t, pci, { customer_ext_id: 'po-1' });
    const cardUuid = paid.transactions[0].source.uuid;
    const o = await createOrder(pci, { operative: 'PAYOUT', customer_ext_id: 'po-1', amount: 300 });
    const r = await pci.api.post('/payment/payout', { order_uuid: o.uuid });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order).toMatchObject({ status: 'SUCCESS' });
    expect(r.body.order.transactions[0]).toMatchObject({ operative: 'PAYOUT', amount: 300, status: 'SUCCESS' });
    expect(r.body.order.transactions[0].source.uuid).toBe(cardUuid);
    // payouts are not refundable; a customer without a paid card has nothing to pay out to
    expect((await pci.api.post('/payment/refund', { order_uuid: o.uuid })).status).toBe(400);
    const none = await createOrder(pci, { operative: 'PAYOUT', customer_ext_id: 'nobody' });
    expect((await pci.api.post('/payment/payout', { order_uuid: none.uuid })).status).toBe(400);
    const notPayout = await createOrder(pci);
    expect((await pci.api.post('/payment/payout', { order_uuid: notPayout.uuid })).status).toBe(400);
    expect((await pci.api.post('/payment/direct', { order_uuid: none.uuid, card_uuid: cardUuid })).status).toBe(400);
  });
});

describe('processor timeouts and the reconciler', () => {
  it('an answer lost after the processor did it: PENDING, then recovered as SUCCESS with autorecover_transactions', async () => {
    const m = await t.merchant();
    await t.p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', m.client_uuid).execute();
    const o = await createOrder(m);
    const c = await storeCard(t, m);
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'timeout' });
    const r = await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: c });
    expect(r.status).toBe(200);
    expect(r.body.order).toMatchObject({ status: 'PENDING_PROCESSOR_RESPONSE', paid: false });
    expect(r.body.order.transactions[0]).toMatchObject({ status: 'PENDING', authorization: '' });
    // a second payment while it is in flight is a conflict
    expect((await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: c })).status).toBe(409);
    expect(await t.m.payments.reconcile()).toBe(0); // not old enough yet
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(1);
    const after = (await m.api.get(`/order/${o.uuid}`)).body.order;
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(after.transactions[0].status).toBe('SUCCESS');
  });

  it('without autorecover_transactions the processor is asked too: a payment it approved is reversed there, the transaction ERROR (TIMEOUT) naming the reversal, and the order can be paid again', async () => {
    const m = await t.merchant();
    const sim = t.m.processors.simulator;
    const o = await createOrder(m);
    const c = await storeCard(t, m);
    sim.injectFault({ operation: 'authorize', kind: 'timeout' });
    await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: c });
    const lookups = sim.callCount('lookup');
    const refunds = sim.callCount('refund');
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(1);
    expect(sim.callCount('lookup')).toBeGreaterThan(lookups);
    expect(sim.callCount('refund')).toBe(refunds + 1);
    const after = (await m.api.get(`/order/${o.uuid}`)).body.order;
    expect(after.status).toBe('ERROR');
    expect(after.transactions[0]).toMatchObject({ status: 'ERROR', error: 'TIMEOUT' });
    expect(after.transactions[0].error_details).toMatch(/approved the payment .* after its answer was lost; autorecover_transactions is off, so it was reversed: refund \S+ of 1000/);
    expect((await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: c })).body.order.status).toBe('SUCCESS');
  });

  it('without autorecover_transactions a pre-authorization approved after its answer was lost is voided; a reversal whose answer is lost is found again, never sent twice', async () => {
    const m = await t.merchant();
    const sim = t.m.processors.simulator;
    const o = await createOrder(m, { operative: 'DEFERRED' });
    const c = await storeCard(t, m);
    sim.injectFault({ operation: 'preauthorize', kind: 'timeout' });
    await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: c });
    const cancels = sim.callCount('cancel');
    // the void is done but its answer is lost: the payment stays PENDING
    sim.injectFault({ operation: 'cancel', kind: 'timeout' });
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
    expect(sim.callCount('cancel')).toBe(cancels + 1);
    expect((await m.api.get(`/order/${o.uuid}`)).body.order.status).toBe('PENDING_PROCESSOR_RESPONSE');
    // the next sweep finds the void by its reference instead of sending another
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(1);
    expect(sim.callCount('cancel')).toBe(cancels + 1);
    const tx = (await m.api.get(`/order/${o.uuid}`)).body.order.transactions[0];
    expect(tx).toMatchObject({ status: 'ERROR', error: 'TIMEOUT' });
    expect(tx.error_details).toMatch(/reversed: void \S+ of 1000/);
  });

  it('a processor that cannot be asked keeps the transaction PENDING, asked again later (less often as it ages), whatever autorecover_transactions says', async () => {
    const m = await t.merchant();
    const sim = t.m.processors.simulator;
    const o = await createOrder(m);
    const c = await storeCard(t, m);
    sim.injectFault({ operation: 'authorize', kind: 'timeout' });
    await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: c });
    // an old one (two hours): the next question waits a tenth of its age
    await t.p.database.db.updateTable('transactions').set({ started_at: new Date(Date.now() - 2 * 3_600_000) }).where('order_id', '=', o.uuid).execute();
    sim.injectFault({ operation: 'lookup', kind: 'timeout' });
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
    expect((await m.api.get(`/order/${o.uuid}`)).body.order.transactions[0].status).toBe('PENDING');
    const lookups = sim.callCount('lookup');
    // not asked again at once
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
    expect(sim.callCount('lookup')).toBe(lookups);
    // later it is, and settled (reversed: autorecover_transactions is off)
    await t.p.database.db.updateTable('transactions').set({ reconcile_after: new Date(Date.now() - 1000) }).where('order_id', '=', o.uuid).execute();
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(1);
    expect((await m.api.get(`/order/${o.uuid}`)).body.order.transactions[0]).toMatchObject({ status: 'ERROR', error: 'TIMEOUT' });
  });

  it('a request the processor never got is ERROR even with autorecover; a lost refund releases its reservation', async () => {
    const m = await t.merchant();
    await t.p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', m.client_uuid).execute();
    const o = await createOrder(m);
    const c = await storeCard(t, m);
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'lost' });
    await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: c });
    await t.m.payments.reconcile({ olderThanMs: 0 });
    expect((await m.api.get(`/order/${o.uuid}`)).body.order.status).toBe('ERROR');

    const p = await paidOrder(t, m);
    t.m.processors.simulator.injectFault({ operation: 'refund', kind: 'lost' });
    const r = await m.api.post('/payment/refund', { order_uuid: p.uuid, amount: 400 });
    expect(r.status).toBe(200);
    expect(r.body.order.transactions.at(-1).status).toBe('PENDING');
    // the reservation counts: only 600 is left meanwhile
    expect((await m.api.post('/payment/refund', { order_uuid: p.uuid, amount: 601 })).status).toBe(400);
    await t.m.payments.reconcile({ olderThanMs: 0 });
    const row = await t.p.database.db.selectFrom('orders').selectAll().where('id', '=', p.uuid).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ refunded: 0, refund_reserved: 0, status: 'SUCCESS' });
  });

  it('the reconcile job runs from the queue', async () => {
    const m = await t.merchant();
    const o = await createOrder(m);
    const c = await storeCard(t, m);
    t.m.processors.simulator.injectFault({ operation: 'authorize', kind: 'timeout' });
    await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: c });
    await t.p.database.db.updateTable('transactions').set({ started_at: new Date(Date.now() - 3_600_000) }).where('order_id', '=', o.uuid).execute();
    await t.p.jobs.enqueue(t.p.database.db, { queue: 'payments.reconcile' });
    await t.p.jobs.drain();
    expect((await m.api.get(`/order/${o.uuid}`)).body.order.status).toBe('ERROR');
  });
});
