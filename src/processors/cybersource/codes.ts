/**
 * CyberSource answer codes (pure) → our transaction `error` (decisions §4). The REST API names a
 * decline's reason in words (`errorInformation.reason` of a 201 DECLINED, `reason` of a 400); the
 * Transaction Search API names it by the legacy three-digit reason code of each application
 * (`applicationInformation.applications[].reasonCode`). Both map here. CONSUMER_AUTHENTICATION_REQUIRED
 * (reason code 478) is the soft decline that asks for strong customer authentication: the payment goes on
 * with 3-D Secure.
 * Sources: cybersource-rest-client-python docs/PtsV2PaymentsPost201ResponseErrorInformation.md,
 * PtsV2PaymentsPost400Response.md; CyberSource's "Reason Codes" appendix of the card services guide.
 */
import type { TxError } from '../connector.js';

export interface Refusal {
  error: Exclude<TxError, 'NONE'>;
  details: string;
}

/** The soft decline asking for 3-D Secure (its reason, and its reason code in a search). */
export const AUTHENTICATION_REQUIRED = new Set(['CONSUMER_AUTHENTICATION_REQUIRED', '478']);

const REASONS: Record<string, Refusal> = {
  PROCESSOR_DECLINED: { error: 'DENIED', details: 'Declined by the issuer' },
  GENERAL_DECLINE: { error: 'DENIED', details: 'General decline by the issuer' },
  PAYMENT_REFUSED: { error: 'DENIED', details: 'Payment refused' },
  CONTACT_PROCESSOR: { error: 'DENIED', details: 'The issuer asks to be contacted' },
  UNAUTHORIZED_CARD: { error: 'DENIED', details: 'The card is not authorized for this transaction' },
  BLOCKED_BY_CARDHOLDER: { error: 'DENIED', details: 'Blocked by the cardholder' },
  SUSPENDED_ACCOUNT: { error: 'DENIED', details: 'Suspended account' },
  DECLINED_CHECK: { error: 'DENIED', details: 'Declined' },
  CVN_NOT_MATCH: { error: 'DENIED', details: 'The CVV does not match' },
  INVALID_CVN: { error: 'DENIED', details: 'Invalid CVV' },
  CV_FAILED: { error: 'DENIED', details: 'The issuer declined the CVV' },
  AVS_FAILED: { error: 'DENIED', details: 'The address check failed' },
  INSUFFICIENT_FUND: { error: 'INSUFFICIENT_FUNDS', details: 'Insufficient funds' },
  EXCEEDS_CREDIT_LIMIT: { error: 'INSUFFICIENT_FUNDS', details: 'Credit limit exceeded' },
  EXPIRED_CARD: { error: 'EXPIRED_CARD', details: 'Expired card' },
  INVALID_ACCOUNT: { error: 'INVALID_CARD', details: 'Invalid account number' },
  INVALID_CARD: { error: 'INVALID_CARD', details: 'Invalid card number' },
  INVALID_CARD_TYPE: { error: 'INVALID_CARD', details: 'Invalid card type' },
  CARD_TYPE_NOT_ACCEPTED: { error: 'INVALID_CARD', details: 'Card type not accepted' },
  STOLEN_LOST_CARD: { error: 'BLACKLISTED', details: 'Stolen or lost card' },
  BLACKLISTED_CUSTOMER: { error: 'BLACKLISTED', details: 'The customer is on a negative list' },
  DECISION_PROFILE_REJECT: { error: 'FRAUD_SUSPECTED', details: 'Rejected by the fraud rules' },
  SCORE_EXCEEDS_THRESHOLD: { error: 'FRAUD_SUSPECTED', details: 'The fraud score exceeds the threshold' },
  AUTHORIZED_RISK_DECLINED: { error: 'FRAUD_SUSPECTED', details: 'Authorized, then declined by the fraud rules' },
  CONSUMER_AUTHENTICATION_REQUIRED: { error: 'AUTHENTICATION_FAILED', details: 'Strong customer authentication required' },
  CONSUMER_AUTHENTICATION_FAILED: { error: 'AUTHENTICATION_FAILED', details: 'The cardholder failed 3-D Secure authentication' },
  ISSUER_UNAVAILABLE: { error: 'PROCESSOR_ERROR', details: 'The issuer is unavailable' },
  PROCESSOR_ERROR: { error: 'PROCESSOR_ERROR', details: 'Processor error' },
  INVALID_MERCHANT_CONFIGURATION: { error: 'PROCESSOR_ERROR', details: 'The merchant account is not configured for this' },
};

/** Legacy reason codes (Transaction Search) → the reason words above. */
const REASON_CODES: Record<string, string> = {
  '202': 'EXPIRED_CARD', '203': 'GENERAL_DECLINE', '204': 'INSUFFICIENT_FUND', '205': 'STOLEN_LOST_CARD',
  '207': 'ISSUER_UNAVAILABLE', '208': 'UNAUTHORIZED_CARD', '210': 'EXCEEDS_CREDIT_LIMIT', '211': 'INVALID_CVN',
  '221': 'BLACKLISTED_CUSTOMER', '230': 'CV_FAILED', '231': 'INVALID_ACCOUNT', '232': 'CARD_TYPE_NOT_ACCEPTED',
  '233': 'PROCESSOR_DECLINED', '234': 'INVALID_MERCHANT_CONFIGURATION', '400': 'SCORE_EXCEEDS_THRESHOLD',
  '476': 'CONSUMER_AUTHENTICATION_FAILED', '478': 'CONSUMER_AUTHENTICATION_REQUIRED', '481': 'DECISION_PROFILE_REJECT',
};

/** The reason words of a search's reason code (null when it names none we know). */
export function reasonOfCode(code: string): string | null {
  return REASON_CODES[code] ?? null;
}

/** What a decline's reason (words or a reason code) means for us; unknown ones are a plain decline. */
export function refusalOf(reason: string, message?: string | null): Refusal {
  const words = REASON_CODES[reason] ?? reason;
  const known = REASONS[words] ?? { error: 'DENIED' as const, details: 'Declined' };
  const text = message && message.length <= 200 ? message : known.details;
  return { error: known.error, details: `CyberSource ${words}: ${text}` };
}
