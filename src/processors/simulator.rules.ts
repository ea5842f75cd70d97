/**
 * The sandbox processor's decisions (decisions §5), as pure functions: no clock, no randomness, no IO.
 * The same input always gives the same outcome, so tests and merchants can rely on the test cards.
 *
 * Test cards (any future expiry, any holder, any CVV of the brand's length: 3 digits, 4 for Amex):
 *   4761739000091011  3DS authentication succeeds
 *   5150796024238164  3DS authentication fails (MoTo approved)
 *   5590337536718399  approved without 3DS
 *   5223798193659108  soft decline without 3DS: a challenge is needed; approved after 3DS, with a
 *                     network token cryptogram (wallets) or in MoTo
 *   5485009949201879  refused
 *   4000058400000071  partial authorization: half the amount is approved
 *   4548812049400004  approved
 *   4111111111111111  refused
 *   4000000000000101  the CVV check fails: whenever a CVV is given, the payment or validation is
 *                     declined (DENIED, "CVV check failed"); without a CVV it is approved
 *   4000000000003055  3DS frictionless: authenticated without a challenge
 *   4000002500003155  card-present: the issuer wants the chip (SWITCH_INTERFACE) unless the card was
 *                     inserted (ICC); approved when it was
 * Any other Luhn-valid card is approved; a Luhn-invalid card is INVALID_CARD. A CVV of the wrong length
 * for the brand fails the CVV check like a wrong one (DENIED).
 *
 * 3DS: the first message (AReq) authenticates the frictionless card at once; with an exemption asked
 * for, the ACS acknowledges it (transStatus I) except for the soft-decline and 3DS-fail cards, whose
 * issuers want a challenge; every other card needs the challenge. The sandbox ACS challenge page lets
 * the cardholder approve or fail; a failed challenge, and the 3DS-fail card whatever the answer, fail
 * the authentication.
 *
 * Strong customer authentication on the terminal (card-present payments, decisions §11): a contactless
 * (NFC) payment above CONTACTLESS_CVM_LIMIT minor units without a PIN is answered REQUEST_PIN; the
 * SWITCH_INTERFACE card above is answered SWITCH_INTERFACE unless it was read by chip. The terminal then
 * sends the payment again with the PIN, or with the card inserted.
 *
 * Bizum phones (decisions §5): 700000000 pays, 700000001 is refused; any other valid Spanish mobile
 * number pays too.
 */
import { createHash } from 'node:crypto';
import countries from 'i18n-iso-countries';
import type { HolderInput, HolderMatch, ProcessorResult, SettledResult, TerminalAction, TerminalRead, ThreeDSResult, TxError } from './connector.js';

export const TEST_CARDS = {
  THREEDS_OK: '4761739000091011',
  THREEDS_FAIL: '5150796024238164',
  NON_3DS_OK: '5590337536718399',
  SOFT_DECLINE: '5223798193659108',
  REFUSED: '5485009949201879',
  PARTIAL: '4000058400000071',
  APPROVED: '4548812049400004',
  REFUSED_VISA: '4111111111111111',
  CVV_FAIL: '4000000000000101',
  FRICTIONLESS: '4000000000003055',
  SCA_SWITCH_INTERFACE: '4000002500003155',
} as const;

/** Above this amount (minor units) a contactless payment needs the cardholder's PIN (sandbox CVM limit). */
export const CONTACTLESS_CVM_LIMIT = 5000;

/** A CVV that passes the sandbox check on every 3-digit brand (any 3 digits do; 4 for Amex). */
export const TEST_CVV = '123';

/** The CVV length of a card's brand: 4 for American Express (34, 37), 3 for every other brand. */
export function cvvLengthOf(pan: string): number {
  return /^3[47]/.test(pan) ? 4 : 3;
}

/** The sandbox CVV check (decisions §5): every CVV of the brand's length passes, except on the CVV-fail card. */
export function cvvCheckPasses(pan: string, cvv: string): boolean {
  return pan !== TEST_CARDS.CVV_FAIL && /^[0-9]+$/.test(cvv) && cvv.length === cvvLengthOf(pan);
}

/** Luhn (mod 10) check of a digit string. */
export function luhnValid(pan: string): boolean {
  if (!/^\d{12,19}$/.test(pan)) return false;
  let sum = 0;
  let double = false;
  for (let i = pan.length - 1; i >= 0; i--) {
    let d = pan.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** True when the card's expiry month (inclusive) is over at `now` (UTC calendar). */
export function cardExpired(month: number, year: number, now: Date): boolean {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth() + 1;
  return year < y || (year === y && month < m);
}

/** Short deterministic digests of a reference: authorization codes and processor ids. */
function digest(reference: string, salt: string): string {
  return createHash('sha256').update(`${salt}:${reference}`).digest('hex');
}

export function authorizationCode(reference: string): string {
  return String(parseInt(digest(reference, 'auth').slice(0, 8), 16) % 1_000_000).padStart(6, '0');
}

/**
 * The sandbox processor's id of an operation: `sim_` and 20 hexadecimal digits. Written so that no run of
 * digits in it reads as a card number (a hexadecimal token with a letter is an identifier to the
 * card-number guard; one of 20 digits is too long to be a card), so the sandbox's own ids pass the guard
 * of every file they come back in (a settlement report).
 */
export function processorId(reference: string): string {
  return `sim_${digest(reference, 'pid').slice(0, 20)}`;
}

export interface SimCard {
  pan: string;
  expiryMonth: number;
  expiryYear: number;
  cvv: string | null;
}

export type PaymentMode = 'SALE' | 'PARTIAL' | 'PREAUTH';

export interface SimPaymentInput {
  reference: string;
  mode: PaymentMode;
  amount: number;
  card: SimCard;
  channel: 'ECOMMERCE' | 'MOTO' | 'MIT' | 'CARD_PRESENT';
  /** The payment went through 3DS (ours or an external MPI) with this result. */
  threeds: ThreeDSResult | null;
  /** The payment carries a network token cryptogram (wallets, token services): the device authenticated the cardholder. */
  cryptogram?: boolean;
  now: Date;
  /** CARD_PRESENT: how the terminal read the card. */
  cardPresent?: TerminalRead | null;
}

/**
 * The terminal action the issuer asks for before a card-present payment (SCA on the terminal), or null
 * when the payment may go ahead. Pure: the card, the amount and how the card was read decide.
 */
export function terminalActionFor(pan: string, amount: number, terminal: TerminalRead | null | undefined): TerminalAction | null {
  const method = terminal?.readingMethod ?? null;
  if (pan === TEST_CARDS.SCA_SWITCH_INTERFACE && method !== 'ICC') return 'SWITCH_INTERFACE';
  if (method === 'NFC' && amount > CONTACTLESS_CVM_LIMIT && !terminal?.pinEntered) return 'REQUEST_PIN';
  return null;
}

function declined(reference: string, error: Exclude<TxError, 'NONE'>, details: string): SettledResult {
  return { outcome: 'DECLINED', error, details, processorId: processorId(reference) };
}

function approved(reference: string, amount: number): SettledResult {
  return { outcome: 'APPROVED', authorization: authorizationCode(reference), processorId: processorId(reference), amount };
}

/** Checks every card must pass, whatever the operation. Null when the card is acceptable. */
export function cardProblem(reference: string, card: SimCard, now: Date): SettledResult | null {
  if (!luhnValid(card.pan)) return declined(reference, 'INVALID_CARD', 'The card number is not valid');
  if (cardExpired(card.expiryMonth, card.expiryYear, now)) return declined(reference, 'EXPIRED_CARD', 'The card has expired');
  if (card.cvv !== null && !cvvCheckPasses(card.pan, card.cvv)) return declined(reference, 'DENIED', 'CVV check failed');
  return null;
}

const AUTHENTICATED = (ts: ThreeDSResult | null) => !!ts && (ts.transStatus === 'Y' || ts.transStatus === 'A');
/** Y/A, or I: the issuer acknowledged an exemption (no authentication, but nothing failed). */
const MAY_PROCEED = (ts: ThreeDSResult) => AUTHENTICATED(ts) || ts.transStatus === 'I';

/** The outcome of an authorization, partial authorization or pre-authorization. */
export function decidePayment(input: SimPaymentInput): ProcessorResult {
  const { card, reference, amount } = input;
  const problem = cardProblem(reference, card, input.now);
  if (problem) return problem;
  if (input.threeds && !MAY_PROCEED(input.threeds)) {
    return declined(reference, 'AUTHENTICATION_FAILED', `3DS authentication not successful (transStatus ${input.threeds.transStatus})`);
  }
  if (input.channel === 'CARD_PRESENT') {
    const action = terminalActionFor(card.pan, amount, input.cardPresent);
    if (action) {
      const details = action === 'REQUEST_PIN' ? 'The issuer asks for the PIN (contactless above the CVM limit)' : 'The issuer asks for the card to be inserted (chip)';
      return { outcome: 'CHALLENGE', details, terminalAction: action };
    }
  }
  switch (card.pan) {
    case TEST_CARDS.REFUSED:
    case TEST_CARDS.REFUSED_VISA:
      return declined(reference, 'DENIED', 'Refused by the issuer');
    case TEST_CARDS.SOFT_DECLINE:
      if (input.channel === 'MOTO' || input.channel === 'MIT' || input.channel === 'CARD_PRESENT' || AUTHENTICATED(input.threeds) || input.cryptogram) return approved(reference, amount);
      return { outcome: 'CHALLENGE', details: 'The issuer asks for strong customer authentication (soft decline)' };
    case TEST_CARDS.PARTIAL:
      if (input.mode === 'PARTIAL') return approved(reference, Math.floor(amount / 2));
      return declined(reference, 'INSUFFICIENT_FUNDS', 'Only part of the amount is available (partial authorization card)');
    default:
      return approved(reference, amount);
  }
}

/** 3DS authentication of a card (`challenge`: the cardholder's answer on the sandbox ACS page). */
export function decideAuthentication(reference: string, card: SimCard, now: Date, challenge: 'APPROVED' | 'FAILED' | null = null): { ok: boolean; threeds: ThreeDSResult; details: string } {
  const fail = !luhnValid(card.pan) || cardExpired(card.expiryMonth, card.expiryYear, now) || card.pan === TEST_CARDS.THREEDS_FAIL || challenge === 'FAILED';
  return { ok: !fail, threeds: threedsResult(reference, fail ? 'N' : 'Y'), details: fail ? 'The cardholder could not be authenticated' : 'Authenticated' };
}

function threedsResult(reference: string, transStatus: 'Y' | 'N' | 'I'): ThreeDSResult {
  const d = digest(reference, '3ds');
  return {
    version: '2.2.0',
    transStatus,
    eci: transStatus === 'Y' ? '05' : '07',
    cavv: transStatus === 'Y' ? Buffer.from(d.slice(0, 40), 'hex').toString('base64') : null,
    dsTransId: `${d.slice(0, 8)}-${d.slice(8, 12)}-${d.slice(12, 16)}-${d.slice(16, 20)}-${d.slice(20, 32)}`,
  };
}

/**
 * The first 3DS message (AReq): frictionless authentication (the frictionless card), an acknowledged
 * exemption (transStatus I), a frictionless failure (invalid or expired card), or a challenge.
 */
export function decideInitialAuthentication(reference: string, card: SimCard, now: Date, exemption: string | null): { outcome: 'AUTHENTICATED' | 'FAILED'; threeds: ThreeDSResult; details: string } | { outcome: 'CHALLENGE_REQUIRED'; details: string } {
  if (!luhnValid(card.pan) || cardExpired(card.expiryMonth, card.expiryYear, now)) {
    return { outcome: 'FAILED', threeds: threedsResult(reference, 'N'), details: 'The cardholder could not be authenticated' };
  }
  if (card.pan === TEST_CARDS.FRICTIONLESS) return { outcome: 'AUTHENTICATED', threeds: threedsResult(reference, 'Y'), details: 'Authenticated without a challenge' };
  if (exemption && card.pan !== TEST_CARDS.SOFT_DECLINE && card.pan !== TEST_CARDS.THREEDS_FAIL) {
    return { outcome: 'AUTHENTICATED', threeds: threedsResult(reference, 'I'), details: `Exemption acknowledged (${exemption})` };
  }
  return { outcome: 'CHALLENGE_REQUIRED', details: 'The issuer asks for a challenge' };
}

export const BIZUM_PHONES = { PAYS: '700000000', REFUSED: '700000001' } as const;

/** A Bizum payment from the account of `phone` (national digits). */
export function decideBizum(reference: string, amount: number, phone: string): SettledResult {
  if (!/^[67][0-9]{8}$/.test(phone)) return declined(reference, 'INVALID_CARD', 'The phone number has no Bizum account');
  if (phone === BIZUM_PHONES.REFUSED) return declined(reference, 'DENIED', 'The payment was refused in the Bizum app');
  return approved(reference, amount);
}

/** Zero-amount account verification. */
export function decideVerification(reference: string, card: SimCard, now: Date): SettledResult {
  const problem = cardProblem(reference, card, now);
  if (problem) return problem;
  if (card.pan === TEST_CARDS.REFUSED || card.pan === TEST_CARDS.REFUSED_VISA) return declined(reference, 'DENIED', 'Refused by the issuer');
  return approved(reference, 0);
}

/** Payout (credit to a card). Refused cards cannot receive funds either. */
export function decidePayout(reference: string, amount: number, card: SimCard, now: Date): SettledResult {
  const problem = cardProblem(reference, { ...card, cvv: null }, now);
  if (problem) return problem;
  if (card.pan === TEST_CARDS.REFUSED || card.pan === TEST_CARDS.REFUSED_VISA) return declined(reference, 'DENIED', 'The card cannot receive funds');
  return approved(reference, amount);
}

/** Capture, cancel and refund of an approved payment always succeed in the sandbox. */
export function decideFollowUp(reference: string, amount: number): SettledResult {
  return approved(reference, amount);
}

function nameTokens(s: string): string[] {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter(Boolean);
}

/** Holder verification: all name tokens equal → MATCH; some shared → PARTIAL_MATCH; none → NO_MATCH. */
export function decideHolderMatch(registered: string, holder: HolderInput): HolderMatch {
  const given =
    typeof holder.name === 'string' && holder.name.trim()
      ? holder.name
      : [holder.first_name, holder.last_name].filter((x): x is string => typeof x === 'string').join(' ');
  const a = nameTokens(registered);
  const b = nameTokens(given);
  if (a.length === 0 || b.length === 0) return 'NO_MATCH';
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size === sb.size && [...sa].every((t) => sb.has(t))) return 'MATCH';
  return [...sb].some((t) => sa.has(t)) ? 'PARTIAL_MATCH' : 'NO_MATCH';
}

/**
 * The issuing country of a sandbox card (the simulator's BIN data): sandbox cards carry it in the number,
 * `40000` followed by the ISO 3166 numeric code (4000 0724 … is Spanish, 4000 0250 … French, 4000 0840 …
 * from the US). Other cards have no known country here (ISO 3166 alpha-2, or null).
 */
export function sandboxCardCountry(iin: string): string | null {
  const m = /^40000([0-9]{3})/.exec(iin);
  if (!m || m[1] === '000') return null;
  return countries.numericToAlpha2(m[1]) ?? null;
}
