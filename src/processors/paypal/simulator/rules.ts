/**
 * The PayPal simulator's decisions (pure): the processor response code of a card payment. Test cards
 * (any future expiry, any CVV):
 *   4000000000000002  0500 (Do not honor)
 *   4000000000009995  5120 (Insufficient funds)
 *   4000002760003184  customer payments need 3-D Secure: the order answers PAYER_ACTION_REQUIRED;
 *                     MoTo and merchant-initiated payments (stored_credential MERCHANT) are approved
 *   4000000000000119  9500 (Suspected fraud)
 * Any other Luhn-valid card is approved (0000); a number failing the Luhn check is 1330, an expired
 * card 5400.
 */
export const PAYPAL_SIM_CARDS = {
  REFUSED: '4000000000000002',
  INSUFFICIENT_FUNDS: '4000000000009995',
  SOFT_DECLINE: '4000002760003184',
  FRAUD: '4000000000000119',
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

/** '0000', a refusal code, or 'SCA' (the order waits for 3-D Secure). */
export function decide(p: { number: string; expiry: string; merchantInitiated: boolean; now: Date }): string {
  if (!luhn(p.number)) return '1330';
  const m = /^(\d{4})-(\d{2})$/.exec(p.expiry);
  if (!m || Date.UTC(Number(m[1]), Number(m[2]), 1) <= p.now.getTime()) return '5400';
  switch (p.number) {
    case PAYPAL_SIM_CARDS.REFUSED:
      return '0500';
    case PAYPAL_SIM_CARDS.INSUFFICIENT_FUNDS:
      return '5120';
    case PAYPAL_SIM_CARDS.FRAUD:
      return '9500';
    case PAYPAL_SIM_CARDS.SOFT_DECLINE:
      return p.merchantInitiated ? '0000' : 'SCA';
    default:
      return '0000';
  }
}
