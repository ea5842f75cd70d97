/**
 * Step 1 of a confirmation (B9), cancellation (B8) or refund (B12), planned once: the guards (amount
 * rules of the caller's `decide`, one confirmation or cancellation at a time, the retry rules, an
 * approved payment to act on), the PENDING transaction, the order's change (refund reservation or busy
 * transaction) and the processor request. Pure: both writers (write-optimistic.ts, write-locked.ts)
 * carry out the same plan, made from the order they read.
 */
import { ApiError, badRequest, conflict, tooManyRequests } from '../../../platform/errors/errors.js';
import type { FollowUpRequest, ProcessorOperation } from '../../../processors/index.js';
import { retryWaitSeconds, type RetryOperation, type TxOperative } from '../payments.domain.js';
import type * as repo from '../payments.repo.js';

export interface FollowUpPlan {
  op: RetryOperation;
  processorOp: ProcessorOperation;
  amount: number;
  /** The PENDING transaction to insert. */
  tx: repo.TxRow;
  /** What step 1 changes on the order (its status is kept). */
  order: { refundReserved: number; busyTxId: string | null; updatedAt: Date };
  /** The order once step 1 is written. */
  after: repo.LockedOrder;
  /** The processor request (step 2). */
  request: FollowUpRequest;
  /** The retry state of the operation when the order was read (its settle writes it after failures). */
  retry: repo.FollowUpOrder['retry'];
}

/** The amount of the operation, or throws the contract error (the amount rules of each operation). */
export type Decide = (o: repo.LockedOrder) => number;

export interface FollowUpIds {
  txId: string;
  /** The order's merchant clock. */
  now: Date;
  /** The server's clock (started_at). */
  realNow: Date;
}

export function processorOperationOf(op: RetryOperation): ProcessorOperation {
  return op === 'REFUND' ? 'refund' : op === 'CONFIRMATION' ? 'capture' : 'cancel';
}

/** The plan of step 1, or the contract error the guards give. */
export function planFollowUp(o: repo.FollowUpOrder, op: RetryOperation, decide: Decide, extra: { extraData?: unknown } | undefined, ids: FollowUpIds): FollowUpPlan | { error: ApiError } {
  let amount: number;
  try {
    amount = decide(o);
  } catch (err) {
    if (err instanceof ApiError) return { error: err };
    throw err;
  }
  if (op !== 'REFUND' && o.busy_tx_id) return { error: conflict('Another confirmation or cancellation of this order is in progress') };
  const wait = retryWaitSeconds(o.retry, ids.now, o.m_timezone);
  if (wait > 0) return { error: tooManyRequests(`${op} of this order failed recently; the retry rules allow the next attempt in ${wait} s`, wait) };
  const original = o.payment;
  if (!original) return { error: badRequest('The order has no approved payment') };
  const processorOp = processorOperationOf(op);
  const { now } = ids;
  const refund = op === 'REFUND';
  const order = {
    refundReserved: Number(o.refund_reserved) + (refund ? amount : 0),
    busyTxId: refund ? o.busy_tx_id : ids.txId,
    updatedAt: now,
  };
  const { retry: _r, payment: _p, ...locked } = o;
  return {
    op,
    processorOp,
    amount,
    tx: {
      id: ids.txId, order_id: o.id, merchant_id: o.merchant_id, operative: op as TxOperative, processor_operation: processorOp,
      amount, status: 'PENDING', error: 'NONE', auth_code: '', processor_id: null,
      source_id: original.source_id, source_json: original.source_json, antifraud: null, device: null, error_details: null,
      customer_ip: null, awaiting_3ds: false, metadata: extra?.extraData ? { extra_data: extra.extraData } : null,
      created_at: now, updated_at: now, started_at: ids.realNow,
    } as repo.TxRow,
    order,
    after: { ...(locked as repo.LockedOrder), refund_reserved: order.refundReserved, busy_tx_id: order.busyTxId, updated_at: now },
    request: {
      reference: ids.txId, terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id }, now, amount, currency: o.currency,
      original: { reference: original.id, processorId: original.processor_id, authorization: original.auth_code },
    },
    retry: o.retry,
  };
}
