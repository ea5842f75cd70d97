/**
 * PayPal mapping (pure): our operations to PayPal's Orders v2 and Payments v2 JSON, its answers and
 * webhooks back to our results. No IO, no clock.
 *
 * Facts used (PayPal's public REST API reference and OpenAPI documents `checkout_orders_v2.json`,
 * `payments_payment_v2.json`, `notifications_webhooks_v1.json`):
 *  - `POST /v1/oauth2/token` (client credentials) gives the bearer token of every call;
 *  - `POST /v2/checkout/orders` {intent CAPTURE | AUTHORIZE, purchase_units [{reference_id, custom_id,
 *    amount {currency_code, value}}]} creates an order; no money moves until
 *    `POST /v2/checkout/orders/{id}/capture` or `/authorize`, which may carry the `payment_source`
 *    (`card`: number, expiry YYYY-MM, security_code, name, stored_credential) and answer the order with
 *    `purchase_units[0].payments.captures[0]` or `.authorizations[0]` (status, amount,
 *    processor_response.response_code, network_transaction_reference);
 *  - a buyer's PayPal account: the order is created with `payment_source.paypal.experience_context`
 *    (return_url, cancel_url) and answered PAYER_ACTION_REQUIRED with a `payer-action` link, where the
 *    buyer approves; then the order is captured (or authorized);
 *  - `POST /v2/payments/authorizations/{id}/capture` and `/void`, `POST /v2/payments/captures/{id}/refund`,
 *    each with `custom_id` (our reference); `GET /v2/checkout/orders/{id}` shows every authorization,
 *    capture and refund of the order;
 *  - every request carries `PayPal-Request-Id` (idempotency);
 *  - webhooks are verified by PayPal: `POST /v1/notifications/verify-webhook-signature` with the five
 *    `PAYPAL-*` transmission headers, the webhook id and the event as received → verification_status.
 */
import type { CardData, PaymentRequest, ProcessorResult, SettledResult } from '../connector.js';
import { currencyByCode } from '../../platform/money/currency.js';
import { refusalOf, SCA_REQUIRED } from './codes.js';

export type PaypalKind = 'payment' | 'preauth' | 'verify' | 'capture' | 'void' | 'refund' | 'apm';

/** Minor units as PayPal's decimal string (`1000` EUR → `10.00`). */
export function toValue(amount: number, currency: string): string {
  const digits = currencyByCode(currency)?.digits ?? 2;
  if (digits === 0) return String(amount);
  const s = String(amount).padStart(digits + 1, '0');
  return `${s.slice(0, -digits)}.${s.slice(-digits)}`;
}

/** PayPal's decimal string back to minor units; null when it is not one. */
export function fromValue(value: unknown, currency: string): number | null {
  if (typeof value !== 'string' || !/^\d{1,15}(\.\d{1,3})?$/.test(value)) return null;
  const digits = currencyByCode(currency)?.digits ?? 2;
  const [int, frac = ''] = value.split('.');
  if (frac.length > digits) return null;
  return Number(int) * 10 ** digits + Number(frac.padEnd(digits, '0') || '0');
}

/** The body that creates an order (no payment source: nothing is charged by it). */
export function orderBody(reference: string, amount: number, currency: string, intent: 'CAPTURE' | 'AUTHORIZE', opts: { description?: string; paypal?: { returnUrl: string; cancelUrl: string } } = {}): Record<string, unknown> {
  return {
    intent,
    purchase_units: [{ reference_id: 'default', custom_id: reference, ...(opts.description ? { description: opts.description.slice(0, 127) } : {}), amount: { currency_code: currency, value: toValue(amount, currency) } }],
    ...(opts.paypal
      ? { payment_source: { paypal: { experience_context: { return_url: opts.paypal.returnUrl, cancel_url: opts.paypal.cancelUrl, user_action: 'PAY_NOW', shipping_preference: 'NO_SHIPPING' } } } }
      : {}),
  };
}

/**
 * The card as the `payment_source` of a capture or authorization. MoTo and merchant-initiated payments
 * carry `stored_credential` (MERCHANT initiator; MIT with the first payment's network reference); a
 * customer payment asks for 3-D Secure only when the issuer requires it.
 */
export function cardPaymentSource(card: CardData, channel: PaymentRequest['channel'], previous: { id: string; network: string } | null, threeds: { returnUrl: string } | null = null): Record<string, unknown> {
  const c: Record<string, unknown> = {
    number: card.pan.reveal().replace(/\s+/g, ''),
    expiry: `${card.expiryYear}-${String(card.expiryMonth).padStart(2, '0')}`,
    ...(card.cvv ? { security_code: card.cvv.reveal() } : {}),
    ...(card.holder ? { name: card.holder } : {}),
  };
  if (channel === 'MIT') {
    c.stored_credential = { payment_initiator: 'MERCHANT', payment_type: 'UNSCHEDULED', usage: 'SUBSEQUENT', ...(previous ? { previous_network_transaction_reference: previous } : {}) };
  } else if (channel === 'MOTO') {
    c.stored_credential = { payment_initiator: 'MERCHANT', payment_type: 'ONE_TIME', usage: 'DERIVED' };
  } else if (threeds) {
    // 3-D Secure on PayPal's page, the cardholder back to our page with the order's token
    c.attributes = { verification: { method: 'SCA_ALWAYS' } };
    c.experience_context = { return_url: threeds.returnUrl, cancel_url: threeds.returnUrl };
  } else {
    c.attributes = { verification: { method: 'SCA_WHEN_REQUIRED' } };
  }
  return { card: c };
}

export function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.length <= 200 ? v : null);
const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** The payments of an order's purchase unit. */
function paymentsOf(order: Record<string, unknown>): { captures: Array<Record<string, unknown>>; authorizations: Array<Record<string, unknown>>; refunds: Array<Record<string, unknown>> } {
  const unit = Array.isArray(order.purchase_units) ? obj(order.purchase_units[0]) : null;
  const p = obj(unit?.payments);
  const list = (k: string) => (Array.isArray(p?.[k]) ? (p![k] as unknown[]).map(obj).filter((x): x is Record<string, unknown> => !!x) : []);
  return { captures: list('captures'), authorizations: list('authorizations'), refunds: list('refunds') };
}

export interface OrderFacts {
  result: ProcessorResult;
  /** The capture or authorization id (what follow-ups act on). */
  paymentId: string | null;
  network: { id: string; network: string } | null;
}

/**
 * An order after its capture or authorization, as our result. PayPal's answers are not signed (TLS
 * only): an answer is believed only when it is our order, with our reference (custom_id), amount and
 * currency; anything else is UNKNOWN (the reconciler reads the order again).
 */
export function resultOfOrder(order: Record<string, unknown>, x: { orderId: string; reference: string; amount: number; currency: string }, intent: 'CAPTURE' | 'AUTHORIZE'): OrderFacts {
  const unknown = (details: string): OrderFacts => ({ result: { outcome: 'UNKNOWN', details }, paymentId: null, network: null });
  if (order.id !== x.orderId) return unknown('PayPal answered for another order');
  const status = str(order.status);
  if (status === 'PAYER_ACTION_REQUIRED') return { result: { outcome: 'CHALLENGE', details: 'PayPal asks for 3-D Secure authentication (PAYER_ACTION_REQUIRED)' }, paymentId: null, network: null };
  const unit = Array.isArray(order.purchase_units) ? obj(order.purchase_units[0]) : null;
  const list = intent === 'CAPTURE' ? paymentsOf(order).captures : paymentsOf(order).authorizations;
  const p = list[0];
  if (!p) return status === 'CREATED' || status === 'APPROVED' ? unknown(`the PayPal order is ${status}: nothing was charged yet`) : unknown('PayPal answered without a capture or authorization');
  const custom = str(p.custom_id) ?? str(unit?.custom_id);
  const amount = obj(p.amount);
  if (custom !== x.reference || amount?.currency_code !== x.currency || fromValue(amount?.value, x.currency) !== x.amount) {
    return unknown('The PayPal answer does not match the payment sent (reference, amount or currency)');
  }
  const id = str(p.id);
  if (!id) return unknown('PayPal answered without a payment id');
  const pstatus = str(p.status);
  const response = str(obj(p.processor_response)?.response_code);
  const ntr = obj(p.network_transaction_reference);
  const network = ntr && str(ntr.id) ? { id: str(ntr.id)!, network: str(ntr.network) ?? 'VISA' } : null;
  const approved = intent === 'CAPTURE' ? pstatus === 'COMPLETED' || pstatus === 'PENDING' : pstatus === 'CREATED' || pstatus === 'CAPTURED';
  if (approved && (response === null || response === '0000' || response === '00')) {
    return { result: { outcome: 'APPROVED', authorization: response ? `${response}-${id.slice(-6)}` : id, processorId: id, amount: x.amount, cofTxnid: network?.id ?? null }, paymentId: id, network };
  }
  if (response && SCA_REQUIRED.has(response)) return { result: { outcome: 'CHALLENGE', details: refusalOf(response).details }, paymentId: id, network: null };
  const r = refusalOf(response ?? 'DECLINED');
  return { result: { outcome: 'DECLINED', error: r.error, details: r.details, processorId: id }, paymentId: id, network: null };
}

/** An answer of a capture of an authorization, or a refund: believed when it is ours (custom_id, amount). */
export function resultOfAction(a: Record<string, unknown>, x: { reference: string; amount: number; currency: string; paymentId: string }): SettledResult | null {
  const amount = obj(a.amount);
  if (str(a.custom_id) !== x.reference) return null;
  if (amount && (amount.currency_code !== x.currency || fromValue(amount.value, x.currency) !== x.amount)) return null;
  const status = str(a.status);
  if (status === 'COMPLETED' || status === 'PENDING') return { outcome: 'APPROVED', authorization: str(a.id) ?? x.paymentId, processorId: x.paymentId, amount: x.amount };
  if (status === 'DECLINED' || status === 'FAILED' || status === 'CANCELLED') {
    const r = refusalOf(str(obj(a.processor_response)?.response_code) ?? 'DECLINED');
    return { outcome: 'DECLINED', error: r.error, details: r.details, processorId: x.paymentId };
  }
  return null;
}

/** A follow-up as the order shows it (GET /v2/checkout/orders/{id}): found settled, or null. */
export function followUpInOrder(order: Record<string, unknown>, op: { kind: 'capture' | 'void' | 'refund'; reference: string; amount: number; currency: string; paymentId: string }): SettledResult | null {
  const p = paymentsOf(order);
  if (op.kind === 'void') {
    const auth = p.authorizations.find((a) => a.id === op.paymentId);
    if (auth?.status === 'VOIDED') return { outcome: 'APPROVED', authorization: op.paymentId, processorId: op.paymentId, amount: op.amount };
    return null;
  }
  const list = op.kind === 'capture' ? p.captures : p.refunds;
  for (const a of list) {
    const r = resultOfAction(a, op);
    if (r) return r;
  }
  return null;
}

/** The `payer-action` link of an order waiting for the buyer's approval. */
export function payerActionOf(order: Record<string, unknown>): string | null {
  if (!Array.isArray(order.links)) return null;
  for (const l of order.links as unknown[]) {
    const o = obj(l);
    if (o && o.rel === 'payer-action' && typeof o.href === 'string' && /^https?:\/\//.test(o.href)) return o.href;
  }
  return null;
}

// ---- webhooks ----------------------------------------------------------------------------------------------

/** The transmission headers PayPal's verification call needs. */
export const TRANSMISSION_HEADERS = ['paypal-auth-algo', 'paypal-cert-url', 'paypal-transmission-id', 'paypal-transmission-sig', 'paypal-transmission-time'] as const;

/**
 * The body of `POST /v1/notifications/verify-webhook-signature`, with the event exactly as received (the
 * raw text, not re-serialised: PayPal's signature covers the bytes it sent).
 */
export function verificationBody(headers: Record<string, string>, webhookId: string, rawEvent: string): string {
  return `{"auth_algo":${JSON.stringify(headers['paypal-auth-algo'])},"cert_url":${JSON.stringify(headers['paypal-cert-url'])},"transmission_id":${JSON.stringify(headers['paypal-transmission-id'])},"transmission_sig":${JSON.stringify(headers['paypal-transmission-sig'])},"transmission_time":${JSON.stringify(headers['paypal-transmission-time'])},"webhook_id":${JSON.stringify(webhookId)},"webhook_event":${rawEvent}}`;
}

/** Webhook event types that settle an operation, and the kinds they settle. */
export const EVENT_KINDS: Record<string, { kinds: PaypalKind[]; approved: boolean }> = {
  'PAYMENT.CAPTURE.COMPLETED': { kinds: ['payment', 'capture', 'apm'], approved: true },
  'PAYMENT.CAPTURE.DECLINED': { kinds: ['payment', 'capture', 'apm'], approved: false },
  'PAYMENT.AUTHORIZATION.CREATED': { kinds: ['preauth'], approved: true },
  'PAYMENT.AUTHORIZATION.VOIDED': { kinds: ['void'], approved: true },
  'PAYMENT.CAPTURE.REFUNDED': { kinds: ['refund'], approved: true },
  'CHECKOUT.ORDER.APPROVED': { kinds: ['apm'], approved: true },
};

export interface WebhookFacts {
  eventId: string;
  type: string;
  /** The capture, authorization or refund id (the order id for CHECKOUT.ORDER.*). */
  resourceId: string;
  orderId: string | null;
  customId: string | null;
  amount: { value: unknown; currency: unknown } | null;
  responseCode: string | null;
}

export function webhookFacts(e: Record<string, unknown>): WebhookFacts | null {
  const r = obj(e.resource);
  const eventId = str(e.id);
  const type = str(e.event_type);
  const resourceId = str(r?.id);
  if (!r || !eventId || !type || !resourceId) return null;
  const related = obj(obj(r.supplementary_data)?.related_ids);
  const unit = Array.isArray(r.purchase_units) ? obj(r.purchase_units[0]) : null;
  const amount = obj(r.amount) ?? obj(unit?.amount);
  return {
    eventId, type, resourceId,
    orderId: type.startsWith('CHECKOUT.ORDER.') ? resourceId : str(related?.order_id),
    customId: str(r.custom_id) ?? str(unit?.custom_id),
    amount: amount ? { value: amount.value, currency: amount.currency_code } : null,
    responseCode: str(obj(r.processor_response)?.response_code),
  };
}

/** What a verified webhook says about one operation (null: nothing it settles). */
export function resultOfWebhook(f: WebhookFacts, op: { kind: PaypalKind; amount: number; currency: string; paymentId: string }): SettledResult | null {
  const e = EVENT_KINDS[f.type];
  if (!e || !e.kinds.includes(op.kind)) return null;
  if (op.kind !== 'void' && op.kind !== 'verify' && f.amount && (f.amount.currency !== op.currency || fromValue(f.amount.value, op.currency) !== op.amount)) return null;
  if (e.approved) return { outcome: 'APPROVED', authorization: f.resourceId, processorId: op.paymentId, amount: op.amount };
  const r = refusalOf(f.responseCode ?? 'DECLINED');
  return { outcome: 'DECLINED', error: r.error, details: r.details, processorId: op.paymentId };
}
