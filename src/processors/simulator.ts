/**
 * The sandbox processor: a Connector whose outcomes follow the test cards of decisions §5 (the pure
 * rules live in simulator.rules.ts). It adds what a real processor has and tests need:
 *  - a journal of the operations it did, so `lookup` answers like a real processor (by our reference);
 *    it lives in memory, so after a restart the simulator knows nothing (as if those requests never
 *    reached it) and the reconciler settles such transactions as not done;
 *  - configurable latency;
 *  - injected faults, consumed in order, so a test can make an operation time out after it was done
 *    (`timeout`), get lost before it reached the processor (`lost`), or fail (`decline`), without
 *    sleeping;
 *  - a behaviour per service (sandbox-behaviour.ts: approval rates by BIN range, an outage, added
 *    latency), found through `behaviourOf` (the app injects the services module's lookup) or carried by
 *    the request itself (`sandboxBehaviour`, filled in by the connector of the simulator service). It
 *    applies to money operations: an outage `refuse` answers the not-sent UNKNOWN and `timeout` throws
 *    the deadline's error at once (the guard answers UNKNOWN); neither records anything, so a lookup
 *    answers `found: false`. Faults queued for such a call stay queued.
 */
import {
  ProcessorTimeoutError,
  type ApmCompleteRequest,
  type ApmPaymentRequest,
  type ApmPayoutRequest,
  type ApmStartRequest,
  type ApmStartResult,
  type AuthenticateRequest,
  type AuthenticationResult,
  type CardData,
  type Connector,
  type FollowUpRequest,
  type LookupRequest,
  type LookupResult,
  type PaymentRequest,
  type PayoutRequest,
  type ProcessorOperation,
  type ProcessorResult,
  type SettledResult,
  type SettlementReportRequest,
  type SettlementReportResult,
  type TerminalRef,
  type TxError,
  type VerifyCardRequest,
  type VerifyCardResult,
  type VerifyHolderRequest,
  type VerifyHolderResult,
} from './connector.js';
import {
  decideAuthentication,
  decideBizum,
  decideFollowUp,
  decideHolderMatch,
  decideInitialAuthentication,
  decidePayment,
  decidePayout,
  decideVerification,
  processorId,
  type PaymentMode,
  type SimCard,
} from './simulator.rules.js';
import { decideApmComplete, decideApmPayout, decideApmStart } from './sandbox-apm.js';
import { sandboxReport, type LedgerEntry, type SettlementMismatch } from './sandbox-settlement.js';
import { applyApproval, REFUSED, type BehaviourLookup, type SandboxBehaviour } from './sandbox-behaviour.js';

/** What a money operation adds to the simulator's ledger when approved (the settlement report reads it). */
interface LedgerInfo {
  type: LedgerEntry['type'];
  currency: string;
  terminal: TerminalRef;
  now: Date;
}

export type FaultKind = 'timeout' | 'lost' | 'decline';

export interface Fault {
  /** The operation it applies to; any money operation when omitted. */
  operation?: ProcessorOperation;
  kind: FaultKind;
  /** Error of a `decline` (default PROCESSOR_ERROR). */
  error?: Exclude<TxError, 'NONE'>;
  /** How many calls it applies to (default 1). */
  times?: number;
}

export interface SimulatorOptions {
  /** Delay before every answer, in milliseconds. */
  latencyMs?: number;
  /** Operations remembered for `lookup`. */
  journalLimit?: number;
  /** The behaviour of a sandbox service (null: none). */
  behaviourOf?: BehaviourLookup | null;
}

/**
 * A request may carry its service's behaviour (the simulator service's connector fills it in: the
 * service has no database); `null` there means none, absent means ask `behaviourOf`.
 */
export interface WithBehaviour {
  sandboxBehaviour?: SandboxBehaviour | null;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

function simCard(card: CardData): SimCard {
  return {
    pan: card.pan.reveal().replace(/\s+/g, ''),
    expiryMonth: card.expiryMonth,
    expiryYear: card.expiryYear,
    cvv: card.cvv ? card.cvv.reveal() : null,
  };
}

export class SimulatorConnector implements Connector {
  readonly name = 'simulator';
  latencyMs: number;
  /** Finds a service's behaviour (sandbox-behaviour.ts); null: every service behaves by the test cards. */
  behaviourOf: BehaviourLookup | null;
  readonly #journalLimit: number;
  readonly #journal = new Map<string, SettledResult>();
  /** Every approved money operation, by our reference: what the settlement reports settle. */
  readonly #ledger = new Map<string, LedgerEntry>();
  readonly #mismatches: SettlementMismatch[] = [];
  readonly #faults: Array<Fault & { left: number }> = [];
  /** Count of calls per operation (tests assert that a processor was or was not called). */
  readonly calls = new Map<ProcessorOperation, number>();

  constructor(opts: SimulatorOptions = {}) {
    this.latencyMs = opts.latencyMs ?? 0;
    this.#journalLimit = opts.journalLimit ?? 200_000;
    this.behaviourOf = opts.behaviourOf ?? null;
  }

  async #behaviour(req: { terminal: TerminalRef } & WithBehaviour): Promise<{ serviceId: string; behaviour: SandboxBehaviour } | null> {
    const serviceId = req.terminal?.serviceId;
    if (!serviceId) return null;
    const behaviour = req.sandboxBehaviour !== undefined ? req.sandboxBehaviour : this.behaviourOf ? await this.behaviourOf(serviceId) : null;
    return behaviour ? { serviceId, behaviour } : null;
  }

  /** Queues a fault for the next matching call(s). */
  injectFault(fault: Fault): void {
    this.#faults.push({ ...fault, left: fault.times ?? 1 });
  }

  clearFaults(): void {
    this.#faults.length = 0;
  }

  /** Forgets every operation (as after a processor-side restart). */
  forget(): void {
    this.#journal.clear();
    this.#ledger.clear();
  }

  /** Puts a mismatch in the next settlement report (sandbox-settlement.ts). */
  injectSettlementMismatch(m: SettlementMismatch): void {
    this.#mismatches.push(m);
  }

  /**
   * The settlement report of a day for a terminal (the service the operations went through): every
   * approved money operation of that day (UTC, merchant clock) in the sandbox fee model, with the
   * mismatches injected since the last report.
   */
  async settlementReport(req: SettlementReportRequest): Promise<SettlementReportResult> {
    const mismatches = this.#mismatches.splice(0);
    return { outcome: 'REPORT', acquirer: 'SANDBOX', lines: sandboxReport(this.#ledger.values(), req.day, req.terminal.serviceId ?? req.terminal.terminalId ?? null, mismatches) };
  }

  callCount(op: ProcessorOperation): number {
    return this.calls.get(op) ?? 0;
  }

  #takeFault(op: ProcessorOperation): Fault | null {
    const i = this.#faults.findIndex((f) => f.operation === undefined || f.operation === op);
    if (i < 0) return null;
    const f = this.#faults[i];
    if (--f.left <= 0) this.#faults.splice(i, 1);
    return f;
  }

  #record(reference: string, result: SettledResult, info?: LedgerInfo): void {
    if (this.#journal.size >= this.#journalLimit) {
      const oldest = this.#journal.keys().next().value;
      if (oldest !== undefined) this.#journal.delete(oldest);
    }
    this.#journal.set(reference, result);
    if (info && result.outcome === 'APPROVED') {
      if (this.#ledger.size >= this.#journalLimit) {
        const oldest = this.#ledger.keys().next().value;
        if (oldest !== undefined) this.#ledger.delete(oldest);
      }
      this.#ledger.set(reference, {
        reference,
        processorId: result.processorId,
        type: info.type,
        amount: result.amount,
        currency: info.currency,
        at: info.now,
        terminal: info.terminal.serviceId ?? info.terminal.terminalId ?? null,
      });
    }
  }

  /**
   * Runs a money operation: the service's behaviour (latency, outage), faults, decision (and the
   * approval draw of a card payment: `pan`), journal.
   */
  async #money(op: ProcessorOperation, req: { reference: string; terminal: TerminalRef } & WithBehaviour, decide: () => ProcessorResult, info?: LedgerInfo, pan?: string): Promise<ProcessorResult> {
    const reference = req.reference;
    this.calls.set(op, (this.calls.get(op) ?? 0) + 1);
    const service = await this.#behaviour(req);
    const latency = this.latencyMs + (service?.behaviour.latency_ms ?? 0);
    if (latency > 0) await sleep(latency);
    if (service?.behaviour.outage === 'refuse') return { ...REFUSED };
    if (service?.behaviour.outage === 'timeout') throw new ProcessorTimeoutError('simulated outage: the request was sent and no answer came');
    const fault = this.#takeFault(op);
    if (fault?.kind === 'lost') throw new ProcessorTimeoutError('simulated: the request never reached the processor');
    if (fault?.kind === 'decline') {
      const result: SettledResult = {
        outcome: 'DECLINED',
        error: fault.error ?? 'PROCESSOR_ERROR',
        details: 'simulated processor failure',
        processorId: processorId(reference),
      };
      this.#record(reference, result);
      return result;
    }
    const decided = decide();
    const result = service && pan !== undefined ? applyApproval(service.behaviour, { reference, serviceId: service.serviceId, pan, processorId: processorId(reference) }, decided) : decided;
    if (result.outcome === 'APPROVED' || result.outcome === 'DECLINED') this.#record(reference, result, info);
    if (fault?.kind === 'timeout') throw new ProcessorTimeoutError('simulated: the operation was done but the answer was lost');
    return result;
  }

  #payment(op: ProcessorOperation, mode: PaymentMode, req: PaymentRequest): Promise<ProcessorResult> {
    const card = simCard(req.card);
    return this.#money(op, req, () =>
      decidePayment({
        reference: req.reference,
        mode,
        amount: req.amount,
        card,
        channel: req.channel,
        threeds: req.threeds ?? null,
        cryptogram: !!req.dpan?.cryptogram,
        now: req.now,
        cardPresent: req.cardPresent ?? null,
      }),
      mode === 'PREAUTH' ? undefined : { type: 'PAYMENT', currency: req.currency, terminal: req.terminal, now: req.now },
      card.pan,
    );
  }

  authorize(req: PaymentRequest) {
    return this.#payment('authorize', 'SALE', req);
  }

  partialAuthorize(req: PaymentRequest) {
    return this.#payment('partialAuthorize', 'PARTIAL', req);
  }

  preauthorize(req: PaymentRequest) {
    return this.#payment('preauthorize', 'PREAUTH', req);
  }

  capture(req: FollowUpRequest) {
    return this.#money('capture', req, () => decideFollowUp(req.reference, req.amount), { type: 'PAYMENT', currency: req.currency, terminal: req.terminal, now: req.now });
  }

  cancel(req: FollowUpRequest) {
    return this.#money('cancel', req, () => decideFollowUp(req.reference, req.amount));
  }

  refund(req: FollowUpRequest) {
    return this.#money('refund', req, () => decideFollowUp(req.reference, req.amount), { type: 'REFUND', currency: req.currency, terminal: req.terminal, now: req.now });
  }

  payout(req: PayoutRequest) {
    return this.#money('payout', req, () => decidePayout(req.reference, req.amount, simCard(req.card), req.now), { type: 'PAYOUT', currency: req.currency, terminal: req.terminal, now: req.now });
  }

  async lookup(req: LookupRequest): Promise<LookupResult> {
    this.calls.set('lookup', (this.calls.get('lookup') ?? 0) + 1);
    if (this.latencyMs > 0) await sleep(this.latencyMs);
    const fault = this.#takeFault('lookup');
    if (fault) return { found: 'unknown', details: 'simulated: lookup failed' };
    const result = this.#journal.get(req.reference);
    return result ? { found: true, result } : { found: false };
  }

  async authenticate(req: AuthenticateRequest): Promise<AuthenticationResult> {
    this.calls.set('authenticate', (this.calls.get('authenticate') ?? 0) + 1);
    if (this.latencyMs > 0) await sleep(this.latencyMs);
    if (this.#takeFault('authenticate')) return { outcome: 'UNKNOWN', details: 'simulated: 3DS server did not answer' };
    if (req.initial) {
      const first = decideInitialAuthentication(req.reference, simCard(req.card), req.now, req.exemption ?? null);
      return first.outcome === 'FAILED' ? { outcome: 'FAILED', threeds: first.threeds, details: first.details } : first;
    }
    const d = decideAuthentication(req.reference, simCard(req.card), req.now, req.challenge ?? null);
    return d.ok ? { outcome: 'AUTHENTICATED', threeds: d.threeds } : { outcome: 'FAILED', threeds: d.threeds, details: d.details };
  }

  apmPayment(req: ApmPaymentRequest) {
    return this.#money('apmPayment', req, () => decideBizum(req.reference, req.amount, req.phone), { type: 'PAYMENT', currency: req.currency, terminal: req.terminal, now: req.now });
  }

  /** Starts an APM payment at the sandbox APM provider (redirect, push or voucher). */
  async apmStart(req: ApmStartRequest): Promise<ApmStartResult> {
    this.calls.set('apmStart', (this.calls.get('apmStart') ?? 0) + 1);
    if (this.latencyMs > 0) await sleep(this.latencyMs);
    const fault = this.#takeFault('apmStart');
    if (fault?.kind === 'lost' || fault?.kind === 'timeout') throw new ProcessorTimeoutError('simulated: the APM provider did not answer');
    if (fault?.kind === 'decline') return { outcome: 'DECLINED', error: fault.error ?? 'PROCESSOR_ERROR', details: 'simulated processor failure', processorId: null };
    const r = decideApmStart(req);
    if (r.outcome === 'DECLINED') this.#record(req.reference, r);
    return r;
  }

  /** The customer's action on a started APM payment (sandbox bank page, phone, voucher payment). */
  apmComplete(req: ApmCompleteRequest) {
    return this.#money('apmComplete', req, () => decideApmComplete(req), { type: 'PAYMENT', currency: req.currency, terminal: req.terminal, now: req.now });
  }

  /** A payout with an APM (to a phone or a bank account) at the sandbox APM provider. */
  apmPayout(req: ApmPayoutRequest) {
    return this.#money('apmPayout', req, () => decideApmPayout(req), { type: 'PAYOUT', currency: req.currency, terminal: req.terminal, now: req.now });
  }

  async verifyCard(req: VerifyCardRequest): Promise<VerifyCardResult> {
    this.calls.set('verifyCard', (this.calls.get('verifyCard') ?? 0) + 1);
    if (this.latencyMs > 0) await sleep(this.latencyMs);
    const fault = this.#takeFault('verifyCard');
    if (fault?.kind === 'decline') return { outcome: 'DECLINED', error: fault.error ?? 'PROCESSOR_ERROR', details: 'simulated processor failure' };
    if (fault) return { outcome: 'UNKNOWN', details: 'simulated: no answer' };
    const r = decideVerification(req.reference, simCard(req.card), req.now);
    if (r.outcome === 'APPROVED') return { outcome: 'VERIFIED', processorId: r.processorId };
    return { outcome: 'DECLINED', error: r.error, details: r.details };
  }

  async verifyHolder(req: VerifyHolderRequest): Promise<VerifyHolderResult> {
    this.calls.set('verifyHolder', (this.calls.get('verifyHolder') ?? 0) + 1);
    if (this.latencyMs > 0) await sleep(this.latencyMs);
    if (this.#takeFault('verifyHolder')) return { outcome: 'UNKNOWN', details: 'simulated: no answer' };
    return { outcome: 'DONE', result: decideHolderMatch(req.registeredHolder, req.holder) };
  }
}
