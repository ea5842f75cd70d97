/**
 * The retry table (docs/routing.md "When the next service is tried"), pure and in one place: whether a
 * failed attempt may be followed by the next service of the decision (cascading), by the contract's
 * transaction `error` code of the attempt and whether money could have moved.
 *
 * Never when money could have moved: an UNKNOWN outcome (no answer after the request was sent) or an
 * operation still PENDING at the processor may yet be approved, and a second attempt could charge the
 * customer twice. Never when the processor said not to try the card again. Otherwise by the code below.
 */
import type { TxError } from '../../processors/connector.js';

export type FailureCode = Exclude<TxError, 'NONE'>;

export interface FailedAttempt {
  /** the contract's transaction error of the attempt */
  error: TxError;
  /**
   * Whether the attempt may have moved money: true for an UNKNOWN outcome (sent, no answer) or a
   * PENDING one; false when the processor answered (a refusal), when nothing could be sent (no
   * connection), or when a lookup proved the operation never happened.
   */
  moneyMayHaveMoved: boolean;
  /** the processor asked not to retry this card (a "do not retry" refusal, a merchant advice code) */
  doNotRetry?: boolean;
}

export interface CascadeVerdict {
  allowed: boolean;
  reason: string;
}

/** The table: each contract error code, whether another service may be tried after it, and why. */
export const CASCADE_TABLE: Readonly<Record<FailureCode, { cascade: boolean; why: string }>> = {
  DENIED: { cascade: true, why: 'a generic refusal (do not honour, refer to issuer) or an acquirer\'s soft decline: another acquirer may be approved' },
  PROCESSOR_ERROR: { cascade: true, why: 'a processor or system error, or the issuer unavailable: the payment was not decided' },
  TIMEOUT: { cascade: true, why: 'the operation did not happen (it could not be sent, or the processor has no record of it)' },
  INSUFFICIENT_FUNDS: { cascade: false, why: 'insufficient funds: another acquirer reaches the same account' },
  EXPIRED_CARD: { cascade: false, why: 'the card is expired: every acquirer refuses it' },
  INVALID_CARD: { cascade: false, why: 'the card number or its expiry is not valid: every acquirer refuses it' },
  AUTHENTICATION_FAILED: { cascade: false, why: 'the cardholder failed 3-D Secure authentication: the payment must not go on without it' },
  FRAUD_SUSPECTED: { cascade: false, why: 'fraud or security refusal (also a lost or stolen card): retrying elsewhere is what the schemes fine' },
  BLACKLISTED: { cascade: false, why: 'the card is lost, stolen or on a block list' },
};

/** Whether the next service of the decision may be tried after `attempt` failed, and why. */
export function cascadeAllowed(attempt: FailedAttempt): CascadeVerdict {
  if (attempt.moneyMayHaveMoved) return { allowed: false, reason: 'the outcome is unknown (sent without an answer, or pending): money may have moved, so no other service is tried' };
  if (attempt.error === 'NONE') return { allowed: false, reason: 'the attempt did not fail' };
  const row = CASCADE_TABLE[attempt.error];
  if (!row) return { allowed: false, reason: `unknown error code ${String(attempt.error)}` };
  if (attempt.doNotRetry) return { allowed: false, reason: 'the processor asked not to retry this card' };
  return { allowed: row.cascade, reason: row.why };
}
