/**
 * B8 cancellation, B9 confirmation, B12 refund: operations on an approved payment, with the amount rules
 * of decisions §4 and the retry rules of api.md Limits.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, notFound, tooManyRequests } from '../../../platform/errors/errors.js';
import type { RequestContext } from '../../../platform/http/types.js';
import type { FollowUpRequest, ProcessorOperation } from '../../../processors/index.js';
import {
  checkCancellation,
  checkConfirmation,
  checkMarketplaceRefunds,
  checkRefund,
  retryWaitSeconds,
  type RetryOperation,
  type TxOperative,
} from '../payments.domain.js';
import * as repo from '../payments.repo.js';
import type { OrderResult, PaymentsCore } from '../core.js';
import { amountsOf, unwrap } from './input.js';
import { IdempotencyStore } from '../../../platform/http/idempotency.js';
import { fastFollowUp } from './fast.js';
import { settle } from './settle.js';
import { callProcessor } from '../money/run.js';

/** Step 1 of a confirmation, cancellation or refund: checks, retry rules, PENDING transaction, reservation. */
async function startFollowUp(core: PaymentsCore, ctx: RequestContext, orderId: string, op: RetryOperation, decide: (o: repo.LockedOrder) => number, extra?: { extraData?: unknown }) {
  return core.db.transaction(async (trx) => {
    const o = await repo.lockOrderForFollowUp(trx, orderId, ctx.merchant.id, op);
    if (!o || o.env !== ctx.env) throw notFound(`The order ${orderId} was not found`);
    const now = core.now(o);
    const amount = decide(o);
    if (op !== 'REFUND' && o.busy_tx_id) throw conflict('Another confirmation or cancellation of this order is in progress');
    const wait = retryWaitSeconds(o.retry, now, o.m_timezone);
    if (wait > 0) throw tooManyRequests(`${op} of this order failed recently; the retry rules allow the next attempt in ${wait} s`, wait);
    const original = o.payment;
    if (!original) throw badRequest('The order has no approved payment');
    const connector = core.deps.processors.forService(o.service_type, o.env);
    const txId = randomUUID();
    const processorOp: ProcessorOperation = op === 'REFUND' ? 'refund' : op === 'CONFIRMATION' ? 'capture' : 'cancel';
    await repo.insertTransaction(trx, {
      id: txId, order_id: o.id, merchant_id: o.merchant_id, operative: op as TxOperative, processor_operation: processorOp,
      amount, status: 'PENDING', error: 'NONE', auth_code: '', processor_id: null,
      source_id: original.source_id, source_json: original.source_json, antifraud: null, device: null, error_details: null,
      customer_ip: null, awaiting_3ds: false, metadata: extra?.extraData ? { extra_data: extra.extraData } : null,
      created_at: now, updated_at: now, started_at: core.p.clock.now(),
    });
    if (op === 'REFUND') await repo.updateOrder(trx, o.id, o.status, { refund_reserved: Number(o.refund_reserved) + amount, updated_at: now });
    else await repo.updateOrder(trx, o.id, o.status, { busy_tx_id: txId, updated_at: now });
    // the request's key is never run again once this commits (its answer may be lost after the call)
    await IdempotencyStore.commit(trx, ctx, o.id);
    const request: FollowUpRequest = {
      reference: txId, terminal: { serviceType: o.service_type, terminalId: null, serviceId: o.service_id }, now, amount, currency: o.currency,
      original: { reference: original.id, processorId: original.processor_id, authorization: original.auth_code },
    };
    return { orderId: o.id, txId, processorOp, connector, request };
  });
}

async function followUp(core: PaymentsCore, ctx: RequestContext, orderId: string, op: RetryOperation, decide: (o: repo.LockedOrder) => number, extra?: { extraData?: unknown }): Promise<OrderResult> {
  const quick = await fastFollowUp(core, ctx, orderId, op, decide, extra);
  if (quick) return quick;
  const s = await startFollowUp(core, ctx, orderId, op, decide, extra);
  const result = await callProcessor(s.connector, s.processorOp, s.request);
  return settle(core, s.orderId, s.txId, result);
}

/** B9: captures the held amount (or part of it, where the service supports it). */
export function confirm(core: PaymentsCore, ctx: RequestContext, input: { order_uuid: string; amount?: number | null }): Promise<OrderResult> {
  return followUp(core, ctx, input.order_uuid, 'CONFIRMATION', (o) =>
    unwrap(checkConfirmation(amountsOf(o), input.amount, core.deps.processors.supportsPartialCapture(o.service_type))),
  );
}

/** B8: releases the held amount. */
export function cancel(core: PaymentsCore, ctx: RequestContext, input: { order_uuid: string }): Promise<OrderResult> {
  return followUp(core, ctx, input.order_uuid, 'CANCELLATION', (o) => unwrap(checkCancellation(amountsOf(o))));
}

/** B12: full or partial refund; marketplace refunds checked. */
export function refund(core: PaymentsCore, ctx: RequestContext, input: { order_uuid: string; amount?: number | null; extra_data?: Record<string, unknown> | null }): Promise<OrderResult> {
  const marketplace = input.extra_data?.marketplace_refunds;
  return followUp(
    core,
    ctx,
    input.order_uuid,
    'REFUND',
    (o) => {
      const amount = unwrap(checkRefund(amountsOf(o), input.amount));
      const problem = checkMarketplaceRefunds(marketplace, amount);
      if (problem) throw badRequest(problem);
      return amount;
    },
    marketplace ? { extraData: { marketplace_refunds: marketplace } } : undefined,
  );
}
