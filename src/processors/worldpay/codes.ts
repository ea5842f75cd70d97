/**
 * Worldpay refusal codes (pure): `refusalCode` of a refused payment (Payments API) or the `code` of an
 * authorizationRefused event (Payment Queries API) → our transaction `error` (decisions §4). The codes
 * and their words are Worldpay's "Issuer response test values" / refusal codes table (Access, Payments
 * API testing page): 4 HOLD CARD, 5 REFUSED, 13 INVALID AMOUNT, 33 CARD EXPIRED, 34 FRAUD SUSPICION,
 * 41 LOST CARD, 43 STOLEN CARD, PICK UP, 51 LIMIT EXCEEDED, 55 INVALID SECURITY CODE... A refusal asking
 * for strong customer authentication (the schemes' soft declines: Visa `1A`, Mastercard `65`) sends the
 * payment on to 3-D Secure.
 */
import type { TxError } from '../connector.js';

export interface Refusal {
  error: Exclude<TxError, 'NONE'>;
  details: string;
}

/** Refusals that ask for strong customer authentication (the payment goes on with 3-D Secure). */
export const AUTHENTICATION_REQUIRED: ReadonlySet<string> = new Set(['1A', '65']);

export const REFUSALS: Record<string, Refusal> = {
  '2': { error: 'DENIED', details: 'REFERRED' },
  '4': { error: 'FRAUD_SUSPECTED', details: 'HOLD CARD' },
  '5': { error: 'DENIED', details: 'REFUSED' },
  '8': { error: 'DENIED', details: 'APPROVE AFTER IDENTIFICATION' },
  '13': { error: 'PROCESSOR_ERROR', details: 'INVALID AMOUNT' },
  '15': { error: 'INVALID_CARD', details: 'INVALID CARD ISSUER' },
  '17': { error: 'DENIED', details: 'ANNULATION BY CLIENT' },
  '28': { error: 'DENIED', details: 'ACCESS DENIED' },
  '29': { error: 'PROCESSOR_ERROR', details: 'IMPOSSIBLE REFERENCE NUMBER' },
  '33': { error: 'EXPIRED_CARD', details: 'CARD EXPIRED' },
  '34': { error: 'FRAUD_SUSPECTED', details: 'FRAUD SUSPICION' },
  '38': { error: 'DENIED', details: 'SECURITY CODE EXPIRED' },
  '41': { error: 'BLACKLISTED', details: 'LOST CARD' },
  '43': { error: 'BLACKLISTED', details: 'STOLEN CARD, PICK UP' },
  '51': { error: 'INSUFFICIENT_FUNDS', details: 'LIMIT EXCEEDED' },
  '55': { error: 'DENIED', details: 'INVALID SECURITY CODE' },
  '56': { error: 'INVALID_CARD', details: 'UNKNOWN CARD' },
  '57': { error: 'DENIED', details: 'ILLEGAL TRANSACTION' },
  '62': { error: 'DENIED', details: 'RESTRICTED CARD' },
  '63': { error: 'FRAUD_SUSPECTED', details: 'SECURITY RULES VIOLATED' },
  '75': { error: 'DENIED', details: 'SECURITY CODE INVALID' },
  '76': { error: 'BLACKLISTED', details: 'CARD BLOCKED' },
  '85': { error: 'DENIED', details: 'REJECTED BY CARD ISSUER' },
  '91': { error: 'PROCESSOR_ERROR', details: 'CREDITCARD ISSUER TEMPORARILY NOT REACHABLE' },
  '97': { error: 'FRAUD_SUSPECTED', details: 'SECURITY BREACH' },
  '1A': { error: 'AUTHENTICATION_FAILED', details: 'ADDITIONAL CUSTOMER AUTHENTICATION REQUIRED' },
  '65': { error: 'AUTHENTICATION_FAILED', details: 'EXCEEDS WITHDRAWAL COUNT LIMIT (AUTHENTICATION REQUIRED)' },
};

/** What a refusal means for us (Worldpay's own words in the details); unknown codes are DENIED. */
export function refusalOf(code: string | null, description?: string | null): Refusal {
  const known = code ? REFUSALS[code] : undefined;
  const words = description && description.length <= 200 ? description : known?.details ?? 'REFUSED';
  return { error: known?.error ?? 'DENIED', details: `Worldpay refused the payment${code ? ` (${code})` : ''}: ${words}` };
}
