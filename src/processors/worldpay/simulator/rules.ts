/**
 * The Worldpay simulator's decisions (pure): what a payment gets. As in Worldpay's Try environment, the
 * card holder's name drives the issuer's answer (Payments API "Testing": `AUTHORISED`, `REFUSED`, and
 * `REFUSED<code>` refuse with that refusal code); any other name is authorized. The simulator adds test
 * cards of its own for tests that give only a number (any future expiry, any CVC):
 *   4000000000000002  refused, 5 (REFUSED)
 *   4000000000009995  refused, 51 (LIMIT EXCEEDED)
 *   4000000000000119  refused, 34 (FRAUD SUSPICION)
 *   4000002760003184  refused 1A (additional customer authentication required) for a customer payment
 *                     without 3-D Secure; authorized with 3-D Secure, in MoTo, and in a merchant-initiated
 *                     payment whose customer agreement quotes the first payment's scheme reference
 *                     (subscription or installment `subsequent`, or unscheduled)
 *   4000000000001091  3-D Secure: challenged (Worldpay's challenge test card); authorized once passed
 * Any other card is authorized; an expired card is refused 33 (CARD EXPIRED). A refund of 113 (1.13 in a
 * two-decimal currency) is taken and then fails when Worldpay processes it.
 */
export const WORLDPAY_SIM_CARDS = {
  REFUSED: '4000000000000002',
  INSUFFICIENT_FUNDS: '4000000000009995',
  FRAUD: '4000000000000119',
  SOFT_DECLINE: '4000002760003184',
  CHALLENGE: '4000000000001091',
  APPROVED: '4444333322221111',
} as const;

/** A refund of this amount (minor units, any currency) is taken (sentForRefund) and then fails (refundFailed, 5 REFUSED). */
export const WORLDPAY_SIM_FAILED_REFUND_AMOUNT = 113;

export const DESCRIPTIONS: Record<string, string> = {
  '4': 'HOLD CARD', '5': 'REFUSED', '13': 'INVALID AMOUNT', '33': 'CARD EXPIRED', '34': 'FRAUD SUSPICION', '41': 'LOST CARD',
  '43': 'STOLEN CARD, PICK UP', '51': 'LIMIT EXCEEDED', '55': 'INVALID SECURITY CODE', '1A': 'ADDITIONAL CUSTOMER AUTHENTICATION REQUIRED',
};

export interface SimPaymentInput {
  number: string;
  holder: string | null;
  expiryMonth: number;
  expiryYear: number;
  channel: 'ecom' | 'moto';
  /** The customer agreement's type and usage, and whether it quotes a scheme reference. */
  agreement: { type: string; usage: string | null; schemeReference: boolean } | null;
  /** 3-D Secure authenticated the cardholder. */
  authenticated: boolean;
  now: Date;
}

/** A merchant-initiated payment as Worldpay's stored-credential rules ask for it. */
export function flaggedMerchantInitiated(a: SimPaymentInput['agreement']): boolean {
  if (!a || !a.schemeReference) return false;
  return a.type === 'unscheduled' || ((a.type === 'subscription' || a.type === 'installment') && a.usage === 'subsequent');
}

/** The refusal of a payment (`code` null: refused without a code), or null: authorized. */
export function decide(p: SimPaymentInput): { code: string | null; description: string } | null {
  const magic = /^REFUSED(\d{0,2}|1A)$/.exec(p.holder ?? '');
  if (magic) return { code: magic[1] || null, description: DESCRIPTIONS[magic[1]] ?? 'REFUSED' };
  if (Date.UTC(p.expiryYear, p.expiryMonth, 1) <= p.now.getTime()) return { code: '33', description: DESCRIPTIONS['33'] };
  switch (p.number) {
    case WORLDPAY_SIM_CARDS.REFUSED:
      return { code: '5', description: DESCRIPTIONS['5'] };
    case WORLDPAY_SIM_CARDS.INSUFFICIENT_FUNDS:
      return { code: '51', description: DESCRIPTIONS['51'] };
    case WORLDPAY_SIM_CARDS.FRAUD:
      return { code: '34', description: DESCRIPTIONS['34'] };
    case WORLDPAY_SIM_CARDS.SOFT_DECLINE:
      return p.authenticated || p.channel === 'moto' || flaggedMerchantInitiated(p.agreement) ? null : { code: '1A', description: DESCRIPTIONS['1A'] };
    default:
      return null;
  }
}
