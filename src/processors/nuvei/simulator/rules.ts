/**
 * The Nuvei simulator's decisions (pure): what a card payment gets. As in Nuvei's integration
 * environment, the cardholder's name decides 3-D Secure: `CL-BRW1` is challenged (any card), `FL-BRW1`
 * frictionless. The simulator's test cards (any future expiry, any CVV), the first four being those of
 * Nuvei's integration environment that `paygate connector certify` uses:
 *   4000027891380961  approved (certify pays it as FL-BRW1)
 *   4000023104662535  approved
 *   5333463046218753  declined: Do Not Honor
 *   4000020951595032  3-D Secure: challenged whatever the name (certify pays it as CL-BRW1); approved once passed
 *   4000000000000002  declined: Decline
 *   4000000000009995  declined: Insufficient Funds
 *   4000000000000119  declined: Suspected Fraud
 *   4000002760003184  declined "Authentication Required" (the issuer's soft decline) for a customer payment
 *                     without 3-D Secure; approved with 3-D Secure, in MoTo, and in a merchant-initiated
 *                     payment (`isRebilling` 1 related to the card's first transaction)
 * Any other card is approved; an expired card is declined "Expired Card".
 */
export const NUVEI_SIM_CARDS = {
  APPROVED: '4000023104662535',
  DO_NOT_HONOR: '5333463046218753',
  CHALLENGE: '4000020951595032',
  FRICTIONLESS: '4000027891380961',
  REFUSED: '4000000000000002',
  INSUFFICIENT_FUNDS: '4000000000009995',
  FRAUD: '4000000000000119',
  SOFT_DECLINE: '4000002760003184',
} as const;

export interface SimPaymentInput {
  number: string;
  expiryMonth: number;
  expiryYear: number;
  moto: boolean;
  /** A merchant-initiated payment related to an earlier transaction of the card. */
  merchantInitiated: boolean;
  /** 3-D Secure authenticated the cardholder. */
  authenticated: boolean;
  now: Date;
}

/** The decline of a payment (its reason and Nuvei's extended code), or null: approved. */
export function decide(p: SimPaymentInput): { reason: string; extended: number } | null {
  if (Date.UTC(p.expiryYear, p.expiryMonth, 1) <= p.now.getTime()) return { reason: 'Expired Card', extended: 0 };
  switch (p.number) {
    case NUVEI_SIM_CARDS.DO_NOT_HONOR:
      return { reason: 'Do Not Honor', extended: 0 };
    case NUVEI_SIM_CARDS.REFUSED:
      return { reason: 'Decline', extended: 0 };
    case NUVEI_SIM_CARDS.INSUFFICIENT_FUNDS:
      return { reason: 'Insufficient Funds', extended: 0 };
    case NUVEI_SIM_CARDS.FRAUD:
      return { reason: 'Suspected Fraud', extended: 0 };
    case NUVEI_SIM_CARDS.SOFT_DECLINE:
      return p.authenticated || p.moto || p.merchantInitiated ? null : { reason: 'Authentication Required', extended: 0 };
    default:
      return null;
  }
}

/** Whether a card asks for the challenge when authenticated with 3-D Secure: the name `CL-BRW1` (Nuvei's rule), or the simulator's challenge card. */
export function challenges(number: string, holder: string): boolean {
  return holder.trim().toUpperCase() === 'CL-BRW1' || number === NUVEI_SIM_CARDS.CHALLENGE;
}
