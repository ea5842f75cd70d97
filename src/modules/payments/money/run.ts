/**
 * Step 2 of every money step, and the only place the connector is called between step 1 (the PENDING
 * transaction committed) and the settle: outside any database transaction. Then step 3, the settle
 * (operations/settle.ts, or the optimistic writer's one statement).
 */
import type { ApmPaymentRequest, ApmPayoutRequest, Connector, FollowUpRequest, PaymentRequest, ProcessorOperation, ProcessorResult } from '../../../processors/index.js';
import type { OrderResult, PaymentsCore } from '../core.js';
import { settle } from '../operations/settle.js';

export type MoneyRequest = PaymentRequest | FollowUpRequest | ApmPaymentRequest | ApmPayoutRequest;

/** Calls the connector operation `op`. */
export async function callProcessor(connector: Connector, op: ProcessorOperation, request: PaymentRequest | FollowUpRequest | ApmPaymentRequest | ApmPayoutRequest): Promise<ProcessorResult> {
  switch (op) {
    case 'authorize':
      return connector.authorize(request as PaymentRequest);
    case 'partialAuthorize':
      return connector.partialAuthorize(request as PaymentRequest);
    case 'preauthorize':
      return connector.preauthorize(request as PaymentRequest);
    case 'payout':
      return connector.payout(request as PaymentRequest);
    case 'capture':
      return connector.capture(request as FollowUpRequest);
    case 'cancel':
      return connector.cancel(request as FollowUpRequest);
    case 'refund':
      return connector.refund(request as FollowUpRequest);
    case 'apmPayment':
      if (!connector.apmPayment) throw new Error(`connector ${connector.name} has no APM payments`);
      return connector.apmPayment(request as ApmPaymentRequest);
    case 'apmPayout':
      if (!connector.apmPayout) throw new Error(`connector ${connector.name} has no APM payouts`);
      return connector.apmPayout(request as ApmPayoutRequest);
    default:
      throw new Error(`not a money operation: ${op}`);
  }
}

/** A started step (its PENDING transaction committed): the processor, then the ordinary settle. */
export async function callAndSettle(
  core: PaymentsCore,
  s: { orderId: string; txId: string; op: ProcessorOperation; connector: Connector; request: MoneyRequest },
  opts: Parameters<typeof settle>[4] = {},
): Promise<OrderResult> {
  const result = await callProcessor(s.connector, s.op, s.request);
  return settle(core, s.orderId, s.txId, result, opts);
}
