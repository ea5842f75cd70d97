/**
 * Redsys's documented flows through the public API in production mode, against the Redsys simulator:
 * an operation Redsys answers as still in progress (Ds_Response 9999: sent to the issuer to
 * authenticate) stays PENDING until Redsys's notification or its query service decides it; the
 * merchant's own 3-D Secure result (`threeds_data`, an external MPI) sent as DS_MERCHANT_MPIEXTERNAL;
 * stored credentials (COF): the first use only when the payment stores the card (B3, the hosted page
 * when the order saves it, a stored card's first payment), later uses quoting the network id, merchant-
 * initiated payments with their kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { redsysHarness, type WebhookSend } from '../helpers/connectors.js';
import { storeCard } from '../helpers/payments.js';
import { nonceOf, pagePath, post as postForm } from '../helpers/pages.js';
import { SIM_CARDS } from '../../src/processors/redsys/simulator/rules.js';
import { decodeParameters } from '../../src/processors/redsys/signature.js';

const h = redsysHarness();
const FUC = '999008881';
let t: TestApp;
let m: TestMerchant;
let n = 0;

beforeAll(async () => {
  await h.start();
  t = await createTestApp(h.env());
  m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
  // the reconciler asks Redsys's query service
  await t.p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', m.client_uuid).execute();
});
afterAll(async () => {
  await t?.close();
  await h.close();
});

/** Redsys's notifications, delivered to the gateway in process. */
const send: WebhookSend = async (d) => {
  const r = await t.app.inject({ method: 'POST', url: d.path, headers: d.headers, payload: d.body });
  return { status: r.statusCode, body: r.body };
};

const card = (pan: string) => ({ card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' });
async function singleStep(pan: string, fields: Record<string, unknown> = {}) {
  const r = await m.api.post('/payment/single-step', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'flows', service: m.service_uuid, customer_ext_id: `flow-${++n}`, ...card(pan), ...fields });
  expect(r.status, r.raw).toBe(200);
  return r.body.order;
}
const get = async (uuid: string) => (await m.api.get(`/order/${uuid}`)).body.order;

describe('an operation in progress at Redsys (9999)', () => {
  it('stays PENDING with its order number; the query service says it is still in progress; Redsys\'s notification then settles it', async () => {
    h.webhooks!.deliverTo(send);
    const o = await singleStep(SIM_CARDS.IN_PROGRESS);
    expect(o).toMatchObject({ status: 'PENDING_PROCESSOR_RESPONSE', paid: false });
    expect(o.transactions[0]).toMatchObject({ status: 'PENDING', error: 'NONE' });
    const order = o.transactions[0].processor_id as string;
    expect(order).toMatch(/^\d{4}[0-9A-Za-z]{8}$/);
    expect(h.sim.order(FUC, '001', order)).toMatchObject({ inProgress: true, approved: false });
    // the reconciler asks: still in progress, nothing is decided
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
    expect((await get(o.uuid)).transactions[0].status).toBe('PENDING');
    // the issuer decides; Redsys notifies the gateway
    const sent = await h.sim.decideInProgress(FUC, '001', order, '0000');
    expect(sent).toMatchObject({ status: 200 });
    const after = await get(o.uuid);
    expect(after).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(after.transactions).toHaveLength(1);
    expect(after.transactions[0]).toMatchObject({ status: 'SUCCESS', processor_id: order });
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(0);
  });

  it('without its notification, the query service settles it once decided: refused by the issuer', async () => {
    h.webhooks!.deliverTo(null);
    const o = await singleStep(SIM_CARDS.IN_PROGRESS);
    const order = o.transactions[0].processor_id as string;
    expect(o.status).toBe('PENDING_PROCESSOR_RESPONSE');
    await h.sim.decideInProgress(FUC, '001', order, '0190');
    expect((await get(o.uuid)).status).toBe('PENDING_PROCESSOR_RESPONSE');
    expect(await t.m.payments.reconcile({ olderThanMs: 0 })).toBe(1);
    const after = await get(o.uuid);
    expect(after.status).toBe('REFUSED');
    expect(after.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'DENIED', error_details: 'Redsys 0190: declined by the issuer without a reason' });
  });
});

/** The decoded parameters of the last request Redsys received. */
const lastSent = () => decodeParameters((h.sim.requests.at(-1)!.body as { Ds_MerchantParameters: string }).Ds_MerchantParameters);

describe('the merchant\'s own 3-D Secure (threeds_data, an external MPI)', () => {
  const dsTransId = '3c7a8f10-6a1e-4a77-9e0c-52b1d9d2f7a4';
  const cavv = 'AAABBEg0VhI0VniQEjRWAAAAAAA=';

  it('goes to Redsys as DS_MERCHANT_MPIEXTERNAL: the payment is authenticated (a card that needs SCA is approved) and safe', async () => {
    const o = await singleStep(SIM_CARDS.SOFT_DECLINE, { threeds_data: { version: '2.2.0', trans_status: 'Y', eci: '05', cavv, ds_trans_id: dsTransId } });
    expect(o).toMatchObject({ status: 'SUCCESS', paid: true, safe: true });
    expect(o.threeds_data).toMatchObject({ flow: 'EXTERNAL', status: 'Y', eci: '05' });
    const sent = lastSent();
    expect(sent.DS_MERCHANT_MPIEXTERNAL).toEqual({ protocolVersion: '2.2.0', dsTransID: dsTransId, authenticacionValue: cavv, Eci: '05' });
    expect(sent).not.toHaveProperty('DS_MERCHANT_EMV3DS');
    expect(h.sim.order(FUC, '001', o.transactions[0].processor_id)).toMatchObject({ approved: true, securePayment: '2' });
  });

  it('a result that says the cardholder was not authenticated is refused without asking Redsys', async () => {
    const calls = h.sim.calls.trataPeticion;
    const o = await singleStep(SIM_CARDS.APPROVED, { threeds_data: { version: '2.2.0', trans_status: 'N', eci: '07', ds_trans_id: dsTransId } });
    expect(o.status).toBe('REFUSED');
    expect(o.transactions[0]).toMatchObject({ status: 'REFUSED', error: 'AUTHENTICATION_FAILED' });
    expect(o.transactions[0].error_details).toMatch(/transStatus N/);
    expect(h.sim.calls.trataPeticion).toBe(calls);
  });
});

describe('stored credentials (COF)', () => {
  const cofFields = () => Object.fromEntries(Object.entries(lastSent()).filter(([k]) => /COF|EXCEP_SCA|DIRECTPAYMENT/.test(k)));
  const pan = () => h.cards.approved();

  it('B3 stores the card: its first use; a B10 payment with it quotes the network id; a batch line is an unscheduled MIT quoting it', async () => {
    const c = `cof-${++n}`;
    const first = await singleStep(pan(), { customer_ext_id: c });
    expect(first.status).toBe('SUCCESS');
    expect(cofFields()).toEqual({ DS_MERCHANT_COF_INI: 'S', DS_MERCHANT_COF_TYPE: 'C' });
    expect(first.cof_txnid).toMatch(/^\d{15}$/);
    const source = first.transactions[0].source.uuid as string;
    // the customer pays again with the stored card (B10): a later use of the stored credential
    const o = (await m.api.post('/payment', { amount: 700, operative: 'AUTHORIZATION', secure: false, description: 'again', service: m.service_uuid, customer_ext_id: c })).body.order;
    const again = await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: source });
    expect(again.status, again.raw).toBe(200);
    expect(again.body.order).toMatchObject({ status: 'SUCCESS', cof_txnid: first.cof_txnid });
    expect(cofFields()).toEqual({ DS_MERCHANT_COF_INI: 'N', DS_MERCHANT_COF_TYPE: 'C', DS_MERCHANT_COF_TXNID: first.cof_txnid });
    // a batch line: merchant-initiated, unscheduled
    const file = Buffer.from(`amount,card,customer_external_id,service,additional,url_post\n450,${source},${c},${m.service_uuid},batch line,\n`).toString('base64');
    const batch = (await m.api.post('/batch/authorizations', { data: file, filename: 'lines.csv' })).body.batch;
    await t.m.batch.drain();
    const line = (await m.api.get(`/batch/${batch.uuid}`)).body.lines[0];
    expect(line).toMatchObject({ status: 'SUCCEEDED', outcome: 'SUCCESS' });
    expect(cofFields()).toEqual({ DS_MERCHANT_COF_INI: 'N', DS_MERCHANT_COF_TYPE: 'C', DS_MERCHANT_COF_TXNID: first.cof_txnid, DS_MERCHANT_EXCEP_SCA: 'MIT', DS_MERCHANT_DIRECTPAYMENT: 'true' });
  });

  it('a card stored without a payment: its first payment (B10) is the first use', async () => {
    const c = `cof-${++n}`;
    const source = await storeCard(t, m, pan(), c);
    const o = (await m.api.post('/payment', { amount: 700, operative: 'AUTHORIZATION', secure: false, description: 'stored', service: m.service_uuid, customer_ext_id: c })).body.order;
    const r = await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: source });
    expect(r.body.order).toMatchObject({ status: 'SUCCESS', cof_txnid: expect.stringMatching(/^\d{15}$/) });
    expect(cofFields()).toEqual({ DS_MERCHANT_COF_INI: 'S', DS_MERCHANT_COF_TYPE: 'C' });
  });

  it('a payment that does not keep the card for later is no stored-credential use: B3 without save_card, the hosted page without save_card', async () => {
    const oneOff = await singleStep(pan(), { save_card: false });
    expect(oneOff.status).toBe('SUCCESS');
    expect(cofFields()).toEqual({});
    expect(oneOff.cof_txnid).toBeNull();
    // the hosted page: stored for later only when the order saves the card
    for (const save of [false, true]) {
      const o = (await m.api.post('/payment', { amount: 900, operative: 'AUTHORIZATION', secure: false, description: 'page', service: m.service_uuid, customer_ext_id: `cof-${++n}`, save_card: save, url_ok: 'https://shop.example/ok', url_ko: 'https://shop.example/ko' })).body.order;
      const url = pagePath(o, 'process', 'production');
      const page = await t.app.inject({ method: 'GET', url, headers: { 'x-forwarded-proto': 'https' } });
      expect(page.statusCode, page.body.slice(0, 300)).toBe(200);
      const paid = await postForm(t, url, { nonce: nonceOf(page.body), holder: 'Ana Pérez', number: pan(), expiry: '12/30', cvv: '123' }, { 'x-forwarded-proto': 'https' });
      expect(paid.statusCode, paid.body.slice(0, 300)).toBeLessThan(400);
      expect((await get(o.uuid)).status).toBe('SUCCESS');
      expect(cofFields()).toEqual(save ? { DS_MERCHANT_COF_INI: 'S', DS_MERCHANT_COF_TYPE: 'C' } : {});
    }
  });
});
