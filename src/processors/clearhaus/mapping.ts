/**
 * Clearhaus mapping (pure): our operations to the Gateway API's form parameters and its JSON answers back
 * to our results. No IO, no clock. The schemas of every request and answer are in spec.ts, with their
 * sources (docs.gateway.clearhaus.com; the clearhaus/gateway-api-docs repository it is built from).
 *
 * Facts used:
 *  - Base URLs: `https://gateway.clearhaus.com` (live accounts), `https://gateway.test.clearhaus.com`
 *    (test accounts) (#api-endpoint). HTTP Basic authentication: the API key as username, a blank
 *    password (#authentication); 401 for an invalid key.
 *  - Requests are form parameters with bracketed names (`card[pan]=...`, the documentation's curl
 *    examples); answers are JSON (HAL, `application/vnd.clearhaus-gateway.hal+json`) (#response-format).
 *  - Signing (#signing-requests, #rsa-signature): `Signature: <signing-api-key> RS256-hex <signature>`,
 *    the signature an RSASSA-PKCS1-v1_5 SHA-256 signature of the HTTP body, in hex. Required for the
 *    `moto` method and for every POST of a partner account; a signature given must be right.
 *  - POST /authorizations (#authorizations): amount (minor units, 0 allowed), currency, ip, reference (1-30
 *    printable ASCII), text_on_statement (2-22), credential_on_file (store|use), initiator
 *    (cardholder|merchant), series[type] (recurring|unscheduled: a first-in-series), series[previous][id]
 *    (the Clearhaus id of the series' previous approved authorization: a subsequent-in-series, initiated by
 *    the merchant by default, using the stored credential by default); exactly one payment method:
 *    card[pan|expire_month|expire_year|csc] (csc 3 digits; not with a subsequent-in-series) with
 *    card[3dsecure][v2][raw][eci|av|trans_status|message_version|message_type|ds_trans_id] (an external
 *    3-D Secure result), or moto[pan|expire_month|expire_year] (signed; no series, no credential on file,
 *    not merchant-initiated).
 *  - POST /authorizations/:id/captures (amount: the full or remaining amount when absent), /refunds
 *    (amount, likewise), /voids (no parameters) (#captures, #capture_refunds, #voids).
 *  - The answer of every transaction: `id` (a UUID), `status.code` (20000 approved, any other a decline:
 *    codes.ts), `status.message`, `processed_at`; an authorization's `csc.present|matches`, `3dsecure`,
 *    `series.type|tid|tlid` (a first-in-series); a capture's or refund's `amount`.
 *  - There is no way to read a transaction back: the GET endpoints were removed from the API (the
 *    documentation's change "Remove GET endpoints", 2019-08-27); no search by `reference` exists.
 */
import { createHash, sign } from 'node:crypto';
import { isIP } from 'node:net';
import type { CardData, PaymentRequest, ProcessorResult, ThreeDSResult } from '../connector.js';
import type { ClearhausSigning } from './credentials.js';
import { APPROVED, refusalOf, SCA_REQUIRED } from './codes.js';

export type ClearhausKind = 'payment' | 'preauth' | 'verify' | 'capture' | 'void' | 'refund';

export type Params = Array<[string, string]>;

export const PATHS = {
  authorizations: '/authorizations',
  captures: (id: string) => `/authorizations/${encodeURIComponent(id)}/captures`,
  voids: (id: string) => `/authorizations/${encodeURIComponent(id)}/voids`,
  refunds: (id: string) => `/authorizations/${encodeURIComponent(id)}/refunds`,
  account: '/account',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A form body as the documentation writes it: bracketed names as they are, values percent-encoded. */
export function formBody(params: Params): string {
  return params.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/gi, '[').replace(/%5D/gi, ']')}=${encodeURIComponent(v)}`).join('&');
}

/** The parameters of a form body (names as sent, with their brackets). */
export function parseForm(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!body) return out;
  for (const part of body.split('&')) {
    if (!part) continue;
    const i = part.indexOf('=');
    const dec = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return s;
      }
    };
    out[dec(i < 0 ? part : part.slice(0, i))] = i < 0 ? '' : dec(part.slice(i + 1));
  }
  return out;
}

/** The `Signature` header of a body: the signing API key, RS256-hex, the hex RSA SHA-256 signature. */
export function signatureOf(body: string, s: ClearhausSigning): string {
  return `${s.apiKey} RS256-hex ${sign('sha256', Buffer.from(body, 'utf8'), s.privateKey).toString('hex')}`;
}

/** The headers of a request: HTTP Basic with the API key and a blank password; the signature of a POST's body when the terminal signs. */
export function headersOf(t: { apiKey: string; signing: ClearhausSigning | null }, body: string | null): Record<string, string> {
  const h: Record<string, string> = { authorization: `Basic ${Buffer.from(`${t.apiKey}:`, 'utf8').toString('base64')}` };
  if (body !== null && t.signing) h.signature = signatureOf(body, t.signing);
  return h;
}

/**
 * Our reference as Clearhaus's `reference` (1-30 printable characters): a transaction uuid is 128 bits,
 * 25 base-36 digits; any other reference is its SHA-256's first 128 bits.
 */
export function referenceOf(reference: string): string {
  const hex = UUID.test(reference) ? reference.replace(/-/g, '') : createHash('sha256').update(reference, 'utf8').digest('hex').slice(0, 32);
  return BigInt(`0x${hex}`).toString(36).padStart(25, '0');
}

/** `text_on_statement`: 2-22 printable ASCII, not all digits nor all one character; null when the descriptor cannot be one. */
export function statementTextOf(descriptor: string | null | undefined): string | null {
  if (!descriptor) return null;
  const s = descriptor.trim();
  if (!/^[\x20-\x7E]{2,22}$/.test(s) || /^\d+$/.test(s) || /^(.)\1*$/.test(s)) return null;
  return s;
}

export const expireMonthOf = (c: Pick<CardData, 'expiryMonth'>) => String(c.expiryMonth).padStart(2, '0');
export const expireYearOf = (c: Pick<CardData, 'expiryYear'>) => String(c.expiryYear);

/**
 * An external 3-D Secure version 2 result as `[3dsecure][v2][raw]` (#authentication-3dsecure-v2); empty
 * when it is not a version 2 result. `message_type` is ARes: the gateway's result does not say whether a
 * challenge (RReq) took place.
 */
export function threedsRawOf(prefix: string, t: ThreeDSResult | null | undefined): Params {
  if (!t || !/^2\.\d\.\d$/.test(t.version) || !/^[A-Z]$/.test(t.transStatus)) return [];
  const p = `${prefix}[3dsecure][v2][raw]`;
  const out: Params = [[`${p}[trans_status]`, t.transStatus], [`${p}[message_version]`, t.version], [`${p}[message_type]`, 'ARes']];
  const eci = t.eci && /^\d{1,2}$/.test(t.eci) ? t.eci.padStart(2, '0') : null;
  if (eci) out.push([`${p}[eci]`, eci]);
  if (t.cavv && /^[A-Za-z0-9+/]{27}=?$/.test(t.cavv) && t.cavv.length === 28) out.push([`${p}[av]`, t.cavv]);
  if (t.dsTransId && UUID.test(t.dsTransId)) out.push([`${p}[ds_trans_id]`, t.dsTransId.toLowerCase()]);
  return out;
}

export interface AuthorizationInput {
  req: Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'card' | 'channel' | 'threeds' | 'storeCredential' | 'storedCard' | 'mit' | 'customerIp' | 'dynamicDescriptor'>;
  kind: 'payment' | 'preauth' | 'verify';
  /** A merchant-initiated payment: the Clearhaus id of the series' authorization it follows, when known. */
  previous: string | null;
}

/**
 * The parameters of an authorization (a payment, a pre-authorization, or a card verification of 0).
 * - ECOMMERCE: `card[...]` with its CSC and the external 3-D Secure result; a card being stored (or
 *   verified for later use) starts an unscheduled series (`series[type]`, `credential_on_file=store`);
 *   a stored card used again by the cardholder is `credential_on_file=use`.
 * - MOTO: `moto[...]` (no CSC, no series, no credential on file).
 * - MIT: `card[...]` without CSC or 3-D Secure, quoting the series' authorization
 *   (`series[previous][id]`: the merchant initiates, the stored credential is used); without one,
 *   `initiator=merchant` and `credential_on_file=use`.
 */
export function authorizationParams(i: AuthorizationInput): Params {
  const { req } = i;
  const card = req.card;
  const params: Params = [['amount', i.kind === 'verify' ? '0' : String(req.amount)], ['currency', req.currency]];
  if (req.customerIp && isIP(req.customerIp)) params.push(['ip', req.customerIp]);
  params.push(['reference', referenceOf(req.reference)]);
  const text = statementTextOf(req.dynamicDescriptor);
  if (text) params.push(['text_on_statement', text]);
  const pan = card.pan.reveal().replace(/\s+/g, '');
  if (req.channel === 'MOTO') {
    params.push(['moto[pan]', pan], ['moto[expire_month]', expireMonthOf(card)], ['moto[expire_year]', expireYearOf(card)]);
    return params;
  }
  const mit = req.channel === 'MIT';
  if (mit) {
    if (i.previous) params.push(['series[previous][id]', i.previous]);
    else params.push(['initiator', 'merchant'], ['credential_on_file', 'use']);
  } else if (req.storeCredential === true || i.kind === 'verify') {
    params.push(['series[type]', 'unscheduled'], ['credential_on_file', 'store']);
  } else if (req.storedCard === true) {
    params.push(['credential_on_file', 'use']);
  }
  params.push(['card[pan]', pan], ['card[expire_month]', expireMonthOf(card)], ['card[expire_year]', expireYearOf(card)]);
  const csc = card.cvv?.reveal();
  if (!mit && csc && /^\d{3}$/.test(csc)) params.push(['card[csc]', csc]);
  if (!mit) params.push(...threedsRawOf('card', req.threeds));
  return params;
}

/** A capture or a refund of an amount (Clearhaus would take the full or remaining amount without one: the amount is always sent). */
export function amountParams(amount: number): Params {
  return [['amount', String(amount)]];
}

const str = (v: unknown, max = 300): string | null => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : null);
const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

export interface AnswerFacts {
  id: string | null;
  code: number | null;
  message: string | null;
  amount: number | null;
  currency: string | null;
  /** A first-in-series authorization's scheme transaction id (`series.tid`). */
  seriesTid: string | null;
  cscMatches: boolean | null;
}

/** The facts of a transaction's answer. */
export function factsOf(a: Record<string, unknown>): AnswerFacts {
  const status = obj(a.status);
  const code = status && typeof status.code === 'number' && Number.isInteger(status.code) ? status.code : null;
  const id = str(a.id, 64);
  return {
    id: id && UUID.test(id) ? id : null,
    code,
    message: str(status?.message, 500),
    amount: typeof a.amount === 'number' && Number.isInteger(a.amount) ? a.amount : null,
    currency: str(a.currency, 3),
    seriesTid: str(obj(a.series)?.tid, 64),
    cscMatches: typeof obj(a.csc)?.matches === 'boolean' ? (obj(a.csc)!.matches as boolean) : null,
  };
}

/**
 * What an authorization's answer means. Approved: 20000 with its id, of the amount and currency asked
 * where the answer names them (answers are not signed: another amount or currency is not believed,
 * UNKNOWN). 40416 asks for strong customer authentication (CHALLENGE); any other code is a decline.
 */
export function authorizationResultOf(f: AnswerFacts, expect: { amount: number; currency: string }): ProcessorResult {
  if (f.code === null) return { outcome: 'UNKNOWN', details: 'Clearhaus answered without a status code' };
  if (f.code === APPROVED) {
    if (!f.id) return { outcome: 'UNKNOWN', details: 'Clearhaus approved without an authorization id' };
    if (f.amount !== null && f.amount !== expect.amount) return { outcome: 'UNKNOWN', details: `Clearhaus approved ${f.amount}, not the ${expect.amount} asked` };
    if (f.currency !== null && f.currency !== expect.currency) return { outcome: 'UNKNOWN', details: `Clearhaus approved in ${f.currency}, not the ${expect.currency} asked` };
    return { outcome: 'APPROVED', authorization: f.id, processorId: f.id, amount: expect.amount };
  }
  const r = refusalOf(f.code, f.message);
  if (f.code === SCA_REQUIRED) return { outcome: 'CHALLENGE', details: r.details };
  return { outcome: 'DECLINED', error: r.error, details: r.details, processorId: f.id };
}

/**
 * What a capture's, void's or refund's answer means (about the authorization `parent`). Approved: 20000,
 * of the amount asked where the answer names one; a decline is Clearhaus's code (a soft decline asks for
 * nothing here: PROCESSOR_ERROR).
 */
export function followUpResultOf(f: AnswerFacts, o: { kind: 'capture' | 'void' | 'refund'; amount: number; parent: string }): ProcessorResult {
  if (f.code === null) return { outcome: 'UNKNOWN', details: 'Clearhaus answered without a status code' };
  if (f.code === APPROVED) {
    if (o.kind !== 'void' && f.amount !== null && f.amount !== o.amount) return { outcome: 'UNKNOWN', details: `Clearhaus approved a ${o.kind} of ${f.amount}, not the ${o.amount} asked` };
    return { outcome: 'APPROVED', authorization: o.parent, processorId: o.parent, amount: o.amount };
  }
  const r = refusalOf(f.code, f.message);
  return { outcome: 'DECLINED', error: f.code === SCA_REQUIRED ? 'PROCESSOR_ERROR' : r.error, details: r.details, processorId: o.parent };
}

/** The words of a refused request (4xx) from its JSON answer, when it carries a status. */
export function refusalWords(a: Record<string, unknown> | null): string | null {
  if (!a) return null;
  const f = factsOf(a);
  return f.code !== null ? refusalOf(f.code, f.message).details : null;
}
