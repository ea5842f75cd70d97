/**
 * The SIBS simulator's decisions (pure): what a card purchase or an MB WAY request gets. The cards of
 * SIBS's test environment (docs.pay.sibs.com, testing assets; going-live-sibs.md) keep their 3-D Secure
 * there: the simulator answers them Partial with the `actionResponse` SIBS names (spec.ts):
 *   4176660000000100, 5185520050000010  3-D Secure with a challenge (THREEDS_CHALLENGE)
 *   5204740000001002                    3-D Secure frictionless, after the issuer's method (THREEDS_METHOD)
 *   4761340000000035, 5206361000001351  no 3-D Secure: approved (Success)
 * and its own declines (any future expiry, any CVV):
 *   4000000000000002  Declined ("Transaction declined by the issuer")
 *   4000000000000010  Declined ("Insufficient funds")
 * Any other card is approved (Success); an expired card is Declined ("Expired card").
 * MB WAY phones: 912000001 declines at once; 912000002 is never approved (Expired when the simulator
 * expires it); any other waits Pending until `approve` / `expire` (tests) decide it.
 */
export const SIBS_SIM_CARDS = {
  DECLINED: '4000000000000002',
  INSUFFICIENT_FUNDS: '4000000000000010',
  APPROVED: '4761340000000035',
  APPROVED_MASTERCARD: '5206361000001351',
  CHALLENGE: '4176660000000100',
  CHALLENGE_MASTERCARD: '5185520050000010',
  FRICTIONLESS: '5204740000001002',
} as const;

export const SIBS_SIM_PHONES = { DECLINED: '912000001', EXPIRES: '912000002' } as const;

/** A refund of this amount (minor units) is answered Pending and then Declined in its notification. */
export const SIBS_SIM_FAILED_REFUND_AMOUNT = 113;

/** What a card purchase gets: approved, declined with SIBS's words, or Partial waiting for a 3-D Secure action. */
export type CardDecision = { kind: 'approved' } | { kind: 'declined'; words: string } | { kind: 'action'; type: 'THREEDS_METHOD' | 'THREEDS_CHALLENGE' };

export function decideCard(pan: string, validationDate: string, now: Date): CardDecision {
  if (Date.parse(validationDate) <= now.getTime()) return { kind: 'declined', words: 'Expired card' };
  if (pan === SIBS_SIM_CARDS.DECLINED) return { kind: 'declined', words: 'Transaction declined by the issuer' };
  if (pan === SIBS_SIM_CARDS.INSUFFICIENT_FUNDS) return { kind: 'declined', words: 'Insufficient funds' };
  if (pan === SIBS_SIM_CARDS.CHALLENGE || pan === SIBS_SIM_CARDS.CHALLENGE_MASTERCARD) return { kind: 'action', type: 'THREEDS_CHALLENGE' };
  if (pan === SIBS_SIM_CARDS.FRICTIONLESS) return { kind: 'action', type: 'THREEDS_METHOD' };
  return { kind: 'approved' };
}
