/**
 * B8 cancellation, B9 confirmation, B12 refund: operations on an approved payment, with the amount rules
 * of decisions §4 and the retry rules of api.md Limits. Each gives its amount rules; the step is planned by
 * money/plan-follow-up.ts and run by money/run.ts.
 */
import { badRequest } from '../../../platform/errors/errors.js';
import type { RequestContext } from '../../../platform/http/types.js';
import {
  checkCancellation,
  checkConfirmation,
  checkMarketplaceRefunds,
  checkRefund,
  type RetryOperation,
} from '../payments.domain.js';
import type * as repo from '../payments.repo.js';
import type { OrderResult, PaymentsCore } from '../core.js';
import { amountsOf, unwrap } from './input.js';
import { runFollowUp } from '../money/run.js';

function followUp(core: PaymentsCore, ctx: RequestContext, orderId: string, op: RetryOperation, decide: (o: repo.LockedOrder) => number, extra?: { extraData?: unknown }): Promise<OrderResult> {
  return runFollowUp(core, ctx, orderId, op, decide, extra);
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
