/** The recurring background work of payments: the expiry sweep, the reconciler and the overview's fold. */
import { createHash } from 'node:crypto';
import type { ProcessorOperation } from '../../../processors/index.js';
import { fromStatuses } from '../order-states.js';
import * as repo from '../payments.repo.js';
import * as sweeps from '../sweeps.repo.js';
import type { PaymentsCore, Settlement } from '../core.js';
import { settle } from './settle.js';
import { callProcessor } from '../money/run.js';
import { abandonLocked } from './device.js';
import { foldOverview } from './overview.js';

/**
 * A payment waiting for a device that its deadline did not close this long after the deadline (merchant
 * clock) is closed by the reconciler (the devices module's deadline job normally does it at the deadline).
 */
export const DEVICE_WAIT_GRACE_MS = 10 * 60_000;

const OPEN_STATUSES = fromStatuses('EXPIRED');

export const EXPIRE_QUEUE = 'payments.expire';
export const RECONCILE_QUEUE = 'payments.reconcile';
export const OVERVIEW_FOLD_QUEUE = 'payments.overview-fold';
/** How often the overview's changes are folded into its day rows (an overview reads the rest as they are). */
export const OVERVIEW_FOLD_EVERY_MS = 30_000;

export function registerJobs(core: PaymentsCore): void {
  const { p } = core;
  // a sweep whose worker died is taken over within seconds, not minutes (running sweeps renew the lease)
  const sweepLease = { leaseMs: Math.min(p.config.jobLeaseMs, Math.max(5_000, 3 * p.config.sweepEveryMs)) };
  p.jobs.register(EXPIRE_QUEUE, async () => {
    await expireDue(core);
  }, sweepLease);
  p.jobs.every(EXPIRE_QUEUE, p.config.sweepEveryMs);
  p.jobs.register(RECONCILE_QUEUE, async () => {
    await reconcile(core);
  }, sweepLease);
  p.jobs.every(RECONCILE_QUEUE, p.config.sweepEveryMs);
  p.jobs.register(OVERVIEW_FOLD_QUEUE, async () => {
    const batch = 10_000;
    while ((await foldOverview(core.db.db, batch)) >= batch) {
      // more to fold: a backlog (after an upgrade, or while the job did not run) goes in batches
    }
  }, sweepLease);
  p.jobs.every(OVERVIEW_FOLD_QUEUE, OVERVIEW_FOLD_EVERY_MS);
}

/**
 * Expires every open order whose time has come on its merchant's clock, in batches. One recurring job
 * does this for all orders (no job per order); reads and payments also expire a due order on the spot.
 * Set-based first: orders with nothing else to do (no url_post, no 3DS wait) expire a thousand per
 * statement; those that need a notification (which carries the presented order) or a 3DS transaction
 * voided go one by one.
 */
export async function expireDue(core: PaymentsCore, batch = 200): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await sweeps.expireDueQuietly(core.db.db, OPEN_STATUSES, core.p.clock.now(), 1000);
    total += n;
    if (n < 1000) break;
  }
  for (;;) {
    const n = await core.db.transaction(async (trx) => {
      const ids = await sweeps.lockDueOrders(trx, OPEN_STATUSES, core.p.clock.now(), batch);
      for (const id of ids) {
        const o = await repo.lockOrder(trx, id);
        if (o && core.isDue(o, core.now(o))) await core.expire(trx, o, core.now(o));
      }
      return ids.length;
    });
    total += n;
    if (n < batch) return total;
  }
}

/**
 * Settles transactions left PENDING by a crash, a processor timeout or an answer "in progress"
 * (decisions §13). Whatever `autorecover_transactions` says, the processor is asked first (lookup):
 *  - it never had the operation: ERROR (TIMEOUT), nothing happened;
 *  - it cannot be asked now: the transaction stays PENDING and is asked again later (backing off);
 *  - it has a final result: with autorecover_transactions on, that is the result; off, a payment it
 *    approved is never turned into a success: it is reversed there (`reverseLost`: a void of a
 *    pre-authorization, a refund of a charge) and the transaction ends ERROR (TIMEOUT) with the reversal
 *    named, notified as usual. Confirmations, cancellations, refunds and payouts it did are settled as it
 *    says either way: they cannot be undone, and the order must say what happened to the money.
 */
export async function reconcile(core: PaymentsCore, opts: { olderThanMs?: number } = {}): Promise<number> {
  const { p } = core;
  const db = core.db.db;
  let closed = 0;
  for (const w of await repo.overdueDeviceWaits(db, p.clock.now(), DEVICE_WAIT_GRACE_MS, 200)) {
    const done = await core.db.transaction(async (trx) => {
      const o = await repo.lockOrder(trx, w.order_id);
      if (!o) return false;
      await abandonLocked(core, trx, o, { outcome: 'ABANDONED', details: 'The device did not read a card; the payment was closed by the reconciler' });
      return true;
    });
    if (done) {
      closed++;
      p.logger.warn({ transaction: w.id, order: w.order_id }, 'reconciler closed a payment still waiting for a device after its deadline');
    }
  }
  const realNow = p.clock.now();
  const before = new Date(realNow.getTime() - (opts.olderThanMs ?? p.config.reconcileAfterMs));
  const stale = await sweeps.stalePendingTransactions(db, before, realNow, 500);
  let settled = 0;
  for (const s of stale) {
    const o = await repo.findOrder(db, s.order_id);
    const tx = await repo.findTransaction(db, s.id);
    if (!o || !tx || tx.status !== 'PENDING') continue;
    const terminal = { serviceType: o.service_type, terminalId: null, serviceId: o.service_id };
    const connector = core.deps.processors.forService(o.service_type, o.env);
    const apm = tx.processor_operation === 'apmStart' && tx.source_json ? (JSON.parse(tx.source_json) as { apm: string; expires_at?: string }) : null;
    // a started APM payment waits for the customer (bank page, phone, voucher) until its expiry
    if (apm?.expires_at && core.now(o).getTime() < Date.parse(apm.expires_at)) continue;
    const found = await connector.lookup({ reference: tx.id, operation: tx.processor_operation as ProcessorOperation, terminal });
    let result: Settlement | null;
    if (found.found === false) {
      result = apm
        ? { outcome: 'DECLINED', error: 'DENIED', details: `The ${apm.apm} payment expired before it was completed`, processorId: tx.processor_id }
        : { outcome: 'FAILED', error: 'TIMEOUT', details: 'The processor has no record of the operation: it did not happen' };
    } else if (found.found === 'unknown') {
      // it stays PENDING until the processor can be asked (or decides it): asked at every sweep while it is
      // young, then less and less often (a tenth of its age, at most hourly), so old ones do not crowd out
      // the rest of the sweep
      const ageMs = realNow.getTime() - tx.started_at.getTime();
      const later = Math.min(3_600_000, ageMs / 10);
      if (later > p.config.sweepEveryMs) await sweeps.reconcileLater(db, tx.id, new Date(realNow.getTime() + later));
      if (ageMs > 86_400_000) p.logger.error({ transaction: tx.id, details: found.details }, 'reconciler: the processor could not be asked about a pending transaction for more than a day');
      continue;
    } else if (o.m_autorecover || found.result.outcome !== 'APPROVED' || !REVERSIBLE[tx.processor_operation]) {
      result = found.result;
    } else {
      result = await reverseLost(core, o, tx, found.result);
    }
    if (!result) continue;
    await settle(core, o.id, tx.id, result, { afterAnswer: true });
    settled++;
    p.logger.info({ transaction: tx.id, outcome: result.outcome }, 'reconciled a pending transaction');
  }
  return settled + closed;
}

/** Payments a processor approved after their answer was lost, and how each is reversed. */
const REVERSIBLE: Partial<Record<string, 'cancel' | 'refund'>> = {
  authorize: 'refund',
  partialAuthorize: 'refund',
  apmPayment: 'refund',
  apmStart: 'refund',
  preauthorize: 'cancel',
};

/** The reference of a transaction's reversal: derived from it, so a sweep that runs again finds it. */
export function reversalReference(txId: string): string {
  const h = createHash('sha256').update(`reversal:${txId}`).digest('hex');
  // a UUID (version 8: custom) like every reference the connectors keep
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * A payment whose answer was lost, approved by the processor, for a merchant without
 * autorecover_transactions: reversed at the processor (a void, or a refund once captured) before it is
 * settled as failed. The reversal's reference is derived from the transaction: asked about first, so a
 * sweep that runs again after a crash never reverses twice. Null: not settled yet (asked again later).
 * A reversal the processor refuses leaves the charge standing: the payment is settled as approved (the
 * order must say where the money is), and the refusal is logged as an error.
 */
async function reverseLost(core: PaymentsCore, o: repo.LockedOrder, tx: repo.TxRow, approved: Extract<Settlement, { outcome: 'APPROVED' }>): Promise<Settlement | null> {
  const op = REVERSIBLE[tx.processor_operation]!;
  const reference = reversalReference(tx.id);
  const terminal = { serviceType: o.service_type, terminalId: null, serviceId: o.service_id };
  const connector = core.deps.processors.forService(o.service_type, o.env);
  const earlier = await connector.lookup({ reference, operation: op, terminal });
  if (earlier.found === 'unknown') return null;
  const r = earlier.found === true
    ? earlier.result
    : await callProcessor(connector, op, {
        reference, terminal, now: core.now(o), amount: approved.amount, currency: o.currency,
        original: { reference: tx.id, processorId: approved.processorId, authorization: approved.authorization },
      });
  const what = op === 'cancel' ? 'void' : 'refund';
  if (r.outcome === 'APPROVED') {
    core.p.logger.warn({ transaction: tx.id, reversal: reference }, 'reconciler reversed a payment approved after its answer was lost (autorecover_transactions off)');
    return {
      outcome: 'FAILED',
      error: 'TIMEOUT',
      details: `The processor approved the payment (${approved.processorId}) after its answer was lost; autorecover_transactions is off, so it was reversed: ${what} ${r.processorId} of ${approved.amount}`,
    };
  }
  if (r.outcome === 'DECLINED') {
    core.p.logger.error({ transaction: tx.id, reversal: reference, details: 'details' in r ? r.details : '' }, 'reconciler: the processor refused to reverse a payment approved after its answer was lost; the charge stands');
    return approved;
  }
  return null;
}
