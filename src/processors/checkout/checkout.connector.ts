/**
 * The Checkout.com connector (CHECKOUT services): the IO around the pure mapping (mapping.ts). For
 * every operation it
 *  1. records the operation by our reference (the transaction uuid) before anything is sent, so the
 *     reconciler knows what may exist;
 *  2. sends it to `{PAYGATE_CHECKOUT_URL}` with the terminal's secret key, our reference as Checkout.com's
 *     `reference` and as `Cko-Idempotency-Key` (a retried request is not charged twice), through the
 *     gateway's outgoing HTTP client (timeouts, size cap, only the configured host);
 *  3. believes an answer only when it names our reference, amount and currency (answers are not signed):
 *     anything else is UNKNOWN and the transaction stays PENDING for the reconciler, which finds the
 *     payment by its reference (`GET /payments?reference=`) or the follow-up among the payment's actions.
 * A capture, void or refund answered 202 is accepted, not done: Checkout.com processes it asynchronously
 * and may still decline it. It is PENDING (with its action id) until its webhook (`payment_captured`,
 * `payment_capture_declined`, ...) or the reconciler (the action among the payment's actions) decides it.
 * A payment's details (`GET /payments/{id}`, the search by reference) say `status` and `approved`, not a
 * response code: the code of a decline is read from the payment's actions.
 * Webhooks (`notification`) are verified (Cko-Signature, HMAC-SHA256 of the raw body with the terminal's
 * webhook signature key) before anything in them is used, recorded once by event id, and settle the
 * operation they name.
 *
 * Why not the official `checkout-sdk-node`: it makes its own HTTP calls (axios or fetch) outside the
 * gateway's outgoing client, which is where the allowed hosts, deadlines and answer size cap of every
 * outgoing call live; the part of the Payments API used here is seven JSON calls, written from its public
 * reference (spec.ts).
 */
import { randomUUID } from 'node:crypto';
import type {
  AcquirerThreeDS,
  AuthenticateRequest,
  ThreeDSPayment,
  AuthenticationResult,
  Connector,
  DisputeActionResult,
  DisputeApi,
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
import type { CheckoutTerminal } from './credentials.js';
import { CHECKOUT_LEDGER, type CheckoutOperation } from './ledger.js';
import { acceptedAction, actionBody, disputeWebhookFacts, evidenceRequest, authorizationOf, declineOf, EVENT_KINDS, followUpInActions, paymentBody, readDetails, resultOfPayment, resultOfWebhook, verifyWebhook, webhookFacts } from './mapping.js';
import { ConnectorBase, type KitDeps } from '../kit/base.js';
import { multipartBody, parseJson, parseObject, type Answer, type Sent } from '../kit/http.js';
import { cardPresentRefused, declined, ignored, lookupOf, noAnswer, notBelieved, notJson, payoutNotOffered, refusedOrUnknown, terminalRecord, unknown, verificationOf } from '../kit/outcomes.js';

export const CHECKOUT_PRODUCTION_URL = 'https://api.checkout.com';
export const CHECKOUT_SANDBOX_URL = 'https://api.sandbox.checkout.com';

/** What the connector gets from the gateway (kit/declaration.ts). */
export type CheckoutConnectorOptions = KitDeps<CheckoutTerminal>;

const FOLLOW_UP_PATH = { capture: 'captures', void: 'voids', refund: 'refunds' } as const;

/**
 * A capture, void or refund whose answer was lost and which is not among the payment's actions: it may
 * have been accepted and not decided yet, or never received. Within this time of being sent it is
 * undecided (the reconciler asks again); after it, Checkout.com never had it.
 */
export const UNDECIDED_ACTION_WINDOW_MS = 60 * 60_000;

export class CheckoutConnector extends ConnectorBase<CheckoutTerminal> implements Connector {
  constructor(opts: CheckoutConnectorOptions) {
    super(opts, { name: 'checkout', label: 'Checkout.com', ledger: CHECKOUT_LEDGER });
  }

  #send(method: 'GET' | 'POST' | 'PUT', path: string, terminal: CheckoutTerminal, body: Record<string, unknown> | null, idempotencyKey: string | null): Promise<Sent> {
    const headers: Record<string, string> = { authorization: `Bearer ${terminal.secretKey}`, accept: 'application/json' };
    if (idempotencyKey) headers['cko-idempotency-key'] = idempotencyKey;
    return this.send({ method, path, headers, json: body ?? undefined });
  }

  /** A refused request (4xx: not processed) as a decline in Checkout.com's words; a server error or garbage as UNKNOWN. */
  #notProcessed(sent: Answer, what: string): ProcessorResult {
    return refusedOrUnknown(sent, { label: 'Checkout.com', what, logger: this.deps.logger, name: 'checkout', words: (a) => {
      const codes = Array.isArray(a.json?.error_codes) ? (a.json!.error_codes as unknown[]).filter((c) => typeof c === 'string').slice(0, 5).join(', ') : '';
      return a.status === 401 ? 'the secret key was refused' : codes || (a.status === 403 ? 'not allowed for this payment (HTTP 403)' : a.status === 404 ? 'payment not found (HTTP 404)' : null);
    } });
  }

  #op(o: Omit<CheckoutOperation, 'actionId' | 'createdAt' | 'data'>) {
    return this.ledger.record(o) as Promise<CheckoutOperation>;
  }

  async #find(reference: string): Promise<CheckoutOperation | null> {
    return (await this.ledger.find(reference)) as CheckoutOperation | null;
  }

  async #payment(req: PaymentRequest, kind: 'payment' | 'preauth' | 'verify'): Promise<ProcessorResult> {
    if (req.channel === 'CARD_PRESENT') return cardPresentRefused('Checkout.com online processing channels');
    const terminal = await this.terminal(req.terminal);
    await this.#op({ reference: req.reference, kind, amount: kind === 'verify' ? 0 : req.amount, currency: req.currency, account: terminal.processingChannelId, providerId: null, originalReference: null, terminalRef: terminalRecord(req.terminal) });
    const fingerprint = this.fingerprintOf(req.card);
    const previous = req.channel === 'MIT' ? req.cofTxnid || ((await this.ledger.findCof(terminal.processingChannelId, fingerprint))?.id ?? null) : null;
    const body = paymentBody(req, { kind, processingChannelId: terminal.processingChannelId, previousPaymentId: previous });
    const sent = await this.#send('POST', '/payments', terminal, body, req.reference);
    if (sent.kind === 'unknown') return noAnswer(sent);
    if (sent.status !== 201 && sent.status !== 202) return this.#notProcessed(sent, 'payment');
    if (!sent.json) return notJson('Checkout.com');
    const r = resultOfPayment(sent.json, { reference: req.reference, amount: req.amount, currency: req.currency }, kind);
    if (r.result.outcome === 'UNKNOWN') return notBelieved(this.deps.logger, 'checkout', { reference: req.reference }, r.result.details);
    if (r.paymentId) await this.ledger.save(req.reference, { providerId: r.paymentId });
    if (r.result.outcome !== 'APPROVED') return r.result;
    if (req.channel === 'ECOMMERCE' && r.schemeId) await this.ledger.keepCof(terminal.processingChannelId, fingerprint, { id: r.schemeId });
    if (req.channel === 'MIT') return { ...r.result, cofTxnid: previous };
    return r.result;
  }

  authorize(req: PaymentRequest) {
    return this.#payment(req, 'payment');
  }

  /** Checkout.com approves the whole amount or nothing: the whole amount is asked for. */
  partialAuthorize(req: PaymentRequest) {
    return this.#payment(req, 'payment');
  }

  preauthorize(req: PaymentRequest) {
    return this.#payment(req, 'preauth');
  }

  async #followUp(req: FollowUpRequest, kind: 'capture' | 'void' | 'refund'): Promise<ProcessorResult> {
    const terminal = await this.terminal(req.terminal);
    const original = await this.#find(req.original.reference);
    const paymentId = original?.providerId ?? (req.original.processorId && /^pay_/.test(req.original.processorId) ? req.original.processorId : null);
    if (!original || !paymentId) return declined('The payment was not made through Checkout.com by this gateway: no payment id to refer to');
    await this.#op({ reference: req.reference, kind, amount: req.amount, currency: req.currency, account: original.account, providerId: paymentId, originalReference: original.reference, terminalRef: terminalRecord(req.terminal) });
    const sent = await this.#send('POST', `/payments/${encodeURIComponent(paymentId)}/${FOLLOW_UP_PATH[kind]}`, terminal, actionBody(kind, req.reference, req.amount), req.reference);
    if (sent.kind === 'unknown') return noAnswer(sent);
    if (sent.status !== 202) return this.#notProcessed(sent, kind);
    const accepted = sent.json ? acceptedAction(sent.json, req.reference) : null;
    if (!accepted) return notBelieved(this.deps.logger, 'checkout', { reference: req.reference, kind }, `The Checkout.com answer to the ${kind} does not name an action for it`, 'action answer not believed; left to the reconciler');
    await this.ledger.save(req.reference, { actionId: accepted.actionId });
    // accepted, processed asynchronously: its webhook or the payment's actions decide it
    return { outcome: 'PENDING', details: `Checkout.com accepted the ${kind}; it is decided asynchronously`, processorId: accepted.actionId };
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

  /** Card payouts need a separate Checkout.com product (Payouts): refused, nothing is sent. */
  async payout(_req: PayoutRequest): Promise<ProcessorResult> {
    return payoutNotOffered('Checkout.com payment processing channels');
  }

  async lookup(req: LookupRequest): Promise<LookupResult> {
    const op = await this.#find(req.reference);
    if (!op) return { found: false };
    const opened = await this.terminalOf(req.terminal, 'CHECKOUT');
    if ('problem' in opened) return { found: 'unknown', details: opened.problem };
    const terminal = opened.terminal;
    if (op.kind === 'payment' || op.kind === 'preauth' || op.kind === 'verify') {
      const sent = await this.#send('GET', `/payments?reference=${encodeURIComponent(op.reference)}&limit=10`, terminal, null, null);
      if (sent.kind === 'unknown') return { found: 'unknown', details: sent.details };
      if (sent.status !== 200 || !sent.json || !Array.isArray(sent.json.data)) return { found: 'unknown', details: `Checkout.com answered the payment search with HTTP ${sent.status}` };
      // a soft-declined attempt and its authenticated retry share the reference: the approved one
      // counts, then one still waiting for 3-D Secure, then a declined one
      const ours = (sent.json.data as Array<Record<string, unknown>>).filter((x) => x && typeof x === 'object' && x.reference === op.reference);
      const p = ours.find((x) => x.approved === true) ?? ours.find((x) => x.status === 'Pending') ?? ours[0];
      if (!p) return { found: false };
      const read = readDetails(p, { reference: op.reference, amount: op.amount, currency: op.currency }, op.kind);
      if (read.paymentId && (read.state === 'declined' || read.result.outcome !== 'UNKNOWN')) await this.ledger.save(op.reference, { providerId: read.paymentId });
      return lookupOf(await this.#settledFromDetails(terminal, p, read));
    }
    if (!op.providerId) return { found: false };
    const sent = await this.#send('GET', `/payments/${encodeURIComponent(op.providerId)}/actions`, terminal, null, null);
    if (sent.kind === 'unknown') return { found: 'unknown', details: sent.details };
    if (sent.status !== 200) return { found: 'unknown', details: `Checkout.com answered the actions query with HTTP ${sent.status}` };
    const list = parseJson(sent.text);
    if (list === undefined) return { found: 'unknown', details: 'Checkout.com answered the actions query with something that is not JSON' };
    const f = followUpInActions(list, { kind: op.kind, reference: op.reference, actionId: op.actionId, amount: op.amount, paymentId: op.providerId });
    if (f.state === 'decided') return { found: true, result: f.result };
    if (f.state === 'mismatch') return { found: 'unknown', details: `the ${op.kind} among the payment's actions does not have the amount sent` };
    if (f.state === 'undecided' || op.actionId) return { found: 'unknown', details: `Checkout.com accepted the ${op.kind} and has not decided it yet` };
    // the answer was lost and the action is not listed: accepted and undecided, or never received
    const age = op.createdAt ? Date.now() - op.createdAt.getTime() : Infinity;
    return age < UNDECIDED_ACTION_WINDOW_MS ? { found: 'unknown', details: `the ${op.kind} is not among the payment's actions yet` } : { found: false };
  }

  /** A payment's authorization action (its response code and auth code); 'unknown' when the actions cannot be read. */
  async #authorization(terminal: CheckoutTerminal, paymentId: string): Promise<{ code: string; summary: string | null; authCode: string | null } | 'unknown'> {
    const sent = await this.#send('GET', `/payments/${encodeURIComponent(paymentId)}/actions`, terminal, null, null);
    if (sent.kind === 'unknown' || sent.status !== 200) return 'unknown';
    const list = parseJson(sent.text);
    if (list === undefined) return 'unknown';
    // declined without a code among its actions: a decline all the same
    return authorizationOf(list) ?? { code: '20012', summary: 'Declined (no response code among the payment\'s actions)', authCode: null };
  }

  /**
   * A payment found by its details: a decline with the code of its authorization action, an approval with
   * that action's auth code (details carry neither).
   */
  async #settledFromDetails(terminal: CheckoutTerminal, details: Record<string, unknown>, read: ReturnType<typeof readDetails>): Promise<ProcessorResult> {
    if (read.state === 'declined') {
      // fetched by a 3-D Secure session id, the details carry the summary of the payment's actions
      const code = authorizationOf(details.actions) ?? (await this.#authorization(terminal, read.paymentId));
      if (code === 'unknown') return unknown('Checkout.com declined the payment; its actions could not be read for the reason');
      return declineOf(read.paymentId, code);
    }
    const r = read.result;
    if (r.outcome !== 'APPROVED' || typeof details.auth_code === 'string') return r;
    const auth = await this.#authorization(terminal, r.processorId);
    return auth !== 'unknown' && auth.authCode ? { ...r, authorization: auth.authCode } : r;
  }

  /** 3-D Secure goes through Checkout.com with the payment (its `3ds` object), not a separate call. */
  async authenticate(_req: AuthenticateRequest): Promise<AuthenticationResult> {
    return { outcome: 'UNKNOWN', details: 'Checkout.com authenticates cardholders with the payment (3-D Secure through Checkout.com)' };
  }

  /**
   * 3-D Secure 2 through Checkout.com, driven by our hosted page: the payment is sent with `3ds.enabled`
   * and our challenge notification URL as success_url and failure_url; Checkout.com answers 202 with the
   * page where the cardholder authenticates (the page's `creq` is our payment id, unused by it), then
   * sends the cardholder back with `cko-session-id`, which `complete` gets as `cres` and looks up
   * (`GET /payments/{cko-session-id}`): the payment's result once authenticated.
   */
  readonly threeds: AcquirerThreeDS = {
    start: async () => ({ outcome: 'READY' }),
    authenticate: (req, _browser, urls) => this.#threedsPay(req, urls.challengeNotification),
    complete: (req, cres) => this.#threedsComplete(req, cres),
  };

  async #threedsPay(req: PaymentRequest & { preauthorization: boolean }, back: string): Promise<ThreeDSPayment> {
    const kind = req.preauthorization ? 'preauth' : 'payment';
    const terminal = await this.terminal(req.terminal);
    await this.#op({ reference: req.reference, kind, amount: req.amount, currency: req.currency, account: terminal.processingChannelId, providerId: null, originalReference: null, terminalRef: terminalRecord(req.terminal) });
    const body = paymentBody({ ...req, threeds: null }, { kind, processingChannelId: terminal.processingChannelId, previousPaymentId: null, threeds3: { successUrl: back, failureUrl: back } });
    // the soft-declined attempt went under the reference as its idempotency key: this one is another request
    const sent = await this.#send('POST', '/payments', terminal, body, `${req.reference}-3ds`);
    const result = (r: ProcessorResult): ThreeDSPayment => ({ outcome: 'RESULT', result: r, threeds: null, flow: 'FRICTIONLESS' });
    if (sent.kind === 'unknown') return result(noAnswer(sent));
    if (sent.status !== 201 && sent.status !== 202) return result(this.#notProcessed(sent, 'payment'));
    if (!sent.json) return result(notJson('Checkout.com'));
    if (sent.status === 202) {
      const p = sent.json;
      const href = (p._links as Record<string, Record<string, unknown>> | undefined)?.redirect?.href;
      if (p.status !== 'Pending' || p.reference !== req.reference || typeof p.id !== 'string' || typeof href !== 'string' || !/^https?:\/\//.test(href)) {
        return result(unknown('The Checkout.com answer does not name the 3-D Secure page of this payment'));
      }
      await this.ledger.save(req.reference, { providerId: p.id });
      return { outcome: 'ACS_CHALLENGE', acsUrl: href, creq: Buffer.from(p.id).toString('base64url') };
    }
    const r = resultOfPayment(sent.json, { reference: req.reference, amount: req.amount, currency: req.currency }, kind);
    if (r.paymentId) await this.ledger.save(req.reference, { providerId: r.paymentId });
    return result(r.result.outcome === 'CHALLENGE' ? declined(r.result.details, 'AUTHENTICATION_FAILED', r.paymentId) : r.result);
  }

  async #threedsComplete(req: PaymentRequest & { preauthorization: boolean }, sessionId: string): Promise<ThreeDSPayment> {
    const kind = req.preauthorization ? 'preauth' : 'payment';
    const done = (r: ProcessorResult): ThreeDSPayment => ({
      outcome: 'RESULT', result: r, flow: 'CHALLENGE',
      threeds: r.outcome === 'APPROVED' ? { version: '2.2.0', transStatus: 'Y', eci: null, cavv: null, dsTransId: null } : null,
    });
    if (!/^sid_[a-z0-9]{10,40}$/.test(sessionId)) return done(declined('Checkout.com sent the cardholder back without a session id', 'AUTHENTICATION_FAILED'));
    const terminal = await this.terminal(req.terminal);
    const sent = await this.#send('GET', `/payments/${sessionId}`, terminal, null, null);
    if (sent.kind === 'unknown') return done(noAnswer(sent));
    if (sent.status !== 200 || !sent.json) return done(unknown(`Checkout.com answered the payment query with HTTP ${sent.status}`));
    const read = readDetails(sent.json, { reference: req.reference, amount: req.amount, currency: req.currency }, kind);
    const r = await this.#settledFromDetails(terminal, sent.json, read);
    if (r.outcome === 'CHALLENGE') return done(unknown('the payment still waits for 3-D Secure authentication'));
    if (r.outcome === 'APPROVED' && read.state === 'result' && read.schemeId) await this.ledger.keepCof(terminal.processingChannelId, this.fingerprintOf(req.card), { id: read.schemeId });
    return done(r);
  }

  async verifyCard(req: VerifyCardRequest): Promise<VerifyCardResult> {
    return verificationOf(await this.#payment({ ...req, amount: 0, channel: 'ECOMMERCE', threeds: null }, 'verify'));
  }

  /**
   * Tests a terminal's credentials without moving money: a payment search by a reference nobody used.
   * Checkout.com answers 200 (an empty list) when the secret key is right, 401 when it is not. Returns
   * the problems in words an operator can act on (empty: the key was accepted).
   */
  async testCredentials(terminal: CheckoutTerminal): Promise<string[]> {
    const sent = await this.#send('GET', `/payments?reference=${encodeURIComponent(`credential-test-${Date.now()}`)}&limit=1`, terminal, null, null);
    if (sent.kind === 'unknown') return [sent.details];
    if (sent.status === 200) return [];
    return [sent.status === 401 ? 'credentials.secret_key was refused by Checkout.com' : `Checkout.com answered HTTP ${sent.status}`];
  }

  /**
   * A webhook Checkout.com posted (`body`: the raw JSON text; `cko-signature`: its header). The
   * operation it is about is found by the payment id and reference it names, only to know whose key
   * signs it; the signature is verified with that terminal's webhook key before anything else is used.
   * A verified event is recorded once by its id: a replay is ignored, a late one is kept and answered
   * as what it settles (the payment is settled only once, by whoever comes first).
   */
  async notification(fields: Record<string, string>): Promise<NotificationResult> {
    const raw = fields.body ?? '';
    const unverified = parseObject(raw);
    const data = unverified?.data as Record<string, unknown> | undefined;
    const type = typeof unverified?.type === 'string' ? unverified.type : '';
    if (unverified && type.startsWith('dispute_')) return this.#disputeWebhook(raw, unverified, fields['cko-signature']);
    if (!unverified || !data || typeof data.id !== 'string') return ignored('not a Checkout.com webhook');
    const kinds = EVENT_KINDS[type]?.kinds;
    if (!kinds) return ignored(`event ${type.slice(0, 60)} settles nothing`);
    const candidates: CheckoutOperation[] = [];
    if (typeof data.reference === 'string' && data.reference.length <= 100) {
      const byRef = await this.#find(data.reference);
      if (byRef) candidates.push(byRef);
    }
    candidates.push(...((await this.ledger.findByIds({ providerId: data.id })) as CheckoutOperation[]));
    const ofKind = candidates.filter((c) => kinds.includes(c.kind) && (c.providerId === null || c.providerId === data.id));
    const op =
      ofKind.find((c) => c.actionId !== null && c.actionId === data.action_id) ??
      ofKind.find((c) => c.reference === data.reference) ??
      ofKind.find((c) => c.actionId === null && c.kind !== 'payment' && c.kind !== 'preauth' && c.kind !== 'verify' && c.amount === data.amount);
    if (!op || !op.terminalRef) return ignored('no operation of ours for this webhook');
    const t = await this.terminalOf(op.terminalRef, 'CHECKOUT');
    if ('problem' in t) return ignored(t.problem);
    if (!verifyWebhook(raw, fields['cko-signature'], t.terminal.webhookKey)) {
      this.deps.logger?.error({ reference: op.reference }, 'checkout: webhook refused (Cko-Signature not verified)');
      return ignored('signature not verified');
    }
    const facts = webhookFacts(unverified);
    if (!facts) return ignored('the webhook names no event or payment');
    const paymentId = op.providerId ?? facts.paymentId;
    const result = resultOfWebhook(facts, { kind: op.kind, amount: op.amount, currency: op.currency, paymentId });
    const fresh = await this.ledger.recordEvent({ eventId: facts.eventId, type: facts.type, resourceId: facts.paymentId, reference: op.reference, outcome: result ? result.outcome : 'IGNORED' });
    if (!fresh) return ignored(`event ${facts.eventId} was received before (a replay)`);
    if (!result) return ignored('the webhook does not match the operation (amount, currency or type)');
    if (!op.providerId) await this.ledger.save(op.reference, { providerId: facts.paymentId });
    if (facts.actionId && !op.actionId && op.kind !== 'payment' && op.kind !== 'preauth' && op.kind !== 'verify') await this.ledger.save(op.reference, { actionId: facts.actionId });
    return { outcome: 'SETTLE', reference: op.reference, result };
  }

  // ---- disputes (Disputes API) ------------------------------------------------------------------------

  /**
   * A dispute webhook: the payment it names by our reference (`payment_reference`) gives the terminal
   * whose webhook key must have signed it; then it is recorded once by event id and said as our notice.
   */
  async #disputeWebhook(raw: string, unverified: Record<string, unknown>, signature: string | undefined): Promise<NotificationResult> {
    const facts = disputeWebhookFacts(unverified);
    if (!facts) return ignored('a dispute webhook without a dispute of a payment of ours');
    const op = facts.reference.length <= 100 ? await this.#find(facts.reference) : null;
    if (!op || !op.terminalRef) return ignored('no payment of ours for this dispute');
    const t = await this.terminalOf(op.terminalRef, 'CHECKOUT');
    if ('problem' in t) return ignored(t.problem);
    if (!verifyWebhook(raw, signature, t.terminal.webhookKey)) {
      this.deps.logger?.error({ reference: op.reference }, 'checkout: dispute webhook refused (Cko-Signature not verified)');
      return ignored('signature not verified');
    }
    const fresh = await this.ledger.recordEvent({ eventId: facts.eventId, type: facts.type, resourceId: facts.notice.providerId, reference: op.reference, outcome: facts.notice.status });
    if (!fresh) return ignored(`event ${facts.eventId} was received before (a replay)`);
    return { outcome: 'DISPUTE', notice: facts.notice };
  }

  /** The outcome of a dispute call: 204 done; 4xx refused (in Checkout.com's words); anything else unknown. */
  #disputeAnswer(sent: Sent, what: string): DisputeActionResult {
    if (sent.kind !== 'answer') return { outcome: 'UNKNOWN', details: sent.details };
    if (sent.status === 204 || sent.status === 200) return { outcome: 'DONE', details: `${what}: done` };
    if (sent.status >= 400 && sent.status < 500) {
      const codes = Array.isArray(sent.json?.error_codes) ? (sent.json!.error_codes as unknown[]).filter((c) => typeof c === 'string').slice(0, 5).join(', ') : '';
      return { outcome: 'REFUSED', details: `Checkout.com refused ${what} (HTTP ${sent.status}${codes ? `: ${codes}` : sent.status === 404 ? ': dispute not found' : sent.status === 401 ? ': the secret key was refused' : ''})` };
    }
    return { outcome: 'UNKNOWN', details: `Checkout.com answered ${what} with HTTP ${sent.status}` };
  }

  readonly disputes: DisputeApi = {
    submitEvidence: async (req) => {
      const opened = await this.terminalOf(req.terminal, 'CHECKOUT');
      if ('problem' in opened) return { outcome: 'REFUSED', details: opened.problem };
      const id = encodeURIComponent(req.providerId);
      // each document uploaded first (POST /files, purpose dispute_evidence): its file id goes in the evidence
      const uploaded: Array<{ filename: string; field: string | null; fileId: string }> = [];
      for (const d of req.evidence.documents) {
        const boundary = `paygate${randomUUID().replace(/-/g, '')}`;
        const sent = await this.send({
          method: 'POST', path: '/files',
          headers: { authorization: `Bearer ${opened.terminal.secretKey}`, accept: 'application/json', 'content-type': `multipart/form-data; boundary=${boundary}` },
          body: multipartBody([{ name: 'purpose', value: 'dispute_evidence' }, { name: 'file', filename: d.filename, contentType: d.contentType, content: d.content }], boundary),
        });
        const fileId = sent.kind === 'answer' && sent.status === 200 && typeof sent.json?.id === 'string' && /^file_\w+$/.test(sent.json.id) ? sent.json.id : null;
        if (!fileId) {
          const r = this.#disputeAnswer(sent, `the document ${d.filename}`);
          return r.outcome === 'DONE' ? { outcome: 'UNKNOWN', details: `Checkout.com gave no file id for ${d.filename}` } : r;
        }
        uploaded.push({ filename: d.filename, field: d.field, fileId });
      }
      const body = evidenceRequest(req.evidence.fields, uploaded);
      // provide (attached, not sent), then submit
      const provided = this.#disputeAnswer(await this.#send('PUT', `/disputes/${id}/evidence`, opened.terminal, body, null), 'the evidence');
      if (provided.outcome !== 'DONE') return provided;
      return this.#disputeAnswer(await this.#send('POST', `/disputes/${id}/evidence`, opened.terminal, null, null), 'the submission of the evidence');
    },
    accept: async (req) => {
      const opened = await this.terminalOf(req.terminal, 'CHECKOUT');
      if ('problem' in opened) return { outcome: 'REFUSED', details: opened.problem };
      return this.#disputeAnswer(await this.#send('POST', `/disputes/${encodeURIComponent(req.providerId)}/accept`, opened.terminal, null, null), 'the acceptance');
    },
  };
}
