/**
 * Step 3 of every money step, planned once: from the order, its PENDING transaction, the retry state
 * and the processor's answer (or another settlement), what the transaction becomes, whether the stored
 * card is marked used, the retry state to write, the order's event of the transition table (or the
 * columns a failed follow-up releases), whether a notification goes, and the answer's redirect or
 * failure. Pure: the locked writer (write-locked.ts) and the optimistic one (write-optimistic.ts) carry
 * out the same plan.
 */
import type { ProcessorResult } from '../../../processors/index.js';
import { declineEvent, orderTransition, type OrderEvent, type TxEvent } from '../order-states.js';
import { afterFailure, afterSuccess, challengeThreedsRecord, orderUrls, refundEventFor, type RetryOperation, type RetryState } from '../payments.domain.js';
import type * as repo from '../payments.repo.js';
import type { RoutedAttempt, Settlement } from '../core.js';
import { readRoutingNext, routedOrderSet } from './plan-payment.js';

/** A processor failure that the merchant sees as HTTP 402 "Failed". */
const FAILED_OPERATION: Record<string, string> = {
  CONFIRMATION: 'The processor refused the confirmation',
  CANCELLATION: 'The processor refused the cancellation',
  REFUND: 'The processor refused the refund',
};

export interface SettleOptions {
  safe?: boolean;
  threedsData?: unknown;
  /** A refund sent to a device (J7), answered before its outcome (operations/device-refund.ts). */
  deviceRefund?: boolean;
  /** Decided after its answer (a processor's notification, the reconciler's lookup). */
  afterAnswer?: boolean;
  /**
   * Cascading (routing): a payment attempt that failed in a way the retry table allows is tried on the
   * next fallback its transaction keeps, as a new transaction of the same order (`txId`). Only the
   * runner of a payment's first call passes it: a lookup, a notification or a 3-D Secure continuation
   * never cascades.
   */
  cascade?: { allowed: (failure: { error: string; notSent: boolean }) => boolean; txId: string; realNow: Date };
}

/** The next attempt of a cascade: a new PENDING transaction of the order on the next service. */
export interface CascadePlan {
  txId: string;
  attempt: RoutedAttempt;
  /** Its number (2: the first fallback). */
  number: number;
  /** The fallbacks left after it. */
  rest: RoutedAttempt[];
  realNow: Date;
}

export type TxChange =
  /** The transaction settles through the transaction table, with these columns. */
  | { kind: 'settle'; event: TxEvent; set: Partial<repo.TxRow> & { payment_data?: string | null } }
  /** A 3-D Secure challenge: the transaction waits for the cardholder (not settled). */
  | { kind: 'await3ds' };

export type SettlePlan =
  /**
   * Nothing to settle (the transaction was settled already, or the answer decides nothing): the answer
   * is the order as it is; `processorId`: the provider's id of an accepted, undecided follow-up, recorded.
   */
  | { kind: 'keep'; processorId: string | null }
  | {
      kind: 'write';
      tx: TxChange;
      /** The stored card the approved payment used, marked used (sources). */
      markCard: string | null;
      /** The operation's retry state to write (follow-ups), or null. */
      retry: { op: RetryOperation; state: RetryState } | null;
      /**
       * The order: an event of the transition table with these columns, or (event null) its status kept
       * with these columns, or null: the order is not written.
       */
      order: { event: OrderEvent | null; set: Partial<repo.OrderRow> } | null;
      /** A notification goes to url_post though the order's status does not change (a failure nobody waits for). */
      notifyFailure: boolean;
      redirect: string | null;
      failed: string | null;
      /** Cascading: the next attempt to start (the order keeps waiting for its processor). */
      cascade?: CascadePlan;
    };

type SettlingTx = repo.SettlingTx;

/**
 * The plan of step 3. `o`: the order as the writer read it; `tx`: its transaction; `state`: the retry
 * state of the transaction's operation (follow-ups).
 */
export function planSettle(o: repo.LockedOrder, tx: SettlingTx, state: RetryState, result: ProcessorResult | Settlement, opts: SettleOptions, publicUrl: string, now: Date): SettlePlan {
  const accepted = tx.status === 'PENDING' && result.outcome === 'PENDING' && result.processorId ? result.processorId : null;
  const cascade = cascadeOf(o, tx, result, opts);
  if (cascade) return cascade;
  if (tx.status !== 'PENDING' || result.outcome === 'UNKNOWN' || result.outcome === 'PENDING' || (tx.awaiting_3ds && result.outcome !== 'VOIDED' && result.outcome !== 'FAILED')) {
    return { kind: 'keep', processorId: accepted };
  }
  switch (tx.operative) {
    case 'AUTHORIZATION':
    case 'DEFERRED':
    case 'PAYOUT':
    case 'TRANSFER':
      return planPayment(o, tx, result as Settlement, opts, publicUrl);
    default:
      return planFollowUpSettle(o, tx, state, result as Settlement, opts, now);
  }
}

/**
 * A payment attempt that failed before any money could move, tried again on the next fallback: a
 * definitive decline or failure the retry table allows, or a request that never reached the provider
 * (`notSent`). Never an UNKNOWN that was sent (it is reconciled first), never a 3-D Secure wait, never
 * without a fallback left. The attempt settles REFUSED (or ERROR when not sent) and the order moves to
 * the next service, still waiting for its processor.
 */
function cascadeOf(o: repo.LockedOrder, tx: SettlingTx, result: ProcessorResult | Settlement, opts: SettleOptions): SettlePlan | null {
  if (!opts.cascade || tx.status !== 'PENDING' || tx.awaiting_3ds || !PAYMENT_OPERATIVES_CASCADING.has(tx.operative)) return null;
  const left = readRoutingNext(tx.routing_next);
  if (!left) return null;
  let failure: { error: Exclude<repo.TxRow['error'], 'NONE'>; details: string; notSent: boolean; declined: boolean };
  if (result.outcome === 'DECLINED') failure = { error: result.error, details: result.details, notSent: false, declined: true };
  else if (result.outcome === 'FAILED' && result.error !== 'TIMEOUT') failure = { error: result.error, details: result.details, notSent: false, declined: result.error === 'AUTHENTICATION_FAILED' };
  else if (result.outcome === 'UNKNOWN' && result.notSent) failure = { error: 'PROCESSOR_ERROR', details: `not sent: ${result.details}`, notSent: true, declined: false };
  else return null;
  if (!opts.cascade.allowed({ error: failure.error, notSent: failure.notSent })) return null;
  const [attempt, ...rest] = left.next;
  return write(
    { kind: 'settle', event: failure.declined ? 'DECLINED' : 'FAILED', set: { error: failure.error, error_details: failure.details, ...(result.outcome === 'DECLINED' ? { processor_id: result.processorId } : {}) } },
    { event: null, set: routedOrderSet(o, attempt) },
    { cascade: { txId: opts.cascade.txId, attempt, number: left.attempt + 1, rest, realNow: opts.cascade.realNow } },
  );
}

/** The operatives of a payment attempt that may cascade (not payouts). */
const PAYMENT_OPERATIVES_CASCADING: ReadonlySet<string> = new Set(['AUTHORIZATION', 'DEFERRED']);

const write = (tx: TxChange, order: { event: OrderEvent | null; set: Partial<repo.OrderRow> } | null, more: Partial<Extract<SettlePlan, { kind: 'write' }>> = {}): SettlePlan => ({
  kind: 'write', tx, markCard: null, retry: null, order, notifyFailure: false, redirect: null, failed: null, ...more,
});

function planPayment(o: repo.LockedOrder, tx: SettlingTx, r: Settlement, opts: SettleOptions, publicUrl: string): SettlePlan {
  const extra: Partial<repo.OrderRow> = {};
  if (opts.threedsData !== undefined) extra.threeds_data = opts.threedsData;
  switch (r.outcome) {
    case 'APPROVED': {
      const deferred = tx.operative === 'DEFERRED';
      // the network transaction id of a stored credential, as the processor gave it (cof_txnid)
      if (r.cofTxnid) extra.cof_txnid = r.cofTxnid;
      return write(
        { kind: 'settle', event: 'APPROVED', set: { auth_code: r.authorization, processor_id: r.processorId, amount: r.amount } },
        { event: deferred ? 'DEFERRED_APPROVED' : 'PAYMENT_APPROVED', set: { ...extra, authorized: r.amount, captured: deferred ? 0 : r.amount, safe: opts.safe ?? o.safe } },
        { markCard: tx.source_id },
      );
    }
    case 'DECLINED':
      return write({ kind: 'settle', event: 'DECLINED', set: { error: r.error, error_details: r.details, processor_id: r.processorId } }, { event: declineEvent(r.error), set: extra });
    case 'FAILED': {
      const declined = r.error === 'AUTHENTICATION_FAILED';
      return write(
        { kind: 'settle', event: declined ? 'DECLINED' : 'FAILED', set: { error: r.error, error_details: r.details } },
        { event: declined ? 'PAYMENT_DECLINED' : 'PAYMENT_FAILED', set: extra },
      );
    }
    case 'VOIDED':
      return write({ kind: 'settle', event: 'VOIDED', set: { error_details: r.details } }, null);
    case 'CHALLENGE':
      if (r.terminalAction) {
        // SCA on the terminal (card-present): this attempt is refused with what the terminal must do;
        // the terminal sends the payment again (sca.original_order_uuid), a new transaction on the order
        return write(
          { kind: 'settle', event: 'DECLINED', set: { error: 'DENIED', error_details: r.details, payment_data: JSON.stringify({ terminal_action: r.terminalAction }) } },
          { event: 'SCA_REQUIRED', set: extra },
        );
      }
      return write({ kind: 'await3ds' }, { event: 'THREEDS_REQUIRED', set: { threeds_data: challengeThreedsRecord('PENDING') } }, {
        redirect: orderUrls(publicUrl, o.env, o.token)['3ds_tokenized'],
      });
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
function planFollowUpSettle(o: repo.LockedOrder, tx: SettlingTx, state: RetryState, r: Settlement, opts: SettleOptions, now: Date): SettlePlan {
  const op = tx.operative as RetryOperation;
  const amount = Number(tx.amount);
  if (r.outcome === 'APPROVED') {
    // a success matters to the retry rules only after failures
    const retry = state.failures > 0 ? { op, state: afterSuccess(state, now) } : null;
    const settled: TxChange = { kind: 'settle', event: 'APPROVED', set: { auth_code: r.authorization, processor_id: r.processorId } };
    if (op === 'REFUND') {
      const refunded = Number(o.refunded) + amount;
      return write(settled, { event: refundEventFor({ captured: Number(o.captured) }, refunded), set: { refunded, refund_reserved: Number(o.refund_reserved) - amount } }, { retry });
    }
    if (op === 'CONFIRMATION') return write(settled, { event: 'CONFIRMED', set: { captured: amount, busy_tx_id: null } }, { retry });
    return write(settled, { event: 'CANCELLED', set: { busy_tx_id: null } }, { retry });
  }
  // The processor refused or failed: the transaction settles, the order keeps its status, the
  // reservation is released, and the failure counts for the retry rules.
  const error = r.outcome === 'DECLINED' || r.outcome === 'FAILED' ? r.error : 'PROCESSOR_ERROR';
  const details = 'details' in r ? r.details : 'failed';
  const release: Partial<repo.OrderRow> = op === 'REFUND' ? { refund_reserved: Number(o.refund_reserved) - amount } : { busy_tx_id: null };
  return write(
    { kind: 'settle', event: r.outcome === 'DECLINED' ? 'DECLINED' : 'FAILED', set: { error, error_details: details } },
    { event: null, set: release },
    {
      retry: opts.deviceRefund ? null : { op, state: afterFailure(state, now) },
      notifyFailure: !!(opts.deviceRefund || opts.afterAnswer) && !!o.url_post,
      failed: `${FAILED_OPERATION[op]}: ${details}`,
    },
  );
}

/** The order once a plan's order change is applied (what core.transition writes), and whether the table notifies. */
export function orderAfter(o: repo.LockedOrder, order: { event: OrderEvent | null; set: Partial<repo.OrderRow> }, now: Date): { next: repo.LockedOrder; notify: boolean } {
  if (order.event === null) return { next: { ...o, ...order.set, updated_at: now }, notify: false };
  const t = orderTransition(o.status, order.event);
  return { next: { ...o, ...order.set, status: t.to, paid: t.paid ?? o.paid, updated_at: now }, notify: t.notify && !!o.url_post };
}
