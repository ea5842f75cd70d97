/**
 * Checkout.com mapping (pure): our operations to the Payments API's JSON, its answers and webhooks back
 * to our results. No IO, no clock.
 *
 * Payments API facts used (Checkout.com's public API reference and OpenAPI document):
 *  - `POST /payments` {source, amount, currency, reference, capture, payment_type, merchant_initiated,
 *    previous_payment_id, processing_channel_id, 3ds} → 201 {id, action_id, approved, status,
 *    response_code, response_summary, auth_code, scheme_id, amount, currency, reference}; 202 with
 *    `status: Pending` and `_links.redirect` when the cardholder must authenticate (3-D Secure);
 *    422 {error_type, error_codes} when the request is invalid.
 *  - `POST /payments/{id}/captures|voids|refunds` {amount?, reference} → 202 {action_id, reference}.
 *  - `GET /payments?reference=` (a payment by its reference), `GET /payments/{id}/actions` (its
 *    authorization, captures, refunds and voids, each with `approved` and `response_code`).
 *  - Webhooks: `{id, type, created_on, data: {id, action_id, reference, amount, currency, response_code,
 *    response_summary, auth_code}}`, signed with the header `Cko-Signature`: hex HMAC-SHA256 of the raw
 *    body under the webhook's signature key.
 */
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
  return { enabled: true, eci: t.eci ?? undefined, cryptogram: t.cavv ?? undefined, version: t.version, xid: t.dsTransId ?? undefined };
}

/**
 * The body of `POST /payments`. MoTo: payment_type MOTO (no authentication). Merchant-initiated:
 * `merchant_initiated`, payment_type Unscheduled and `previous_payment_id` (the scheme transaction id
 * of the card's first payment). A card's first customer payment is Regular (its `scheme_id` is kept).
 */
export function paymentBody(
  req: Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'card' | 'channel' | 'threeds' | 'dynamicDescriptor'>,
  opts: { kind: 'payment' | 'preauth' | 'verify'; processingChannelId: string; previousPaymentId: string | null; threeds3?: { successUrl: string; failureUrl: string } | null },
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    source: cardSource(req.card),
    amount: opts.kind === 'verify' ? 0 : req.amount,
    currency: req.currency,
    reference: req.reference,
    processing_channel_id: opts.processingChannelId,
    capture: opts.kind === 'payment',
    payment_type: req.channel === 'MOTO' ? 'MOTO' : req.channel === 'MIT' ? 'Unscheduled' : 'Regular',
  };
  if (req.channel === 'MIT') {
    body.merchant_initiated = true;
    if (opts.previousPaymentId) body.previous_payment_id = opts.previousPaymentId;
  }
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

/** Reads a JSON object or null. */
export function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.length <= 200 ? v : null);

/**
 * A payment answer (201/202, or a payment found by reference) as our result. Checkout.com's answers are
 * not signed (TLS only): an answer is believed only when it names our reference, amount and currency;
 * anything else is UNKNOWN (the reconciler asks Checkout.com again).
 */
export function resultOfPayment(p: Record<string, unknown>, x: Expected, kind: 'payment' | 'preauth' | 'verify'): { result: ProcessorResult; paymentId: string | null; schemeId: string | null; redirect: string | null } {
  const paymentId = str(p.id);
  const none = { paymentId, schemeId: null, redirect: null };
  if (!paymentId || !/^pay_[a-z0-9]{10,40}$/.test(paymentId)) return { ...none, result: { outcome: 'UNKNOWN', details: 'Checkout.com answered without a payment id' } };
  const amount = kind === 'verify' ? 0 : x.amount;
  if (p.reference !== x.reference || p.amount !== amount || p.currency !== x.currency) {
    return { ...none, result: { outcome: 'UNKNOWN', details: 'The Checkout.com answer does not match the payment sent (reference, amount or currency)' } };
  }
  const status = str(p.status);
  const redirect = str((p._links as Record<string, Record<string, unknown>> | undefined)?.redirect?.href);
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

/** The body of a capture, void or refund (the amount in minor units; a void has none). */
export function actionBody(kind: 'capture' | 'void' | 'refund', reference: string, amount: number): Record<string, unknown> {
  return kind === 'void' ? { reference } : { amount, reference };
}

/** A 202 answer to a capture, void or refund: accepted, with its action id. */
export function acceptedAction(p: Record<string, unknown>, reference: string): { actionId: string } | null {
  const actionId = str(p.action_id);
  if (!actionId || !/^act_[a-z0-9]{10,40}$/.test(actionId)) return null;
  if (p.reference !== undefined && p.reference !== reference) return null;
  return { actionId };
}

const ACTION_TYPE: Record<'capture' | 'void' | 'refund', string> = { capture: 'Capture', void: 'Void', refund: 'Refund' };

/** An action of `GET /payments/{id}/actions` that is our follow-up (by reference and type), as a settled result. */
export function resultOfActions(list: unknown, op: { kind: 'capture' | 'void' | 'refund'; reference: string; amount: number; paymentId: string }): SettledResult | null {
  if (!Array.isArray(list)) return null;
  for (const a of list as Array<Record<string, unknown>>) {
    if (!a || a.type !== ACTION_TYPE[op.kind] || a.reference !== op.reference) continue;
    const code = str(a.response_code) ?? '';
    if (a.approved === true && (code === '' || isApprovalCode(code))) {
      if (op.kind !== 'void' && a.amount !== op.amount) return null;
      return { outcome: 'APPROVED', authorization: str(a.auth_code) ?? str(a.id) ?? op.paymentId, processorId: op.paymentId, amount: op.amount };
    }
    const r = refusalOf(code || '20012', str(a.response_summary));
    return { outcome: 'DECLINED', error: r.error, details: r.details, processorId: op.paymentId };
  }
  return null;
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
