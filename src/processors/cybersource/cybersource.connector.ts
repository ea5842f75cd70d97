/**
 * The CyberSource connector (CYBERSOURCE services, REST API v2): the IO around the pure mapping
 * (mapping.ts). For every operation it
 *  1. records the operation by our reference (the transaction uuid) before anything is sent, so the
 *     reconciler knows what may exist;
 *  2. sends it to `{PAYGATE_CYBERSOURCE_URL}` signed with the terminal's REST shared secret key (HTTP
 *     Signature: `v-c-merchant-id`, `date`, `host`, `digest`, `signature`), our reference as
 *     `clientReferenceInformation.code`, through the gateway's outgoing HTTP client (timeouts, size cap,
 *     only the configured host);
 *  3. believes an answer only when it names our reference (and our amount and currency): anything else
 *     is UNKNOWN and the transaction stays PENDING for the reconciler, which finds the operation again by
 *     that reference through the Transaction Search API (`POST /tss/v2/searches`).
 * Payments are decided in their answer (201): approved, declined with a reason, held for review
 * (PENDING: the search decides it later), or asking for 3-D Secure. A capture answered PENDING is
 * accepted for settlement (APPROVED); a reversal REVERSED is done. A refund answered PENDING is accepted,
 * not decided: the settlement batch may still fail it, so it stays PENDING (with its id) until the
 * reconciler's search shows its ics_credit status TRANSMITTED (SUCCESS) or FAILED (declined).
 * 3-D Secure 2 runs through CyberSource's Payer Authentication with the payment (actionList
 * CONSUMER_AUTHENTICATION, then VALIDATE_CONSUMER_AUTHENTICATION after the ACS challenge).
 *
 * Why not the official `cybersource-rest-client`: it makes its own HTTP calls outside the gateway's
 * outgoing client, where the allowed hosts, deadlines and answer size cap of every outgoing call live;
 * the part of the API used here is five JSON calls and one signature, written from its public reference
 * (spec.ts).
 */
import type {
  AcquirerThreeDS,
  AuthenticateRequest,
  AuthenticationResult,
  BrowserInfo,
  Connector,
  FollowUpRequest,
  LookupRequest,
  LookupResult,
  PaymentRequest,
  PayoutRequest,
  ProcessorResult,
  ThreeDSPayment,
  VerifyCardRequest,
  VerifyCardResult,
} from '../connector.js';
import { ConnectorBase, type KitDeps } from '../kit/base.js';
import type { Answer, Sent } from '../kit/http.js';
import { sharedLedger, type LedgerOperation } from '../kit/ledger.js';
import { cardPresentRefused, declined, noAnswer, notBelieved, notJson, payoutNotOffered, refusedOrUnknown, terminalRecord, verificationOf } from '../kit/outcomes.js';
import type { CybersourceTerminal } from './credentials.js';
import { cardRefusal, followUpBody, paymentBody, readSearch, resultOfFollowUp, resultOfPayment, searchBody, signedHeaders, threedsOf, wordsOf, type CybersourceKind, type PayerAuth } from './mapping.js';

export const CYBERSOURCE_PRODUCTION_URL = 'https://api.cybersource.com';
export const CYBERSOURCE_TEST_URL = 'https://apitest.cybersource.com';

export type CybersourceConnectorOptions = KitDeps<CybersourceTerminal>;

/** The connector's own fields of an operation: the Payer Authentication transaction waiting for the challenge. */
type Data = { authenticationTransactionId?: string };
type Operation = LedgerOperation<Data> & { kind: CybersourceKind };

const PAYMENT_KINDS: readonly string[] = ['payment', 'preauth', 'verify'];

export class CybersourceConnector extends ConnectorBase<CybersourceTerminal, Data> implements Connector {
  readonly #host: string;

  constructor(opts: CybersourceConnectorOptions) {
    super(opts, { name: 'cybersource', label: 'CyberSource', ledger: sharedLedger('cybersource'), maskPath: (p) => p.replace(/\/\d{6,}\//g, '/{id}/') });
    this.#host = new URL(this.baseUrl).host;
  }

  /** A signed POST (every call the connector makes is one). */
  #post(path: string, terminal: CybersourceTerminal, json: Record<string, unknown>, log: Record<string, unknown>): Promise<Sent> {
    const body = JSON.stringify(json);
    const { host: _host, ...headers } = signedHeaders(terminal, { method: 'POST', path, host: this.#host, date: new Date(), body });
    // the Host header the client sends is the base URL's host, which was signed
    return this.send({ method: 'POST', path, headers: { ...headers, 'content-type': 'application/json', accept: 'application/hal+json;charset=utf-8' }, body, log });
  }

  /** A refused request (4xx: not processed) as a decline in CyberSource's words; a server error or garbage as UNKNOWN. */
  #notProcessed(sent: Answer, what: string): ProcessorResult {
    return refusedOrUnknown(sent, { label: 'CyberSource', what, logger: this.deps.logger, name: 'cybersource', words: (a) => (a.status === 401 ? 'the signature was refused (merchant_id, key_id or shared_secret_key)' : wordsOf(a.json)) });
  }

  async #find(reference: string): Promise<Operation | null> {
    return (await this.ledger.find(reference)) as Operation | null;
  }

  #record(req: { reference: string; amount: number; currency: string; terminal: PaymentRequest['terminal'] }, kind: CybersourceKind, terminal: CybersourceTerminal, extra: { providerId?: string | null; originalReference?: string | null } = {}) {
    return this.ledger.record({ reference: req.reference, kind, amount: req.amount, currency: req.currency, account: terminal.merchantId, providerId: extra.providerId ?? null, originalReference: extra.originalReference ?? null, terminalRef: terminalRecord(req.terminal) });
  }

  async #payment(req: PaymentRequest, kind: 'payment' | 'preauth' | 'verify', partial = false): Promise<ProcessorResult> {
    if (req.channel === 'CARD_PRESENT') return cardPresentRefused('CyberSource card-not-present processing');
    const terminal = await this.terminal(req.terminal);
    await this.#record({ ...req, amount: kind === 'verify' ? 0 : req.amount }, kind, terminal);
    const fingerprint = this.fingerprintOf(req.card);
    const previous = req.channel === 'MIT' ? req.cofTxnid || ((await this.ledger.findCof(terminal.merchantId, fingerprint))?.id ?? null) : null;
    const sent = await this.#post('/pts/v2/payments', terminal, paymentBody(req, { kind, previousTransactionId: previous, partial }), { reference: req.reference });
    const read = await this.#read(sent, req, kind, partial);
    if ('settled' in read) return read.settled;
    const r = read.r;
    if (r.result.outcome === 'APPROVED' && req.channel === 'ECOMMERCE' && r.networkId) await this.ledger.keepCof(terminal.merchantId, fingerprint, { id: r.networkId });
    if (r.result.outcome === 'APPROVED' && req.channel === 'MIT') return { ...r.result, cofTxnid: previous };
    return r.result;
  }

  /** The answer of a payment call read and believed, its id kept; or the result it settles at once. */
  async #read(sent: Sent, req: PaymentRequest, kind: 'payment' | 'preauth' | 'verify', partial = false): Promise<{ settled: ProcessorResult } | { r: ReturnType<typeof resultOfPayment>; json: Record<string, unknown> }> {
    if (sent.kind === 'unknown') return { settled: noAnswer(sent) };
    if (sent.status !== 201) return { settled: (sent.status === 400 && cardRefusal(sent.json)) || this.#notProcessed(sent, 'payment') };
    if (!sent.json) return { settled: notJson('CyberSource') };
    const r = resultOfPayment(sent.json, { reference: req.reference, amount: req.amount, currency: req.currency }, kind, partial);
    if (r.result.outcome === 'UNKNOWN') return { settled: notBelieved(this.deps.logger, 'cybersource', { reference: req.reference }, r.result.details) };
    if (r.paymentId) await this.ledger.save(req.reference, { providerId: r.paymentId });
    return { r, json: sent.json };
  }

  authorize(req: PaymentRequest) {
    return this.#payment(req, 'payment');
  }

  /** Asks CyberSource to accept a partial approval (`partialAuthIndicator`): the approved amount is the result's. */
  partialAuthorize(req: PaymentRequest) {
    return this.#payment(req, 'payment', true);
  }

  preauthorize(req: PaymentRequest) {
    return this.#payment(req, 'preauth');
  }

  async #followUp(req: FollowUpRequest, kind: 'capture' | 'void' | 'refund'): Promise<ProcessorResult> {
    const terminal = await this.terminal(req.terminal);
    const original = await this.#find(req.original.reference);
    const paymentId = original?.providerId ?? null;
    if (!original || !paymentId) return declined('The payment was not made through CyberSource by this gateway: no transaction id to refer to');
    let path = `/pts/v2/payments/${paymentId}/${kind === 'capture' ? 'captures' : kind === 'void' ? 'reversals' : 'refunds'}`;
    if (kind === 'refund' && original.kind === 'preauth') {
      // a pre-authorization's money is its capture's: the refund refers to the capture
      const capture = ((await this.ledger.findByIds({ providerId: paymentId }, original.account)) as Operation[]).find((o) => o.kind === 'capture' && o.actionId);
      if (!capture) return declined('The pre-authorization was not captured through CyberSource: nothing to refund');
      path = `/pts/v2/captures/${capture.actionId}/refunds`;
    }
    await this.#record(req, kind, terminal, { providerId: paymentId, originalReference: original.reference });
    const sent = await this.#post(path, terminal, followUpBody(kind, req.reference, req.amount, req.currency), { reference: req.reference, kind });
    if (sent.kind === 'unknown') return noAnswer(sent);
    if (sent.status !== 201) return this.#notProcessed(sent, kind === 'void' ? 'reversal' : kind);
    if (!sent.json) return notJson('CyberSource');
    const r = resultOfFollowUp(sent.json, { kind, reference: req.reference, amount: req.amount, currency: req.currency });
    if (r.result.outcome === 'UNKNOWN') return notBelieved(this.deps.logger, 'cybersource', { reference: req.reference, kind }, r.result.details);
    if (r.id) await this.ledger.save(req.reference, { actionId: r.id });
    return r.result;
  }

  capture(req: FollowUpRequest) {
    return this.#followUp(req, 'capture');
  }

  /** A pre-authorization is released by an authorization reversal of its whole amount. */
  cancel(req: FollowUpRequest) {
    return this.#followUp(req, 'void');
  }

  refund(req: FollowUpRequest) {
    return this.#followUp(req, 'refund');
  }

  /** Card payouts (credits to a card) are a separate CyberSource product: refused, nothing is sent. */
  async payout(_req: PayoutRequest): Promise<ProcessorResult> {
    return payoutNotOffered('CyberSource card processing');
  }

  /**
   * An operation found again by our reference (Transaction Search). A reference without a ledger row was
   * never sent; one CyberSource has no transaction for was never received (`found: false`).
   */
  async lookup(req: LookupRequest): Promise<LookupResult> {
    const op = await this.#find(req.reference);
    if (!op) return { found: false };
    const opened = await this.terminalOf(req.terminal, 'CYBERSOURCE');
    if ('problem' in opened) return { found: 'unknown', details: opened.problem };
    const sent = await this.#post('/tss/v2/searches', opened.terminal, searchBody(op.reference), { reference: op.reference, lookup: true });
    if (sent.kind === 'unknown') return { found: 'unknown', details: sent.details };
    if (sent.status !== 201 || !sent.json) return { found: 'unknown', details: `CyberSource answered the transaction search with HTTP ${sent.status}` };
    const f = readSearch(sent.json, op);
    if (f.state === 'absent') return { found: false };
    if (f.state === 'mismatch') return { found: 'unknown', details: `the ${op.kind} CyberSource has under this reference does not have the amount or currency sent` };
    if (f.state !== 'found') return { found: 'unknown', details: op.kind === 'refund' ? 'CyberSource has not decided the refund in a settlement batch yet' : 'CyberSource holds the payment for review' };
    await this.ledger.save(op.reference, PAYMENT_KINDS.includes(op.kind) ? { providerId: f.id } : { actionId: f.id });
    return { found: true, result: f.result };
  }

  /** 3-D Secure runs through CyberSource with the payment (Payer Authentication), not as a separate call. */
  async authenticate(_req: AuthenticateRequest): Promise<AuthenticationResult> {
    return { outcome: 'UNKNOWN', details: 'CyberSource authenticates cardholders with the payment (Payer Authentication)' };
  }

  /**
   * EMV 3-D Secure 2 through CyberSource's Payer Authentication, driven by our hosted page: the payment
   * is sent with actionList CONSUMER_AUTHENTICATION, the browser's data and our challenge notification URL
   * as `returnUrl`. Frictionless: CyberSource authenticates and authorizes in that answer. A challenge
   * (PENDING_AUTHENTICATION): the cardholder's browser posts the CReq CyberSource gives (`pareq`) to the
   * ACS (`acsUrl`), and once the ACS sends it back, `complete` asks CyberSource to validate the
   * authentication and authorize (VALIDATE_CONSUMER_AUTHENTICATION with the authenticationTransactionId
   * kept in the ledger). Device data collection is not run (`start` answers READY).
   */
  readonly threeds: AcquirerThreeDS = {
    start: async () => ({ outcome: 'READY' }),
    authenticate: (req, browser, urls) => this.#threedsPay(req, browser, urls.challengeNotification),
    complete: (req, cres) => this.#threedsComplete(req, cres),
  };

  async #threedsPay(req: PaymentRequest & { preauthorization: boolean }, browser: BrowserInfo, back: string): Promise<ThreeDSPayment> {
    const kind = req.preauthorization ? 'preauth' : 'payment';
    const result = (r: ProcessorResult, threeds = null as ReturnType<typeof threedsOf>): ThreeDSPayment => ({ outcome: 'RESULT', result: r, threeds, flow: 'FRICTIONLESS' });
    const terminal = await this.terminal(req.terminal);
    await this.#record(req, kind, terminal);
    const payerAuth: PayerAuth = { enroll: { returnUrl: back, browser, ip: req.customerIp ?? null } };
    const sent = await this.#post('/pts/v2/payments', terminal, paymentBody({ ...req, threeds: null }, { kind, previousTransactionId: null, payerAuth }), { reference: req.reference, threeds: 'enroll' });
    const read = await this.#read(sent, req, kind);
    if ('settled' in read) return result(read.settled);
    const { r, json } = read;
    if (r.challenge) {
      await this.ledger.save(req.reference, { data: { authenticationTransactionId: r.challenge.authenticationTransactionId } });
      return { outcome: 'ACS_CHALLENGE', acsUrl: r.challenge.acsUrl, creq: r.challenge.creq };
    }
    if (r.result.outcome === 'CHALLENGE') return result(declined(r.result.details, 'AUTHENTICATION_FAILED', r.paymentId));
    if (r.result.outcome === 'APPROVED' && r.networkId) await this.ledger.keepCof(terminal.merchantId, this.fingerprintOf(req.card), { id: r.networkId });
    return result(r.result, threedsOf(json));
  }

  async #threedsComplete(req: PaymentRequest & { preauthorization: boolean }, cres: string): Promise<ThreeDSPayment> {
    const kind = req.preauthorization ? 'preauth' : 'payment';
    const done = (r: ProcessorResult, threeds = null as ReturnType<typeof threedsOf>): ThreeDSPayment => ({ outcome: 'RESULT', result: r, threeds, flow: 'CHALLENGE' });
    const op = await this.#find(req.reference);
    const authId = op?.data.authenticationTransactionId;
    if (!cres || !authId) return done(declined('CyberSource has no authentication waiting for this payment', 'AUTHENTICATION_FAILED'));
    const terminal = await this.terminal(req.terminal);
    const payerAuth: PayerAuth = { validate: { authenticationTransactionId: authId } };
    const sent = await this.#post('/pts/v2/payments', terminal, paymentBody({ ...req, threeds: null }, { kind, previousTransactionId: null, payerAuth }), { reference: req.reference, threeds: 'validate' });
    const read = await this.#read(sent, req, kind);
    if ('settled' in read) return done(read.settled);
    const { r, json } = read;
    if (r.result.outcome === 'CHALLENGE') return done(declined(r.result.details, 'AUTHENTICATION_FAILED', r.paymentId));
    if (r.result.outcome === 'APPROVED' && r.networkId) await this.ledger.keepCof(terminal.merchantId, this.fingerprintOf(req.card), { id: r.networkId });
    return done(r.result, threedsOf(json) ?? (r.result.outcome === 'APPROVED' ? { version: '2.2.0', transStatus: 'Y', eci: null, cavv: null, dsTransId: null } : null));
  }

  async verifyCard(req: VerifyCardRequest): Promise<VerifyCardResult> {
    return verificationOf(await this.#payment({ ...req, amount: 0, channel: 'ECOMMERCE', threeds: null }, 'verify'));
  }

  /**
   * Tests a terminal's credentials without moving money: a transaction search by a reference nobody
   * used. CyberSource answers 201 when the signature verifies, 401 when it does not.
   */
  async testCredentials(terminal: CybersourceTerminal): Promise<string[]> {
    const sent = await this.#post('/tss/v2/searches', terminal, searchBody(`credential-test-${Date.now()}`), { credentials: true });
    if (sent.kind === 'unknown') return [sent.details];
    if (sent.status === 201) return [];
    return [sent.status === 401 ? 'CyberSource refused the signature: check credentials.merchant_id, credentials.key_id and credentials.shared_secret_key (the REST shared secret key of that merchant)' : `CyberSource answered HTTP ${sent.status}${wordsOf(sent.json) ? `: ${wordsOf(sent.json)}` : ''}`];
  }
}
