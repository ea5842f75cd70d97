/**
 * The Clearhaus simulator's decisions (pure): what an authorization gets. As Clearhaus's test
 * environment does ("Test card numbers", docs.gateway.clearhaus.com #test-card-numbers):
 *  - the special test PANs 2221000000000009, 4111111111111111 and 5000000000000004 are approved;
 *  - a PAN starting 420000 and ending 0000, or starting 555555 and ending 4444, takes a valid status code
 *    as its amount and answers that status; any other amount gives 40110 (Invalid card number);
 *  - the CSC 987, and only 987, matches (`csc.matches`); a CSC that does not match is approved anyway, as
 *    some issuers do ("Reserve money").
 * The simulator adds cards of its own for tests that give only a number (any future expiry), and
 * approves any other card:
 *   4000000000000002  40410 Declined by issuer or card scheme
 *   4000000000009995  40413 Insufficient funds
 *   4000000000000119  40414 Suspected fraud
 *   4000000000000069  40412 Card lost or stolen
 *   4000002760003184  40416 Additional authentication required, for a payment the cardholder initiates
 *                     without a 3-D Secure result (Y or A); approved in MoTo and merchant-initiated
 * An expired card is refused 40135 (Card expired).
 */
import { STATUS_CODE_VALUES } from '../spec.js';

export const CLEARHAUS_SIM_CARDS = {
  APPROVED: '4111111111111111',
  APPROVED_MASTERCARD: '2221000000000009',
  TRIGGER: '4200000000000000',
  TRIGGER_MASTERCARD: '5555555555554444',
  DECLINED: '4000000000000002',
  INSUFFICIENT_FUNDS: '4000000000009995',
  FRAUD: '4000000000000119',
  LOST: '4000000000000069',
  SOFT_DECLINE: '4000002760003184',
} as const;

/** The only CSC that matches on the test environment. */
export const MATCHING_CSC = '987';

export const MEANINGS: Record<number, string> = {
  20000: 'Approved', 40000: 'General input error', 40110: 'Invalid card number', 40111: 'Unsupported card scheme', 40120: 'Invalid CSC', 40130: 'Invalid expire date',
  40135: 'Card expired', 40140: 'Invalid currency', 40150: 'Invalid text on statement', 40200: 'Clearhaus rule violation', 40300: '3-D Secure problem',
  40310: '3-D Secure authentication failure', 40400: 'Backend problem', 40410: 'Declined by issuer or card scheme', 40411: 'Card restricted', 40412: 'Card lost or stolen',
  40413: 'Insufficient funds', 40414: 'Suspected fraud', 40415: 'Amount limit exceeded', 40416: 'Additional authentication required', 40420: 'Merchant blocked by cardholder', 50000: 'Clearhaus error',
};

export interface SimAuthInput {
  pan: string;
  expireMonth: number;
  expireYear: number;
  amount: number;
  moto: boolean;
  /** A merchant-initiated authorization (a subsequent-in-series, or initiator merchant). */
  merchantInitiated: boolean;
  /** A 3-D Secure result of Y or A came with it. */
  authenticated: boolean;
  now: Date;
}

/** Whether a PAN takes its status from the amount (the documented trigger ranges). */
export function isTriggerCard(pan: string): boolean {
  return (pan.startsWith('420000') && pan.endsWith('0000')) || (pan.startsWith('555555') && pan.endsWith('4444'));
}

/** The status code an authorization gets (20000: approved). */
export function decide(p: SimAuthInput): number {
  if (p.expireMonth < 1 || p.expireMonth > 12) return 40130;
  if (Date.UTC(p.expireYear, p.expireMonth, 1) <= p.now.getTime()) return 40135;
  if (isTriggerCard(p.pan)) return STATUS_CODE_VALUES.includes(p.amount) ? p.amount : 40110;
  switch (p.pan) {
    case CLEARHAUS_SIM_CARDS.DECLINED:
      return 40410;
    case CLEARHAUS_SIM_CARDS.INSUFFICIENT_FUNDS:
      return 40413;
    case CLEARHAUS_SIM_CARDS.FRAUD:
      return 40414;
    case CLEARHAUS_SIM_CARDS.LOST:
      return 40412;
    case CLEARHAUS_SIM_CARDS.SOFT_DECLINE:
      return p.moto || p.merchantInitiated || p.authenticated ? 20000 : 40416;
    default:
      return 20000;
  }
}
