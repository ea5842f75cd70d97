/** The building blocks of Checkout.com's reference as schemas (spec.ts names the sources): helpers, code lists, events. */
import type { JsonSchema } from '../kit/spec.js';

export const str = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
export const int = (extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...extra });
export const bool: JsonSchema = { type: 'boolean' };
export const obj: JsonSchema = { type: 'object' };
export const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });

/** `payment_type`: [REF] PaymentRequest.yaml lists Regular, Recurring, MOTO, Installment; [GO] PaymentType adds PayLater and Unscheduled. */
export const PAYMENT_TYPES = ['Regular', 'Recurring', 'MOTO', 'Installment', 'PayLater', 'Unscheduled'];

/** Payment statuses of payment details: [REF] PaymentDetails.yaml. */
export const DETAILS_STATUSES = ['Pending', 'Authorized', 'Card Verified', 'Voided', 'Partially Captured', 'Captured', 'Partially Refunded', 'Refunded', 'Declined', 'Canceled', 'Expired', 'Paid'];

/** The webhook event types the connector reads (and the simulator sends): [REF] Events/EventTypesObject.yaml. */
export const CHECKOUT_EVENT_TYPES = [
  'payment_approved', 'payment_declined', 'card_verified', 'card_verification_declined',
  'payment_captured', 'payment_capture_declined', 'payment_voided', 'payment_void_declined',
  'payment_refunded', 'payment_refund_declined',
] as const;

/**
 * The dispute webhook event types: [REF] Events/EventTypesObject.yaml lists dispute_canceled,
 * dispute_evidence_required, dispute_expired, dispute_lost, dispute_resolved, dispute_won.
 */
export const CHECKOUT_DISPUTE_EVENT_TYPES = ['dispute_evidence_required', 'dispute_canceled', 'dispute_expired', 'dispute_lost', 'dispute_resolved', 'dispute_won'] as const;

/** Dispute categories and statuses: [REF] Disputes/Dispute.yaml, DisputeSummary.yaml. */
export const CHECKOUT_DISPUTE_CATEGORIES = ['fraudulent', 'unrecognized', 'canceled_recurring', 'product_service_not_received', 'not_as_described', 'credit_not_issued', 'duplicate', 'incorrect_amount', 'general'] as const;
export const CHECKOUT_DISPUTE_STATUSES = ['evidence_required', 'evidence_under_review', 'resolved', 'won', 'lost', 'canceled', 'expired', 'accepted', 'arbitration_under_review', 'arbitration_won', 'arbitration_lost'] as const;

/** The text fields of evidence: [REF] Disputes/ProvideEvidenceRequest.yaml (each `<kind>_text`, at most 500, beside `<kind>_file`). */
export const CHECKOUT_EVIDENCE_KINDS = ['proof_of_delivery_or_service', 'invoice_or_receipt', 'invoice_showing_distinct_transactions', 'customer_communication', 'refund_or_cancellation_policy', 'recurring_transaction_agreement', 'additional_evidence', 'proof_of_delivery_or_service_date'] as const;

/** The body of a webhook of `type`: [REF] Events/EventObject.yaml; required as every [DOCS] example has them. */
export function event(type: string): JsonSchema {
  return {
    type: 'object',
    required: ['id', 'type', 'created_on', 'data'],
    properties: {
      id: ref('EventId'),
      type: { const: type },
      version: str(),
      created_on: ref('ServerTimestamp'),
      data: ref('EventData'),
      _links: { type: 'object', properties: { self: ref('Link'), payment: ref('Link') } },
    },
    'x-source': `[REF] Events/EventObject.yaml and EventTypesObject.yaml (${type}); [DOCS] webhook examples`,
  };
}

/** The body of a dispute webhook: the event with the dispute's summary as its data ([REF] Events/EventObject.yaml, Disputes/DisputeSummary.yaml). */
export function disputeEvent(type: string): JsonSchema {
  return {
    type: 'object',
    required: ['id', 'type', 'created_on', 'data'],
    properties: {
      id: ref('EventId'),
      type: { const: type },
      version: str(),
      created_on: ref('ServerTimestamp'),
      data: ref('DisputeSummary'),
      _links: obj,
    },
    'x-source': `[REF] Events/EventObject.yaml, EventTypesObject.yaml (${type}), Disputes/DisputeSummary.yaml`,
  };
}

export const unauthorized = ref('Empty');
