/**
 * Nuvei mapping (pure): our operations to Nuvei's REST API 1.0 JSON, its answers and DMNs (Direct
 * Merchant Notifications) back to our results. No IO, no clock. The schemas of every body are in spec.ts,
 * with their sources.
 *
 * Facts used (REST API 1.0, `/ppp/api/v1/<method>.do`, JSON POST):
 *  - Every request names `merchantId`, `merchantSiteId`, a `clientRequestId` unique per request and a
 *    `timeStamp` (YYYYMMDDHHmmss), and most carry a `checksum`: the lower-case hex SHA-256 of the values
 *    of fields in the order the reference gives per method, then the merchant secret key:
 *      getSessionToken       merchantId, merchantSiteId, clientRequestId, timeStamp
 *      payment, initPayment  merchantId, merchantSiteId, clientRequestId, amount, currency, timeStamp
 *      settleTransaction     merchantId, merchantSiteId, clientRequestId, clientUniqueId, amount,
 *                              currency, relatedTransactionId, authCode, descriptorMerchantName,
 *                              descriptorMerchantPhone, comment, urlDetails, timeStamp
 *      voidTransaction,      merchantId, merchantSiteId, clientRequestId, clientUniqueId, amount,
 *      refundTransaction       currency, relatedTransactionId, authCode, comment, urlDetails, timeStamp
 *      getTransactionDetails merchantId, merchantSiteId, transactionId, clientUniqueId, timeStamp
 *    (absent optional fields count as empty: the connector sends none of them).
 *  - A payment flow opens with `getSessionToken` → {sessionToken, status}; `payment` and `initPayment`
 *    carry it. Amounts are decimal strings in major units ("10.00").
 *  - `payment` {sessionToken, clientUniqueId (ours: the transaction uuid), amount, currency,
 *    transactionType Sale | Auth, paymentOption.card {cardNumber, cardHolderName, expirationMonth,
 *    expirationYear, CVV, threeD, storedCredentials.storedCredentialsMode}, isRebilling (0 | 1),
 *    rebillingType, isMoto ("1"), relatedTransactionId, deviceDetails.ipAddress,
 *    urlDetails.notificationUrl} → {status SUCCESS | ERROR (errCode, reason: the request was not
 *    processed), transactionStatus APPROVED | DECLINED | ERROR | REDIRECT | PENDING, transactionId,
 *    authCode, gwErrorCode, gwErrorReason, gwExtendedErrorCode, paymentOption.card.threeD {acsUrl,
 *    cReq}, clientRequestId}. A zero-amount Auth verifies the card.
 *  - Stored credentials: a card being stored is `storedCredentialsMode` "0" (first use), a stored card
 *    used again "1"; a merchant-initiated payment adds `isRebilling` 1 and `relatedTransactionId` (the
 *    Nuvei transaction of the card's first payment), `rebillingType` RECURRING for a subscription's
 *    charges. MoTo is `isMoto: "1"`.
 *  - 3-D Secure 2: `initPayment` (the card, `threeD.methodNotificationUrl`) → {transactionId, threeD
 *    {methodUrl, methodPayload, v2supported}}; then `payment` with `relatedTransactionId` of it and
 *    `threeD` {methodCompletionInd, version, notificationURL, merchantURL, platformType, browserDetails} →
 *    APPROVED (frictionless) or REDIRECT (the challenge: `acsUrl`, `cReq`); once the ACS posted its `cres`
 *    back, a last `payment` with `relatedTransactionId` of the REDIRECT transaction gives the result.
 *  - `settleTransaction` / `voidTransaction` / `refundTransaction` {clientUniqueId, amount, currency,
 *    relatedTransactionId} → {status, transactionStatus, transactionId, gwErrorCode, gwErrorReason}. A
 *    refund of an authorization refers to its settlement.
 *  - `getTransactionDetails` by `clientUniqueId` → {status, transactionDetails {transactionStatus,
 *    transactionType, transactionId, authCode, gwErrorCode, gwErrorReason}}.
 *  - DMNs are form fields posted to the request's `urlDetails.notificationUrl`: Status, totalAmount,
 *    currency, responseTimeStamp, PPP_TransactionID, productId, TransactionID, transactionType,
 *    merchant_unique_id and clientUniqueId (ours), authCode, Reason, ErrCode, ExErrCode... signed with
 *    `advanceResponseChecksum`: SHA-256 hex of the merchant secret key then totalAmount, currency,
 *    responseTimeStamp, PPP_TransactionID, Status and productId; a DMN without it (subscription DMNs)
 *    carries `responsechecksum`: SHA-256 hex of every parameter's value in the order posted, then the
 *    merchant secret key.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { currencyByCode } from '../../platform/money/currency.js';
import type { BrowserInfo, PaymentRequest, ProcessorResult, SettledResult } from '../connector.js';
import { asksForAuthentication, errorOf, refusalOf } from './codes.js';

export type NuveiKind = 'payment' | 'preauth' | 'verify' | 'capture' | 'void' | 'refund';
export type FollowUpKind = 'capture' | 'void' | 'refund';

export const API_PATH = '/ppp/api/v1';

/** The method of each follow-up, and the transaction type Nuvei records for it. */
export const FOLLOW_UP_METHOD = { capture: 'settleTransaction', void: 'voidTransaction', refund: 'refundTransaction' } as const;
export const TRANSACTION_TYPE: Record<NuveiKind, string> = { payment: 'Sale', preauth: 'Auth', verify: 'Auth', capture: 'Settle', void: 'Void', refund: 'Credit' };

export interface Merchant {
  merchantId: string;
  merchantSiteId: string;
  secretKey: string;
}

/** SHA-256 hex of the values in the reference's order, then the merchant secret key. */
export function checksumOf(values: Array<string | undefined | null>, secretKey: string): string {
  return createHash('sha256').update(values.map((v) => v ?? '').join('') + secretKey, 'utf8').digest('hex');
}

/** Nuvei's `timeStamp`: YYYYMMDDHHmmss (UTC). */
export function timeStampOf(d: Date): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

// ---- amounts ---------------------------------------------------------------------------------------------

function digits(currency: string): number {
  return currencyByCode(currency)?.digits ?? 2;
}

/** Minor units as Nuvei's decimal string ("10.00"). */
export function toAmount(minor: number, currency: string): string {
  const d = digits(currency);
  if (d === 0) return String(minor);
  const s = String(minor).padStart(d + 1, '0');
  return `${s.slice(0, -d)}.${s.slice(-d)}`;
}

/** A decimal string back to minor units; null when it is not one of the currency. */
export function fromAmount(v: unknown, currency: string): number | null {
  if (typeof v !== 'string' || !/^\d{1,15}(\.\d{1,4})?$/.test(v)) return null;
  const d = digits(currency);
  const [whole, frac = ''] = v.split('.');
  if (frac.length > d && /[1-9]/.test(frac.slice(d))) return null;
  return Number(whole) * 10 ** d + Number((frac + '0'.repeat(d)).slice(0, d) || '0');
}

// ---- requests --------------------------------------------------------------------------------------------

export function sessionTokenBody(m: Merchant, clientRequestId: string, timeStamp: string): Record<string, unknown> {
  return { merchantId: m.merchantId, merchantSiteId: m.merchantSiteId, clientRequestId, timeStamp, checksum: checksumOf([m.merchantId, m.merchantSiteId, clientRequestId, timeStamp], m.secretKey) };
}

type PaymentInput = Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'card' | 'channel' | 'storeCredential' | 'storedCard' | 'mit' | 'customerIp'>;

/** The card as `paymentOption.card` (secrets revealed only into the request body). */
export function cardOf(req: Pick<PaymentRequest, 'card' | 'channel'>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const c = req.card;
  return {
    cardNumber: c.pan.reveal().replace(/\s+/g, ''),
    ...(c.holder ? { cardHolderName: c.holder.slice(0, 70) } : {}),
    expirationMonth: String(c.expiryMonth).padStart(2, '0'),
    expirationYear: String(c.expiryYear),
    ...(c.cvv && req.channel !== 'MIT' ? { CVV: c.cvv.reveal() } : {}),
    ...extra,
  };
}

/** The stored-credential fields of a payment: `storedCredentials` in the card, the rebilling fields beside it. */
export function storedCredentialsOf(req: Pick<PaymentRequest, 'channel' | 'mit' | 'storeCredential' | 'storedCard'>, kind: 'payment' | 'preauth' | 'verify', initialTransactionId: string | null): { card: Record<string, unknown>; top: Record<string, unknown> } {
  if (req.channel === 'MIT') {
    return {
      card: { storedCredentials: { storedCredentialsMode: '1' } },
      top: { isRebilling: 1, ...(req.mit === 'RECURRING' || req.mit === 'INSTALMENT' ? { rebillingType: 'RECURRING' } : {}), ...(initialTransactionId ? { relatedTransactionId: initialTransactionId } : {}) },
    };
  }
  // a card verification is how a card is stored
  if (req.storeCredential === true || kind === 'verify') return { card: { storedCredentials: { storedCredentialsMode: '0' } }, top: { isRebilling: 0 } };
  if (req.storedCard === true) return { card: { storedCredentials: { storedCredentialsMode: '1' } }, top: { isRebilling: 0 } };
  return { card: {}, top: {} };
}

export interface PaymentOptions {
  kind: 'payment' | 'preauth' | 'verify';
  merchant: Merchant;
  sessionToken: string;
  clientRequestId: string;
  timeStamp: string;
  /** The Nuvei transaction of the card's first payment (merchant-initiated payments). */
  initialTransactionId?: string | null;
  notificationUrl?: string | null;
  /** 3-D Secure: the `threeD` object of the card and the transaction it follows (initPayment's, or the challenge's). */
  threeD?: Record<string, unknown> | null;
  relatedTransactionId?: string | null;
}

/**
 * The body of `payment`. A payment is a Sale (authorized and settled), a pre-authorization an Auth
 * (settled or voided later), a verification a zero-amount Auth storing the card. MoTo: `isMoto` "1".
 */
export function paymentBody(req: PaymentInput, o: PaymentOptions): Record<string, unknown> {
  const m = o.merchant;
  const amount = toAmount(o.kind === 'verify' ? 0 : req.amount, req.currency);
  const stored = storedCredentialsOf(req, o.kind, o.initialTransactionId ?? null);
  const related = o.relatedTransactionId ?? (stored.top.relatedTransactionId as string | undefined) ?? null;
  const top = { ...stored.top };
  delete top.relatedTransactionId;
  return {
    sessionToken: o.sessionToken,
    merchantId: m.merchantId,
    merchantSiteId: m.merchantSiteId,
    clientRequestId: o.clientRequestId,
    clientUniqueId: req.reference,
    amount,
    currency: req.currency,
    transactionType: TRANSACTION_TYPE[o.kind],
    paymentOption: { card: cardOf(req, { ...(o.threeD ? { threeD: o.threeD } : {}), ...stored.card }) },
    ...top,
    ...(req.channel === 'MOTO' ? { isMoto: '1' } : {}),
    ...(related ? { relatedTransactionId: related } : {}),
    ...(req.customerIp && req.channel !== 'MIT' ? { deviceDetails: { ipAddress: req.customerIp } } : {}),
    ...(o.notificationUrl ? { urlDetails: { notificationUrl: o.notificationUrl } } : {}),
    timeStamp: o.timeStamp,
    checksum: checksumOf([m.merchantId, m.merchantSiteId, o.clientRequestId, amount, req.currency, o.timeStamp], m.secretKey),
  };
}

/** The body of `initPayment` (3-D Secure 2: the card's 3DS method); its checksum is the payment's. */
export function initPaymentBody(req: PaymentInput, o: { merchant: Merchant; sessionToken: string; clientRequestId: string; timeStamp: string; methodNotificationUrl: string }): Record<string, unknown> {
  const m = o.merchant;
  const amount = toAmount(req.amount, req.currency);
  return {
    sessionToken: o.sessionToken,
    merchantId: o.merchant.merchantId,
    merchantSiteId: o.merchant.merchantSiteId,
    clientRequestId: o.clientRequestId,
    clientUniqueId: req.reference,
    amount,
    currency: req.currency,
    paymentOption: { card: cardOf(req, { threeD: { methodNotificationUrl: o.methodNotificationUrl } }) },
    ...(req.customerIp ? { deviceDetails: { ipAddress: req.customerIp } } : {}),
    timeStamp: o.timeStamp,
    checksum: checksumOf([m.merchantId, m.merchantSiteId, o.clientRequestId, amount, req.currency, o.timeStamp], m.secretKey),
  };
}

/** Nuvei's `colorDepth` values. */
const COLOR_DEPTHS = [1, 4, 8, 15, 16, 24, 32, 48];

/** The `threeD` object of the authentication `payment`: the browser's data and where the ACS answers. */
export function threeDOf(b: BrowserInfo, o: { notificationURL: string; merchantURL: string; methodCompleted: boolean | null; ip: string | null }): Record<string, unknown> {
  return {
    methodCompletionInd: o.methodCompleted === true ? 'Y' : o.methodCompleted === false ? 'N' : 'U',
    version: '2.2.0',
    notificationURL: o.notificationURL,
    merchantURL: o.merchantURL,
    platformType: '02',
    v2AdditionalParams: { challengeWindowSize: '05' },
    browserDetails: {
      acceptHeader: b.acceptHeader.slice(0, 2048),
      ...(o.ip ? { ip: o.ip } : {}),
      javaEnabled: b.javaEnabled ? 'TRUE' : 'FALSE',
      javaScriptEnabled: b.javascriptEnabled ? 'TRUE' : 'FALSE',
      language: b.language.slice(0, 8),
      colorDepth: String(COLOR_DEPTHS.includes(b.colorDepth) ? b.colorDepth : 24),
      screenHeight: String(b.screenHeight),
      screenWidth: String(b.screenWidth),
      timeZone: String(b.tz),
      userAgent: b.userAgent.slice(0, 2048),
    },
  };
}

/** The body of a settle, void or refund of a transaction. */
export function followUpBody(o: { merchant: Merchant; clientRequestId: string; reference: string; amount: number; currency: string; relatedTransactionId: string; timeStamp: string }): Record<string, unknown> {
  const m = o.merchant;
  const amount = toAmount(o.amount, o.currency);
  return {
    merchantId: m.merchantId,
    merchantSiteId: m.merchantSiteId,
    clientRequestId: o.clientRequestId,
    clientUniqueId: o.reference,
    amount,
    currency: o.currency,
    relatedTransactionId: o.relatedTransactionId,
    timeStamp: o.timeStamp,
    // authCode, the descriptor (settle), comment and urlDetails are not sent: their places are empty
    checksum: checksumOf([m.merchantId, m.merchantSiteId, o.clientRequestId, o.reference, amount, o.currency, o.relatedTransactionId, '', '', '', o.timeStamp], m.secretKey),
  };
}

export function transactionDetailsBody(m: Merchant, clientUniqueId: string, timeStamp: string): Record<string, unknown> {
  return { merchantId: m.merchantId, merchantSiteId: m.merchantSiteId, clientUniqueId, timeStamp, checksum: checksumOf([m.merchantId, m.merchantSiteId, '', clientUniqueId, timeStamp], m.secretKey) };
}

// ---- answers ---------------------------------------------------------------------------------------------

const str = (v: unknown, max = 300): string | null => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^-?\d{1,10}$/.test(v) ? Number(v) : null);
const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** Nuvei's words of a request it did not process (`status: ERROR`). */
export function requestErrorOf(a: Record<string, unknown>): string {
  const code = num(a.errCode);
  return `${str(a.reason, 200) ?? 'error'}${code !== null ? ` (errCode ${code})` : ''}`;
}

export type PaymentRead =
  | { kind: 'result'; result: ProcessorResult; transactionId: string | null }
  | { kind: 'challenge'; acsUrl: string; creq: string; transactionId: string };

/**
 * A transaction's state (`transactionStatus` with its codes) as our result. `kind` says what it was
 * (a payment's Sale, an Auth, a settle...); `amount` what was asked.
 */
export function resultOfTransaction(t: { status: string | null; transactionId: string | null; authCode: string | null; code: number | null; reason: string | null; extended: number | null }, x: { kind: NuveiKind; amount: number }): ProcessorResult {
  const processorId = t.transactionId;
  switch (t.status) {
    case 'APPROVED':
      if (!processorId) return { outcome: 'UNKNOWN', details: 'Nuvei approved a transaction without naming it (transactionId)' };
      return { outcome: 'APPROVED', authorization: t.authCode ?? processorId.slice(0, 40), processorId, amount: x.kind === 'verify' ? 0 : x.amount };
    case 'DECLINED': {
      const r = refusalOf(t.reason, t.code, t.extended);
      if ((x.kind === 'payment' || x.kind === 'preauth') && asksForAuthentication(t.reason)) return { outcome: 'CHALLENGE', details: r.details };
      return { outcome: 'DECLINED', error: r.error, details: r.details, processorId };
    }
    case 'ERROR': {
      const r = errorOf(t.reason, t.code);
      return { outcome: 'DECLINED', error: r.error, details: r.details, processorId };
    }
    case 'PENDING':
      return { outcome: 'PENDING', details: `Nuvei has the ${x.kind} pending; it is decided later`, processorId };
    default:
      return { outcome: 'UNKNOWN', details: `Nuvei answered transactionStatus ${t.status?.slice(0, 40) ?? 'none'}` };
  }
}

/**
 * An answer to `payment`, `settleTransaction`, `voidTransaction` or `refundTransaction` as our result.
 * Answers are not signed (TLS only): one is believed only when it echoes the request's clientRequestId;
 * anything else is UNKNOWN (the reconciler asks Nuvei again).
 */
export function readAnswer(a: Record<string, unknown>, x: { kind: NuveiKind; amount: number; clientRequestId: string }): PaymentRead {
  const transactionId = str(a.transactionId, 40);
  const result = (r: ProcessorResult): PaymentRead => ({ kind: 'result', result: r, transactionId });
  if (a.clientRequestId !== x.clientRequestId) return result({ outcome: 'UNKNOWN', details: 'The Nuvei answer does not name the request sent (clientRequestId)' });
  if (a.status === 'ERROR' && a.transactionStatus === undefined) return result({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: `Nuvei refused the ${x.kind}: ${requestErrorOf(a)}`, processorId: null });
  if (a.status !== 'SUCCESS' && a.status !== 'ERROR') return result({ outcome: 'UNKNOWN', details: 'The Nuvei answer has no status' });
  const status = str(a.transactionStatus, 20);
  if (status === 'REDIRECT') {
    const threeD = obj(obj(obj(a.paymentOption)?.card)?.threeD);
    const acsUrl = str(threeD?.acsUrl, 2000);
    const creq = str(threeD?.cReq, 8000);
    if (!transactionId || !acsUrl || !/^https?:\/\//.test(acsUrl) || !creq) return result({ outcome: 'UNKNOWN', details: 'Nuvei asks for a 3-D Secure challenge without its ACS URL or CReq' });
    return { kind: 'challenge', acsUrl, creq, transactionId };
  }
  return result(resultOfTransaction({ status, transactionId, authCode: str(a.authCode, 40), code: num(a.gwErrorCode), reason: str(a.gwErrorReason, 200), extended: num(a.gwExtendedErrorCode) }, x));
}

/** A session token answer: the token, or Nuvei's words why none. */
export function sessionTokenOf(a: Record<string, unknown>, clientRequestId: string): { token: string } | { problem: string } {
  if (a.status === 'SUCCESS' && a.clientRequestId === clientRequestId) {
    const token = str(a.sessionToken, 200);
    if (token) return { token };
  }
  return { problem: `Nuvei gave no session token: ${requestErrorOf(a)}` };
}

/** `initPayment`'s answer: the transaction the authentication follows, and the card's 3DS method if any. */
export function initPaymentOf(a: Record<string, unknown>, clientRequestId: string): { transactionId: string; methodUrl: string | null; methodPayload: string | null } | { problem: string } {
  if (a.status !== 'SUCCESS' || a.clientRequestId !== clientRequestId) return { problem: `Nuvei refused the 3-D Secure initiation: ${requestErrorOf(a)}` };
  const transactionId = str(a.transactionId, 40);
  if (!transactionId || a.transactionStatus !== 'APPROVED') return { problem: `Nuvei did not initiate 3-D Secure (${str(a.gwErrorReason, 200) ?? str(a.transactionStatus, 20) ?? 'no transaction'})` };
  const threeD = obj(obj(obj(a.paymentOption)?.card)?.threeD);
  const methodUrl = str(threeD?.methodUrl, 2000);
  return { transactionId, methodUrl: methodUrl && /^https?:\/\//.test(methodUrl) ? methodUrl : null, methodPayload: str(threeD?.methodPayload, 8000) };
}

/**
 * `getTransactionDetails`' answer about one of our operations (found by its clientUniqueId) as a lookup:
 * the transaction and its state, none (Nuvei has no transaction under it), or why it cannot say.
 */
export function detailsOf(a: Record<string, unknown>, x: { kind: NuveiKind; amount: number }): { found: 'none' } | { found: 'unknown'; details: string } | { found: true; result: ProcessorResult; type: string | null } {
  if (a.status !== 'SUCCESS') {
    // the code of "no such transaction" is not in the reference read: its words say it
    if (/not found|no transaction|does not exist/i.test(String(a.reason ?? ''))) return { found: 'none' };
    return { found: 'unknown', details: `Nuvei answered the transaction query: ${requestErrorOf(a)}` };
  }
  const d = obj(a.transactionDetails);
  if (!d) return { found: 'unknown', details: 'Nuvei answered the transaction query without transactionDetails' };
  const type = str(d.transactionType, 30);
  if (type && type !== TRANSACTION_TYPE[x.kind] && !(x.kind === 'preauth' && type === 'PreAuth')) return { found: 'unknown', details: `the transaction under our reference is a ${type}, not a ${TRANSACTION_TYPE[x.kind]}` };
  const result = resultOfTransaction({ status: str(d.transactionStatus, 20), transactionId: str(d.transactionId, 40), authCode: str(d.authCode, 40), code: num(d.gwErrorCode), reason: str(d.gwErrorReason, 200), extended: num(d.gwExtendedErrorCode) }, x);
  return { found: true, result, type };
}

// ---- DMNs --------------------------------------------------------------------------------------------------

/** A DMN's status (`Status`; some DMNs name it `status`). */
const statusOf = (f: Record<string, string | undefined>): string | undefined => f.Status ?? f.status;

/** The DMN's `advanceResponseChecksum` over its fields with the merchant secret key. */
export function dmnChecksum(f: Record<string, string | undefined>, secretKey: string): string {
  return createHash('sha256').update(secretKey + [f.totalAmount, f.currency, f.responseTimeStamp, f.PPP_TransactionID, statusOf(f), f.productId].map((v) => v ?? '').join(''), 'utf8').digest('hex');
}

/** The DMN's `responsechecksum`: every parameter's value in the order posted (but its own), then the key. */
export function dmnResponseChecksum(f: Record<string, string | undefined>, secretKey: string): string {
  const values = Object.entries(f).filter(([k]) => k !== 'responsechecksum').map(([, v]) => v ?? '');
  return createHash('sha256').update(values.join('') + secretKey, 'utf8').digest('hex');
}

const sameHex = (got: string | undefined, want: string): boolean =>
  !!got && /^[0-9a-fA-F]{64}$/.test(got) && timingSafeEqual(Buffer.from(got.toLowerCase(), 'hex'), Buffer.from(want, 'hex'));

/**
 * Whether a DMN is the merchant's (constant time): its advanceResponseChecksum when it has one (payment
 * DMNs), else its responsechecksum.
 */
export function verifyDmn(f: Record<string, string | undefined>, secretKey: string): boolean {
  if (f.advanceResponseChecksum !== undefined) return sameHex(f.advanceResponseChecksum, dmnChecksum(f, secretKey));
  return sameHex(f.responsechecksum, dmnResponseChecksum(f, secretKey));
}

export interface DmnFacts {
  eventId: string;
  reference: string;
  status: string;
  transactionType: string | null;
  transactionId: string | null;
  totalAmount: string;
  currency: string;
}

/** What a DMN says (unverified: only to find whose key signs it). */
export function dmnFacts(f: Record<string, string | undefined>): DmnFacts | null {
  const reference = str(f.merchant_unique_id ?? f.clientUniqueId, 100);
  const status = str(statusOf(f), 20);
  const transactionId = str(f.TransactionID, 40);
  if (!reference || !status || f.totalAmount === undefined || !f.currency) return null;
  return { eventId: `${transactionId ?? str(f.PPP_TransactionID, 40) ?? reference}:${status}`.slice(0, 120), reference, status, transactionType: str(f.transactionType, 30), transactionId, totalAmount: f.totalAmount, currency: f.currency };
}

/**
 * A verified DMN about an operation as its final result; null when it settles nothing (not final, or not
 * about this operation: its type, amount or currency — the fields the checksum covers — differ).
 */
export function resultOfDmn(f: Record<string, string | undefined>, op: { kind: NuveiKind; amount: number; currency: string }): SettledResult | null {
  const facts = dmnFacts(f);
  if (!facts) return null;
  if (facts.currency !== op.currency || fromAmount(facts.totalAmount, op.currency) !== (op.kind === 'verify' ? 0 : op.amount)) return null;
  if (facts.transactionType && facts.transactionType !== TRANSACTION_TYPE[op.kind]) return null;
  const r = resultOfTransaction({ status: facts.status, transactionId: facts.transactionId, authCode: str(f.authCode ?? f.AuthCode, 40), code: num(f.ErrCode), reason: str(f.Reason ?? f.message, 200), extended: num(f.ExErrCode) }, op);
  if (r.outcome === 'UNKNOWN' || r.outcome === 'PENDING' || r.outcome === 'CHALLENGE') return null;
  return r;
}
