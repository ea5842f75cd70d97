/**
 * Redsys's documented flows through the public API in production mode, against the Redsys simulator:
 * an operation Redsys answers as still in progress (Ds_Response 9999: sent to the issuer to
 * authenticate) stays PENDING until Redsys's notification or its query service decides it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { redsysHarness, type WebhookSend } from '../helpers/connectors.js';
import { SIM_CARDS } from '../../src/processors/redsys/simulator/rules.js';

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
