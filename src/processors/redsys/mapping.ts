/**
 * The Redsys mapping (pure: no IO, no clock, no randomness). Our processor-neutral requests become
 * `Ds_MerchantParameters` objects; Redsys's verified answer parameters become our results.
 *
 * Which terminal: customer-initiated payments go through the secure (3-D Secure) terminal; MoTo and
 * merchant-initiated payments through the non-secure one; a follow-up (confirmation, cancellation,
 * refund) through the terminal of the payment it refers to, under that payment's order number.
 */
import { currencyByCode } from '../../platform/money/currency.js';
import type { BrowserInfo, CardData, PaymentRequest, ProcessorResult, SettledResult, ThreeDSResult } from '../connector.js';
import { inProgress, isApproval, normaliseCode, refusalOf, SOFT_DECLINE, type CodeKind } from './codes.js';
import { safeDecodeURIComponent, type SignatureVersion } from './signature.js';

/** Transaction types (`DS_MERCHANT_TRANSACTIONTYPE`). */
export const TX_TYPE = {
  AUTHORIZATION: '0',
  PREAUTHORIZATION: '1',
  CONFIRMATION: '2',
  REFUND: '3',
  CANCELLATION: '9',
} as const;
export type TxType = (typeof TX_TYPE)[keyof typeof TX_TYPE];

export interface RedsysTerminalKeys {
  /** 3 digits as Redsys numbers terminals (`001`). */
  terminal: string;
  key: string;
}

/** A REDSYSPSD2 terminal as the connector uses it (opened credentials). */
export interface RedsysTerminal {
  /** The merchant code (FUC), 9 digits. */
  fuc: string;
  secure: RedsysTerminalKeys;
  nonSecure: RedsysTerminalKeys;
  version: SignatureVersion;
}

export type Lane = 'secure' | 'nonSecure';

/** The terminal of a payment: secure for the customer's payments, non-secure for MoTo and MIT. */
export function laneFor(channel: PaymentRequest['channel']): Lane {
  return channel === 'MOTO' || channel === 'MIT' ? 'nonSecure' : 'secure';
}

/** Where an operation goes: merchant code, terminal and order number. */
export interface OrderRef {
  fuc: string;
  terminal: string;
  order: string;
}

/** The numeric ISO 4217 code Redsys wants (`978`). */
export function currencyNumber(alpha: string): string {
  const c = currencyByCode(alpha);
  if (!c) throw new Error(`not an ISO 4217 currency: ${alpha}`);
  return c.number;
}

/** `DS_MERCHANT_EXPIRYDATE`: YYMM. */
export function expiryYYMM(card: Pick<CardData, 'expiryMonth' | 'expiryYear'>): string {
  return `${String(card.expiryYear % 100).padStart(2, '0')}${String(card.expiryMonth).padStart(2, '0')}`;
}

function base(ref: OrderRef, type: TxType, amount: number, currency: string): Record<string, string> {
  return {
    DS_MERCHANT_ORDER: ref.order,
    DS_MERCHANT_MERCHANTCODE: ref.fuc,
    DS_MERCHANT_TERMINAL: ref.terminal,
    DS_MERCHANT_TRANSACTIONTYPE: type,
    DS_MERCHANT_AMOUNT: String(amount),
    DS_MERCHANT_CURRENCY: currencyNumber(currency),
  };
}

/** `DS_MERCHANT_COF_TYPE` of a stored credential's use: recurring, instalments, or other (unscheduled). */
export const COF_TYPE = { RECURRING: 'R', INSTALMENT: 'I', UNSCHEDULED: 'C' } as const;

/**
 * How a payment uses a stored credential (Redsys's COF fields), or null (none):
 * - `first`: the customer's payment that stores the card (`COF_INI=S`, `COF_TYPE=C`); Redsys answers the
 *   network transaction id (`Ds_Merchant_Cof_Txnid`) the card's later payments quote;
 * - `stored`: a later customer-initiated payment with the stored card (`COF_INI=N`, `COF_TYPE=C`,
 *   `COF_TXNID`);
 * - `mit`: a merchant-initiated payment (`COF_INI=N`, `COF_TYPE` R, I or C, `COF_TXNID` when known, with
 *   `EXCEP_SCA=MIT` and `DIRECTPAYMENT=true`).
 */
export type CofUse =
  | { kind: 'first' }
  | { kind: 'stored'; txnid: string }
  | { kind: 'mit'; type: (typeof COF_TYPE)[keyof typeof COF_TYPE]; txnid: string | null };

/**
 * The stored-credential use of a payment: `known` is the network transaction id Redsys gave the card's
 * first use under this merchant code (MIT: the one the request names first), or null. A customer's
 * payment with a card kept for later payments (stored by it, `storeCredential`, or earlier, `storedCard`)
 * is a first use while no id is known for the card here (the card may have been stored through another
 * processor), a later use once one is; MoTo payments carry none.
 */
export function cofUseOf(req: Pick<PaymentRequest, 'channel' | 'storeCredential' | 'storedCard' | 'mit'>, known: string | null): CofUse | null {
  if (req.channel === 'MIT') return { kind: 'mit', type: COF_TYPE[req.mit ?? 'UNSCHEDULED'], txnid: known };
  if (req.channel !== 'ECOMMERCE' || !(req.storeCredential || req.storedCard)) return null;
  return known ? { kind: 'stored', txnid: known } : { kind: 'first' };
}

export interface PaymentParametersInput {
  ref: OrderRef;
  type: typeof TX_TYPE.AUTHORIZATION | typeof TX_TYPE.PREAUTHORIZATION;
  amount: number;
  currency: string;
  card: CardData;
  channel: PaymentRequest['channel'];
  /** The stored-credential use (cofUseOf); null or absent: none. */
  cof?: CofUse | null;
  /** An authentication done elsewhere (an external MPI's `threeds_data`): sent as DS_MERCHANT_MPIEXTERNAL. */
  threeds?: ThreeDSResult | null;
  /** The gateway's notification URL (Redsys posts the signed result there too). */
  merchantUrl?: string | null;
}

/**
 * A payment with card data (authorization `0`, pre-authorization `1`), host to host.
 * - ECOMMERCE: the stored-credential fields of its `cof` use (none for a one-off payment).
 * - MIT: `COF_INI=N`, `COF_TYPE`, `COF_TXNID` (when known), `EXCEP_SCA=MIT`, `DIRECTPAYMENT=true`.
 * - MOTO: `DIRECTPAYMENT=moto` (no authentication).
 */
export function paymentParameters(i: PaymentParametersInput): Record<string, unknown> {
  const p: Record<string, unknown> = {
    ...base(i.ref, i.type, i.amount, i.currency),
    DS_MERCHANT_PAN: i.card.pan.reveal().replace(/\s+/g, ''),
    DS_MERCHANT_EXPIRYDATE: expiryYYMM(i.card),
  };
  if (i.card.cvv) p.DS_MERCHANT_CVV2 = i.card.cvv.reveal();
  const cof = i.cof ?? (i.channel === 'MIT' ? cofUseOf({ channel: 'MIT' }, null) : null);
  if (i.channel === 'MOTO') p.DS_MERCHANT_DIRECTPAYMENT = 'moto';
  else if (i.channel === 'MIT' && cof?.kind === 'mit') {
    p.DS_MERCHANT_COF_INI = 'N';
    p.DS_MERCHANT_COF_TYPE = cof.type;
    if (cof.txnid) p.DS_MERCHANT_COF_TXNID = cof.txnid;
    p.DS_MERCHANT_EXCEP_SCA = 'MIT';
    p.DS_MERCHANT_DIRECTPAYMENT = 'true';
  } else if (i.channel === 'ECOMMERCE' && cof?.kind === 'first') {
    p.DS_MERCHANT_COF_INI = 'S';
    p.DS_MERCHANT_COF_TYPE = COF_TYPE.UNSCHEDULED;
  } else if (i.channel === 'ECOMMERCE' && cof?.kind === 'stored') {
    p.DS_MERCHANT_COF_INI = 'N';
    p.DS_MERCHANT_COF_TYPE = COF_TYPE.UNSCHEDULED;
    p.DS_MERCHANT_COF_TXNID = cof.txnid;
  }
  if (i.threeds && i.channel === 'ECOMMERCE') {
    // an authentication the merchant did with its own 3DS server (an external MPI)
    const mpi = mpiExternal(i.threeds);
    if (mpi) p.DS_MERCHANT_MPIEXTERNAL = mpi;
  }
  if (i.merchantUrl) p.DS_MERCHANT_MERCHANTURL = i.merchantUrl;
  return p;
}

/** An EMV 3DS protocol version as Redsys writes it (`2.2.0`); `2` and `2.1` are completed. */
function protocolVersionOf(v: string): string {
  const parts = v.trim().split('.');
  if (parts.length === 1) return `${parts[0]}.1.0`;
  return parts.length === 2 ? `${parts[0]}.${parts[1]}.0` : v.trim();
}

/**
 * The authentication of an external MPI (the merchant's own 3DS server: `threeds_data`) as Redsys takes
 * it: `DS_MERCHANT_MPIEXTERNAL`, with the field names of Redsys's SIS error table (SIS0605–SIS0614;
 * `authenticacionValue` is Redsys's spelling). EMV 3DS 2: `protocolVersion`, `dsTransID`,
 * `authenticacionValue` (the CAVV), `Eci`; 3-D Secure 1: `TXID`, `CAVV`, `ECI`. Only an authenticated or
 * attempted result (transStatus Y or A) with its CAVV carries authentication data; otherwise null (an
 * acknowledged exemption, I, is sent without: Redsys applies its own rules).
 */
export function mpiExternal(t: ThreeDSResult): Record<string, string> | null {
  if ((t.transStatus !== 'Y' && t.transStatus !== 'A') || !t.cavv) return null;
  if (t.version.trim().startsWith('1.')) {
    return { ...(t.dsTransId ? { TXID: t.dsTransId } : {}), CAVV: t.cavv, ...(t.eci ? { ECI: t.eci } : {}) };
  }
  return {
    protocolVersion: protocolVersionOf(t.version),
    ...(t.dsTransId ? { dsTransID: t.dsTransId } : {}),
    authenticacionValue: t.cavv,
    ...(t.eci ? { Eci: t.eci.padStart(2, '0') } : {}),
  };
}

/**
 * An external 3-D Secure result that says the cardholder was not authenticated (transStatus other than
 * Y, A or I): the payment is refused without asking Redsys (MPIEXTERNAL has no field for a failed
 * authentication), as the sandbox refuses it.
 */
export function externalAuthenticationRefusal(t: ThreeDSResult | null | undefined): string | null {
  if (!t || t.transStatus === 'Y' || t.transStatus === 'A' || t.transStatus === 'I') return null;
  return `3-D Secure authentication not successful (the merchant's 3-D Secure result is transStatus ${t.transStatus})`;
}

/** DS_MERCHANT_EMV3DS of the card configuration (iniciaPeticion): which EMV 3DS the card has, and its 3DS method. */
export const CARD_DATA = { threeDSInfo: 'CardData' } as const;

/**
 * DS_MERCHANT_EMV3DS of the authentication (trataPeticion) in the EMV 3DS session the card configuration
 * opened: the browser's data, where the ACS posts the challenge's answer, whether the 3DS method ran
 * (`threeDSCompInd` Y, N, or U when there was none).
 */
export function authenticationData(session: { transId: string; protocolVersion: string }, browser: BrowserInfo, challengeNotification: string, methodCompleted: boolean | null): Record<string, unknown> {
  return {
    threeDSInfo: 'AuthenticationData',
    protocolVersion: session.protocolVersion,
    browserAcceptHeader: browser.acceptHeader,
    browserUserAgent: browser.userAgent,
    browserJavaEnabled: browser.javaEnabled,
    browserJavascriptEnabled: browser.javascriptEnabled,
    browserLanguage: browser.language,
    browserColorDepth: String(browser.colorDepth),
    browserScreenHeight: String(browser.screenHeight),
    browserScreenWidth: String(browser.screenWidth),
    browserTZ: String(browser.tz),
    threeDSServerTransID: session.transId,
    notificationURL: challengeNotification,
    threeDSCompInd: methodCompleted === null ? 'U' : methodCompleted ? 'Y' : 'N',
  };
}

/** DS_MERCHANT_EMV3DS of the final call after an ACS challenge: the ACS's answer as the browser posted it. */
export function challengeResponse(session: { protocolVersion: string }, cres: string): Record<string, unknown> {
  return { threeDSInfo: 'ChallengeResponse', protocolVersion: session.protocolVersion, cres };
}

/** A confirmation (`2`), refund (`3`) or cancellation (`9`) under the original payment's order number. */
export function followUpParameters(ref: OrderRef, type: typeof TX_TYPE.CONFIRMATION | typeof TX_TYPE.REFUND | typeof TX_TYPE.CANCELLATION, amount: number, currency: string): Record<string, unknown> {
  return base(ref, type, amount, currency);
}

/**
 * Card verification: an authorization of amount 0 on the non-secure terminal (`DIRECTPAYMENT=true`),
 * which checks that the card exists and can be charged without moving money.
 */
export function verificationParameters(ref: OrderRef, currency: string, card: CardData): Record<string, unknown> {
  const p: Record<string, unknown> = {
    ...base(ref, TX_TYPE.AUTHORIZATION, 0, currency),
    DS_MERCHANT_PAN: card.pan.reveal().replace(/\s+/g, ''),
    DS_MERCHANT_EXPIRYDATE: expiryYYMM(card),
    DS_MERCHANT_DIRECTPAYMENT: 'true',
  };
  if (card.cvv) p.DS_MERCHANT_CVV2 = card.cvv.reveal();
  return p;
}

/** A Bizum payment through the redirect page: `PAYMETHODS=z`, authorization, the gateway's URLs. */
export function bizumRedirectParameters(ref: OrderRef, amount: number, currency: string, urls: { merchantUrl: string; urlOk: string; urlKo: string }): Record<string, unknown> {
  return {
    ...base(ref, TX_TYPE.AUTHORIZATION, amount, currency),
    DS_MERCHANT_PAYMETHODS: 'z',
    DS_MERCHANT_MERCHANTURL: urls.merchantUrl,
    DS_MERCHANT_URLOK: urls.urlOk,
    DS_MERCHANT_URLKO: urls.urlKo,
  };
}

/**
 * 3-D Secure 1 (protocol 1.0.2), which the gateway does not support: Redsys says so in a card
 * configuration (`protocolVersion: "NO_3DS_v2"`) or in a challenge request for the 3DS 1 ACS
 * (`protocolVersion: "1.0.2"`, `MD` and `PAReq` instead of `creq`). The payment is refused then.
 */
export const THREEDS1_REFUSAL = 'Redsys asks for 3-D Secure 1 (protocol 1.0.2), which is not supported (only EMV 3-D Secure 2): the payment is refused';

/** Whether a `Ds_EMV3DS` of an answer is 3-D Secure 1 (see THREEDS1_REFUSAL). */
export function isThreeDS1(emv: unknown): boolean {
  if (!emv || typeof emv !== 'object') return false;
  const e = emv as Record<string, unknown>;
  const version = typeof e.protocolVersion === 'string' ? e.protocolVersion : '';
  return version === 'NO_3DS_v2' || version.startsWith('1.') || (e.threeDSInfo === 'ChallengeRequest' && (e.MD !== undefined || e.PAReq !== undefined));
}

/** What kind of approval code an operation expects. */
export function codeKindOf(type: TxType): CodeKind {
  switch (type) {
    case TX_TYPE.CONFIRMATION:
      return 'confirmation';
    case TX_TYPE.REFUND:
      return 'refund';
    case TX_TYPE.CANCELLATION:
      return 'cancellation';
    default:
      return 'payment';
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' ? safeDecodeURIComponent(v) : typeof v === 'number' ? String(v) : null);

/** What the connector learned from an answer, besides the result. */
export interface AnswerFacts {
  /** The network transaction id a merchant-initiated payment quotes later (`Ds_Merchant_Cof_Txnid`). */
  cofTxnid: string | null;
  /** `Ds_SecurePayment`: 0 not secure, 1 3-D Secure 1, 2 EMV 3-D Secure 2. */
  securePayment: string | null;
}

/**
 * The result of a verified answer (or notification, or query answer) for an operation we sent. Checks
 * first that it answers that operation (order number, merchant code, terminal, amount): an answer for
 * something else is UNKNOWN. `0195` on a payment is the soft decline (CHALLENGE); `9998` and `9999` say
 * the operation is in progress at Redsys (card data being requested; sent to the issuer to
 * authenticate): PENDING, decided later by Redsys's notification or its query service. A challenge
 * request for 3-D Secure 1 (which has no result code) is a clean refusal (AUTHENTICATION_FAILED).
 */
export function resultOfAnswer(
  params: Record<string, unknown>,
  expect: { ref: OrderRef; type: TxType; amount: number },
): { result: ProcessorResult; facts: AnswerFacts } {
  const facts: AnswerFacts = { cofTxnid: str(params.Ds_Merchant_Cof_Txnid), securePayment: str(params.Ds_SecurePayment) };
  const order = str(params.Ds_Order);
  const fuc = str(params.Ds_MerchantCode);
  const terminal = str(params.Ds_Terminal);
  if (order !== expect.ref.order) return { result: { outcome: 'UNKNOWN', details: 'Redsys answered for another order number' }, facts };
  if (fuc !== null && fuc !== expect.ref.fuc) return { result: { outcome: 'UNKNOWN', details: 'Redsys answered for another merchant code' }, facts };
  if (terminal !== null && Number(terminal) !== Number(expect.ref.terminal)) return { result: { outcome: 'UNKNOWN', details: 'Redsys answered for another terminal' }, facts };
  const type = str(params.Ds_TransactionType);
  if (type !== null && type !== expect.type) return { result: { outcome: 'UNKNOWN', details: 'Redsys answered for another type of operation' }, facts };
  const code = normaliseCode(params.Ds_Response);
  if (code === null && isThreeDS1(params.Ds_EMV3DS)) {
    return { result: { outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: THREEDS1_REFUSAL, processorId: expect.ref.order }, facts };
  }
  if (code === null) return { result: { outcome: 'UNKNOWN', details: 'Redsys answered without a result code' }, facts };
  const processorId = expect.ref.order;
  const pending = inProgress(code);
  if (pending) return { result: { outcome: 'PENDING', details: pending, processorId }, facts };
  if (isApproval(code, codeKindOf(expect.type))) {
    const amountRaw = str(params.Ds_Amount);
    const amount = amountRaw !== null && /^\d+$/.test(amountRaw) ? Number(amountRaw) : expect.amount;
    if (amount !== expect.amount) return { result: { outcome: 'UNKNOWN', details: `Redsys approved ${amount}, not the ${expect.amount} asked for` }, facts };
    const authorization = (str(params.Ds_AuthorisationCode) ?? '').trim();
    return { result: { outcome: 'APPROVED', authorization: authorization || code, processorId, amount }, facts };
  }
  if (code === SOFT_DECLINE && codeKindOf(expect.type) === 'payment') {
    return { result: { outcome: 'CHALLENGE', details: 'Redsys 0195: the issuer requires strong customer authentication' }, facts };
  }
  const r = refusalOf(code);
  return { result: { outcome: 'DECLINED', error: r.error, details: r.details, processorId }, facts };
}

/** The result of an `{"errorCode": "SIS0xxx"}` answer: nothing was done. */
export function resultOfErrorCode(errorCode: unknown): SettledResult {
  const code = normaliseCode(errorCode) ?? String(errorCode ?? '').slice(0, 20);
  const r = refusalOf(code);
  return { outcome: 'DECLINED', error: r.error, details: r.details, processorId: null };
}
