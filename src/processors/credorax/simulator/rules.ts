/**
 * The Credorax simulator's decisions (pure): what a payment gets. Test cards (any future expiry, any
 * CVV); the first three are Finaro's sandbox cards (docs.paylands.com, "Finaro (Credorax)"):
 *   4018810000100036  approved; with 3-D Secure, frictionless
 *   4018810000150015  with 3-D Secure, the challenge (the simulated ACS: authenticate or fail); without
 *                     it, the issuer's soft decline 1A (strong customer authentication required)
 *   4548812049400004  declined, 05 (do not honour)
 *   4000000000009995  declined, 51 (insufficient funds)
 *   4000000000000119  declined, 43 (stolen card)
 *   4000000000000069  declined, 54 (expired card)
 *   4000002760003184  1A for a customer payment without 3-D Secure; approved with 3-D Secure (i8 or
 *                     3ds_initiate), in MoTo (a2=3), and in a merchant-initiated payment quoting the first
 *                     payment's scheme reference (a9 2 or 8 with g6)
 * Any other Luhn-valid card is approved; a Luhn-invalid number is 14 (invalid card number), an expired
 * expiry date 54.
 */
export const CREDORAX_SIM_CARDS = {
  APPROVED: '4018810000100036',
  CHALLENGE: '4018810000150015',
  REFUSED: '4548812049400004',
  INSUFFICIENT_FUNDS: '4000000000009995',
  STOLEN: '4000000000000119',
  EXPIRED: '4000000000000069',
  SOFT_DECLINE: '4000002760003184',
  AMEX: '378282246310005',
} as const;

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
  /** b3, b4 (two digits). */
  expiryMonth: number;
  expiryYear: number;
  moto: boolean;
  /** a9 2 or 8 with g6. */
  merchantInitiated: boolean;
  authenticated: boolean;
  now: Date;
}

/** The issuer's code (z6) of a declined payment; null: approved. */
export function decide(p: SimPaymentInput): string | null {
  if (!luhn(p.number)) return '14';
  if (Date.UTC(2000 + p.expiryYear, p.expiryMonth, 1) <= p.now.getTime()) return '54';
  switch (p.number) {
    case CREDORAX_SIM_CARDS.REFUSED:
      return '05';
    case CREDORAX_SIM_CARDS.INSUFFICIENT_FUNDS:
      return '51';
    case CREDORAX_SIM_CARDS.STOLEN:
      return '43';
    case CREDORAX_SIM_CARDS.EXPIRED:
      return '54';
    case CREDORAX_SIM_CARDS.SOFT_DECLINE:
    case CREDORAX_SIM_CARDS.CHALLENGE:
      return p.authenticated || p.moto || p.merchantInitiated ? null : '1A';
    default:
      return null;
  }
}

const WORDS: Record<string, string> = {
  '05': 'Transaction has been declined.',
  '14': 'Transaction has been declined. Invalid card number.',
  '43': 'Transaction has been declined.',
  '51': 'Transaction has been declined.',
  '54': 'Transaction has been declined.',
  '1A': 'Transaction has been declined. Strong Customer Authentication required.',
};

export function wordsOf(code: string): string {
  return WORDS[code] ?? 'Transaction has been declined.';
}
