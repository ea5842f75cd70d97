/**
 * CyberSource mapping (pure): our operations to the REST API's JSON (Payments `pts/v2`, Transaction
 * Search `tss/v2`), its answers back to our results, and its HTTP Signature authentication. No IO, no
 * clock. The schemas of every body are in spec.ts, with their sources.
 *
 * REST API facts used:
 *  - Every request is signed (HTTP Signature): headers `v-c-merchant-id`, `date` (RFC 7231), `host`,
 *    `digest: SHA-256=<base64 SHA-256 of the body>` (POST), and `signature: keyid="<key serial>",
 *    algorithm="HmacSHA256", headers="host date (request-target) digest v-c-merchant-id",
 *    signature="<base64 HMAC-SHA256>"`, the HMAC keyed with the base64-decoded shared secret over the
 *    lines `<header>: <value>` of those headers joined by `\n`, `(request-target)` being `post /path`
 *    (a GET has no digest).
 *  - `POST /pts/v2/payments` {clientReferenceInformation.code, processingInformation {capture,
 *    commerceIndicator, actionList, authorizationOptions.initiator}, paymentInformation.card,
 *    orderInformation.amountDetails {totalAmount, currency}} → 201 {id, status, clientReferenceInformation,
 *    processorInformation {approvalCode, networkTransactionId}, orderInformation.amountDetails
 *    {authorizedAmount, currency}, errorInformation {reason, message}}; status AUTHORIZED,
 *    PARTIAL_AUTHORIZED, AUTHORIZED_PENDING_REVIEW, AUTHORIZED_RISK_DECLINED, PENDING_AUTHENTICATION,
 *    PENDING_REVIEW, DECLINED, INVALID_REQUEST; 400 {status INVALID_REQUEST, reason, message} when it was not
 *    processed; 502 {status SERVER_ERROR}.
 *  - Amounts are decimal strings in major units ("10.00"), currencies ISO 4217 alpha-3.
 *  - Stored credentials (Visa/Mastercard COF framework): the customer payment that stores the card says
 *    `initiator.type customer` and `credentialStoredOnFile true`; a customer payment with a stored card
 *    `storedCredentialUsed true`; a merchant-initiated one `initiator.type merchant`,
 *    `storedCredentialUsed true` and `merchantInitiatedTransaction.previousTransactionId` (the network
 *    transaction id of the first payment), with commerceIndicator `recurring` (subscriptions), `install`
 *    (instalments) or `internet` (unscheduled). MoTo is commerceIndicator `moto`.
 *  - `POST /pts/v2/payments/{id}/captures` → 201 {id, status PENDING | TRANSMITTED}: the capture is
 *    accepted for settlement (CyberSource does not decline it later: a refusal is a 400 such as
 *    EXCEEDS_AUTH_AMOUNT); `POST /pts/v2/payments/{id}/refunds` (a sale) or `/pts/v2/captures/{id}/refunds`
 *    → 201 {id, status PENDING | DECLINED}: a refund PENDING is accepted and decided in the settlement
 *    batch, where it may still fail; `POST /pts/v2/payments/{id}/reversals` (void of an authorization)
 *    → 201 {id, status REVERSED}.
 *  - `POST /tss/v2/searches` {query "clientReferenceInformation.code:<ref>"} → 201
 *    {_embedded.transactionSummaries[]: {id, clientReferenceInformation.code, applicationInformation
 *    {applications[]: {name ics_auth | ics_bill | ics_credit | ics_auth_reversal, rCode 1 | 0 | -1,
 *    reasonCode, status}}, orderInformation.amountDetails, processorInformation.approvalCode}}: how a lost
 *    answer is found again, and how a refund is decided: its ics_credit `status` PENDING until the batch,
 *    then TRANSMITTED (or SUCCEEDED) or FAILED (or VOIDED).
 *  - Payer Authentication through the payment: actionList CONSUMER_AUTHENTICATION with
 *    `consumerAuthenticationInformation.returnUrl` and the browser's `deviceInformation` → AUTHORIZED
 *    (frictionless) or PENDING_AUTHENTICATION with {acsUrl, pareq (the CReq), authenticationTransactionId};
 *    after the challenge, actionList VALIDATE_CONSUMER_AUTHENTICATION with the authenticationTransactionId.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { BrowserInfo, CardData, PaymentRequest, ProcessorResult, SettledResult, ThreeDSResult } from '../connector.js';
import { currencyByCode } from '../../platform/money/currency.js';
import { AUTHENTICATION_REQUIRED, reasonOfCode, refusalOf } from './codes.js';
import type { CybersourceTerminal } from './credentials.js';

export type CybersourceKind = 'payment' | 'preauth' | 'verify' | 'capture' | 'void' | 'refund';

// ---- HTTP Signature ------------------------------------------------------------------------------------

/** `SHA-256=<base64>` of a body. */
export function digestOf(body: string): string {
  return `SHA-256=${createHash('sha256').update(body, 'utf8').digest('base64')}`;
}

const SIGNED_POST = 'host date (request-target) digest v-c-merchant-id';
const SIGNED_GET = 'host date (request-target) v-c-merchant-id';

/** The signing string: `name: value` lines of the signed headers, in the order `headers` names them. */
export function signingString(names: string, values: Record<string, string>): string {
  return names.split(' ').map((n) => `${n}: ${values[n] ?? ''}`).join('\n');
}

/**
 * The headers of a signed request (besides content-type): `v-c-merchant-id`, `date`, `host`, `digest`
 * (with a body) and `signature`. `host`: the base URL's host (with its port when not the default).
 */
export function signedHeaders(t: Pick<CybersourceTerminal, 'merchantId' | 'keyId' | 'secret'>, o: { method: 'GET' | 'POST'; path: string; host: string; date: Date; body?: string }): Record<string, string> {
  const values: Record<string, string> = { host: o.host, date: o.date.toUTCString(), '(request-target)': `${o.method.toLowerCase()} ${o.path}`, 'v-c-merchant-id': t.merchantId };
  const names = o.method === 'POST' ? SIGNED_POST : SIGNED_GET;
  if (o.method === 'POST') values.digest = digestOf(o.body ?? '');
  const signature = createHmac('sha256', t.secret).update(signingString(names, values), 'utf8').digest('base64');
  return {
    'v-c-merchant-id': t.merchantId, date: values.date, host: o.host,
    ...(values.digest ? { digest: values.digest } : {}),
    signature: `keyid="${t.keyId}", algorithm="HmacSHA256", headers="${names}", signature="${signature}"`,
  };
}

/** The parameters of a `signature` header (keyid, algorithm, headers, signature); null when it is not one. */
export function parseSignature(header: string | undefined): Record<string, string> | null {
  if (!header || header.length > 2000) return null;
  const out: Record<string, string> = {};
  for (const m of header.matchAll(/([a-zA-Z]+)="([^"]*)"/g)) out[m[1].toLowerCase()] = m[2];
  return out.keyid && out.algorithm && out.headers && out.signature ? out : null;
}

/**
 * Checks a signed request as CyberSource does (the simulator): the key, the algorithm, the signed headers
 * for the method, the digest of the body and the signature. The problem in words; null when it verifies.
 */
export function signatureProblem(keys: (keyId: string) => { merchantId: string; secret: Buffer } | null, r: { method: string; path: string; headers: Record<string, string | string[] | undefined>; body: string }): string | null {
  const h = (n: string) => {
    const v = r.headers[n];
    return Array.isArray(v) ? v[0] : v;
  };
  const sig = parseSignature(h('signature'));
  if (!sig) return 'no signature header';
  const key = keys(sig.keyid);
  if (!key) return 'unknown keyid';
  if (sig.algorithm !== 'HmacSHA256') return 'algorithm must be HmacSHA256';
  const post = r.method === 'POST';
  if (sig.headers !== (post ? SIGNED_POST : SIGNED_GET)) return `headers must be "${post ? SIGNED_POST : SIGNED_GET}"`;
  if (h('v-c-merchant-id') !== key.merchantId) return 'v-c-merchant-id is not the key\'s merchant';
  if (post && h('digest') !== digestOf(r.body)) return 'digest does not match the body';
  const date = Date.parse(h('date') ?? '');
  if (!Number.isFinite(date)) return 'no date';
  const values: Record<string, string> = { host: h('host') ?? '', date: h('date') ?? '', '(request-target)': `${r.method.toLowerCase()} ${r.path}`, digest: h('digest') ?? '', 'v-c-merchant-id': h('v-c-merchant-id') ?? '' };
  const expected = createHmac('sha256', key.secret).update(signingString(sig.headers, values), 'utf8').digest();
  const given = Buffer.from(sig.signature, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected) ? null : 'signature does not verify';
}

// ---- amounts ---------------------------------------------------------------------------------------------

function digits(currency: string): number {
  return currencyByCode(currency)?.digits ?? 2;
}

/** Minor units as CyberSource's decimal string ("10.00"). */
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

/** CyberSource's card type code by the number's brand (recommended in every request). */
export function cardType(pan: string): string | null {
  if (/^4/.test(pan)) return '001';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(pan)) return '002';
  if (/^3[47]/.test(pan)) return '003';
  if (/^(6011|65|64[4-9])/.test(pan)) return '004';
  if (/^35(2[89]|[3-8])/.test(pan)) return '007';
  return null;
}

function cardOf(card: CardData): Record<string, unknown> {
  const number = card.pan.reveal().replace(/\s+/g, '');
  const type = cardType(number);
  return {
    number,
    expirationMonth: String(card.expiryMonth).padStart(2, '0'),
    expirationYear: String(card.expiryYear),
    ...(card.cvv ? { securityCode: card.cvv.reveal() } : {}),
    ...(type ? { type } : {}),
  };
}

/** The commerce indicator of an authenticated payment by brand (Visa vbv, Mastercard spa, Amex aesk...). */
function authenticatedIndicator(type: string | null, transStatus: string): string {
  const attempted = transStatus === 'A';
  if (type === '001') return attempted ? 'vbv_attempted' : 'vbv';
  if (type === '002') return 'spa';
  if (type === '003') return attempted ? 'aesk_attempted' : 'aesk';
  if (type === '004') return attempted ? 'dipb_attempted' : 'dipb';
  if (type === '007') return attempted ? 'js_attempted' : 'js';
  return 'internet';
}

const MIT_INDICATOR: Record<'RECURRING' | 'UNSCHEDULED' | 'INSTALMENT', string> = { RECURRING: 'recurring', UNSCHEDULED: 'internet', INSTALMENT: 'install' };

/** 3-D Secure through CyberSource: the enrolment (with the browser and where the ACS returns) or the validation after the challenge. */
export type PayerAuth = { enroll: { returnUrl: string; browser: BrowserInfo; ip: string | null } } | { validate: { authenticationTransactionId: string } };

/**
 * The body of `POST /pts/v2/payments`. A pre-authorization is `capture: false`, a card verification a
 * zero amount without capture; MoTo is commerceIndicator `moto`; external 3-D Secure data goes in
 * `consumerAuthenticationInformation` with the brand's authenticated indicator; stored credentials as
 * the header says.
 */
export function paymentBody(
  req: Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'card' | 'channel' | 'threeds' | 'dynamicDescriptor' | 'storeCredential' | 'storedCard' | 'mit'>,
  opts: { kind: 'payment' | 'preauth' | 'verify'; previousTransactionId: string | null; partial?: boolean; payerAuth?: PayerAuth | null },
): Record<string, unknown> {
  const card = cardOf(req.card);
  const mit = req.channel === 'MIT';
  const processing: Record<string, unknown> = { capture: opts.kind === 'payment' };
  const external = req.channel === 'ECOMMERCE' && !opts.payerAuth ? threedsFields(req.threeds, (card.type as string) ?? null) : null;
  processing.commerceIndicator = req.channel === 'MOTO' ? 'moto' : mit ? MIT_INDICATOR[req.mit ?? 'UNSCHEDULED'] : external ? authenticatedIndicator((card.type as string) ?? null, req.threeds!.transStatus) : 'internet';
  if (opts.payerAuth) processing.actionList = ['enroll' in opts.payerAuth ? 'CONSUMER_AUTHENTICATION' : 'VALIDATE_CONSUMER_AUTHENTICATION'];
  const options: Record<string, unknown> = {};
  if (mit) options.initiator = { type: 'merchant', storedCredentialUsed: true, ...(opts.previousTransactionId ? { merchantInitiatedTransaction: { previousTransactionId: opts.previousTransactionId } } : {}) };
  else if (req.storedCard === true) options.initiator = { type: 'customer', storedCredentialUsed: true };
  else if (req.storeCredential === true) options.initiator = { type: 'customer', credentialStoredOnFile: true };
  if (opts.partial) options.partialAuthIndicator = true;
  if (Object.keys(options).length > 0) processing.authorizationOptions = options;
  const body: Record<string, unknown> = {
    clientReferenceInformation: { code: req.reference },
    processingInformation: processing,
    paymentInformation: { card },
    orderInformation: { amountDetails: { totalAmount: toAmount(opts.kind === 'verify' ? 0 : req.amount, req.currency), currency: req.currency }, ...billToOf(req.card.holder) },
  };
  if (external) body.consumerAuthenticationInformation = external;
  const pa = opts.payerAuth;
  if (pa && 'enroll' in pa) {
    body.consumerAuthenticationInformation = { returnUrl: pa.enroll.returnUrl };
    const b = pa.enroll.browser;
    body.deviceInformation = {
      ...(pa.enroll.ip ? { ipAddress: pa.enroll.ip } : {}),
      httpAcceptBrowserValue: b.acceptHeader.slice(0, 255), userAgentBrowserValue: b.userAgent.slice(0, 255), httpBrowserLanguage: b.language.slice(0, 8),
      httpBrowserJavaEnabled: b.javaEnabled, httpBrowserJavaScriptEnabled: b.javascriptEnabled, httpBrowserColorDepth: String(b.colorDepth),
      httpBrowserScreenHeight: String(b.screenHeight), httpBrowserScreenWidth: String(b.screenWidth), httpBrowserTimeDifference: String(b.tz),
    };
  } else if (pa) body.consumerAuthenticationInformation = { authenticationTransactionId: pa.validate.authenticationTransactionId };
  if (req.dynamicDescriptor) body.merchantInformation = { merchantDescriptor: { name: req.dynamicDescriptor.slice(0, 22) } };
  return body;
}

/** The cardholder's name as `billTo` (first and last name; processors that check addresses need more). */
function billToOf(holder: string | null | undefined): Record<string, unknown> {
  const parts = (holder ?? '').trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return {};
  const firstName = parts.length > 1 ? parts.slice(0, -1).join(' ') : parts[0];
  const lastName = parts.length > 1 ? parts[parts.length - 1] : parts[0];
  return { billTo: { firstName: firstName.slice(0, 60), lastName: lastName.slice(0, 60) } };
}

/**
 * External 3-D Secure data (ours or the merchant's MPI) as `consumerAuthenticationInformation`: the
 * authentication value as `cavv`, for Mastercard as `ucafAuthenticationData` with
 * `ucafCollectionIndicator` 2 (the AAV is collected).
 */
function threedsFields(t: ThreeDSResult | null | undefined, type: string | null): Record<string, unknown> | null {
  if (!t || !['Y', 'A'].includes(t.transStatus)) return null;
  const value = t.cavv ? (type === '002' ? { ucafAuthenticationData: t.cavv, ucafCollectionIndicator: '2' } : { cavv: t.cavv }) : {};
  return {
    ...value, ...(t.eci ? { eciRaw: t.eci } : {}), paresStatus: t.transStatus,
    ...(t.dsTransId ? { directoryServerTransactionId: t.dsTransId } : {}), paSpecificationVersion: t.version,
  };
}

/** The body of a capture or refund (`totalAmount` and currency) or a reversal (`reversalInformation`). */
export function followUpBody(kind: 'capture' | 'void' | 'refund', reference: string, amount: number, currency: string): Record<string, unknown> {
  const amountDetails = { totalAmount: toAmount(amount, currency), currency };
  if (kind === 'void') return { clientReferenceInformation: { code: reference }, reversalInformation: { amountDetails } };
  return { clientReferenceInformation: { code: reference }, orderInformation: { amountDetails } };
}

/** The Transaction Search request finding an operation by our reference. */
export function searchBody(reference: string): Record<string, unknown> {
  return { save: false, name: 'paygate lookup', timezone: 'UTC', query: `clientReferenceInformation.code:${reference}`, offset: 0, limit: 20, sort: 'submitTimeUtc:desc' };
}

// ---- answers --------------------------------------------------------------------------------------------

const str = (v: unknown, max = 200): string | null => (typeof v === 'string' && v.length <= max ? v : null);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** A CyberSource id (22 digits in its examples). */
const ID = /^[0-9A-Za-z]{10,40}$/;

export interface Expected {
  reference: string;
  amount: number;
  currency: string;
}

/** What the payment's answer says about 3-D Secure (when it ran through CyberSource). */
export function threedsOf(p: Record<string, unknown>): ThreeDSResult | null {
  const c = obj(p.consumerAuthenticationInformation);
  const status = str(c.paresStatus, 1);
  if (!status) return null;
  return { version: str(c.specificationVersion, 10) ?? '2.2.0', transStatus: status, eci: str(c.eciRaw, 2) ?? str(c.eci, 2), cavv: str(c.cavv, 100) ?? str(c.ucafAuthenticationData, 100), dsTransId: str(c.directoryServerTransactionId, 100) };
}

export interface PaymentRead {
  result: ProcessorResult;
  paymentId: string | null;
  /** The network transaction id (a stored credential's first use). */
  networkId: string | null;
  /** PENDING_AUTHENTICATION: the ACS challenge (its URL, the CReq, the authentication's id). */
  challenge: { acsUrl: string; creq: string; authenticationTransactionId: string } | null;
}

/**
 * The 201 answer of `POST /pts/v2/payments` as our result. Answers are not signed (TLS only): an answer is
 * believed only when it names our reference and, approved, our amount and currency; anything else is
 * UNKNOWN (the reconciler asks CyberSource again).
 */
export function resultOfPayment(p: Record<string, unknown>, x: Expected, kind: 'payment' | 'preauth' | 'verify', partial = false): PaymentRead {
  const paymentId = str(p.id);
  const none = { paymentId, networkId: null, challenge: null };
  const unknown = (details: string): PaymentRead => ({ ...none, result: { outcome: 'UNKNOWN', details } });
  if (!paymentId || !ID.test(paymentId)) return unknown('CyberSource answered without a transaction id');
  if (obj(p.clientReferenceInformation).code !== x.reference) return unknown('The CyberSource answer does not name the payment sent (clientReferenceInformation.code)');
  const status = str(p.status);
  const error = obj(p.errorInformation);
  const reason = str(error.reason);
  const processor = obj(p.processorInformation);
  if (status === 'AUTHORIZED' || status === 'PARTIAL_AUTHORIZED') {
    const amounts = obj(obj(p.orderInformation).amountDetails);
    const asked = kind === 'verify' ? 0 : x.amount;
    if (amounts.currency !== undefined && String(amounts.currency).toUpperCase() !== x.currency) return unknown('The CyberSource answer names another currency');
    const authorized = amounts.authorizedAmount === undefined ? asked : fromAmount(amounts.authorizedAmount, x.currency);
    if (authorized === null || authorized > asked || (authorized < asked && !(status === 'PARTIAL_AUTHORIZED' && partial))) {
      if (status === 'PARTIAL_AUTHORIZED') return { ...none, result: { outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'CyberSource approved only part of the amount, which was not asked for', processorId: paymentId } };
      return unknown('The CyberSource answer names another amount than the payment sent');
    }
    const networkId = str(processor.networkTransactionId, 100) ?? str(processor.transactionId, 100);
    return { paymentId, networkId, challenge: null, result: { outcome: 'APPROVED', authorization: str(processor.approvalCode, 40) ?? paymentId, processorId: paymentId, amount: authorized, cofTxnid: networkId } };
  }
  if (status === 'PENDING_AUTHENTICATION') {
    const c = obj(p.consumerAuthenticationInformation);
    const acsUrl = str(c.acsUrl, 2048);
    const creq = str(c.pareq, 8192);
    const authId = str(c.authenticationTransactionId, 100);
    if (acsUrl && /^https?:\/\//.test(acsUrl) && creq && authId) return { ...none, challenge: { acsUrl, creq, authenticationTransactionId: authId }, result: { outcome: 'CHALLENGE', details: 'CyberSource asks for the 3-D Secure challenge' } };
    return { ...none, result: { outcome: 'CHALLENGE', details: 'CyberSource asks for 3-D Secure authentication' } };
  }
  if (status === 'AUTHORIZED_PENDING_REVIEW' || status === 'PENDING_REVIEW') return { ...none, result: { outcome: 'PENDING', details: 'CyberSource holds the payment for review (Decision Manager)', processorId: paymentId } };
  if (status === 'AUTHORIZED_RISK_DECLINED') {
    const r = refusalOf('AUTHORIZED_RISK_DECLINED', str(error.message));
    return { ...none, result: { outcome: 'DECLINED', error: r.error, details: r.details, processorId: paymentId } };
  }
  if (status === 'DECLINED' || status === 'INVALID_REQUEST') {
    if (reason && AUTHENTICATION_REQUIRED.has(reason)) return { ...none, result: { outcome: 'CHALLENGE', details: refusalOf(reason, str(error.message)).details } };
    const r = status === 'INVALID_REQUEST' && !reason ? { error: 'PROCESSOR_ERROR' as const, details: 'CyberSource INVALID_REQUEST' } : refusalOf(reason ?? 'PROCESSOR_DECLINED', str(error.message));
    return { ...none, result: { outcome: 'DECLINED', error: r.error, details: r.details, processorId: paymentId } };
  }
  return unknown(`CyberSource answered status ${status ?? 'none'}`);
}

/** The words of a 400 answer (`reason: message`), for a refusal. */
export function wordsOf(a: Record<string, unknown> | null): string | null {
  if (!a) return null;
  const reason = str(a.reason) ?? str(obj(a.errorInformation).reason);
  const message = str(a.message) ?? str(obj(a.errorInformation).message);
  return reason ? `${reason}${message ? `: ${message}` : ''}` : message;
}

/**
 * The refusal of a 400 about the card (INVALID_CARD..., or INVALID_DATA naming the card number in its
 * `details`): a card error rather than PROCESSOR_ERROR.
 */
export function cardRefusal(a: Record<string, unknown> | null): SettledResult | null {
  const reason = a ? str(a.reason) : null;
  const details = Array.isArray(a?.details) ? (a!.details as unknown[]) : [];
  const number = reason === 'INVALID_DATA' && details.some((d) => String(obj(d).field ?? '').startsWith('paymentInformation.card.number'));
  if (!reason || (!number && !['INVALID_CARD', 'INVALID_CARD_TYPE', 'CARD_TYPE_NOT_ACCEPTED'].includes(reason))) return null;
  const r = refusalOf(number ? 'INVALID_CARD' : reason, str(a!.message));
  return { outcome: 'DECLINED', error: r.error, details: r.details, processorId: null };
}

const FOLLOW_UP_STATUS: Record<'capture' | 'void' | 'refund', string[]> = { capture: ['PENDING', 'TRANSMITTED'], void: ['REVERSED'], refund: ['TRANSMITTED'] };

/**
 * The 201 answer of a capture, reversal or refund as our result: a capture accepted for settlement
 * (PENDING, TRANSMITTED) or a reversal done is APPROVED with the follow-up's id; a refund PENDING is
 * accepted, not decided (PENDING with its id: the settlement batch may still fail it, Transaction Search
 * says when), TRANSMITTED done; DECLINED with its reason; believed only when it names our reference and,
 * where it gives one, our amount.
 */
export function resultOfFollowUp(p: Record<string, unknown>, op: { kind: 'capture' | 'void' | 'refund'; reference: string; amount: number; currency: string }): { result: ProcessorResult; id: string | null } {
  const id = str(p.id);
  if (!id || !ID.test(id)) return { id: null, result: { outcome: 'UNKNOWN', details: `CyberSource answered the ${op.kind} without an id` } };
  if (obj(p.clientReferenceInformation).code !== op.reference) return { id, result: { outcome: 'UNKNOWN', details: `The CyberSource answer does not name the ${op.kind} sent` } };
  const details = obj(op.kind === 'void' ? p.reversalAmountDetails : op.kind === 'refund' ? p.refundAmountDetails : obj(p.orderInformation).amountDetails);
  const given = details.reversedAmount ?? details.refundAmount ?? details.totalAmount;
  if (given !== undefined && fromAmount(given, op.currency) !== op.amount) return { id, result: { outcome: 'UNKNOWN', details: `The CyberSource answer names another amount than the ${op.kind} sent` } };
  const status = str(p.status);
  if (status && FOLLOW_UP_STATUS[op.kind].includes(status)) return { id, result: { outcome: 'APPROVED', authorization: id, processorId: id, amount: op.amount } };
  if (op.kind === 'refund' && status === 'PENDING') return { id, result: { outcome: 'PENDING', details: 'CyberSource accepted the refund; it is decided in the settlement batch', processorId: id } };
  if (status === 'DECLINED') {
    const e = obj(p.errorInformation);
    const r = refusalOf(str(e.reason) ?? 'PROCESSOR_DECLINED', str(e.message));
    return { id, result: { outcome: 'DECLINED', error: r.error, details: r.details, processorId: id } };
  }
  return { id, result: { outcome: 'UNKNOWN', details: `CyberSource answered the ${op.kind} with status ${status ?? 'none'}` } };
}

/** The application (service) of an operation in a transaction summary. */
const APPLICATION: Record<CybersourceKind, string> = { payment: 'ics_auth', preauth: 'ics_auth', verify: 'ics_auth', capture: 'ics_bill', void: 'ics_auth_reversal', refund: 'ics_credit' };

/** A refund's ics_credit `status` once its settlement batch decided it (Hyperswitch reads them the same way). */
const REFUND_DONE = ['TRANSMITTED', 'SUCCEEDED'];
const REFUND_FAILED = ['FAILED', 'VOIDED'];

/**
 * Our operation among the answer of `POST /tss/v2/searches` by its reference: `found` with its result
 * (the application's rCode: 1 done, 0 declined with its reason code, -1 an error), `absent`, or
 * `mismatch` (named with another amount or currency: not believed), `undecided` (held for review by
 * Decision Manager: reason code 480; a refund accepted whose ics_credit `status` is not TRANSMITTED,
 * SUCCEEDED, FAILED or VOIDED yet). An approval counts before a decline (a soft-declined attempt and
 * its authenticated retry share the reference). A refund FAILED or VOIDED in its batch is declined.
 */
export function readSearch(answer: Record<string, unknown>, op: { kind: CybersourceKind; reference: string; amount: number; currency: string }): { state: 'found'; result: SettledResult; id: string } | { state: 'absent' | 'mismatch' | 'undecided' } {
  const list = obj(answer._embedded).transactionSummaries;
  if (!Array.isArray(list)) return { state: 'absent' };
  const ours: Array<{ id: string; rCode: string; reasonCode: string | null; approval: string | null; amount: unknown; currency: unknown; pending: boolean }> = [];
  for (const s of list as Array<Record<string, unknown>>) {
    const id = str(obj(s).id);
    if (!id || obj(s.clientReferenceInformation).code !== op.reference) continue;
    const apps = obj(s.applicationInformation).applications;
    const app = Array.isArray(apps) ? (apps as Array<Record<string, unknown>>).find((a) => obj(a).name === APPLICATION[op.kind]) : undefined;
    if (!app) continue;
    const amounts = obj(obj(s.orderInformation).amountDetails);
    const status = str(app.status, 40);
    const rCode = op.kind === 'refund' && status && REFUND_FAILED.includes(status) ? 'failed' : String(app.rCode ?? '');
    // a refund accepted (rCode 1) is done only once its batch says so
    const batch = op.kind === 'refund' && rCode === '1' && !(status && REFUND_DONE.includes(status));
    ours.push({ id, rCode, reasonCode: str(app.reasonCode, 10), approval: str(obj(s.processorInformation).approvalCode, 40), amount: amounts.totalAmount, currency: amounts.currency, pending: batch || [app.reasonCode, obj(s.applicationInformation).reasonCode].some((c) => String(c ?? '') === '480') });
  }
  const pick = ours.find((s) => s.rCode === '1' && !s.pending) ?? ours.find((s) => s.pending) ?? ours.find((s) => s.rCode !== '1');
  if (!pick) return { state: 'absent' };
  const expected = op.kind === 'verify' ? 0 : op.amount;
  if ((pick.currency !== undefined && String(pick.currency).toUpperCase() !== op.currency) || (pick.amount !== undefined && fromAmount(pick.amount, op.currency) !== expected)) return { state: 'mismatch' };
  if (pick.pending) return { state: 'undecided' };
  if (pick.rCode === '1') return { state: 'found', id: pick.id, result: { outcome: 'APPROVED', authorization: op.kind === 'payment' || op.kind === 'preauth' || op.kind === 'verify' ? pick.approval ?? pick.id : pick.id, processorId: pick.id, amount: expected } };
  const reason = pick.reasonCode ? reasonOfCode(pick.reasonCode) ?? pick.reasonCode : 'PROCESSOR_DECLINED';
  if (pick.rCode === 'failed') return { state: 'found', id: pick.id, result: { outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: `CyberSource could not carry out the refund in its settlement batch (${reason})`, processorId: pick.id } };
  const r = pick.rCode === '0' ? refusalOf(reason) : { error: 'PROCESSOR_ERROR' as const, details: `CyberSource ${reason}: not processed` };
  return { state: 'found', id: pick.id, result: { outcome: 'DECLINED', error: r.error, details: r.details, processorId: pick.id } };
}
