/**
 * The Nuvei connector (NUVEI services): the IO around the pure mapping (mapping.ts), on Nuvei's REST API
 * 1.0. For every operation it
 *  1. records the operation by our reference (the transaction uuid) before anything is sent, so the
 *     reconciler knows what may exist;
 *  2. opens the payment flow with a session token (`getSessionToken`) where the method takes one
 *     (`payment`, `initPayment`), and signs every request with its `checksum` (SHA-256 over the fields
 *     in the order the reference gives, then the merchant secret key); our reference goes as Nuvei's
 *     `clientUniqueId`, and each request has a `clientRequestId` of its own;
 *  3. believes an answer only when it echoes the request's clientRequestId (answers are not signed):
 *     anything else is UNKNOWN and the transaction stays PENDING for the reconciler, which finds the
 *     transaction by our reference (`getTransactionDetails` by clientUniqueId) and settles it once.
 * A transaction Nuvei answers PENDING stays PENDING until its DMN or the reconciler decides it.
 * DMNs (Direct Merchant Notifications, form fields posted to the `urlDetails.notificationUrl` each
 * payment names) are verified with their `advanceResponseChecksum` and the terminal's secret key before
 * anything in them is used, recorded once by transaction and status, and settle the operation they name.
 *
 * Why not an official Nuvei SDK: they make their own HTTP calls outside the gateway's outgoing client,
 * which is where the allowed hosts, deadlines and answer size cap of every outgoing call live; the part
 * of the REST API used here is seven JSON methods, written from its public reference (spec.ts).
 */
import { randomUUID } from 'node:crypto';
import type {
  AcquirerThreeDS,
  AuthenticateRequest,
  AuthenticationResult,
  BrowserInfo,
  Connector,
  FollowUpRequest,
  LookupRequest,
  LookupResult,
  NotificationResult,
  PaymentRequest,
  PayoutRequest,
  ProcessorResult,
  ThreeDSPayment,
  ThreeDSStart,
  VerifyCardRequest,
  VerifyCardResult,
} from '../connector.js';
import { ConnectorBase, type KitDeps } from '../kit/base.js';
import type { Sent } from '../kit/http.js';
import { sharedLedger, type LedgerOperation } from '../kit/ledger.js';
import { cardPresentRefused, declined, ignored, lookupOf, noAnswer, notBelieved, notJson, payoutNotOffered, refusedOrUnknown, terminalRecord, unknown, verificationOf } from '../kit/outcomes.js';
import type { NuveiTerminal } from './credentials.js';
import {
  API_PATH,
  detailsOf,
  dmnFacts,
  FOLLOW_UP_METHOD,
  followUpBody,
  initPaymentBody,
  initPaymentOf,
  paymentBody,
  readAnswer,
  requestErrorOf,
  resultOfDmn,
  sessionTokenBody,
  sessionTokenOf,
  threeDOf,
  timeStampOf,
  transactionDetailsBody,
  verifyDmn,
  type FollowUpKind,
  type Merchant,
  type NuveiKind,
  type PaymentRead,
} from './mapping.js';

export const NUVEI_PRODUCTION_URL = 'https://secure.safecharge.com';
export const NUVEI_TEST_URL = 'https://ppp-test.nuvei.com';

/** What the connector gets from the gateway (kit/declaration.ts); `notificationUrl`: where DMNs go. */
export type NuveiConnectorOptions = KitDeps<NuveiTerminal>;

/** The connector's own fields of an operation (ledger `data`). */
interface NuveiData extends Record<string, unknown> {
  /** The session token of the payment flow (3-D Secure: kept between its steps). */
  sessionToken: string;
  /** initPayment's transaction (3-D Secure). */
  initId: string;
  /** The transaction the challenge belongs to (the payment answered REDIRECT). */
  authId: string;
  /** An authorization's settlement (a refund refers to it). */
  settleId: string;
}
type Op = LedgerOperation<NuveiData>;

const merchantOf = (t: NuveiTerminal): Merchant => ({ merchantId: t.merchantId, merchantSiteId: t.merchantSiteId, secretKey: t.secretKey });

export class NuveiConnector extends ConnectorBase<NuveiTerminal, NuveiData> implements Connector {
  constructor(opts: NuveiConnectorOptions) {
    super(opts, { name: 'nuvei', label: 'Nuvei', ledger: sharedLedger('nuvei') });
  }

  #post(method: string, body: Record<string, unknown>, log: Record<string, unknown>): Promise<Sent> {
    return this.send({ method: 'POST', path: `${API_PATH}/${method}.do`, headers: { accept: 'application/json' }, json: body, log: { ...log, method } });
  }

  /** An answer read as a transaction's result, or what the kit makes of a failed exchange. */
  #read(sent: Sent, x: { kind: NuveiKind; amount: number; clientRequestId: string; reference: string }): PaymentRead | ProcessorResult {
    if (sent.kind === 'unknown') return noAnswer(sent);
    if (sent.status !== 200) return refusedOrUnknown(sent, { label: 'Nuvei', what: x.kind, logger: this.deps.logger, name: 'nuvei', words: (a) => (a.json ? requestErrorOf(a.json) : null) });
    if (!sent.json) return notJson('Nuvei');
    const read = readAnswer(sent.json, x);
    if (read.kind === 'result' && read.result.outcome === 'UNKNOWN') return notBelieved(this.deps.logger, 'nuvei', { reference: x.reference, kind: x.kind }, read.result.details);
    return read;
  }

  /** A session token for a payment flow; a decline (nothing was sent for the payment) when there is none. */
  async #session(m: Merchant, clientRequestId: string): Promise<{ token: string } | ProcessorResult> {
    const sent = await this.#post('getSessionToken', sessionTokenBody(m, clientRequestId, timeStampOf(new Date())), { clientRequestId });
    if (sent.kind === 'unknown') return declined(`Nuvei did not answer the session token request (nothing was paid): ${sent.details}`);
    if (sent.status !== 200 || !sent.json) return declined(`Nuvei answered the session token request with HTTP ${sent.status} (nothing was paid)`);
    const s = sessionTokenOf(sent.json, clientRequestId);
    return 'token' in s ? s : declined(`${s.problem} (nothing was paid)`);
  }

  async #find(reference: string): Promise<Op | null> {
    return this.ledger.find(reference);
  }

  async #payment(req: PaymentRequest, kind: 'payment' | 'preauth' | 'verify'): Promise<ProcessorResult> {
    if (req.channel === 'CARD_PRESENT') return cardPresentRefused('Nuvei online payments');
    const terminal = await this.terminal(req.terminal);
    const m = merchantOf(terminal);
    await this.ledger.record({ reference: req.reference, kind, amount: kind === 'verify' ? 0 : req.amount, currency: req.currency, account: m.merchantSiteId, originalReference: null, terminalRef: terminalRecord(req.terminal) });
    const fingerprint = this.fingerprintOf(req.card);
    const previous = req.channel === 'MIT' ? req.cofTxnid || ((await this.ledger.findCof(m.merchantSiteId, fingerprint))?.id ?? null) : null;
    const session = await this.#session(m, `${req.reference}-s`);
    if (!('token' in session)) return session;
    const clientRequestId = `${req.reference}-p`;
    const body = paymentBody(req, { kind, merchant: m, sessionToken: session.token, clientRequestId, timeStamp: timeStampOf(new Date()), initialTransactionId: previous, notificationUrl: this.deps.notificationUrl ?? null });
    const read = this.#read(await this.#post('payment', body, { reference: req.reference }), { kind, amount: req.amount, clientRequestId, reference: req.reference });
    if (!('kind' in read)) return read;
    if (read.kind === 'challenge') return notBelieved(this.deps.logger, 'nuvei', { reference: req.reference }, 'Nuvei asked for a 3-D Secure challenge of a payment sent without 3-D Secure');
    if (read.transactionId) await this.ledger.save(req.reference, { providerId: read.transactionId });
    return this.#approved(read.result, req, m, fingerprint, previous);
  }

  /** An approved payment keeps the card's first transaction (stored credentials) and names it as cof_txnid. */
  async #approved(r: ProcessorResult, req: PaymentRequest, m: Merchant, fingerprint: string, previous: string | null): Promise<ProcessorResult> {
    if (r.outcome !== 'APPROVED') return r;
    if (req.channel === 'MIT') return { ...r, cofTxnid: previous };
    if (req.channel === 'ECOMMERCE') await this.ledger.keepCof(m.merchantSiteId, fingerprint, { id: r.processorId });
    return { ...r, cofTxnid: r.processorId };
  }

  authorize(req: PaymentRequest) {
    return this.#payment(req, 'payment');
  }

  /** Nuvei approves the whole amount or nothing here (partial approval is not asked for). */
  partialAuthorize(req: PaymentRequest) {
    return this.#payment(req, 'payment');
  }

  preauthorize(req: PaymentRequest) {
    return this.#payment(req, 'preauth');
  }

  async #followUp(req: FollowUpRequest, kind: FollowUpKind): Promise<ProcessorResult> {
    const terminal = await this.terminal(req.terminal);
    const m = merchantOf(terminal);
    const original = await this.#find(req.original.reference);
    if (!original?.providerId) return declined('The payment was not made through Nuvei by this gateway: no transaction to refer to');
    // a refund of an authorization refers to its settlement
    const related = kind === 'refund' && original.kind === 'preauth' ? (original.data.settleId ?? null) : original.providerId;
    if (!related) return declined('The authorization was not settled through Nuvei: nothing to refund');
    await this.ledger.record({ reference: req.reference, kind, amount: req.amount, currency: req.currency, account: original.account, providerId: related, originalReference: original.reference, terminalRef: terminalRecord(req.terminal) });
    const clientRequestId = `${req.reference}-f`;
    const body = followUpBody({ merchant: m, clientRequestId, reference: req.reference, amount: req.amount, currency: req.currency, relatedTransactionId: related, timeStamp: timeStampOf(new Date()) });
    const read = this.#read(await this.#post(FOLLOW_UP_METHOD[kind], body, { reference: req.reference }), { kind, amount: req.amount, clientRequestId, reference: req.reference });
    if (!('kind' in read)) return read;
    if (read.kind === 'challenge') return notBelieved(this.deps.logger, 'nuvei', { reference: req.reference, kind }, `Nuvei asked for a 3-D Secure challenge of a ${kind}`);
    if (read.transactionId) await this.ledger.save(req.reference, { actionId: read.transactionId });
    await this.#followUpDone(kind, original.reference, read.result);
    return read.result.outcome === 'APPROVED' ? { ...read.result, authorization: req.original.authorization || read.result.authorization } : read.result;
  }

  /** A settlement approved is what a later refund of the authorization refers to. */
  async #followUpDone(kind: string, originalReference: string | null, r: ProcessorResult): Promise<void> {
    if (kind === 'capture' && r.outcome === 'APPROVED' && originalReference) await this.ledger.save(originalReference, { data: { settleId: r.processorId } });
  }

  capture(req: FollowUpRequest) {
    return this.#followUp(req, 'capture');
  }

  cancel(req: FollowUpRequest) {
    return this.#followUp(req, 'void');
  }

  refund(req: FollowUpRequest) {
    return this.#followUp(req, 'refund');
  }

  /** Card payouts are a separate Nuvei method set up per account: refused, nothing is sent. */
  async payout(_req: PayoutRequest): Promise<ProcessorResult> {
    return payoutNotOffered('Nuvei card payments');
  }

  /** The final result of an operation, found by our reference (its clientUniqueId at Nuvei). */
  async lookup(req: LookupRequest): Promise<LookupResult> {
    const op = await this.#find(req.reference);
    if (!op) return { found: false };
    const opened = await this.terminalOf(op.terminalRef ?? req.terminal, 'NUVEI');
    if ('problem' in opened) return { found: 'unknown', details: opened.problem };
    const sent = await this.#post('getTransactionDetails', transactionDetailsBody(merchantOf(opened.terminal), op.reference, timeStampOf(new Date())), { reference: op.reference });
    if (sent.kind === 'unknown') return { found: 'unknown', details: sent.details };
    if (sent.status !== 200 || !sent.json) return { found: 'unknown', details: `Nuvei answered the transaction query with HTTP ${sent.status}` };
    const d = detailsOf(sent.json, { kind: op.kind as NuveiKind, amount: op.amount });
    if (d.found === 'none') return { found: false };
    if (d.found === 'unknown') return d;
    const id = 'processorId' in d.result ? d.result.processorId : null;
    if (id && d.result.outcome !== 'PENDING') await this.ledger.save(op.reference, op.originalReference ? { actionId: id } : { providerId: id });
    await this.#followUpDone(op.kind, op.originalReference, d.result);
    return lookupOf(d.result, () => ({ found: true, result: declined('Nuvei declined the payment: the issuer asked for strong customer authentication', 'AUTHENTICATION_FAILED', id) }));
  }

  /** 3-D Secure goes through Nuvei with the payment, not a separate call. */
  async authenticate(_req: AuthenticateRequest): Promise<AuthenticationResult> {
    return { outcome: 'UNKNOWN', details: 'Nuvei authenticates cardholders with the payment (3-D Secure through Nuvei)' };
  }

  /**
   * EMV 3-D Secure 2 through Nuvei, driven by our hosted page, in one payment flow (one session token):
   * `start` opens it and calls `initPayment` (the card's 3DS method, run in the browser when Nuvei gives
   * one); `authenticate` sends the `payment` with the browser's data and our challenge notification URL,
   * related to initPayment's transaction: approved frictionlessly, or REDIRECT to the ACS with its CReq;
   * `complete` (the ACS posted its CRes back) sends the last `payment`, related to the REDIRECT's
   * transaction, for the payment's result.
   */
  readonly threeds: AcquirerThreeDS = {
    start: (req, urls) => this.#threedsStart(req, urls.methodNotification),
    authenticate: (req, browser, urls, methodCompleted) => this.#threedsPay(req, browser, urls.challengeNotification, methodCompleted),
    complete: (req) => this.#threedsComplete(req),
  };

  async #threedsStart(req: PaymentRequest & { preauthorization: boolean }, methodNotificationUrl: string): Promise<ThreeDSStart> {
    const terminal = await this.terminal(req.terminal);
    const m = merchantOf(terminal);
    await this.ledger.record({ reference: req.reference, kind: req.preauthorization ? 'preauth' : 'payment', amount: req.amount, currency: req.currency, account: m.merchantSiteId, originalReference: null, terminalRef: terminalRecord(req.terminal) });
    // a soft-declined attempt may have gone under the reference: these requests have ids of their own
    const session = await this.#session(m, `${req.reference}-3s`);
    if (!('token' in session)) return session.outcome === 'DECLINED' ? { outcome: 'DECLINED', error: session.error, details: session.details } : { outcome: 'UNKNOWN', details: 'no session token' };
    const clientRequestId = `${req.reference}-3i`;
    const sent = await this.#post('initPayment', initPaymentBody(req, { merchant: m, sessionToken: session.token, clientRequestId, timeStamp: timeStampOf(new Date()), methodNotificationUrl }), { reference: req.reference });
    if (sent.kind === 'unknown') return { outcome: 'UNKNOWN', details: sent.details };
    if (sent.status !== 200 || !sent.json) return { outcome: 'UNKNOWN', details: `Nuvei answered the 3-D Secure initiation with HTTP ${sent.status}` };
    const init = initPaymentOf(sent.json, clientRequestId);
    if ('problem' in init) return { outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: init.problem };
    await this.ledger.save(req.reference, { data: { sessionToken: session.token, initId: init.transactionId } });
    return init.methodUrl && init.methodPayload ? { outcome: 'METHOD', url: init.methodUrl, data: init.methodPayload } : { outcome: 'READY' };
  }

  async #threedsPay(req: PaymentRequest & { preauthorization: boolean }, browser: BrowserInfo, back: string, methodCompleted: boolean | null): Promise<ThreeDSPayment> {
    const kind = req.preauthorization ? 'preauth' : 'payment';
    const result = (r: ProcessorResult, threeds = false): ThreeDSPayment => ({
      outcome: 'RESULT', result: r.outcome === 'CHALLENGE' ? declined(r.details, 'AUTHENTICATION_FAILED') : r, flow: 'FRICTIONLESS',
      threeds: threeds && r.outcome === 'APPROVED' ? { version: '2.2.0', transStatus: 'Y', eci: null, cavv: null, dsTransId: null } : null,
    });
    const op = await this.#find(req.reference);
    if (!op?.data.sessionToken || !op.data.initId) return result(declined('3-D Secure was not initiated with Nuvei for this payment', 'AUTHENTICATION_FAILED'));
    const terminal = await this.terminal(req.terminal);
    const m = merchantOf(terminal);
    const clientRequestId = `${req.reference}-3a`;
    const threeD = threeDOf(browser, { notificationURL: back, merchantURL: this.deps.publicUrl ?? back, methodCompleted, ip: req.customerIp ?? null });
    const body = paymentBody({ ...req, channel: 'ECOMMERCE' }, { kind, merchant: m, sessionToken: op.data.sessionToken, clientRequestId, timeStamp: timeStampOf(new Date()), notificationUrl: this.deps.notificationUrl ?? null, threeD, relatedTransactionId: op.data.initId });
    const read = this.#read(await this.#post('payment', body, { reference: req.reference }), { kind, amount: req.amount, clientRequestId, reference: req.reference });
    if (!('kind' in read)) return result(read);
    if (read.kind === 'challenge') {
      await this.ledger.save(req.reference, { data: { authId: read.transactionId } });
      return { outcome: 'ACS_CHALLENGE', acsUrl: read.acsUrl, creq: read.creq };
    }
    if (read.transactionId) await this.ledger.save(req.reference, { providerId: read.transactionId });
    return result(await this.#approved(read.result, req, m, this.fingerprintOf(req.card), null), true);
  }

  async #threedsComplete(req: PaymentRequest & { preauthorization: boolean }): Promise<ThreeDSPayment> {
    const kind = req.preauthorization ? 'preauth' : 'payment';
    const done = (r: ProcessorResult): ThreeDSPayment => ({
      outcome: 'RESULT', result: r.outcome === 'CHALLENGE' ? declined(r.details, 'AUTHENTICATION_FAILED') : r, flow: 'CHALLENGE',
      threeds: r.outcome === 'APPROVED' ? { version: '2.2.0', transStatus: 'Y', eci: null, cavv: null, dsTransId: null } : null,
    });
    const op = await this.#find(req.reference);
    if (!op?.data.sessionToken || !op.data.authId) return done(declined('No 3-D Secure challenge of this payment is waiting at Nuvei', 'AUTHENTICATION_FAILED'));
    const terminal = await this.terminal(req.terminal);
    const m = merchantOf(terminal);
    const clientRequestId = `${req.reference}-3c`;
    const body = paymentBody({ ...req, channel: 'ECOMMERCE' }, { kind, merchant: m, sessionToken: op.data.sessionToken, clientRequestId, timeStamp: timeStampOf(new Date()), notificationUrl: this.deps.notificationUrl ?? null, relatedTransactionId: op.data.authId });
    const read = this.#read(await this.#post('payment', body, { reference: req.reference }), { kind, amount: req.amount, clientRequestId, reference: req.reference });
    if (!('kind' in read)) return done(read);
    if (read.kind === 'challenge') return done(unknown('Nuvei asked for another 3-D Secure challenge after the challenge'));
    if (read.transactionId) await this.ledger.save(req.reference, { providerId: read.transactionId });
    return done(await this.#approved(read.result, req, m, this.fingerprintOf(req.card), null));
  }

  async verifyCard(req: VerifyCardRequest): Promise<VerifyCardResult> {
    return verificationOf(await this.#payment({ ...req, amount: 0, channel: 'ECOMMERCE', threeds: null, storeCredential: true }, 'verify'));
  }

  /**
   * Tests a terminal's credentials without moving money: a session token asked for. Nuvei answers
   * SUCCESS when the merchant ids and the checksum (the secret key) are right, ERROR with its reason when not.
   */
  async testCredentials(terminal: NuveiTerminal): Promise<string[]> {
    const clientRequestId = `credential-test-${randomUUID()}`;
    const sent = await this.#post('getSessionToken', sessionTokenBody(merchantOf(terminal), clientRequestId, timeStampOf(new Date())), { clientRequestId });
    if (sent.kind === 'unknown') return [sent.details];
    if (sent.status !== 200 || !sent.json) return [`Nuvei answered HTTP ${sent.status}`];
    const s = sessionTokenOf(sent.json, clientRequestId);
    if ('token' in s) return [];
    return [/checksum/i.test(String(sent.json.reason ?? '')) ? 'credentials.merchantSecretKey was refused by Nuvei (invalid checksum)' : `credentials.merchantId and credentials.merchantSiteId were refused by Nuvei: ${requestErrorOf(sent.json)}`];
  }

  /**
   * A DMN Nuvei posted (its form fields). The operation it names (`merchant_unique_id`: our reference) is
   * found only to know whose secret key signs it; the advanceResponseChecksum is verified with that key
   * before anything else is used. The checksum covers the amount, currency and status: a DMN settles an
   * operation only when its amount and currency are the operation's. A verified DMN is recorded once (by
   * its transaction and status): a replay is ignored.
   */
  async notification(fields: Record<string, string>): Promise<NotificationResult> {
    const facts = dmnFacts(fields);
    if (!facts) return ignored('not a Nuvei DMN');
    const op = await this.#find(facts.reference);
    if (!op || !op.terminalRef) return ignored('no operation of ours for this DMN');
    const t = await this.terminalOf(op.terminalRef, 'NUVEI');
    if ('problem' in t) return ignored(t.problem);
    if (!verifyDmn(fields, t.terminal.secretKey)) {
      this.deps.logger?.error({ reference: op.reference }, 'nuvei: DMN refused (advanceResponseChecksum not verified)');
      return ignored('checksum not verified');
    }
    const result = resultOfDmn(fields, { kind: op.kind as NuveiKind, amount: op.amount, currency: op.currency });
    const fresh = await this.ledger.recordEvent({ eventId: facts.eventId, type: `${facts.transactionType ?? 'transaction'} ${facts.status}`, resourceId: facts.transactionId ?? facts.reference, reference: op.reference, outcome: result ? result.outcome : 'IGNORED' });
    if (!fresh) return ignored(`DMN ${facts.eventId} was received before (a replay)`);
    if (!result) return ignored(`DMN ${facts.transactionType ?? ''} ${facts.status} settles nothing for this operation`);
    if (facts.transactionId && result.outcome === 'APPROVED') await this.ledger.save(op.reference, op.originalReference ? { actionId: facts.transactionId } : { providerId: facts.transactionId });
    await this.#followUpDone(op.kind, op.originalReference, result);
    return { outcome: 'SETTLE', reference: op.reference, result };
  }
}
