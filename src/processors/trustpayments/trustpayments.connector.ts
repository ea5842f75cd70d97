/**
 * The Trust Payments connector (TRUSTPAYMENTS services, the Webservices API): the IO around the pure
 * mapping (mapping.ts). For every operation it
 *  1. records the operation by our reference (the transaction uuid; Trust Payments' `orderreference` is
 *     that uuid in 25 base-36 digits) before anything is sent;
 *  2. posts the JSON envelope to `{PAYGATE_TRUSTPAYMENTS_URL}/json/` with the Webservices alias and
 *     password (HTTP Basic), through the gateway's outgoing client;
 *  3. believes an answer only when it names the request reference it was sent with, and (payments) our
 *     order reference and amount: answers are not signed, so anything else is UNKNOWN and the transaction
 *     stays PENDING for the reconciler, which finds the operation by its order reference
 *     (TRANSACTIONQUERY) and settles it once. An outcome Trust Payments says is not known yet (Bank
 *     System Error, Uncertain result, a queued request...) is UNKNOWN too, never a decline.
 * Trust Payments decides payments, verifications (ACCOUNTCHECK), captures and cancellations of a
 * suspended pre-authorization (TRANSACTIONUPDATE of its settle status) and refunds in their answer.
 * A card's first ECOM payment here is the parent of its merchant-initiated payments (its transaction
 * reference is the stored credential's reference, `cof_txnid`).
 * 3-D Secure: Trust Payments' Webservices documentation sends e-commerce authentication to its
 * JavaScript Library; it also describes a standalone 3DS API (THREEDLOOKUP, THREEDQUERY) and an AUTH with
 * an external MPI's result, but how a challenge's result or those fields reach the AUTH is not in the
 * references this connector follows (spec.ts), so it offers no 3-D Secure of its own, and a soft decline
 * (71000) asks for authentication (CHALLENGE).
 */
import { randomBytes } from 'node:crypto';
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
import type { Sent } from '../kit/http.js';
import { sharedLedger, type LedgerOperation } from '../kit/ledger.js';
import { cardPresentRefused, declined, lookupOf, noAnswer, notBelieved, notJson, payoutNotOffered, refusedOrUnknown, terminalRecord, verificationOf } from '../kit/outcomes.js';
import type { TrustpaymentsTerminal } from './credentials.js';
import {
  envelopeOf, factsOf, headersOf, orderReferenceOf, PATH, paymentRequest, queryRequest, recordOf, recordsOf, refundRequest, responseOf, resultOf, updateRequest, updateResultOf,
  type ResponseFacts, type TrustpaymentsKind,
} from './mapping.js';

/** Trust Payments' Webservices API (Europe); a test site reference routes to the test bank on the same host. */
export const TRUSTPAYMENTS_PRODUCTION_URL = 'https://webservices.securetrading.net';
/** The same host: Trust Payments' test environment is chosen by the site reference (test_...). */
export const TRUSTPAYMENTS_TEST_URL = 'https://webservices.securetrading.net';

/** The connector's own fields of an operation (the ledger's `data`). */
export interface TrustpaymentsData extends Record<string, unknown> {
  /** The authorization code of an approved payment. */
  authcode: string | null;
}

type Op = LedgerOperation<TrustpaymentsData> & { kind: TrustpaymentsKind };

/** What the connector gets from the gateway (kit/declaration.ts). */
export type TrustpaymentsConnectorOptions = KitDeps<TrustpaymentsTerminal>;

/** A request reference as Trust Payments' libraries make them ("A" and random characters). */
const requestReference = () => `A${randomBytes(6).toString('hex')}`;

export class TrustpaymentsConnector extends ConnectorBase<TrustpaymentsTerminal, TrustpaymentsData> implements Connector {
  constructor(opts: TrustpaymentsConnectorOptions) {
    super(opts, { name: 'trustpayments', label: 'Trust Payments', ledger: sharedLedger('trustpayments') });
  }

  /** Posts one request; the one response of its answer, or why there is none to believe. */
  async #post(t: TrustpaymentsTerminal, request: Record<string, unknown>, log: Record<string, unknown>): Promise<{ response: Record<string, unknown> } | { result: ProcessorResult }> {
    const rr = String(request.requestreference);
    const sent: Sent = await this.send({ method: 'POST', path: PATH, headers: headersOf(t), json: envelopeOf(t.alias, request), log: { ...log, requestreference: rr } });
    if (sent.kind === 'unknown') return { result: noAnswer(sent) };
    if (sent.status !== 200) return { result: refusedOrUnknown(sent, { label: 'Trust Payments', what: String(log.kind ?? 'request'), logger: this.deps.logger, name: 'trustpayments', words: (a) => (a.status === 401 ? 'the Webservices alias or password was refused' : null) }) };
    if (!sent.json) return { result: notJson('Trust Payments') };
    const response = responseOf(sent.json, rr);
    if (!response) return { result: notBelieved(this.deps.logger, 'trustpayments', log, 'Trust Payments answered another request (its request reference is not ours)') };
    return { response };
  }

  async #find(reference: string): Promise<Op | null> {
    return (await this.ledger.find(reference)) as Op | null;
  }

  async #payment(req: PaymentRequest, kind: 'payment' | 'preauth' | 'verify'): Promise<ProcessorResult> {
    if (req.channel === 'CARD_PRESENT') return cardPresentRefused('Trust Payments Webservices (card-not-present payments)');
    const t = await this.terminal(req.terminal);
    const amount = kind === 'verify' ? 0 : req.amount;
    await this.ledger.record({ reference: req.reference, kind, amount, currency: req.currency, account: t.sitereference, originalReference: null, terminalRef: terminalRecord(req.terminal) });
    const fingerprint = this.fingerprintOf(req.card);
    const parent = req.channel === 'MIT' ? req.cofTxnid || ((await this.ledger.findCof(t.sitereference, fingerprint))?.id ?? null) : null;
    const request = paymentRequest({ req, kind, sitereference: t.sitereference, requestreference: requestReference(), parent });
    const r = await this.#post(t, request, { reference: req.reference, kind });
    if ('result' in r) return r.result;
    const f = factsOf(r.response);
    const result = resultOf(f, { amount, orderreference: orderReferenceOf(req.reference) });
    if (result.outcome === 'UNKNOWN') return notBelieved(this.deps.logger, 'trustpayments', { reference: req.reference, kind }, result.details, 'outcome not known yet; left to the reconciler');
    if (f.transactionreference) await this.ledger.save(req.reference, { providerId: f.transactionreference, data: { authcode: f.authcode } });
    if (result.outcome !== 'APPROVED') return result;
    if (req.channel === 'MIT') return { ...result, cofTxnid: parent };
    if (req.channel === 'ECOMMERCE') {
      await this.ledger.keepCof(t.sitereference, fingerprint, { id: result.processorId });
      return { ...result, cofTxnid: result.processorId };
    }
    return result;
  }

  authorize(req: PaymentRequest) {
    return this.#payment(req, 'payment');
  }

  /** Trust Payments authorizes the whole amount or nothing: the whole amount is asked for. */
  partialAuthorize(req: PaymentRequest) {
    return this.#payment(req, 'payment');
  }

  preauthorize(req: PaymentRequest) {
    return this.#payment(req, 'preauth');
  }

  async verifyCard(req: VerifyCardRequest): Promise<VerifyCardResult> {
    return verificationOf(await this.#payment({ ...req, amount: 0, channel: 'ECOMMERCE', threeds: null }, 'verify'));
  }

  /** The payment a follow-up is about, as this gateway made it through Trust Payments. */
  async #original(req: FollowUpRequest): Promise<Op | null> {
    const op = await this.#find(req.original.reference);
    return op && (op.kind === 'payment' || op.kind === 'preauth') && op.providerId ? op : null;
  }

  async #update(req: FollowUpRequest, kind: 'capture' | 'void'): Promise<ProcessorResult> {
    const original = await this.#original(req);
    if (!original) return declined('The payment was not made through Trust Payments by this gateway: nothing to update');
    if (original.kind !== 'preauth') return declined(`Only a pre-authorization (suspended until captured) can be ${kind === 'capture' ? 'captured' : 'cancelled'} through Trust Payments`);
    const t = await this.terminal(req.terminal);
    await this.ledger.record({ reference: req.reference, kind, amount: req.amount, currency: req.currency, account: original.account, providerId: original.providerId, originalReference: original.reference, terminalRef: terminalRecord(req.terminal) });
    const parent = original.providerId!;
    const r = await this.#post(t, updateRequest({ sitereference: t.sitereference, requestreference: requestReference(), transactionreference: parent, kind, amount: req.amount }), { reference: req.reference, kind });
    if ('result' in r) return r.result;
    const result = updateResultOf(factsOf(r.response), { kind, amount: req.amount, parent, authorization: original.data.authcode ?? req.original.authorization });
    if (result.outcome === 'UNKNOWN') return notBelieved(this.deps.logger, 'trustpayments', { reference: req.reference, kind }, result.details, 'outcome not known yet; left to the reconciler');
    return result;
  }

  capture(req: FollowUpRequest) {
    return this.#update(req, 'capture');
  }

  cancel(req: FollowUpRequest) {
    return this.#update(req, 'void');
  }

  async refund(req: FollowUpRequest): Promise<ProcessorResult> {
    const original = await this.#original(req);
    if (!original) return declined('The payment was not made through Trust Payments by this gateway: nothing to refund');
    const t = await this.terminal(req.terminal);
    await this.ledger.record({ reference: req.reference, kind: 'refund', amount: req.amount, currency: req.currency, account: original.account, providerId: original.providerId, originalReference: original.reference, terminalRef: terminalRecord(req.terminal) });
    const r = await this.#post(t, refundRequest({ sitereference: t.sitereference, requestreference: requestReference(), reference: req.reference, parent: original.providerId!, amount: req.amount }), { reference: req.reference, kind: 'refund' });
    if ('result' in r) return r.result;
    const f = factsOf(r.response);
    const result = resultOf(f, { amount: req.amount, orderreference: orderReferenceOf(req.reference) });
    if (result.outcome === 'UNKNOWN') return notBelieved(this.deps.logger, 'trustpayments', { reference: req.reference, kind: 'refund' }, result.details, 'outcome not known yet; left to the reconciler');
    if (f.transactionreference) await this.ledger.save(req.reference, { actionId: f.transactionreference });
    // a refund is never a request for authentication
    return result.outcome === 'CHALLENGE' ? declined(result.details, 'PROCESSOR_ERROR') : result;
  }

  /** Payouts are a separate Trust Payments service (REFUND Payout): refused, nothing is sent. */
  async payout(_req: PayoutRequest): Promise<ProcessorResult> {
    return payoutNotOffered('Trust Payments card payments');
  }

  /** The records Trust Payments has under one of our references (TRANSACTIONQUERY); a string: why it cannot say. */
  async #records(t: TrustpaymentsTerminal, reference: string): Promise<ResponseFacts[] | string> {
    const r = await this.#post(t, queryRequest({ sitereference: t.sitereference, requestreference: requestReference(), reference }), { reference, kind: 'query' });
    if ('result' in r) return r.result.outcome === 'UNKNOWN' ? r.result.details : `the query was refused: ${'details' in r.result ? r.result.details : r.result.outcome}`;
    return recordsOf(r.response) ?? `the query was refused: ${String(r.response.errormessage ?? '')} (errorcode ${String(r.response.errorcode)})`;
  }

  /**
   * Settles an operation whose answer was lost or not believed, from Trust Payments' records: a payment,
   * verification or refund by its own order reference (none: it never arrived); a capture or
   * cancellation by the settle status of the payment it updated (still suspended: it never arrived).
   */
  async lookup(req: LookupRequest): Promise<LookupResult> {
    const op = await this.#find(req.reference);
    if (!op) return { found: false };
    const opened = await this.terminalOf(req.terminal, 'TRUSTPAYMENTS');
    if ('problem' in opened) return { found: 'unknown', details: opened.problem };
    const t = opened.terminal;
    if (op.kind === 'capture' || op.kind === 'void') {
      const records = await this.#records(t, op.originalReference ?? '');
      if (typeof records === 'string') return { found: 'unknown', details: records };
      const auth = recordOf(records, { kind: 'preauth', orderreference: orderReferenceOf(op.originalReference ?? '') });
      if (!auth || !auth.transactionreference) return { found: 'unknown', details: 'Trust Payments does not find the payment the update was about' };
      const status = auth.settlestatus;
      const done = op.kind === 'void' ? status === '3' : status === '0' || status === '1' || status === '10' || status === '100';
      if (!done) return status === '2' || (op.kind === 'capture' && status === '3') ? { found: false } : { found: 'unknown', details: `the payment's settle status is ${status ?? 'not given'}` };
      const original = await this.#find(op.originalReference ?? '');
      return { found: true, result: { outcome: 'APPROVED', authorization: (original?.data.authcode ?? auth.authcode ?? auth.transactionreference).slice(0, 40), processorId: auth.transactionreference, amount: op.amount } };
    }
    const records = await this.#records(t, op.reference);
    if (typeof records === 'string') return { found: 'unknown', details: records };
    const record = recordOf(records, { kind: op.kind, orderreference: orderReferenceOf(op.reference) });
    if (!record) return { found: false };
    const result = resultOf(record, { amount: op.amount, orderreference: orderReferenceOf(op.reference) });
    if (result.outcome === 'UNKNOWN') return { found: 'unknown', details: result.details };
    if (record.transactionreference) await this.ledger.save(op.reference, op.kind === 'refund' ? { actionId: record.transactionreference } : { providerId: record.transactionreference, data: { authcode: record.authcode } });
    return lookupOf(result, (c) => ({ found: true, result: declined(c.details, 'AUTHENTICATION_FAILED') }));
  }

  /**
   * No way for this connector to authenticate a cardholder is in its references (the class comment says
   * why): authentication cannot be performed here (transStatus U, as EMV 3-D Secure words it), so a
   * payment waiting for it is refused
   * with that reason at once rather than left for the customer to retry.
   */
  async authenticate(_req: AuthenticateRequest): Promise<AuthenticationResult> {
    return {
      outcome: 'FAILED',
      threeds: { version: '2.2.0', transStatus: 'U', eci: null, cavv: null, dsTransId: null },
      details: 'Trust Payments authenticates cardholders (3-D Secure) only through its JavaScript Library, which this gateway does not use: the payment cannot be authenticated',
    };
  }

  /**
   * Tests a terminal's credentials without moving money: a TRANSACTIONQUERY by an order reference nobody
   * used. Trust Payments answers Ok (nothing found) when the alias, password and site reference are right.
   */
  async testCredentials(t: TrustpaymentsTerminal): Promise<string[]> {
    const r = await this.#post(t, queryRequest({ sitereference: t.sitereference, requestreference: requestReference(), reference: `credential-test-${randomBytes(8).toString('hex')}` }), { kind: 'credential test' });
    if ('result' in r) return [r.result.outcome === 'DECLINED' || r.result.outcome === 'UNKNOWN' ? r.result.details : 'Trust Payments did not answer the query'];
    if (r.response.errorcode === '0') return [];
    const code = String(r.response.errorcode);
    const words = String(r.response.errormessage ?? '');
    if (['6', '60022', '21002', '30006', '30008'].includes(code)) return [`credentials.alias and credentials.password were refused by Trust Payments for this site reference (${words}, errorcode ${code})`];
    if (code === '30001') return [`credentials.sitereference is not a site Trust Payments knows (${words})`];
    return [`Trust Payments answered errorcode ${code}: ${words}`];
  }
}
