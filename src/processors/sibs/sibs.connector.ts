/**
 * The SIBS connector (SIBS services, SIBS Gateway SPG API v2): the IO around the pure mapping
 * (mapping.ts). For every operation it
 *  1. records the operation by our reference (the transaction uuid) before anything is sent, so the
 *     reconciler knows what may exist;
 *  2. sends it to `{PAYGATE_SIBS_URL}` (`.../api/v2`) with the terminal's bearer token and client id
 *     (`Authorization: Bearer`, `X-IBM-Client-Id`), our reference as `merchantTransactionId`, through
 *     the gateway's outgoing HTTP client; a payment is a checkout (`POST /payments`) then the purchase on
 *     that transaction with its signature (`Authorization: Digest <transactionSignature>`): the card
 *     (`card/purchase`) or the customer's MB WAY phone (`mbway-id/purchase`);
 *  3. believes an answer only when it is about our transaction (its id, our merchantTransactionId, the
 *     amount): anything else is UNKNOWN and the transaction stays PENDING for the reconciler, which asks
 *     SIBS for the status (by the transaction id, or by our reference when the checkout's answer was
 *     lost) and settles it once.
 * MB WAY is a push APM (`apmStart`): the order waits PENDING while the customer approves on the phone;
 * SIBS's notification settles it (Success, or Declined / Expired: refused), and so does the status query;
 * the gateway refuses it when its expiry passes. A Multibanco reference (a voucher APM) waits the same way
 * until SIBS notifies it paid. Captures, cancellations and refunds SIBS answers
 * Pending are PENDING until the notification or the status decides them.
 * Notifications are AES-256-GCM ciphertexts under a terminal's secret key: opened with the keys of the
 * terminals of recent SIBS operations in turn, believed only once one authenticates them, recorded
 * once by `notificationID`, and each acknowledged as SIBS asks (`acknowledgement` of the result: the
 * webhook route answers it once the notification was applied).
 * A card purchase SIBS answers Partial waits for 3-D Secure in the customer's browser (its
 * `actionResponse`), which this connector does not perform: it is refused with the reason.
 */
import type {
  ApmStartRequest,
  ApmStartResult,
  AuthenticateRequest,
  AuthenticationResult,
  Connector,
  FollowUpRequest,
  LookupRequest,
  LookupResult,
  NotificationResult,
  PaymentRequest,
  PayoutRequest,
  ProcessorResult,
  VerifyCardRequest,
  VerifyCardResult,
} from '../connector.js';
import { ConnectorBase, type KitDeps } from '../kit/base.js';
import type { Answer, Sent } from '../kit/http.js';
import { sharedLedger, type LedgerOperation } from '../kit/ledger.js';
import { cardPresentRefused, declined, ignored, lookupOf, noAnswer, notBelieved, notJson, payoutNotOffered, refusedOrUnknown, settles, terminalRecord, unknown, verificationOf } from '../kit/outcomes.js';
import type { SibsTerminal } from './credentials.js';
import {
  acknowledgement, cardPurchaseBody, checkoutBody, customerPhoneOf, decryptNotification, followUpBody, headersOf, mbwayPurchaseBody, notificationFacts, parseObject, PATHS, readCheckout,
  resultOfFollowUp, resultOfPayment, returnStatusOf, voucherOf, type NotificationFacts, type SibsKind,
} from './mapping.js';

export const SIBS_PRODUCTION_URL = 'https://api.sibspayments.com/api/v2';
export const SIBS_TEST_URL = 'https://spg.qly.site1.sibs.pt/api/v2';

/** How long an MB WAY request waits for the customer's phone before the gateway refuses it. */
export const MBWAY_EXPIRY_MS = 5 * 60_000;

/** How long a Multibanco reference can be paid (the catalogue's voucher time, apms.ts). */
export const MULTIBANCO_EXPIRY_MS = 3 * 86_400_000;

/** The connector's own fields of an operation (the ledger's `data`). */
export interface SibsData extends Record<string, unknown> {
  /** When the transaction was made (a follow-up names it as `originalTransaction.datetime`). */
  at: string;
}

type Op = LedgerOperation<SibsData> & { kind: SibsKind };

export type SibsConnectorOptions = KitDeps<SibsTerminal>;

export class SibsConnector extends ConnectorBase<SibsTerminal, SibsData> implements Connector {
  constructor(opts: SibsConnectorOptions) {
    super(opts, { name: 'sibs', label: 'SIBS', ledger: sharedLedger('sibs'), maskPath: (p) => p.replace(/^\/payments\/[^/?]+/, '/payments/…').replace(/\?.*$/, '') });
  }

  #post(path: string, headers: Record<string, string>, json: Record<string, unknown>, log: Record<string, unknown>): Promise<Sent> {
    return this.send({ method: 'POST', path, headers, json, log });
  }

  #notProcessed(sent: Answer, what: string): ProcessorResult {
    return refusedOrUnknown(sent, { label: 'SIBS', what, logger: this.deps.logger, name: 'sibs', words: (a) => {
      if (a.status === 401 || a.status === 403) return 'the bearer token or client id was refused';
      if (!a.json) return null;
      const rs = returnStatusOf(a.json);
      return [rs.code, rs.description ?? rs.message].filter(Boolean).join(': ') || null;
    } });
  }

  async #find(reference: string): Promise<Op | null> {
    return (await this.ledger.find(reference)) as Op | null;
  }

  /** The checkout of a payment, recorded first; its transaction and signature, or the result. */
  async #checkout(
    terminal: SibsTerminal, req: Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'channel' | 'storeCredential' | 'terminal' | 'now'>,
    kind: 'payment' | 'preauth' | 'verify' | 'mbway' | 'multibanco', reference?: { entity: string; until: string },
  ): Promise<{ transactionId: string; signature: string } | { result: ProcessorResult }> {
    const at = req.now.toISOString();
    const amount = kind === 'verify' ? 0 : req.amount;
    await this.ledger.record({ reference: req.reference, kind, amount, currency: req.currency, account: String(terminal.terminalId), originalReference: null, terminalRef: terminalRecord(req.terminal), data: { at } });
    const sent = await this.#post(PATHS.checkout(), headersOf(terminal), checkoutBody(req, { kind, terminalId: terminal.terminalId, timestamp: at, reference }), { reference: req.reference, operation: 'checkout' });
    if (sent.kind === 'unknown') return { result: noAnswer(sent) };
    if (sent.status !== 200 && sent.status !== 201) return { result: this.#notProcessed(sent, 'checkout') };
    if (!sent.json) return { result: notJson('SIBS') };
    const read = readCheckout(sent.json, { reference: req.reference, amount: req.amount, currency: req.currency }, kind);
    if ('result' in read) return read.result.outcome === 'UNKNOWN' ? { result: notBelieved(this.deps.logger, 'sibs', { reference: req.reference }, read.result.details) } : read;
    await this.ledger.save(req.reference, { providerId: read.transactionId });
    return read;
  }

  /** The answer to a purchase on our transaction, read and believed. */
  #purchaseAnswer(sent: Sent, x: { reference: string; amount: number; currency: string; transactionId: string }, kind: SibsKind): ProcessorResult {
    if (sent.kind === 'unknown') return noAnswer(sent);
    if (sent.status !== 200 && sent.status !== 201) return this.#notProcessed(sent, 'purchase');
    if (!sent.json) return notJson('SIBS');
    const r = resultOfPayment(sent.json, x, kind);
    return r.outcome === 'UNKNOWN' ? notBelieved(this.deps.logger, 'sibs', { reference: x.reference }, r.details) : r;
  }

  async #card(req: PaymentRequest, kind: 'payment' | 'preauth' | 'verify'): Promise<ProcessorResult> {
    if (req.channel === 'CARD_PRESENT') return cardPresentRefused('SIBS Gateway (online payments)');
    if (req.channel === 'MIT') return declined('Merchant-initiated payments are not offered through SIBS by this gateway yet: charge the stored card with the customer present');
    const terminal = await this.terminal(req.terminal);
    const co = await this.#checkout(terminal, req, kind);
    if ('result' in co) return co.result;
    const sent = await this.#post(PATHS.card(co.transactionId), headersOf(terminal, co.signature), cardPurchaseBody(req.card, { createToken: req.storeCredential === true }), { reference: req.reference, operation: 'cardPurchase' });
    const r = this.#purchaseAnswer(sent, { reference: req.reference, amount: req.amount, currency: req.currency, transactionId: co.transactionId }, kind);
    // a card payment SIBS has pending is not decided yet: the reconciler asks for its status
    return r.outcome === 'PENDING' ? unknown(r.details) : r;
  }

  authorize(req: PaymentRequest) {
    return this.#card(req, 'payment');
  }

  /** SIBS authorizes the whole amount or nothing: the whole amount is asked for. */
  partialAuthorize(req: PaymentRequest) {
    return this.#card(req, 'payment');
  }

  preauthorize(req: PaymentRequest) {
    return this.#card(req, 'preauth');
  }

  async verifyCard(req: VerifyCardRequest): Promise<VerifyCardResult> {
    return verificationOf(await this.#card({ ...req, amount: 0, channel: 'ECOMMERCE', threeds: null }, 'verify'));
  }

  async #followUp(req: FollowUpRequest, kind: 'capture' | 'void' | 'refund'): Promise<ProcessorResult> {
    const original = await this.#find(req.original.reference);
    if (!original || !original.providerId || original.kind === 'verify' || (original.kind !== 'payment' && original.kind !== 'preauth' && original.kind !== 'mbway')) {
      return declined('The payment was not made through SIBS by this gateway: nothing to follow up');
    }
    const terminal = await this.terminal(req.terminal);
    const at = req.now.toISOString();
    await this.ledger.record({ reference: req.reference, kind, amount: req.amount, currency: req.currency, account: original.account, providerId: original.providerId, originalReference: original.reference, terminalRef: terminalRecord(req.terminal), data: { at } });
    const body = followUpBody(kind, { terminalId: terminal.terminalId, reference: req.reference, timestamp: at, amount: req.amount, currency: req.currency, originalId: original.providerId, originalDatetime: original.data.at ?? at });
    const sent = await this.#post(PATHS[kind](original.providerId), headersOf(terminal), body, { reference: req.reference, kind });
    if (sent.kind === 'unknown') return noAnswer(sent);
    if (sent.status !== 200 && sent.status !== 201) return this.#notProcessed(sent, kind === 'void' ? 'cancellation' : kind);
    if (!sent.json) return notJson('SIBS');
    const r = resultOfFollowUp(sent.json, { reference: req.reference, amount: req.amount, currency: req.currency, originalId: original.providerId }, kind);
    if (r.result.outcome === 'UNKNOWN') return notBelieved(this.deps.logger, 'sibs', { reference: req.reference, kind }, r.result.details);
    if (r.transactionId) await this.ledger.save(req.reference, { actionId: r.transactionId });
    if (r.result.outcome === 'APPROVED') return { ...r.result, authorization: req.original.authorization || original.providerId, processorId: original.providerId };
    return r.result;
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

  async payout(_req: PayoutRequest): Promise<ProcessorResult> {
    return payoutNotOffered('SIBS Gateway card payments');
  }

  /** 3-D Secure is not driven through this connector yet. */
  async authenticate(_req: AuthenticateRequest): Promise<AuthenticationResult> {
    return { outcome: 'UNKNOWN', details: 'SIBS authenticates cardholders on its own pages; not driven by this gateway yet' };
  }

  /**
   * MB WAY (a push APM): the checkout with `paymentMethod: [MBWAY]`, then the request to the customer's
   * phone. SIBS answers it Pending: the order waits; the notification or the status query settles it.
   */
  async apmStart(req: ApmStartRequest): Promise<ApmStartResult> {
    if (req.apm === 'MULTIBANCO') return this.#multibanco(req);
    if (req.apm !== 'MBWAY') return declined(`${req.apm} is not offered through SIBS by this gateway`);
    const phone = customerPhoneOf(req.phone ?? '');
    if (!phone) return declined('MB WAY needs the customer\'s Portuguese mobile number (9 digits starting with 9)', 'INVALID_CARD');
    const terminal = await this.terminal(req.terminal);
    const co = await this.#checkout(terminal, { reference: req.reference, amount: req.amount, currency: req.currency, channel: 'ECOMMERCE', storeCredential: false, terminal: req.terminal, now: req.now }, 'mbway');
    if ('result' in co) return startResult(co.result, null, req.now);
    const sent = await this.#post(PATHS.mbway(co.transactionId), headersOf(terminal, co.signature), mbwayPurchaseBody(phone), { reference: req.reference, operation: 'mbwayPurchase' });
    return startResult(this.#purchaseAnswer(sent, { reference: req.reference, amount: req.amount, currency: req.currency, transactionId: co.transactionId }, 'mbway'), co.transactionId, req.now);
  }

  /**
   * A Multibanco reference (a voucher APM): the checkout with `paymentMethod: [REFERENCE]` and the
   * terminal's entity, for exactly the amount until the voucher's expiry, then `service-reference/generate`
   * on the transaction. The order waits until SIBS's notification says it was paid (or expired).
   */
  async #multibanco(req: ApmStartRequest): Promise<ApmStartResult> {
    const terminal = await this.terminal(req.terminal);
    if (!terminal.paymentEntity) return declined('Multibanco through SIBS needs the terminal\'s Multibanco entity (credentials.payment_entity)');
    const until = new Date(req.now.getTime() + MULTIBANCO_EXPIRY_MS).toISOString();
    const co = await this.#checkout(terminal, { reference: req.reference, amount: req.amount, currency: req.currency, channel: 'ECOMMERCE', storeCredential: false, terminal: req.terminal, now: req.now }, 'multibanco', { entity: terminal.paymentEntity, until });
    if ('result' in co) return startResult(co.result, null, req.now);
    const sent = await this.#post(PATHS.reference(co.transactionId), headersOf(terminal, co.signature), {}, { reference: req.reference, operation: 'referenceGenerate' });
    const x = { reference: req.reference, amount: req.amount, currency: req.currency, transactionId: co.transactionId };
    const r = this.#purchaseAnswer(sent, x, 'multibanco');
    if (r.outcome !== 'PENDING' || sent.kind !== 'answer' || !sent.json) return startResult(r, co.transactionId, req.now);
    const v = voucherOf(sent.json, x);
    if (!v) return notBelieved(this.deps.logger, 'sibs', { reference: req.reference }, 'SIBS answered the Multibanco reference without an entity, reference and expiry for the amount');
    return {
      outcome: 'PENDING', processorId: co.transactionId, redirectUrl: null, expiresAt: new Date(v.expiresAt),
      voucher: { format: 'ENTITY_REFERENCE', entity: v.entity, reference: v.reference, amount: req.amount, currency: req.currency, expires_at: v.expiresAt },
    };
  }

  /** The status of an operation: by the transaction's id when its answer gave one, else by our reference. */
  async lookup(req: LookupRequest): Promise<LookupResult> {
    const op = await this.#find(req.reference);
    if (!op) return { found: false };
    const opened = await this.terminalOf(req.terminal, 'SIBS');
    if ('problem' in opened) return { found: 'unknown', details: opened.problem };
    const isFollowUp = op.kind === 'capture' || op.kind === 'void' || op.kind === 'refund';
    const id = isFollowUp ? op.actionId : op.providerId;
    const sent = await this.send({ method: 'GET', path: id ? PATHS.status(id) : PATHS.statusByReference(op.reference), headers: headersOf(opened.terminal) });
    if (sent.kind === 'unknown') return { found: 'unknown', details: sent.details };
    if (sent.status === 404) return id ? { found: 'unknown', details: 'SIBS does not find the transaction' } : { found: false };
    if (sent.status !== 200 || !sent.json) return { found: 'unknown', details: `SIBS answered the status query with HTTP ${sent.status}` };
    const x = { reference: op.reference, amount: op.amount, currency: op.currency };
    const r = isFollowUp
      ? resultOfFollowUp(sent.json, { ...x, originalId: op.providerId ?? '' }, op.kind as 'capture' | 'void' | 'refund').result
      : resultOfPayment(sent.json, { ...x, transactionId: id ?? String(sent.json.transactionID ?? '') }, op.kind);
    if (!id && typeof sent.json.transactionID === 'string') await this.ledger.save(op.reference, isFollowUp ? { actionId: sent.json.transactionID } : { providerId: sent.json.transactionID });
    if (r.outcome === 'APPROVED' && isFollowUp && op.providerId) return { found: true, result: { ...r, processorId: op.providerId } };
    return lookupOf(r);
  }

  /**
   * Tests a terminal's credentials without moving money: the status of a merchantTransactionId nobody
   * used. SIBS answers 401/403 when the token or client id is refused; any other answer means they passed.
   */
  async testCredentials(terminal: SibsTerminal): Promise<string[]> {
    const sent = await this.send({ method: 'GET', path: PATHS.statusByReference(`credentialtest${Date.now()}`), headers: headersOf(terminal) });
    if (sent.kind === 'unknown') return [sent.details];
    if (sent.status === 401 || sent.status === 403) return ['credentials.bearer_token and credentials.client_id were refused by SIBS'];
    if (sent.status >= 500) return [`SIBS answered HTTP ${sent.status}`];
    return [];
  }

  /**
   * A notification SIBS posted (`body`: the base64 ciphertext; its IV and tag headers). It names nothing
   * before it is opened: the keys of the terminals of recent SIBS operations are tried in turn, and only a
   * notification one of them authenticates is read; recorded once by its notificationID; it settles the
   * operation whose transaction (or follow-up) it names.
   */
  async notification(fields: Record<string, string>): Promise<NotificationResult> {
    const body = fields.body ?? '';
    const iv = fields['x-initialization-vector'];
    const tag = fields['x-authentication-tag'];
    if (!body || !iv || !tag) return ignored('not a SIBS notification');
    let clear: string | null = null;
    for (const ref of await this.ledger.recentTerminals()) {
      const t = await this.terminalOf(ref, 'SIBS');
      if ('problem' in t) continue;
      clear = decryptNotification(body, iv, tag, t.terminal.webhookKey);
      if (clear !== null) break;
    }
    if (clear === null) {
      this.deps.logger?.error({}, 'sibs: notification refused (no terminal\'s key authenticates it)');
      return ignored('not authenticated by any SIBS terminal\'s key');
    }
    const json = parseObject(clear);
    const facts = json ? notificationFacts(json) : null;
    if (!facts) return ignored('a SIBS notification without transactionID or notificationID');
    // SIBS sends a notification again until it is acknowledged: every authenticated one is, once applied
    const ack = { acknowledgement: acknowledgement(facts.notificationId) };
    return { ...(await this.#apply(facts)), ...ack };
  }

  async #apply(facts: NotificationFacts): Promise<NotificationResult> {
    const ops = (await this.ledger.findByIds({ actionId: facts.transactionId })) as Op[];
    const op = ops[0] ?? ((await this.ledger.findByIds({ providerId: facts.transactionId })) as Op[]).find((o) => o.kind !== 'capture' && o.kind !== 'void' && o.kind !== 'refund');
    const isFollowUp = op && (op.kind === 'capture' || op.kind === 'void' || op.kind === 'refund');
    const x = op ? { reference: op.reference, amount: op.amount, currency: op.currency } : null;
    const result = !op || !x ? null : isFollowUp
      ? resultOfFollowUp(facts.body, { ...x, originalId: op.providerId ?? '' }, op.kind as 'capture' | 'void' | 'refund').result
      : resultOfPayment(facts.body, { ...x, transactionId: facts.transactionId }, op.kind);
    const fresh = await this.ledger.recordEvent({ eventId: facts.notificationId, type: facts.paymentStatus ?? 'none', resourceId: facts.transactionId, reference: op?.reference ?? null, outcome: result ? result.outcome : 'IGNORED' });
    if (!fresh) return ignored(`notification ${facts.notificationId} was received before (a replay)`);
    if (!op || !result) return ignored('no operation of ours for this notification');
    if (result.outcome === 'APPROVED' && isFollowUp && op.providerId) return settles(op.reference, { ...result, processorId: op.providerId });
    return settles(op.reference, result);
  }
}

/** A started MB WAY payment's answer: waiting on the phone (PENDING), refused, or unknown. */
function startResult(r: ProcessorResult, transactionId: string | null, now: Date): ApmStartResult {
  if (r.outcome === 'PENDING' && transactionId) return { outcome: 'PENDING', processorId: transactionId, redirectUrl: null, voucher: null, expiresAt: new Date(now.getTime() + MBWAY_EXPIRY_MS) };
  if (r.outcome === 'DECLINED') return r;
  if (r.outcome === 'APPROVED') return { outcome: 'UNKNOWN', details: 'SIBS answered the MB WAY request paid at once: the status query settles it' };
  return { outcome: 'UNKNOWN', details: r.outcome === 'UNKNOWN' || r.outcome === 'CHALLENGE' ? r.details : 'SIBS answered the MB WAY request without waiting for the phone' };
}
