/**
 * Checkout.com response codes (pure): `response_code` of a payment or action → our transaction `error`
 * (decisions §4). 10000–10099 approve; 20xxx are soft declines (the cardholder may try again), 30xxx
 * hard declines, 40xxx risk responses. 20154 (and 20155/20156: 3-D Secure required) is the soft decline
 * that asks for strong customer authentication: the payment goes on with 3-D Secure.
 * Source: Checkout.com's public "API response codes" page.
 */
import type { TxError } from '../connector.js';

export interface Refusal {
  error: Exclude<TxError, 'NONE'>;
  details: string;
}

/** Codes that ask for 3-D Secure authentication before the issuer approves. */
export const AUTHENTICATION_REQUIRED: ReadonlySet<string> = new Set(['20154', '20155', '20156']);

const CODES: Record<string, Refusal> = {
  '20001': { error: 'DENIED', details: 'Refer to card issuer' },
  '20005': { error: 'DENIED', details: 'Declined - Do not honour' },
  '20012': { error: 'DENIED', details: 'Invalid transaction' },
  '20013': { error: 'PROCESSOR_ERROR', details: 'Invalid value/amount' },
  '20014': { error: 'INVALID_CARD', details: 'Invalid card number' },
  '20046': { error: 'DENIED', details: 'Closed account' },
  '20051': { error: 'INSUFFICIENT_FUNDS', details: 'Insufficient funds' },
  '20054': { error: 'EXPIRED_CARD', details: 'Expired card' },
  '20057': { error: 'DENIED', details: 'Transaction not permitted to cardholder' },
  '20059': { error: 'FRAUD_SUSPECTED', details: 'Suspected fraud' },
  '20061': { error: 'INSUFFICIENT_FUNDS', details: 'Activity amount limit exceeded' },
  '20062': { error: 'DENIED', details: 'Restricted card' },
  '20082': { error: 'DENIED', details: 'Invalid CVV' },
  '20087': { error: 'DENIED', details: 'Bad track data (invalid CVV and/or expiry date)' },
  '20150': { error: 'AUTHENTICATION_FAILED', details: 'Card not 3-D Secure enabled or cardholder not authenticated' },
  '20151': { error: 'AUTHENTICATION_FAILED', details: 'Cardholder failed 3-D Secure authentication' },
  '20154': { error: 'AUTHENTICATION_FAILED', details: '3-D Secure authentication required' },
  '30004': { error: 'FRAUD_SUSPECTED', details: 'Pick up card (no fraud)' },
  '30033': { error: 'EXPIRED_CARD', details: 'Expired card - pick up' },
  '30041': { error: 'BLACKLISTED', details: 'Lost card - pick up' },
  '30043': { error: 'BLACKLISTED', details: 'Stolen card - pick up' },
  '40101': { error: 'FRAUD_SUSPECTED', details: 'Risk blocked transaction' },
  '40201': { error: 'FRAUD_SUSPECTED', details: 'Gateway reject - card number blocklist' },
};

/** True for an approval code (10000–10099). */
export function isApprovalCode(code: string): boolean {
  return /^100\d\d$/.test(code);
}

/** What a refusal code means for us; unknown codes by their class. */
export function refusalOf(code: string, summary?: string | null): Refusal {
  const known = CODES[code];
  const text = (r: Refusal) => ({ error: r.error, details: `Checkout.com ${code}: ${summary && summary.length <= 200 ? summary : r.details}` });
  if (known) return text(known);
  if (/^2\d{4}$/.test(code)) return text({ error: 'DENIED', details: 'Declined by the issuer' });
  if (/^3\d{4}$/.test(code)) return text({ error: 'DENIED', details: 'Declined by the issuer (hard decline)' });
  if (/^4\d{4}$/.test(code)) return text({ error: 'FRAUD_SUSPECTED', details: 'Declined by risk rules' });
  return text({ error: 'PROCESSOR_ERROR', details: 'Not processed' });
}
