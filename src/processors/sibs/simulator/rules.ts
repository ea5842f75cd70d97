/**
 * The SIBS simulator's decisions (pure): what a card purchase or an MB WAY request gets. SIBS's test
 * environment has its own test cards (going-live-sibs.md); the simulator's are these (any future
 * expiry, any CVV):
 *   4000000000000002  Declined ("Transaction declined by the issuer")
 *   4000000000000010  Declined, E0507-like words are not used for cards: "Insufficient funds"
 * Any other card is approved (Success); an expired card is Declined ("Expired card").
 * MB WAY phones: 912000001 declines at once; 912000002 is never approved (Expired when the simulator
 * expires it); any other waits Pending until `approve` / `expire` (tests) decide it.
 */
export const SIBS_SIM_CARDS = {
  DECLINED: '4000000000000002',
  INSUFFICIENT_FUNDS: '4000000000000010',
  APPROVED: '4176660000000100',
} as const;

export const SIBS_SIM_PHONES = { DECLINED: '912000001', EXPIRES: '912000002' } as const;

/** A refund of this amount (minor units) is answered Pending and then Declined in its notification. */
export const SIBS_SIM_FAILED_REFUND_AMOUNT = 113;

/** The refusal of a card purchase (its words), or null: approved. */
export function decideCard(pan: string, validationDate: string, now: Date): string | null {
  if (Date.parse(validationDate) <= now.getTime()) return 'Expired card';
  if (pan === SIBS_SIM_CARDS.DECLINED) return 'Transaction declined by the issuer';
  if (pan === SIBS_SIM_CARDS.INSUFFICIENT_FUNDS) return 'Insufficient funds';
  return null;
}
