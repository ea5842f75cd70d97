/**
 * Trust Payments error codes (pure) → our transaction `error` (decisions §4). Every answer of the
 * Webservices API carries `errorcode` ("0" Ok) and `errormessage`; the codes and their words are Trust
 * Payments' published error code registry (help.trustpayments.com "Error codes", webapp.securetrading.net
 * /errorcodes.html). A decline by the issuer is 70000 ("Decline"; `authcode` DECLINED); 71000 ("Soft
 * Decline") asks for strong customer authentication. Some codes say the outcome is not known yet (the
 * bank did not answer, the request was queued, an uncertain result): those are never a decline — the
 * operation stays PENDING and the reconciler asks with a TRANSACTIONQUERY.
 */
import type { TxError } from '../connector.js';

export interface Refusal {
  error: Exclude<TxError, 'NONE'>;
  details: string;
}

/** The issuer asks for strong customer authentication (the payment goes on with 3-D Secure). */
export const SOFT_DECLINES: ReadonlySet<string> = new Set(['71000', '88888']);

/** The outcome is not known yet: the reconciler asks Trust Payments later (TRANSACTIONQUERY). */
export const UNDECIDED: ReadonlySet<string> = new Set(['60010', '60034', '60039', '70001', '79000', '79001', '50005', '60020', '88000']);

export const REFUSALS: Record<string, Refusal> = {
  '70000': { error: 'DENIED', details: 'Decline' },
  '72000': { error: 'DENIED', details: 'Refer to Issuer' },
  '60042': { error: 'INSUFFICIENT_FUNDS', details: 'Insufficient funds' },
  '60043': { error: 'DENIED', details: 'Unable to process due to scheme restrictions' },
  '60045': { error: 'DENIED', details: 'Unable to process due to restrictions' },
  '60036': { error: 'FRAUD_SUSPECTED', details: 'Max fraudscore exceeded' },
  '60044': { error: 'FRAUD_SUSPECTED', details: 'Failed Screening' },
  '60500': { error: 'FRAUD_SUSPECTED', details: 'Risk Referral' },
  '30002': { error: 'BLACKLISTED', details: 'Banned card' },
  '31000': { error: 'INVALID_CARD', details: 'The card number you have provided is incorrect' },
  '31001': { error: 'INVALID_CARD', details: 'The security code (CVV2) you have provided is incorrect' },
  '31002': { error: 'EXPIRED_CARD', details: 'The expiry date you have provided is incorrect' },
  '10003': { error: 'INVALID_CARD', details: 'Invalid card details' },
  '10103': { error: 'INVALID_CARD', details: 'Card number does not match card type' },
  '71000': { error: 'AUTHENTICATION_FAILED', details: 'Soft Decline' },
  '88888': { error: 'AUTHENTICATION_FAILED', details: 'Soft Decline retry' },
  '60022': { error: 'PROCESSOR_ERROR', details: 'Unauthenticated' },
  '30000': { error: 'PROCESSOR_ERROR', details: 'Invalid field' },
  '60025': { error: 'PROCESSOR_ERROR', details: 'Invalid Request' },
  '60014': { error: 'PROCESSOR_ERROR', details: 'Transaction reference not found' },
  '60016': { error: 'PROCESSOR_ERROR', details: 'settlebaseamount too large' },
  '60017': { error: 'PROCESSOR_ERROR', details: 'Transaction not updatable' },
  '20004': { error: 'PROCESSOR_ERROR', details: 'Missing parent' },
  '20005': { error: 'PROCESSOR_ERROR', details: 'Refund requires settled parent or parent thats due to settle today' },
  '20007': { error: 'PROCESSOR_ERROR', details: 'Refund amount too great' },
  '20011': { error: 'PROCESSOR_ERROR', details: 'Cannot refund a decline transaction' },
  '20012': { error: 'PROCESSOR_ERROR', details: 'Refund requires a settled parent' },
};

/** What a refusal means for us (Trust Payments' code and words in the details); unknown codes are DENIED. */
export function refusalOf(errorcode: string, errormessage?: string | null, errordata?: readonly string[] | null): Refusal {
  const known = REFUSALS[errorcode];
  const words = errormessage && errormessage.length <= 200 ? errormessage : known?.details ?? 'Decline';
  const fields = errordata && errordata.length > 0 ? ` (${errordata.slice(0, 5).join(', ').slice(0, 120)})` : '';
  return { error: known?.error ?? 'DENIED', details: `Trust Payments: ${words}${fields} (errorcode ${errorcode})` };
}
