/**
 * Step 3 of every money operation (after the processor's answer, money/run.ts): settle the PENDING
 * transaction and its order in one transaction that locks the order row again.
 * Settling is idempotent: a transaction already settled (by the reconciler, or a second caller) is left
 * as it is.
 */
import type { Tx } from '../../../platform/db/database.js';
import type { ProcessorResult } from '../../../processors/index.js';
import { declineEvent } from '../order-states.js';
import { afterFailure, afterSuccess, challengeThreedsRecord, orderUrls, refundEventFor, type RetryOperation, type RetryState } from '../payments.domain.js';
import * as repo from '../payments.repo.js';
import type { OrderResult, PaymentsCore, Settlement } from '../core.js';

/** A processor failure that the merchant sees as HTTP 402 "Failed". */
const FAILED_OPERATION: Record<string, string> = {
  CONFIRMATION: 'The processor refused the confirmation',
  CANCELLATION: 'The processor refused the cancellation',
  REFUND: 'The processor refused the refund',
};

/** Step 3: settles a PENDING transaction and its order in one transaction. */
export async function settle(
  core: PaymentsCore,
  orderId: string,
  txId: string,
  result: ProcessorResult | Settlement,
  opts: { safe?: boolean; threedsData?: unknown; deviceRefund?: boolean; afterAnswer?: boolean } = {},
): Promise<OrderResult> {
  return core.db.transaction(async (trx) => {
    const locked = await repo.lockOrderWithTx(trx, orderId, txId);
    if (!locked) throw new Error(`settle: order ${orderId} or transaction ${txId} is missing`);
    const { order: o, tx, retry } = locked;
    const base = { merchantId: o.merchant_id, redirect: null, failed: null };
    if (tx.status === 'PENDING' && result.outcome === 'PENDING' && result.processorId) {
      // accepted, not decided (decisions §13): the transaction stays PENDING with the provider's id; its
      // notification or the reconciler's lookup settles it
      await repo.updateTransaction(trx, tx.id, { processor_id: result.processorId, updated_at: core.now(o) });
    }
    if (tx.status !== 'PENDING' || result.outcome === 'UNKNOWN' || result.outcome === 'PENDING' || (tx.awaiting_3ds && result.outcome !== 'VOIDED' && result.outcome !== 'FAILED')) {
      return { ...base, order: core.present(o, await repo.transactionsOf(trx, o.id)) };
    }
    const now = core.now(o);
    switch (tx.operative) {
      case 'AUTHORIZATION':
      case 'DEFERRED':
      case 'PAYOUT':
      case 'TRANSFER':
        return settlePayment(core, trx, o, tx, result as Settlement, now, opts);
      case 'CONFIRMATION':
      case 'CANCELLATION':
      case 'REFUND':
        return settleFollowUp(core, trx, o, tx, retry, result as Settlement, now, { deviceRefund: opts.deviceRefund, afterAnswer: opts.afterAnswer });
    }
  });
}

/**
 * Refuses a payment that was just started, without calling the processor (a security list or antifraud
 * refused it), in the transaction that started it: the transaction REFUSED with `error`, the order
 * through the table (BLACKLISTED, FRAUD).
 */
export function refuseStarted(core: PaymentsCore, trx: Tx, o: repo.LockedOrder, tx: repo.SettlingTx, error: 'BLACKLISTED' | 'FRAUD_SUSPECTED', details: string, now: Date): Promise<OrderResult> {
  return settlePayment(core, trx, o, tx, { outcome: 'DECLINED', error, details, processorId: null }, now, {});
}

async function settlePayment(
  core: PaymentsCore,
  trx: Tx,
  o: repo.LockedOrder,
  tx: repo.SettlingTx,
  r: Settlement,
  now: Date,
  opts: { safe?: boolean; threedsData?: unknown },
): Promise<OrderResult> {
  const base = { merchantId: o.merchant_id, redirect: null as string | null, failed: null };
  const extra: Partial<repo.OrderRow> = {};
  if (opts.threedsData !== undefined) extra.threeds_data = opts.threedsData;
  switch (r.outcome) {
    case 'APPROVED': {
      await core.settleTx(trx, tx, 'APPROVED', { auth_code: r.authorization, processor_id: r.processorId, amount: r.amount }, now);
      const deferred = tx.operative === 'DEFERRED';
      if (tx.source_id) await core.deps.sources.markValidated(trx, tx.source_id, now, o.service_id);
      // the network transaction id of a stored credential, as the processor gave it (cof_txnid)
      if (r.cofTxnid) extra.cof_txnid = r.cofTxnid;
      const { presented } = await core.transition(trx, o, deferred ? 'DEFERRED_APPROVED' : 'PAYMENT_APPROVED', {
        ...extra,
        authorized: r.amount,
        captured: deferred ? 0 : r.amount,
        safe: opts.safe ?? o.safe,
      }, now);
      return { ...base, order: presented };
    }
    case 'DECLINED': {
      await core.settleTx(trx, tx, 'DECLINED', { error: r.error, error_details: r.details, processor_id: r.processorId }, now);
      return { ...base, order: (await core.transition(trx, o, declineEvent(r.error), extra, now)).presented };
    }
    case 'FAILED': {
      const declined = r.error === 'AUTHENTICATION_FAILED';
      await core.settleTx(trx, tx, declined ? 'DECLINED' : 'FAILED', { error: r.error, error_details: r.details }, now);
      return { ...base, order: (await core.transition(trx, o, declined ? 'PAYMENT_DECLINED' : 'PAYMENT_FAILED', extra, now)).presented };
    }
    case 'VOIDED': {
      await core.settleTx(trx, tx, 'VOIDED', { error_details: r.details }, now);
      return { ...base, order: core.present(o, await repo.transactionsOf(trx, o.id)) };
    }
    case 'CHALLENGE': {
      if (r.terminalAction) {
        // SCA on the terminal (card-present): this attempt is refused with what the terminal must do;
        // the terminal sends the payment again (sca.original_order_uuid), a new transaction on the order
        await core.settleTx(trx, tx, 'DECLINED', { error: 'DENIED', error_details: r.details, payment_data: JSON.stringify({ terminal_action: r.terminalAction }) }, now);
        return { ...base, order: (await core.transition(trx, o, 'SCA_REQUIRED', extra, now)).presented };
      }
      await repo.updateTransaction(trx, tx.id, { awaiting_3ds: true, updated_at: now });
      const { presented } = await core.transition(trx, o, 'THREEDS_REQUIRED', { threeds_data: challengeThreedsRecord('PENDING') }, now);
      return { ...base, order: presented, redirect: orderUrls(core.p.config.publicUrl, o.env, o.token)['3ds_tokenized'] };
    }
  }
}

/**
 * `deviceRefund`: a refund sent to a device (J7), answered before its outcome: a failure is notified
 * (url_post, the event log), since nobody is waiting for the answer, and a refund the terminal cancelled
 * or refused does not count for the retry rules (the processor refused nothing).
 * `afterAnswer`: decided after its answer (a processor's notification, the reconciler's lookup: a
 * follow-up the processor accepted and decided later, decisions §13, or one whose answer was lost):
 * nobody is waiting for the answer either, so a failure is notified the same way.
 */
async function settleFollowUp(core: PaymentsCore, trx: Tx, o: repo.LockedOrder, tx: repo.SettlingTx, state: RetryState, r: Settlement, now: Date, opts: { deviceRefund?: boolean; afterAnswer?: boolean } = {}): Promise<OrderResult> {
  const op = tx.operative as RetryOperation;
  const base = { merchantId: o.merchant_id, redirect: null, failed: null };
  const amount = Number(tx.amount);
  if (r.outcome === 'APPROVED') {
    await core.settleTx(trx, tx, 'APPROVED', { auth_code: r.authorization, processor_id: r.processorId }, now);
    // a success matters to the retry rules only after failures
    if (state.failures > 0) await repo.saveRetryState(trx, o.id, op, afterSuccess(state, now));
    let done;
    if (op === 'REFUND') {
      const refunded = Number(o.refunded) + amount;
      done = await core.transition(trx, o, refundEventFor({ captured: Number(o.captured) }, refunded), { refunded, refund_reserved: Number(o.refund_reserved) - amount }, now);
    } else if (op === 'CONFIRMATION') {
      done = await core.transition(trx, o, 'CONFIRMED', { captured: amount, busy_tx_id: null }, now);
    } else {
      done = await core.transition(trx, o, 'CANCELLED', { busy_tx_id: null }, now);
    }
    return { ...base, order: done.presented };
  }
  // The processor refused or failed: the transaction settles, the order keeps its status, the
  // reservation is released, and the failure counts for the retry rules.
  const error = r.outcome === 'DECLINED' || r.outcome === 'FAILED' ? r.error : 'PROCESSOR_ERROR';
  const details = 'details' in r ? r.details : 'failed';
  await core.settleTx(trx, tx, r.outcome === 'DECLINED' ? 'DECLINED' : 'FAILED', { error, error_details: details }, now);
  if (!opts.deviceRefund) await repo.saveRetryState(trx, o.id, op, afterFailure(state, now));
  const release: Partial<repo.OrderRow> = op === 'REFUND' ? { refund_reserved: Number(o.refund_reserved) - amount } : { busy_tx_id: null };
  await repo.updateOrder(trx, o.id, o.status, { ...release, updated_at: now });
  const next = { ...o, ...release, updated_at: now };
  const presented = core.present(next, await repo.transactionsOf(trx, o.id));
  if ((opts.deviceRefund || opts.afterAnswer) && o.url_post) await core.notify(trx, next, presented, now);
  return { ...base, order: presented, failed: `${FAILED_OPERATION[op]}: ${details}` };
}
