/**
 * Runs a money step: step 1 (the PENDING transaction) by the optimistic writer, or by the locked one
 * when the optimistic one answers "not applied"; step 2, the processor, called here and only here
 * between step 1 and the settle (outside any database transaction); step 3, the settle, planned by
 * plan-settle.ts and written the same way (optimistic first where step 1 was, else locked).
 */
import { randomUUID } from 'node:crypto';
import { notFound } from '../../../platform/errors/errors.js';
import { IdempotencyStore } from '../../../platform/http/idempotency.js';
import type { RequestContext } from '../../../platform/http/types.js';
import type { ApmPaymentRequest, ApmPayoutRequest, Connector, FollowUpRequest, PaymentRequest, ProcessorOperation, ProcessorResult } from '../../../processors/index.js';
import type { RetryOperation, RetryState } from '../payments.domain.js';
import * as fast from '../fast.repo.js';
import * as repo from '../payments.repo.js';
import type { OrderResult, PaymentsCore } from '../core.js';
import { settle } from '../operations/settle.js';
import { planFollowUp, type Decide } from './plan-follow-up.js';
import { planSettle, type SettleOptions } from './plan-settle.js';
import { writeFollowUpLocked } from './write-locked.js';
import { alone, writeFollowUpOptimistic, writeSettleOptimistic, type StartedStep } from './write-optimistic.js';

export type MoneyRequest = PaymentRequest | FollowUpRequest | ApmPaymentRequest | ApmPayoutRequest;

/** Calls the connector operation `op`. */
export async function callProcessor(connector: Connector, op: ProcessorOperation, request: MoneyRequest): Promise<ProcessorResult> {
  switch (op) {
    case 'authorize':
      return connector.authorize(request as PaymentRequest);
    case 'partialAuthorize':
      return connector.partialAuthorize(request as PaymentRequest);
    case 'preauthorize':
      return connector.preauthorize(request as PaymentRequest);
    case 'payout':
      return connector.payout(request as PaymentRequest);
    case 'capture':
      return connector.capture(request as FollowUpRequest);
    case 'cancel':
      return connector.cancel(request as FollowUpRequest);
    case 'refund':
      return connector.refund(request as FollowUpRequest);
    case 'apmPayment':
      if (!connector.apmPayment) throw new Error(`connector ${connector.name} has no APM payments`);
      return connector.apmPayment(request as ApmPaymentRequest);
    case 'apmPayout':
      if (!connector.apmPayout) throw new Error(`connector ${connector.name} has no APM payouts`);
      return connector.apmPayout(request as ApmPayoutRequest);
    default:
      throw new Error(`not a money operation: ${op}`);
  }
}

/** A started step (its PENDING transaction committed by the locked writer): the processor, then the locked settle. */
export async function callAndSettle(
  core: PaymentsCore,
  s: { orderId: string; txId: string; op: ProcessorOperation; connector: Connector; request: MoneyRequest },
  opts: SettleOptions = {},
): Promise<OrderResult> {
  const result = await callProcessor(s.connector, s.op, s.request);
  return settle(core, s.orderId, s.txId, result, opts);
}

/**
 * A payment's first call and its settle, with cascading: while the settle starts a next attempt on a
 * fallback service (a retriable failure, plan-settle.ts `cascadeOf`), that attempt is called and
 * settled the same way. Each attempt's outcome and time feed routing's health figures.
 */
export async function callAndSettlePayment(
  core: PaymentsCore,
  s: { orderId: string; txId: string; op: ProcessorOperation; connector: Connector; request: PaymentRequest | ApmPaymentRequest | ApmPayoutRequest },
  opts: SettleOptions = {},
): Promise<OrderResult> {
  const routing = core.deps.routing;
  let step = s;
  for (;;) {
    const result = await timedCall(core, step.connector, step.op, step.request);
    const cascade = routing ? { allowed: (f: { error: string; notSent: boolean }) => routing.cascadeAllowed(f), txId: randomUUID(), realNow: core.p.clock.now() } : undefined;
    const out = await settle(core, step.orderId, step.txId, result, { ...opts, cascade });
    if (!out.next) return out;
    const next = out.next;
    // the same request (card, amount, authentication) to the next service, as the new attempt
    step = {
      ...step,
      txId: next.txId,
      connector: core.deps.processors.forService(next.serviceType, next.env),
      request: { ...step.request, reference: next.txId, terminal: { serviceType: next.serviceType, terminalId: null, serviceId: next.serviceId } } as typeof step.request,
    };
  }
}

/** Calls the processor and tells routing's health figures how it went (outcome and time). */
async function timedCall(core: PaymentsCore, connector: Connector, op: ProcessorOperation, request: MoneyRequest): Promise<ProcessorResult> {
  const routing = core.deps.routing;
  if (!routing) return callProcessor(connector, op, request);
  const serviceId = (request as PaymentRequest).terminal?.serviceId ?? null;
  const started = performance.now();
  const result = await callProcessor(connector, op, request).catch((err: unknown) => {
    if (serviceId) routing.record(serviceId, 'ERROR', performance.now() - started);
    throw err;
  });
  if (serviceId) routing.record(serviceId, healthOutcome(result), performance.now() - started);
  return result;
}

function healthOutcome(r: ProcessorResult): 'APPROVED' | 'DECLINED' | 'ERROR' | 'TIMEOUT' {
  if (r.outcome === 'APPROVED' || r.outcome === 'CHALLENGE' || r.outcome === 'PENDING') return 'APPROVED';
  if (r.outcome === 'DECLINED') return r.error === 'PROCESSOR_ERROR' ? 'ERROR' : 'DECLINED';
  return r.notSent ? 'ERROR' : 'TIMEOUT';
}

/**
 * A step whose step 1 the optimistic writer wrote (`started`; `o`: the order as step 1 left it, `tx`:
 * its PENDING transaction): the processor, then the settle planned from that order, written in one
 * statement when the order has not moved, else by the locked settle (which reads and plans again).
 */
export async function callAndSettleOptimistic(
  core: PaymentsCore,
  o: repo.LockedOrder,
  started: StartedStep,
  tx: repo.SettlingTx,
  retry: RetryState,
  s: { op: ProcessorOperation; connector: Connector; request: MoneyRequest },
  opts: SettleOptions = {},
): Promise<OrderResult> {
  const result = await timedCall(core, s.connector, s.op, s.request);
  const now = core.now(o);
  const plan = planSettle(o, tx, retry, result, opts, core.p.config.publicUrl, now);
  const done = await writeSettleOptimistic(core, core.db.db, o, started, tx.id, plan, now);
  return done ?? settle(core, o.id, tx.id, result, opts);
}

/** B8, B9, B12: a confirmation, cancellation or refund. `decide` gives the amount or throws the contract error. */
export async function runFollowUp(core: PaymentsCore, ctx: RequestContext, orderId: string, op: RetryOperation, decide: Decide, extra?: { extraData?: unknown }): Promise<OrderResult> {
  const quick = await alone(orderId, () => followUpOptimistic(core, ctx, orderId, op, decide, extra));
  if (quick) return quick;
  const s = await core.db.transaction(async (trx) => {
    const o = await repo.lockOrderForFollowUp(trx, orderId, ctx.merchant.id, op);
    if (!o || o.env !== ctx.env) throw notFound(`The order ${orderId} was not found`);
    const plan = planFollowUp(o, op, decide, extra, { txId: randomUUID(), now: core.now(o), realNow: core.p.clock.now() });
    if ('error' in plan) throw plan.error;
    const connector = core.deps.processors.forService(o.service_type, o.env);
    await writeFollowUpLocked(trx, o, plan);
    // the request's key is never run again once this commits (its answer may be lost after the call)
    await IdempotencyStore.commit(trx, ctx, o.id);
    return { orderId: o.id, txId: plan.tx.id, op: plan.processorOp, connector, request: plan.request };
  });
  return callAndSettle(core, s);
}

/**
 * The optimistic try of a follow-up: the order read without a lock, planned, step 1 written if the
 * order is still that version. null: nothing written, the locked path runs (it plans again and gives
 * the error of a plan that has one).
 */
async function followUpOptimistic(core: PaymentsCore, ctx: RequestContext, orderId: string, op: RetryOperation, decide: Decide, extra?: { extraData?: unknown }): Promise<OrderResult | null> {
  const db = core.db.db;
  const read = await fast.readOrderForFollowUp(db, orderId, ctx.merchant.id, op).catch(() => undefined);
  if (!read || read.env !== ctx.env) return null;
  const { version, ...o } = read;
  // after failures the settle writes the retry state: the locked writer's
  if (o.retry.failures > 0) return null;
  let plan: ReturnType<typeof planFollowUp>;
  let connector: Connector;
  try {
    plan = planFollowUp(o, op, decide, extra, { txId: randomUUID(), now: core.now(o), realNow: core.p.clock.now() });
    if ('error' in plan) return null;
    connector = core.deps.processors.forService(o.service_type, o.env);
  } catch {
    return null;
  }
  const { retry: _r, payment: _p, ...order } = o;
  const started = await writeFollowUpOptimistic(db, order as repo.LockedOrder, version, plan, ctx);
  if (!started) return null;
  return callAndSettleOptimistic(core, plan.after, started, plan.tx, plan.retry, { op: plan.processorOp, connector, request: plan.request });
}
