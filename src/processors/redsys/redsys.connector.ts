/**
 * The Redsys connector: the IO around the pure mapping. For every operation it
 *  1. records the operation and its Redsys order number (a new one for a payment, the payment's for a
 *     follow-up) in one statement, before anything is sent (so the reconciler knows what may exist);
 *  2. signs the parameters with the terminal's key (HMAC_SHA256_V1 or HMAC_SHA512_V2) and posts them to
 *     `{PAYGATE_REDSYS_URL}/sis/rest/trataPeticionREST` through the gateway's outgoing HTTP client
 *     (timeouts, size cap, only the configured host);
 *  3. verifies the answer's signature before reading anything in it: a bad or missing signature is an
 *     UNKNOWN outcome (the transaction stays PENDING for the reconciler), logged without secrets.
 * `lookup` asks Redsys's query service (`/apl02/services/SerClsWSConsulta`) for an operation by its order
 * number and type.
 */
import type { Logger } from 'pino';
import type { Executor } from '../../platform/db/database.js';
import { OutgoingError, type OutgoingClient } from '../../platform/net/outgoing.js';
import type {
  AuthenticateRequest,
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
  followUpParameters,
  laneFor,
  paymentParameters,
  resultOfAnswer,
  resultOfErrorCode,
  TX_TYPE,
  verificationParameters,
  type AnswerFacts,
  type Lane,
  type OrderRef,
  type RedsysTerminal,
  type TxType,
} from './mapping.js';
import { queryRequestXml, readQueryAnswer } from './query.js';
import { findCof, findOperation, keepCof, recordOperation, type RedsysOperation } from './redsys.repo.js';
import { openMessage, signMessage } from './signature.js';

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
    const op = await recordOperation(this.#o.db(), {
      reference: req.reference, merchantCode: terminal.fuc, terminal: terminal[lane].terminal, type, amount: req.amount, currency: req.currency, originalReference: null,
    });
    const ref: OrderRef = { fuc: terminal.fuc, terminal: terminal[lane].terminal, order: op.order };
    const db = this.#o.db();
    const fingerprint = this.#o.fingerprint(req.card.pan.reveal().replace(/\s+/g, ''));
    // a merchant-initiated payment quotes the network transaction id of the card's first payment
    const cofTxnid = req.channel === 'MIT' ? req.cofTxnid || (await findCof(db, terminal.fuc, fingerprint)) : null;
    const params = paymentParameters({ ref, type, amount: req.amount, currency: req.currency, card: req.card, channel: req.channel, cofTxnid, threeds: req.threeds ?? null });
    const { result, facts } = await this.#operation(terminal, lane, op, params, type, req.amount);
    if (result.outcome !== 'APPROVED') return result;
    if (req.channel === 'ECOMMERCE' && facts?.cofTxnid) {
      await keepCof(db, terminal.fuc, fingerprint, facts.cofTxnid);
      return { ...result, cofTxnid: facts.cofTxnid };
    }
    return cofTxnid ? { ...result, cofTxnid } : result;
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
      reference: req.reference, merchantCode: original.merchantCode, terminal: original.terminal, order: original.order, type, amount: req.amount, currency: req.currency, originalReference: original.reference,
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
    if (result.outcome === 'UNKNOWN') return { found: 'unknown', details: result.details };
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
      reference: req.reference, merchantCode: terminal.fuc, terminal: terminal.nonSecure.terminal, type: TX_TYPE.AUTHORIZATION, amount: 0, currency: req.currency, originalReference: null,
    });
    const ref: OrderRef = { fuc: terminal.fuc, terminal: terminal.nonSecure.terminal, order: op.order };
    const { result: r } = await this.#operation(terminal, 'nonSecure', op, verificationParameters(ref, req.currency, req.card), TX_TYPE.AUTHORIZATION, 0);
    if (r.outcome === 'APPROVED') return { outcome: 'VERIFIED', processorId: r.processorId };
    if (r.outcome === 'DECLINED') return { outcome: 'DECLINED', error: r.error, details: r.details };
    if (r.outcome === 'CHALLENGE') return { outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: r.details };
    return r;
  }

  /** Redsys does not compare holder names. */
  async verifyHolder(_req: VerifyHolderRequest): Promise<VerifyHolderResult> {
    return { outcome: 'UNKNOWN', details: 'Redsys does not offer holder verification' };
  }
}

/** Sanity of a code in logs and errors (never a secret). */
export function describeCode(code: unknown): string {
  return normaliseCode(code) ?? 'unreadable';
}
