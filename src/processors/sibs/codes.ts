/**
 * SIBS Gateway answers (pure) → our transaction `error` (decisions §4). SIBS answers every operation
 * with `returnStatus` {statusCode, statusMsg, statusDescription} ("000": the request was processed)
 * and, for payments, `paymentStatus`: Success, Declined, Pending (waiting: an MB WAY request on the
 * customer's phone) or Expired (the MB WAY request or reference was not paid in time).
 * A declined payment's reason is in its `returnStatus`; SIBS publishes no table of issuer codes, so a
 * decline is DENIED with SIBS's words in error_details, and the few codes below are mapped by meaning.
 */
import type { TxError } from '../connector.js';

export interface Refusal {
  error: Exclude<TxError, 'NONE'>;
  details: string;
}

/** `returnStatus.statusCode` of a processed request. */
export const SUCCESS_CODE = '000';

/** Every `paymentStatus` the connector reads. */
export const PAYMENT_STATUSES = ['Success', 'Declined', 'Pending', 'Expired'] as const;

const CODES: Record<string, Refusal> = {
  // an MB WAY request the customer's phone does not know (no MB WAY account for the number)
  E0507: { error: 'INVALID_CARD', details: 'MB WAY payment could not be authorised (no MB WAY account for the phone)' },
};

/** SIBS's words, short enough to keep. */
const words = (s: string | null | undefined, fallback: string) => (s && s.length <= 200 ? s : fallback);

/** What a refused answer means for us: `statusCode` and the words SIBS gave. */
export function refusalOf(code: string | null, description?: string | null, paymentStatus?: string | null): Refusal {
  const c = code ?? 'none';
  if (paymentStatus === 'Expired') return { error: 'DENIED', details: `SIBS ${c}: ${words(description, 'the payment request expired unpaid')}` };
  const known = code ? CODES[code] : undefined;
  if (known) return { error: known.error, details: `SIBS ${c}: ${words(description, known.details)}` };
  if (paymentStatus === 'Declined') return { error: 'DENIED', details: `SIBS ${c}: ${words(description, 'Declined')}` };
  return { error: 'PROCESSOR_ERROR', details: `SIBS ${c}: ${words(description, 'Not processed')}` };
}
