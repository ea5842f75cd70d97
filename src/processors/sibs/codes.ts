/**
 * SIBS Gateway answers (pure) → our transaction `error` (decisions §4). SIBS answers every operation
 * with `returnStatus` {statusCode, statusMsg, statusDescription} and, for payments, `paymentStatus`.
 *
 * What SIBS publishes (spec.ts, [DOCS]):
 *  - `statusCode` "000": the request was processed (which says nothing of the payment: a Declined
 *    payment is "000" too); codes starting with E (E0101: an invalid request) refuse the request; T
 *    codes (T9999, with HTTP 503) are a temporary condition of SIBS's.
 *  - The result codes of the checkout (12.110.12xx) and of the payment request (12.110.13xx): the
 *    merchant's parameters or missing data, or SIBS's internal error ("try again later").
 *  - The families of the newer status model: 00.110.16xx pending (awaiting an external confirmation: the
 *    MB WAY phone), 10.106.xxxx declined at business level (funds, authentication, the customer).
 *  - `paymentStatus`: Success, Declined, Pending, Expired (the models), and of a card transaction In
 *    processing, Partial (an action pending: 3-D Secure), Timeout (a possible communication error),
 *    Error (declined by an external system) (inputs and outputs of cards).
 * SIBS publishes no table of the issuers' reasons (insufficient funds, expired card...) behind a
 * Declined payment: a decline is DENIED with SIBS's words in error_details, and the codes below are
 * mapped by what SIBS says they mean.
 */
import type { TxError } from '../connector.js';

export interface Refusal {
  error: Exclude<TxError, 'NONE'>;
  details: string;
}

/** `returnStatus.statusCode` of a processed request. */
export const SUCCESS_CODE = '000';

/** A payment's status as the connector reads it: SIBS's `paymentStatus` without case or spaces. */
export type SibsStatus = 'success' | 'declined' | 'pending' | 'expired' | 'partial' | 'inprocessing' | 'timeout' | 'error';

const STATUSES = new Set<SibsStatus>(['success', 'declined', 'pending', 'expired', 'partial', 'inprocessing', 'timeout', 'error']);

/** A `paymentStatus` ("Success", "PARTIAL", "In processing"...) as the connector reads it; null when unknown. */
export function statusOf(v: unknown): SibsStatus | null {
  if (typeof v !== 'string') return null;
  const s = v.replace(/[\s_-]+/g, '').toLowerCase();
  return STATUSES.has(s as SibsStatus) ? (s as SibsStatus) : null;
}

const MERCHANT = 'the request\'s parameters or data were refused by SIBS (amount, expiry, token, terminal)';
const INTERNAL = 'SIBS internal error: try again later';

const CODES: Record<string, Refusal> = {
  // an MB WAY request the customer's phone does not know (no MB WAY account for the number): [SPG]
  E0507: { error: 'INVALID_CARD', details: 'MB WAY payment could not be authorised (no MB WAY account for the phone)' },
  // [DOCS] result codes: the checkout request
  '12.110.1201': { error: 'PROCESSOR_ERROR', details: MERCHANT },
  '12.110.1202': { error: 'PROCESSOR_ERROR', details: 'wrong parameters or missing data in the checkout' },
  '12.110.1203': { error: 'PROCESSOR_ERROR', details: INTERNAL },
  '12.110.1204': { error: 'PROCESSOR_ERROR', details: INTERNAL },
  '12.110.1205': { error: 'PROCESSOR_ERROR', details: INTERNAL },
  '12.110.1206': { error: 'PROCESSOR_ERROR', details: INTERNAL },
  // [DOCS] result codes: the payment request
  '12.110.1301': { error: 'PROCESSOR_ERROR', details: 'wrong parameters or missing data in the payment (the checkout\'s signature, amount, expiry, token or terminal)' },
  '12.110.1302': { error: 'PROCESSOR_ERROR', details: 'wrong parameters or missing data in the payment' },
  '12.110.1303': { error: 'PROCESSOR_ERROR', details: INTERNAL },
  '12.110.1304': { error: 'PROCESSOR_ERROR', details: 'wrong parameters or missing data in the payment' },
};

/** SIBS's words, short enough to keep. */
const words = (s: string | null | undefined, fallback: string) => (s && s.length <= 200 ? s : fallback);

/** What a `statusCode` says of a request, by SIBS's families (null: nothing more than its words). */
export function codeFamily(code: string | null): 'success' | 'invalid' | 'temporary' | 'pending' | 'declined' | null {
  if (!code) return null;
  if (code === SUCCESS_CODE) return 'success';
  if (/^E\d{4}$/.test(code)) return 'invalid';
  if (/^T\d{4}$/.test(code)) return 'temporary';
  if (/^00\.\d{3}\.\d{4}$/.test(code)) return 'pending';
  if (/^10\.\d{3}\.\d{4}$/.test(code)) return 'declined';
  return null;
}

/** What a refused answer means for us: `statusCode` and the words SIBS gave. */
export function refusalOf(code: string | null, description?: string | null, paymentStatus?: string | null): Refusal {
  const c = code ?? 'none';
  const status = statusOf(paymentStatus);
  if (status === 'expired') return { error: 'DENIED', details: `SIBS ${c}: ${words(description, 'the payment request expired unpaid')}` };
  const known = code ? CODES[code] : undefined;
  if (known) return { error: known.error, details: `SIBS ${c}: ${words(description, known.details)}` };
  if (status === 'declined' || codeFamily(code) === 'declined') return { error: 'DENIED', details: `SIBS ${c}: ${words(description, 'Declined')}` };
  if (status === 'error') return { error: 'PROCESSOR_ERROR', details: `SIBS ${c}: ${words(description, 'declined by an external system')}` };
  return { error: 'PROCESSOR_ERROR', details: `SIBS ${c}: ${words(description, 'Not processed')}` };
}
