/**
 * The PayPal simulator's decisions (pure): what the issuer of a test card says. Test cards (any future
 * expiry, any CVV):
 *   4000000000000002  0500 (Do not honor)
 *   4000000000009995  5120 (Insufficient funds)
 *   4000000000000119  9500 (Suspected fraud)
 *   4000002760003184  the issuer requires strong customer authentication of customer payments: PayPal
 *                     answers 422 PAYER_ACTION_REQUIRED when 3-D Secure is asked "when required" (the
 *                     default). Merchant-initiated payments (stored_credential MERCHANT) and payments
 *                     verified by AVS/CVV instead (MoTo) are out of its scope and approved; after 3-D
 *                     Secure it is approved only when the liability may shift
 *   4000000000003055  not enrolled in 3-D Secure: PayPal's page sends the cardholder straight back
 *                     (enrollment N, liability NO); approved
 *   4000000000000259  PayPal holds the capture or authorization for review: PENDING (PENDING_REVIEW), until
 *                     the simulator decides it (`decidePending`)
 * Any other Luhn-valid card is approved (0000); a number failing the Luhn check is 1330, an expired
 * card 5400.
 */
export const PAYPAL_SIM_CARDS = {
  REFUSED: '4000000000000002',
  INSUFFICIENT_FUNDS: '4000000000009995',
  SOFT_DECLINE: '4000002760003184',
  FRAUD: '4000000000000119',
  NOT_ENROLLED: '4000000000003055',
  PENDING: '4000000000000259',
  APPROVED: '4111111111111111',
} as const;

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

export interface IssuerRule {
  /** '0000' or a refusal code (processor_response.response_code). */
  code: string;
  /** The issuer requires strong customer authentication of a customer payment. */
  requiresSca: boolean;
  /** Enrolled in 3-D Secure. */
  enrolled: boolean;
  /** PayPal holds the payment for review (PENDING). */
  pending: boolean;
}

/** What the issuer says about a card. */
export function issuerRule(p: { number: string; expiry: string; now: Date }): IssuerRule {
  const rule = (code: string, extra: Partial<IssuerRule> = {}): IssuerRule => ({ code, requiresSca: false, enrolled: true, pending: false, ...extra });
  if (!luhn(p.number)) return rule('1330');
  const m = /^(\d{4})-(\d{2})$/.exec(p.expiry);
  if (!m || Date.UTC(Number(m[1]), Number(m[2]), 1) <= p.now.getTime()) return rule('5400');
  switch (p.number) {
    case PAYPAL_SIM_CARDS.REFUSED:
      return rule('0500');
    case PAYPAL_SIM_CARDS.INSUFFICIENT_FUNDS:
      return rule('5120');
    case PAYPAL_SIM_CARDS.FRAUD:
      return rule('9500');
    case PAYPAL_SIM_CARDS.SOFT_DECLINE:
      return rule('0000', { requiresSca: true });
    case PAYPAL_SIM_CARDS.NOT_ENROLLED:
      return rule('0000', { enrolled: false });
    case PAYPAL_SIM_CARDS.PENDING:
      return rule('0000', { pending: true });
    default:
      return rule('0000');
  }
}

/** The card's network as PayPal names it (`card_brand`), by its leading digits (the test cards' networks). */
export function simNetwork(pan: string): string {
  if (/^4/.test(pan)) return 'VISA';
  if (/^(5[1-5]|2(2[2-9]|[3-6][0-9]|7[01]|720))/.test(pan)) return 'MASTERCARD';
  if (/^3[47]/.test(pan)) return 'AMEX';
  if (/^(6011|65|64[4-9])/.test(pan)) return 'DISCOVER';
  if (/^35/.test(pan)) return 'JCB';
  return 'UNKNOWN';
}
