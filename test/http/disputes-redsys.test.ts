/**
 * A dispute of a Redsys payment (Redsys has no dispute API): entered by hand in production from the
 * acquiring bank's letter, evidence added and submitted (UNDER_REVIEW: the merchant sends it through the
 * bank's channel), then the bank's file reports the decision and the import moves the dispute to it; the
 * order's totals follow. A second payment's dispute is lost in a later stage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { redsysHarness } from '../helpers/connectors.js';
import { SIM_CARDS } from '../../src/processors/redsys/simulator/rules.js';

const h = redsysHarness();
let t: TestApp;
let m: TestMerchant;
let n = 0;

beforeAll(async () => {
  await h.start();
  t = await createTestApp(h.env());
  m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
});
afterAll(async () => {
  await t?.close();
  await h.close();
});

const card = (pan: string) => ({ card_holder: 'Ana Pérez', card_pan: pan, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123' });
async function paid(amount: number) {
  const r = await m.api.post('/payment/single-step', { amount, operative: 'AUTHORIZATION', secure: false, description: 'disputed', service: m.service_uuid, customer_ext_id: `d-${++n}`, ...card(SIM_CARDS.APPROVED) });
  expect(r.status, r.raw).toBe(200);
  expect(r.body.order.status).toBe('SUCCESS');
  return r.body.order;
}
const b64 = (s: string) => Buffer.from(s).toString('base64');
const HEADER = 'DISPUTE_ID,TRANSACTION,REASON_CODE,CATEGORY,AMOUNT,CURRENCY,STAGE,STATUS,EVIDENCE_DUE';

describe('a manual dispute on a Redsys payment', () => {
  it('entered, evidenced, submitted; the bank\'s decision imported', async () => {
    const o = await paid(4990);
    const due = new Date(Date.now() + 10 * 86400_000).toISOString();
    const r = await m.api.post('/disputes', { order_uuid: o.uuid, reason_code: '13.1', category: 'PRODUCT_NOT_RECEIVED', stage: 'CHARGEBACK', evidence_due_at: due, acquirer: 'redsys', provider_id: 'RS-2026-000187' });
    expect(r.status, r.raw).toBe(200);
    const d = r.body.dispute;
    expect(d).toMatchObject({ source: 'MANUAL', acquirer: 'REDSYS', provider_id: 'RS-2026-000187', transaction_uuid: o.transactions[0].uuid, amount: 4990, currency: 'EUR', status: 'NEEDS_RESPONSE', evidence_due_at: due });
    expect(d.history[0]).toMatchObject({ event: 'CREATE', actor: `api:${m.key_id}` });
    // the sandbox's trigger does not exist in production
    expect((await m.api.post('/disputes/simulate', { order_uuid: o.uuid })).status).toBe(404);

    expect((await m.api.post(`/disputes/${d.uuid}/evidence`, { fields: { shipping_tracking_number: 'PK123456789ES', proof_of_delivery: 'Signed by the cardholder on 3 March' } })).status).toBe(200);
    const s = await m.api.post(`/disputes/${d.uuid}/submit`, {});
    expect(s.status, s.raw).toBe(200);
    expect(s.body.dispute.status).toBe('UNDER_REVIEW');
    // nothing decides a manual dispute but the acquirer's word: it stays under review
    await t.p.jobs.drain();
    expect((await m.api.get(`/disputes/${d.uuid}`)).body.dispute.status).toBe('UNDER_REVIEW');

    const file = [HEADER, `RS-2026-000187,${o.transactions[0].uuid},13.1,PRODUCT_NOT_RECEIVED,4990,EUR,CHARGEBACK,WON,${due.slice(0, 10)}`].join('\n');
    const imp = await m.api.post('/disputes/import', { data: b64(file), filename: 'redsys-2026-03.csv', acquirer: 'REDSYS' });
    expect(imp.status, imp.raw).toBe(200);
    expect(imp.body.import).toMatchObject({ created: 0, updated: 1 });
    const after = await m.api.get(`/disputes/${d.uuid}`);
    expect(after.body.dispute).toMatchObject({ status: 'WON', money: { won: 4990 } });
    expect(after.body.dispute.history.at(-1)).toMatchObject({ event: 'WIN', actor: 'import:redsys-2026-03.csv', from_status: 'UNDER_REVIEW', to_status: 'WON' });
    expect(after.body.order_totals).toMatchObject({ order_uuid: o.uuid, disputes: 1, disputed: 0, lost: 0, won: 4990 });
  });

  it('won, then taken to pre-arbitration by the issuer and lost there', async () => {
    const o = await paid(1500);
    const tx = o.transactions[0].uuid;
    const first = [HEADER, `RS-9,${tx},10.4,FRAUD,1500,EUR,CHARGEBACK,WON,2030-01-10`].join('\n');
    expect((await m.api.post('/disputes/import', { data: b64(first), filename: 'a.csv', acquirer: 'REDSYS' })).status).toBe(200);
    const pre = [HEADER, `RS-9,${tx},10.4,FRAUD,1500,EUR,PRE_ARBITRATION,NEEDS_RESPONSE,2030-02-10`].join('\n');
    const r = await m.api.post('/disputes/import', { data: b64(pre), filename: 'b.csv', acquirer: 'REDSYS' });
    expect(r.status, r.raw).toBe(200);
    const list = (await m.api.get('/disputes', { order_uuid: o.uuid })).body;
    expect(list.disputes[0]).toMatchObject({ stage: 'PRE_ARBITRATION', status: 'NEEDS_RESPONSE', evidence_due_at: '2030-02-10T23:59:59.999Z', money: { disputed: 1500 } });
    expect((await m.api.post(`/disputes/${list.disputes[0].uuid}/accept`, {})).status).toBe(200);
    const end = (await m.api.get('/disputes', { order_uuid: o.uuid })).body;
    expect(end.order_totals).toMatchObject({ disputes: 1, lost: 1500, won: 0, disputed: 0 });
  });
});
