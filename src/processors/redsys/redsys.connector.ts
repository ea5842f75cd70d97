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
  SettledResult,
  VerifyCardRequest,
  VerifyCardResult,
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
import { newOrderNumber, REDSYS_LEDGER, type RedsysOperation } from './ledger.js';
import { decodeParameters, openMessage, safeDecodeURIComponent, signMessage } from './signature.js';
import { ConnectorBase, type KitDeps } from '../kit/base.js';
import { cardPresentRefused, declined, ignored, lookupOf, notBelieved, payoutNotOffered, settles, terminalOfRecord, terminalRecord, unknown, verificationOf } from '../kit/outcomes.js';

export const REDSYS_PRODUCTION_URL = 'https://sis.redsys.es';
export const REDSYS_TEST_URL = 'https://sis-t.redsys.es:25443';

/** What the connector gets from the gateway (kit/declaration.ts); `notificationUrl`: DS_MERCHANT_MERCHANTURL (null: none asked for). */
export type RedsysConnectorOptions = KitDeps<RedsysTerminal>;

type Sent =
  | { kind: 'answer'; params: Record<string, unknown> }
  | { kind: 'error'; code: string }
  | { kind: 'unknown'; details: string };

export class RedsysConnector extends ConnectorBase<RedsysTerminal, { terminal: string; emv3ds: { transId: string; protocolVersion: string } }> implements Connector {
  constructor(opts: RedsysConnectorOptions) {
    super(opts, { name: 'redsys', label: 'Redsys', ledger: REDSYS_LEDGER });
  }

  /** Posts a signed message to a REST endpoint and opens the answer with the same key. */
  async #post(path: string, keys: { key: string }, version: RedsysTerminal['version'], params: Record<string, unknown>, order: string): Promise<Sent> {
    const sent = await this.send({ method: 'POST', path, headers: { accept: 'application/json' }, json: signMessage(version, keys.key, params, order), log: { order } });
    if (sent.kind === 'unknown') return sent;
    const log = this.deps.logger;
    if (sent.status !== 200) {
      log?.warn({ order, path, status: sent.status }, 'redsys: unexpected HTTP status');
      return { kind: 'unknown', details: `Redsys answered HTTP ${sent.status}` };
    }
    const body = sent.json;
    if (!body) {
      log?.warn({ order, path }, 'redsys: the answer is not JSON');
      return { kind: 'unknown', details: 'Redsys answered something that is not JSON' };
    }
    if (typeof body.errorCode === 'string' && body.Ds_MerchantParameters === undefined) {
      // a protocol error: the operation was refused before it was processed
      log?.warn({ order, path, code: body.errorCode }, 'redsys: protocol error');
      return { kind: 'error', code: body.errorCode };
    }
    const opened = openMessage(keys.key, body as never);
    if (!opened.ok) return { kind: 'unknown', details: notBelieved(log, 'redsys', { order, path, reason: opened.reason }, `The Redsys answer was refused: ${opened.reason}`, 'answer refused (signature not verified); the operation is left to the reconciler').details };
    if (opened.order !== order) return { kind: 'unknown', details: notBelieved(log, 'redsys', { order, path }, 'Redsys answered for another order number', 'signed answer for another order number').details };
    return { kind: 'answer', params: opened.params };
  }

  /** Records an operation before it is sent: a payment draws a new order number, a follow-up takes its payment's. */
  #record(op: { reference: string; fuc: string; terminal: string; type: string; amount: number; currency: string; order?: string; originalReference: string | null; terminalRef: RedsysOperation['terminalRef'] }): Promise<RedsysOperation> {
    return this.ledger.record(
      { reference: op.reference, kind: op.type, amount: op.amount, currency: op.currency, account: op.fuc, providerId: op.order ?? null, originalReference: op.originalReference, terminalRef: op.terminalRef, data: { terminal: op.terminal } },
      () => newOrderNumber(),
    );
  }

  /** Sends a trataPeticion for a recorded operation and maps its answer. */
  async #operation(terminal: RedsysTerminal, lane: Lane, op: RedsysOperation, params: Record<string, unknown>, type: TxType, amount: number): Promise<{ result: ProcessorResult; facts: AnswerFacts | null }> {
    const keys = terminal[lane];
    const sent = await this.#post('/sis/rest/trataPeticionREST', keys, terminal.version, params, op.providerId!);
    if (sent.kind === 'unknown') return { result: unknown(sent.details), facts: null };
    if (sent.kind === 'error') return { result: resultOfErrorCode(sent.code), facts: null };
    const answered = resultOfAnswer(sent.params, { ref: { fuc: terminal.fuc, terminal: keys.terminal, order: op.providerId! }, type, amount });
    if (answered.result.outcome === 'UNKNOWN') notBelieved(this.deps.logger, 'redsys', { order: op.providerId }, answered.result.details, 'answer does not match the operation');
    return answered;
  }

  async #payment(req: PaymentRequest, type: typeof TX_TYPE.AUTHORIZATION | typeof TX_TYPE.PREAUTHORIZATION): Promise<ProcessorResult> {
    const terminal = await this.terminal(req.terminal);
    const lane = laneFor(req.channel);
    if (req.channel === 'CARD_PRESENT') return cardPresentRefused('Redsys e-commerce terminals');
    const notAuthenticated = req.channel === 'ECOMMERCE' ? externalAuthenticationRefusal(req.threeds) : null;
    if (notAuthenticated) return declined(notAuthenticated, 'AUTHENTICATION_FAILED');
    const op = await this.#record({ reference: req.reference, fuc: terminal.fuc, terminal: terminal[lane].terminal, type, amount: req.amount, currency: req.currency, originalReference: null, terminalRef: terminalRecord(req.terminal) });
    const { cof, fingerprint } = await this.#cofOf(req, terminal.fuc);
    const params = paymentParameters({ ref: orderOf(op), type, amount: req.amount, currency: req.currency, card: req.card, channel: req.channel, cof, threeds: req.threeds ?? null, merchantUrl: this.deps.notificationUrl ?? null });
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
    const fingerprint = this.fingerprintOf(req.card);
    const asks = req.channel === 'MIT' || (req.channel === 'ECOMMERCE' && !!(req.storeCredential || req.storedCard));
    const known = req.channel === 'MIT' && req.cofTxnid ? req.cofTxnid : asks ? (await this.ledger.findCof(fuc, fingerprint))?.id ?? null : null;
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
      await this.ledger.keepCof(fuc, fingerprint, { id: facts.cofTxnid });
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
    const terminal = await this.terminal(req.terminal);
    const original = await this.ledger.find(req.original.reference);
    if (!original) return declined('The payment was not made through Redsys by this gateway: no order number to refer to');
    const ref = orderOf(original);
    const lane: Lane = ref.terminal === terminal.nonSecure.terminal && ref.terminal !== terminal.secure.terminal ? 'nonSecure' : 'secure';
    if (terminal[lane].terminal !== ref.terminal) return declined(`The payment went through Redsys terminal ${ref.terminal}, which this service's terminal no longer has`);
    const op = await this.#record({ reference: req.reference, fuc: ref.fuc, terminal: ref.terminal, order: ref.order, type, amount: req.amount, currency: req.currency, originalReference: original.reference, terminalRef: terminalRecord(req.terminal) });
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
    return payoutNotOffered('Redsys');
  }

  async lookup(req: LookupRequest): Promise<LookupResult> {
    const op = await this.ledger.find(req.reference);
    // recorded before sending: without a row the request never left
    if (!op) return { found: false };
    const opened = await this.terminalOf(req.terminal, 'REDSYSPSD2');
    if ('problem' in opened) return { found: 'unknown', details: opened.problem };
    const terminal = opened.terminal;
    const ref = orderOf(op);
    const sent = await this.send({
      method: 'POST', path: '/apl02/services/SerClsWSConsulta', log: { order: ref.order },
      headers: { 'content-type': 'text/xml;charset=utf-8', accept: 'text/xml', SOAPAction: 'consultaOperaciones' },
      body: queryRequestXml(this.#keyOf(terminal, ref.terminal), { ...ref, type: op.kind }),
    });
    if (sent.kind === 'unknown') return { found: 'unknown', details: `the Redsys query service${sent.details.replace(/^Redsys/, '')}` };
    if (sent.status !== 200) return { found: 'unknown', details: `the Redsys query service answered HTTP ${sent.status}` };
    const q = readQueryAnswer(sent.text);
    if (q.kind === 'none') return { found: false };
    if (q.kind === 'error') return { found: 'unknown', details: `the Redsys query service answered ${q.code}` };
    const { result } = resultOfAnswer(q.params, { ref, type: op.kind as TxType, amount: op.amount });
    // a soft decline is final for an operation already decided
    return lookupOf(result, () => ({ found: true, result: softDeclineRefused(ref.order) as SettledResult }));
  }

  /** The key of the terminal (secure or not) an operation went through. */
  #keyOf(terminal: RedsysTerminal, number: string): string {
    return terminal.secure.terminal === number ? terminal.secure.key : terminal.nonSecure.key;
  }

  /** Acquirer-side 3-D Secure goes through the hosted page's 3-D Secure steps, not this call. */
  async authenticate(_req: AuthenticateRequest): Promise<AuthenticationResult> {
    return { outcome: 'UNKNOWN', details: 'Redsys authenticates cardholders through EMV 3-D Secure on the payment page' };
  }

  async verifyCard(req: VerifyCardRequest): Promise<VerifyCardResult> {
    const terminal = await this.terminal(req.terminal);
    const op = await this.#record({ reference: req.reference, fuc: terminal.fuc, terminal: terminal.nonSecure.terminal, type: TX_TYPE.AUTHORIZATION, amount: 0, currency: req.currency, originalReference: null, terminalRef: terminalRecord(req.terminal) });
    return verificationOf((await this.#operation(terminal, 'nonSecure', op, verificationParameters(orderOf(op), req.currency, req.card), TX_TYPE.AUTHORIZATION, 0)).result);
  }

  /** EMV 3-D Secure 2 through Redsys (REST): iniciaPeticion, then trataPeticion with the browser's data, then the challenge's answer. */
  readonly threeds: AcquirerThreeDS = {
    start: (req, urls) => this.#threedsStart(req, urls),
    authenticate: (req, browser, urls, method) => this.#threedsAuthenticate(req, browser, urls, method),
    complete: (req, cres) => this.#threedsComplete(req, cres),
  };

  /** The payment of a 3DS exchange: recorded under its order number on the secure terminal. */
  async #threedsPayment(req: PaymentRequest & { preauthorization: boolean }) {
    const terminal = await this.terminal(req.terminal);
    const type = req.preauthorization ? TX_TYPE.PREAUTHORIZATION : TX_TYPE.AUTHORIZATION;
    const op = await this.#record({ reference: req.reference, fuc: terminal.fuc, terminal: terminal.secure.terminal, type, amount: req.amount, currency: req.currency, originalReference: null, terminalRef: terminalRecord(req.terminal) });
    const ref = orderOf(op);
    const { cof, fingerprint } = await this.#cofOf({ ...req, channel: 'ECOMMERCE' }, terminal.fuc);
    const params = paymentParameters({ ref, type, amount: req.amount, currency: req.currency, card: req.card, channel: 'ECOMMERCE', cof });
    return { terminal, type, op, ref, params, cof, fingerprint };
  }

  async #threedsStart(req: PaymentRequest & { preauthorization: boolean }, urls: { methodNotification: string }): Promise<ThreeDSStart> {
    const { terminal, op, params } = await this.#threedsPayment(req);
    const sent = await this.#post('/sis/rest/iniciaPeticionREST', terminal.secure, terminal.version, { ...params, DS_MERCHANT_EMV3DS: CARD_DATA }, op.providerId!);
    if (sent.kind === 'unknown') return unknown(sent.details);
    if (sent.kind === 'error') {
      const r = resultOfErrorCode(sent.code);
      return r.outcome === 'DECLINED' ? { outcome: 'DECLINED', error: r.error, details: r.details } : { outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'refused' };
    }
    const emv = sent.params.Ds_EMV3DS as Record<string, unknown> | undefined;
    const transId = typeof emv?.threeDSServerTransID === 'string' ? emv.threeDSServerTransID : null;
    const protocolVersion = typeof emv?.protocolVersion === 'string' ? emv.protocolVersion : null;
    if (isThreeDS1(emv)) return { outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: THREEDS1_REFUSAL };
    if (!transId || !protocolVersion?.startsWith('2.')) return { outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: 'Redsys: the card does not support EMV 3-D Secure 2' };
    await this.ledger.save(op.reference, { data: { emv3ds: { transId, protocolVersion } } });
    const methodUrl = typeof emv?.threeDSMethodURL === 'string' && /^https?:\/\//.test(emv.threeDSMethodURL) ? emv.threeDSMethodURL : null;
    if (!methodUrl) return { outcome: 'READY' };
    const data = Buffer.from(JSON.stringify({ threeDSServerTransID: transId, threeDSMethodNotificationURL: urls.methodNotification })).toString('base64url');
    return { outcome: 'METHOD', url: methodUrl, data };
  }

  /** Reads a trataPeticion answer of a 3DS exchange: the ACS challenge, or the payment's result. */
  async #threedsAnswer(sent: Sent, x: { type: TxType; ref: OrderRef; amount: number; protocolVersion: string; flow: 'FRICTIONLESS' | 'CHALLENGE'; fingerprint: string; cof: CofUse | null }): Promise<ThreeDSPayment> {
    if (sent.kind === 'unknown') return { outcome: 'RESULT', result: unknown(sent.details), threeds: null, flow: x.flow };
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
    // a soft decline after authentication: not asked again
    if (result.outcome === 'CHALLENGE') return { outcome: 'RESULT', result: softDeclineRefused(x.ref.order), threeds, flow: x.flow };
    return { outcome: 'RESULT', result: await this.#withCof(result, facts, x.cof, x.ref.fuc, x.fingerprint), threeds, flow: x.flow };
  }

  async #threedsAuthenticate(req: PaymentRequest & { preauthorization: boolean }, browser: BrowserInfo, urls: { challengeNotification: string }, methodCompleted: boolean | null): Promise<ThreeDSPayment> {
    const { terminal, type, op, ref, params, cof, fingerprint } = await this.#threedsPayment(req);
    const session = (await this.ledger.find(op.reference))?.data.emv3ds ?? null;
    if (!session) return { outcome: 'RESULT', result: declined('The 3-D Secure session was not started', 'AUTHENTICATION_FAILED'), threeds: null, flow: 'FRICTIONLESS' };
    const emv = authenticationData(session, browser, urls.challengeNotification, methodCompleted);
    const sent = await this.#post('/sis/rest/trataPeticionREST', terminal.secure, terminal.version, { ...params, DS_MERCHANT_EMV3DS: emv }, op.providerId!);
    return this.#threedsAnswer(sent, { type, ref, amount: req.amount, protocolVersion: session.protocolVersion, flow: 'FRICTIONLESS', fingerprint, cof });
  }

  async #threedsComplete(req: PaymentRequest & { preauthorization: boolean }, cres: string): Promise<ThreeDSPayment> {
    const { terminal, type, op, ref, params, cof, fingerprint } = await this.#threedsPayment(req);
    const session = (await this.ledger.find(op.reference))?.data.emv3ds ?? null;
    if (!session) return { outcome: 'RESULT', result: declined('The 3-D Secure session was not started', 'AUTHENTICATION_FAILED'), threeds: null, flow: 'CHALLENGE' };
    const emv = challengeResponse(session, cres);
    const sent = await this.#post('/sis/rest/trataPeticionREST', terminal.secure, terminal.version, { ...params, DS_MERCHANT_EMV3DS: emv }, op.providerId!);
    return this.#threedsAnswer(sent, { type, ref, amount: req.amount, protocolVersion: session.protocolVersion, flow: 'CHALLENGE', fingerprint, cof });
  }

  /**
   * Bizum through Redsys: the redirect payment page with `PAYMETHODS=z`. The customer pays on Redsys's
   * page; Redsys's signed notification settles the payment (`notification`).
   */
  async apmStart(req: ApmStartRequest): Promise<ApmStartResult> {
    if (req.apm !== 'BIZUM') return declined(`${req.apm} is not offered through Redsys`);
    if (!this.deps.notificationUrl) return declined('Bizum through Redsys needs the gateway\'s public URL for its notification');
    const terminal = await this.terminal(req.terminal);
    const back = req.returnUrl ?? this.deps.notificationUrl;
    const op = await this.#record({ reference: req.reference, fuc: terminal.fuc, terminal: terminal.secure.terminal, type: TX_TYPE.AUTHORIZATION, amount: req.amount, currency: req.currency, originalReference: null, terminalRef: { ...terminalRecord(req.terminal), bizumBack: back } });
    return {
      outcome: 'PENDING',
      processorId: op.providerId!,
      // the gateway's page that posts the signed form to Redsys's payment page (apmRedirectForm)
      redirectUrl: this.deps.notificationUrl.replace(/\/notification$/, `/redirect/${encodeURIComponent(op.reference)}`),
      voucher: null,
      expiresAt: new Date(req.now.getTime() + 30 * 60_000),
    };
  }

  /** The signed form of a Bizum payment for Redsys's payment page (`realizarPago`), rebuilt from the operation. */
  async apmRedirectForm(reference: string): Promise<{ url: string; fields: Record<string, string> } | null> {
    const op = await this.ledger.find(reference);
    if (!op || !op.terminalRef?.bizumBack || !this.deps.notificationUrl) return null;
    const back = String(op.terminalRef.bizumBack);
    const terminal = await this.terminal(terminalOfRecord(op.terminalRef, 'REDSYSPSD2'));
    const ref = orderOf(op);
    const params = bizumRedirectParameters(ref, op.amount, op.currency, { merchantUrl: this.deps.notificationUrl, urlOk: back, urlKo: back });
    return { url: `${this.baseUrl}/sis/realizarPago`, fields: { ...signMessage(terminal.version, this.#keyOf(terminal, ref.terminal), params, ref.order) } };
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
      return ignored('not a Redsys notification');
    }
    const fuc = typeof unverified.Ds_MerchantCode === 'string' ? safeDecodeURIComponent(unverified.Ds_MerchantCode) : '';
    const order = typeof unverified.Ds_Order === 'string' ? safeDecodeURIComponent(unverified.Ds_Order) : '';
    const type = typeof unverified.Ds_TransactionType === 'string' ? safeDecodeURIComponent(unverified.Ds_TransactionType) : '';
    if (!/^\d{9}$/.test(fuc) || !/^\d{4}[0-9A-Za-z]{0,8}$/.test(order)) return ignored('no merchant code or order number');
    const op = (await this.ledger.findByIds({ providerId: order }, fuc)).filter((o) => o.kind === type).at(-1);
    if (!op || !op.terminalRef) return ignored('no operation of ours under this order number');
    const t = await this.terminalOf(op.terminalRef, 'REDSYSPSD2');
    if ('problem' in t) return ignored(t.problem);
    const opened = openMessage(this.#keyOf(t.terminal, op.data.terminal!), fields);
    if (!opened.ok) {
      this.deps.logger?.error({ order, reason: opened.reason }, 'redsys: notification refused (signature not verified)');
      return ignored(`signature not verified: ${opened.reason}`);
    }
    return settles(op.reference, resultOfAnswer(opened.params, { ref: orderOf(op), type: op.kind as TxType, amount: op.amount }).result);
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

}

/** A soft decline where authentication already ran: refused as Redsys's 0195. */
function softDeclineRefused(order: string): ProcessorResult {
  const r = refusalOf('0195');
  return declined(r.details, r.error, order);
}

/** The order number of a recorded operation, with its merchant code and terminal. */
function orderOf(op: RedsysOperation): OrderRef {
  return { fuc: op.account, terminal: op.data.terminal!, order: op.providerId! };
}

/** Sanity of a code in logs and errors (never a secret). */
export function describeCode(code: unknown): string {
  return normaliseCode(code) ?? 'unreadable';
}
