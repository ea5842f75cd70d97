/**
 * The CyberSource simulator's decisions (pure): what a payment gets. Test cards (any future expiry, any
 * CVV):
 *   4000000000000002  declined, PROCESSOR_DECLINED (reason code 233)
 *   4000000000009995  declined, INSUFFICIENT_FUND (204)
 *   4000000000000119  declined, STOLEN_LOST_CARD (205)
 *   4000000000000069  declined, EXPIRED_CARD (202)
 *   4000002760003184  CONSUMER_AUTHENTICATION_REQUIRED (478) for a customer payment without 3-D Secure;
 *                     approved with 3-D Secure, in MoTo (commerceIndicator moto), and in a
 *                     merchant-initiated payment carrying the stored-credential fields
 *                     (initiator.type merchant, storedCredentialUsed, previousTransactionId)
 *   4000000000002503  3-D Secure: the challenge is shown (Payer Authentication), approved once passed
 *   4000000000000101  authorized and held for review by Decision Manager (AUTHORIZED_PENDING_REVIEW,
 *                     reason code 480 in a search) until a test decides it (`decideReview`)
 * Any other Luhn-valid card is approved; a Luhn-invalid number is INVALID_ACCOUNT (231), an expired
 * expiry date EXPIRED_CARD (202).
 */
export const CYBERSOURCE_SIM_CARDS = {
  REFUSED: '4000000000000002',
  INSUFFICIENT_FUNDS: '4000000000009995',
  STOLEN: '4000000000000119',
  EXPIRED: '4000000000000069',
  SOFT_DECLINE: '4000002760003184',
  CHALLENGE: '4000000000002503',
  REVIEW: '4000000000000101',
  APPROVED: '4111111111111111',
} as const;

/** Decline reasons with their legacy reason codes (what a transaction search shows). */
/** A refund of this amount (minor units, any currency) is accepted (PENDING) and then fails in its settlement batch (233). */
export const CYBERSOURCE_SIM_FAILED_REFUND_AMOUNT = 113;

export const REASON_CODE: Record<string, string> = {
  PROCESSOR_DECLINED: '233',
  INSUFFICIENT_FUND: '204',
  STOLEN_LOST_CARD: '205',
  EXPIRED_CARD: '202',
  INVALID_ACCOUNT: '231',
  CONSUMER_AUTHENTICATION_REQUIRED: '478',
  CONSUMER_AUTHENTICATION_FAILED: '476',
};

const MESSAGE: Record<string, string> = {
  PROCESSOR_DECLINED: 'Decline - General decline of the card. No other information provided by the issuing bank.',
  INSUFFICIENT_FUND: 'Decline - Insufficient funds in the account.',
  STOLEN_LOST_CARD: 'Decline - Stolen or lost card.',
  EXPIRED_CARD: 'Decline - Expired card. You might also receive this if the expiration date you provided does not match the date the issuing bank has on file.',
  INVALID_ACCOUNT: 'Decline - Invalid account number',
  CONSUMER_AUTHENTICATION_REQUIRED: 'The cardholder is enrolled in Payer Authentication. Please authenticate the cardholder before continuing with the transaction.',
  CONSUMER_AUTHENTICATION_FAILED: 'Encountered a Payer Authentication problem. Payer could not be authenticated.',
};

export function messageOf(reason: string): string {
  return MESSAGE[reason] ?? 'Decline';
}

export function luhn(pan: string): boolean {
  if (!/^\d{12,19}$/.test(pan)) return false;
  let sum = 0;
  for (let i = 0; i < pan.length; i++) {
    let d = pan.charCodeAt(pan.length - 1 - i) - 48;
    if (i % 2 === 1 && (d *= 2) > 9) d -= 9;
    sum += d;
  }
  return sum % 10 === 0;
}

export interface SimPaymentInput {
  number: string;
  expiryMonth: number;
  expiryYear: number;
  commerceIndicator: string;
  /** initiator.type merchant with storedCredentialUsed and a previousTransactionId. */
  flaggedMerchantInitiated: boolean;
  /** 3-D Secure data came with the payment, or Payer Authentication ran. */
  authenticated: boolean;
  now: Date;
}

/** The decline reason of a payment; null: approved. */
export function decide(p: SimPaymentInput): string | null {
  if (!luhn(p.number)) return 'INVALID_ACCOUNT';
  if (Date.UTC(p.expiryYear, p.expiryMonth, 1) <= p.now.getTime()) return 'EXPIRED_CARD';
  switch (p.number) {
    case CYBERSOURCE_SIM_CARDS.REFUSED:
      return 'PROCESSOR_DECLINED';
    case CYBERSOURCE_SIM_CARDS.INSUFFICIENT_FUNDS:
      return 'INSUFFICIENT_FUND';
    case CYBERSOURCE_SIM_CARDS.STOLEN:
      return 'STOLEN_LOST_CARD';
    case CYBERSOURCE_SIM_CARDS.EXPIRED:
      return 'EXPIRED_CARD';
    case CYBERSOURCE_SIM_CARDS.SOFT_DECLINE:
    case CYBERSOURCE_SIM_CARDS.CHALLENGE:
      return p.authenticated || p.commerceIndicator === 'moto' || p.flaggedMerchantInitiated ? null : 'CONSUMER_AUTHENTICATION_REQUIRED';
    default:
      return null;
  }
}
