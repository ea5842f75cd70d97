/** The recurring background work of payments: the expiry sweep, the reconciler and the overview's fold. */
import type { ProcessorOperation } from '../../../processors/index.js';
import { fromStatuses } from '../order-states.js';
import * as repo from '../payments.repo.js';
import type { PaymentsCore, Settlement } from '../core.js';
import { settle } from './settle.js';
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
    const n = await repo.expireDueQuietly(core.db.db, OPEN_STATUSES, core.p.clock.now(), 1000);
    total += n;
    if (n < 1000) break;
  }
  for (;;) {
    const n = await core.db.transaction(async (trx) => {
      const ids = await repo.lockDueOrders(trx, OPEN_STATUSES, core.p.clock.now(), batch);
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
 * Settles transactions left PENDING by a crash or a processor timeout. With autorecover_transactions
 * the processor is asked (lookup); otherwise, or when the processor has no record, the transaction is
 * ERROR (TIMEOUT). A transaction the processor accepted and has not decided (PENDING with its id, e.g. a
 * Checkout.com refund answered 202) is always asked about.
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
  const before = new Date(p.clock.now().getTime() - (opts.olderThanMs ?? p.config.reconcileAfterMs));
  const stale = await repo.stalePendingTransactions(db, before, 500);
  let settled = 0;
  for (const s of stale) {
    const o = await repo.findOrder(db, s.order_id);
    const tx = await repo.findTransaction(db, s.id);
    if (!o || !tx || tx.status !== 'PENDING') continue;
    let result: Settlement | null;
    const apm = tx.processor_operation === 'apmStart' && tx.source_json ? (JSON.parse(tx.source_json) as { apm: string; expires_at?: string }) : null;
    if (apm?.expires_at) {
      // a started APM payment waits for the customer (bank page, phone, voucher) until its expiry
      if (core.now(o).getTime() < Date.parse(apm.expires_at)) continue;
      // a provider that can be asked (autorecover) may have the payment done although its notification was lost
      const found = o.m_autorecover
        ? await core.deps.processors.forService(o.service_type, o.env).lookup({ reference: tx.id, operation: 'apmStart', terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id } })
        : null;
      result = found?.found === true ? found.result : { outcome: 'DECLINED', error: 'DENIED', details: `The ${apm.apm} payment expired before it was completed`, processorId: tx.processor_id };
    } else if (o.m_autorecover || tx.processor_id) {
      // autorecover on, or an operation the processor accepted and has not decided yet (PENDING with the
      // processor's id: an asynchronous answer is decided by the processor, never by the clock)
      const connector = core.deps.processors.forService(o.service_type, o.env);
      const found = await connector.lookup({ reference: tx.id, operation: tx.processor_operation as ProcessorOperation, terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id } });
      if (found.found === true) result = found.result;
      else if (found.found === false) result = { outcome: 'FAILED', error: 'TIMEOUT', details: 'The processor has no record of the operation: it did not happen' };
      else {
        const ageMs = p.clock.now().getTime() - tx.started_at.getTime();
        result = ageMs > 86_400_000 ? { outcome: 'FAILED', error: 'TIMEOUT', details: 'The processor could not be asked for a day' } : null;
      }
    } else {
      result = { outcome: 'FAILED', error: 'TIMEOUT', details: 'No answer from the processor; not recovered (autorecover_transactions is off)' };
    }
    if (!result) continue;
    await settle(core, o.id, tx.id, result);
    settled++;
    p.logger.info({ transaction: tx.id, outcome: result.outcome }, 'reconciled a pending transaction');
  }
  return settled + closed;
}
