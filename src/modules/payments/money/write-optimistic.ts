/**
 * The optimistic writer: carries a plan out in one statement per step, guarded by the order's row
 * version (PostgreSQL's `xmin`) read with the order, without a lock (fast.repo.ts). It answers "not
 * applied" (null) when the order moved since the read, or when the plan is one it does not write (a
 * settle that is not an approval by the table, or that writes the retry state): the caller then takes
 * the locked writer, which re-reads under the lock and plans again. It decides nothing itself.
 */
import type { Executor } from '../../../platform/db/database.js';
import * as fast from '../fast.repo.js';
import { txTransition } from '../order-states.js';
import type * as repo from '../payments.repo.js';
import type { OrderResult, PaymentsCore, PresentedOrder } from '../core.js';
import type { FollowUpPlan } from './plan-follow-up.js';
import type { PaymentPlan } from './plan-payment.js';
import { orderAfter, type SettlePlan } from './plan-settle.js';

/**
 * Orders with an optimistic step in flight in this process: a second step on the same order at the
 * same time would only lose the race for the order's version, so it takes the locked path (which waits
 * for the row lock) straight away.
 */
const inFlight = new Set<string>();

export async function alone<T>(orderId: string, fn: () => Promise<T | null>): Promise<T | null> {
  const key = String(orderId).toLowerCase();
  if (inFlight.has(key)) return null;
  inFlight.add(key);
  try {
    return await fn();
  } finally {
    inFlight.delete(key);
  }
}

/** Step 1's result: the order's new version, and for an order with url_post what a notifying settle needs. */
export type StartedStep = { version: string; txs: null; others: null } | fast.Started;

/** Step 1 (fast.startStep), reading back the order's transactions when its settle may notify (url_post). */
export async function startStep(db: Executor, o: repo.LockedOrder, version: string, tx: fast.StartTx, set: fast.StartOrder): Promise<StartedStep | null> {
  if (o.url_post) return fast.startStepWithTxs(db, o.id, version, tx, set);
  const v = await fast.startStep(db, o.id, version, tx, set);
  return v === null ? null : { version: v, txs: null, others: null };
}

/** The request's Idempotency-Key, marked committed with step 1. */
export type KeyMark = { idempotencyKey?: string | null; idempotencyAttempt?: string | null };

/** Step 1 of a follow-up plan, if the order is still at `version`. */
export function writeFollowUpOptimistic(db: Executor, o: repo.LockedOrder, version: string, plan: FollowUpPlan, key: KeyMark): Promise<StartedStep | null> {
  const t = plan.tx;
  return startStep(
    db,
    o,
    version,
    {
      id: t.id, merchantId: t.merchant_id, operative: t.operative, processorOperation: t.processor_operation, amount: Number(t.amount), sourceId: t.source_id,
      sourceJson: t.source_json, customerIp: t.customer_ip, antifraud: t.antifraud, metadata: t.metadata, now: t.created_at, realNow: t.started_at,
      idempotencyKey: key.idempotencyKey ?? null, idempotencyAttempt: key.idempotencyAttempt ?? null,
    },
    {
      status: o.status, paid: o.paid, sourceId: o.source_id, ip: o.ip,
      reserve: plan.order.refundReserved - Number(o.refund_reserved), busy: plan.order.busyTxId === t.id,
    },
  );
}

/** The one-statement settle of a plan, or null when the plan is not one this writer writes. */
function approvedSettle(o: repo.LockedOrder, plan: SettlePlan, now: Date): fast.ApprovedSettle | null {
  if (plan.kind !== 'write' || plan.tx.kind !== 'settle' || plan.tx.event !== 'APPROVED' || !plan.order?.event || plan.retry || plan.notifyFailure) return null;
  const { next } = orderAfter(o, plan.order, now);
  const set = plan.order.set;
  const tx = plan.tx.set;
  return {
    txStatus: txTransition('PENDING', 'APPROVED'),
    authCode: tx.auth_code ?? '',
    processorId: tx.processor_id ?? null,
    txAmount: tx.amount !== undefined ? Number(tx.amount) : null,
    orderStatus: next.status,
    paid: next.paid,
    authorized: set.authorized !== undefined ? Number(set.authorized) : null,
    captured: set.captured !== undefined ? Number(set.captured) : null,
    safe: set.safe !== undefined ? !!set.safe : null,
    refunded: set.refunded !== undefined ? Number(set.refunded) : null,
    release: set.refund_reserved !== undefined ? Number(o.refund_reserved) - Number(set.refund_reserved) : 0,
    clearBusy: 'busy_tx_id' in set && set.busy_tx_id === null,
    sourceId: plan.markCard,
    serviceId: plan.markCard ? o.service_id : null,
    cofTxnid: set.cof_txnid ?? null,
    now,
  };
}

/**
 * Step 3 of a plan in one statement (with the notification, when the transition sends one, in the same
 * statement), if the order is still the version step 1 left. `o`: the order as step 1 left it. Returns
 * null when nothing was written: the caller settles with the locked writer.
 */
export async function writeSettleOptimistic(
  core: PaymentsCore,
  db: Executor,
  o: repo.LockedOrder,
  started: StartedStep,
  txId: string,
  plan: SettlePlan,
  now: Date,
): Promise<OrderResult | null> {
  const s = approvedSettle(o, plan, now);
  if (!s || plan.kind !== 'write' || !plan.order) return null;
  const { next, notify } = orderAfter(o, plan.order, now);
  let done: PresentedOrder | null = null;
  if (!notify) {
    const txs = await fast.settleApproved(db, o.id, started.version, txId, s);
    done = txs ? core.present(next, txs) : null;
  } else if (started.txs) {
    // the answer (and the notification's order) from step 1's transactions with this one settled: the
    // statement writes only if the others are still as step 1 read them
    const presented = core.present(next, fast.predictSettled(started.txs, txId, s));
    const written = await fast.settleApprovedNotifying(db, o.id, started.version, txId, started.others, s, (when) => core.notificationSql(next, presented, now, when));
    if (written) {
      core.p.jobs.poke();
      done = presented;
    }
  }
  return done ? { order: done, merchantId: o.merchant_id, redirect: plan.redirect, failed: plan.failed } : null;
}

/** Step 1 of a payment plan the optimistic writer takes (plan-payment.ts `optimisticTakes`), if the order is still at `version`. */
export function writePaymentOptimistic(db: Executor, o: repo.LockedOrder, version: string, plan: Extract<PaymentPlan, { kind: 'call' }>, key: KeyMark): Promise<StartedStep | null> {
  const t = plan.tx;
  const a = plan.after;
  return startStep(
    db,
    o,
    version,
    {
      id: t.id, merchantId: t.merchant_id, operative: t.operative, processorOperation: t.processor_operation, amount: Number(t.amount), sourceId: t.source_id,
      sourceJson: t.source_json, customerIp: t.customer_ip, antifraud: t.antifraud, metadata: t.metadata, now: t.created_at, realNow: t.started_at,
      idempotencyKey: key.idempotencyKey ?? null, idempotencyAttempt: key.idempotencyAttempt ?? null,
    },
    { status: a.status, paid: a.paid, sourceId: a.source_id, ip: a.ip, threedsData: 'threeds_data' in plan.order!.set ? a.threeds_data : undefined, reserve: 0, busy: false },
  );
}
