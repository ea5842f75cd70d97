/**
 * The Redsys simulator's decisions (pure): what Redsys answers for an operation, given the orders it
 * keeps per merchant code and terminal. Written from the protocol documents; no code of ours that talks
 * to Redsys is used here, so the simulator is an independent counterpart of the connector.
 *
 * Test cards: the sandbox's (the same scenarios run against every connector's simulator), plus Redsys
 * answers for reasons the sandbox has no card for:
 *   4548812049400004  approved (3-D Secure 2: frictionless, with a 3DS method)
 *   4000000000003055  approved (3-D Secure 2: frictionless, no 3DS method)
 *   4761739000091011  approved (3-D Secure 2: challenge, with a 3DS method)
 *   4918019199883839  approved (3-D Secure 2: challenge, no 3DS method)
 *   5150796024238164  3-D Secure challenge fails (0184); approved without authentication (MoTo)
 *   5223798193659108  soft decline 0195 unless authenticated, MoTo or merchant-initiated
 *   5485009949201879, 4111111111111111   0190 declined by the issuer
 *   4000000000009995  0116 insufficient funds
 *   4000000000000002  0180 card not supported
 *   4000000000000259  0202 suspected fraud
 *   4000000000000101  0129 wrong CVV (whenever a CVV is given)
 *   4548810000000003  3-D Secure 1 only: the card configuration says NO_3DS_v2
 *   4548815374025114  card configuration in EMV 3DS 2.2.0, but the authentication answers a 3-D Secure 1
 *                     challenge (protocolVersion 1.0.2, MD, PAReq), as Redsys's sandbox did for this card
 *                     (recorded by redsys-easy's "Rest 3DS v2.2 MIT exception" test until December 2023)
 *   4000000000009987  9999 in progress: sent to the issuer to authenticate the cardholder (customer
 *                     payments without authentication); the test decides it later (`decideInProgress`),
 *                     then Redsys notifies and its query service answers the result
 * An expired card is 0101; a number failing Luhn is SIS0253.
 */
export const SIM_CARDS = {
  APPROVED: '4548812049400004',
  FRICTIONLESS_NO_METHOD: '4000000000003055',
  CHALLENGE: '4761739000091011',
  CHALLENGE_NO_METHOD: '4918019199883839',
  CHALLENGE_FAILS: '5150796024238164',
  SOFT_DECLINE: '5223798193659108',
  REFUSED: '5485009949201879',
  REFUSED_VISA: '4111111111111111',
  INSUFFICIENT_FUNDS: '4000000000009995',
  NOT_SUPPORTED: '4000000000000002',
  FRAUD: '4000000000000259',
  CVV_FAIL: '4000000000000101',
  IN_PROGRESS: '4000000000009987',
  THREEDS1_ONLY: '4548810000000003',
  THREEDS1_CHALLENGE: '4548815374025114',
} as const;

/** `Ds_Response` codes of an operation still in progress at Redsys (no decision yet). */
export const IN_PROGRESS_CODES = ['9998', '9999'] as const;

/**
 * `version`: what the card configuration answers (`NO_3DS_v2`: 3-D Secure 1 only); `v1Challenge`: the
 * authentication answers a 3-D Secure 1 challenge (MD, PAReq) although the configuration said 2.x.
 */
export type ThreeDSPath = { method: boolean; challenge: boolean; version: '2.1.0' | '2.2.0' | 'NO_3DS_v2'; v1Challenge?: boolean };

/** How 3-D Secure 2 goes for a card: with or without a 3DS method, frictionless or challenge. */
export function threedsPathOf(pan: string): ThreeDSPath {
  switch (pan) {
    case SIM_CARDS.CHALLENGE:
    case SIM_CARDS.CHALLENGE_FAILS:
    case SIM_CARDS.SOFT_DECLINE:
      return { method: true, challenge: true, version: '2.1.0' };
    case SIM_CARDS.CHALLENGE_NO_METHOD:
      return { method: false, challenge: true, version: '2.1.0' };
    case SIM_CARDS.FRICTIONLESS_NO_METHOD:
      return { method: false, challenge: false, version: '2.1.0' };
    case SIM_CARDS.THREEDS1_ONLY:
      return { method: false, challenge: true, version: 'NO_3DS_v2' };
    case SIM_CARDS.THREEDS1_CHALLENGE:
      return { method: false, challenge: true, version: '2.2.0', v1Challenge: true };
    default:
      return { method: true, challenge: false, version: '2.1.0' };
  }
}

function luhn(pan: string): boolean {
  if (!/^\d{12,19}$/.test(pan)) return false;
  let sum = 0;
  let dbl = false;
  for (let i = pan.length - 1; i >= 0; i--) {
    let d = pan.charCodeAt(i) - 48;
    if (dbl && (d *= 2) > 9) d -= 9;
    sum += d;
    dbl = !dbl;
  }
  return sum % 10 === 0;
}

export interface SimPayment {
  pan: string;
  /** YYMM */
  expiry: string;
  cvv: string | null;
  /** `moto`, `true` (MIT, verification) or null. */
  directPayment: string | null;
  excepSca: string | null;
  cofIni: string | null;
  cofTxnid: string | null;
  /** The cardholder was authenticated (EMV 3DS transStatus Y/A, ours or an external one). */
  authenticated: boolean;
  /** The authentication failed (challenge answered N). */
  authenticationFailed: boolean;
  now: Date;
}

/** `{ code }` a Ds_Response, or `{ error }` a SIS protocol error (nothing done). */
export type Decision = { code: string } | { error: string };

export function decidePayment(p: SimPayment): Decision {
  if (!luhn(p.pan)) return { error: 'SIS0253' };
  if (!/^\d{4}$/.test(p.expiry)) return { error: 'SIS0066' };
  if (p.excepSca !== null && !['MIT', 'LWV', 'TRA', 'COR', 'ATD'].includes(p.excepSca)) return { error: 'SIS0616' };
  const mit = p.excepSca === 'MIT';
  if (mit && (p.cofIni !== 'N' || !p.cofTxnid)) return { error: 'SIS0617' };
  const yy = 2000 + Number(p.expiry.slice(0, 2));
  const mm = Number(p.expiry.slice(2));
  if (mm < 1 || mm > 12) return { error: 'SIS0066' };
  const nowY = p.now.getUTCFullYear();
  const nowM = p.now.getUTCMonth() + 1;
  if (yy < nowY || (yy === nowY && mm < nowM)) return { code: '0101' };
  if (p.authenticationFailed) return { code: '0184' };
  if (p.pan === SIM_CARDS.CVV_FAIL && p.cvv) return { code: '0129' };
  switch (p.pan) {
    case SIM_CARDS.REFUSED:
    case SIM_CARDS.REFUSED_VISA:
      return { code: '0190' };
    case SIM_CARDS.INSUFFICIENT_FUNDS:
      return { code: '0116' };
    case SIM_CARDS.NOT_SUPPORTED:
      return { code: '0180' };
    case SIM_CARDS.FRAUD:
      return { code: '0202' };
    case SIM_CARDS.SOFT_DECLINE:
      return p.authenticated || p.directPayment === 'moto' || mit ? { code: '0000' } : { code: '0195' };
    case SIM_CARDS.IN_PROGRESS:
      // the issuer authenticates the cardholder before it decides
      return p.authenticated || p.directPayment === 'moto' || mit ? { code: '0000' } : { code: '9999' };
    default:
      return { code: '0000' };
  }
}

/** An order the simulator keeps (per merchant code, terminal and order number). */
export interface SimOrder {
  /** `0` payment or `1` pre-authorization. */
  type: '0' | '1';
  amount: number;
  currency: string;
  approved: boolean;
  confirmed: number;
  refunded: number;
  cancelled: boolean;
}

/** A follow-up on a kept order: confirmation (2), refund (3), cancellation (9). Capped amounts. */
export function decideFollowUp(order: SimOrder | undefined, type: '2' | '3' | '9', amount: number, currency: string): Decision {
  if (type === '2') {
    if (!order || order.type !== '1') return { error: 'SIS0059' };
    if (!order.approved || order.cancelled) return { error: 'SIS0061' };
    if (order.confirmed > 0) return { error: 'SIS0060' };
    if (currency !== order.currency) return { error: 'SIS0027' };
    if (amount > order.amount) return { error: 'SIS0062' };
    return { code: '0900' };
  }
  if (type === '3') {
    if (!order) return { error: 'SIS0054' };
    if (!order.approved || order.cancelled) return { error: 'SIS0056' };
    if (currency !== order.currency) return { error: 'SIS0027' };
    const charged = order.type === '0' ? order.amount : order.confirmed;
    if (amount > charged - order.refunded) return { error: 'SIS0057' };
    return { code: '0900' };
  }
  // a cancellation (anulación) is of a pre-authorization
  if (!order || order.type !== '1') return { error: 'SIS0225' };
  if (!order.approved) return { error: 'SIS0223' };
  if (order.cancelled) return { error: 'SIS0222' };
  if (order.confirmed > 0) return { error: 'SIS0072' };
  return { code: '0400' };
}
