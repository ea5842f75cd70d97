/**
 * The locked writer: carries a plan out with ordinary statements in the transaction that holds the
 * order's row lock (the caller locked and read the order, and planned from that read). It is the
 * ordinary path, and the optimistic writer's fallback: re-read under the lock, re-plan with the same
 * plan function, write here.
 */
import type { Tx } from '../../../platform/db/database.js';
import * as repo from '../payments.repo.js';
import * as keptCards from '../threeds-cards.repo.js';
import type { Connector } from '../../../processors/index.js';
import { NO_RETRY_STATE } from '../payments.domain.js';
import type { OrderResult, PaymentsCore, PresentedOrder, Started } from '../core.js';
import type { FollowUpPlan } from './plan-follow-up.js';
import type { PaymentPlan } from './plan-payment.js';
import { orderAfter, planSettle, type CascadePlan, type SettlePlan } from './plan-settle.js';
import { routingNext, routingRecord } from './plan-payment.js';

/** Step 1 of a follow-up: the PENDING transaction, and the refund reservation or the busy transaction. */
export async function writeFollowUpLocked(trx: Tx, o: Pick<repo.LockedOrder, 'id' | 'status'>, plan: FollowUpPlan): Promise<void> {
  await repo.insertTransaction(trx, plan.tx);
  await repo.updateOrder(trx, o.id, o.status, { refund_reserved: plan.order.refundReserved, busy_tx_id: plan.order.busyTxId, updated_at: plan.order.updatedAt });
}

/** Step 3: the transaction, the stored card's use, the retry state, the order (and its notification). */
export async function writeSettleLocked(core: PaymentsCore, trx: Tx, o: repo.LockedOrder, tx: repo.SettlingTx, plan: SettlePlan, now: Date): Promise<OrderResult> {
  const base = { merchantId: o.merchant_id, redirect: null as string | null, failed: null as string | null };
  if (plan.kind === 'keep') {
    // accepted, not decided (decisions §13): the transaction stays PENDING with the provider's id; its
    // notification or the reconciler's lookup settles it
    if (plan.processorId) await repo.updateTransaction(trx, tx.id, { processor_id: plan.processorId, updated_at: now });
    return { ...base, order: core.present(o, await repo.transactionsOf(trx, o.id)) };
  }
  if (plan.tx.kind === 'settle') await core.settleTx(trx, tx, plan.tx.event, plan.tx.set, now);
  else await repo.updateTransaction(trx, tx.id, { awaiting_3ds: true, updated_at: now });
  if (plan.markCard) await core.deps.sources.markValidated(trx, plan.markCard, now, o.service_id);
  if (plan.retry) await repo.saveRetryState(trx, o.id, plan.retry.op, plan.retry.state);
  let presented: PresentedOrder;
  if (!plan.order) {
    presented = core.present(o, await repo.transactionsOf(trx, o.id));
  } else if (plan.order.event) {
    presented = (await core.transition(trx, o, plan.order.event, plan.order.set, now)).presented;
  } else {
    await repo.updateOrder(trx, o.id, o.status, { ...plan.order.set, updated_at: now });
    const { next } = orderAfter(o, plan.order, now);
    presented = core.present(next, await repo.transactionsOf(trx, o.id));
    if (plan.notifyFailure) await core.notify(trx, next, presented, now);
  }
  if (plan.cascade) {
    await writeCascade(trx, tx.id, plan.cascade, now);
    presented = core.present(orderAfter(o, plan.order!, now).next, await repo.transactionsOf(trx, o.id));
    const a = plan.cascade.attempt;
    return { ...base, order: presented, next: { txId: plan.cascade.txId, serviceId: a.serviceId, serviceType: a.serviceType, env: o.env } };
  }
  return { ...base, order: presented, redirect: plan.redirect, failed: plan.failed };
}

/** The next attempt of a cascade: a PENDING copy of the failed attempt (same card, risk verdict, amount) on the next service. */
async function writeCascade(trx: Tx, failedTxId: string, c: CascadePlan, now: Date): Promise<void> {
  const failed = await repo.findTransaction(trx, failedTxId);
  if (!failed) throw new Error(`cascade: transaction ${failedTxId} is missing`);
  await repo.insertTransaction(trx, {
    id: c.txId, order_id: failed.order_id, merchant_id: failed.merchant_id, operative: failed.operative, processor_operation: failed.processor_operation,
    amount: Number(failed.amount), status: 'PENDING', error: 'NONE', auth_code: '', processor_id: null, source_id: failed.source_id, source_json: failed.source_json,
    antifraud: failed.antifraud, device: failed.device, error_details: null, customer_ip: failed.customer_ip, awaiting_3ds: false, metadata: failed.metadata,
    dcc: failed.dcc ?? null, created_at: now, updated_at: now, started_at: c.realNow,
    service_id: c.attempt.serviceId, routing: routingRecord(c.attempt, c.number), routing_next: routingNext(c.number, c.rest),
  } as repo.TxRow);
}

/**
 * Step 1 of a card payment: the PENDING transaction (or the device's waiting one, started), the card
 * kept for a challenge, the order's event; then the 3-D Secure page, the refusal settled at once, or
 * the call to make (steps 2 and 3, after the commit).
 */
export async function writePaymentLocked(core: PaymentsCore, trx: Tx, o: repo.LockedOrder, plan: PaymentPlan, connector: Connector): Promise<Started> {
  if (plan.wait) await repo.startDeviceWaitTransaction(trx, plan.wait.id, plan.wait.set);
  else await repo.insertTransaction(trx, plan.tx);
  if (plan.keep) await keptCards.keepCard(trx, core.p.vault, { txId: plan.txId, orderId: o.id, realNow: plan.tx.started_at, card: plan.keep });
  const now = plan.tx.updated_at;
  const started = plan.order ? (await core.transition(trx, o, plan.order.event, plan.order.set, now, { present: false })).order : o;
  if (plan.kind === '3ds') return { kind: '3ds', orderId: o.id, url: plan.threeds.url, tryFrictionless: plan.threeds.tryFrictionless, exemption: plan.threeds.exemption };
  if (plan.kind === 'refuse') {
    const tx = { id: plan.txId, status: 'PENDING' as const, awaiting_3ds: false, operative: plan.txOperative, amount: Number(o.amount), source_id: plan.tx.source_id };
    const settle = planSettle(started, tx, NO_RETRY_STATE, { outcome: 'DECLINED', error: plan.refusal.error, details: plan.refusal.details, processorId: null }, {}, core.p.config.publicUrl, now);
    return { kind: 'done', result: await writeSettleLocked(core, trx, started, tx, settle, now) };
  }
  return { kind: 'call', orderId: o.id, txId: plan.txId, op: plan.op, connector, safe: plan.safe, request: plan.request };
}
