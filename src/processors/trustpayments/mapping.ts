/**
 * Trust Payments mapping (pure): our operations to the Webservices API's JSON (version "1.00") and its
 * answers back to our results. No IO, no clock (the request reference is given). The schemas of every
 * body are in spec.ts, with their sources.
 *
 * Facts used:
 *  - Every request: `POST {base}/json/`, HTTP Basic authentication with the Webservices alias and
 *    password, `Content-Type: application/json`, `Accept: application/json`; the body is an envelope
 *    {alias, version: "1.00", request: [ {requestreference, sitereference, requesttypedescriptions, ...} ]}
 *    and the answer {requestreference, version, response: [ {errorcode, errormessage, ...} ], secrand}:
 *    the answer names the request reference the request carried.
 *  - AUTH: accounttypedescription ECOM (e-commerce), MOTO (mail/telephone order), RECUR (a recurring or
 *    instalment payment); currencyiso3a; baseamount in minor units (a string); orderreference (the
 *    merchant's, returned with the answer and searchable by TRANSACTIONQUERY; 25 characters or fewer);
 *    pan, expirydate MM/YYYY, securitycode; settlestatus 2 (suspended: a pre-authorization, settled when
 *    it is updated to 0, cancelled when updated to 3); authmethod PRE for a pre-authorization; the
 *    stored credential flag credentialsonfile (1: the card is being stored with the customer's consent,
 *    2: a payment with a card stored before); a merchant-initiated payment quotes the first payment as
 *    parenttransactionreference, with initiationreason C (unscheduled) or, for a recurring or instalment
 *    payment, accounttypedescription RECUR and subscriptiontype RECURRING or INSTALLMENT.
 *  - ACCOUNTCHECK: the card checked without a payment (baseamount 0).
 *  - The answer: errorcode "0" (Ok), 70000 (Decline, authcode DECLINED), 71000 (Soft Decline: SCA
 *    required), codes with an outcome not known yet (codes.ts UNDECIDED); transactionreference,
 *    authcode, acquirerresponsecode ("00"), settlestatus (0, 1, 10 authorised; 2 suspended; 3
 *    cancelled; 100 settled), baseamount, orderreference, errordata (the fields in error).
 *  - TRANSACTIONUPDATE: {filter: {sitereference: [{value}], transactionreference: [{value}]}, updates:
 *    {settlestatus, settlebaseamount}}: a capture of a suspended pre-authorization (settlestatus 0, the
 *    amount to settle), a cancellation (settlestatus 3).
 *  - REFUND: parenttransactionreference (the payment), baseamount (a partial refund), orderreference.
 *  - TRANSACTIONQUERY: {filter: {sitereference: [{value}], orderreference: [{value}]}} → records (the
 *    requests processed under that order reference, each with its requesttypedescription, errorcode,
 *    settlestatus, transactionreference, baseamount, authcode, parenttransactionreference).
 */
import { createHash } from 'node:crypto';
import type { CardData, PaymentRequest, ProcessorResult } from '../connector.js';
import { refusalOf, SOFT_DECLINES, UNDECIDED } from './codes.js';

export const VERSION = '1.00';
export const PATH = '/json/';

export type TrustpaymentsKind = 'payment' | 'preauth' | 'verify' | 'capture' | 'void' | 'refund';

/** The headers of every request: HTTP Basic with the Webservices alias and password, JSON both ways. */
export function headersOf(t: { alias: string; password: string }): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${t.alias}:${t.password}`, 'utf8').toString('base64')}`, 'content-type': 'application/json', accept: 'application/json' };
}

/** The envelope of one request. */
export function envelopeOf(alias: string, request: Record<string, unknown>): Record<string, unknown> {
  return { alias, version: VERSION, request: [request] };
}

/**
 * Our reference as Trust Payments' `orderreference` (25 characters or fewer, or the acquirer may cut it):
 * a transaction uuid is 128 bits, 25 base-36 digits; any other reference is its SHA-256's first 128 bits.
 * The same reference always gives the same order reference (the reconciler searches by it).
 */
export function orderReferenceOf(reference: string): string {
  const hex = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(reference)
    ? reference.replace(/-/g, '')
    : createHash('sha256').update(reference, 'utf8').digest('hex').slice(0, 32);
  return BigInt(`0x${hex}`).toString(36).padStart(25, '0');
}

/** `expirydate`: MM/YYYY. */
export function expiryOf(card: Pick<CardData, 'expiryMonth' | 'expiryYear'>): string {
  return `${String(card.expiryMonth).padStart(2, '0')}/${card.expiryYear}`;
}

export interface PaymentInput {
  req: Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'card' | 'channel' | 'storeCredential' | 'storedCard' | 'mit'>;
  kind: 'payment' | 'preauth' | 'verify';
  sitereference: string;
  requestreference: string;
  /** A merchant-initiated payment: the transaction reference of the card's first payment here, if known. */
  parent: string | null;
}

/**
 * An AUTH (a payment; a pre-authorization, suspended until captured) or an ACCOUNTCHECK (a card
 * verification, which stores the card for later payments) with card data.
 * - ECOMMERCE: ECOM, with credentialsonfile 1 when the card is being stored, 2 when it was stored before.
 * - MOTO: MOTO.
 * - MIT: the first payment as parent (the card stored with it), no security code; RECURRING and
 *   INSTALMENT as RECUR with their subscription type, others unscheduled (initiationreason C).
 */
export function paymentRequest(i: PaymentInput): Record<string, unknown> {
  const { req } = i;
  const card = req.card;
  const mit = req.channel === 'MIT';
  const recur = mit && (req.mit === 'RECURRING' || req.mit === 'INSTALMENT');
  const body: Record<string, unknown> = {
    requestreference: i.requestreference,
    sitereference: i.sitereference,
    requesttypedescriptions: [i.kind === 'verify' ? 'ACCOUNTCHECK' : 'AUTH'],
    accounttypedescription: recur ? 'RECUR' : req.channel === 'MOTO' ? 'MOTO' : 'ECOM',
    currencyiso3a: req.currency,
    baseamount: i.kind === 'verify' ? '0' : String(req.amount),
    orderreference: orderReferenceOf(req.reference),
    pan: card.pan.reveal().replace(/\s+/g, ''),
    expirydate: expiryOf(card),
  };
  if (card.cvv && !mit) body.securitycode = card.cvv.reveal();
  if (i.kind === 'preauth') {
    body.settlestatus = '2';
    body.authmethod = 'PRE';
  }
  if (mit) {
    body.credentialsonfile = '2';
    if (i.parent) body.parenttransactionreference = i.parent;
    if (recur) body.subscriptiontype = req.mit === 'RECURRING' ? 'RECURRING' : 'INSTALLMENT';
    else body.initiationreason = 'C';
  } else if (req.channel === 'ECOMMERCE') {
    if (req.storeCredential === true || i.kind === 'verify') body.credentialsonfile = '1';
    else if (req.storedCard === true) body.credentialsonfile = '2';
  }
  return body;
}

/** A capture (settlestatus 0 with the amount to settle) or a cancellation (settlestatus 3) of a suspended pre-authorization. */
export function updateRequest(o: { sitereference: string; requestreference: string; transactionreference: string; kind: 'capture' | 'void'; amount: number }): Record<string, unknown> {
  return {
    requestreference: o.requestreference,
    requesttypedescriptions: ['TRANSACTIONUPDATE'],
    filter: { sitereference: [{ value: o.sitereference }], transactionreference: [{ value: o.transactionreference }] },
    updates: o.kind === 'capture' ? { settlestatus: '0', settlebaseamount: String(o.amount) } : { settlestatus: '3' },
  };
}

/** A refund of a payment (whole or partial), under our refund's own order reference. */
export function refundRequest(o: { sitereference: string; requestreference: string; reference: string; parent: string; amount: number }): Record<string, unknown> {
  return {
    requestreference: o.requestreference,
    sitereference: o.sitereference,
    requesttypedescriptions: ['REFUND'],
    parenttransactionreference: o.parent,
    baseamount: String(o.amount),
    orderreference: orderReferenceOf(o.reference),
  };
}

/** The requests processed under one of our references. */
export function queryRequest(o: { sitereference: string; requestreference: string; reference: string }): Record<string, unknown> {
  return {
    requestreference: o.requestreference,
    requesttypedescriptions: ['TRANSACTIONQUERY'],
    filter: { sitereference: [{ value: o.sitereference }], orderreference: [{ value: orderReferenceOf(o.reference) }] },
  };
}

const str = (v: unknown, max = 300): string | null => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : null);
const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/**
 * The one response of an answer, when the answer is to our request (it names its request reference);
 * null otherwise (an answer to something else, or not Trust Payments' shape: not believed).
 */
export function responseOf(answer: Record<string, unknown>, requestreference: string): Record<string, unknown> | null {
  if (answer.requestreference !== requestreference) return null;
  const list = Array.isArray(answer.response) ? answer.response : null;
  if (!list || list.length !== 1) return null;
  const r = obj(list[0]);
  return r && typeof r.errorcode === 'string' ? r : null;
}

export interface ResponseFacts {
  errorcode: string;
  errormessage: string | null;
  errordata: string[];
  transactionreference: string | null;
  authcode: string | null;
  settlestatus: string | null;
  baseamount: number | null;
  orderreference: string | null;
  requesttypedescription: string | null;
  parenttransactionreference: string | null;
}

/** The facts of a response (or of a TRANSACTIONQUERY record). */
export function factsOf(r: Record<string, unknown>): ResponseFacts {
  const amount = str(r.baseamount, 13);
  return {
    errorcode: str(r.errorcode, 10) ?? '',
    errormessage: str(r.errormessage, 500),
    errordata: Array.isArray(r.errordata) ? r.errordata.filter((x): x is string => typeof x === 'string') : [],
    transactionreference: str(r.transactionreference, 64),
    authcode: str(r.authcode, 64),
    settlestatus: str(r.settlestatus, 4),
    baseamount: amount && /^\d+$/.test(amount) ? Number(amount) : null,
    orderreference: str(r.orderreference, 64),
    requesttypedescription: str(r.requesttypedescription, 30),
    parenttransactionreference: str(r.parenttransactionreference, 64),
  };
}

/**
 * What a payment's, verification's or refund's response means. Approved: errorcode 0 and not cancelled
 * (settlestatus 3), of the amount asked, with its transaction reference. A soft decline asks for 3-D
 * Secure; an outcome not known yet is UNKNOWN (the reconciler asks); any other code is a refusal.
 */
export function resultOf(f: ResponseFacts, expect: { amount: number; orderreference: string | null }): ProcessorResult {
  if (f.errorcode === '0') {
    if (!f.transactionreference) return { outcome: 'UNKNOWN', details: 'Trust Payments answered Ok without a transaction reference' };
    if (expect.orderreference && f.orderreference && f.orderreference !== expect.orderreference) return { outcome: 'UNKNOWN', details: 'Trust Payments answered about another order reference' };
    if (f.baseamount !== null && f.baseamount !== expect.amount) return { outcome: 'UNKNOWN', details: `Trust Payments answered Ok for ${f.baseamount}, not the ${expect.amount} asked` };
    if (f.settlestatus === '3') return { outcome: 'DECLINED', error: 'DENIED', details: 'Trust Payments: the payment was cancelled (settlestatus 3)', processorId: f.transactionreference };
    return { outcome: 'APPROVED', authorization: (f.authcode ?? f.transactionreference).slice(0, 40), processorId: f.transactionreference, amount: expect.amount };
  }
  if (SOFT_DECLINES.has(f.errorcode)) return { outcome: 'CHALLENGE', details: refusalOf(f.errorcode, f.errormessage).details };
  if (UNDECIDED.has(f.errorcode)) return { outcome: 'UNKNOWN', details: `Trust Payments has not decided yet: ${f.errormessage ?? 'no message'} (errorcode ${f.errorcode})` };
  const r = refusalOf(f.errorcode, f.errormessage, f.errordata);
  return { outcome: 'DECLINED', error: r.error, details: r.details, processorId: f.transactionreference };
}

/** What a TRANSACTIONUPDATE's response means (a capture or cancellation of the payment). */
export function updateResultOf(f: ResponseFacts, o: { kind: 'capture' | 'void'; amount: number; parent: string; authorization: string | null }): ProcessorResult {
  if (f.errorcode === '0') return { outcome: 'APPROVED', authorization: (o.authorization || o.parent).slice(0, 40), processorId: o.parent, amount: o.amount };
  if (UNDECIDED.has(f.errorcode)) return { outcome: 'UNKNOWN', details: `Trust Payments has not decided the ${o.kind === 'capture' ? 'capture' : 'cancellation'} yet (errorcode ${f.errorcode})` };
  const r = refusalOf(f.errorcode, f.errormessage, f.errordata);
  return { outcome: 'DECLINED', error: r.error === 'DENIED' ? 'PROCESSOR_ERROR' : r.error, details: r.details, processorId: o.parent };
}

/** The records of a TRANSACTIONQUERY's response; null when it is not one (or it failed). */
export function recordsOf(r: Record<string, unknown>): ResponseFacts[] | null {
  if (r.errorcode !== '0') return null;
  const list = Array.isArray(r.records) ? r.records : [];
  return list.map((x) => obj(x)).filter((x): x is Record<string, unknown> => x !== null).map(factsOf);
}

/**
 * The record of one of our operations among a query's records: the request of its type (AUTH,
 * ACCOUNTCHECK or REFUND) under its order reference; the last one when several (a retried request).
 */
export function recordOf(records: ResponseFacts[], o: { kind: TrustpaymentsKind; orderreference: string }): ResponseFacts | null {
  const type = o.kind === 'verify' ? 'ACCOUNTCHECK' : o.kind === 'refund' ? 'REFUND' : 'AUTH';
  const mine = records.filter((r) => r.requesttypedescription === type && (r.orderreference === null || r.orderreference === o.orderreference));
  return mine.at(-1) ?? null;
}
