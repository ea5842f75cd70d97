/**
 * The dispute parts of the Checkout.com and PayPal mappings held to the providers' published references
 * (spec.ts): the evidence requests the mappings build are ones the references allow; dispute webhooks in
 * the references' shapes read as our notices (status, stage, category, amount, deadline); what they do not
 * say is not guessed.
 */
import { describe, expect, it } from 'vitest';
import { SpecChecker } from '../../src/processors/kit/spec.js';
import { CHECKOUT_SPEC } from '../../src/processors/checkout/spec.js';
import { PAYPAL_SPEC } from '../../src/processors/paypal/spec.js';
import { disputeWebhookFacts as checkoutFacts, evidenceRequest } from '../../src/processors/checkout/mapping.js';
import { disputeStatusOf, disputeWebhookFacts as paypalFacts, documentName, evidenceInput, multipartInput } from '../../src/processors/paypal/mapping.js';

const checkout = new SpecChecker(CHECKOUT_SPEC);
const paypal = new SpecChecker(PAYPAL_SPEC);
const REF = '6f1c1c4e-0d0e-4d1a-9b55-0c7e3f3c2a10';

describe('Checkout.com', () => {
  const event = (type: string, data: Record<string, unknown> = {}) => ({
    id: 'evt_az5sblvku4ge3dwpztvyizgcau', type, version: '2.0', created_on: '2026-03-14T09:21:07Z',
    data: { id: 'dsp_rbhwd2qrg13uhrp2newf0a', category: 'fraudulent', status: 'evidence_required', amount: 999, currency: 'GBP', reason_code: '10.4', payment_id: 'pay_mbabizu24mvu3mela5njyhpit4', payment_reference: REF, evidence_required_by: '2026-03-21T00:00:00Z', received_on: '2026-03-14T04:00:10Z', ...data },
  });

  it('dispute webhooks in the reference\'s shape read as notices', () => {
    const e = event('dispute_evidence_required');
    expect(checkout.response('webhook', 'dispute_evidence_required', e)).toEqual([]);
    expect(checkoutFacts(e)).toEqual({ eventId: e.id, type: 'dispute_evidence_required', reference: REF, notice: {
      reference: REF, providerId: 'dsp_rbhwd2qrg13uhrp2newf0a', status: 'NEEDS_RESPONSE', stage: 'CHARGEBACK', category: 'FRAUD', reasonCode: '10.4', amount: 999, currency: 'GBP',
      dueAt: new Date('2026-03-21T00:00:00Z'), detail: 'Checkout.com dispute_evidence_required (evidence_required)',
    } });
    const cases: Array<[string, string, string, string]> = [
      ['dispute_won', 'won', 'WON', 'CHARGEBACK'], ['dispute_lost', 'lost', 'LOST', 'CHARGEBACK'], ['dispute_expired', 'expired', 'EXPIRED', 'CHARGEBACK'],
      ['dispute_canceled', 'canceled', 'WON', 'CHARGEBACK'], ['dispute_resolved', 'resolved', 'ACCEPTED', 'CHARGEBACK'], ['dispute_won', 'arbitration_won', 'WON', 'ARBITRATION'],
    ];
    for (const [type, status, ours, stage] of cases) {
      const x = event(type, { status });
      expect(checkout.response('webhook', type, x), `${type} ${status}`).toEqual([]);
      expect(checkoutFacts(x)?.notice).toMatchObject({ status: ours, stage });
    }
    expect(checkoutFacts(event('dispute_evidence_required', { category: 'product_service_not_received' }))?.notice.category).toBe('PRODUCT_NOT_RECEIVED');
  });

  it('no reference, an unknown status, a payment webhook: not a dispute notice', () => {
    const { payment_reference: _r, ...noRef } = event('dispute_lost').data;
    expect(checkoutFacts({ ...event('dispute_lost'), data: noRef })).toBeNull();
    expect(checkoutFacts(event('dispute_lost', { status: 'something_new' }))).toBeNull();
    expect(checkoutFacts({ ...event('payment_captured'), data: { id: 'pay_mbabizu24mvu3mela5njyhpit4' } })).toBeNull();
  });

  it('the evidence request is one the reference allows: texts by kind, 500 characters each, a file per kind', () => {
    const docs = [
      { filename: 'receipt.pdf', field: 'proof_of_delivery', fileId: 'file_aaaaaaaaaaaaaaaaaaaa' },
      { filename: 'photo.png', field: 'shipping_address', fileId: 'file_bbbbbbbbbbbbbbbbbbbb' },
      { filename: 'mail.pdf', field: null, fileId: 'file_cccccccccccccccccccc' },
    ];
    const body = evidenceRequest({ shipping_tracking_number: '1Z999', proof_of_delivery: 'signed', customer_communication: 'mail', customer_ip: '203.0.113.7', refund_policy: 'x'.repeat(600) }, docs);
    expect(checkout.request('provideDisputeEvidence', body)).toEqual([]);
    expect(body.proof_of_delivery_or_service_text).toBe('shipping tracking number: 1Z999\nproof of delivery: signed');
    // one file per kind: the second of proof of delivery goes to additional evidence, the third is named
    expect(body.proof_of_delivery_or_service_file).toBe('file_aaaaaaaaaaaaaaaaaaaa');
    expect(body.additional_evidence_file).toBe('file_bbbbbbbbbbbbbbbbbbbb');
    expect(body.additional_evidence_text).toBe('customer ip: 203.0.113.7\nmore documents kept by the merchant: mail.pdf');
    expect(body.refund_or_cancellation_policy_text).toHaveLength(500);
    // an empty request is not one
    expect(checkout.request('provideDisputeEvidence', {})).not.toEqual([]);
  });
});

describe('PayPal', () => {
  const dispute = (over: Record<string, unknown> = {}) => ({
    dispute_id: 'PP-R-NMW-10060094', create_time: '2026-03-14T09:21:07.000Z', update_time: '2026-03-14T09:21:07.000Z',
    disputed_transactions: [{ seller_transaction_id: '3BC38643YC807283D', custom: REF, transaction_status: 'COMPLETED', gross_amount: { currency_code: 'EUR', value: '31.50' } }],
    reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', status: 'WAITING_FOR_SELLER_RESPONSE', dispute_amount: { currency_code: 'EUR', value: '31.50' },
    external_reason_code: '13.1', dispute_life_cycle_stage: 'CHARGEBACK', dispute_channel: 'EXTERNAL', seller_response_due_date: '2026-03-24T09:21:07.000Z', ...over,
  });
  const event = (type: string, resource: Record<string, unknown>) => ({ id: 'WH-7Y7254563A4550640-11V2185806837105M', event_version: '1.0', create_time: '2026-03-14T09:21:08.000Z', resource_type: 'dispute', event_type: type, summary: type, resource });

  it('CUSTOMER.DISPUTE.* webhooks in the reference\'s shape read as notices', () => {
    const e = event('CUSTOMER.DISPUTE.CREATED', dispute());
    expect(paypal.response('webhook', 'CUSTOMER.DISPUTE.CREATED', e)).toEqual([]);
    expect(paypalFacts(e)).toEqual({ eventId: e.id, type: 'CUSTOMER.DISPUTE.CREATED', reference: REF, captureId: '3BC38643YC807283D', notice: {
      providerId: 'PP-R-NMW-10060094', status: 'NEEDS_RESPONSE', stage: 'CHARGEBACK', category: 'PRODUCT_NOT_RECEIVED', reasonCode: '13.1', amount: 3150, currency: 'EUR',
      dueAt: new Date('2026-03-24T09:21:07.000Z'), detail: 'PayPal CUSTOMER.DISPUTE.CREATED (WAITING_FOR_SELLER_RESPONSE)',
    } });
    const resolved = event('CUSTOMER.DISPUTE.RESOLVED', dispute({ status: 'RESOLVED', dispute_outcome: { outcome_code: 'RESOLVED_BUYER_FAVOUR' }, dispute_amount: { currency_code: 'JPY', value: '3150' } }));
    expect(paypal.response('webhook', 'CUSTOMER.DISPUTE.RESOLVED', resolved)).toEqual([]);
    expect(paypalFacts(resolved)?.notice).toMatchObject({ status: 'LOST', amount: 3150, currency: 'JPY' });
    expect(paypalFacts(event('CUSTOMER.DISPUTE.UPDATED', dispute({ dispute_life_cycle_stage: 'INQUIRY', reason: 'UNAUTHORISED', external_reason_code: undefined })))?.notice).toMatchObject({ stage: 'RETRIEVAL', category: 'FRAUD', reasonCode: 'UNAUTHORISED' });
  });

  it('statuses and outcomes', () => {
    expect(disputeStatusOf('WAITING_FOR_BUYER_RESPONSE', null)).toBe('UNDER_REVIEW');
    expect(disputeStatusOf('RESOLVED', 'RESOLVED_SELLER_FAVOUR')).toBe('WON');
    expect(disputeStatusOf('RESOLVED', 'CANCELED_BY_BUYER')).toBe('WON');
    expect(disputeStatusOf('RESOLVED', 'ACCEPTED')).toBe('ACCEPTED');
    expect(disputeStatusOf('RESOLVED', 'NONE')).toBeNull();
    expect(disputeStatusOf('OTHER', null)).toBeNull();
  });

  it('the evidence input is one the reference allows, carried in a multipart input part', () => {
    const receipt = documentName('recibo (1).pdf', 'application/pdf', 1);
    const photo = documentName('foto', 'image/jpeg', 2);
    expect([receipt, photo]).toEqual(['1-recibo _1_.pdf', '2-foto.jpg']);
    const input = evidenceInput({ shipping_tracking_number: 'PK1', product_description: 'jumper', customer_email: 'a@example.com' }, [{ name: receipt, field: 'proof_of_delivery' }, { name: photo, field: null }]);
    expect(paypal.request('disputes.provide-evidence', input)).toEqual([]);
    expect(input.evidences).toEqual([
      { evidence_type: 'PROOF_OF_FULFILLMENT', notes: 'shipping tracking number: PK1', documents: [{ name: receipt }] },
      { evidence_type: 'ITEM_DESCRIPTION', notes: 'product description: jumper' },
      { evidence_type: 'OTHER', notes: 'customer email: a@example.com', documents: [{ name: photo }] },
    ]);
    // a name PayPal's pattern refuses is not sent
    expect(paypal.request('disputes.provide-evidence', { evidences: [{ evidence_type: 'OTHER', documents: [{ name: 'a/b.pdf' }] }] })).not.toEqual([]);
    const body = multipartInput(input, 'b0undary');
    expect(body).toBe(`--b0undary\r\nContent-Disposition: form-data; name="input"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(input)}\r\n--b0undary--\r\n`);
    expect(paypal.request('disputes.accept-claim', { note: 'The merchant accepts the claim.' })).toEqual([]);
  });
});
