/**
 * PayPal card processor response codes (pure): `processor_response.response_code` of a capture or
 * authorization → our transaction `error` (decisions §4). `0000` approves. Source: PayPal's public
 * "Processor response codes" reference of the Orders API.
 */
import type { TxError } from '../connector.js';

export interface Refusal {
  error: Exclude<TxError, 'NONE'>;
  details: string;
}

/** Codes that ask for strong customer authentication: the payment goes on with 3-D Secure. */
export const SCA_REQUIRED: ReadonlySet<string> = new Set(['5650']);

const CODES: Record<string, Refusal> = {
  '00N7': { error: 'DENIED', details: 'CVV2 failure' },
  '0100': { error: 'DENIED', details: 'Referral' },
  '0390': { error: 'INVALID_CARD', details: 'Account not found' },
  '0500': { error: 'DENIED', details: 'Do not honor' },
  '0580': { error: 'DENIED', details: 'Unauthorized transaction' },
  '1330': { error: 'INVALID_CARD', details: 'Invalid account' },
  '1380': { error: 'EXPIRED_CARD', details: 'Invalid expiration date' },
  '1382': { error: 'DENIED', details: 'Invalid card verification value' },
  '5100': { error: 'DENIED', details: 'Generic decline' },
  '5110': { error: 'DENIED', details: 'CVV2 failure' },
  '5120': { error: 'INSUFFICIENT_FUNDS', details: 'Insufficient funds' },
  '5140': { error: 'DENIED', details: 'Card closed' },
  '5150': { error: 'FRAUD_SUSPECTED', details: 'Pick up card, special conditions' },
  '5180': { error: 'INVALID_CARD', details: 'Invalid or restricted card' },
  '5400': { error: 'EXPIRED_CARD', details: 'Expired card' },
  '5650': { error: 'AUTHENTICATION_FAILED', details: 'Declined: strong customer authentication required' },
  '5710': { error: 'DENIED', details: 'Transaction attempts exceed limit' },
  '7700': { error: 'AUTHENTICATION_FAILED', details: '3-D Secure error' },
  '7710': { error: 'AUTHENTICATION_FAILED', details: 'Authentication failed' },
  '9500': { error: 'FRAUD_SUSPECTED', details: 'Suspected fraud' },
  '9520': { error: 'BLACKLISTED', details: 'Lost or stolen card' },
  '9540': { error: 'DENIED', details: 'Refused card' },
  PCNR: { error: 'DENIED', details: 'Contingencies not resolved' },
  PCVV: { error: 'DENIED', details: 'CVV failure' },
};

/** What a refusal code means for us (unknown codes: a plain decline). */
export function refusalOf(code: string): Refusal {
  const known = CODES[code];
  return { error: known?.error ?? 'DENIED', details: `PayPal ${code}: ${known?.details ?? 'Declined'}` };
}
