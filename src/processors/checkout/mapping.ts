/**
 * Checkout.com mapping (pure): our operations to the Payments API's JSON, its answers and webhooks back
 * to our results. No IO, no clock. The schemas of every body are in spec.ts, with their sources.
 *
 * Payments API facts used:
 *  - `POST /payments` {source, amount, currency, reference, capture, payment_type, merchant_initiated,
 *    previous_payment_id, processing_channel_id, 3ds} → 201 {id, action_id, approved, status,
 *    response_code, response_summary, auth_code, scheme_id, amount, currency, reference}; 202 with
 *    `status: Pending` and `_links.redirect` when the cardholder must authenticate (3-D Secure);
 *    422 {error_type, error_codes} when the request is invalid.
 *  - Stored credentials: a customer payment whose card is being stored says so
 *    (`source.store_for_future_use`); a merchant-initiated one is `merchant_initiated: true` with
 *    `source.stored: true`, the `previous_payment_id` of the series (the scheme transaction id of the
 *    card's first payment) and its `payment_type`: Recurring (subscriptions, first charge included),
 *    Installment, or Unscheduled.
 *  - `POST /payments/{id}/captures|voids|refunds` {amount?, reference} → 202 {action_id, reference}:
 *    accepted, processed asynchronously. It may still be declined: the webhook (`payment_captured`,
 *    `payment_capture_declined`, ...) or the action in the payment's actions decides it.
 *  - `GET /payments/{id}` and `GET /payments?reference=` answer a payment's details: `status` and
 *    `approved`, never a response code. The code of a decline is on its action (`GET /payments/{id}/actions`:
 *    authorization, captures, refunds and voids, each with `approved` and `response_code`), or in the
 *    `actions` summary the details carry when the payment is fetched by its 3-D Secure session id.
 *  - Webhooks: `{id, type, created_on, data: {id, action_id, reference, amount, currency, response_code,
 *    response_summary, auth_code}}`, signed with the header `Cko-Signature`: hex HMAC-SHA256 of the raw
 *    body under the webhook's signature key.
 */
import type { DisputeNotice } from '../connector.js';
import { CHECKOUT_DISPUTE_CATEGORIES, CHECKOUT_DISPUTE_EVENT_TYPES, CHECKOUT_DISPUTE_STATUSES, CHECKOUT_EVIDENCE_KINDS } from './spec.js';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CardData, PaymentRequest, ProcessorResult, SettledResult, ThreeDSResult } from '../connector.js';
import { AUTHENTICATION_REQUIRED, isApprovalCode, refusalOf } from './codes.js';

export type CheckoutKind = 'payment' | 'preauth' | 'verify' | 'capture' | 'void' | 'refund';

/** The card as a `card` source (secrets revealed only into the request body). */
export function cardSource(card: CardData): Record<string, unknown> {
  return {
    type: 'card',
    number: card.pan.reveal().replace(/\s+/g, ''),
    expiry_month: card.expiryMonth,
    expiry_year: card.expiryYear,
    ...(card.cvv ? { cvv: card.cvv.reveal() } : {}),
    ...(card.holder ? { name: card.holder } : {}),
  };
}

/** External 3-D Secure data (ours or the merchant's MPI) as the payment's `3ds` object. */
function threedsOf(t: ThreeDSResult | null | undefined): Record<string, unknown> | null {
  if (!t) return null;
  return { enabled: true, ...(t.eci ? { eci: t.eci } : {}), ...(t.cavv ? { cryptogram: t.cavv } : {}), version: t.version, ...(t.dsTransId ? { xid: t.dsTransId } : {}) };
}

/** `payment_type` of a merchant-initiated payment by its kind (absent: unscheduled). */
const MIT_PAYMENT_TYPE: Record<'RECURRING' | 'UNSCHEDULED' | 'INSTALMENT', string> = { RECURRING: 'Recurring', UNSCHEDULED: 'Unscheduled', INSTALMENT: 'Installment' };

/**
 * The body of `POST /payments`. MoTo: payment_type MOTO (no authentication). A customer payment is
 * Regular and says whether its card is being stored for later payments (`store_for_future_use`; its
 * default is true in Checkout.com's SDK model, so it is sent either way), or that it is a stored card
 * paying again (`source.stored`, "Stored card details"). Merchant-initiated:
 * `merchant_initiated`, the stored card (`source.stored`), the payment type of its kind (Recurring for
 * a subscription's charges, the first one included; Installment; Unscheduled) and `previous_payment_id`
 * (the scheme transaction id of the card's first payment).
 */
export function paymentBody(
  req: Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'card' | 'channel' | 'threeds' | 'dynamicDescriptor' | 'storeCredential' | 'storedCard' | 'mit'>,
  opts: { kind: 'payment' | 'preauth' | 'verify'; processingChannelId: string; previousPaymentId: string | null; threeds3?: { successUrl: string; failureUrl: string } | null },
): Record<string, unknown> {
  const mit = req.channel === 'MIT';
  const source = cardSource(req.card);
  if (mit || req.storedCard === true) source.stored = true;
  else source.store_for_future_use = req.storeCredential === true;
  const body: Record<string, unknown> = {
    source,
    amount: opts.kind === 'verify' ? 0 : req.amount,
    currency: req.currency,
    reference: req.reference,
    processing_channel_id: opts.processingChannelId,
    capture: opts.kind === 'payment',
    payment_type: req.channel === 'MOTO' ? 'MOTO' : mit ? MIT_PAYMENT_TYPE[req.mit ?? 'UNSCHEDULED'] : 'Regular',
    merchant_initiated: mit,
  };
  if (mit && opts.previousPaymentId) body.previous_payment_id = opts.previousPaymentId;
  const external = threedsOf(req.threeds);
  if (opts.threeds3) {
    body['3ds'] = { enabled: true };
    body.success_url = opts.threeds3.successUrl;
    body.failure_url = opts.threeds3.failureUrl;
  } else if (external && req.channel === 'ECOMMERCE') body['3ds'] = external;
  if (req.dynamicDescriptor) body.billing_descriptor = { name: req.dynamicDescriptor.slice(0, 25), city: 'Online' };
  return body;
}

/** What an answer (payment, action or webhook data) must match to be about our operation. */
export interface Expected {
  reference: string;
  amount: number;
  currency: string;
}

export { parseObject } from '../kit/http.js';

const str = (v: unknown): string | null => (typeof v === 'string' && v.length <= 200 ? v : null);

const links = (p: Record<string, unknown>) => p._links as Record<string, Record<string, unknown>> | undefined;

/** A payment id as Checkout.com writes them (`pay_` and 26 letters or digits). */
const PAYMENT_ID = /^pay_[a-z0-9]{10,40}$/;

/** What every payment answer must name to be believed: our reference, amount and currency. */
function matches(p: Record<string, unknown>, x: Expected, kind: 'payment' | 'preauth' | 'verify'): boolean {
  return p.reference === x.reference && p.amount === (kind === 'verify' ? 0 : x.amount) && p.currency === x.currency;
}

/**
 * The answer to `POST /payments` (201, or 202 while 3-D Secure waits) as our result: the answer carries
 * the authorization's `response_code`. Checkout.com's answers are not signed (TLS only): an answer is
 * believed only when it names our reference, amount and currency; anything else is UNKNOWN (the
 * reconciler asks Checkout.com again).
 */
export function resultOfPayment(p: Record<string, unknown>, x: Expected, kind: 'payment' | 'preauth' | 'verify'): { result: ProcessorResult; paymentId: string | null; schemeId: string | null; redirect: string | null } {
  const paymentId = str(p.id);
  const none = { paymentId, schemeId: null, redirect: null };
  if (!paymentId || !PAYMENT_ID.test(paymentId)) return { ...none, result: { outcome: 'UNKNOWN', details: 'Checkout.com answered without a payment id' } };
  const amount = kind === 'verify' ? 0 : x.amount;
  if (!matches(p, x, kind)) {
    return { ...none, result: { outcome: 'UNKNOWN', details: 'The Checkout.com answer does not match the payment sent (reference, amount or currency)' } };
  }
  const status = str(p.status);
  const redirect = str(links(p)?.redirect?.href);
  if (status === 'Pending') {
    if (redirect) return { paymentId, schemeId: null, redirect, result: { outcome: 'CHALLENGE', details: 'Checkout.com asks for 3-D Secure authentication' } };
    return { ...none, result: { outcome: 'UNKNOWN', details: 'Checkout.com has the payment pending' } };
  }
  const code = str(p.response_code) ?? '';
  if (p.approved === true && isApprovalCode(code)) {
    const schemeId = str(p.scheme_id);
    return { paymentId, schemeId, redirect: null, result: { outcome: 'APPROVED', authorization: str(p.auth_code) ?? code, processorId: paymentId, amount, cofTxnid: schemeId } };
  }
  if (AUTHENTICATION_REQUIRED.has(code)) return { ...none, result: { outcome: 'CHALLENGE', details: refusalOf(code, str(p.response_summary)).details } };
  if (!code) return { ...none, result: { outcome: 'UNKNOWN', details: `Checkout.com answered status ${status ?? 'none'} without a response code` } };
  const r = refusalOf(code, str(p.response_summary));
  return { ...none, result: { outcome: 'DECLINED', error: r.error, details: r.details, processorId: paymentId } };
}

/**
 * A payment's details (`GET /payments/{id}`, or an entry of `GET /payments?reference=`), read by their
 * `status` and `approved`: details carry no response code. Approved: APPROVED. Pending: waiting for 3-D
 * Secure (CHALLENGE, with the redirect) or UNKNOWN. Anything else was declined, and a decline's reason is
 * on its action: `declined` (the caller reads the code with `authorizationOf` from the details'
 * `actions` summary or from `GET /payments/{id}/actions`, then `declineOf`). Details carry no auth code
 * either: an approval's `authorization` is the payment id until the caller reads the authorization
 * action's. Believed only when it
 * names our reference, amount and currency.
 */
export function readDetails(
  p: Record<string, unknown>,
  x: Expected,
  kind: 'payment' | 'preauth' | 'verify',
): { state: 'result'; result: ProcessorResult; paymentId: string | null; schemeId: string | null } | { state: 'declined'; paymentId: string } {
  const paymentId = str(p.id);
  const unknown = (details: string) => ({ state: 'result' as const, paymentId, schemeId: null, result: { outcome: 'UNKNOWN' as const, details } });
  if (!paymentId || !PAYMENT_ID.test(paymentId)) return unknown('Checkout.com answered without a payment id');
  if (!matches(p, x, kind)) return unknown('The Checkout.com payment does not match the payment sent (reference, amount or currency)');
  const status = str(p.status);
  if (status === 'Pending') {
    if (str(links(p)?.redirect?.href)) return { state: 'result', paymentId, schemeId: null, result: { outcome: 'CHALLENGE', details: 'Checkout.com waits for 3-D Secure authentication' } };
    return unknown('Checkout.com has the payment pending');
  }
  if (p.approved === true && status !== 'Declined') {
    const schemeId = str(p.scheme_id);
    return { state: 'result', paymentId, schemeId, result: { outcome: 'APPROVED', authorization: str(p.auth_code) ?? paymentId, processorId: paymentId, amount: kind === 'verify' ? 0 : x.amount, cofTxnid: schemeId } };
  }
  if (p.approved !== false || !status) return unknown(`Checkout.com answered status ${status ?? 'none'} without saying whether it was approved`);
  return { state: 'declined', paymentId };
}

/**
 * A payment's authorization (or card verification) among its actions: the list of
 * `GET /payments/{id}/actions` (latest first), or the `actions` summary of a payment's details (which
 * has no auth code). Its response code, summary and auth code; null when none is there.
 */
export function authorizationOf(list: unknown): { code: string; summary: string | null; authCode: string | null } | null {
  if (!Array.isArray(list)) return null;
  for (const a of list as Array<Record<string, unknown>>) {
    if (!a || (a.type !== 'Authorization' && a.type !== 'Card Verification')) continue;
    const code = str(a.response_code);
    if (code) return { code, summary: str(a.response_summary), authCode: str(a.auth_code) };
  }
  return null;
}

/** A declined payment with its authorization's code (`authorizationOf`) as our result. */
export function declineOf(paymentId: string, code: { code: string; summary: string | null }): SettledResult {
  const r = refusalOf(code.code, code.summary);
  return { outcome: 'DECLINED', error: r.error, details: r.details, processorId: paymentId };
}

/** The body of a capture, void or refund (the amount in minor units; a void has none). */
export function actionBody(kind: 'capture' | 'void' | 'refund', reference: string, amount: number): Record<string, unknown> {
  return kind === 'void' ? { reference } : { amount, reference };
}

/** A 202 answer to a capture, void or refund: accepted (not decided yet), with its action id. */
export function acceptedAction(p: Record<string, unknown>, reference: string): { actionId: string } | null {
  const actionId = str(p.action_id);
  if (!actionId || !/^act_[a-z0-9]{10,40}$/.test(actionId)) return null;
  if (p.reference !== undefined && p.reference !== reference) return null;
  return { actionId };
}

const ACTION_TYPE: Record<'capture' | 'void' | 'refund', string> = { capture: 'Capture', void: 'Void', refund: 'Refund' };

/**
 * Our capture, void or refund among the payment's actions (`GET /payments/{id}/actions`), by its action
 * id when we have it, else by its type and our reference. `decided`: approved or declined (its code);
 * `undecided`: listed without a decision yet (no `approved`); `absent`: not listed (not decided, or never
 * received); `mismatch`: listed with another amount (not believed).
 */
export function followUpInActions(
  list: unknown,
  op: { kind: 'capture' | 'void' | 'refund'; reference: string; actionId: string | null; amount: number; paymentId: string },
): { state: 'decided'; result: SettledResult } | { state: 'undecided' | 'absent' | 'mismatch' } {
  if (!Array.isArray(list)) return { state: 'absent' };
  for (const a of list as Array<Record<string, unknown>>) {
    if (!a || a.type !== ACTION_TYPE[op.kind]) continue;
    if (op.actionId ? a.id !== op.actionId : a.reference !== op.reference) continue;
    if (op.kind !== 'void' && a.amount !== op.amount) return { state: 'mismatch' };
    if (typeof a.approved !== 'boolean') return { state: 'undecided' };
    const code = str(a.response_code) ?? '';
    if (a.approved && (code === '' || isApprovalCode(code))) {
      return { state: 'decided', result: { outcome: 'APPROVED', authorization: str(a.auth_code) ?? str(a.id) ?? op.paymentId, processorId: op.paymentId, amount: op.amount } };
    }
    const r = refusalOf(code || '20012', str(a.response_summary));
    return { state: 'decided', result: { outcome: 'DECLINED', error: r.error, details: r.details, processorId: op.paymentId } };
  }
  return { state: 'absent' };
}

// ---- webhooks ----------------------------------------------------------------------------------------------

/** Cko-Signature of a raw body: hex HMAC-SHA256 under the webhook's signature key. */
export function webhookSignature(rawBody: string, key: string): string {
  return createHmac('sha256', key).update(rawBody, 'utf8').digest('hex');
}

/** Compares a received Cko-Signature with the body's, in constant time. */
export function verifyWebhook(rawBody: string, header: string | undefined, key: string): boolean {
  if (!header || !/^[0-9a-f]{64}$/i.test(header)) return false;
  const a = Buffer.from(header.toLowerCase(), 'hex');
  const b = Buffer.from(webhookSignature(rawBody, key), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Webhook event types that settle an operation, and the operation kinds they settle. */
export const EVENT_KINDS: Record<string, { kinds: CheckoutKind[]; approved: boolean }> = {
  payment_approved: { kinds: ['payment', 'preauth', 'verify'], approved: true },
  card_verified: { kinds: ['verify'], approved: true },
  payment_declined: { kinds: ['payment', 'preauth', 'verify'], approved: false },
  card_verification_declined: { kinds: ['verify'], approved: false },
  payment_captured: { kinds: ['capture'], approved: true },
  payment_capture_declined: { kinds: ['capture'], approved: false },
  payment_voided: { kinds: ['void'], approved: true },
  payment_void_declined: { kinds: ['void'], approved: false },
  payment_refunded: { kinds: ['refund'], approved: true },
  payment_refund_declined: { kinds: ['refund'], approved: false },
};

/** The fields of a webhook read once its signature is verified. */
export interface WebhookFacts {
  eventId: string;
  type: string;
  paymentId: string;
  actionId: string | null;
  reference: string | null;
  amount: number | null;
  currency: string | null;
  responseCode: string | null;
  summary: string | null;
  authCode: string | null;
}

export function webhookFacts(body: Record<string, unknown>): WebhookFacts | null {
  const data = body.data as Record<string, unknown> | undefined;
  const eventId = str(body.id);
  const type = str(body.type);
  const paymentId = str(data?.id);
  if (!eventId || !type || !data || !paymentId) return null;
  return {
    eventId, type, paymentId,
    actionId: str(data.action_id), reference: str(data.reference),
    amount: typeof data.amount === 'number' ? data.amount : null, currency: str(data.currency),
    responseCode: str(data.response_code), summary: str(data.response_summary), authCode: str(data.auth_code),
  };
}

/** What a verified webhook says about one operation of ours (null: it does not settle it). */
export function resultOfWebhook(f: WebhookFacts, op: { kind: CheckoutKind; amount: number; currency: string; paymentId: string }): SettledResult | null {
  const e = EVENT_KINDS[f.type];
  if (!e || !e.kinds.includes(op.kind)) return null;
  const amount = op.kind === 'verify' ? 0 : op.amount;
  if (op.kind !== 'void' && f.amount !== null && f.amount !== amount) return null;
  if (f.currency !== null && f.currency !== op.currency) return null;
  if (e.approved) return { outcome: 'APPROVED', authorization: f.authCode ?? f.actionId ?? op.paymentId, processorId: op.paymentId, amount };
  const code = f.responseCode ?? '20012';
  if (AUTHENTICATION_REQUIRED.has(code)) return null;
  const r = refusalOf(code, f.summary);
  return { outcome: 'DECLINED', error: r.error, details: r.details, processorId: op.paymentId };
}

// ---- disputes (Disputes API: docs/disputes.md "Connectors") -------------------------------------------------

type DisputeStatus = DisputeNotice['status'];
type DisputeStage = DisputeNotice['stage'];

/** Checkout.com's dispute status as ours, with the stage it implies ([REF] Disputes/Dispute.yaml `status`). */
export const CHECKOUT_DISPUTE_STATUS: Record<(typeof CHECKOUT_DISPUTE_STATUSES)[number], { status: DisputeStatus; stage: DisputeStage | null }> = {
  evidence_required: { status: 'NEEDS_RESPONSE', stage: null },
  evidence_under_review: { status: 'UNDER_REVIEW', stage: null },
  won: { status: 'WON', stage: null },
  lost: { status: 'LOST', stage: null },
  // the issuer withdrew the dispute: the merchant keeps the money
  canceled: { status: 'WON', stage: null },
  expired: { status: 'EXPIRED', stage: null },
  accepted: { status: 'ACCEPTED', stage: null },
  // resolved without a contest (rapid dispute resolution, already refunded): not won back
  resolved: { status: 'ACCEPTED', stage: null },
  arbitration_under_review: { status: 'UNDER_REVIEW', stage: 'ARBITRATION' },
  arbitration_won: { status: 'WON', stage: 'ARBITRATION' },
  arbitration_lost: { status: 'LOST', stage: 'ARBITRATION' },
};

/** Checkout.com's dispute category as ours ([REF] Disputes/Dispute.yaml `category`). */
export const CHECKOUT_DISPUTE_CATEGORY: Record<(typeof CHECKOUT_DISPUTE_CATEGORIES)[number], DisputeNotice['category']> = {
  fraudulent: 'FRAUD',
  unrecognized: 'FRAUD',
  canceled_recurring: 'SUBSCRIPTION_CANCELLED',
  product_service_not_received: 'PRODUCT_NOT_RECEIVED',
  not_as_described: 'PRODUCT_UNACCEPTABLE',
  credit_not_issued: 'CREDIT_NOT_PROCESSED',
  duplicate: 'DUPLICATE',
  incorrect_amount: 'PROCESSING_ERROR',
  general: 'GENERAL',
};

/** A dispute webhook's facts, read before it is verified: the event, the dispute and our reference. */
export function disputeWebhookFacts(body: Record<string, unknown>): { eventId: string; type: string; reference: string; notice: DisputeNotice } | null {
  const type = typeof body.type === 'string' ? body.type : '';
  if (!(CHECKOUT_DISPUTE_EVENT_TYPES as readonly string[]).includes(type)) return null;
  const d = body.data as Record<string, unknown> | undefined;
  if (!d || typeof body.id !== 'string' || typeof d.id !== 'string' || !/^dsp_\w+$/.test(d.id)) return null;
  const reference = typeof d.payment_reference === 'string' ? d.payment_reference : null;
  const mapped = CHECKOUT_DISPUTE_STATUS[d.status as keyof typeof CHECKOUT_DISPUTE_STATUS];
  const category = CHECKOUT_DISPUTE_CATEGORY[d.category as keyof typeof CHECKOUT_DISPUTE_CATEGORY] ?? 'GENERAL';
  if (!reference || !mapped || typeof d.amount !== 'number' || !Number.isInteger(d.amount) || typeof d.currency !== 'string') return null;
  const due = typeof d.evidence_required_by === 'string' ? new Date(d.evidence_required_by) : null;
  return {
    eventId: body.id,
    type,
    reference,
    notice: {
      reference,
      providerId: d.id,
      status: mapped.status,
      stage: mapped.stage ?? 'CHARGEBACK',
      category,
      reasonCode: typeof d.reason_code === 'string' && d.reason_code !== '' ? d.reason_code.slice(0, 20) : 'unknown',
      amount: Math.abs(d.amount),
      currency: d.currency.toUpperCase(),
      dueAt: due && !Number.isNaN(due.getTime()) ? due : null,
      detail: `Checkout.com ${type} (${String(d.status)})`,
    },
  };
}

/** Our evidence fields as Checkout.com's evidence texts (ProvideEvidenceRequest: `<kind>_text`, 500 characters each). */
const EVIDENCE_KIND_OF: Record<string, (typeof CHECKOUT_EVIDENCE_KINDS)[number]> = {
  proof_of_delivery: 'proof_of_delivery_or_service',
  shipping_carrier: 'proof_of_delivery_or_service',
  shipping_tracking_number: 'proof_of_delivery_or_service',
  shipping_address: 'proof_of_delivery_or_service',
  shipping_date: 'proof_of_delivery_or_service_date',
  product_description: 'invoice_or_receipt',
  customer_communication: 'customer_communication',
  refund_policy: 'refund_or_cancellation_policy',
  cancellation_policy: 'refund_or_cancellation_policy',
  cancellation_rebuttal: 'refund_or_cancellation_policy',
  return_policy_explanation: 'refund_or_cancellation_policy',
  terms_and_conditions: 'recurring_transaction_agreement',
  duplicate_explanation: 'invoice_showing_distinct_transactions',
  other_transaction: 'invoice_showing_distinct_transactions',
};

/**
 * The body of `PUT /disputes/{id}/evidence`: each text under its kind (several of our fields of one kind
 * joined, `name: text`), everything else as additional evidence, each cut to 500 characters; each uploaded
 * document (its `file_` id) as the file of the kind of the field it supports (else additional evidence).
 * A kind takes one file: a document whose kind has one already goes to additional evidence if that is
 * free, else it is named in the additional evidence's text.
 */
export function evidenceRequest(fields: Record<string, string>, documents: Array<{ filename: string; field: string | null; fileId: string }>): Record<string, string> {
  const by = new Map<string, string[]>();
  for (const [name, text] of Object.entries(fields)) {
    const kind = EVIDENCE_KIND_OF[name] ?? 'additional_evidence';
    by.set(kind, [...(by.get(kind) ?? []), `${name.replace(/_/g, ' ')}: ${text}`]);
  }
  const files: Record<string, string> = {};
  const unfiled: string[] = [];
  for (const d of documents) {
    const kind = (d.field && EVIDENCE_KIND_OF[d.field]) || 'additional_evidence';
    if (!files[`${kind}_file`]) files[`${kind}_file`] = d.fileId;
    else if (!files.additional_evidence_file) files.additional_evidence_file = d.fileId;
    else unfiled.push(d.filename);
  }
  if (unfiled.length > 0) by.set('additional_evidence', [...(by.get('additional_evidence') ?? []), `more documents kept by the merchant: ${unfiled.join(', ')}`]);
  const out: Record<string, string> = { ...files };
  for (const [kind, texts] of by) {
    const t = texts.join('\n');
    out[`${kind}_text`] = t.length > 500 ? `${t.slice(0, 499)}…` : t;
  }
  return out;
}
