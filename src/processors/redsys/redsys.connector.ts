/**
 * The Redsys connector: the IO around the pure mapping. For every operation it
 *  1. records the operation and its Redsys order number (a new one for a payment, the payment's for a
 *     follow-up) in one statement, before anything is sent (so the reconciler knows what may exist);
 *  2. signs the parameters with the terminal's key (HMAC_SHA256_V1 or HMAC_SHA512_V2) and posts them to
 *     `{PAYGATE_REDSYS_URL}/sis/rest/trataPeticionREST` through the gateway's outgoing HTTP client
 *     (timeouts, size cap, only the configured host);
 *  3. verifies the answer's signature before reading anything in it: a bad or missing signature is an
 *     UNKNOWN outcome (the transaction stays PENDING for the reconciler), logged without secrets; an
 *     operation Redsys answers as in progress (Ds_Response 9998/9999) is PENDING, decided later by
 *     Redsys's notification or its query service.
 * `lookup` asks Redsys's query service (`/apl02/services/SerClsWSConsulta`) for an operation by its order
 * number and type.
 */
import type { Logger } from 'pino';
import type { Executor } from '../../platform/db/database.js';
import { OutgoingError, type OutgoingClient } from '../../platform/net/outgoing.js';
import type {
  AcquirerThreeDS,
  ApmStartRequest,
  ApmStartResult,
  NotificationResult,
  AuthenticateRequest,
  BrowserInfo,
  ThreeDSPayment,
  ThreeDSResult,
  ThreeDSStart,
  AuthenticationResult,
  Connector,
  FollowUpRequest,
  LookupRequest,
  LookupResult,
  PaymentRequest,
  PayoutRequest,
  ProcessorResult,
  TerminalRef,
  VerifyCardRequest,
  VerifyCardResult,
  VerifyHolderRequest,
  VerifyHolderResult,
} from '../connector.js';
import { normaliseCode, refusalOf } from './codes.js';
import {
  authenticationData,
  bizumRedirectParameters,
  CARD_DATA,
  challengeResponse,
  cofUseOf,
  externalAuthenticationRefusal,
  followUpParameters,
  isThreeDS1,
  laneFor,
  paymentParameters,
  resultOfAnswer,
  resultOfErrorCode,
  THREEDS1_REFUSAL,
  TX_TYPE,
  verificationParameters,
  type AnswerFacts,
  type CofUse,
  type Lane,
  type OrderRef,
  type RedsysTerminal,
  type TxType,
} from './mapping.js';
import { queryRequestXml, readQueryAnswer } from './query.js';
import { findCof, findOperation, keepCof, newOrderNumber, operationsOfOrder, recordOperation, saveEmv3ds, type RedsysOperation } from './redsys.repo.js';
import { decodeParameters, openMessage, safeDecodeURIComponent, signMessage } from './signature.js';

export const REDSYS_PRODUCTION_URL = 'https://sis.redsys.es';
export const REDSYS_TEST_URL = 'https://sis-t.redsys.es:25443';

export interface RedsysConnectorOptions {
  /** Base URL of Redsys (PAYGATE_REDSYS_URL), without a trailing slash. */
  baseUrl: string;
  http: OutgoingClient;
  /** The root database connection (order numbers are recorded outside business transactions). */
  db: () => Executor;
  /** The opened terminal of a request (FUC, terminals, keys, signature version). */
  terminals: (ref: TerminalRef) => Promise<RedsysTerminal>;
  /** Deadline of one HTTP call. */
  timeoutMs: number;
  logger?: Logger;
  /** The keyed fingerprint of a card number (never the number itself is stored). */
  fingerprint: (pan: string) => string;
  /** The gateway's URL for Redsys's notifications (DS_MERCHANT_MERCHANTURL); null: none asked for. */
  notificationUrl?: string | null;
}

type Sent =
  | { kind: 'answer'; params: Record<string, unknown> }
  | { kind: 'error'; code: string }
  | { kind: 'unknown'; details: string };

export class RedsysConnector implements Connector {
  readonly name = 'redsys';
  readonly #o: RedsysConnectorOptions;

  constructor(opts: RedsysConnectorOptions) {
    this.#o = { ...opts, baseUrl: opts.baseUrl.replace(/\/+$/, '') };
  }

  get baseUrl(): string {
    return this.#o.baseUrl;
  }

  /** Posts a signed message to a REST endpoint and opens the answer with the same key. */
  async #post(path: string, keys: { key: string }, version: RedsysTerminal['version'], params: Record<string, unknown>, order: string): Promise<Sent> {
    const message = signMessage(version, keys.key, params, order);
    let res;
    try {
      res = await this.#o.http.send(`${this.#o.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(message),
        env: 'production',
        timeoutMs: this.#o.timeoutMs,
      });
    } catch (err) {
      const details = err instanceof OutgoingError ? `Redsys did not answer: ${err.message}` : 'Redsys did not answer';
      this.#o.logger?.warn({ order, path, failure: err instanceof OutgoingError ? err.failure : 'error' }, 'redsys: no answer');
      return { kind: 'unknown', details };
    }
    if (res.status !== 200) {
      this.#o.logger?.warn({ order, path, status: res.status }, 'redsys: unexpected HTTP status');
      return { kind: 'unknown', details: `Redsys answered HTTP ${res.status}` };
    }
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(res.body);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      body = parsed as Record<string, unknown>;
    } catch {
      this.#o.logger?.warn({ order, path }, 'redsys: the answer is not JSON');
      return { kind: 'unknown', details: 'Redsys answered something that is not JSON' };
    }
    if (typeof body.errorCode === 'string' && body.Ds_MerchantParameters === undefined) {
      // a protocol error: the operation was refused before it was processed
      this.#o.logger?.warn({ order, path, code: body.errorCode }, 'redsys: protocol error');
      return { kind: 'error', code: body.errorCode };
    }
    const opened = openMessage(keys.key, body as never);
    if (!opened.ok) {
      this.#o.logger?.error({ order, path, reason: opened.reason }, 'redsys: answer refused (signature not verified); the operation is left to the reconciler');
      return { kind: 'unknown', details: `The Redsys answer was refused: ${opened.reason}` };
    }
    if (opened.order !== order) {
      this.#o.logger?.error({ order, path }, 'redsys: signed answer for another order number');
      return { kind: 'unknown', details: 'Redsys answered for another order number' };
    }
    return { kind: 'answer', params: opened.params };
  }

  /** Sends a trataPeticion for a recorded operation and maps its answer. */
  async #operation(terminal: RedsysTerminal, lane: Lane, op: RedsysOperation, params: Record<string, unknown>, type: TxType, amount: number): Promise<{ result: ProcessorResult; facts: AnswerFacts | null }> {
    const keys = terminal[lane];
    const sent = await this.#post('/sis/rest/trataPeticionREST', keys, terminal.version, params, op.order);
    if (sent.kind === 'unknown') return { result: { outcome: 'UNKNOWN', details: sent.details }, facts: null };
    if (sent.kind === 'error') return { result: resultOfErrorCode(sent.code), facts: null };
    const ref: OrderRef = { fuc: terminal.fuc, terminal: keys.terminal, order: op.order };
    const answered = resultOfAnswer(sent.params, { ref, type, amount });
    if (answered.result.outcome === 'UNKNOWN') this.#o.logger?.error({ order: op.order, details: answered.result.details }, 'redsys: answer does not match the operation');
    return answered;
  }

  async #payment(req: PaymentRequest, type: typeof TX_TYPE.AUTHORIZATION | typeof TX_TYPE.PREAUTHORIZATION): Promise<ProcessorResult> {
    const terminal = await this.#o.terminals(req.terminal);
    const lane = laneFor(req.channel);
    if (req.channel === 'CARD_PRESENT') {
      return { outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'Card-present payments do not go through Redsys e-commerce terminals', processorId: null };
    }
    const notAuthenticated = req.channel === 'ECOMMERCE' ? externalAuthenticationRefusal(req.threeds) : null;
    if (notAuthenticated) return { outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: notAuthenticated, processorId: null };
    const op = await recordOperation(this.#o.db(), {
      reference: req.reference, merchantCode: terminal.fuc, terminal: terminal[lane].terminal, type, amount: req.amount, currency: req.currency, originalReference: null, terminalRef: refOf(req.terminal),
    });
    const ref: OrderRef = { fuc: terminal.fuc, terminal: terminal[lane].terminal, order: op.order };
    const { cof, fingerprint } = await this.#cofOf(req, terminal.fuc);
    const params = paymentParameters({ ref, type, amount: req.amount, currency: req.currency, card: req.card, channel: req.channel, cof, threeds: req.threeds ?? null, merchantUrl: this.#o.notificationUrl ?? null });
    const { result, facts } = await this.#operation(terminal, lane, op, params, type, req.amount);
    return this.#withCof(result, facts, cof, terminal.fuc, fingerprint);
  }

  /**
   * The stored-credential use of a payment (mapping.cofUseOf) with the network transaction id known for
   * its card under this merchant code: a merchant-initiated payment quotes the one its request names,
   * else the card's first use's; a customer's payment that stores the card is a first use until an id
   * is known.
   */
  async #cofOf(req: PaymentRequest, fuc: string): Promise<{ cof: CofUse | null; fingerprint: string }> {
    const fingerprint = this.#o.fingerprint(req.card.pan.reveal().replace(/\s+/g, ''));
    const asks = req.channel === 'MIT' || (req.channel === 'ECOMMERCE' && !!(req.storeCredential || req.storedCard));
    const known = req.channel === 'MIT' && req.cofTxnid ? req.cofTxnid : asks ? await findCof(this.#o.db(), fuc, fingerprint) : null;
    return { cof: cofUseOf(req, known), fingerprint };
  }

  /**
   * An approved payment with its stored credential: a first use keeps the network transaction id Redsys
   * answered (the card's later payments quote it); a later use shows the one it quoted.
   */
  async #withCof(result: ProcessorResult, facts: AnswerFacts | null, cof: CofUse | null, fuc: string, fingerprint: string): Promise<ProcessorResult> {
    if (result.outcome !== 'APPROVED' || !cof) return result;
    if (cof.kind === 'first') {
      if (!facts?.cofTxnid) return result;
      await keepCof(this.#o.db(), fuc, fingerprint, facts.cofTxnid);
      return { ...result, cofTxnid: facts.cofTxnid };
    }
    return cof.txnid ? { ...result, cofTxnid: cof.txnid } : result;
  }

  authorize(req: PaymentRequest) {
    return this.#payment(req, TX_TYPE.AUTHORIZATION);
  }

  /** Redsys has no partial approvals: the whole amount is asked for. */
  partialAuthorize(req: PaymentRequest) {
    return this.#payment(req, TX_TYPE.AUTHORIZATION);
  }

  preauthorize(req: PaymentRequest) {
    return this.#payment(req, TX_TYPE.PREAUTHORIZATION);
  }

  async #followUp(req: FollowUpRequest, type: typeof TX_TYPE.CONFIRMATION | typeof TX_TYPE.REFUND | typeof TX_TYPE.CANCELLATION): Promise<ProcessorResult> {
    const terminal = await this.#o.terminals(req.terminal);
    const original = await findOperation(this.#o.db(), req.original.reference);
    if (!original) {
      return { outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'The payment was not made through Redsys by this gateway: no order number to refer to', processorId: null };
    }
    const lane: Lane = original.terminal === terminal.secure.terminal ? 'secure' : original.terminal === terminal.nonSecure.terminal ? 'nonSecure' : 'secure';
    if (terminal[lane].terminal !== original.terminal) {
      return { outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: `The payment went through Redsys terminal ${original.terminal}, which this service's terminal no longer has`, processorId: null };
    }
    const op = await recordOperation(this.#o.db(), {
      reference: req.reference, merchantCode: original.merchantCode, terminal: original.terminal, order: original.order, type, amount: req.amount, currency: req.currency, originalReference: original.reference, terminalRef: refOf(req.terminal),
    });
    const ref: OrderRef = { fuc: original.merchantCode, terminal: original.terminal, order: original.order };
    return (await this.#operation(terminal, lane, op, followUpParameters(ref, type, req.amount, req.currency), type, req.amount)).result;
  }

  capture(req: FollowUpRequest) {
    return this.#followUp(req, TX_TYPE.CONFIRMATION);
  }

  cancel(req: FollowUpRequest) {
    return this.#followUp(req, TX_TYPE.CANCELLATION);
  }

  refund(req: FollowUpRequest) {
    return this.#followUp(req, TX_TYPE.REFUND);
  }

  /** Redsys e-commerce terminals do not credit cards: a payout is refused, nothing is sent. */
  async payout(_req: PayoutRequest): Promise<ProcessorResult> {
    return { outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'Payouts to cards are not offered through Redsys: use a service of a type that supports payouts', processorId: null };
  }

  async lookup(req: LookupRequest): Promise<LookupResult> {
    const op = await findOperation(this.#o.db(), req.reference);
    // recorded before sending: without a row the request never left
    if (!op) return { found: false };
    let terminal: RedsysTerminal;
    try {
      terminal = await this.#o.terminals(req.terminal);
    } catch (err) {
      return { found: 'unknown', details: (err as Error).message };
    }
    const key = terminal.secure.terminal === op.terminal ? terminal.secure.key : terminal.nonSecure.key;
    let res;
    try {
      res = await this.#o.http.send(`${this.#o.baseUrl}/apl02/services/SerClsWSConsulta`, {
        method: 'POST',
        headers: { 'content-type': 'text/xml;charset=utf-8', accept: 'text/xml', SOAPAction: 'consultaOperaciones' },
        body: queryRequestXml(key, { fuc: op.merchantCode, terminal: op.terminal, order: op.order, type: op.type }),
        env: 'production',
        timeoutMs: this.#o.timeoutMs,
      });
    } catch (err) {
      return { found: 'unknown', details: err instanceof OutgoingError ? `the Redsys query service did not answer: ${err.message}` : 'the Redsys query service did not answer' };
    }
    if (res.status !== 200) return { found: 'unknown', details: `the Redsys query service answered HTTP ${res.status}` };
    const q = readQueryAnswer(res.body);
    if (q.kind === 'none') return { found: false };
    if (q.kind === 'error') return { found: 'unknown', details: `the Redsys query service answered ${q.code}` };
    const { result } = resultOfAnswer(q.params, { ref: { fuc: op.merchantCode, terminal: op.terminal, order: op.order }, type: op.type as TxType, amount: op.amount });
    if (result.outcome === 'UNKNOWN' || result.outcome === 'PENDING') return { found: 'unknown', details: result.details };
    if (result.outcome === 'CHALLENGE') {
      const r = refusalOf('0195');
      return { found: true, result: { outcome: 'DECLINED', error: r.error, details: r.details, processorId: op.order } };
    }
    return { found: true, result };
  }

  /** Acquirer-side 3-D Secure goes through the hosted page's 3-D Secure steps, not this call. */
  async authenticate(_req: AuthenticateRequest): Promise<AuthenticationResult> {
    return { outcome: 'UNKNOWN', details: 'Redsys authenticates cardholders through EMV 3-D Secure on the payment page' };
  }

  async verifyCard(req: VerifyCardRequest): Promise<VerifyCardResult> {
    const terminal = await this.#o.terminals(req.terminal);
    const op = await recordOperation(this.#o.db(), {
      reference: req.reference, merchantCode: terminal.fuc, terminal: terminal.nonSecure.terminal, type: TX_TYPE.AUTHORIZATION, amount: 0, currency: req.currency, originalReference: null, terminalRef: refOf(req.terminal),
    });
    const ref: OrderRef = { fuc: terminal.fuc, terminal: terminal.nonSecure.terminal, order: op.order };
    const { result: r } = await this.#operation(terminal, 'nonSecure', op, verificationParameters(ref, req.currency, req.card), TX_TYPE.AUTHORIZATION, 0);
    if (r.outcome === 'APPROVED') return { outcome: 'VERIFIED', processorId: r.processorId };
    if (r.outcome === 'DECLINED') return { outcome: 'DECLINED', error: r.error, details: r.details };
    if (r.outcome === 'CHALLENGE') return { outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: r.details };
    return { outcome: 'UNKNOWN', details: r.details };
  }

  /** EMV 3-D Secure 2 through Redsys (REST): iniciaPeticion, then trataPeticion with the browser's data, then the challenge's answer. */
  readonly threeds: AcquirerThreeDS = {
    start: (req, urls) => this.#threedsStart(req, urls),
    authenticate: (req, browser, urls, method) => this.#threedsAuthenticate(req, browser, urls, method),
    complete: (req, cres) => this.#threedsComplete(req, cres),
  };

  /** The payment of a 3DS exchange: recorded under its order number on the secure terminal. */
  async #threedsPayment(req: PaymentRequest & { preauthorization: boolean }) {
    const terminal = await this.#o.terminals(req.terminal);
    const type = req.preauthorization ? TX_TYPE.PREAUTHORIZATION : TX_TYPE.AUTHORIZATION;
    const op = await recordOperation(this.#o.db(), {
      reference: req.reference, merchantCode: terminal.fuc, terminal: terminal.secure.terminal, type, amount: req.amount, currency: req.currency, originalReference: null, terminalRef: refOf(req.terminal),
    });
    const ref: OrderRef = { fuc: terminal.fuc, terminal: terminal.secure.terminal, order: op.order };
    const { cof, fingerprint } = await this.#cofOf({ ...req, channel: 'ECOMMERCE' }, terminal.fuc);
    const params = paymentParameters({ ref, type, amount: req.amount, currency: req.currency, card: req.card, channel: 'ECOMMERCE', cof });
    return { terminal, type, op, ref, params, cof, fingerprint };
  }

  async #threedsStart(req: PaymentRequest & { preauthorization: boolean }, urls: { methodNotification: string }): Promise<ThreeDSStart> {
    const { terminal, op, params } = await this.#threedsPayment(req);
    const sent = await this.#post('/sis/rest/iniciaPeticionREST', terminal.secure, terminal.version, { ...params, DS_MERCHANT_EMV3DS: CARD_DATA }, op.order);
    if (sent.kind === 'unknown') return { outcome: 'UNKNOWN', details: sent.details };
    if (sent.kind === 'error') {
      const r = resultOfErrorCode(sent.code);
      return { outcome: 'DECLINED', error: r.outcome === 'DECLINED' ? r.error : 'PROCESSOR_ERROR', details: r.outcome === 'DECLINED' ? r.details : 'refused' };
    }
    const emv = sent.params.Ds_EMV3DS as Record<string, unknown> | undefined;
    const transId = typeof emv?.threeDSServerTransID === 'string' ? emv.threeDSServerTransID : null;
    const protocolVersion = typeof emv?.protocolVersion === 'string' ? emv.protocolVersion : null;
    if (isThreeDS1(emv)) return { outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: THREEDS1_REFUSAL };
    if (!transId || !protocolVersion || !protocolVersion.startsWith('2.')) {
      return { outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: 'Redsys: the card does not support EMV 3-D Secure 2' };
    }
    await saveEmv3ds(this.#o.db(), op.reference, { transId, protocolVersion });
    const methodUrl = typeof emv?.threeDSMethodURL === 'string' && /^https?:\/\//.test(emv.threeDSMethodURL) ? emv.threeDSMethodURL : null;
    if (!methodUrl) return { outcome: 'READY' };
    const data = Buffer.from(JSON.stringify({ threeDSServerTransID: transId, threeDSMethodNotificationURL: urls.methodNotification })).toString('base64url');
    return { outcome: 'METHOD', url: methodUrl, data };
  }

  /** Reads a trataPeticion answer of a 3DS exchange: the ACS challenge, or the payment's result. */
  async #threedsAnswer(sent: Sent, x: { type: TxType; ref: OrderRef; amount: number; protocolVersion: string; flow: 'FRICTIONLESS' | 'CHALLENGE'; fingerprint: string; cof: CofUse | null }): Promise<ThreeDSPayment> {
    if (sent.kind === 'unknown') return { outcome: 'RESULT', result: { outcome: 'UNKNOWN', details: sent.details }, threeds: null, flow: x.flow };
    if (sent.kind === 'error') return { outcome: 'RESULT', result: resultOfErrorCode(sent.code), threeds: null, flow: x.flow };
    const emv = sent.params.Ds_EMV3DS as Record<string, unknown> | undefined;
    if (emv?.threeDSInfo === 'ChallengeRequest' && typeof emv.acsURL === 'string' && typeof emv.creq === 'string' && /^https?:\/\//.test(emv.acsURL)) {
      return { outcome: 'ACS_CHALLENGE', acsUrl: emv.acsURL, creq: emv.creq };
    }
    // a challenge for 3-D Secure 1 (MD, PAReq): not supported, refused (resultOfAnswer says so)
    if (isThreeDS1(emv)) return { outcome: 'RESULT', result: resultOfAnswer(sent.params, { ref: x.ref, type: x.type, amount: x.amount }).result, threeds: null, flow: x.flow };
    const { result, facts } = resultOfAnswer(sent.params, { ref: x.ref, type: x.type, amount: x.amount });
    const secure = facts.securePayment === '2' || facts.securePayment === '1';
    const threeds: ThreeDSResult = { version: x.protocolVersion, transStatus: secure ? 'Y' : 'N', eci: typeof sent.params.Ds_ECI === 'string' ? sent.params.Ds_ECI : null, cavv: null, dsTransId: null };
    if (result.outcome === 'CHALLENGE') {
      // a soft decline after authentication: not asked again
      const r = refusalOf('0195');
      return { outcome: 'RESULT', result: { outcome: 'DECLINED', error: r.error, details: r.details, processorId: x.ref.order }, threeds, flow: x.flow };
    }
    return { outcome: 'RESULT', result: await this.#withCof(result, facts, x.cof, x.ref.fuc, x.fingerprint), threeds, flow: x.flow };
  }

  async #threedsAuthenticate(req: PaymentRequest & { preauthorization: boolean }, browser: BrowserInfo, urls: { challengeNotification: string }, methodCompleted: boolean | null): Promise<ThreeDSPayment> {
    const { terminal, type, op, ref, params, cof, fingerprint } = await this.#threedsPayment(req);
    const session = (await findOperation(this.#o.db(), op.reference))?.emv3ds ?? null;
    if (!session) return { outcome: 'RESULT', result: { outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: 'The 3-D Secure session was not started', processorId: null }, threeds: null, flow: 'FRICTIONLESS' };
    const emv = authenticationData(session, browser, urls.challengeNotification, methodCompleted);
    const sent = await this.#post('/sis/rest/trataPeticionREST', terminal.secure, terminal.version, { ...params, DS_MERCHANT_EMV3DS: emv }, op.order);
    return this.#threedsAnswer(sent, { type, ref, amount: req.amount, protocolVersion: session.protocolVersion, flow: 'FRICTIONLESS', fingerprint, cof });
  }

  async #threedsComplete(req: PaymentRequest & { preauthorization: boolean }, cres: string): Promise<ThreeDSPayment> {
    const { terminal, type, op, ref, params, cof, fingerprint } = await this.#threedsPayment(req);
    const session = (await findOperation(this.#o.db(), op.reference))?.emv3ds ?? null;
    if (!session) return { outcome: 'RESULT', result: { outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: 'The 3-D Secure session was not started', processorId: null }, threeds: null, flow: 'CHALLENGE' };
    const emv = challengeResponse(session, cres);
    const sent = await this.#post('/sis/rest/trataPeticionREST', terminal.secure, terminal.version, { ...params, DS_MERCHANT_EMV3DS: emv }, op.order);
    return this.#threedsAnswer(sent, { type, ref, amount: req.amount, protocolVersion: session.protocolVersion, flow: 'CHALLENGE', fingerprint, cof });
  }

  /**
   * Bizum through Redsys: the redirect payment page with `PAYMETHODS=z`. The customer pays on Redsys's
   * page; Redsys's signed notification settles the payment (`notification`).
   */
  async apmStart(req: ApmStartRequest): Promise<ApmStartResult> {
    if (req.apm !== 'BIZUM') return { outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: `${req.apm} is not offered through Redsys`, processorId: null };
    if (!this.#o.notificationUrl) return { outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'Bizum through Redsys needs the gateway\'s public URL for its notification', processorId: null };
    const terminal = await this.#o.terminals(req.terminal);
    const back = req.returnUrl ?? this.#o.notificationUrl;
    const op = await recordOperation(this.#o.db(), {
      reference: req.reference, merchantCode: terminal.fuc, terminal: terminal.secure.terminal, type: TX_TYPE.AUTHORIZATION, amount: req.amount, currency: req.currency, originalReference: null,
      terminalRef: { ...refOf(req.terminal), bizumBack: back },
    });
    return {
      outcome: 'PENDING',
      processorId: op.order,
      // the gateway's page that posts the signed form to Redsys's payment page (apmRedirectForm)
      redirectUrl: this.#o.notificationUrl.replace(/\/notification$/, `/redirect/${encodeURIComponent(op.reference)}`),
      voucher: null,
      expiresAt: new Date(req.now.getTime() + 30 * 60_000),
    };
  }

  /** The signed form of a Bizum payment for Redsys's payment page (`realizarPago`), rebuilt from the operation. */
  async apmRedirectForm(reference: string): Promise<{ url: string; fields: Record<string, string> } | null> {
    const op = await findOperation(this.#o.db(), reference);
    if (!op || !op.terminalRef?.bizumBack || !this.#o.notificationUrl) return null;
    const terminal = await this.#o.terminals({ serviceType: op.terminalRef.serviceType ?? 'REDSYSPSD2', terminalId: op.terminalRef.terminalId ?? null, serviceId: op.terminalRef.serviceId ?? null });
    const key = terminal.secure.terminal === op.terminal ? terminal.secure.key : terminal.nonSecure.key;
    const ref: OrderRef = { fuc: op.merchantCode, terminal: op.terminal, order: op.order };
    const params = bizumRedirectParameters(ref, op.amount, op.currency, { merchantUrl: this.#o.notificationUrl, urlOk: op.terminalRef.bizumBack, urlKo: op.terminalRef.bizumBack });
    return { url: `${this.#o.baseUrl}/sis/realizarPago`, fields: { ...signMessage(terminal.version, key, params, op.order) } };
  }

  /**
   * A notification Redsys posted to the gateway: the operation is found by merchant code, order number
   * and type; the signature is verified with that terminal's key before anything else is read.
   */
  async notification(fields: Record<string, string>): Promise<NotificationResult> {
    let unverified: Record<string, unknown>;
    try {
      unverified = decodeParameters(fields.Ds_MerchantParameters ?? '');
    } catch {
      return { outcome: 'IGNORED', reason: 'not a Redsys notification' };
    }
    const fuc = typeof unverified.Ds_MerchantCode === 'string' ? safeDecodeURIComponent(unverified.Ds_MerchantCode) : '';
    const order = typeof unverified.Ds_Order === 'string' ? safeDecodeURIComponent(unverified.Ds_Order) : '';
    const type = typeof unverified.Ds_TransactionType === 'string' ? safeDecodeURIComponent(unverified.Ds_TransactionType) : '';
    if (!/^\d{9}$/.test(fuc) || !/^\d{4}[0-9A-Za-z]{0,8}$/.test(order)) return { outcome: 'IGNORED', reason: 'no merchant code or order number' };
    const ops = (await operationsOfOrder(this.#o.db(), fuc, order)).filter((o) => o.type === type);
    const op = ops.at(-1);
    if (!op || !op.terminalRef) return { outcome: 'IGNORED', reason: 'no operation of ours under this order number' };
    let terminal: RedsysTerminal;
    try {
      terminal = await this.#o.terminals({ serviceType: op.terminalRef.serviceType ?? 'REDSYSPSD2', terminalId: op.terminalRef.terminalId ?? null, serviceId: op.terminalRef.serviceId ?? null });
    } catch (err) {
      return { outcome: 'IGNORED', reason: (err as Error).message };
    }
    const key = terminal.secure.terminal === op.terminal ? terminal.secure.key : terminal.nonSecure.key;
    const opened = openMessage(key, fields);
    if (!opened.ok) {
      this.#o.logger?.error({ order, reason: opened.reason }, 'redsys: notification refused (signature not verified)');
      return { outcome: 'IGNORED', reason: `signature not verified: ${opened.reason}` };
    }
    const { result } = resultOfAnswer(opened.params, { ref: { fuc: op.merchantCode, terminal: op.terminal, order: op.order }, type: op.type as TxType, amount: op.amount });
    if (result.outcome === 'UNKNOWN' || result.outcome === 'PENDING') return { outcome: 'IGNORED', reason: result.details };
    if (result.outcome === 'CHALLENGE') return { outcome: 'IGNORED', reason: 'a soft decline: the payment goes on with authentication' };
    return { outcome: 'SETTLE', reference: op.reference, result };
  }

  /**
   * Tests a terminal's credentials against Redsys without moving money: for each of its two terminals, a
   * signed refund of 1 cent under a fresh order number that no payment has. Redsys answers that there is
   * nothing to refund (SIS0054) when the merchant code, terminal and key are right; SIS0042 when the key
   * (or the signature version) is wrong; SIS0026 when the merchant code or terminal is unknown. Returns
   * the problems in words an operator can act on (empty: both terminals answered as expected).
   */
  async testCredentials(terminal: RedsysTerminal, currency: string): Promise<string[]> {
    const problems: string[] = [];
    for (const [lane, label] of [['secure', 'terminal_secure'], ['nonSecure', 'terminal_not_secure']] as const) {
      const keys = terminal[lane];
      const order = newOrderNumber();
      const params = followUpParameters({ fuc: terminal.fuc, terminal: keys.terminal, order }, TX_TYPE.REFUND, 1, currency);
      const sent = await this.#post('/sis/rest/trataPeticionREST', keys, terminal.version, params, order);
      if (sent.kind === 'unknown') {
        problems.push(`${label} ${keys.terminal}: ${sent.details}`);
        continue;
      }
      const code = sent.kind === 'error' ? normaliseCode(sent.code) : normaliseCode(sent.params.Ds_Response);
      // "nothing to refund under this order number": merchant code, terminal and key are right
      if (code === 'SIS0054' || code === '9054' || code === 'SIS0056' || code === '9056') continue;
      const r = refusalOf(code ?? 'unreadable');
      problems.push(`${label} ${keys.terminal}: ${r.details}`);
    }
    return problems;
  }

  /** Redsys does not compare holder names. */
  async verifyHolder(_req: VerifyHolderRequest): Promise<VerifyHolderResult> {
    return { outcome: 'UNKNOWN', details: 'Redsys does not offer holder verification' };
  }
}

function refOf(t: TerminalRef) {
  return { serviceType: t.serviceType, serviceId: t.serviceId ?? null, terminalId: t.terminalId ?? null };
}

/** Sanity of a code in logs and errors (never a secret). */
export function describeCode(code: unknown): string {
  return normaliseCode(code) ?? 'unreadable';
}
