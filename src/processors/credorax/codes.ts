/**
 * Credorax answer codes (pure) → our transaction `error` (decisions §4). An answer's `z2` is the
 * operation's result: 0 done; a positive value a decline, its reason the issuer's ISO 8583 response code
 * in `z6`; a negative value an error of the gateway itself (a malformed request, a 3-D Secure failure),
 * its words in `z3`. `1A` in `z6` is the issuer's soft decline asking for strong customer
 * authentication: the payment goes on with 3-D Secure.
 * Sources: ActiveMerchant lib/active_merchant/billing/gateways/credorax.rb RESPONSE_MESSAGES (the z6
 * codes and their words); Credorax's ePower SDK (steve-nester-uk/credorax-sdk util/ResultCode.java: the z2
 * results 1-5, 9 and the negative ones); the Finaro (Credorax) processor errors listed by Paylands' integration guide
 * (docs.paylands.com "Finaro (Credorax)": -9, -37, -38, -50, -63, -68...).
 */
import type { TxError } from '../connector.js';

export interface Refusal {
  error: Exclude<TxError, 'NONE'>;
  details: string;
}

/** The issuer's soft decline: strong customer authentication required. */
export const SCA_REQUIRED = '1A';

const ISSUER: Record<string, Refusal> = {
  '01': { error: 'DENIED', details: 'Refer to card issuer' },
  '02': { error: 'DENIED', details: 'Refer to card issuer, special condition' },
  '03': { error: 'PROCESSOR_ERROR', details: 'Invalid merchant' },
  '04': { error: 'BLACKLISTED', details: 'Pick up card' },
  '05': { error: 'DENIED', details: 'Do not honour' },
  '07': { error: 'BLACKLISTED', details: 'Pick up card, special condition' },
  '12': { error: 'DENIED', details: 'Invalid transaction' },
  '13': { error: 'DENIED', details: 'Invalid amount' },
  '14': { error: 'INVALID_CARD', details: 'Invalid card number' },
  '15': { error: 'INVALID_CARD', details: 'No such issuer' },
  '33': { error: 'EXPIRED_CARD', details: 'Pick-up, expired card' },
  '34': { error: 'FRAUD_SUSPECTED', details: 'Suspected fraud' },
  '41': { error: 'BLACKLISTED', details: 'Lost card, pick up' },
  '43': { error: 'BLACKLISTED', details: 'Pick up, stolen card' },
  '46': { error: 'DENIED', details: 'Closed account' },
  '51': { error: 'INSUFFICIENT_FUNDS', details: 'Insufficient funds' },
  '54': { error: 'EXPIRED_CARD', details: 'Expired card' },
  '55': { error: 'DENIED', details: 'Incorrect PIN' },
  '56': { error: 'INVALID_CARD', details: 'No card record' },
  '57': { error: 'DENIED', details: 'Transaction not allowed for cardholder' },
  '58': { error: 'DENIED', details: 'Transaction not permitted to terminal' },
  '59': { error: 'FRAUD_SUSPECTED', details: 'Suspected fraud' },
  '61': { error: 'INSUFFICIENT_FUNDS', details: 'Exceeds withdrawal amount limit' },
  '62': { error: 'DENIED', details: 'Restricted card' },
  '63': { error: 'FRAUD_SUSPECTED', details: 'Security violation' },
  '65': { error: 'DENIED', details: 'Activity count limit exceeded' },
  '78': { error: 'INVALID_CARD', details: 'Blocked, first used / record not found' },
  '82': { error: 'DENIED', details: 'Bad CVV / declined due to policy event' },
  '89': { error: 'AUTHENTICATION_FAILED', details: 'Authentication failure' },
  '91': { error: 'PROCESSOR_ERROR', details: 'Issuer not available' },
  '92': { error: 'PROCESSOR_ERROR', details: 'Unable to route at acquirer module' },
  '96': { error: 'PROCESSOR_ERROR', details: 'System malfunction' },
  N7: { error: 'DENIED', details: 'CVV2 failure' },
  [SCA_REQUIRED]: { error: 'AUTHENTICATION_FAILED', details: 'Strong Customer Authentication required' },
};

/** Results of the gateway itself (z2 without an issuer's code) that are not a plain decline or error. */
const GATEWAY: Record<string, Refusal> = {
  '2': { error: 'FRAUD_SUSPECTED', details: 'Transaction has been denied by the gateway due to a high fraud score' },
  '3': { error: 'DENIED', details: 'Transaction has been denied by the gateway due to AVS rules' },
  '4': { error: 'PROCESSOR_ERROR', details: 'Transaction has been denied by the gateway due to an interchange timeout' },
  '9': { error: 'INVALID_CARD', details: 'Transaction has been denied by the gateway due to the Luhn check failure' },
  '-38': { error: 'AUTHENTICATION_FAILED', details: 'The transaction has been denied by the gateway because 3-D Secure authentication failed' },
  '-68': { error: 'AUTHENTICATION_FAILED', details: 'Authentication process timed out' },
};

/** What a declined answer means for us: the issuer's code (z6) when there is one, else the gateway's (z2); the words are Credorax's (z3). */
export function refusalOf(z2: string, z6: string | null, z3: string | null): Refusal {
  const known = (z6 && ISSUER[z6]) || GATEWAY[z2] || (z2.startsWith('-') ? { error: 'PROCESSOR_ERROR' as const, details: 'Error of the gateway' } : { error: 'DENIED' as const, details: 'Declined' });
  const words = z3 && z3.length <= 256 ? z3 : known.details;
  return { error: known.error, details: `Credorax ${z6 ? `${z6} ` : ''}(z2 ${z2}): ${words}` };
}

/** The words of an issuer code (the going-live table, tests). */
export function issuerCodes(): Record<string, Refusal> {
  return { ...ISSUER };
}
