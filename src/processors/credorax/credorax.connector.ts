/**
 * The Credorax connector (CREDORAX services, Credorax/Finaro Source payment gateway): the IO around the
 * pure mapping (mapping.ts). For every operation it
 *  1. records the operation by our reference (the transaction uuid; `a1` is that uuid without its
 *     dashes) before anything is sent;
 *  2. posts the signed form (`K`, SHA-256 with the terminal's `signing_api_key`, or the Amex merchant's
 *     key for American Express cards) to `PAYGATE_CREDORAX_URL` through the gateway's outgoing client;
 *  3. believes an answer only when its own `K` verifies with that key and it names our request id and
 *     amount: anything else is UNKNOWN and the transaction stays PENDING for the reconciler.
 * Credorax decides sales, authorizations, captures, voids and refunds in their answer (synchronously).
 * The reconciler finds an operation whose answer was lost or not believed by the retrieval of its
 * request id (`O=101`, `g4`).
 * EMV 3-D Secure 2 runs through Credorax with the payment (`3ds_initiate`): frictionless, the answer
 * decides it; a challenge (`3ds_status` C) sends the cardholder to `3ds_acsurl`, and once the ACS posts
 * the CRes back, the 3-D Secure completion (`O=92`) gives the payment's result.
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
import type { Sent } from '../kit/http.js';
import { sharedLedger, type LedgerOperation } from '../kit/ledger.js';
import { cardPresentRefused, declined, lookupOf, noAnswer, notBelieved, payoutNotOffered, refusedOrUnknown, terminalRecord, unknown, verificationOf } from '../kit/outcomes.js';
import { merchantById, merchantForCard, type CredoraxMerchant, type CredoraxTerminal } from './credentials.js';
import {
  answerVerifies, completionParams, creqOf, factsOf, followUpParams, mismatch, parseAnswer, paymentParams, requestIdOf, resultOf, retrievalParams, signed, threedsOf,
  type AnswerFacts, type ChallengeFacts, type CredoraxKind, type Params, type ThreedsInitiate,
} from './mapping.js';

/**
 * Credorax assigns each merchant its production URL once certified (`https://<assigned>.credorax.net/crax_gate/service/gateway`):
 * the default names that pattern and must be replaced by the merchant's own in PAYGATE_CREDORAX_URL.
 */
export const CREDORAX_PRODUCTION_URL = 'https://assigned-subdomain.credorax.net/crax_gate/service/gateway';
export const CREDORAX_TEST_URL = 'https://intconsole.credorax.com/intenv/service/gateway';

export type CredoraxConnectorOptions = KitDeps<CredoraxTerminal>;

/** The connector's own fields of an operation. */
type Data = { authCode?: string | null; requestId?: string; challengeResponseId?: string; trxid?: string };
type Operation = LedgerOperation<Data> & { kind: CredoraxKind };

type Read = { settled: ProcessorResult } | { facts: AnswerFacts; result: ProcessorResult; challenge: ChallengeFacts | null };

export class CredoraxConnector extends ConnectorBase<CredoraxTerminal, Data> implements Connector {
  constructor(opts: CredoraxConnectorOptions) {
    super(opts, { name: 'credorax', label: 'Credorax', ledger: sharedLedger('credorax') });
  }

  /** Posts signed parameters; the path is the base URL's own (the gateway has one URL). */
  #post(m: CredoraxMerchant, params: Params, log: Record<string, unknown>): Promise<Sent> {
    return this.send({ method: 'POST', path: '', form: signed(params, m.signingKey), headers: { accept: 'application/x-www-form-urlencoded' }, log: { ...log, operation: params.O } });
  }

  /** An answer read: believed (signature, request id, amount), or the result it settles at once. */
  #read(sent: Sent, m: CredoraxMerchant, expect: { reference: string; requestId: string; amount: number; checkAmount?: boolean; partial?: boolean; what: string }): Read {
    if (sent.kind === 'unknown') return { settled: noAnswer(sent) };
    if (sent.status !== 200) return { settled: refusedOrUnknown(sent, { label: 'Credorax', what: expect.what, logger: this.deps.logger, name: 'credorax' }) };
    const params = parseAnswer(sent.text);
    if (!params) return { settled: unknown('Credorax answered something that is not its form answer') };
    if (!answerVerifies(params, m.signingKey)) return { settled: notBelieved(this.deps.logger, 'credorax', { reference: expect.reference }, "Credorax's answer signature (K) does not verify with the terminal's key") };
    const facts = factsOf(params);
    const wrong = mismatch(facts, { requestId: expect.requestId, amount: expect.checkAmount === false ? null : expect.amount });
    if (wrong) return { settled: notBelieved(this.deps.logger, 'credorax', { reference: expect.reference }, wrong) };
    const { result, challenge } = resultOf(facts, { amount: expect.amount, partial: expect.partial });
    if (result.outcome === 'UNKNOWN') return { settled: notBelieved(this.deps.logger, 'credorax', { reference: expect.reference }, result.details) };
    return { facts, result, challenge };
  }

  async #find(reference: string): Promise<Operation | null> {
    return (await this.ledger.find(reference)) as Operation | null;
  }

  async #payment(req: PaymentRequest, kind: 'payment' | 'preauth' | 'verify', o: { partial?: boolean; initiate?: ThreedsInitiate } = {}): Promise<{ settled: ProcessorResult } | { facts: AnswerFacts; result: ProcessorResult; challenge: ChallengeFacts | null; m: CredoraxMerchant }> {
    const terminal = await this.terminal(req.terminal);
    const pan = req.card.pan.reveal().replace(/\s+/g, '');
    const m = merchantForCard(terminal, pan);
    const amount = kind === 'verify' ? 0 : req.amount;
    // request ids are unique per merchant: the payment sent again with 3-D Secure (after a soft decline) has its own
    const requestId = requestIdOf(o.initiate ? `${req.reference}-3ds` : req.reference);
    await this.ledger.record({ reference: req.reference, kind, amount, currency: req.currency, account: m.merchantId, originalReference: null, terminalRef: terminalRecord(req.terminal), data: { requestId } });
    const fingerprint = this.fingerprintOf(req.card);
    const previous = req.channel === 'MIT' ? req.cofTxnid || ((await this.ledger.findCof(m.merchantId, fingerprint))?.id ?? null) : null;
    const sent = await this.#post(m, { ...paymentParams(req, m, { kind, partial: o.partial, previous, initiate: o.initiate ?? null }), a1: requestId }, { reference: req.reference });
    const read = this.#read(sent, m, { reference: req.reference, requestId, amount, partial: o.partial, what: 'payment' });
    if ('settled' in read) return read;
    const { facts, result } = read;
    if (facts.responseId) await this.ledger.save(req.reference, { providerId: facts.responseId, data: { authCode: facts.authCode, requestId } });
    if (result.outcome === 'APPROVED') {
      if (req.channel === 'ECOMMERCE' && facts.networkId) await this.ledger.keepCof(m.merchantId, fingerprint, { id: facts.networkId });
      if (req.channel === 'MIT') return { ...read, result: { ...result, cofTxnid: previous }, m };
    }
    return { ...read, m };
  }

  async #pay(req: PaymentRequest, kind: 'payment' | 'preauth', partial = false): Promise<ProcessorResult> {
    if (req.channel === 'CARD_PRESENT') return cardPresentRefused('Credorax card-not-present processing');
    const r = await this.#payment(req, kind, { partial });
    if ('settled' in r) return r.settled;
    // a challenge asked of a payment sent without 3-D Secure: it goes on with authentication
    if (r.challenge) return { outcome: 'CHALLENGE', details: 'Credorax asks for 3-D Secure authentication' };
    return r.result;
  }

  authorize(req: PaymentRequest) {
    return this.#pay(req, 'payment');
  }

  /** Asks Credorax to accept a partial approval (`a14`): the approved amount (`z15`) is the result's. */
  partialAuthorize(req: PaymentRequest) {
    return this.#pay(req, 'payment', true);
  }

  preauthorize(req: PaymentRequest) {
    return this.#pay(req, 'preauth');
  }

  async #followUp(req: FollowUpRequest, kind: 'capture' | 'void' | 'refund'): Promise<ProcessorResult> {
    const terminal = await this.terminal(req.terminal);
    const original = await this.#find(req.original.reference);
    if (!original || !original.providerId || !original.data.requestId) return declined('The payment was not made through Credorax by this gateway: no response id to refer to');
    const m = merchantById(terminal, original.account);
    if (!m) return declined(`The payment went through Credorax merchant ${original.account}, which this terminal no longer has`);
    let to = { responseId: original.providerId, authCode: original.data.authCode ?? null, requestId: original.data.requestId };
    if (kind === 'refund' && original.kind === 'preauth') {
      // a pre-authorization's money is its capture's: the refund refers to the capture
      const capture = ((await this.ledger.findByIds({ providerId: original.providerId }, original.account)) as Operation[]).find((o) => o.kind === 'capture' && o.actionId && o.data.requestId);
      if (!capture) return declined('The pre-authorization was not captured through Credorax: nothing to refund');
      to = { responseId: capture.actionId!, authCode: capture.data.authCode ?? null, requestId: capture.data.requestId! };
    }
    const requestId = requestIdOf(req.reference);
    await this.ledger.record({ reference: req.reference, kind, amount: req.amount, currency: req.currency, account: m.merchantId, providerId: original.providerId, originalReference: original.reference, terminalRef: terminalRecord(req.terminal), data: { requestId } });
    const sent = await this.#post(m, followUpParams(kind, req, m, to), { reference: req.reference, kind });
    const read = this.#read(sent, m, { reference: req.reference, requestId, amount: req.amount, checkAmount: kind !== 'void', what: kind === 'void' ? 'void' : kind });
    if ('settled' in read) return read.settled;
    if (read.facts.responseId) await this.ledger.save(req.reference, { actionId: read.facts.responseId, data: { authCode: read.facts.authCode, requestId } });
    const r = read.result;
    if (r.outcome === 'CHALLENGE') return declined(`Credorax refused the ${kind}: ${r.details}`);
    return r;
  }

  capture(req: FollowUpRequest) {
    return this.#followUp(req, 'capture');
  }

  /** A pre-authorization is released by an authorization void (`O=4`). */
  cancel(req: FollowUpRequest) {
    return this.#followUp(req, 'void');
  }

  refund(req: FollowUpRequest) {
    return this.#followUp(req, 'refund');
  }

  /** Payouts (Credorax's independent credit) are not offered through this connector. */
  async payout(_req: PayoutRequest): Promise<ProcessorResult> {
    return payoutNotOffered('Credorax card processing');
  }

  /**
   * An operation found again by our request id: the retrieval (`O=101`, `g4` the request id). A reference
   * without a ledger row was never sent; one Credorax holds no transaction for was never received
   * (`found: false`); a payment that went through the 3-D Secure challenge is decided by its completion's
   * request id.
   */
  async lookup(req: LookupRequest): Promise<LookupResult> {
    const op = await this.#find(req.reference);
    if (!op) return { found: false };
    const opened = await this.terminalOf(req.terminal, 'CREDORAX');
    if ('problem' in opened) return { found: 'unknown', details: opened.problem };
    const m = merchantById(opened.terminal, op.account);
    if (!m) return { found: 'unknown', details: `the operation went through Credorax merchant ${op.account}, which the terminal no longer has` };
    const ids = [...(op.data.challengeResponseId ? [requestIdOf(`${op.reference}:3ds`)] : []), op.data.requestId ?? requestIdOf(op.reference)];
    for (const requestId of ids) {
      const params = retrievalParams(m, requestId, `${Date.now()}`);
      const sent = await this.#post(m, params, { reference: op.reference, lookup: true });
      if (sent.kind === 'unknown') return { found: 'unknown', details: sent.details };
      const answer = sent.status === 200 ? parseAnswer(sent.text) : null;
      if (!answer) return { found: 'unknown', details: `Credorax answered the retrieval with HTTP ${sent.status}` };
      if (!answerVerifies(answer, m.signingKey)) return { found: 'unknown', details: "Credorax's retrieval answer signature (K) does not verify" };
      const f = factsOf(answer);
      if (f.requestId !== params.a1) return { found: 'unknown', details: 'Credorax answered another retrieval' };
      // no transaction under that request id: a refusal naming none
      if (!f.responseId && f.code.startsWith('-')) continue;
      if (f.amount !== null && f.amount !== op.amount) return { found: 'unknown', details: `the ${op.kind} Credorax holds under this request id is of another amount` };
      const { result } = resultOf(f, { amount: op.amount, partial: true });
      if (result.outcome === 'APPROVED' || result.outcome === 'DECLINED') {
        const kept = { authCode: f.authCode };
        await this.ledger.save(op.reference, ['payment', 'preauth', 'verify'].includes(op.kind) ? { providerId: f.responseId, data: kept } : { actionId: f.responseId, data: kept });
      }
      return lookupOf(result.outcome === 'CHALLENGE' ? { outcome: 'PENDING', details: 'the payment waits for 3-D Secure authentication', processorId: f.responseId } : result);
    }
    return { found: false };
  }

  /** 3-D Secure runs through Credorax with the payment (`3ds_initiate`), not as a separate call. */
  async authenticate(_req: AuthenticateRequest): Promise<AuthenticationResult> {
    return { outcome: 'UNKNOWN', details: 'Credorax authenticates cardholders with the payment (3ds_initiate)' };
  }

  readonly threeds: AcquirerThreeDS = {
    start: async () => ({ outcome: 'READY' }),
    authenticate: (req, browser, urls) => this.#threedsPay(req, browser, urls.challengeNotification),
    complete: (req, cres) => this.#threedsComplete(req, cres),
  };

  async #threedsPay(req: PaymentRequest & { preauthorization: boolean }, browser: BrowserInfo, back: string): Promise<ThreeDSPayment> {
    const kind = req.preauthorization ? 'preauth' : 'payment';
    const r = await this.#payment({ ...req, threeds: null }, kind, { initiate: { redirectUrl: back, browser } });
    if ('settled' in r) return { outcome: 'RESULT', result: r.settled, threeds: null, flow: 'FRICTIONLESS' };
    if (r.challenge) {
      await this.ledger.save(req.reference, { data: { challengeResponseId: r.challenge.responseId, trxid: r.challenge.trxid } });
      return { outcome: 'ACS_CHALLENGE', acsUrl: r.challenge.acsUrl, creq: creqOf(r.challenge, r.facts.threeds.version ?? '2.2.0') };
    }
    const result = r.result.outcome === 'CHALLENGE' ? declined(r.result.details, 'AUTHENTICATION_FAILED', r.facts.responseId) : r.result;
    return { outcome: 'RESULT', result, threeds: threedsOf(r.facts), flow: 'FRICTIONLESS' };
  }

  async #threedsComplete(req: PaymentRequest & { preauthorization: boolean }, cres: string): Promise<ThreeDSPayment> {
    const done = (result: ProcessorResult, threeds: ReturnType<typeof threedsOf> = null): ThreeDSPayment => ({ outcome: 'RESULT', result, threeds, flow: 'CHALLENGE' });
    const op = await this.#find(req.reference);
    if (!cres || !op?.data.challengeResponseId || !op.data.trxid) return done(declined('Credorax has no authentication waiting for this payment', 'AUTHENTICATION_FAILED'));
    const terminal = await this.terminal(req.terminal);
    const m = merchantById(terminal, op.account);
    if (!m) return done(declined(`The payment went through Credorax merchant ${op.account}, which this terminal no longer has`));
    const params = completionParams(m, req.reference, op.data.challengeResponseId, op.data.trxid);
    const sent = await this.#post(m, params, { reference: req.reference, threeds: 'complete' });
    const read = this.#read(sent, m, { reference: req.reference, requestId: params.a1, amount: req.amount, what: '3-D Secure completion' });
    if ('settled' in read) return done(read.settled);
    const { facts } = read;
    if (facts.responseId) await this.ledger.save(req.reference, { providerId: facts.responseId, data: { authCode: facts.authCode } });
    const result = read.result.outcome === 'CHALLENGE' ? declined(read.result.details, 'AUTHENTICATION_FAILED', facts.responseId) : read.result;
    if (result.outcome === 'APPROVED' && facts.networkId) await this.ledger.keepCof(m.merchantId, this.fingerprintOf(req.card), { id: facts.networkId });
    return done(result, threedsOf(facts));
  }

  async verifyCard(req: VerifyCardRequest): Promise<VerifyCardResult> {
    const r = await this.#payment({ ...req, amount: 0, channel: 'ECOMMERCE', threeds: null }, 'verify');
    if ('settled' in r) return verificationOf(r.settled);
    return verificationOf(r.challenge ? { outcome: 'CHALLENGE', details: 'Credorax asks for 3-D Secure authentication' } : r.result);
  }

  /**
   * Tests a terminal's credentials without moving money: a capture referring to a transaction that does
   * not exist. Credorax answers a signed refusal when the merchant and signature are known (the answer's
   * K verifies with the key), and an unsigned or unverifiable one when they are not.
   */
  async testCredentials(terminal: CredoraxTerminal, currency: string): Promise<string[]> {
    const problems: string[] = [];
    for (const [label, m] of [['merchant_id / signing_api_key', terminal.main], ['merchant_id_amex / signing_api_key_amex', terminal.amex]] as const) {
      if (!m) continue;
      const reference = `credential-test-${Date.now()}`;
      const params = followUpParams('capture', { reference, amount: 1, currency }, m, { responseId: '0', authCode: null, requestId: requestIdOf(`${reference}-none`) });
      const sent = await this.#post(m, params, { credentials: true });
      if (sent.kind === 'unknown') return [sent.details];
      const answer = sent.status === 200 ? parseAnswer(sent.text) : null;
      if (!answer) problems.push(`Credorax answered HTTP ${sent.status} without its form answer`);
      else if (!answerVerifies(answer, m.signingKey)) problems.push(`Credorax did not sign its answer with the key of credentials.${label}: check both (${factsOf(answer).words ?? 'no words'})`);
    }
    return problems;
  }
}
