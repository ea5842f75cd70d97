/**
 * Credorax Source gateway (pure): our requests as the gateway's parameters and its answers as facts.
 * The protocol is one URL taking form posts (`application/x-www-form-urlencoded`) of short-named
 * parameters and answering the same way: `M` the gateway merchant, `O` the operation, `K` the signature,
 * `a*` the transaction, `b*` the card, `c*` the cardholder, `g*` the earlier transaction a follow-up
 * refers to, `3ds_*` 3-D Secure; the answer's `z*` are the result (spec.ts lists them with sources).
 *
 * Signing (the `K` parameter): the values of every parameter but `K`, in the order of their names
 * (sorted: digits before upper case before lower case, character by character), each with `<`, `>`,
 * `"`, `'`, `(`, `)` and `\` replaced by a space and trimmed, concatenated, the signing key appended,
 * and hashed with SHA-256 (lower-case hex). Older accounts sign with MD5 the same way; this connector
 * signs with SHA-256. Answers carry their own `K`, made the same way over the answer's parameters: an
 * answer whose `K` does not verify is not believed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { BrowserInfo, FollowUpRequest, PaymentRequest, ProcessorResult, ThreeDSResult } from '../connector.js';
import { refusalOf, SCA_REQUIRED } from './codes.js';
import type { CredoraxMerchant } from './credentials.js';

export type Params = Record<string, string>;

/** Operation codes (`O`). */
export const OPERATION = { sale: '1', auth: '2', capture: '3', authVoid: '4', refund: '5', saleVoid: '7', captureVoid: '9', threedsCompletion: '92', retrieval: '101' } as const;

export type CredoraxKind = 'payment' | 'preauth' | 'verify' | 'capture' | 'void' | 'refund';

const rank = (c: string) => (c >= '0' && c <= '9' ? 0 : c >= 'A' && c <= 'Z' ? 1 : 2);

/** Parameter names in signing order. */
export function signingOrder(names: string[]): string[] {
  return [...names].sort((a, b) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (a[i] === b[i]) continue;
      const d = rank(a[i]) - rank(b[i]);
      return d !== 0 ? d : a[i] < b[i] ? -1 : 1;
    }
    return a.length - b.length;
  });
}

/** A value as it enters the signature. */
export function signingValue(v: string): string {
  return v.replace(/[<>"'()\\]/g, ' ').trim();
}

/** The signature (`K`) of parameters with a signing key. */
export function signatureOf(params: Params, key: string, algorithm: 'sha256' | 'md5' = 'sha256'): string {
  const names = signingOrder(Object.keys(params).filter((k) => k !== 'K'));
  return createHash(algorithm).update(names.map((k) => signingValue(params[k])).join('') + key, 'utf8').digest('hex');
}

/** The parameters with their signature. */
export function signed(params: Params, key: string): Params {
  return { ...params, K: signatureOf(params, key) };
}

/** Whether an answer's `K` is its signature with this key. */
export function answerVerifies(params: Params, key: string): boolean {
  const k = params.K;
  if (typeof k !== 'string' || !/^[0-9a-fA-F]{64}$/.test(k)) return false;
  return timingSafeEqual(Buffer.from(k.toLowerCase()), Buffer.from(signatureOf(params, key)));
}

/** A form answer's parameters (null: not a form answer). */
export function parseAnswer(text: string | null | undefined): Params | null {
  if (!text || !/^[^\s=&]+=/.test(text.trim())) return null;
  const out: Params = {};
  for (const [k, v] of new URLSearchParams(text.trim())) out[k] = v;
  return 'z2' in out || 'K' in out ? out : null;
}

/** The request id (`a1`, 32 characters at most, unique per merchant) of our reference. */
export function requestIdOf(reference: string): string {
  const hex = reference.replace(/-/g, '');
  return /^[0-9a-fA-F]{32}$/.test(hex) ? hex.toLowerCase() : createHash('sha256').update(reference).digest('hex').slice(0, 32);
}

/**
 * Free text as plain printable ASCII (accents dropped, other characters removed): every value is signed,
 * and the sources sign ASCII bytes, so no text leaves it to an encoding which bytes were signed.
 */
export function ascii(v: string): string {
  return v.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^\x20-\x7e]/g, '').trim();
}

const two = (n: number) => String(n % 100).padStart(2, '0');

function merchantParams(m: CredoraxMerchant): Params {
  return {
    M: m.merchantId,
    ...(m.subMerchantId ? { h3: m.subMerchantId } : {}),
    ...(m.targetMid ? { r2: m.targetMid } : {}),
    ...(m.subMerchantPhone ? { h8: m.subMerchantPhone } : {}),
  };
}

/** A UTC time as `3ds_purchasedate` writes it (yyyyMMddHHmmss). */
export function purchaseDate(d: Date): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** Integrated 3-D Secure: where the cardholder comes back after a challenge and the browser's data. */
export interface ThreedsInitiate {
  redirectUrl: string;
  browser: BrowserInfo;
}

/**
 * A payment (sale `O=1`; authorization `O=2` for a pre-authorization and for a card verification of
 * zero amount, `a9=5`). Stored credentials (`a9`): 9 a cardholder-initiated payment storing the card or
 * using a stored one; 2 a recurring merchant-initiated payment, 8 an unscheduled (or instalment) one,
 * both quoting the first payment's scheme reference (`g6`). MoTo: `a2=3` (manual entry).
 */
export function paymentParams(
  req: Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'card' | 'channel' | 'threeds' | 'dynamicDescriptor' | 'storeCredential' | 'storedCard' | 'mit' | 'customerIp' | 'now'>,
  m: CredoraxMerchant,
  o: { kind: 'payment' | 'preauth' | 'verify'; partial?: boolean; previous?: string | null; initiate?: ThreedsInitiate | null },
): Params {
  const p: Params = {
    ...merchantParams(m),
    O: o.kind === 'payment' ? OPERATION.sale : OPERATION.auth,
    a1: requestIdOf(req.reference),
    a4: String(o.kind === 'verify' ? 0 : req.amount),
    a5: req.currency,
    b1: req.card.pan.reveal().replace(/\s+/g, ''),
    b3: two(req.card.expiryMonth),
    b4: two(req.card.expiryYear),
    d1: req.customerIp && /^[0-9.]{7,15}$/.test(req.customerIp) ? req.customerIp : '127.0.0.1',
  };
  const cvv = req.card.cvv?.reveal();
  if (cvv && /^\d{3,4}$/.test(cvv)) p.b5 = cvv;
  const holder = req.card.holder ? ascii(req.card.holder) : null;
  if (holder && holder.length >= 5 && holder.length <= 64) p.c1 = holder;
  const descriptor = req.dynamicDescriptor ? ascii(req.dynamicDescriptor).slice(0, 39) : '';
  if (descriptor) p.i2 = descriptor;
  if (o.partial) p.a14 = '1';
  if (o.kind === 'verify') p.a9 = '5';
  else if (req.channel === 'MIT') {
    p.a9 = req.mit === 'RECURRING' ? '2' : '8';
    if (o.previous) p.g6 = o.previous;
  } else if (req.storeCredential === true || req.storedCard === true) p.a9 = '9';
  if (req.channel === 'MOTO') p.a2 = '3';
  const t = req.threeds;
  if (req.channel === 'ECOMMERCE' && t && !o.initiate) {
    // authentication done elsewhere (an external MPI): its result, ECI:CAVV:XID
    p.i8 = `${t.eci ?? '07'}:${t.cavv ?? 'none'}:none`;
    p['3ds_version'] = t.version.startsWith('1') ? '1.0' : t.version;
    if (t.dsTransId) p['3ds_dstrxid'] = t.dsTransId;
  }
  if (o.initiate) {
    const b = o.initiate.browser;
    Object.assign(p, {
      '3ds_initiate': '01',
      '3ds_redirect_url': o.initiate.redirectUrl,
      '3ds_channel': '02',
      '3ds_transtype': '01',
      '3ds_challengewindowsize': '05',
      '3ds_purchasedate': purchaseDate(req.now),
      '3ds_browseracceptheader': ascii(b.acceptHeader).slice(0, 2048),
      '3ds_browserjavaenabled': String(b.javaEnabled),
      '3ds_browserjavascriptenabled': String(b.javascriptEnabled),
      '3ds_browsercolordepth': String([1, 4, 8, 15, 16, 24, 32, 48].includes(b.colorDepth) ? b.colorDepth : 24),
      '3ds_browserscreenheight': String(b.screenHeight),
      '3ds_browserscreenwidth': String(b.screenWidth),
      '3ds_browsertz': String(b.tz),
      d5: ascii(b.userAgent).slice(0, 255) || 'unknown',
      d6: ascii(b.language).slice(0, 16) || 'en',
    });
  }
  return p;
}

/** What a follow-up refers to: the earlier answer's `z1`, `z4` and our `a1`. */
export interface Referral {
  responseId: string;
  authCode: string | null;
  requestId: string;
}

/**
 * A capture (`O=3`), a release of a pre-authorization (authorization void, `O=4`) or a refund
 * (referral credit, `O=5`), referring to the earlier transaction (`g2` its z1, `g3` its z4, `g4` its a1).
 */
export function followUpParams(kind: 'capture' | 'void' | 'refund', req: Pick<FollowUpRequest, 'reference' | 'amount' | 'currency'>, m: CredoraxMerchant, to: Referral): Params {
  return {
    ...merchantParams(m),
    O: kind === 'capture' ? OPERATION.capture : kind === 'void' ? OPERATION.authVoid : OPERATION.refund,
    a1: requestIdOf(req.reference),
    a4: String(req.amount),
    ...(kind === 'void' ? {} : { a5: req.currency }),
    d1: '127.0.0.1',
    g2: to.responseId,
    ...(to.authCode ? { g3: to.authCode } : {}),
    g4: to.requestId,
  };
}

/**
 * The retrieval (`O=101`) of the transaction Credorax holds under one of our request ids (`g4`): how a
 * lost or disbelieved answer is found again. `a1` is the retrieval's own request id.
 */
export function retrievalParams(m: CredoraxMerchant, requestId: string, nonce: string): Params {
  return { M: m.merchantId, O: OPERATION.retrieval, a1: requestIdOf(`${requestId}:retrieval:${nonce}`), d1: '127.0.0.1', g4: requestId };
}

/** The 3-D Secure completion (`O=92`) of a payment that waited for the challenge. */
export function completionParams(m: CredoraxMerchant, reference: string, challengeResponseId: string, trxid: string): Params {
  return { ...merchantParams(m), O: OPERATION.threedsCompletion, a1: requestIdOf(`${reference}:3ds`), g2: challengeResponseId, '3ds_trxid': trxid };
}

// ---- answers ------------------------------------------------------------------------------------------------

export interface AnswerFacts {
  requestId: string | null;
  responseId: string | null;
  code: string;
  words: string | null;
  authCode: string | null;
  issuerCode: string | null;
  approvedAmount: number | null;
  amount: number | null;
  /** The scheme's reference of the transaction (`z7`), kept for merchant-initiated payments. */
  networkId: string | null;
  threeds: { status: string | null; eci: string | null; cavv: string | null; version: string | null; dsTransId: string | null; acsUrl: string | null; trxid: string | null; acsTransId: string | null };
}

const val = (p: Params, k: string): string | null => (typeof p[k] === 'string' && p[k] !== '' && p[k] !== '-' ? p[k] : null);
const int = (v: string | null): number | null => (v !== null && /^\d{1,12}$/.test(v) ? Number(v) : null);

export function factsOf(p: Params): AnswerFacts {
  return {
    requestId: val(p, 'a1'),
    responseId: val(p, 'z1'),
    code: val(p, 'z2') ?? '',
    words: val(p, 'z3'),
    authCode: val(p, 'z4'),
    issuerCode: val(p, 'z6'),
    approvedAmount: int(val(p, 'z15')),
    amount: int(val(p, 'a4')),
    networkId: val(p, 'z7'),
    threeds: { status: val(p, '3ds_status'), eci: val(p, '3ds_eci'), cavv: val(p, '3ds_cavv'), version: val(p, '3ds_version'), dsTransId: val(p, '3ds_dstrxid'), acsUrl: val(p, '3ds_acsurl'), trxid: val(p, '3ds_trxid'), acsTransId: val(p, '3ds_acstrxid') },
  };
}

/** Why an answer is not the one of the operation sent (null: it is). */
export function mismatch(f: AnswerFacts, expect: { requestId: string; amount: number | null }): string | null {
  if (f.requestId !== expect.requestId) return `Credorax answered about another request (a1 ${f.requestId ?? 'missing'})`;
  if (expect.amount !== null && f.amount !== null && f.amount !== expect.amount) return `Credorax answered for another amount (${f.amount}, not ${expect.amount})`;
  return null;
}

export interface ChallengeFacts {
  acsUrl: string;
  trxid: string;
  acsTransId: string | null;
  responseId: string;
}

/** The result an answer gives (and, for a 3-D Secure challenge, what the cardholder's browser needs). */
export function resultOf(f: AnswerFacts, o: { amount: number; partial?: boolean }): { result: ProcessorResult; challenge: ChallengeFacts | null } {
  if (f.threeds.status === 'C' && f.threeds.acsUrl && f.threeds.trxid && f.responseId) {
    return { result: { outcome: 'CHALLENGE', details: 'Credorax asks for the 3-D Secure challenge' }, challenge: { acsUrl: f.threeds.acsUrl, trxid: f.threeds.trxid, acsTransId: f.threeds.acsTransId, responseId: f.responseId } };
  }
  if (f.code === '0') {
    if (!f.responseId) return { result: { outcome: 'UNKNOWN', details: 'Credorax approved without a response id (z1)' }, challenge: null };
    const amount = f.approvedAmount ?? f.amount ?? o.amount;
    if (amount > o.amount || (amount < o.amount && !o.partial)) return { result: { outcome: 'UNKNOWN', details: `Credorax approved ${amount} of ${o.amount} without a partial approval asked` }, challenge: null };
    return { result: { outcome: 'APPROVED', authorization: f.authCode ?? f.responseId, processorId: f.responseId, amount, cofTxnid: f.networkId }, challenge: null };
  }
  if (!/^-?\d{1,3}$/.test(f.code)) return { result: { outcome: 'UNKNOWN', details: 'Credorax answered without a result code (z2)' }, challenge: null };
  if (f.issuerCode === SCA_REQUIRED) return { result: { outcome: 'CHALLENGE', details: 'The issuer asks for strong customer authentication (1A)' }, challenge: null };
  const r = refusalOf(f.code, f.issuerCode, f.words);
  return { result: { outcome: 'DECLINED', error: r.error, details: r.details, processorId: f.responseId }, challenge: null };
}

/** The 3-D Secure result an answer carries (null: none). */
export function threedsOf(f: AnswerFacts): ThreeDSResult | null {
  const t = f.threeds;
  if (!t.status || t.status === 'C') return null;
  return { version: t.version ?? '2.2.0', transStatus: t.status, eci: t.eci, cavv: t.cavv, dsTransId: t.dsTransId };
}

/** The EMV CReq the cardholder's browser posts to the ACS (base64url JSON). */
export function creqOf(c: ChallengeFacts, version = '2.2.0'): string {
  return Buffer.from(JSON.stringify({ threeDSServerTransID: c.trxid, ...(c.acsTransId ? { acsTransID: c.acsTransId } : {}), messageType: 'CReq', messageVersion: version, challengeWindowSize: '05' })).toString('base64url');
}
