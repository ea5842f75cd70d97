/**
 * Per-service behaviour of the sandbox simulator (docs/payments.md, "Per-service behaviour"), as pure
 * functions: no clock, no randomness, no IO. A sandbox service may be given a behaviour so that routing
 * and cascading between services can be seen before going live:
 *  - `approval`: rules by BIN range (the card number's first six digits), the first that matches gives
 *    the share of payments approved; no rule matches: every payment the test-card rules approve is;
 *  - `soft_decline`: the decline of a payment the approval draw refuses (DENIED "Do not honour", or
 *    PROCESSOR_ERROR "Issuer unavailable");
 *  - `outage`: `refuse` (the connection is refused: nothing is sent), `timeout` (sent, no answer);
 *  - `latency_ms`: added to the simulator's latency before every money operation of the service.
 *
 * The draw is deterministic: a hash of our reference of the operation and the service id, read as a
 * number in [0, 1), approves when it is below the rate. The same payment through the same service always
 * comes to the same outcome (tests and benchmarks are reproducible); the same payment through another
 * service draws again. Only payments the test-card rules approve are drawn: a refused card, a Luhn-invalid
 * one, a CVV failure or a challenge (3-D Secure needed) keep their meaning.
 */
import { createHash } from 'node:crypto';
import type { ProcessorResult } from './connector-results.js';

export const SOFT_DECLINES = ['DENIED', 'PROCESSOR_ERROR'] as const;
export type SoftDecline = (typeof SOFT_DECLINES)[number];

export const OUTAGES = ['none', 'refuse', 'timeout'] as const;
export type Outage = (typeof OUTAGES)[number];

/** The most approval rules a service may have. */
export const MAX_APPROVAL_RULES = 50;
/** The most latency a service may add, in milliseconds. */
export const MAX_LATENCY_MS = 60_000;

/** Payments of cards whose BIN (first six digits) is within [bin_from, bin_to] are approved at `approve_rate`. */
export interface ApprovalRule {
  bin_from: string;
  bin_to: string;
  /** 0 to 1: the share of the payments the test-card rules approve that the service approves. */
  approve_rate: number;
}

export interface SandboxBehaviour {
  approval: ApprovalRule[];
  soft_decline: SoftDecline;
  outage: Outage;
  latency_ms: number;
}

/** The behaviour of a service nobody configured: the test-card rules, no outage, no added latency. */
export const DEFAULT_BEHAVIOUR: SandboxBehaviour = Object.freeze({ approval: [], soft_decline: 'DENIED', outage: 'none', latency_ms: 0 }) as SandboxBehaviour;

/** Finds a service's behaviour (null: none, the default). The app injects it; the simulator calls it. */
export type BehaviourLookup = (serviceId: string) => Promise<SandboxBehaviour | null>;

/** What a behaviour may be given as: every field optional (absent: the default's). */
export interface BehaviourInput {
  approval?: Array<{ bin_from: string; bin_to: string; approve_rate: number }> | null;
  soft_decline?: string | null;
  outage?: string | null;
  latency_ms?: number | null;
}

const BIN = /^[0-9]{6}$/;

/**
 * A behaviour from what was given, or the first problem found, naming its field (`approval[1].bin_to`).
 * The schema of the API already checks types; this checks the rest (and everything for other callers).
 */
export function parseBehaviour(input: BehaviourInput): { ok: SandboxBehaviour } | { error: string } {
  const approval: ApprovalRule[] = [];
  const rules = input.approval ?? [];
  if (!Array.isArray(rules)) return { error: 'approval must be a list of rules' };
  if (rules.length > MAX_APPROVAL_RULES) return { error: `approval has ${rules.length} rules: at most ${MAX_APPROVAL_RULES}` };
  for (const [i, r] of rules.entries()) {
    const at = `approval[${i}]`;
    if (!r || typeof r !== 'object') return { error: `${at} must be an object with bin_from, bin_to and approve_rate` };
    if (typeof r.bin_from !== 'string' || !BIN.test(r.bin_from)) return { error: `${at}.bin_from must be a BIN of six digits (e.g. "400000")` };
    if (typeof r.bin_to !== 'string' || !BIN.test(r.bin_to)) return { error: `${at}.bin_to must be a BIN of six digits (e.g. "499999")` };
    if (r.bin_to < r.bin_from) return { error: `${at}.bin_to (${r.bin_to}) is below bin_from (${r.bin_from})` };
    if (typeof r.approve_rate !== 'number' || !Number.isFinite(r.approve_rate) || r.approve_rate < 0 || r.approve_rate > 1) {
      return { error: `${at}.approve_rate must be a number from 0 to 1` };
    }
    approval.push({ bin_from: r.bin_from, bin_to: r.bin_to, approve_rate: r.approve_rate });
  }
  const softDecline = input.soft_decline ?? DEFAULT_BEHAVIOUR.soft_decline;
  if (!(SOFT_DECLINES as readonly string[]).includes(softDecline)) return { error: `soft_decline must be one of ${SOFT_DECLINES.join(', ')}` };
  const outage = input.outage ?? DEFAULT_BEHAVIOUR.outage;
  if (!(OUTAGES as readonly string[]).includes(outage)) return { error: `outage must be one of ${OUTAGES.join(', ')}` };
  const latency = input.latency_ms ?? 0;
  if (!Number.isSafeInteger(latency) || latency < 0 || latency > MAX_LATENCY_MS) return { error: `latency_ms must be a whole number of milliseconds from 0 to ${MAX_LATENCY_MS}` };
  return { ok: { approval, soft_decline: softDecline as SoftDecline, outage: outage as Outage, latency_ms: latency } };
}

/** The deterministic draw of an operation at a service: a number in [0, 1). */
export function drawFor(reference: string, serviceId: string): number {
  const h = createHash('sha256').update(`sandbox-behaviour:${serviceId}:${reference}`).digest();
  // 48 bits: fine enough for any rate, exact in a double
  return h.readUIntBE(0, 6) / 2 ** 48;
}

/** The approval rate of a card at a service: the first rule its BIN falls in; null when none does. */
export function approvalRateFor(behaviour: SandboxBehaviour, pan: string): number | null {
  const bin = pan.replace(/\s+/g, '').slice(0, 6);
  if (!BIN.test(bin)) return null;
  for (const r of behaviour.approval) if (bin >= r.bin_from && bin <= r.bin_to) return r.approve_rate;
  return null;
}

/** The decline a refused draw gives. */
export function softDeclineOf(behaviour: SandboxBehaviour, processorId: string): ProcessorResult {
  return behaviour.soft_decline === 'PROCESSOR_ERROR'
    ? { outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'Issuer unavailable', processorId }
    : { outcome: 'DECLINED', error: 'DENIED', details: 'Do not honour', processorId };
}

/**
 * A payment's result at a service with a behaviour: what the test-card rules decided, unless they
 * approved it and the card's approval rule refuses the draw (then the soft decline). Every other result
 * (declines, challenges, pending) is kept as it is.
 */
export function applyApproval(behaviour: SandboxBehaviour, op: { reference: string; serviceId: string; pan: string; processorId: string }, decided: ProcessorResult): ProcessorResult {
  if (decided.outcome !== 'APPROVED') return decided;
  const rate = approvalRateFor(behaviour, op.pan);
  if (rate === null || drawFor(op.reference, op.serviceId) < rate) return decided;
  return softDeclineOf(behaviour, op.processorId);
}

/** The answer of a service whose connection is refused: nothing was sent, nothing can have happened. */
export const REFUSED: ProcessorResult = Object.freeze({ outcome: 'UNKNOWN', details: 'connection refused', notSent: true }) as ProcessorResult;
