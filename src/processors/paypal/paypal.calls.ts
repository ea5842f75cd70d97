/**
 * PayPal's calls under the connector (paypal.connector.ts): the operations' records, the OAuth token,
 * the calls and how refusals read, the order a payment opens, and the disputes (webhooks, API).
 */
import { randomUUID } from 'node:crypto';
import type { DisputeActionResult, DisputeApi, TerminalRef, NotificationResult, ProcessorResult } from '../connector.js';
import type { PaypalTerminal } from './credentials.js';
import { amountProblem } from './currencies.js';
import { PAYPAL_LEDGER, paypalOperation, type PaypalOperation } from './ledger.js';
import { ConnectorBase, type KitDeps } from '../kit/base.js';
import type { ConnectorDeps } from '../kit/declaration.js';
import { multipartBody, type Answer, type Sent as KitSent } from '../kit/http.js';
import { declined, ignored, noAnswer, refusedOrUnknown, unknown } from '../kit/outcomes.js';
import { disputeWebhookFacts, documentName, evidenceInput, issuesOf, multipartInput, orderBody, TRANSMISSION_HEADERS, verificationBody, type NetworkReference } from './mapping.js';
import { TtlCache } from '../../platform/cache/ttl-cache.js';

export const PAYPAL_PRODUCTION_URL = 'https://api-m.paypal.com';
export const PAYPAL_SANDBOX_URL = 'https://api-m.sandbox.paypal.com';

/** What the connector gets from the gateway (kit/declaration.ts); `publicUrl`: where a buyer comes back when no return URL was given; `now`: the time (token expiry). */
export type PaypalConnectorOptions = KitDeps<PaypalTerminal> & Pick<ConnectorDeps<PaypalTerminal>, 'publicUrl'> & { now?: () => number };

type Sent = KitSent;

/** The PayPal connector's groundwork; `PaypalConnector` adds the operations. */
export abstract class PaypalCalls extends ConnectorBase<PaypalTerminal, { orderId: string }> {
  /** The app's bearer tokens by client id, each kept for its own time (until shortly before it expires). */
  readonly #tokens: TtlCache<string>;
  protected declare readonly deps: PaypalConnectorOptions;

  constructor(opts: PaypalConnectorOptions) {
    super(opts, { name: 'paypal', label: 'PayPal', ledger: PAYPAL_LEDGER, maskPath: (path) => path.replace(/\/[A-Z0-9]{10,}/g, '/:id') });
    this.#tokens = new TtlCache(0, { now: () => this.now() });
  }

  /** Forgets an app's access token: the next call asks for a new one. */
  protected forgetToken(clientId: string): void {
    this.#tokens.delete(clientId);
  }

  /** Records an operation before anything is sent (idempotent by reference). */
  protected async record(op: Omit<PaypalOperation, 'actionId' | 'createdAt'>): Promise<PaypalOperation> {
    const { clientId, orderId, paymentId, ...rest } = op;
    return paypalOperation(await this.ledger.record({ ...rest, account: clientId, providerId: paymentId, data: orderId ? { orderId } : {} }));
  }

  protected async find(reference: string): Promise<PaypalOperation | null> {
    const r = await this.ledger.find(reference);
    return r ? paypalOperation(r) : null;
  }

  protected save(reference: string, ids: { orderId?: string; paymentId?: string; actionId?: string }): Promise<void> {
    return this.ledger.save(reference, { providerId: ids.paymentId, actionId: ids.actionId, data: ids.orderId ? { orderId: ids.orderId } : undefined });
  }

  /** The operations of a PayPal order, or acting on (or done as) a capture or authorization id. */
  protected async operationsOf(ids: { orderId?: string | null; paymentId?: string | null }): Promise<PaypalOperation[]> {
    return (await this.ledger.findByIds({ providerId: ids.paymentId, actionId: ids.paymentId, data: { orderId: ids.orderId } })).map(paypalOperation);
  }

  protected now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** The app's bearer token (client credentials), kept until shortly before it expires. */
  protected async token(t: PaypalTerminal): Promise<{ token: string } | { failed: ProcessorResult }> {
    const kept = this.#tokens.get(t.clientId);
    if (kept !== undefined) return { token: kept };
    const res = await this.send({ method: 'POST', path: '/v1/oauth2/token', headers: { authorization: `Basic ${Buffer.from(`${t.clientId}:${t.clientSecret}`).toString('base64')}`, accept: 'application/json' }, form: 'grant_type=client_credentials' });
    if (res.kind === 'unknown') return { failed: declined(`PayPal did not answer the token request (nothing was sent)${res.details.replace(/^PayPal did not answer/, '')}`) };
    const body = res.json;
    if (res.status !== 200 || typeof body?.access_token !== 'string') return { failed: declined(res.status === 401 ? 'PayPal refused the client id and secret' : `PayPal answered the token request with HTTP ${res.status}`) };
    const seconds = typeof body.expires_in === 'number' ? body.expires_in : 300;
    this.#tokens.set(t.clientId, body.access_token, Math.max(0, seconds - 60) * 1000);
    return { token: body.access_token };
  }

  protected async call(t: PaypalTerminal, method: 'GET' | 'POST', path: string, body: string | Record<string, unknown> | null, requestId: string | null): Promise<Sent | { kind: 'failed'; result: ProcessorResult }> {
    const tok = await this.token(t);
    if ('failed' in tok) return { kind: 'failed', result: tok.failed };
    const headers: Record<string, string> = { authorization: `Bearer ${tok.token}`, accept: 'application/json', prefer: 'return=representation' };
    if (requestId) headers['paypal-request-id'] = requestId;
    const sent = await this.send({ method, path, headers, ...(body === null ? {} : typeof body === 'string' ? { body, headers: { ...headers, 'content-type': 'application/json' } } : { json: body }) });
    if (sent.kind === 'answer' && sent.status === 401) this.#tokens.delete(t.clientId);
    return sent;
  }

  /** A refused request (4xx: not processed) as a decline naming PayPal's issue; anything else UNKNOWN. */
  protected refused(sent: Answer, what: string): ProcessorResult {
    return refusedOrUnknown(sent, { label: 'PayPal', what, words: (a) => {
      const issues = Array.isArray(a.json?.details) ? (a.json!.details as Array<Record<string, unknown>>).map((d) => d?.issue).filter((x): x is string => typeof x === 'string').slice(0, 3).join(', ') : '';
      return issues || (typeof a.json?.name === 'string' ? a.json.name : null);
    } });
  }

  /** An amount PayPal cannot take, refused before anything is sent; null when it can be sent. */
  protected notSendable(amount: number, currency: string): ProcessorResult | null {
    const problem = amountProblem(amount, currency);
    return problem ? declined(`Not sent to PayPal: ${problem}`) : null;
  }

  /** Creates the operation's order once (no money moves) and records its id; the operation with it. */
  protected async order(t: PaypalTerminal, op: PaypalOperation, intent: 'CAPTURE' | 'AUTHORIZE'): Promise<{ op: PaypalOperation } | { result: ProcessorResult }> {
    if (op.orderId) return { op };
    const created = await this.call(t, 'POST', '/v2/checkout/orders', orderBody(op.reference, op.amount, op.currency, intent), `${op.reference}-order`);
    if (created.kind === 'failed') return { result: created.result };
    if (created.kind === 'unknown') return { result: noAnswer(created) };
    if (created.status !== 200 && created.status !== 201) return { result: this.refused(created, 'order') };
    const id = created.json?.id;
    if (typeof id !== 'string' || !/^[A-Z0-9]{10,40}$/.test(id)) return { result: unknown('PayPal answered the order without an id') };
    await this.save(op.reference, { orderId: id });
    return { op: { ...op, orderId: id } };
  }

  /**
   * The network reference a merchant-initiated payment quotes: the card's first payment's, kept with its
   * network and date; the order's cof_txnid when it names another (its network the card's brand). A
   * Mastercard or Discover reference without its date, which PayPal requires, is not quoted.
   */
  protected async previous(clientId: string, fingerprint: string, cofTxnid: string | null | undefined, network: string | null): Promise<NetworkReference | null> {
    const kept = await this.ledger.findCof(clientId, fingerprint);
    const ref = cofTxnid && kept?.id !== cofTxnid ? { id: cofTxnid, network, date: null } : kept ? { ...kept, network: kept.network ?? network } : null;
    if (ref && (ref.network === 'MASTERCARD' || ref.network === 'DISCOVER') && !ref.date) {
      this.deps.logger?.warn({ network: ref.network }, 'paypal: the card\'s network reference has no date; the merchant-initiated payment is sent without it');
      return null;
    }
    return ref;
  }


  // ---- disputes ([DSP] Disputes API) ------------------------------------------------------------------

  /**
   * A dispute webhook: the payment it names (our reference as the transaction's `custom`, else the capture
   * id) gives the terminal whose webhook id PayPal must verify it for; then it is recorded once by event id
   * and said as our notice.
   */
  protected async disputeWebhook(fields: Record<string, string>, raw: string, unverified: Record<string, unknown>): Promise<NotificationResult> {
    const facts = disputeWebhookFacts(unverified);
    if (!facts) return ignored('a dispute webhook without a dispute of a payment we follow');
    if (TRANSMISSION_HEADERS.some((h) => !fields[h])) return ignored('the PayPal transmission headers are missing');
    const byRef = facts.reference && facts.reference.length <= 100 ? await this.find(facts.reference) : null;
    const op = byRef ?? (facts.captureId ? (await this.operationsOf({ paymentId: facts.captureId })).find((o) => o.kind === 'payment' || o.kind === 'capture') ?? null : null);
    if (!op || !op.terminalRef) return ignored('no payment of ours for this dispute');
    const opened = await this.terminalOf(op.terminalRef, 'PAYPAL');
    if ('problem' in opened) return ignored(opened.problem);
    const verified = await this.call(opened.terminal, 'POST', '/v1/notifications/verify-webhook-signature', verificationBody(fields, opened.terminal.webhookId, raw), null);
    if (verified.kind !== 'answer' || verified.status !== 200 || verified.json?.verification_status !== 'SUCCESS') {
      this.deps.logger?.error({ reference: op.reference }, 'paypal: dispute webhook refused (PayPal did not verify it)');
      return ignored('signature not verified');
    }
    const fresh = await this.ledger.recordEvent({ eventId: facts.eventId, type: facts.type, resourceId: facts.notice.providerId, reference: op.reference, outcome: facts.notice.status });
    if (!fresh) return ignored(`event ${facts.eventId} was received before (a replay)`);
    // a capture of an authorization is recorded under its own reference: the dispute is of the payment's
    return { outcome: 'DISPUTE', notice: { ...facts.notice, reference: op.reference } };
  }

  protected async disputeCall(terminal: TerminalRef, path: string, input: unknown, what: string, files: Array<{ name: string; contentType: string; content: Buffer }> = []): Promise<DisputeActionResult> {
    const opened = await this.terminalOf(terminal, 'PAYPAL');
    if ('problem' in opened) return { outcome: 'REFUSED', details: opened.problem };
    const tok = await this.token(opened.terminal);
    if ('failed' in tok) return { outcome: 'UNKNOWN', details: tok.failed.outcome === 'UNKNOWN' ? tok.failed.details : 'PayPal refused the app\'s credentials' };
    const boundary = `paygate${randomUUID().replace(/-/g, '')}`;
    const body = files.length === 0
      ? multipartInput(input, boundary)
      : multipartBody([{ name: 'input', filename: 'input.json', contentType: 'application/json', content: Buffer.from(JSON.stringify(input)) }, ...files.map((f) => ({ name: 'evidence-file', filename: f.name, contentType: f.contentType, content: f.content }))], boundary);
    const sent = await this.send({ method: 'POST', path, headers: { authorization: `Bearer ${tok.token}`, accept: 'application/json', 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
    if (sent.kind !== 'answer') return { outcome: 'UNKNOWN', details: sent.details };
    if (sent.status === 200) return { outcome: 'DONE', details: `${what}: done` };
    if (sent.status >= 400 && sent.status < 500) {
      const issues = issuesOf(sent.json).join(', ');
      return { outcome: 'REFUSED', details: `PayPal refused ${what} (HTTP ${sent.status}${issues ? `: ${issues}` : ''})` };
    }
    return { outcome: 'UNKNOWN', details: `PayPal answered ${what} with HTTP ${sent.status}` };
  }

  readonly disputes: DisputeApi = {
    submitEvidence: (req) => {
      // each document an `evidence-file` part, named as PayPal's document names go, listed with its evidence
      const files = req.evidence.documents.map((d, i) => ({ name: documentName(d.filename, d.contentType, i + 1), contentType: d.contentType, content: d.content, field: d.field }));
      const input = evidenceInput(req.evidence.fields, files.map((f) => ({ name: f.name, field: f.field })));
      return this.disputeCall(req.terminal, `/v1/customer/disputes/${encodeURIComponent(req.providerId)}/provide-evidence`, input, 'the evidence', files);
    },
    accept: (req) => this.disputeCall(req.terminal, `/v1/customer/disputes/${encodeURIComponent(req.providerId)}/accept-claim`, { note: 'The merchant accepts the claim.' }, 'the acceptance'),
  };
}
