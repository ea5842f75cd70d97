/**
 * Disputes through the connectors with a dispute API, against their simulators (held to the providers'
 * published schemas: each harness's SpecLedger must stay clean): the simulator raises a dispute on a
 * payment; its signed webhook creates our dispute (a forged or replayed one does nothing); the evidence is
 * sent and submitted through the connector; the provider's decision webhook settles it (won, lost); an
 * acceptance goes to the provider first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { storeCard } from '../helpers/payments.js';
import { CHECKOUT_ACCOUNT, checkoutHarness, paypalHarness, type WebhookSend } from '../helpers/connectors.js';

const HTTPS = { 'x-forwarded-proto': 'https' };
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('Checkout.com disputes (Disputes API and dispute webhooks)', () => {
  const h = checkoutHarness();
  let t: TestApp;
  let m: TestMerchant;
  let n = 0;
  const send: WebhookSend = async (d) => {
    const r = await t.app.inject({ method: 'POST', url: d.path, headers: { ...d.headers, ...HTTPS }, payload: d.body });
    return { status: r.statusCode, body: r.body };
  };

  beforeAll(async () => {
    await h.start();
    t = await createTestApp(h.env());
    m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
    h.webhooks!.deliverTo(send);
  });
  afterAll(async () => {
    await t?.close();
    await h.close();
  });

  async function paid(amount: number) {
    const c = `cko-d-${++n}`;
    const card = await storeCard(t, m, h.cards.approved(), c);
    const o = (await m.api.post('/payment', { amount, operative: 'AUTHORIZATION', secure: false, description: 'disputed', service: m.service_uuid, customer_ext_id: c })).body.order;
    const r = await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.status).toBe('SUCCESS');
    const tx = r.body.order.transactions[0];
    return { order: r.body.order, tx: tx.uuid as string, paymentId: tx.processor_id as string };
  }
  const disputesOf = async (orderUuid: string) => (await m.api.get('/disputes', { order_uuid: orderUuid })).body;

  it('raised by Checkout.com: its webhook creates the dispute; evidence submitted through the API; won', async () => {
    const p = await paid(2300);
    const sd = await h.sim.raiseDispute(p.paymentId, { category: 'product_service_not_received', reasonCode: '13.1', outcome: 'won' });
    const list = await disputesOf(p.order.uuid);
    expect(list.disputes).toHaveLength(1);
    const d = list.disputes[0];
    expect(d).toMatchObject({ source: 'CONNECTOR', acquirer: 'CHECKOUT', provider_id: sd.id, transaction_uuid: p.tx, category: 'PRODUCT_NOT_RECEIVED', reason_code: '13.1', amount: 2300, currency: 'EUR', status: 'NEEDS_RESPONSE', stage: 'CHARGEBACK', evidence_due_at: sd.requiredBy });
    // Checkout.com keeps the deadline (its webhook says when it expired): only the reminder is scheduled here
    const { rows: jobs } = await sql<{ queue: string }>`select queue from jobs where payload::jsonb ->> 'disputeId' = ${d.uuid} order by queue`.execute(t.p.database.db);
    expect(jobs.map((j) => j.queue)).toEqual(['disputes.reminder']);
    // the same webhook again (a replay) changes nothing
    const again = h.webhooks!.sent().at(-1)!;
    await send(again);
    expect((await disputesOf(p.order.uuid)).disputes).toHaveLength(1);

    const receipt = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(300_000, 0xab), Buffer.from('\n%%EOF\n')]);
    const ev = await m.api.post(`/disputes/${d.uuid}/evidence`, {
      fields: { shipping_tracking_number: '1Z999AA10123456784', customer_communication: 'The customer confirmed receipt by e-mail' },
      documents: [{ filename: 'receipt.pdf', data: receipt.toString('base64'), field: 'proof_of_delivery' }, { filename: 'photo.png', data: PNG.toString('base64') }],
    });
    expect(ev.status, ev.raw).toBe(200);
    expect(ev.body.dispute.evidence.find((x: any) => x.name === 'receipt.pdf')).toMatchObject({ field: 'proof_of_delivery', content_type: 'application/pdf' });
    const s = await m.api.post(`/disputes/${d.uuid}/submit`, {});
    expect(s.status, s.raw).toBe(200);
    expect(s.body.dispute.status).toBe('UNDER_REVIEW');
    // what Checkout.com received: the documents uploaded (POST /files), the evidence texts and files of its ProvideEvidenceRequest, then the submission
    const got = h.sim.dispute(sd.id)!;
    expect(got).toMatchObject({ status: 'evidence_under_review', evidence: { proof_of_delivery_or_service_text: 'shipping tracking number: 1Z999AA10123456784', customer_communication_text: 'customer communication: The customer confirmed receipt by e-mail' } });
    const pdfFile = h.sim.file(got.evidence!.proof_of_delivery_or_service_file);
    expect(pdfFile).toMatchObject({ filename: 'receipt.pdf', contentType: 'application/pdf' });
    expect(pdfFile!.content.equals(receipt)).toBe(true);
    expect(h.sim.file(got.evidence!.additional_evidence_file)!.content.equals(PNG)).toBe(true);

    await h.sim.decideDisputes();
    const after = await m.api.get(`/disputes/${d.uuid}`);
    expect(after.body.dispute).toMatchObject({ status: 'WON', money: { won: 2300 } });
    expect(after.body.dispute.history.map((x: any) => [x.event, x.actor])).toEqual([
      ['CREATE', 'connector:checkout'], ['EVIDENCE', `api:${m.key_id}`], ['SUBMIT', `api:${m.key_id}`], ['WIN', 'connector:checkout'],
    ]);
  });

  it('lost at Checkout.com: the amount is lost', async () => {
    const p = await paid(1700);
    const sd = await h.sim.raiseDispute(p.paymentId, { outcome: 'lost' });
    const d = (await disputesOf(p.order.uuid)).disputes[0];
    expect(d.category).toBe('FRAUD');
    expect((await m.api.post(`/disputes/${d.uuid}/evidence`, { fields: { customer_ip: '203.0.113.7' } })).status).toBe(200);
    expect((await m.api.post(`/disputes/${d.uuid}/submit`, {})).status).toBe(200);
    await h.sim.decideDisputes();
    expect(h.sim.dispute(sd.id)!.status).toBe('lost');
    const end = await disputesOf(p.order.uuid);
    expect(end.disputes[0]).toMatchObject({ status: 'LOST' });
    expect(end.order_totals).toMatchObject({ lost: 1700, won: 0, disputed: 0 });
  });

  it('accepted: sent to Checkout.com first; a dispute Checkout.com no longer takes is refused and nothing changes', async () => {
    const p = await paid(900);
    const sd = await h.sim.raiseDispute(p.paymentId);
    const d = (await disputesOf(p.order.uuid)).disputes[0];
    const r = await m.api.post(`/disputes/${d.uuid}/accept`, {});
    expect(r.status, r.raw).toBe(200);
    expect(r.body.dispute.status).toBe('ACCEPTED');
    expect(h.sim.dispute(sd.id)!.status).toBe('accepted');

    // evidence_required at ours, already accepted at Checkout.com (by its dashboard): 422, nothing changed
    const p2 = await paid(950);
    const sd2 = await h.sim.raiseDispute(p2.paymentId);
    const d2 = (await disputesOf(p2.order.uuid)).disputes[0];
    (h.sim.dispute(sd2.id) as { status: string }).status = 'accepted';
    const refused = await m.api.post(`/disputes/${d2.uuid}/accept`, {});
    expect(refused.status, refused.raw).toBe(422);
    expect(refused.body.details).toMatch(/Checkout.com refused the acceptance/);
    expect((await m.api.get(`/disputes/${d2.uuid}`)).body.dispute.status).toBe('NEEDS_RESPONSE');
  });

  it('a dispute webhook signed with another key does nothing', async () => {
    const p = await paid(600);
    h.webhooks!.deliverTo(null);
    await h.sim.raiseDispute(p.paymentId);
    const kept = h.webhooks!.sent().at(-1)!;
    h.webhooks!.deliverTo(send);
    const forged = { ...kept, headers: { ...kept.headers, 'cko-signature': '0'.repeat(64) } };
    await send(forged);
    expect((await disputesOf(p.order.uuid)).disputes).toEqual([]);
    await send(h.webhooks!.tamper(kept));
    expect((await disputesOf(p.order.uuid)).disputes).toEqual([]);
    await send(kept);
    expect((await disputesOf(p.order.uuid)).disputes).toHaveLength(1);
    expect(CHECKOUT_ACCOUNT.webhookKey).not.toBe('0'.repeat(64));
  });
});

describe('PayPal disputes (Disputes API and CUSTOMER.DISPUTE.* webhooks)', () => {
  const h = paypalHarness();
  let t: TestApp;
  let m: TestMerchant;
  let n = 0;
  const send: WebhookSend = async (d) => {
    const r = await t.app.inject({ method: 'POST', url: d.path, headers: { ...d.headers, ...HTTPS }, payload: d.body });
    return { status: r.statusCode, body: r.body };
  };

  beforeAll(async () => {
    await h.start();
    t = await createTestApp(h.env());
    m = await t.merchant({ env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
    h.webhooks!.deliverTo(send);
  });
  afterAll(async () => {
    await t?.close();
    await h.close();
  });

  async function paid(amount: number) {
    const c = `pp-d-${++n}`;
    const card = await storeCard(t, m, h.cards.approved(), c);
    const o = (await m.api.post('/payment', { amount, operative: 'AUTHORIZATION', secure: false, description: 'disputed', service: m.service_uuid, customer_ext_id: c })).body.order;
    const r = await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.order.status).toBe('SUCCESS');
    const tx = r.body.order.transactions[0];
    return { order: r.body.order, tx: tx.uuid as string, captureId: tx.processor_id as string };
  }
  const disputesOf = async (orderUuid: string) => (await m.api.get('/disputes', { order_uuid: orderUuid })).body;

  it('a chargeback raised at PayPal: CUSTOMER.DISPUTE.CREATED creates it; evidence provided through the API; resolved in the seller\'s favour: won', async () => {
    const p = await paid(3150);
    const sd = await h.sim.raiseDispute(p.captureId, { reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', externalReasonCode: '13.1' });
    const d = (await disputesOf(p.order.uuid)).disputes[0];
    expect(d).toMatchObject({ source: 'CONNECTOR', acquirer: 'PAYPAL', provider_id: sd.id, transaction_uuid: p.tx, category: 'PRODUCT_NOT_RECEIVED', reason_code: '13.1', amount: 3150, currency: 'EUR', status: 'NEEDS_RESPONSE', stage: 'CHARGEBACK', evidence_due_at: sd.dueDate });
    // the same webhook again (a replay) changes nothing
    await send(h.webhooks!.sent().at(-1)!);
    expect((await disputesOf(p.order.uuid)).disputes).toHaveLength(1);

    const signed = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(200_000, 0xab), Buffer.from('\n%%EOF\n')]);
    expect((await m.api.post(`/disputes/${d.uuid}/evidence`, {
      fields: { shipping_tracking_number: 'PK123456789ES', product_description: 'A wool jumper, size M' },
      documents: [{ filename: 'signed delivery (copy).pdf', data: signed.toString('base64'), field: 'proof_of_delivery' }],
    })).status).toBe(200);
    const s = await m.api.post(`/disputes/${d.uuid}/submit`, {});
    expect(s.status, s.raw).toBe(200);
    expect(s.body.dispute.status).toBe('UNDER_REVIEW');
    expect(h.sim.dispute(sd.id)).toMatchObject({ status: 'UNDER_REVIEW' });
    expect(h.sim.dispute(sd.id)!.evidences).toEqual(expect.arrayContaining([
      { evidence_type: 'PROOF_OF_FULFILLMENT', notes: 'shipping tracking number: PK123456789ES', documents: [{ name: '1-signed delivery _copy_.pdf' }] },
      { evidence_type: 'ITEM_DESCRIPTION', notes: 'product description: A wool jumper, size M' },
    ]));
    // the document went as its evidence-file part, byte for byte
    expect(h.sim.dispute(sd.id)!.files.get('1-signed delivery _copy_.pdf')!.content.equals(signed)).toBe(true);

    await h.sim.decideDisputes();
    const after = await m.api.get(`/disputes/${d.uuid}`);
    expect(after.body.dispute).toMatchObject({ status: 'WON', money: { won: 3150 } });
    expect(after.body.dispute.history.at(-1)).toMatchObject({ event: 'WIN', actor: 'connector:paypal', detail: expect.stringContaining('RESOLVED_SELLER_FAVOUR') });
  });

  it('resolved in the buyer\'s favour: lost; accepting a claim goes to PayPal first', async () => {
    const p = await paid(1200);
    const sd = await h.sim.raiseDispute(p.captureId, { decision: 'RESOLVED_BUYER_FAVOUR' });
    const d = (await disputesOf(p.order.uuid)).disputes[0];
    expect(d.category).toBe('FRAUD');
    expect((await m.api.post(`/disputes/${d.uuid}/evidence`, { fields: { customer_email: 'ana@example.com' } })).status).toBe(200);
    expect((await m.api.post(`/disputes/${d.uuid}/submit`, {})).status).toBe(200);
    await h.sim.decideDisputes();
    expect(h.sim.dispute(sd.id)!.outcomeCode).toBe('RESOLVED_BUYER_FAVOUR');
    expect((await disputesOf(p.order.uuid)).order_totals).toMatchObject({ lost: 1200, won: 0 });

    const p2 = await paid(800);
    const sd2 = await h.sim.raiseDispute(p2.captureId);
    const d2 = (await disputesOf(p2.order.uuid)).disputes[0];
    const a = await m.api.post(`/disputes/${d2.uuid}/accept`, {});
    expect(a.status, a.raw).toBe(200);
    expect(a.body.dispute.status).toBe('ACCEPTED');
    expect(h.sim.dispute(sd2.id)).toMatchObject({ status: 'RESOLVED', outcomeCode: 'ACCEPTED' });
  });

  it('a dispute webhook PayPal does not verify does nothing', async () => {
    const p = await paid(700);
    h.webhooks!.deliverTo(null);
    await h.sim.raiseDispute(p.captureId);
    const kept = h.webhooks!.sent().at(-1)!;
    h.webhooks!.deliverTo(send);
    await send(h.webhooks!.tamper(kept));
    expect((await disputesOf(p.order.uuid)).disputes).toEqual([]);
    await send(kept);
    expect((await disputesOf(p.order.uuid)).disputes).toHaveLength(1);
  });
});
