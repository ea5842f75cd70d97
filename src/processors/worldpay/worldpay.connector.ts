/**
 * The Worldpay connector (WORLDPAY services, Worldpay Access): the IO around the pure mapping
 * (mapping.ts). For every operation it
 *  1. records the operation by our reference (the transaction uuid) before anything is sent, so the
 *     reconciler knows what may exist;
 *  2. sends it to `{PAYGATE_WORLDPAY_URL}` with the terminal's Access username and password (HTTP
 *     Basic) and `WP-Api-Version: 2024-06-01`, our reference as Worldpay's `transactionReference`,
 *     through the gateway's outgoing HTTP client (timeouts, size cap, only the configured host);
 *  3. believes an answer only when it names our transaction reference (answers are not signed): anything
 *     else is UNKNOWN and the transaction stays PENDING for the reconciler, which finds the payment by its
 *     reference (Payment Queries API) and settles it once.
 * Settle, cancel and refund follow the links of the payment's last answer (`_actions`: settlePayment,
 * partiallySettlePayment, cancelPayment, refundPayment, partiallyRefundPayment), kept in the ledger and
 * replaced by each follow-up's answer; an href outside the configured host is never followed. When none
 * fits (an answer was lost), the payment's own link says which it allows now: the answer's `_links.self`,
 * or for a payment whose answer was lost, the link the reconciler read from the Payment Queries API
 * (the payment retrieved by its id: `_links["payments:events"]`). Worldpay
 * answers them 202 with the outcome it took them with (sentForSettlement, sentForCancellation,
 * sentForRefund, sentForPartialRefund). A settle or cancel taken is the operation's approval (Worldpay
 * carries it out on the authorized payment in its next batch). A refund taken is accepted, not decided:
 * Worldpay may still fail it (`refundFailed`), so it is PENDING until its event (`refunded`,
 * `refundFailed`) or the reconciler (the payment's events in the Payment Queries API:
 * `refundRequestSubmitted` or `refundFailed` after the refund's `refundRequested`) decides it.
 * Events (webhooks) are verified (`Event-Signature`, HMAC-SHA256 of the raw body under the terminal's
 * shared secret) before anything in them is used, recorded once by event id, and settle the payment they
 * name (authorized, refused) or the refund they are about (refunded, refundFailed).
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
  NotificationResult,
  PaymentRequest,
  PayoutRequest,
  ProcessorResult,
  ThreeDSPayment,
  VerifyCardRequest,
  VerifyCardResult,
} from '../connector.js';
import type { WorldpayTerminal } from './credentials.js';
import {
  actionBody, actionsOf, chooseAction, linkDataOfHref, queriedLinkOf, paymentBody, eventFacts, followUpInEvents, headersOf, pathOf, queriedPayments, readAction, readPayment, refusalInEvents, resultOfEvent, resultOfQueried, threedsOf,
  verifyEvent, REFUND_DECISIONS, resultOfRefundEvent, type Actions, type EventFacts, type PaymentRead, type WorldpayKind,
} from './mapping.js';
import { ConnectorBase, type KitDeps } from '../kit/base.js';
import { parseObject, type Answer, type Sent } from '../kit/http.js';
import { sharedLedger, type LedgerOperation } from '../kit/ledger.js';
import { cardPresentRefused, declined, ignored, lookupOf, noAnswer, notBelieved, notJson, payoutNotOffered, refusedOrUnknown, terminalRecord, unknown, verificationOf } from '../kit/outcomes.js';

export const WORLDPAY_PRODUCTION_URL = 'https://access.worldpay.com';
export const WORLDPAY_TRY_URL = 'https://try.access.worldpay.com';

/** The connector's own fields of an operation (the ledger's `data`). */
export interface WorldpayData extends Record<string, unknown> {
  /** The payment's next actions, as its last answer gave them. */
  actions: Actions;
  /** The payment's own link (the Payments API's query of the payment). */
  self: string;
  schemeReference: string | null;
  /** A refund of the payment was taken (a later one is partial). */
  refunded: boolean;
  /** The reference the payment went under with 3-D Secure, after a soft decline under ours. */
  threedsReference: string;
  /** A refund Worldpay took and has not decided yet (its event or the payment's events decide it). */
  undecided: boolean;
}

type Op = LedgerOperation<WorldpayData> & { kind: WorldpayKind };

/** What the connector gets from the gateway (kit/declaration.ts). */
export type WorldpayConnectorOptions = KitDeps<WorldpayTerminal>;

/** The spec operation of a followed action (the simulator's names). */
const OPERATION_OF = { settlePayment: 'settle', partiallySettlePayment: 'partialSettle', cancelPayment: 'cancel', refundPayment: 'refund', partiallyRefundPayment: 'partialRefund' } as const;

/**
 * A capture, void or refund whose answer was lost and which is not among the payment's events: it may
 * not be listed yet, or it never arrived. Within this time of being sent it is undecided (the reconciler
 * asks again); after it, Worldpay never had it.
 */
export const UNDECIDED_ACTION_WINDOW_MS = 60 * 60_000;

export class WorldpayConnector extends ConnectorBase<WorldpayTerminal, WorldpayData> implements Connector {
  constructor(opts: WorldpayConnectorOptions) {
    // the paths of followed actions carry Worldpay's encoded payment link: logged without it
    super(opts, { name: 'worldpay', label: 'Worldpay', ledger: sharedLedger('worldpay'), maskPath: (p) => p.replace(/^\/api\/payments\/[^/]+/, '/api/payments/…').replace(/^\/paymentQueries\/payments\/[^/]+/, '/paymentQueries/payments/…') });
  }

  #payments(terminal: WorldpayTerminal, path: string, json: Record<string, unknown> | undefined, log: Record<string, unknown>): Promise<Sent> {
    return this.send({ method: 'POST', path, headers: headersOf(terminal, 'payments', json !== undefined), ...(json !== undefined ? { json } : { body: '' }), log });
  }

  #query(terminal: WorldpayTerminal, path: string): Promise<Sent> {
    return this.send({ method: 'GET', path, headers: headersOf(terminal, 'queries', false) });
  }

  /** A refused request (4xx: not processed) as a decline in Worldpay's words; a server error or garbage as UNKNOWN. */
  #notProcessed(sent: Answer, what: string): ProcessorResult {
    return refusedOrUnknown(sent, { label: 'Worldpay', what, logger: this.deps.logger, name: 'worldpay', words: (a) => {
      if (a.status === 401) return 'the Access username or password was refused';
      const name = typeof a.json?.errorName === 'string' ? a.json.errorName.slice(0, 60) : null;
      const message = typeof a.json?.message === 'string' ? a.json.message.slice(0, 200) : null;
      return [name, message].filter(Boolean).join(': ') || null;
    } });
  }

  async #find(reference: string): Promise<Op | null> {
    return (await this.ledger.find(reference)) as Op | null;
  }

  /** Keeps what an answer said of a payment (its link id, next actions, scheme reference). */
  async #keep(reference: string, read: PaymentRead & { kind: 'result' | 'challenge' | 'deviceData' }, linkData: string | null): Promise<void> {
    const data: Partial<WorldpayData> = { actions: read.actions };
    if (read.kind === 'result' && read.schemeReference) data.schemeReference = read.schemeReference;
    if (read.kind === 'result' && read.self) data.self = read.self;
    await this.ledger.save(reference, { providerId: linkData, data });
  }

  async #payment(req: PaymentRequest, kind: 'payment' | 'preauth' | 'verify', threeDS: Record<string, unknown> | null = null): Promise<{ read: PaymentRead } | { result: ProcessorResult }> {
    const terminal = await this.terminal(req.terminal);
    await this.ledger.record({ reference: req.reference, kind, amount: kind === 'verify' ? 0 : req.amount, currency: req.currency, account: terminal.entity, originalReference: null, terminalRef: terminalRecord(req.terminal) });
    const fingerprint = this.fingerprintOf(req.card);
    const previous = req.channel === 'MIT' ? req.cofTxnid || ((await this.ledger.findCof(terminal.entity, fingerprint))?.id ?? null) : null;
    const body = paymentBody(req, { kind, entity: terminal.entity, schemeReference: previous, threeDS });
    const sent = await this.#payments(terminal, '/api/payments', body, { reference: req.reference });
    const read = await this.#readPaymentAnswer(sent, req, kind);
    if ('result' in read) return read;
    if (read.read.kind === 'result' && read.read.result.outcome === 'APPROVED') {
      if (req.channel === 'ECOMMERCE' && read.read.schemeReference) await this.ledger.keepCof(terminal.entity, fingerprint, { id: read.read.schemeReference });
      if (req.channel === 'MIT') return { result: { ...read.read.result, cofTxnid: previous } };
    }
    return read;
  }

  /** An answer about a payment: read, believed, and what it says kept. */
  async #readPaymentAnswer(sent: Sent, req: { reference: string; amount: number }, kind: 'payment' | 'preauth' | 'verify'): Promise<{ read: PaymentRead } | { result: ProcessorResult }> {
    if (sent.kind === 'unknown') return { result: noAnswer(sent) };
    if (sent.status !== 201 && sent.status !== 202) return { result: this.#notProcessed(sent, 'payment') };
    if (!sent.json) return { result: notJson('Worldpay') };
    const read = readPayment(sent.json, { reference: req.reference, amount: req.amount }, kind);
    if (read.kind === 'result' && read.result.outcome === 'UNKNOWN') return { result: notBelieved(this.deps.logger, 'worldpay', { reference: req.reference }, read.result.details) };
    await this.#keep(req.reference, read, read.kind === 'result' ? read.linkData : null);
    return { read };
  }

  async #plain(req: PaymentRequest, kind: 'payment' | 'preauth' | 'verify'): Promise<ProcessorResult> {
    if (req.channel === 'CARD_PRESENT') return cardPresentRefused('Worldpay Access (online payments)');
    const r = await this.#payment(req, kind);
    if ('result' in r) return r.result;
    // without 3-D Secure asked for, Worldpay answers none of its steps
    if (r.read.kind !== 'result') return unknown('Worldpay answered a 3-D Secure step to a payment sent without 3-D Secure');
    return r.read.result;
  }

  authorize(req: PaymentRequest) {
    return this.#plain(req, 'payment');
  }

  /** Worldpay authorizes the whole amount or nothing: the whole amount is asked for. */
  partialAuthorize(req: PaymentRequest) {
    return this.#plain(req, 'payment');
  }

  preauthorize(req: PaymentRequest) {
    return this.#plain(req, 'preauth');
  }

  async #followUp(req: FollowUpRequest, kind: 'capture' | 'void' | 'refund'): Promise<ProcessorResult> {
    const terminal = await this.terminal(req.terminal);
    const ours = await this.#find(req.original.reference);
    // a payment authenticated after a soft decline went under a reference of its own
    let original = ours?.data.threedsReference ? await this.#find(ours.data.threedsReference) : ours;
    if (!original || (original.kind !== 'payment' && original.kind !== 'preauth')) return declined('The payment was not made through Worldpay by this gateway: no actions to follow');
    const facts = { amount: original.amount, refundedBefore: original.data.refunded === true };
    // the actions kept are those of the payment's last answer; when none fits (an answer was lost), the
    // payment's own link says which it allows now (found first when none was kept: read again after)
    let action = chooseAction(kind, original.data.actions ?? {}, req.amount, facts);
    if (!action) {
      action = chooseAction(kind, await this.#currentActions(terminal, original), req.amount, facts);
      original = (await this.#find(original.reference)) ?? original;
    }
    if (!action) return declined(`Worldpay offers no ${kind === 'void' ? 'cancellation' : kind === 'capture' ? 'settlement' : 'refund'} of this payment now (none among the actions of its last answer)`);
    const path = pathOf(action.href, this.baseUrl);
    if (!path) return declined(`Worldpay's ${action.name} link points outside ${new URL(this.baseUrl).host}: not followed`);
    await this.ledger.record({ reference: req.reference, kind, amount: req.amount, currency: req.currency, account: original.account, providerId: original.providerId, originalReference: original.reference, terminalRef: terminalRecord(req.terminal), data: { actions: {} } });
    const sent = await this.#payments(terminal, path, actionBody(action.partial, req.reference, req.amount, req.currency), { reference: req.reference, kind, operation: OPERATION_OF[action.name as keyof typeof OPERATION_OF] });
    if (sent.kind === 'unknown') return noAnswer(sent);
    if (sent.status !== 202 && sent.status !== 201) return this.#notProcessed(sent, kind);
    if (!sent.json) return notJson('Worldpay');
    const taken = readAction(sent.json, kind);
    if (!taken.taken) return notBelieved(this.deps.logger, 'worldpay', { reference: req.reference, kind }, taken.details, 'action answer not believed; left to the reconciler');
    // the payment's next actions are those of this answer
    await this.ledger.save(original.reference, { data: { actions: taken.actions, ...(kind === 'refund' ? { refunded: true } : {}) } });
    const processorId = original.providerId ?? req.original.processorId ?? original.reference;
    if (kind === 'refund') {
      // taken (sentForRefund), not decided: Worldpay may still fail it
      await this.ledger.save(req.reference, { data: { undecided: true } });
      return { outcome: 'PENDING', details: 'Worldpay took the refund (sentForRefund); it is decided when Worldpay processes it', processorId };
    }
    return { outcome: 'APPROVED', authorization: req.original.authorization || processorId.slice(0, 40), processorId, amount: req.amount };
  }

  /**
   * The actions a payment allows now (`GET` on its own link), kept; none when it cannot be asked. A
   * payment whose answer was lost and which an event settled has no link kept: it is found first by its
   * transaction reference (Payment Queries), its link kept.
   */
  async #currentActions(terminal: WorldpayTerminal, op: Op): Promise<Actions> {
    let self = op.data.self;
    if (!self) {
      const list = await this.#queried(terminal, op.reference);
      const found = typeof list === 'string' ? undefined : list[0];
      if (!found || (await this.#keepFound(terminal, op, found.paymentId)) !== null) return {};
      self = ((await this.#find(op.reference))?.data.self) ?? '';
    }
    const path = self ? pathOf(self, this.baseUrl) : null;
    if (!path) return {};
    const sent = await this.send({ method: 'GET', path, headers: headersOf(terminal, 'payments', false) });
    if (sent.kind === 'unknown' || sent.status !== 200 || !sent.json) return {};
    const actions = actionsOf(sent.json);
    await this.ledger.save(op.reference, { data: { actions } });
    return actions;
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

  /** Card payouts are a separate Worldpay product (Card Payouts API): refused, nothing is sent. */
  async payout(_req: PayoutRequest): Promise<ProcessorResult> {
    return payoutNotOffered('Worldpay Access card payments');
  }

  /** The payments Worldpay has under a transaction reference (Payment Queries API); a string: why it cannot say. */
  async #queried(terminal: WorldpayTerminal, reference: string) {
    const sent = await this.#query(terminal, `/paymentQueries/payments?transactionReference=${encodeURIComponent(reference)}`);
    if (sent.kind === 'unknown') return sent.details;
    if (sent.status !== 200 || !sent.json) return `Worldpay answered the payment query with HTTP ${sent.status}`;
    return queriedPayments(sent.json, reference);
  }

  async #details(terminal: WorldpayTerminal, paymentId: string): Promise<Record<string, unknown> | string> {
    const sent = await this.#query(terminal, `/paymentQueries/payments/${encodeURIComponent(paymentId)}`);
    if (sent.kind === 'unknown') return sent.details;
    if (sent.status !== 200 || !sent.json) return `Worldpay answered the payment's details with HTTP ${sent.status}`;
    return sent.json;
  }

  /**
   * A payment found approved by its transaction reference whose own answer was lost: its own link is
   * read from its retrieval by payment id (`_links["payments:events"]`, kept only on the configured
   * host) and kept with its link id, so a settle, cancel or refund of it (the reconciler's reversal
   * included) asks that link for the actions it allows now. A string: why it could not be asked.
   */
  async #keepFound(terminal: WorldpayTerminal, op: Op, paymentId: string): Promise<string | null> {
    const details = await this.#details(terminal, paymentId);
    if (typeof details === 'string') return details;
    const link = queriedLinkOf(details);
    if (!link || !pathOf(link, this.baseUrl)) {
      this.deps.logger?.warn({ reference: op.reference }, 'worldpay: the payment found has no link of the configured host to act on it');
      return null;
    }
    await this.ledger.save(op.reference, { providerId: op.providerId ? null : linkDataOfHref(link), data: { self: link } });
    return null;
  }

  async lookup(req: LookupRequest): Promise<LookupResult> {
    const ours = await this.#find(req.reference);
    // a payment authenticated after a soft decline went under a reference of its own
    const op = ours?.data.threedsReference ? ((await this.#find(ours.data.threedsReference)) ?? ours) : ours;
    if (!op) return { found: false };
    const opened = await this.terminalOf(req.terminal, 'WORLDPAY');
    if ('problem' in opened) return { found: 'unknown', details: opened.problem };
    const terminal = opened.terminal;
    const paymentRef = op.originalReference ? ((await this.#find(op.originalReference))?.data.threedsReference ?? op.originalReference) : op.reference;
    const list = await this.#queried(terminal, paymentRef);
    if (typeof list === 'string') return { found: 'unknown', details: list };
    const payment = list[0];
    if (op.kind === 'payment' || op.kind === 'preauth' || op.kind === 'verify') {
      if (!payment) return { found: false };
      const read = resultOfQueried(payment, { reference: op.reference, amount: op.amount, currency: op.currency }, op.kind as 'payment' | 'preauth' | 'verify');
      if (read.state === 'refused') {
        const details = await this.#details(terminal, payment.paymentId);
        if (typeof details === 'string') return { found: 'unknown', details };
        return { found: true, result: refusalInEvents(details, payment.paymentId) };
      }
      if (read.result.outcome === 'APPROVED' && !op.data.self) {
        const problem = await this.#keepFound(terminal, op, payment.paymentId);
        if (problem) return { found: 'unknown', details: problem };
      }
      return lookupOf(read.result);
    }
    if (!payment) return { found: 'unknown', details: 'Worldpay does not find the payment the follow-up was about' };
    const details = await this.#details(terminal, payment.paymentId);
    if (typeof details === 'string') return { found: 'unknown', details };
    const state = followUpInEvents(details, { kind: op.kind, reference: op.reference, amount: op.amount });
    const processorId = op.providerId ?? payment.paymentId;
    if (state === 'requested') return { found: 'unknown', details: 'Worldpay took the refund and has not processed it yet' };
    if (op.kind === 'refund' && (state === 'taken' || state === 'failed')) await this.ledger.save(op.reference, { data: { undecided: false } });
    if (state === 'taken') return { found: true, result: { outcome: 'APPROVED', authorization: payment.authorizationCode ?? processorId.slice(0, 40), processorId, amount: op.amount } };
    if (state === 'failed') return { found: true, result: declined(`Worldpay could not carry out the ${op.kind}`, 'PROCESSOR_ERROR', processorId) as Extract<ProcessorResult, { outcome: 'DECLINED' }> };
    const age = op.createdAt ? Date.now() - op.createdAt.getTime() : Infinity;
    return age < UNDECIDED_ACTION_WINDOW_MS ? { found: 'unknown', details: `the ${op.kind} is not among the payment's events yet` } : { found: false };
  }

  /** 3-D Secure goes through Worldpay with the payment (`threeDS`, integrated), not a separate call. */
  async authenticate(_req: AuthenticateRequest): Promise<AuthenticationResult> {
    return { outcome: 'UNKNOWN', details: 'Worldpay authenticates cardholders with the payment (3-D Secure through Worldpay)' };
  }

  /**
   * EMV 3-D Secure 2 through Worldpay (integrated), driven by our hosted page: the payment is sent with
   * `threeDS` (the browser's data, our challenge notification URL as `returnUrl`). Worldpay asks for
   * device data first (`3dsDeviceDataRequired`): the connector supplies it without a collection reference
   * (the reference allows it: the issuer then challenges more often); then the payment is authorized
   * frictionlessly, or `3dsChallenged` sends the cardholder to the challenge page (its `url`, posted the
   * challenge's `JWT`), which posts to the returnUrl when done (its `TransactionId`), and the return leg
   * (`complete`) follows `complete3dsChallenge` for the payment's result.
   */
  readonly threeds: AcquirerThreeDS = {
    start: async () => ({ outcome: 'READY' }),
    authenticate: (req, browser, urls) => this.#threedsPay(req, browser, urls.challengeNotification),
    complete: (req) => this.#threedsComplete(req),
  };

  async #threedsPay(req: PaymentRequest & { preauthorization: boolean }, browser: BrowserInfo, back: string): Promise<ThreeDSPayment> {
    const kind = req.preauthorization ? 'preauth' : 'payment';
    const result = (r: ProcessorResult): ThreeDSPayment => ({ outcome: 'RESULT', result: r, threeds: null, flow: 'FRICTIONLESS' });
    // a soft-declined attempt went under the reference: Worldpay needs a new transaction reference
    const first = await this.ledger.find(req.reference);
    const reference = first ? `${req.reference.slice(0, 36)}-3ds` : req.reference;
    // kept before anything is sent: the reconciler and later operations find the payment by it
    if (reference !== req.reference) await this.ledger.save(req.reference, { data: { threedsReference: reference } });
    let r = await this.#payment({ ...req, reference, threeds: null }, kind, threedsOf(back, browser));
    if ('result' in r) return result(r.result.outcome === 'CHALLENGE' ? declined(r.result.details, 'AUTHENTICATION_FAILED') : r.result);
    if (r.read.kind === 'deviceData') {
      const terminal = await this.terminal(req.terminal);
      const path = pathOf(r.read.actions.supply3dsDeviceData!, this.baseUrl);
      if (!path) return result(declined('Worldpay\'s supply3dsDeviceData link points outside the configured host: not followed'));
      const sent = await this.#payments(terminal, path, {}, { reference, operation: 'supply3dsDeviceData' });
      r = await this.#readPaymentAnswer(sent, { reference, amount: req.amount }, kind);
      if ('result' in r) return result(r.result);
    }
    if (r.read.kind === 'challenge') return { outcome: 'ACS_CHALLENGE', acsUrl: r.read.url, creq: r.read.jwt, field: 'JWT' };
    if (r.read.kind === 'deviceData') return result(unknown('Worldpay asked for device data twice'));
    const approved = r.read.result.outcome === 'APPROVED';
    return { outcome: 'RESULT', result: r.read.result.outcome === 'CHALLENGE' ? declined(r.read.result.details, 'AUTHENTICATION_FAILED') : r.read.result, flow: 'FRICTIONLESS', threeds: approved ? { version: '2.2.0', transStatus: 'Y', eci: null, cavv: null, dsTransId: null } : null };
  }

  async #threedsComplete(req: PaymentRequest & { preauthorization: boolean }): Promise<ThreeDSPayment> {
    const kind = req.preauthorization ? 'preauth' : 'payment';
    const done = (r: ProcessorResult): ThreeDSPayment => ({
      outcome: 'RESULT', result: r, flow: 'CHALLENGE',
      threeds: r.outcome === 'APPROVED' ? { version: '2.2.0', transStatus: 'Y', eci: null, cavv: null, dsTransId: null } : null,
    });
    const first = await this.#find(req.reference);
    const reference = typeof first?.data.threedsReference === 'string' ? first.data.threedsReference : req.reference;
    const op = reference === req.reference ? first : await this.#find(reference);
    const href = op?.data.actions?.complete3dsChallenge;
    if (!op || !href) return done(declined('No 3-D Secure challenge of this payment is waiting at Worldpay', 'AUTHENTICATION_FAILED'));
    const path = pathOf(href, this.baseUrl);
    if (!path) return done(declined('Worldpay\'s complete3dsChallenge link points outside the configured host: not followed', 'AUTHENTICATION_FAILED'));
    const terminal = await this.terminal(req.terminal);
    const sent = await this.#payments(terminal, path, undefined, { reference, operation: 'complete3dsChallenge' });
    const r = await this.#readPaymentAnswer(sent, { reference, amount: req.amount }, kind);
    if ('result' in r) return done(r.result);
    if (r.read.kind !== 'result') return done(unknown('Worldpay asked for another 3-D Secure step after the challenge'));
    if (r.read.result.outcome === 'APPROVED' && r.read.schemeReference && req.channel === 'ECOMMERCE') await this.ledger.keepCof(terminal.entity, this.fingerprintOf(req.card), { id: r.read.schemeReference });
    return done(r.read.result.outcome === 'CHALLENGE' ? declined(r.read.result.details, 'AUTHENTICATION_FAILED') : r.read.result);
  }

  async verifyCard(req: VerifyCardRequest): Promise<VerifyCardResult> {
    return verificationOf(await this.#plain({ ...req, amount: 0, channel: 'ECOMMERCE', threeds: null }, 'verify'));
  }

  /**
   * Tests a terminal's credentials without moving money: a payment query by a reference nobody used.
   * Worldpay answers 200 (an empty list) when the username and password are right, 401 when not.
   */
  async testCredentials(terminal: WorldpayTerminal): Promise<string[]> {
    const sent = await this.#query(terminal, `/paymentQueries/payments?transactionReference=${encodeURIComponent(`credential-test-${Date.now()}`)}`);
    if (sent.kind === 'unknown') return [sent.details];
    if (sent.status === 200) return [];
    return [sent.status === 401 ? 'credentials.username and credentials.password were refused by Worldpay' : `Worldpay answered HTTP ${sent.status}`];
  }

  /**
   * An event Worldpay posted (`body`: the raw JSON text; `event-signature`: its header). The payment it
   * names (its transaction reference, ours) is found only to know whose secret signs it; the signature is
   * verified with that terminal's key before anything else is used. A verified event is recorded once by
   * its id: a replay is ignored.
   */
  async notification(fields: Record<string, string>): Promise<NotificationResult> {
    const raw = fields.body ?? '';
    const unverified = parseObject(raw);
    const facts = unverified ? eventFacts(unverified) : null;
    if (!facts) return ignored('not a Worldpay event');
    const op = await this.#find(facts.reference);
    if (!op || !op.terminalRef) return ignored('no operation of ours for this event');
    // a payment authenticated after a soft decline went under a reference of its own: it settles ours
    const settles = facts.reference.endsWith('-3ds') ? facts.reference.slice(0, -4) : op.reference;
    const t = await this.terminalOf(op.terminalRef, 'WORLDPAY');
    if ('problem' in t) return ignored(t.problem);
    if (!verifyEvent(raw, fields['event-signature'], t.terminal.eventKey)) {
      this.deps.logger?.error({ reference: op.reference }, 'worldpay: event refused (Event-Signature not verified)');
      return ignored('signature not verified');
    }
    if ((REFUND_DECISIONS as readonly string[]).includes(facts.type)) return this.#refundDecided(facts, op);
    const result = resultOfEvent(facts, { kind: op.kind, amount: op.amount, currency: op.currency, processorId: op.providerId ?? op.reference });
    const fresh = await this.ledger.recordEvent({ eventId: facts.eventId, type: facts.type, resourceId: facts.reference, reference: op.reference, outcome: result ? result.outcome : 'IGNORED' });
    if (!fresh) return ignored(`event ${facts.eventId} was received before (a replay)`);
    if (!result) {
      if (/Failed$|^error$|^expired$/.test(facts.type)) this.deps.logger?.warn({ reference: op.reference, type: facts.type }, 'worldpay: event about the payment after its operation');
      return ignored(`event ${facts.type} settles nothing`);
    }
    return { outcome: 'SETTLE', reference: settles, result };
  }

  /**
   * A verified `refunded` or `refundFailed` event about a payment of ours: the refund it is about is the
   * one its `reference` names (a partial refund's, ours), else the refund of the payment with its amount
   * not decided yet; recorded once by event id, it settles that refund.
   */
  async #refundDecided(facts: EventFacts, payment: Op): Promise<NotificationResult> {
    const refunds = ((payment.providerId ? await this.ledger.findByIds({ providerId: payment.providerId }, payment.account) : []) as Op[])
      .filter((o) => o.kind === 'refund' && o.originalReference === payment.reference);
    const byAmount = refunds.filter((o) => facts.amount === null || o.amount === facts.amount);
    const refund = facts.refundReference
      ? refunds.find((o) => o.reference === facts.refundReference)
      : (byAmount.find((o) => o.data.undecided === true) ?? byAmount[0]);
    const result = refund ? resultOfRefundEvent(facts, { amount: refund.amount, currency: refund.currency, processorId: refund.providerId ?? payment.reference }) : null;
    const fresh = await this.ledger.recordEvent({ eventId: facts.eventId, type: facts.type, resourceId: facts.reference, reference: refund?.reference ?? payment.reference, outcome: result ? result.outcome : 'IGNORED' });
    if (!fresh) return ignored(`event ${facts.eventId} was received before (a replay)`);
    if (!refund) {
      this.deps.logger?.warn({ reference: payment.reference, type: facts.type }, 'worldpay: refund event names no refund of ours');
      return ignored(`no refund of ours for this ${facts.type} event`);
    }
    if (!result) return ignored(`the ${facts.type} event does not have the refund's amount or currency`);
    // decided before (its events read by the reconciler): settling again changes nothing; a failure now is worth a look
    if (refund.data.undecided === false && result.outcome === 'DECLINED') this.deps.logger?.error({ reference: refund.reference }, 'worldpay: refundFailed for a refund already decided; check it with Worldpay');
    await this.ledger.save(refund.reference, { data: { undecided: false } });
    return { outcome: 'SETTLE', reference: refund.reference, result };
  }
}
