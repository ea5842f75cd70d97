/**
 * Clearhaus transaction status codes (pure) → our transaction `error` (decisions §4). Every transaction
 * Clearhaus makes (authorization, capture, refund, void) answers `status.code`, with `status.message`
 * words for debugging where Clearhaus gives them. The codes and their meanings are Clearhaus's
 * "Transaction status codes" table (docs.gateway.clearhaus.com, #transaction-status-codes; the
 * clearhaus/gateway-api-docs repository, transaction_status_codes_table.md): 20000 is the only approval,
 * every other code a decline. 40416 "Additional authentication required" is the issuer's soft decline
 * (strong customer authentication first); 40420 "Merchant blocked by cardholder" also tells the merchant
 * to halt every merchant-initiated payment on the card (#merchant-blocked-by-cardholder-status).
 */
import type { TxError } from '../connector.js';

export interface Refusal {
  error: Exclude<TxError, 'NONE'>;
  details: string;
}

export const APPROVED = 20000;

/** The issuer asks for strong customer authentication (the payment goes on with 3-D Secure). */
export const SCA_REQUIRED = 40416;

/**
 * "Clearhaus error": declined, yet Clearhaus takes voids of authorizations answered so (its "Changes":
 * "Allowing voids on status code 50000 authorizations"): the connector voids one at once.
 */
export const CLEARHAUS_ERROR = 50000;

/** The cardholder blocked the merchant: no merchant-initiated payment may follow on the card. */
export const MERCHANT_BLOCKED = 40420;

/** Every code of Clearhaus's table, its meaning in Clearhaus's words, and what it becomes here. */
export const STATUS_CODES: Record<number, Refusal> = {
  40000: { error: 'PROCESSOR_ERROR', details: 'General input error' },
  40110: { error: 'INVALID_CARD', details: 'Invalid card number' },
  40111: { error: 'INVALID_CARD', details: 'Unsupported card scheme' },
  40120: { error: 'INVALID_CARD', details: 'Invalid CSC' },
  40130: { error: 'INVALID_CARD', details: 'Invalid expire date' },
  40135: { error: 'EXPIRED_CARD', details: 'Card expired' },
  40140: { error: 'PROCESSOR_ERROR', details: 'Invalid currency' },
  40150: { error: 'PROCESSOR_ERROR', details: 'Invalid text on statement' },
  40200: { error: 'DENIED', details: 'Clearhaus rule violation' },
  40300: { error: 'AUTHENTICATION_FAILED', details: '3-D Secure problem' },
  40310: { error: 'AUTHENTICATION_FAILED', details: '3-D Secure authentication failure' },
  40400: { error: 'PROCESSOR_ERROR', details: 'Backend problem' },
  40410: { error: 'DENIED', details: 'Declined by issuer or card scheme' },
  40411: { error: 'DENIED', details: 'Card restricted' },
  40412: { error: 'BLACKLISTED', details: 'Card lost or stolen' },
  40413: { error: 'INSUFFICIENT_FUNDS', details: 'Insufficient funds' },
  40414: { error: 'FRAUD_SUSPECTED', details: 'Suspected fraud' },
  40415: { error: 'INSUFFICIENT_FUNDS', details: 'Amount limit exceeded' },
  40416: { error: 'AUTHENTICATION_FAILED', details: 'Additional authentication required' },
  40420: { error: 'DENIED', details: 'Merchant blocked by cardholder' },
  50000: { error: 'PROCESSOR_ERROR', details: 'Clearhaus error' },
};

/**
 * What a declined transaction means for us: the code's meaning, Clearhaus's message when it gave one,
 * the code. A code outside the table is DENIED (Clearhaus: every code but 20000 is a decline).
 */
export function refusalOf(code: number, message?: string | null): Refusal {
  const known = STATUS_CODES[code];
  const meaning = known?.details ?? 'Declined';
  const words = message && message.length <= 200 && message !== meaning ? `${meaning}: ${message}` : meaning;
  const halt = code === MERCHANT_BLOCKED ? '; halt every merchant-initiated payment on this card until the cardholder lifts the block' : '';
  return { error: known?.error ?? 'DENIED', details: `Clearhaus: ${words} (status ${code})${halt}` };
}
