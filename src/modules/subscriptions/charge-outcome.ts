/** The outcome of one subscription charge, read from the order the payments module answers with (pure). */
import type { PresentedOrder } from '../payments/index.js';
import type { PaymentEvent } from './subscription-states.js';

/** The outcome of one charge: what the payments module answered, or why it could not be asked. */
export interface ChargeOutcome {
  event: PaymentEvent;
  order: PresentedOrder | null;
  error: string | null;
}
export function hasPending(o: PresentedOrder): boolean {
  return (o.transactions ?? []).some((t: { status?: string }) => t.status === 'PENDING');
}

/**
 * A charge whose attempts failed on our side (transaction ERROR: the processor was not reached, timed
 * out, or a crash cut the attempt short) is paid again on the same order, up to this many times, before
 * it counts as a failed attempt of the subscription: the card was not declined.
 */
const ERROR_RETRIES = 3;

function lastTx(o: PresentedOrder): { status?: string } | undefined {
  const txs = (o.transactions ?? []) as Array<{ status?: string }>;
  return txs[txs.length - 1];
}

/** The order was charged (the payments module reads an order and its transactions in one snapshot). */
export function isPaid(o: PresentedOrder): boolean {
  return o.paid;
}

export function retryableError(o: PresentedOrder): boolean {
  return !isPaid(o) && lastTx(o)?.status === 'ERROR' && (o.transactions ?? []).length < ERROR_RETRIES;
}

/** The outcome an order already shows (a repeated run), or null when it is to be paid (again). */
export function decidedBy(o: PresentedOrder): ChargeOutcome | null {
  if (isPaid(o)) return { event: 'APPROVED', order: o, error: null };
  const txs = (o.transactions ?? []) as Array<{ status?: string }>;
  if (txs.length === 0 || hasPending(o) || retryableError(o)) return null;
  return { event: 'DECLINED', order: o, error: 'The payment was declined' };
}
