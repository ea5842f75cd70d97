/**
 * PayPal mapping (pure): our operations to PayPal's Orders v2 and Payments v2 JSON, its answers and
 * webhooks back to our results. No IO, no clock. The shapes are those of spec.ts (PayPal's OpenAPI
 * documents and SDK models, with their versions); the facts used:
 *  - `POST /v1/oauth2/token` (client credentials) gives the bearer token of every call;
 *  - `POST /v2/checkout/orders` {intent CAPTURE | AUTHORIZE, purchase_units [{reference_id, custom_id,
 *    amount {currency_code, value}}]} creates an order; no money moves until
 *    `POST /v2/checkout/orders/{id}/capture` or `/authorize`, which carry the `payment_source.card`
 *    (number, expiry YYYY-MM, security_code, name, stored_credential, attributes.verification) and answer
 *    the order with `purchase_units[0].payments.captures[0]` or `.authorizations[0]` (status,
 *    status_details.reason, amount, processor_response.response_code, network_transaction_reference);
 *  - amounts are decimal strings in PayPal's decimals of the currency (currencies.ts: HUF, JPY and TWD
 *    without decimals);
 *  - 3-D Secure (PayPal "3D Secure: Orders API"): when the issuer requires it (`SCA_WHEN_REQUIRED`, the
 *    default) or the merchant asks for it (`SCA_ALWAYS`), the capture or authorization answers 422 with
 *    the issue `PAYER_ACTION_REQUIRED` and a `payer-action` link; the cardholder authenticates there and
 *    comes back; the order's `payment_source.card.authentication_result` (liability_shift,
 *    three_d_secure.enrollment_status, authentication_status) says whether to go on, by PayPal's table of
 *    recommended actions ("3D Secure response parameters"), and the order is then captured (or
 *    authorized) again with an empty body;
 *  - stored credentials (`card_stored_credential`): `payment_initiator` CUSTOMER (the customer takes part)
 *    or MERCHANT (without the customer), `payment_type` ONE_TIME (CUSTOMER only), RECURRING or
 *    UNSCHEDULED, `usage` FIRST (CUSTOMER only: the payment that stores the card), SUBSEQUENT or DERIVED,
 *    `previous_network_transaction_reference` (MERCHANT only; {id, network, date}: the date is mandatory
 *    for Mastercard and Discover); `security_code` never with MERCHANT;
 *  - a capture or authorization may be PENDING (`status_details.reason`): PayPal decides later
 *    (PAYMENT.CAPTURE.COMPLETED or .DENIED webhooks; the order read again);
 *  - a buyer's PayPal account: the order is created with `payment_source.paypal.experience_context`
 *    (return_url, cancel_url) and answered PAYER_ACTION_REQUIRED with a `payer-action` link, where the
 *    buyer approves; then the order is captured;
 *  - `POST /v2/payments/authorizations/{id}/capture` {amount, invoice_id, final_capture} (a capture
 *    request has no custom_id: our reference is its invoice_id) and `/void`,
 *    `POST /v2/payments/captures/{id}/refund` {amount, custom_id}; `GET /v2/checkout/orders/{id}` shows
 *    every authorization, capture and refund of the order;
 *  - every request carries `PayPal-Request-Id` (idempotency);
 *  - webhooks are verified by PayPal: `POST /v1/notifications/verify-webhook-signature` with the five
 *    `PAYPAL-*` transmission headers, the webhook id and the event as received → verification_status.
 */
import cardValidator from 'card-validator';
import type { CardData, PaymentRequest, ProcessorResult, SettledResult, ThreeDSResult } from '../connector.js';
import { fromPaypalValue, toPaypalValue } from './currencies.js';
import { refusalOf, SCA_REQUIRED } from './codes.js';
import { obj, str } from './mapping-common.js';

export type PaypalKind = 'payment' | 'preauth' | 'verify' | 'capture' | 'void' | 'refund' | 'apm';

/** Minor units as PayPal's decimal string (`1000` EUR → `10.00`; `150000` HUF → `1500`). */
export function toValue(amount: number, currency: string): string {
  return toPaypalValue(amount, currency);
}

/** PayPal's decimal string back to minor units; null when it is not one. */
export function fromValue(value: unknown, currency: string): number | null {
  return fromPaypalValue(value, currency);
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
 * The body of a capture of an authorization (`invoice_id` our reference: a capture request has no
 * custom_id) or of a refund of a capture (`custom_id` our reference); a void has none.
 */
export function followUpBody(kind: 'capture' | 'void' | 'refund', reference: string, amount: number, currency: string): Record<string, unknown> | null {
  if (kind === 'void') return null;
  const value = { currency_code: currency, value: toValue(amount, currency) };
  return kind === 'capture' ? { amount: value, invoice_id: reference, final_capture: true } : { amount: value, custom_id: reference };
}

/** A card network's reference of an earlier payment, as PayPal gives and takes it. */
export interface NetworkReference {
  id: string;
  /** PayPal's card brand (VISA, MASTERCARD...); null when unknown. */
  network: string | null;
  /** MMDD, given for some networks (mandatory when quoting a Mastercard or Discover reference). */
  date: string | null;
}

/** Card brands of card-validator as PayPal names them (`card_brand`). */
const BRANDS: Record<string, string> = {
  visa: 'VISA', mastercard: 'MASTERCARD', 'american-express': 'AMEX', discover: 'DISCOVER', jcb: 'JCB', maestro: 'MAESTRO',
  unionpay: 'CHINA_UNION_PAY', 'diners-club': 'DINERS', elo: 'ELO', hiper: 'HIPER', hipercard: 'HIPERCARD',
};

/** The card's network (brand) as PayPal names it, from its number; null when PayPal has no name for it. */
export function cardNetwork(pan: string): string | null {
  const type = cardValidator.number(pan.replace(/\s+/g, '')).card?.type;
  return type ? BRANDS[type] ?? null : null;
}

export interface CardSourceOptions {
  channel: PaymentRequest['channel'];
  /** This payment stores the card (first payment of a stored credential). */
  storeCredential?: boolean;
  /** The kind of a merchant-initiated payment (absent: unscheduled). */
  mit?: PaymentRequest['mit'];
  /** A merchant-initiated payment's reference to the card's first payment. */
  previous?: NetworkReference | null;
  /** 3-D Secure asked for on PayPal's page, and where the cardholder comes back. */
  threeds?: { returnUrl: string } | null;
}

/**
 * The card as the `payment_source` of a capture or authorization.
 *  - merchant-initiated: `stored_credential` {MERCHANT, RECURRING (subscriptions, instalments: PayPal
 *    names no instalment type) or UNSCHEDULED, SUBSEQUENT, the first payment's network reference}, no
 *    security code (PayPal refuses one with MERCHANT);
 *  - MoTo: PayPal's Orders API has no MoTo indicator; the cardholder takes part (by mail or phone), so it
 *    is customer-initiated (CUSTOMER; `stored_credential` only to mark a first storing payment), with the
 *    security code, and verified by AVS/CVV (`verification.method` AVS_CVV), not by 3-D Secure, which
 *    the cardholder cannot go through;
 *  - a customer's payment: 3-D Secure when the issuer requires it (SCA_WHEN_REQUIRED), or always with the
 *    return URL of the gateway's 3-D Secure page; FIRST when it stores the card.
 */
export function cardPaymentSource(card: CardData, o: CardSourceOptions): Record<string, unknown> {
  const c: Record<string, unknown> = {
    number: card.pan.reveal().replace(/\s+/g, ''),
    expiry: `${card.expiryYear}-${String(card.expiryMonth).padStart(2, '0')}`,
    ...(card.cvv && o.channel !== 'MIT' ? { security_code: card.cvv.reveal() } : {}),
    ...(card.holder ? { name: card.holder.slice(0, 300) } : {}),
  };
  const first = { payment_initiator: 'CUSTOMER', payment_type: 'UNSCHEDULED', usage: 'FIRST' };
  if (o.channel === 'MIT') {
    const previous = o.previous
      ? { id: o.previous.id, ...(o.previous.network ? { network: o.previous.network } : {}), ...(o.previous.date ? { date: o.previous.date } : {}) }
      : null;
    c.stored_credential = {
      payment_initiator: 'MERCHANT',
      payment_type: o.mit === 'RECURRING' || o.mit === 'INSTALMENT' ? 'RECURRING' : 'UNSCHEDULED',
      usage: 'SUBSEQUENT',
      ...(previous ? { previous_network_transaction_reference: previous } : {}),
    };
  } else if (o.channel === 'MOTO') {
    if (o.storeCredential) c.stored_credential = first;
    c.attributes = { verification: { method: 'AVS_CVV' } };
  } else {
    if (o.storeCredential) c.stored_credential = first;
    if (o.threeds) {
      // 3-D Secure on PayPal's page, the cardholder back to our page
      c.attributes = { verification: { method: 'SCA_ALWAYS' } };
      c.experience_context = { return_url: o.threeds.returnUrl, cancel_url: o.threeds.returnUrl };
    } else {
      c.attributes = { verification: { method: 'SCA_WHEN_REQUIRED' } };
    }
  }
  return { card: c };
}

export { parseObject } from '../kit/http.js';


/** The payments of an order's purchase unit. */
function paymentsOf(order: Record<string, unknown>): { captures: Array<Record<string, unknown>>; authorizations: Array<Record<string, unknown>>; refunds: Array<Record<string, unknown>> } {
  const unit = Array.isArray(order.purchase_units) ? obj(order.purchase_units[0]) : null;
  const p = obj(unit?.payments);
  const list = (k: string) => (Array.isArray(p?.[k]) ? (p![k] as unknown[]).map(obj).filter((x): x is Record<string, unknown> => !!x) : []);
  return { captures: list('captures'), authorizations: list('authorizations'), refunds: list('refunds') };
}

/** The issues of a PayPal error answer (`details[].issue`). */
export function issuesOf(body: Record<string, unknown> | null): string[] {
  if (!body || !Array.isArray(body.details)) return [];
  return (body.details as unknown[]).map((d) => str(obj(d)?.issue)).filter((x): x is string => !!x);
}

/** `payment_source.card.authentication_result` of an order (3-D Secure's result), as PayPal gives it. */
export interface AuthenticationFacts {
  liabilityShift: string | null;
  enrollment: string | null;
  authentication: string | null;
}

export function authenticationOf(order: Record<string, unknown>): AuthenticationFacts | null {
  const r = obj(obj(obj(order.payment_source)?.card)?.authentication_result);
  if (!r) return null;
  const tds = obj(r.three_d_secure);
  return { liabilityShift: str(r.liability_shift), enrollment: str(tds?.enrollment_status), authentication: str(tds?.authentication_status) };
}

export interface ThreeDSDecision {
  /** PayPal's recommended action: continue with the authorization, do not, or do not and ask the cardholder to retry. */
  action: 'CONTINUE' | 'REJECT' | 'RETRY';
  /** How the cardholder was authenticated, for the payment's record (transStatus Y or A only when liability shifts). */
  threeds: ThreeDSResult;
  details: string;
}

/**
 * PayPal's "Recommended action" table (3D Secure response parameters) over enrollment_status,
 * authentication_status and liability_shift:
 *   Y Y POSSIBLE, Y A POSSIBLE (and liability YES): continue;
 *   Y N NO, Y R NO: do not continue;
 *   Y U UNKNOWN, Y U NO, Y C UNKNOWN, Y – NO, U – UNKNOWN, – – UNKNOWN: do not continue, the cardholder retries;
 *   N – NO, U – NO, B – NO: continue (no authentication: the merchant keeps the liability).
 * A combination the table does not list follows liability_shift alone (POSSIBLE continue, NO do not,
 * UNKNOWN retry); no result at all is the table's last row (retry). Only a continued payment whose
 * liability may shift is recorded as authenticated.
 */
export function threedsDecision(a: AuthenticationFacts | null): ThreeDSDecision {
  const ls = a?.liabilityShift ?? null;
  const es = a?.enrollment ?? null;
  const as = a?.authentication ?? null;
  const said = `enrollment ${es ?? '-'}, authentication ${as ?? '-'}, liability ${ls ?? '-'}`;
  const record = (transStatus: string): ThreeDSResult => ({ version: '2.2.0', transStatus, eci: null, cavv: null, dsTransId: null });
  if (ls === 'POSSIBLE' || ls === 'YES') {
    const authenticated = as === 'Y' || as === 'A';
    return { action: 'CONTINUE', threeds: record(authenticated ? as! : 'U'), details: `PayPal 3-D Secure: ${said}` };
  }
  if (ls === 'NO') {
    if (as === null && (es === 'N' || es === 'U' || es === 'B')) return { action: 'CONTINUE', threeds: record('U'), details: `PayPal 3-D Secure: not authenticated (${said}); the merchant keeps the liability` };
    if (es === 'Y' && (as === 'U' || as === null)) return { action: 'RETRY', threeds: record('U'), details: `PayPal 3-D Secure could not be completed (${said}): the cardholder may try again` };
    return { action: 'REJECT', threeds: record(as ?? 'N'), details: `PayPal 3-D Secure: the cardholder was not authenticated (${said})` };
  }
  return { action: 'RETRY', threeds: record(as && as !== 'Y' && as !== 'A' ? as : 'U'), details: `PayPal 3-D Secure could not be completed (${said}): the cardholder may try again` };
}

export interface OrderFacts {
  result: ProcessorResult;
  /** The capture or authorization id (what follow-ups act on). */
  paymentId: string | null;
  network: NetworkReference | null;
}

/**
 * An order after its capture or authorization, as our result. PayPal's answers are not signed (TLS
 * only): an answer is believed only when it is our order, with our reference (custom_id), amount and
 * currency; anything else is UNKNOWN (the reconciler reads the order again). A capture or authorization
 * PENDING at PayPal is PENDING (its webhook or the order read again decides it).
 */
export function resultOfOrder(order: Record<string, unknown>, x: { orderId: string; reference: string; amount: number; currency: string; cardNetwork?: string | null }, intent: 'CAPTURE' | 'AUTHORIZE'): OrderFacts {
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
  const reason = str(obj(p.status_details)?.reason);
  const response = str(obj(p.processor_response)?.response_code);
  const ntr = obj(p.network_transaction_reference);
  const network = ntr && str(ntr.id) ? { id: str(ntr.id)!, network: str(ntr.network) ?? x.cardNetwork ?? null, date: str(ntr.date) } : null;
  if (pstatus === 'PENDING') {
    return { result: { outcome: 'PENDING', details: `PayPal has not decided the ${intent === 'CAPTURE' ? 'capture' : 'authorization'} yet (PENDING${reason ? `: ${reason}` : ''})`, processorId: id }, paymentId: id, network: null };
  }
  const approved = intent === 'CAPTURE' ? pstatus === 'COMPLETED' : pstatus === 'CREATED' || pstatus === 'CAPTURED' || pstatus === 'PARTIALLY_CAPTURED';
  if (approved && (response === null || response === '0000' || response === '00')) {
    return { result: { outcome: 'APPROVED', authorization: response ? `${response}-${id.slice(-6)}` : id, processorId: id, amount: x.amount, cofTxnid: network?.id ?? null }, paymentId: id, network };
  }
  if (response && SCA_REQUIRED.has(response)) return { result: { outcome: 'CHALLENGE', details: refusalOf(response).details }, paymentId: id, network: null };
  const r = refusalOf(response ?? 'DECLINED');
  return { result: { outcome: 'DECLINED', error: r.error, details: reason ? `${r.details} (${pstatus}: ${reason})` : r.details, processorId: id }, paymentId: id, network: null };
}

/**
 * An answer of a capture of an authorization (ours by its invoice_id: a capture request has no custom_id)
 * or of a refund (ours by its custom_id), believed when it is ours with our amount. PENDING: PayPal has
 * not decided it.
 */
export function resultOfAction(a: Record<string, unknown>, x: { reference: string; amount: number; currency: string; paymentId: string }): ProcessorResult | null {
  const amount = obj(a.amount);
  if (str(a.invoice_id) !== x.reference && str(a.custom_id) !== x.reference) return null;
  if (amount && (amount.currency_code !== x.currency || fromValue(amount.value, x.currency) !== x.amount)) return null;
  const status = str(a.status);
  const reason = str(obj(a.status_details)?.reason);
  if (status === 'COMPLETED') return { outcome: 'APPROVED', authorization: str(a.id) ?? x.paymentId, processorId: x.paymentId, amount: x.amount };
  if (status === 'PENDING') return { outcome: 'PENDING', details: `PayPal has not decided it yet (PENDING${reason ? `: ${reason}` : ''})`, processorId: str(a.id) ?? x.paymentId };
  if (status === 'DECLINED' || status === 'FAILED' || status === 'CANCELLED') {
    const r = refusalOf(str(obj(a.processor_response)?.response_code) ?? 'DECLINED');
    return { outcome: 'DECLINED', error: r.error, details: reason ? `${r.details} (${status}: ${reason})` : r.details, processorId: x.paymentId };
  }
  return null;
}

/** A capture, void or refund of ours in an order read again (null: PayPal does not have it). */
export function followUpInOrder(order: Record<string, unknown>, op: { kind: 'capture' | 'void' | 'refund'; reference: string; amount: number; currency: string; paymentId: string }): ProcessorResult | null {
  const p = paymentsOf(order);
  if (op.kind === 'void') {
    const auth = p.authorizations.find((a) => a.id === op.paymentId);
    if (auth?.status === 'VOIDED') return { outcome: 'APPROVED', authorization: op.paymentId, processorId: op.paymentId, amount: op.amount };
    return null;
  }
  const list = op.kind === 'capture' ? p.captures : p.refunds;
  for (const a of list) {
    // a capture of an authorization is ours by invoice_id (it carries the order's custom_id too)
    if (op.kind === 'capture' && str(a.invoice_id) !== op.reference) continue;
    const r = resultOfAction(a, op);
    if (r) return r;
  }
  return null;
}

/** The `payer-action` link of an order (or of a 422 answer) waiting for the payer. */
export function payerActionOf(body: Record<string, unknown>): string | null {
  if (!Array.isArray(body.links)) return null;
  for (const l of body.links as unknown[]) {
    const o = obj(l);
    if (o && o.rel === 'payer-action' && typeof o.href === 'string' && /^https?:\/\//.test(o.href)) return o.href;
  }
  return null;
}

/**
 * The payer-action link the cardholder follows for 3-D Secure, with `redirect_uri`: where PayPal returns
 * the cardholder once authenticated ("Append redirect_uri to the payer-action URL", 3D Secure: Orders API).
 */
export function withRedirect(link: string, back: string): string {
  const u = new URL(link);
  u.searchParams.set('redirect_uri', back);
  return u.toString();
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

/**
 * Webhook event types the connector reads, the kinds of operation they are about, and what they say
 * (PayPal "Webhook event names", Payments v2): a capture completed, declined, denied (after it was
 * PENDING) or still pending; a refund; an authorization created or voided; an order the buyer approved.
 */
export const EVENT_KINDS: Record<string, { kinds: PaypalKind[]; says: 'APPROVED' | 'DECLINED' | 'PENDING' | 'BY_STATUS' }> = {
  'PAYMENT.CAPTURE.COMPLETED': { kinds: ['payment', 'capture', 'apm'], says: 'APPROVED' },
  'PAYMENT.CAPTURE.DECLINED': { kinds: ['payment', 'capture', 'apm'], says: 'DECLINED' },
  'PAYMENT.CAPTURE.DENIED': { kinds: ['payment', 'capture', 'apm'], says: 'DECLINED' },
  'PAYMENT.CAPTURE.PENDING': { kinds: ['payment', 'capture', 'apm'], says: 'PENDING' },
  'PAYMENT.AUTHORIZATION.CREATED': { kinds: ['preauth'], says: 'BY_STATUS' },
  'PAYMENT.AUTHORIZATION.VOIDED': { kinds: ['void'], says: 'APPROVED' },
  'PAYMENT.CAPTURE.REFUNDED': { kinds: ['refund'], says: 'BY_STATUS' },
  'CHECKOUT.ORDER.APPROVED': { kinds: ['apm'], says: 'APPROVED' },
};

export interface WebhookFacts {
  eventId: string;
  type: string;
  /** The capture, authorization or refund id (the order id for CHECKOUT.ORDER.*). */
  resourceId: string;
  orderId: string | null;
  customId: string | null;
  invoiceId: string | null;
  status: string | null;
  reason: string | null;
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
    invoiceId: str(r.invoice_id),
    status: str(r.status),
    reason: str(obj(r.status_details)?.reason),
    amount: amount ? { value: amount.value, currency: amount.currency_code } : null,
    responseCode: str(obj(r.processor_response)?.response_code),
  };
}

/**
 * What a verified webhook says about one operation: its final result, PENDING (PayPal has not decided it),
 * or null (nothing it settles: another kind, amount or currency).
 */
export function resultOfWebhook(f: WebhookFacts, op: { kind: PaypalKind; amount: number; currency: string; paymentId: string }): SettledResult | { outcome: 'PENDING'; details: string } | null {
  const e = EVENT_KINDS[f.type];
  if (!e || !e.kinds.includes(op.kind)) return null;
  if (op.kind !== 'void' && op.kind !== 'verify' && f.amount && (f.amount.currency !== op.currency || fromValue(f.amount.value, op.currency) !== op.amount)) return null;
  let says = e.says;
  if (says === 'BY_STATUS') {
    if (f.status === 'PENDING') says = 'PENDING';
    else if (f.status === 'DECLINED' || f.status === 'FAILED' || f.status === 'CANCELLED' || f.status === 'DENIED') says = 'DECLINED';
    else says = 'APPROVED';
  }
  if (says === 'PENDING') return { outcome: 'PENDING', details: `PayPal has not decided it yet (${f.type}${f.reason ? `: ${f.reason}` : ''})` };
  if (says === 'APPROVED') return { outcome: 'APPROVED', authorization: f.resourceId, processorId: op.paymentId, amount: op.amount };
  const r = refusalOf(f.responseCode ?? 'DECLINED');
  const details = f.type === 'PAYMENT.CAPTURE.DENIED' ? `PayPal denied the capture${f.reason ? ` (${f.reason})` : ''}` : f.reason ? `${r.details} (${f.reason})` : r.details;
  return { outcome: 'DECLINED', error: r.error, details, processorId: op.paymentId };
}

export * from './mapping-disputes.js';
