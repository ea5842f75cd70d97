/**
 * The Trust Payments simulator's decisions (pure): what an AUTH or ACCOUNTCHECK gets. As on Trust
 * Payments' test bank ("Testing card payments"), the amount drives the outcome: a baseamount of 70000
 * (700.00) is declined (70000 Decline) and 60010 (600.10) gets a Bank System Error (60010, outcome not
 * known); the Webservices library's test cards answer as they do there: 4111111111111111 and
 * 5100000000000511 authorized, 4242424242424242 declined (70000, authcode DECLINED). The simulator adds
 * cards of its own for tests that give only a number (any future expiry, any security code):
 *   4000000000009995  60042 Insufficient funds
 *   4000000000000119  60036 Max fraudscore exceeded
 *   4000002760003184  71000 Soft Decline (SCA required) for an ECOM payment that stores no card on a
 *                     stored credential; authorized in MOTO and for merchant-initiated payments
 * Any other card is authorized; an expired card is refused 31002 (its expiry date).
 */
export const TRUSTPAYMENTS_SIM_CARDS = {
  APPROVED: '4111111111111111',
  DECLINED: '4242424242424242',
  INSUFFICIENT_FUNDS: '4000000000009995',
  FRAUD: '4000000000000119',
  SOFT_DECLINE: '4000002760003184',
} as const;

/** The test bank's amounts that decide the outcome whatever the card. */
export const TRUSTPAYMENTS_SIM_AMOUNTS = { DECLINE: 70000, BANK_ERROR: 60010 } as const;

export const MESSAGES: Record<string, string> = {
  '0': 'Ok', '70000': 'Decline', '60010': 'Bank System Error', '60042': 'Insufficient funds', '60036': 'Max fraudscore exceeded',
  '71000': 'Soft Decline', '31002': 'The expiry date you have provided is incorrect, please verify your details and try again',
};

export interface SimAuthInput {
  pan: string;
  expiryMonth: number;
  expiryYear: number;
  amount: number;
  accounttype: string;
  /** A merchant-initiated payment quoting its parent. */
  merchantInitiated: boolean;
  now: Date;
}

/** The errorcode an AUTH or ACCOUNTCHECK gets ("0": authorized). */
export function decide(p: SimAuthInput): string {
  if (Date.UTC(p.expiryYear, p.expiryMonth, 1) <= p.now.getTime()) return '31002';
  if (p.amount === TRUSTPAYMENTS_SIM_AMOUNTS.DECLINE) return '70000';
  if (p.amount === TRUSTPAYMENTS_SIM_AMOUNTS.BANK_ERROR) return '60010';
  switch (p.pan) {
    case TRUSTPAYMENTS_SIM_CARDS.DECLINED:
      return '70000';
    case TRUSTPAYMENTS_SIM_CARDS.INSUFFICIENT_FUNDS:
      return '60042';
    case TRUSTPAYMENTS_SIM_CARDS.FRAUD:
      return '60036';
    case TRUSTPAYMENTS_SIM_CARDS.SOFT_DECLINE:
      return p.accounttype === 'MOTO' || p.merchantInitiated ? '0' : '71000';
    default:
      return '0';
  }
}
