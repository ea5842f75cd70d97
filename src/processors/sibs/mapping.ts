/**
 * SIBS Gateway (SPG REST API v2) mapping (pure): our operations to its JSON, its answers and
 * notifications back to our results. No IO, no clock (the caller passes the timestamps). The schemas
 * of every body are in spec.ts, with their sources.
 *
 * SPG facts used:
 *  - Every payment starts with a checkout: `POST /api/v2/payments` (headers `Authorization: Bearer
 *    <token>`, `X-IBM-Client-Id`) {merchant: {terminalId, channel, merchantTransactionId}, transaction:
 *    {transactionTimestamp, description, moto, paymentType (PURS a purchase, AUTH an authorisation),
 *    paymentMethod [CARD|MBWAY|REFERENCE], amount: {value (a decimal amount), currency},
 *    paymentReference?}, tokenisation?} → {returnStatus, transactionID, transactionSignature,
 *    formContext, expiry, ...}.
 *  - The payment is then made on that transaction with its signature (`Authorization: Digest
 *    <transactionSignature>`): `POST /api/v2/payments/{id}/card/purchase` {cardInfo: {PAN, secureCode,
 *    validationDate, cardholderName, createToken}}, `POST /api/v2/payments/{id}/mbway-id/purchase`
 *    {customerPhone: "351#912345678"}, or `POST /api/v2/payments/{id}/service-reference/generate`
 *    (a Multibanco reference). They answer {returnStatus, paymentStatus, paymentMethod, transactionID, ...}.
 *  - `paymentStatus` Success, Declined, Pending (MB WAY waits for the customer's phone), Expired; of a
 *    card purchase also Partial (an action in the customer's browser first: `actionResponse` {id, type
 *    THREEDS_METHOD | THREEDS_CHALLENGE | DCC, data {url, params}}), In processing, Timeout, Error.
 *  - Status: `GET /api/v2/payments/{id}/status`, or by our reference `GET /api/v2/payments/status?
 *    merchantTransactionId=` → {returnStatus, paymentStatus, paymentMethod, transactionID, amount,
 *    merchant, paymentType, ...}.
 *  - Follow-ups on a transaction (Bearer): `POST /api/v2/payments/{id}/cancellation` {merchant,
 *    transaction: {transactionTimestamp, description, amount}, originalTransaction: {id, datetime}};
 *    capture and refund the same shape at `/capture` and `/refund`. Their answer's `paymentStatus` may be
 *    Pending (decided later): a PENDING result, settled by the notification or the status query.
 *  - Notifications: the body is the base64 of an AES-256-GCM ciphertext under the merchant's secret key
 *    (base64), IV and tag base64 in `X-Initialization-Vector` and `X-Authentication-Tag`; the clear text
 *    is the status JSON with `notificationID`; acknowledged with {statusCode: "200", statusMsg: "Success",
 *    notificationID}.
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { CardData, PaymentRequest, ProcessorResult, SettledResult } from '../connector.js';
import { codeFamily, refusalOf, statusOf, SUCCESS_CODE, type Refusal } from './codes.js';
import type { SibsTerminal } from './credentials.js';

export type SibsKind = 'payment' | 'preauth' | 'verify' | 'capture' | 'void' | 'refund' | 'mbway' | 'multibanco';

/** SPG's channel of an online payment. */
export const CHANNEL = 'web';

/** What an answer must match to be about our operation: our reference (merchantTransactionId), amount in minor units, currency. */
export interface Expected {
  reference: string;
  amount: number;
  currency: string;
}

/** Minor units as SPG's amount (a decimal number of the currency's units; SPG takes EUR, 2 decimals). */
export function amountOf(minor: number, currency: string): { value: number; currency: string } {
  return { value: Math.round(minor) / 100, currency };
}

/** SPG's decimal amount back in minor units (null when it is not an amount). */
export function minorOf(v: unknown): number | null {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return null;
  const m = Math.round(v * 100);
  return Math.abs(m - v * 100) < 1e-6 ? m : null;
}

/** The headers of a request: Bearer for checkouts, status and follow-ups; the transaction's signature (Digest) for a purchase on it. */
export function headersOf(t: Pick<SibsTerminal, 'clientId' | 'bearerToken'>, transactionSignature: string | null = null): Record<string, string> {
  return {
    authorization: transactionSignature ? `Digest ${transactionSignature}` : `Bearer ${t.bearerToken}`,
    'x-ibm-client-id': t.clientId,
    'content-type': 'application/json',
    accept: 'application/json',
  };
}

/** Paths below the API's base (`.../api/v2`). */
export const PATHS = {
  checkout: () => '/payments',
  card: (id: string) => `/payments/${encodeURIComponent(id)}/card/purchase`,
  mbway: (id: string) => `/payments/${encodeURIComponent(id)}/mbway-id/purchase`,
  reference: (id: string) => `/payments/${encodeURIComponent(id)}/service-reference/generate`,
  status: (id: string) => `/payments/${encodeURIComponent(id)}/status`,
  statusByReference: (reference: string) => `/payments/status?merchantTransactionId=${encodeURIComponent(merchantTransactionIdOf(reference))}`,
  capture: (id: string) => `/payments/${encodeURIComponent(id)}/capture`,
  void: (id: string) => `/payments/${encodeURIComponent(id)}/cancellation`,
  refund: (id: string) => `/payments/${encodeURIComponent(id)}/refund`,
} as const;

/** Our reference as `merchantTransactionId` (SPG takes at most 32 characters: a UUID without its dashes). */
export function merchantTransactionIdOf(reference: string): string {
  const compact = reference.replace(/-/g, '');
  return compact.length <= 32 ? compact : compact.slice(0, 32);
}

/**
 * The checkout (`POST /payments`) of a card payment, a card verification or an MB WAY payment. A card
 * payment is a purchase (PURS) when captured at once, an authorisation (AUTH) for pre-authorizations
 * and card verification (zero amount). MoTo: `moto: true`. A card being stored asks SPG for a token
 * (`tokenisation.tokenisationRequest.tokeniseCard`).
 */
export function checkoutBody(
  req: Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'channel' | 'storeCredential'> & { description?: string | null },
  opts: { kind: 'payment' | 'preauth' | 'verify' | 'mbway' | 'multibanco'; terminalId: number; timestamp: string; reference?: { entity: string; until: string } },
): Record<string, unknown> {
  const method = opts.kind === 'mbway' ? 'MBWAY' : opts.kind === 'multibanco' ? 'REFERENCE' : 'CARD';
  const body: Record<string, unknown> = {
    merchant: { terminalId: opts.terminalId, channel: CHANNEL, merchantTransactionId: merchantTransactionIdOf(req.reference) },
    transaction: {
      transactionTimestamp: opts.timestamp,
      description: (req.description ?? `Order ${req.reference}`).slice(0, 50),
      moto: req.channel === 'MOTO',
      paymentType: opts.kind === 'preauth' || opts.kind === 'verify' ? 'AUTH' : 'PURS',
      paymentMethod: [method],
      amount: amountOf(opts.kind === 'verify' ? 0 : req.amount, req.currency),
      // a Multibanco reference for exactly the amount, payable until `until`
      ...(opts.kind === 'multibanco' && opts.reference
        ? { paymentReference: { initialDatetime: opts.timestamp, finalDatetime: opts.reference.until, maxAmount: amountOf(req.amount, req.currency), minAmount: amountOf(req.amount, req.currency), entity: opts.reference.entity } }
        : {}),
    },
  };
  if (method === 'CARD' && req.storeCredential === true) body.tokenisation = { tokenisationRequest: { tokeniseCard: true } };
  return body;
}

/** The card's expiry as SPG's `validationDate` (the last moment of its month, UTC). */
export function validationDateOf(month: number, year: number): string {
  const last = new Date(Date.UTC(year, month, 0, 23, 59, 59));
  return last.toISOString().replace('.000Z', 'Z');
}

/** The body of `card/purchase` (secrets revealed only into it). */
export function cardPurchaseBody(card: CardData, opts: { createToken: boolean }): Record<string, unknown> {
  return {
    cardInfo: {
      PAN: card.pan.reveal().replace(/\s+/g, ''),
      ...(card.cvv ? { secureCode: card.cvv.reveal() } : {}),
      validationDate: validationDateOf(card.expiryMonth, card.expiryYear),
      ...(card.holder ? { cardholderName: card.holder.slice(0, 45) } : {}),
      createToken: opts.createToken,
    },
  };
}

/**
 * An MB WAY phone as SPG's `customerPhone` ("351#912345678"): a Portuguese mobile of 9 digits, with or
 * without its country code; null when it is not one.
 */
export function customerPhoneOf(phone: string): string | null {
  const digits = phone.replace(/[\s().-]/g, '').replace(/^(\+|00)/, '');
  const m = /^(?:351)?(9[0-9]{8})$/.exec(digits);
  return m ? `351#${m[1]}` : null;
}

/** The body of `mbway-id/purchase`. */
export function mbwayPurchaseBody(customerPhone: string): Record<string, unknown> {
  return { customerPhone };
}

/** The body of a capture, cancellation or refund of the transaction `originalId` (made at `originalDatetime`). */
export function followUpBody(
  kind: 'capture' | 'void' | 'refund',
  opts: { terminalId: number; reference: string; timestamp: string; amount: number; currency: string; originalId: string; originalDatetime: string },
): Record<string, unknown> {
  const what = kind === 'capture' ? 'Capture' : kind === 'void' ? 'Cancellation' : 'Refund';
  return {
    merchant: { terminalId: opts.terminalId, channel: CHANNEL, merchantTransactionId: merchantTransactionIdOf(opts.reference) },
    transaction: { transactionTimestamp: opts.timestamp, description: `${what} ${opts.reference}`.slice(0, 50), amount: amountOf(opts.amount, opts.currency) },
    originalTransaction: { id: opts.originalId, datetime: opts.originalDatetime },
  };
}

export { parseObject } from '../kit/http.js';

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 && v.length <= 2000 ? v : null);
const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** `returnStatus` of an answer. */
export function returnStatusOf(p: Record<string, unknown>): { code: string | null; message: string | null; description: string | null } {
  const r = obj(p.returnStatus);
  return { code: str(r?.statusCode), message: str(r?.statusMsg), description: str(r?.statusDescription) };
}

/** A transaction id as SPG writes them (letters and digits). */
const TRANSACTION_ID = /^[A-Za-z0-9]{8,64}$/;

/**
 * The answer to a checkout: the transaction and its signature, or what the refusal means (a checkout
 * SPG did not process is DECLINED with its words: nothing was charged).
 */
export function readCheckout(p: Record<string, unknown>, x: Expected, kind: 'payment' | 'preauth' | 'verify' | 'mbway' | 'multibanco'): { transactionId: string; signature: string } | { result: ProcessorResult } {
  const rs = returnStatusOf(p);
  const id = str(p.transactionID);
  if (rs.code !== SUCCESS_CODE) {
    if (!rs.code) return { result: { outcome: 'UNKNOWN', details: 'SIBS answered the checkout without a status' } };
    const r = refusalOf(rs.code, rs.description ?? rs.message);
    return { result: { outcome: 'DECLINED', error: r.error, details: r.details, processorId: id } };
  }
  const signature = str(p.transactionSignature);
  if (!id || !TRANSACTION_ID.test(id) || !signature) return { result: { outcome: 'UNKNOWN', details: 'SIBS answered the checkout without a transaction or its signature' } };
  const amount = obj(p.amount);
  if (amount && (minorOf(amount.value) !== (kind === 'verify' ? 0 : x.amount) || amount.currency !== x.currency)) {
    return { result: { outcome: 'UNKNOWN', details: 'The SIBS checkout does not match the payment sent (amount or currency)' } };
  }
  return { transactionId: id, signature };
}

/**
 * A payment's answer (a purchase on the transaction, its status, or a notification's clear text) as our
 * result. Believed only when it is about our transaction: its id, and where it names them our reference
 * (`merchant.merchantTransactionId`) and amount. Success: APPROVED; Declined or Expired: DECLINED with
 * SIBS's words; Pending: PENDING (an MB WAY request waiting for the customer's phone, or an operation
 * SIBS has not decided); anything else UNKNOWN.
 */
export function resultOfPayment(p: Record<string, unknown>, x: Expected & { transactionId: string }, kind: SibsKind): ProcessorResult {
  const id = str(p.transactionID);
  if (id !== null && id !== x.transactionId) return { outcome: 'UNKNOWN', details: 'The SIBS answer is about another transaction' };
  const merchant = obj(p.merchant);
  if (merchant && merchant.merchantTransactionId !== undefined && merchant.merchantTransactionId !== merchantTransactionIdOf(x.reference)) {
    return { outcome: 'UNKNOWN', details: 'The SIBS answer names another merchantTransactionId' };
  }
  const amount = obj(p.amount);
  const expected = kind === 'verify' ? 0 : x.amount;
  if (amount && (minorOf(amount.value) !== expected || amount.currency !== x.currency)) return { outcome: 'UNKNOWN', details: 'The SIBS answer does not match the amount or currency sent' };
  const rs = returnStatusOf(p);
  const written = str(p.paymentStatus);
  const status = statusOf(written);
  if (status === 'success' && (rs.code === null || rs.code === SUCCESS_CODE)) {
    return { outcome: 'APPROVED', authorization: x.transactionId, processorId: x.transactionId, amount: expected };
  }
  if (status === 'declined' || status === 'expired' || status === 'error') {
    const r = refusalOf(rs.code, rs.description ?? rs.message, written);
    return { outcome: 'DECLINED', error: r.error, details: r.details, processorId: x.transactionId };
  }
  if (status === 'partial') {
    const r = actionRefusal(p);
    return { outcome: 'DECLINED', error: r.error, details: r.details, processorId: x.transactionId };
  }
  if (status === 'pending' || status === 'inprocessing') {
    const details = kind === 'mbway' ? 'SIBS waits for the customer to approve on the phone (MB WAY)' : kind === 'multibanco' ? 'SIBS waits for the Multibanco reference to be paid' : `SIBS has the ${kind} pending`;
    return { outcome: 'PENDING', details, processorId: x.transactionId };
  }
  // Timeout: "a potential communication error" ([DOCS]): the status query decides it later
  if (status === 'timeout') return { outcome: 'UNKNOWN', details: 'SIBS answered Timeout (a possible communication error on its side)' };
  if (!written && rs.code && rs.code !== SUCCESS_CODE && codeFamily(rs.code) !== 'temporary' && codeFamily(rs.code) !== 'pending') {
    const r = refusalOf(rs.code, rs.description ?? rs.message);
    return { outcome: 'DECLINED', error: r.error, details: r.details, processorId: x.transactionId };
  }
  return { outcome: 'UNKNOWN', details: `SIBS answered paymentStatus ${written ?? 'none'}${rs.code ? ` (${rs.code})` : ''}` };
}

/** The action a Partial answer waits for (`actionResponse`, [SPG-CARD]): its id and type. */
export function actionOf(p: Record<string, unknown>): { id: string | null; type: string } | null {
  const a = obj(p.actionResponse);
  const type = str(a?.type);
  return a && type ? { id: str(a.id), type } : null;
}

/**
 * A card purchase SIBS answers Partial waits for an action in the customer's browser: 3-D Secure (the
 * issuer's method URL, THREEDS_METHOD, or its challenge, THREEDS_CHALLENGE, each with the URL and
 * parameters to post there) or the choice of a currency (DCC). Nothing is authorized until it is done and
 * the purchase is sent again with `actionProcessed`. The gateway does not drive SIBS's actions yet, so
 * such a payment is refused with the reason (nothing was charged, and nothing can be without the action).
 */
export function actionRefusal(p: Record<string, unknown>): Refusal {
  const a = actionOf(p);
  // a status query or notification of a purchase left Partial: the action was never performed
  if (!a) return { error: 'PROCESSOR_ERROR', details: 'SIBS waits for an action in the customer\'s browser (Partial) that this gateway does not perform: nothing was charged' };
  if (a.type === 'THREEDS_METHOD' || a.type === 'THREEDS_CHALLENGE') {
    return { error: 'AUTHENTICATION_FAILED', details: `SIBS asks for 3-D Secure (${a.type}) in the customer's browser, which this gateway does not perform through SIBS yet: the payment cannot be authenticated, nothing was charged` };
  }
  return { error: 'PROCESSOR_ERROR', details: `SIBS waits for an action (${a.type}) this gateway does not perform: nothing was charged` };
}

/**
 * The Multibanco reference SIBS generated for our transaction (`service-reference/generate`): its
 * `paymentReference` {reference, paymentEntity (or entity), amount, expireDate}; null when the answer
 * does not carry one for our amount.
 */
export function voucherOf(p: Record<string, unknown>, x: Expected): { entity: string; reference: string; expiresAt: string } | null {
  const r = obj(p.paymentReference);
  if (!r) return null;
  const reference = str(r.reference);
  const entity = str(r.paymentEntity) ?? str(r.entity);
  const amount = obj(r.amount);
  const expires = str(r.expireDate);
  if (!reference || !/^[0-9 ]{9,15}$/.test(reference) || !entity || !/^[0-9]{5}$/.test(entity) || !expires || Number.isNaN(Date.parse(expires))) return null;
  if (amount && (minorOf(amount.value) !== x.amount || amount.currency !== x.currency)) return null;
  return { entity, reference: reference.replace(/ /g, ''), expiresAt: new Date(Date.parse(expires)).toISOString() };
}

/** A settled result, or null while SIBS has not decided (PENDING, UNKNOWN). */
export function settled(r: ProcessorResult): SettledResult | null {
  return r.outcome === 'APPROVED' || r.outcome === 'DECLINED' ? r : null;
}

// ---- notifications -------------------------------------------------------------------------------------------

/**
 * The clear text of a notification: AES-256-GCM of the base64 body under the secret key, with the IV and
 * tag of its headers (base64). Null when anything does not decrypt or authenticate (never believed).
 */
export function decryptNotification(body: string, ivHeader: string | undefined, tagHeader: string | undefined, key: Buffer): string | null {
  if (!ivHeader || !tagHeader || key.length !== 32) return null;
  const b64 = /^[A-Za-z0-9+/]+={0,2}$/;
  const text = body.trim();
  if (!b64.test(text) || !b64.test(ivHeader) || !b64.test(tagHeader)) return null;
  const iv = Buffer.from(ivHeader, 'base64');
  const tag = Buffer.from(tagHeader, 'base64');
  if (iv.length < 12 || iv.length > 16 || tag.length !== 16) return null;
  try {
    const d = createDecipheriv('aes-256-gcm', key, iv);
    d.setAuthTag(tag);
    return Buffer.concat([d.update(Buffer.from(text, 'base64')), d.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** A notification as SIBS sends it (the simulator's and the tests' side): base64 body, IV and tag. */
export function encryptNotification(clear: string, key: Buffer, iv: Buffer): { body: string; iv: string; tag: string } {
  const c = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([c.update(clear, 'utf8'), c.final()]).toString('base64');
  return { body, iv: iv.toString('base64'), tag: c.getAuthTag().toString('base64') };
}

/** The facts of a decrypted notification; null when it is not one. */
export interface NotificationFacts {
  notificationId: string;
  transactionId: string;
  merchantTransactionId: string | null;
  paymentStatus: string | null;
  paymentMethod: string | null;
  paymentType: string | null;
  body: Record<string, unknown>;
}

export function notificationFacts(body: Record<string, unknown>): NotificationFacts | null {
  const notificationId = str(body.notificationID);
  const transactionId = str(body.transactionID);
  if (!notificationId || !transactionId) return null;
  return {
    notificationId, transactionId,
    merchantTransactionId: str(obj(body.merchant)?.merchantTransactionId),
    paymentStatus: str(body.paymentStatus), paymentMethod: str(body.paymentMethod), paymentType: str(body.paymentType), body,
  };
}

/**
 * The acknowledgement SIBS expects of a received notification, the body of an HTTP 200 answer: SIBS
 * Gateway's Webhooks page (docs.pay.sibs.com, portugal/sibs-gateway/notifications/webhooks) names
 * `{"statusCode": "200", "statusMsg": "Success", "notificationID": <the notification's>}`; without it
 * SIBS sends the notification again.
 */
export function acknowledgement(notificationId: string): Record<string, unknown> {
  return { statusCode: '200', statusMsg: 'Success', notificationID: notificationId };
}

/**
 * The answer to a capture, cancellation or refund (or its status) as our result: about our follow-up
 * (its merchantTransactionId and amount where named), Success APPROVED, Declined DECLINED, Pending
 * PENDING (SIBS decides it later: its notification or the status query settles it).
 */
export function resultOfFollowUp(p: Record<string, unknown>, x: Expected & { originalId: string }, kind: 'capture' | 'void' | 'refund'): { result: ProcessorResult; transactionId: string | null } {
  const id = str(p.transactionID);
  const transactionId = id && TRANSACTION_ID.test(id) ? id : null;
  return { transactionId, result: resultOfPayment(p, { ...x, transactionId: transactionId ?? x.originalId }, kind) };
}
