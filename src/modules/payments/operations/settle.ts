/**
 * Step 3 of every money operation (after the processor's answer, money/run.ts): settle the PENDING
 * transaction and its order in one transaction that locks the order row again.
 * Settling is idempotent: a transaction already settled (by the reconciler, or a second caller) is left
 * as it is.
 */
import type { Tx } from '../../../platform/db/database.js';
import type { ProcessorResult } from '../../../processors/index.js';
import { NO_RETRY_STATE } from '../payments.domain.js';
import * as repo from '../payments.repo.js';
import type { OrderResult, PaymentsCore, Settlement } from '../core.js';
import { planSettle, type SettleOptions } from '../money/plan-settle.js';
import { writeSettleLocked } from '../money/write-locked.js';

/** Step 3: settles a PENDING transaction and its order in one transaction (plan-settle.ts, written by the locked writer). */
export async function settle(core: PaymentsCore, orderId: string, txId: string, result: ProcessorResult | Settlement, opts: SettleOptions = {}): Promise<OrderResult> {
  return core.db.transaction(async (trx) => {
    const locked = await repo.lockOrderWithTx(trx, orderId, txId);
    if (!locked) throw new Error(`settle: order ${orderId} or transaction ${txId} is missing`);
    const { order: o, tx, retry } = locked;
    const now = core.now(o);
    return writeSettleLocked(core, trx, o, tx, planSettle(o, tx, retry, result, opts, core.p.config.publicUrl, now), now);
  });
}

/**
 * Refuses a payment that was just started, without calling the processor (a security list or antifraud
 * refused it), in the transaction that started it: the transaction REFUSED with `error`, the order
 * through the table (BLACKLISTED, FRAUD).
 */
export function refuseStarted(core: PaymentsCore, trx: Tx, o: repo.LockedOrder, tx: repo.SettlingTx, error: 'BLACKLISTED' | 'FRAUD_SUSPECTED', details: string, now: Date): Promise<OrderResult> {
  const plan = planSettle(o, tx, NO_RETRY_STATE, { outcome: 'DECLINED', error, details, processorId: null }, {}, core.p.config.publicUrl, now);
  return writeSettleLocked(core, trx, o, tx, plan, now);
}
