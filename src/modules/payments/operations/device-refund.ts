/**
 * J7 on a simulated device: a refund sent to a terminal, which acts on it later. It is judged and its
 * amount reserved when it is sent (decisions §4: more than the refundable remainder is 400 and changes
 * nothing), as a PENDING REFUND transaction that holds its amount in `refund_reserved`, so refunds sent
 * one after another never overtake each other's amounts ("the rest" is the rest when it is sent). The
 * terminal's outcome then settles that transaction: refunded (the processor is asked, as any refund),
 * or cancelled or refused on the terminal (declined, the reservation released, the retry rules untouched),
 * and every outcome is notified (url_post, the event log) and shows on the order.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, notFound } from '../../../platform/errors/errors.js';
import type { Tx } from '../../../platform/db/database.js';
import { IdempotencyStore } from '../../../platform/http/idempotency.js';
import type { RequestContext } from '../../../platform/http/types.js';
import type { FollowUpRequest } from '../../../processors/index.js';
import { checkRefund } from '../payments.domain.js';
import * as repo from '../payments.repo.js';
import * as sweeps from '../sweeps.repo.js';
import type { OrderResult, PaymentsCore } from '../core.js';
import { amountsOf, unwrap } from './input.js';
import { settle } from './settle.js';
import { callProcessor } from '../money/run.js';

/** Until the terminal acts, the reconciler leaves the refund alone (no processor has it yet). */
const UNTIL_THE_TERMINAL_ACTS_MS = 30 * 86_400_000;

export interface ReservedRefund {
  /** The PENDING REFUND transaction. */
  txId: string;
  /** Its amount: the one asked for, or what was left to refund when it was sent. */
  amount: number;
  result: OrderResult;
}

/**
 * Judges a refund sent to a device and reserves its amount, in one transaction with `within` (the
 * devices module records its refund there). 400 when the order cannot be refunded by that much.
 */
export async function reserveDeviceRefund(
  core: PaymentsCore,
  ctx: RequestContext,
  orderId: string,
  requested: number | null,
  within: (trx: Tx, r: { txId: string; amount: number }) => Promise<void>,
): Promise<ReservedRefund> {
  return core.db.transaction(async (trx) => {
    const o = await repo.lockOrderForFollowUp(trx, orderId, ctx.merchant.id, 'REFUND');
    if (!o || o.env !== ctx.env) throw notFound(`The order ${orderId} was not found`);
    const amount = unwrap(checkRefund(amountsOf(o), requested));
    const original = o.payment;
    if (!original) throw badRequest('The order has no approved payment');
    const now = core.now(o);
    const realNow = core.p.clock.now();
    const txId = randomUUID();
    await repo.insertTransaction(trx, {
      id: txId, order_id: o.id, merchant_id: o.merchant_id, operative: 'REFUND', processor_operation: 'refund',
      amount, status: 'PENDING', error: 'NONE', auth_code: '', processor_id: null,
      source_id: original.source_id, source_json: original.source_json, antifraud: null, device: null, error_details: null,
      customer_ip: null, awaiting_3ds: false, metadata: null,
      created_at: now, updated_at: now, started_at: realNow, reconcile_after: new Date(realNow.getTime() + UNTIL_THE_TERMINAL_ACTS_MS),
    });
    const refundReserved = Number(o.refund_reserved) + amount;
    await repo.updateOrder(trx, o.id, o.status, { refund_reserved: refundReserved, updated_at: now });
    await within(trx, { txId, amount });
    await IdempotencyStore.commit(trx, ctx, o.id);
    const next = { ...o, refund_reserved: refundReserved, updated_at: now };
    return { txId, amount, result: { order: core.present(next, await repo.transactionsOf(trx, o.id)), merchantId: o.merchant_id, redirect: null, failed: null } };
  });
}

/**
 * What the terminal did with a refund reserved by `reserveDeviceRefund`: refunded (the processor is asked
 * now; from here a crash leaves the transaction to the reconciler, which asks the processor), or
 * cancelled or refused on the terminal. Settling is idempotent: a transaction already settled is left.
 */
export async function finishDeviceRefund(core: PaymentsCore, ctx: RequestContext, orderId: string, txId: string, outcome: { kind: 'REFUND' } | { kind: 'CANCELLED' | 'REFUSED'; details: string }): Promise<OrderResult> {
  if (outcome.kind !== 'REFUND') {
    return settle(core, orderId, txId, { outcome: 'DECLINED', error: 'DENIED', details: outcome.details, processorId: null }, { deviceRefund: true });
  }
  const started = await core.db.transaction(async (trx) => {
    const o = await repo.lockOrderForFollowUp(trx, orderId, ctx.merchant.id, 'REFUND');
    if (!o || o.env !== ctx.env) throw notFound(`The order ${orderId} was not found`);
    const tx = await repo.findTransaction(trx, txId);
    if (!tx || tx.order_id !== o.id || tx.status !== 'PENDING' || !o.payment) return null;
    // the processor is about to be asked: from now on the reconciler may settle it
    await sweeps.reconcileNow(trx, txId, core.p.clock.now());
    const request: FollowUpRequest = {
      reference: txId, terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id }, now: core.now(o), amount: Number(tx.amount), currency: o.currency,
      original: { reference: o.payment.id, processorId: o.payment.processor_id, authorization: o.payment.auth_code },
    };
    return { connector: core.deps.processors.forService(o.service_type, o.env), request };
  });
  if (started) {
    const result = await callProcessor(started.connector, 'refund', started.request);
    return settle(core, orderId, txId, result, { deviceRefund: true });
  }
  const db = core.db.db;
  const o = await repo.findOrder(db, orderId);
  if (!o) throw notFound(`The order ${orderId} was not found`);
  return { order: core.present(o, await repo.transactionsOf(db, orderId)), merchantId: o.merchant_id, redirect: null, failed: null };
}
