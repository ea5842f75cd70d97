/** PayPal mapping of disputes (pure; mapping.ts re-exports it): statuses, dispute webhooks, evidence. */
import type { DisputeNotice } from '../connector.js';
import { fromPaypalValue } from './currencies.js';
import { obj, str } from './mapping-common.js';
import { DISPUTE_EVENTS, DISPUTE_REASONS, DISPUTE_STAGES, EVIDENCE_TYPES } from './spec.js';

// [DSP] Disputes 1.10: docs/disputes.md "Connectors"

const DISPUTE_CATEGORY: Record<(typeof DISPUTE_REASONS)[number], DisputeNotice['category']> = {
  MERCHANDISE_OR_SERVICE_NOT_RECEIVED: 'PRODUCT_NOT_RECEIVED',
  MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED: 'PRODUCT_UNACCEPTABLE',
  UNAUTHORISED: 'FRAUD',
  CREDIT_NOT_PROCESSED: 'CREDIT_NOT_PROCESSED',
  DUPLICATE_TRANSACTION: 'DUPLICATE',
  INCORRECT_AMOUNT: 'PROCESSING_ERROR',
  PAYMENT_BY_OTHER_MEANS: 'DUPLICATE',
  CANCELED_RECURRING_BILLING: 'SUBSCRIPTION_CANCELLED',
  PROBLEM_WITH_REMITTANCE: 'GENERAL',
  OTHER: 'GENERAL',
};

/** PayPal's stage as ours: an inquiry (no money moved yet) is our RETRIEVAL. */
const DISPUTE_STAGE: Record<(typeof DISPUTE_STAGES)[number], DisputeNotice['stage']> = { INQUIRY: 'RETRIEVAL', CHARGEBACK: 'CHARGEBACK', PRE_ARBITRATION: 'PRE_ARBITRATION', ARBITRATION: 'ARBITRATION' };

/**
 * PayPal's status (and, once RESOLVED, its outcome) as ours; null when it says nothing we follow (OTHER,
 * a resolution without an outcome we know).
 */
export function disputeStatusOf(status: string, outcome: string | null): DisputeNotice['status'] | null {
  switch (status) {
    case 'OPEN':
    case 'WAITING_FOR_SELLER_RESPONSE':
      return 'NEEDS_RESPONSE';
    case 'WAITING_FOR_BUYER_RESPONSE':
    case 'UNDER_REVIEW':
      return 'UNDER_REVIEW';
    case 'RESOLVED':
      if (outcome === 'RESOLVED_SELLER_FAVOUR' || outcome === 'CANCELED_BY_BUYER' || outcome === 'DENIED' || outcome === 'RESOLVED_WITH_PAYOUT') return 'WON';
      if (outcome === 'RESOLVED_BUYER_FAVOUR') return 'LOST';
      if (outcome === 'ACCEPTED') return 'ACCEPTED';
      return null;
    default:
      return null;
  }
}

/** A dispute webhook's facts, read before it is verified: the event, our reference and the notice. */
export function disputeWebhookFacts(e: Record<string, unknown>): { eventId: string; type: string; reference: string | null; captureId: string | null; notice: Omit<DisputeNotice, 'reference'> } | null {
  const type = str(e.event_type);
  const eventId = str(e.id);
  const r = obj(e.resource);
  if (!type || !eventId || !r || !(DISPUTE_EVENTS as readonly string[]).includes(type)) return null;
  const id = str(r.dispute_id);
  const tx = Array.isArray(r.disputed_transactions) ? obj(r.disputed_transactions[0]) : null;
  const amount = obj(r.dispute_amount);
  const currency = str(amount?.currency_code);
  const minor = currency ? fromPaypalValue(amount?.value, currency) : null;
  const status = disputeStatusOf(str(r.status) ?? '', str(obj(r.dispute_outcome)?.outcome_code));
  if (!id || !tx || !currency || minor === null || !status) return null;
  const stage = DISPUTE_STAGE[r.dispute_life_cycle_stage as keyof typeof DISPUTE_STAGE] ?? 'CHARGEBACK';
  const due = str(r.seller_response_due_date);
  const dueAt = due ? new Date(due) : null;
  const reason = str(r.reason) ?? 'OTHER';
  return {
    eventId, type,
    // paygate sends its transaction uuid as custom_id: the dispute's transaction carries it as `custom`
    reference: str(tx.custom),
    captureId: str(tx.seller_transaction_id),
    notice: {
      providerId: id,
      status,
      stage,
      category: DISPUTE_CATEGORY[reason as keyof typeof DISPUTE_CATEGORY] ?? 'GENERAL',
      reasonCode: (str(r.external_reason_code) ?? reason).slice(0, 20),
      amount: Math.abs(minor),
      currency,
      dueAt: dueAt && !Number.isNaN(dueAt.getTime()) ? dueAt : null,
      detail: `PayPal ${type} (${String(r.status)}${obj(r.dispute_outcome)?.outcome_code ? `, ${String(obj(r.dispute_outcome)!.outcome_code)}` : ''})`,
    },
  };
}

/** Our evidence fields as PayPal evidences (evidence_type and notes of at most 2000 characters). */
const EVIDENCE_TYPE_OF: Record<string, (typeof EVIDENCE_TYPES)[number]> = {
  proof_of_delivery: 'PROOF_OF_FULFILLMENT',
  shipping_carrier: 'PROOF_OF_FULFILLMENT',
  shipping_tracking_number: 'PROOF_OF_FULFILLMENT',
  shipping_address: 'PROOF_OF_FULFILLMENT',
  shipping_date: 'PROOF_OF_FULFILLMENT',
  product_description: 'ITEM_DESCRIPTION',
  refund_policy: 'RETURN_POLICY',
  return_policy_explanation: 'RETURN_POLICY',
  cancellation_policy: 'BILLING_AGREEMENT',
  cancellation_rebuttal: 'BILLING_AGREEMENT',
  terms_and_conditions: 'COPY_OF_CONTRACT',
  refund_made: 'PROOF_OF_REFUND',
};

/**
 * A document's name as PayPal's `document.name` takes it (letters, digits, `-_,` and spaces, then one
 * extension): other characters become `_`, and the `n`th document's name is made unique.
 */
export function documentName(filename: string, contentType: string, n: number): string {
  const ext = contentType === 'application/pdf' ? 'pdf' : contentType === 'image/png' ? 'png' : 'jpg';
  const stem = filename.replace(/\.[A-Za-z0-9]{1,5}$/, '').replace(/[^A-Za-z0-9\-_, ]/g, '_').slice(0, 100) || 'document';
  return `${n}-${stem}.${ext}`;
}

/**
 * The `input` of provide-evidence: one evidence per PayPal type, its notes our fields (`name: text`) joined
 * (cut to 2000), its documents those supporting a field of that type (the name of each `evidence-file`
 * part); a document without a field goes with OTHER.
 */
export function evidenceInput(fields: Record<string, string>, documents: Array<{ name: string; field: string | null }>): { evidences: Array<{ evidence_type: string; notes?: string; documents?: Array<{ name: string }> }> } {
  const notes = new Map<string, string[]>();
  const docs = new Map<string, string[]>();
  for (const [name, text] of Object.entries(fields)) {
    const t = EVIDENCE_TYPE_OF[name] ?? 'OTHER';
    notes.set(t, [...(notes.get(t) ?? []), `${name.replace(/_/g, ' ')}: ${text}`]);
  }
  for (const d of documents) {
    const t = (d.field && EVIDENCE_TYPE_OF[d.field]) || 'OTHER';
    docs.set(t, [...(docs.get(t) ?? []), d.name]);
  }
  const types = [...new Set([...notes.keys(), ...docs.keys()])];
  return {
    evidences: types.map((evidence_type) => ({
      evidence_type,
      ...(notes.has(evidence_type) ? { notes: notes.get(evidence_type)!.join('\n').slice(0, 2000) } : {}),
      ...(docs.has(evidence_type) ? { documents: docs.get(evidence_type)!.map((name) => ({ name })) } : {}),
    })),
  };
}

/** A multipart/form-data body holding one JSON part named `input` (text only: no file parts). */
export function multipartInput(input: unknown, boundary: string): string {
  return `--${boundary}\r\nContent-Disposition: form-data; name="input"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(input)}\r\n--${boundary}--\r\n`;
}
