/** PayPal's disputes as schemas ([DSP] openapi/customer_disputes_v1.json, Disputes 1.10; spec.ts names the sources). */
import type { JsonSchema } from '../kit/spec.js';
import { anyObject, arrayOf, ISO_DATE_TIME, ref, str } from './spec-common.js';

export const DISPUTE_DEFS: Record<string, JsonSchema> = {};

export const DISPUTE_REASONS = ['MERCHANDISE_OR_SERVICE_NOT_RECEIVED', 'MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED', 'UNAUTHORISED', 'CREDIT_NOT_PROCESSED', 'DUPLICATE_TRANSACTION', 'INCORRECT_AMOUNT', 'PAYMENT_BY_OTHER_MEANS', 'CANCELED_RECURRING_BILLING', 'PROBLEM_WITH_REMITTANCE', 'OTHER'] as const;
export const DISPUTE_STATUSES = ['OPEN', 'WAITING_FOR_BUYER_RESPONSE', 'WAITING_FOR_SELLER_RESPONSE', 'UNDER_REVIEW', 'RESOLVED', 'OTHER'] as const;
export const DISPUTE_STAGES = ['INQUIRY', 'CHARGEBACK', 'PRE_ARBITRATION', 'ARBITRATION'] as const;
export const DISPUTE_OUTCOMES = ['RESOLVED_BUYER_FAVOUR', 'RESOLVED_SELLER_FAVOUR', 'RESOLVED_WITH_PAYOUT', 'CANCELED_BY_BUYER', 'ACCEPTED', 'DENIED', 'NONE'] as const;
export const DISPUTE_EVENTS = ['CUSTOMER.DISPUTE.CREATED', 'CUSTOMER.DISPUTE.UPDATED', 'CUSTOMER.DISPUTE.RESOLVED'] as const;
/** [DSP] components.schemas.evidence.properties.evidence_type (the types the connector sends). */
export const EVIDENCE_TYPES = ['PROOF_OF_FULFILLMENT', 'PROOF_OF_REFUND', 'PROOF_OF_DELIVERY_SIGNATURE', 'PROOF_OF_RECEIPT_COPY', 'RETURN_POLICY', 'BILLING_AGREEMENT', 'PROOF_OF_RESHIPMENT', 'ITEM_DESCRIPTION', 'POLICE_REPORT', 'AFFIDAVIT', 'PAID_WITH_OTHER_METHOD', 'COPY_OF_CONTRACT', 'TERMINAL_ATM_RECEIPT', 'PRICE_DIFFERENCE_REASON', 'SOURCE_CONVERSION_RATE', 'BANK_STATEMENT', 'CREDIT_DUE_REASON', 'REQUEST_CREDIT_RECEIPT', 'PROOF_OF_RETURN', 'CREATE', 'CHANGE_REASON', 'OTHER'] as const;

DISPUTE_DEFS.dispute_money = { 'x-source': '[DSP] components.schemas.money (currency_code, value)', type: 'object', required: ['currency_code', 'value'], properties: { currency_code: { type: 'string', minLength: 3, maxLength: 3 }, value: { type: 'string', maxLength: 32, pattern: '^((-?[0-9]+)|(-?([0-9]+)?[.][0-9]+))$' } } };
DISPUTE_DEFS.dispute = {
  'x-source': '[DSP] components.schemas.dispute (no required list; a dispute notification always has its id, reason, status, amount and transactions)',
  type: 'object',
  required: ['dispute_id', 'reason', 'status', 'dispute_amount', 'disputed_transactions'],
  properties: {
    dispute_id: str(1, 255, { pattern: '^[A-Za-z0-9-]+$' }),
    create_time: str(null, null, { pattern: ISO_DATE_TIME }),
    update_time: str(null, null, { pattern: ISO_DATE_TIME }),
    disputed_transactions: arrayOf({
      type: 'object',
      'x-source': '[DSP] components.schemas.transaction_info',
      properties: {
        seller_transaction_id: str(1, 255, { pattern: '^[A-Za-z0-9-]+$' }),
        custom: str(1, 2000),
        invoice_number: str(1, 127),
        transaction_status: { type: 'string' },
        gross_amount: ref('dispute_money'),
        create_time: str(null, null, { pattern: ISO_DATE_TIME }),
      },
    }, { minItems: 1, maxItems: 1000 }),
    reason: { type: 'string', enum: [...DISPUTE_REASONS] },
    status: { type: 'string', enum: [...DISPUTE_STATUSES] },
    dispute_amount: ref('dispute_money'),
    external_reason_code: str(1, 2000),
    dispute_outcome: { type: 'object', properties: { outcome_code: { type: 'string', enum: [...DISPUTE_OUTCOMES] }, amount_refunded: ref('dispute_money') } },
    dispute_life_cycle_stage: { type: 'string', enum: [...DISPUTE_STAGES] },
    dispute_channel: { type: 'string', enum: ['INTERNAL', 'EXTERNAL', 'ALERT'] },
    seller_response_due_date: str(null, null, { pattern: ISO_DATE_TIME }),
    links: arrayOf(anyObject),
  },
};
/**
 * The `input` part of provide-evidence's multipart body: [DSP] documents the body as multipart/form-data
 * with an `evidence-file` part; PayPal's dispute integration guide puts the evidences JSON in an `input`
 * part (`evidences`: [DSP] components.schemas.evidence: evidence_type, notes of 1–2000).
 */
DISPUTE_DEFS.provide_evidence_input = {
  'x-source': '[DSP] requestBodies.evidences; components.schemas.evidence (evidence_type, notes)',
  type: 'object',
  additionalProperties: false,
  required: ['evidences'],
  properties: {
    evidences: arrayOf({
      type: 'object',
      additionalProperties: false,
      required: ['evidence_type'],
      properties: {
        evidence_type: { type: 'string', enum: [...EVIDENCE_TYPES] },
        notes: str(1, 2000),
        // [DSP] components.schemas.document: the name of an `evidence-file` part of the same request
        documents: arrayOf({ type: 'object', additionalProperties: false, required: ['name'], properties: { name: str(1, 2000, { pattern: '^[A-Za-z0-9-_,\\s]+[.]{1}[A-Za-z]+$' }) } }, { minItems: 1, maxItems: 100 }),
      },
    }, { minItems: 1, maxItems: 100 }),
  },
};
DISPUTE_DEFS.accept_claim_input = {
  'x-source': '[DSP] components.schemas.accept_claim (note; accept_claim_type); the body is multipart/form-data with an optional accept-claim-document',
  type: 'object',
  additionalProperties: false,
  properties: { note: str(1, 2000), accept_claim_type: { type: 'string', enum: ['REFUND', 'REFUND_WITH_RETURN', 'PARTIAL_REFUND', 'REFUND_WITH_RETURN_SHIPMENT_LABEL'] } },
};
DISPUTE_DEFS.subsequent_action = { 'x-source': '[DSP] components.schemas.subsequent_action', type: 'object', properties: { links: arrayOf(anyObject, { minItems: 1, maxItems: 10 }) } };
