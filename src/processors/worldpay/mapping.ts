/**
 * Worldpay mapping (pure): our operations to Worldpay Access's JSON (Payments API, version 2024-06-01;
 * Payment Queries API v1; Events v1), its answers and events back to our results. No IO, no clock. The
 * schemas of every body are in spec.ts, with their sources.
 *
 * Facts used:
 *  - Every request: HTTP Basic authentication (the Access username and password), `WP-Api-Version:
 *    2024-06-01` on the Payments API, `Accept: application/vnd.worldpay.payment-queries-v1.hal+json` on
 *    the Payment Queries API.
 *  - `POST /api/payments` {transactionReference, merchant: {entity}, channel: ecom|moto, instruction:
 *    {method: card, paymentInstrument: {type: plain, cardNumber, cardHolderName, expiryDate, cvc},
 *    narrative: {line1}, value: {currency, amount}, settlement: {auto}, customerAgreement, threeDS,
 *    customer: {ipAddress}}} → 201 {outcome, transactionReference, issuer: {authorizationCode},
 *    schemeReference, refusalCode, refusalDescription, _links, _actions}. `outcome`: authorized,
 *    sentForSettlement (auto settlement), sentForCancellation (auto settlement cancels a payment whose CVC
 *    or address was not matched), refused, fraudHighRisk, 3dsDeviceDataRequired, 3dsChallenged,
 *    3dsAuthenticationFailed, 3dsUnavailable. Amount 0 with a new customerAgreement verifies the card.
 *  - `GET` on the payment's own link (`_links.self.href`, "Payment query request") → {lastEvent,
 *    _actions}: the actions it allows now.
 *  - What may be done next is in the answer's `_actions` (settlePayment, partiallySettlePayment,
 *    cancelPayment, refundPayment, partiallyRefundPayment, supply3dsDeviceData, complete3dsChallenge),
 *    each an `href` to POST: the connector follows them, it never builds those URLs. A full settle, full
 *    refund or cancel has no body; a partial settle or refund is {reference, value} → 202 {outcome:
 *    sentForSettlement | sentForCancellation | sentForRefund | sentForPartialRefund, _actions}.
 *  - Stored credentials (`customerAgreement`): a card being stored is `cardOnFile` `first`, a stored card
 *    the customer uses again `cardOnFile` `subsequent`; merchant-initiated payments are `subscription`
 *    (recurring: a subscription's charges) or `installment` (merchant) with `storedCardUsage:
 *    subsequent`, or `unscheduled` (batch charges), each quoting the `schemeReference` of the card's
 *    first payment.
 *  - Payment Queries: `GET /paymentQueries/payments?transactionReference=` → {_embedded: {payments:
 *    [{paymentId, transactionReference, lastEvent, value, issuer, scheme, _links: {self}}]}} (`self`: its
 *    retrieval by payment id); `GET /paymentQueries/payments/{paymentId}` adds `events`
 *    (authorizationRefused with its `code` and `description`, refundRequested with `refundReference`,
 *    ...) and in `_links` the payment's next action links, `payments:events` its own link (the payment's
 *    query, answering the actions it allows now).
 *  - Events (webhooks): {eventId, eventTimestamp, eventDetails: {classification, transactionReference,
 *    type, date, amount: {value, currencyCode}}}, signed in `Event-Signature: {keyId}/SHA256/{hex
 *    HMAC-SHA256 of the raw body under the shared secret}` (several comma separated).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { BrowserInfo, PaymentRequest, ProcessorResult, SettledResult } from '../connector.js';
import { AUTHENTICATION_REQUIRED, refusalOf } from './codes.js';

export type WorldpayKind = 'payment' | 'preauth' | 'verify' | 'capture' | 'void' | 'refund';

export const API_VERSION = '2024-06-01';
export const QUERIES_MEDIA_TYPE = 'application/vnd.worldpay.payment-queries-v1.hal+json';

/** The action names of Worldpay's `_actions` we follow. */
export const ACTIONS = ['settlePayment', 'partiallySettlePayment', 'cancelPayment', 'refundPayment', 'partiallyRefundPayment', 'supply3dsDeviceData', 'complete3dsChallenge'] as const;
export type ActionName = (typeof ACTIONS)[number];
export type Actions = Partial<Record<ActionName, string>>;

/** The headers of a Payments API request (`queries`: of a Payment Queries request). */
export function headersOf(t: { username: string; password: string }, api: 'payments' | 'queries', body: boolean): Record<string, string> {
  const h: Record<string, string> = { authorization: `Basic ${Buffer.from(`${t.username}:${t.password}`, 'utf8').toString('base64')}` };
  if (api === 'payments') {
    h['wp-api-version'] = API_VERSION;
    h.accept = 'application/json';
    if (body) h['content-type'] = 'application/json';
  } else h.accept = QUERIES_MEDIA_TYPE;
  return h;
}

const str = (v: unknown, max = 300): string | null => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : null);
const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** The customer agreement of a payment (stored credentials), or none. */
export function agreementOf(req: Pick<PaymentRequest, 'channel' | 'mit' | 'storeCredential' | 'storedCard'>, kind: 'payment' | 'preauth' | 'verify', schemeReference: string | null): Record<string, unknown> | null {
  if (req.channel === 'MIT') {
    const ref = schemeReference ? { schemeReference } : {};
    if (req.mit === 'RECURRING') return { type: 'subscription', storedCardUsage: 'subsequent', ...ref };
    if (req.mit === 'INSTALMENT') return { type: 'installment', installmentType: 'merchant', storedCardUsage: 'subsequent', ...ref };
    return { type: 'unscheduled', ...ref };
  }
  // a card verification is made as part of a new agreement
  if (req.storeCredential === true || kind === 'verify') return { type: 'cardOnFile', storedCardUsage: 'first' };
  if (req.storedCard === true) return { type: 'cardOnFile', storedCardUsage: 'subsequent' };
  return null;
}

/** Worldpay's `browserColorDepth` values. */
const COLOR_DEPTHS = ['1', '4', '8', '15', '16', '24', '32', '48'];

/** 3-D Secure through Worldpay (`threeDS`, integrated): where the cardholder comes back, the browser's data. */
export function threedsOf(returnUrl: string, b: BrowserInfo): Record<string, unknown> {
  const depth = COLOR_DEPTHS.includes(String(b.colorDepth)) ? String(b.colorDepth) : '24';
  return {
    type: 'integrated', mode: 'always',
    challenge: { returnUrl, windowSize: '390x400' },
    deviceData: {
      acceptHeader: b.acceptHeader, userAgentHeader: b.userAgent, browserLanguage: b.language, browserJavaEnabled: b.javaEnabled,
      browserColorDepth: depth, browserScreenHeight: b.screenHeight, browserScreenWidth: b.screenWidth, timeZone: String(b.tz),
      browserJavascriptEnabled: b.javascriptEnabled, channel: 'browser',
    },
  };
}

/**
 * The body of `POST /api/payments`. A payment is settled at once (`settlement.auto`), a
 * pre-authorization is not (settled or cancelled later through its actions); a verification is amount
 * 0 with a new card-on-file agreement. MoTo is `channel: moto` (no authentication); a merchant-initiated
 * payment carries no CVC and its agreement quotes the scheme reference of the card's first payment.
 */
export function paymentBody(
  req: Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'card' | 'channel' | 'dynamicDescriptor' | 'storeCredential' | 'storedCard' | 'mit' | 'customerIp'>,
  opts: { kind: 'payment' | 'preauth' | 'verify'; entity: string; schemeReference: string | null; threeDS?: Record<string, unknown> | null },
): Record<string, unknown> {
  const card = req.card;
  const instrument: Record<string, unknown> = {
    type: 'plain',
    cardNumber: card.pan.reveal().replace(/\s+/g, ''),
    ...(card.holder ? { cardHolderName: card.holder.slice(0, 255) } : {}),
    expiryDate: { month: card.expiryMonth, year: card.expiryYear },
    ...(card.cvv && req.channel !== 'MIT' ? { cvc: card.cvv.reveal() } : {}),
  };
  const instruction: Record<string, unknown> = {
    method: 'card',
    paymentInstrument: instrument,
    narrative: { line1: (req.dynamicDescriptor || 'Online payment').slice(0, 24) },
    value: { currency: req.currency, amount: opts.kind === 'verify' ? 0 : req.amount },
  };
  if (opts.kind === 'payment') instruction.settlement = { auto: true };
  const agreement = agreementOf(req, opts.kind, opts.schemeReference);
  if (agreement) instruction.customerAgreement = agreement;
  if (opts.threeDS && req.channel === 'ECOMMERCE') instruction.threeDS = opts.threeDS;
  if (req.customerIp && req.channel !== 'MIT') instruction.customer = { ipAddress: req.customerIp };
  return { transactionReference: req.reference, merchant: { entity: opts.entity }, channel: req.channel === 'MOTO' ? 'moto' : 'ecom', instruction };
}

/** The hrefs of an answer's `_actions`. */
export function actionsOf(p: Record<string, unknown>): Actions {
  const a = obj(p._actions);
  const out: Actions = {};
  if (!a) return out;
  for (const name of ACTIONS) {
    const href = str(obj(a[name])?.href, 2000);
    if (href) out[name] = href;
  }
  return out;
}

/** The payment's own link (`_links.self.href`: the Payments API's query of the payment); null when none. */
export function selfOf(p: Record<string, unknown>): string | null {
  return str(obj(obj(p._links)?.self)?.href, 2000);
}

/** The payment's id in Worldpay's links (the last segment of `_links.self.href`); null when none. */
export function linkDataOf(p: Record<string, unknown>): string | null {
  return linkDataOfHref(selfOf(p));
}

/**
 * The path of an action's href under the base URL, or null when it points anywhere else: the
 * credentials go only to the configured host.
 */
export function pathOf(href: string, baseUrl: string): string | null {
  let u: URL;
  let b: URL;
  try {
    u = new URL(href);
    b = new URL(baseUrl);
  } catch {
    return null;
  }
  if (u.origin !== b.origin) return null;
  const base = b.pathname.replace(/\/+$/, '');
  if (!u.pathname.startsWith(`${base}/`)) return null;
  return u.pathname.slice(base.length) + u.search;
}

export interface Expected {
  reference: string;
  amount: number;
}

export type PaymentRead =
  | { kind: 'result'; result: ProcessorResult; actions: Actions; linkData: string | null; self: string | null; schemeReference: string | null }
  | { kind: 'deviceData'; actions: Actions }
  | { kind: 'challenge'; url: string; jwt: string; actions: Actions };

/**
 * An answer of the Payments API about a payment (201 to `POST /api/payments`, to supply3dsDeviceData or
 * to complete3dsChallenge) as our result. Answers are not signed (TLS only): one is believed only when it
 * names our transaction reference and an outcome of the reference; anything else is UNKNOWN (the
 * reconciler asks Worldpay again).
 */
export function readPayment(p: Record<string, unknown>, x: Expected, kind: 'payment' | 'preauth' | 'verify'): PaymentRead {
  const actions = actionsOf(p);
  const linkData = linkDataOf(p);
  const self = selfOf(p);
  const result = (r: ProcessorResult, schemeReference: string | null = null): PaymentRead => ({ kind: 'result', result: r, actions, linkData, self, schemeReference });
  if (p.transactionReference !== x.reference) return result({ outcome: 'UNKNOWN', details: 'The Worldpay answer does not name the payment sent (transactionReference)' });
  const outcome = str(p.outcome);
  const processorId = linkData ?? x.reference;
  switch (outcome) {
    case 'authorized':
    case 'sentForSettlement': {
      // a payment is settled at once: an authorization not sent for settlement is not what was asked
      if (kind === 'payment' && outcome === 'authorized') return result({ outcome: 'UNKNOWN', details: 'Worldpay authorized the payment without sending it for settlement' });
      if (kind !== 'payment' && outcome === 'sentForSettlement') return result({ outcome: 'UNKNOWN', details: 'Worldpay sent a pre-authorization for settlement' });
      const schemeReference = str(p.schemeReference, 100);
      const authorization = str(obj(p.issuer)?.authorizationCode, 40) ?? processorId.slice(0, 40);
      return result({ outcome: 'APPROVED', authorization, processorId, amount: kind === 'verify' ? 0 : x.amount, cofTxnid: schemeReference }, schemeReference);
    }
    case 'refused': {
      const code = str(p.refusalCode, 10);
      const words = str(p.refusalDescription, 200);
      const r = refusalOf(code, words);
      if (code && AUTHENTICATION_REQUIRED.has(code)) return result({ outcome: 'CHALLENGE', details: r.details });
      return result({ outcome: 'DECLINED', error: r.error, details: r.details, processorId });
    }
    case 'sentForCancellation': {
      // auto settlement cancels a payment whose CVC or address the issuer did not match
      if (kind !== 'payment') return result({ outcome: 'UNKNOWN', details: 'Worldpay cancelled a payment that was not to be settled at once' });
      const risks = Array.isArray(p.riskFactors) ? p.riskFactors.map((f) => str(obj(f)?.type, 20)).filter((t): t is string => !!t && t !== 'riskProfile') : [];
      return result({ outcome: 'DECLINED', error: 'DENIED', details: `Worldpay cancelled the payment automatically${risks.length > 0 ? ` (${[...new Set(risks)].join(', ')} not matched)` : ''}`, processorId });
    }
    case 'fraudHighRisk':
      return result({ outcome: 'DECLINED', error: 'FRAUD_SUSPECTED', details: 'Worldpay stopped the payment: FraudSight assessed it high risk', processorId });
    case '3dsAuthenticationFailed':
      return result({ outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: 'Worldpay: 3-D Secure authentication failed', processorId });
    case '3dsUnavailable':
      return result({ outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: 'Worldpay: 3-D Secure authentication was unavailable', processorId });
    case '3dsDeviceDataRequired':
      return actions.supply3dsDeviceData ? { kind: 'deviceData', actions } : result({ outcome: 'UNKNOWN', details: 'Worldpay asks for 3-D Secure device data without the action to supply it' });
    case '3dsChallenged': {
      // the challenge page takes the challenge's JWT (posted as `JWT`), then posts to our returnUrl
      const c = obj(p.challenge);
      const url = str(c?.url, 2000);
      const jwt = str(c?.jwt, 8000);
      if (!url || !/^https?:\/\//.test(url) || !jwt || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(jwt) || !actions.complete3dsChallenge) {
        return result({ outcome: 'UNKNOWN', details: 'Worldpay asks for a 3-D Secure challenge without its page, JWT or completion action' });
      }
      return { kind: 'challenge', url, jwt, actions };
    }
    default:
      return result({ outcome: 'UNKNOWN', details: `Worldpay answered outcome ${outcome?.slice(0, 40) ?? 'none'} to a payment` });
  }
}

/** The outcome a settle, cancel or refund answers when Worldpay took it. */
export const ACTION_OUTCOMES: Record<'capture' | 'void' | 'refund', readonly string[]> = {
  capture: ['sentForSettlement'],
  void: ['sentForCancellation'],
  refund: ['sentForRefund', 'sentForPartialRefund'],
};

/**
 * Which action a capture, void or refund follows among the payment's last actions: the whole amount
 * settles or refunds it fully (when that action is offered and nothing was refunded before), anything
 * else partially; a void cancels it. null: Worldpay offers no such action for the payment now.
 */
export function chooseAction(kind: 'capture' | 'void' | 'refund', actions: Actions, amount: number, original: { amount: number; refundedBefore: boolean }): { name: ActionName; href: string; partial: boolean } | null {
  const pick = (name: ActionName, partial: boolean) => (actions[name] ? { name, href: actions[name]!, partial } : null);
  if (kind === 'void') return pick('cancelPayment', false);
  if (kind === 'capture') return (amount === original.amount ? pick('settlePayment', false) : null) ?? pick('partiallySettlePayment', true);
  return (amount === original.amount && !original.refundedBefore ? pick('refundPayment', false) : null) ?? pick('partiallyRefundPayment', true);
}

/** The body of a partial settle or refund (our reference and the amount); full ones have none. */
export function actionBody(partial: boolean, reference: string, amount: number, currency: string): Record<string, unknown> | undefined {
  return partial ? { reference, value: { amount, currency } } : undefined;
}

/** The 202 answer of a settle, cancel or refund: taken (its outcome), with the payment's next actions. */
export function readAction(p: Record<string, unknown>, kind: 'capture' | 'void' | 'refund'): { taken: true; actions: Actions } | { taken: false; details: string } {
  const outcome = str(p.outcome);
  if (outcome && ACTION_OUTCOMES[kind].includes(outcome)) return { taken: true, actions: actionsOf(p) };
  return { taken: false, details: `Worldpay answered outcome ${outcome?.slice(0, 40) ?? 'none'} to the ${kind}` };
}

// ---- Payment Queries ---------------------------------------------------------------------------------

export interface QueriedPayment {
  paymentId: string;
  lastEvent: string;
  amount: number | null;
  currency: string | null;
  authorizationCode: string | null;
  schemeReference: string | null;
}

/**
 * A payment's own link in the Payments API, as its retrieval by payment id gives it among its next action
 * links (`_links["payments:events"].href`: the payment's query, answering the actions it allows now);
 * null when none.
 */
export function queriedLinkOf(p: Record<string, unknown>): string | null {
  return str(obj(obj(p._links)?.['payments:events'])?.href, 2000);
}

/** The payment's id in Worldpay's links (the last segment of its `/api/payments/{linkData}` link); null when none. */
export function linkDataOfHref(href: string | null): string | null {
  const m = href ? /\/api\/payments\/([A-Za-z0-9._~%+=-]{8,1500})$/.exec(href.split('?')[0]) : null;
  return m ? m[1] : null;
}

/** The payments of a query by transaction reference (only those naming it). */
export function queriedPayments(body: Record<string, unknown>, reference: string): QueriedPayment[] {
  const list = obj(body._embedded)?.payments;
  if (!Array.isArray(list)) return [];
  const out: QueriedPayment[] = [];
  for (const raw of list) {
    const p = obj(raw);
    if (!p || p.transactionReference !== reference) continue;
    const paymentId = str(p.paymentId, 100);
    const lastEvent = str(p.lastEvent, 60);
    if (!paymentId || !lastEvent) continue;
    const value = obj(p.value);
    out.push({
      paymentId, lastEvent,
      amount: typeof value?.amount === 'number' ? value.amount : null, currency: str(value?.currency, 3),
      authorizationCode: str(obj(p.issuer)?.authorizationCode, 40), schemeReference: str(obj(p.scheme)?.reference, 100),
    });
  }
  return out;
}

const APPROVED_EVENTS = new Set(['authorizationSucceeded', 'saleSucceeded', 'settlementRequested', 'settlementRequestSubmitted', 'settlementFailed', 'settlementTimedOut', 'refundRequested', 'refundRequestSubmitted', 'refundFailed', 'refundTimedOut', 'cancellationRequested', 'cancellationRequestSubmitted', 'cancellationFailed', 'cancellationTimedOut', 'reversalRequested', 'reversalRequestSubmitted', 'reversalFailed', 'reversalTimedOut']);
const REFUSED_EVENTS = new Set(['authorizationRefused', 'saleRefused']);
const FAILED_EVENTS = new Set(['authorizationFailed', 'saleFailed']);

/**
 * A payment found by the Payment Queries API as our result: `refused` when its reason is to be read from
 * its events (`refusalInEvents`). Believed only with our amount and currency.
 */
export function resultOfQueried(q: QueriedPayment, x: Expected & { currency: string }, kind: 'payment' | 'preauth' | 'verify'): { state: 'result'; result: ProcessorResult } | { state: 'refused' } {
  const amount = kind === 'verify' ? 0 : x.amount;
  if ((q.amount !== null && q.amount !== amount) || (q.currency !== null && q.currency !== x.currency)) {
    return { state: 'result', result: { outcome: 'UNKNOWN', details: 'The payment Worldpay found does not have the amount or currency sent' } };
  }
  // a payment to be settled at once that was cancelled: auto settlement cancelled it (CVC or address not matched)
  if (kind === 'payment' && q.lastEvent.startsWith('cancellation')) return { state: 'result', result: { outcome: 'DECLINED', error: 'DENIED', details: 'Worldpay cancelled the payment automatically', processorId: q.paymentId } };
  if (APPROVED_EVENTS.has(q.lastEvent)) return { state: 'result', result: { outcome: 'APPROVED', authorization: q.authorizationCode ?? q.paymentId.slice(0, 40), processorId: q.paymentId, amount, cofTxnid: q.schemeReference } };
  if (REFUSED_EVENTS.has(q.lastEvent)) return { state: 'refused' };
  if (FAILED_EVENTS.has(q.lastEvent)) return { state: 'result', result: { outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: `Worldpay could not process the payment (${q.lastEvent})`, processorId: q.paymentId } };
  return { state: 'result', result: { outcome: 'UNKNOWN', details: `Worldpay has the payment at ${q.lastEvent}` } };
}

/** The refusal among a queried payment's events (`GET /paymentQueries/payments/{paymentId}`). */
export function refusalInEvents(body: Record<string, unknown>, paymentId: string): SettledResult {
  const events = Array.isArray(body.events) ? body.events : [];
  for (const raw of events) {
    const e = obj(raw);
    if (!e || !REFUSED_EVENTS.has(String(e.eventName))) continue;
    const code = str(e.code, 10);
    const r = refusalOf(code, str(e.description, 200));
    return { outcome: 'DECLINED', error: r.error, details: r.details, processorId: paymentId };
  }
  return { outcome: 'DECLINED', error: 'DENIED', details: 'Worldpay refused the payment (no reason among its events)', processorId: paymentId };
}

const FOLLOW_UP_EVENTS: Record<'capture' | 'void' | 'refund', { taken: string[]; failed: string[]; reference: string }> = {
  capture: { taken: ['settlementRequested', 'settlementRequestSubmitted'], failed: ['settlementFailed'], reference: 'settlementReference' },
  void: { taken: ['cancellationRequested', 'cancellationRequestSubmitted'], failed: ['cancellationFailed'], reference: 'cancellationReference' },
  refund: { taken: ['refundRequested', 'refundRequestSubmitted'], failed: ['refundFailed'], reference: 'refundReference' },
};

/**
 * A capture, void or refund among a queried payment's events: by our reference where the event names
 * one, else by its amount. `taken`: Worldpay has it (a refund: submitted for processing,
 * `refundRequestSubmitted`); `failed`: Worldpay could not carry it out; `requested`: a refund Worldpay
 * took (`refundRequested`) and has not submitted or failed yet; `absent`: not among the events.
 * A refund's later events (`refundRequestSubmitted`, `refundFailed`) name no reference or amount in the
 * Payment Queries reference: they are the refund's when they follow its `refundRequested`, before the
 * next refund's.
 */
export function followUpInEvents(body: Record<string, unknown>, op: { kind: 'capture' | 'void' | 'refund'; reference: string; amount: number }): 'taken' | 'failed' | 'requested' | 'absent' {
  const f = FOLLOW_UP_EVENTS[op.kind];
  const events = (Array.isArray(body.events) ? body.events : []).map(obj).filter((e): e is Record<string, unknown> => !!e);
  const named = (e: Record<string, unknown>) => str(e[f.reference], 128);
  const ours = (e: Record<string, unknown>) => {
    const ref = named(e);
    if (ref) return ref === op.reference;
    const v = obj(e.value);
    return op.kind === 'void' || (typeof v?.amount === 'number' && v.amount === op.amount);
  };
  if (events.some((e) => f.failed.includes(String(e.eventName)) && named(e) === op.reference)) return 'failed';
  if (op.kind !== 'refund') {
    if (events.some((e) => f.failed.includes(String(e.eventName)) && ours(e))) return 'failed';
    if (events.some((e) => f.taken.includes(String(e.eventName)) && ours(e))) return 'taken';
    return 'absent';
  }
  // by our reference first; a full refund (no body) is named by nothing but its amount
  const requested = (e: Record<string, unknown>) => String(e.eventName) === 'refundRequested';
  let at = events.findIndex((e) => requested(e) && named(e) === op.reference);
  if (at < 0) at = events.findIndex((e) => requested(e) && !named(e) && ours(e));
  if (at < 0) return 'absent';
  for (const e of events.slice(at + 1)) {
    const name = String(e.eventName);
    if (requested(e)) break;
    if (name === 'refundFailed') return 'failed';
    if (name === 'refundRequestSubmitted') return 'taken';
  }
  return 'requested';
}

// ---- events (webhooks) ---------------------------------------------------------------------------------

/** The hex HMAC-SHA256 of a raw body under the shared secret (the signature of `Event-Signature`). */
export function eventSignature(rawBody: string, key: string): string {
  return createHmac('sha256', key).update(rawBody, 'utf8').digest('hex');
}

/**
 * Whether an `Event-Signature` header signs the body: one of its `{keyId}/SHA256/{hex}` entries (comma
 * separated, in any order: a renewed secret gets a new keyId) is the body's HMAC under the secret,
 * compared in constant time.
 */
export function verifyEvent(rawBody: string, header: string | undefined, key: string): boolean {
  if (!header || header.length > 2000) return false;
  const expected = Buffer.from(eventSignature(rawBody, key), 'hex');
  let ok = false;
  for (const entry of header.split(',')) {
    const m = /^\s*(\d{1,10})\/SHA256\/([0-9a-fA-F]{64})\s*$/.exec(entry);
    if (!m) continue;
    const got = Buffer.from(m[2].toLowerCase(), 'hex');
    if (got.length === expected.length && timingSafeEqual(got, expected)) ok = true;
  }
  return ok;
}

export interface EventFacts {
  eventId: string;
  type: string;
  reference: string;
  amount: number | null;
  currency: string | null;
  /** A partial refund's reference (ours), where the event names one (`eventDetails.reference`). */
  refundReference: string | null;
  /** Why a refund failed, where the event says (`refund.refusal`). */
  refusal: { code: string | null; description: string | null } | null;
}

export function eventFacts(body: Record<string, unknown>): EventFacts | null {
  const d = obj(body.eventDetails);
  const eventId = str(body.eventId, 100);
  const type = str(d?.type, 60);
  const reference = str(d?.transactionReference, 128);
  if (!eventId || !type || !reference) return null;
  const amount = obj(d!.amount);
  const refusal = obj(obj(d!.refund)?.refusal);
  return {
    eventId, type, reference, amount: typeof amount?.value === 'number' ? amount.value : null, currency: str(amount?.currencyCode, 3),
    refundReference: str(d!.reference, 128), refusal: refusal ? { code: str(refusal.code, 10), description: str(refusal.description, 200) } : null,
  };
}

/** The events that decide a refund Worldpay took (`sentForRefund`): [EV] `refunded`, `refundFailed`. */
export const REFUND_DECISIONS = ['refunded', 'refundFailed'] as const;

/**
 * What a verified `refunded` or `refundFailed` event says about a refund of ours that Worldpay took
 * (`sentForRefund`): `refunded` (the issuer received it) approves it, `refundFailed` (it could not be
 * processed; the money went back to the merchant's account) declines it with the refusal the event gives.
 * Believed only with the refund's amount and currency; null: it settles nothing.
 */
export function resultOfRefundEvent(f: EventFacts, op: { amount: number; currency: string; processorId: string }): SettledResult | null {
  if ((f.amount !== null && f.amount !== op.amount) || (f.currency !== null && f.currency !== op.currency)) return null;
  if (f.type === 'refunded') return { outcome: 'APPROVED', authorization: op.processorId.slice(0, 40), processorId: op.processorId, amount: op.amount };
  if (f.type === 'refundFailed') {
    const code = f.refusal?.code ?? null;
    const why = f.refusal?.description ?? (code ? refusalOf(code).details.replace(/^.*: /, '') : null);
    return { outcome: 'DECLINED', error: code ? refusalOf(code).error : 'PROCESSOR_ERROR', details: `Worldpay could not carry out the refund (refundFailed${code ? `, ${code}` : ''})${why ? `: ${why}` : ''}`, processorId: op.processorId };
  }
  return null;
}

/**
 * What a verified event says about a payment of ours: `authorized` approves it (a payment settled at
 * once is authorized first), `refused` declines it (the event carries no code). Events about its
 * settlement or cancellation (sentForSettlement, settled, settlementFailed...) settle nothing: captures
 * and voids are decided by their answers; a refund's `refunded` and `refundFailed` are read by
 * `resultOfRefundEvent`. null: it settles nothing.
 */
export function resultOfEvent(f: EventFacts, op: { kind: WorldpayKind; amount: number; currency: string; processorId: string }): SettledResult | null {
  if (op.kind !== 'payment' && op.kind !== 'preauth' && op.kind !== 'verify') return null;
  const amount = op.kind === 'verify' ? 0 : op.amount;
  if ((f.amount !== null && f.amount !== amount) || (f.currency !== null && f.currency !== op.currency)) return null;
  if (f.type === 'authorized') return { outcome: 'APPROVED', authorization: op.processorId.slice(0, 40), processorId: op.processorId, amount };
  if (f.type === 'refused') return { outcome: 'DECLINED', error: 'DENIED', details: 'Worldpay refused the payment (event refused)', processorId: op.processorId };
  return null;
}
