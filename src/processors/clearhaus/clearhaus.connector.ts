/**
 * The Clearhaus connector (CLEARHAUS services, Clearhaus's Gateway API): the IO around the pure mapping
 * (mapping.ts). For every operation it
 *  1. records the operation by our reference (the transaction uuid; Clearhaus's `reference` is that uuid
 *     in 25 base-36 digits) before anything is sent;
 *  2. posts the form parameters to `{PAYGATE_CLEARHAUS_URL}/authorizations...` with the API key (HTTP
 *     Basic) and, when the terminal has a signing key, the `Signature` header, through the gateway's
 *     outgoing client;
 *  3. believes an answer only with a status code, and an approval only with its id and, where it names
 *     them, the amount and currency asked (answers are not signed: anything else is UNKNOWN), and keeps
 *     the status code answered in the ledger before anything else is sent.
 *
 * A payment (authorize and capture) is an authorization, then a capture of its whole amount: Clearhaus
 * moves money only on the capture. A capture Clearhaus refuses after approving the authorization voids
 * the authorization (the reservation released) and the payment is declined; so is an authorization
 * answered 50000 "Clearhaus error" voided (Clearhaus takes voids of those).
 *
 * Clearhaus offers no way to read a transaction back (its GET endpoints were removed in 2019, and there
 * is no search by reference), so the reconciler's `lookup` answers from what the ledger kept: the result
 * Clearhaus gave, when it was read before a crash; "not found" for a payment or pre-authorization whose
 * authorization answer was never read (nothing was captured: a reservation the issuer may have made lapses
 * by itself; the transaction becomes ERROR TIMEOUT); an authorization approved whose capture was never
 * sent is voided and "not found" too. A capture, void or refund whose answer was lost cannot be settled
 * automatically: it stays PENDING, the reconciler logging it, until someone checks it in the Clearhaus
 * Dashboard (going-live-clearhaus.md).
 *
 * 3-D Secure: Clearhaus does not authenticate cardholders; it takes the result of an authentication run
 * elsewhere (`card[3dsecure][v2][raw]`, from the merchant's own MPI, `threeds_data`). This gateway has no
 * 3-D Secure server of its own for Clearhaus, so `authenticate` cannot authenticate (transStatus U): a
 * payment that needs a challenge (a soft decline, 40416, or a secure payment) is refused with that reason.
 */
import { createHash } from 'node:crypto';
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
  VerifyCardRequest,
  VerifyCardResult,
} from '../connector.js';
import { ConnectorBase, type KitDeps } from '../kit/base.js';
import { sharedLedger, type LedgerOperation } from '../kit/ledger.js';
import { cardPresentRefused, declined, lookupOf, noAnswer, notBelieved, notJson, payoutNotOffered, refusedOrUnknown, terminalRecord } from '../kit/outcomes.js';
import { APPROVED, CLEARHAUS_ERROR } from './codes.js';
import type { ClearhausTerminal } from './credentials.js';
import {
  amountParams, authorizationParams, authorizationResultOf, factsOf, followUpResultOf, formBody, headersOf, PATHS, refusalWords,
  type AnswerFacts, type ClearhausKind, type Params,
} from './mapping.js';

/** Clearhaus's Gateway API for live accounts. */
export const CLEARHAUS_PRODUCTION_URL = 'https://gateway.clearhaus.com';
/** Clearhaus's Gateway API for test accounts. */
export const CLEARHAUS_TEST_URL = 'https://gateway.test.clearhaus.com';

/** The connector's own fields of an operation (the ledger's `data`): what Clearhaus answered, kept at once. */
export interface ClearhausData extends Record<string, unknown> {
  /** The status code (and message) of the authorization's answer. */
  authCode: number;
  authMessage: string | null;
  /** The authorization started a series (a card stored for later payments). */
  seriesStart: boolean;
  /** The scheme's transaction id of a first-in-series (`series.tid`). */
  seriesTid: string | null;
  /** A payment: its capture was sent (its answer may be lost), and what it answered. */
  captureSent: boolean;
  captureCode: number;
  captureMessage: string | null;
  /** A capture, void or refund: the status code (and message) answered. */
  code: number;
  message: string | null;
}

type Op = LedgerOperation<ClearhausData> & { kind: ClearhausKind };
type Read = { facts: AnswerFacts } | { result: ProcessorResult };

export type ClearhausConnectorOptions = KitDeps<ClearhausTerminal>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The account an operation went through, as the ledger keeps it: a digest of the API key, never the key. */
export function accountOf(apiKey: string): string {
  return `key-${createHash('sha256').update(apiKey.toLowerCase(), 'utf8').digest('hex').slice(0, 24)}`;
}

export class ClearhausConnector extends ConnectorBase<ClearhausTerminal, ClearhausData> implements Connector {
  constructor(opts: ClearhausConnectorOptions) {
    super(opts, { name: 'clearhaus', label: 'Clearhaus', ledger: sharedLedger('clearhaus'), maskPath: (p) => p.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, ':id') });
  }

  /** Posts form parameters; the facts of the answer, or the result that settles it at once. */
  async #post(t: ClearhausTerminal, path: string, params: Params, what: string, log: Record<string, unknown>): Promise<Read> {
    const body = formBody(params);
    const sent = await this.send({ method: 'POST', path, headers: headersOf(t, body), form: body, log: { ...log, what } });
    if (sent.kind === 'unknown') return { result: noAnswer(sent) };
    if (sent.status === 401) return { result: declined('Clearhaus refused the API key (HTTP 401): check credentials.api_key (and the signing key, when one is set)') };
    if (sent.status === 200 || sent.status === 201) return sent.json ? { facts: factsOf(sent.json) } : { result: notJson('Clearhaus') };
    // a request refused with its status (40000 "parameter 'amount' is required"...): declined as Clearhaus says
    const refused = sent.status === 400 && sent.json ? factsOf(sent.json) : null;
    if (refused && refused.code !== null && refused.code !== APPROVED) return { facts: refused };
    return { result: refusedOrUnknown(sent, { label: 'Clearhaus', what, logger: this.deps.logger, name: 'clearhaus', words: (a) => refusalWords(a.json) }) };
  }

  async #find(reference: string): Promise<Op | null> {
    return (await this.ledger.find(reference)) as Op | null;
  }

  /** The series a merchant-initiated payment follows: the card's first-in-series here, or the order's if it started one. */
  async #previous(account: string, fingerprint: string, cofTxnid: string | null | undefined): Promise<string | null> {
    const kept = await this.ledger.findCof(account, fingerprint);
    if (kept && UUID.test(kept.id)) return kept.id;
    if (!cofTxnid || !UUID.test(cofTxnid)) return null;
    const [first] = await this.ledger.findByIds({ providerId: cofTxnid }, account);
    return first?.data.seriesStart ? cofTxnid : null;
  }

  async #payment(req: PaymentRequest, kind: 'payment' | 'preauth' | 'verify'): Promise<ProcessorResult> {
    if (req.channel === 'CARD_PRESENT') return cardPresentRefused('Clearhaus (card-not-present payments)');
    const t = await this.terminal(req.terminal);
    if (req.channel === 'MOTO' && !t.signing) return declined('Clearhaus takes MoTo payments only in signed requests: give the terminal its signing_api_key and signing_private_key');
    const amount = kind === 'verify' ? 0 : req.amount;
    const account = accountOf(t.apiKey);
    await this.ledger.record({ reference: req.reference, kind, amount, currency: req.currency, account, originalReference: null, terminalRef: terminalRecord(req.terminal) });
    const fingerprint = this.fingerprintOf(req.card);
    const previous = req.channel === 'MIT' ? await this.#previous(account, fingerprint, req.cofTxnid) : null;
    const params = authorizationParams({ req, kind, previous });
    const seriesStart = params.some(([k]) => k === 'series[type]');
    const log = { reference: req.reference, kind };
    const r = await this.#post(t, PATHS.authorizations, params, 'authorization', log);
    if ('result' in r) return r.result;
    const f = r.facts;
    const auth = authorizationResultOf(f, { amount, currency: req.currency });
    if (auth.outcome === 'UNKNOWN') return notBelieved(this.deps.logger, 'clearhaus', log, auth.details);
    await this.ledger.save(req.reference, { providerId: f.id, data: { authCode: f.code!, authMessage: f.message, seriesStart: seriesStart && auth.outcome === 'APPROVED', seriesTid: f.seriesTid } });
    // "Clearhaus error" may leave a reservation upstream: Clearhaus takes voids of such authorizations
    if (f.code === CLEARHAUS_ERROR && f.id) await this.#post(t, PATHS.voids(f.id), [], 'void', log);
    if (auth.outcome !== 'APPROVED') return auth;
    const result = kind === 'payment' ? await this.#captureSale(t, req.reference, auth.processorId, amount) : auth;
    if (result.outcome !== 'APPROVED') return result;
    if (req.channel === 'MIT') return { ...result, cofTxnid: req.cofTxnid || previous };
    if (req.channel === 'ECOMMERCE') {
      if (seriesStart) await this.ledger.keepCof(account, fingerprint, { id: auth.processorId, network: null });
      return { ...result, cofTxnid: auth.processorId };
    }
    return result;
  }

  /** The capture of a payment's whole amount; refused: the authorization is voided and the payment declined. */
  async #captureSale(t: ClearhausTerminal, reference: string, id: string, amount: number): Promise<ProcessorResult> {
    await this.ledger.save(reference, { data: { captureSent: true } });
    const log = { reference, kind: 'payment' };
    const r = await this.#post(t, PATHS.captures(id), amountParams(amount), 'capture', log);
    if ('result' in r) return r.result.outcome === 'DECLINED' ? this.#voidRefused(t, reference, id, r.result.details) : r.result;
    const result = followUpResultOf(r.facts, { kind: 'capture', amount, parent: id });
    if (result.outcome === 'UNKNOWN') return notBelieved(this.deps.logger, 'clearhaus', log, result.details);
    await this.ledger.save(reference, { data: { captureCode: r.facts.code!, captureMessage: r.facts.message } });
    if (result.outcome === 'DECLINED') return this.#voidRefused(t, reference, id, result.details, result.error);
    return result;
  }

  /** A payment whose capture was refused: its authorization voided (the reservation released), the payment declined. */
  async #voidRefused(t: ClearhausTerminal, reference: string, id: string, details: string, error: Extract<ProcessorResult, { outcome: 'DECLINED' }>['error'] = 'PROCESSOR_ERROR'): Promise<ProcessorResult> {
    const v = await this.#post(t, PATHS.voids(id), [], 'void', { reference, kind: 'payment' });
    const voided = 'facts' in v && v.facts.code === APPROVED;
    return declined(`Clearhaus approved the authorization but refused its capture: ${details}${voided ? '; the authorization was voided' : ''}`, error, id);
  }

  authorize(req: PaymentRequest) {
    return this.#payment(req, 'payment');
  }

  /** Clearhaus authorizes the whole amount or nothing: the whole amount is asked for. */
  partialAuthorize(req: PaymentRequest) {
    return this.#payment(req, 'payment');
  }

  preauthorize(req: PaymentRequest) {
    return this.#payment(req, 'preauth');
  }

  /** An authorization of 0 that starts a series (the card kept for later payments). */
  async verifyCard(req: VerifyCardRequest): Promise<VerifyCardResult> {
    const r = await this.#payment({ ...req, amount: 0, channel: 'ECOMMERCE', threeds: null }, 'verify');
    if (r.outcome === 'APPROVED') return { outcome: 'VERIFIED', processorId: r.processorId };
    if (r.outcome === 'DECLINED') return { outcome: 'DECLINED', error: r.error, details: r.details };
    if (r.outcome === 'CHALLENGE') return { outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: r.details };
    return { outcome: 'UNKNOWN', details: r.details };
  }

  async #followUp(req: FollowUpRequest, kind: 'capture' | 'void' | 'refund'): Promise<ProcessorResult> {
    const original = await this.#find(req.original.reference);
    const what = kind === 'capture' ? 'captured' : kind === 'void' ? 'voided' : 'refunded';
    if (!original || (original.kind !== 'payment' && original.kind !== 'preauth') || !original.providerId) return declined(`The payment was not made through Clearhaus by this gateway: it cannot be ${what} here`);
    if (kind !== 'refund' && original.kind !== 'preauth') return declined(`Only a pre-authorization can be ${what} through Clearhaus (a payment is captured when it is made)`);
    const t = await this.terminal(req.terminal);
    const id = original.providerId;
    await this.ledger.record({ reference: req.reference, kind, amount: req.amount, currency: req.currency, account: original.account, providerId: id, originalReference: original.reference, terminalRef: terminalRecord(req.terminal) });
    const path = kind === 'capture' ? PATHS.captures(id) : kind === 'void' ? PATHS.voids(id) : PATHS.refunds(id);
    const log = { reference: req.reference, kind };
    const r = await this.#post(t, path, kind === 'void' ? [] : amountParams(req.amount), kind, log);
    if ('result' in r) return r.result;
    const result = followUpResultOf(r.facts, { kind, amount: req.amount, parent: id });
    if (result.outcome === 'UNKNOWN') return notBelieved(this.deps.logger, 'clearhaus', log, result.details);
    await this.ledger.save(req.reference, { actionId: r.facts.id, data: { code: r.facts.code!, message: r.facts.message } });
    return result;
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

  /** Clearhaus's credits (payouts) are not offered through this connector: refused, nothing is sent. */
  async payout(_req: PayoutRequest): Promise<ProcessorResult> {
    return payoutNotOffered('Clearhaus card payments');
  }

  /**
   * Settles an operation whose answer was lost or not believed from what the ledger kept (the class
   * comment says why Clearhaus cannot be asked): the result read before a crash; an authorization never
   * read, or approved and never captured (voided now), is "not found"; a capture, void or refund sent
   * without a result read cannot be settled here.
   */
  async lookup(req: LookupRequest): Promise<LookupResult> {
    const op = await this.#find(req.reference);
    if (!op) return { found: false };
    const d = op.data;
    const id = op.providerId;
    if (op.kind === 'payment' || op.kind === 'preauth' || op.kind === 'verify') {
      if (d.authCode === undefined || !id && d.authCode === APPROVED) return { found: false };
      const auth = authorizationResultOf({ id, code: d.authCode, message: d.authMessage ?? null, amount: null, currency: null, seriesTid: null, cscMatches: null }, { amount: op.amount, currency: op.currency });
      if (auth.outcome !== 'APPROVED' || op.kind !== 'payment') return lookupOf(auth, (c) => ({ found: true, result: declined(c.details, 'AUTHENTICATION_FAILED') }));
      if (d.captureCode !== undefined) {
        const captured = followUpResultOf({ id: null, code: d.captureCode, message: d.captureMessage ?? null, amount: null, currency: null, seriesTid: null, cscMatches: null }, { kind: 'capture', amount: op.amount, parent: id! });
        return captured.outcome === 'DECLINED' ? { found: true, result: declined(`Clearhaus approved the authorization but refused its capture: ${captured.details}`, captured.error, id) } : lookupOf(captured);
      }
      if (!d.captureSent) {
        // approved, never captured: released now; nothing was charged
        const opened = await this.terminalOf(req.terminal, 'CLEARHAUS');
        if ('problem' in opened) return { found: 'unknown', details: opened.problem };
        await this.#post(opened.terminal, PATHS.voids(id!), [], 'void', { reference: op.reference, kind: 'payment' });
        return { found: false };
      }
      return { found: 'unknown', details: `the capture of Clearhaus authorization ${id} was sent and its answer lost; Clearhaus offers no way to read it: check the authorization in the Clearhaus Dashboard` };
    }
    if (d.code !== undefined) return lookupOf(followUpResultOf({ id: null, code: d.code, message: d.message ?? null, amount: null, currency: null, seriesTid: null, cscMatches: null }, { kind: op.kind, amount: op.amount, parent: id ?? '' }));
    return { found: 'unknown', details: `the ${op.kind} of Clearhaus authorization ${id ?? '?'} was sent and its answer lost; Clearhaus offers no way to read it: check the authorization in the Clearhaus Dashboard` };
  }

  /**
   * Clearhaus takes a 3-D Secure result, it does not produce one, and this gateway has no 3-D Secure
   * server for Clearhaus: authentication cannot be performed here (transStatus U), so a payment waiting
   * for it is refused with that reason at once rather than left for the customer to retry.
   */
  async authenticate(_req: AuthenticateRequest): Promise<AuthenticationResult> {
    return {
      outcome: 'FAILED',
      threeds: { version: '2.2.0', transStatus: 'U', eci: null, cavv: null, dsTransId: null },
      details: 'Clearhaus does not authenticate cardholders (3-D Secure) and takes only the result of an authentication run elsewhere: the payment cannot be authenticated through this gateway (send the result of your own 3-D Secure server as threeds_data)',
    };
  }

  /**
   * Tests a terminal's credentials without moving money: the account resource (GET /account) answers
   * with the API key's merchant account, 401 when the key is wrong. A signing key cannot be tried without
   * a payment: it is checked by the first one.
   */
  async testCredentials(t: ClearhausTerminal): Promise<string[]> {
    const sent = await this.send({ method: 'GET', path: PATHS.account, headers: headersOf(t, null), log: { what: 'credential test' } });
    if (sent.kind === 'unknown') return [sent.details];
    if (sent.status === 401) return ['credentials.api_key was refused by Clearhaus (HTTP 401): give the API key of the merchant account (a test account\'s key for the test environment)'];
    if (sent.status !== 200 || !sent.json) return [`Clearhaus answered the account request with HTTP ${sent.status}`];
    return typeof sent.json.merchant_id === 'string' ? [] : ['Clearhaus answered the account request without the merchant account'];
  }
}
