/**
 * The Checkout.com simulator's decisions (pure): which response code a payment gets. Test cards (any
 * future expiry, any CVV):
 *   4000000000000002  declined, 20005 (Do not honour)
 *   4000000000009995  declined, 20051 (Insufficient funds)
 *   4000002760003184  20154 (3-D Secure authentication required) for a customer payment without
 *                     3-D Secure; approved with 3-D Secure, in MoTo, and in a merchant-initiated payment
 *                     flagged as Checkout.com's stored-card rules ask (`merchant_initiated`,
 *                     `source.stored`, `previous_payment_id`, payment_type Recurring, Installment or
 *                     Unscheduled). Checkout.com says a stored-card payment without those details "has a
 *                     higher risk of being declined"; on this card the simulator declines it (20154).
 *   4000000000000119  declined, 20059 (Suspected fraud)
 *   4543474002249996  3-D Secure: the challenge is shown (approved once the cardholder passes it)
 * Any other Luhn-valid card is approved (10000); a Luhn-invalid number is 20014, an expired card 20054.
 */
export const CHECKOUT_SIM_CARDS = {
  REFUSED: '4000000000000002',
  INSUFFICIENT_FUNDS: '4000000000009995',
  SOFT_DECLINE: '4000002760003184',
  FRAUD: '4000000000000119',
  CHALLENGE: '4543474002249996',
  APPROVED: '4242424242424242',
} as const;

const SUMMARY: Record<string, string> = {
  '10000': 'Approved',
  '20005': 'Declined - Do not honour',
  '20014': 'Invalid card number',
  '20051': 'Insufficient funds',
  '20054': 'Expired card',
  '20059': 'Suspected fraud',
  '20151': 'Cardholder failed 3DS authentication',
  '20154': '3D Secure authentication required',
};

export function summaryOf(code: string): string {
  return SUMMARY[code] ?? 'Declined';
}

function luhn(pan: string): boolean {
  if (!/^\d{12,19}$/.test(pan)) return false;
  let sum = 0;
  for (let i = 0; i < pan.length; i++) {
    let d = pan.charCodeAt(pan.length - 1 - i) - 48;
    if (i % 2 === 1 && (d *= 2) > 9) d -= 9;
    sum += d;
  }
  return sum % 10 === 0;
}

/** How a payment said it uses a stored card (the fields of Checkout.com's stored-card rules). */
export interface StoredCredentialFlags {
  merchantInitiated: boolean;
  /** `source.stored`. */
  stored: boolean;
  previousPaymentId: string | null;
  paymentType: string;
}

/** A merchant-initiated payment carrying every stored-card detail Checkout.com asks for. */
export function flaggedMerchantInitiated(f: StoredCredentialFlags): boolean {
  return f.merchantInitiated && f.stored && !!f.previousPaymentId && ['Recurring', 'Installment', 'Unscheduled'].includes(f.paymentType);
}

export interface SimPaymentInput extends StoredCredentialFlags {
  number: string;
  expiryMonth: number;
  expiryYear: number;
  /** 3-D Secure data came with the payment (an external authentication), or Checkout.com's 3DS ran. */
  authenticated: boolean;
  now: Date;
}

/** The response code of a payment. */
export function decide(p: SimPaymentInput): string {
  if (!luhn(p.number)) return '20014';
  const endOfExpiry = Date.UTC(p.expiryYear, p.expiryMonth, 1);
  if (!(p.expiryMonth >= 1 && p.expiryMonth <= 12) || endOfExpiry <= p.now.getTime()) return '20054';
  switch (p.number) {
    case CHECKOUT_SIM_CARDS.REFUSED:
      return '20005';
    case CHECKOUT_SIM_CARDS.INSUFFICIENT_FUNDS:
      return '20051';
    case CHECKOUT_SIM_CARDS.FRAUD:
      return '20059';
    case CHECKOUT_SIM_CARDS.SOFT_DECLINE:
      return p.authenticated || p.paymentType === 'MOTO' || flaggedMerchantInitiated(p) ? '10000' : '20154';
    default:
      return '10000';
  }
}
