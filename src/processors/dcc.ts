/**
 * Dynamic currency conversion (DCC): a cardholder whose card is in another currency than the order may
 * pay in the card's currency at a rate quoted before the payment. This file holds what every layer
 * shares:
 *
 *  - `DccRateSource`: where quotes come from (a DCC provider or the acquirer, by the card's BIN). The
 *    gateway asks it when a card is typed on the hosted page; `null` means "nothing to offer";
 *  - the arithmetic of a quote (pure, in integers: no floating point touches money);
 *  - the sandbox rate source: a fixed table of reference rates and a fixed margin, with the card's
 *    currency taken from the sandbox card's issuing country (`40000` + ISO 3166 numeric code).
 */
import countryToCurrency from 'country-to-currency';
import { currencyByCode } from '../platform/money/currency.js';
import { sandboxCardCountry } from './simulator.rules.js';

/** What a rate source is asked: the card's first digits, the order's amount and currency. */
export interface DccQuoteRequest {
  /** The first 6 to 8 digits of the card number. */
  bin: string;
  /** Minor units of `currency`. */
  amount: number;
  /** The order's currency, ISO 4217 alpha-3. */
  currency: string;
  /** Now, on the merchant's clock. */
  now: Date;
}

/** A quote: the order's amount in the card's currency, and how it was computed. */
export interface DccQuote {
  /** The card's currency, ISO 4217 alpha-3 (never the order's). */
  cardholderCurrency: string;
  /** Minor units of the card's currency. */
  cardholderAmount: number;
  /** The applied rate (1 unit of the order's currency in the card's currency), margin included; a decimal string. */
  rate: string;
  /** The reference (wholesale) rate the margin is added to; a decimal string. */
  referenceRate: string;
  /** The margin over the reference rate, in percent; a decimal string ("3.50"). */
  markup: string;
  /** Who quoted it. */
  source: string;
  /** How long the quote holds, in seconds. */
  validSeconds: number;
}

export interface DccRateSource {
  readonly name: string;
  /** The quote for a card and an order; null when there is nothing to offer (card currency unknown, the order's, or not quoted). */
  quote(req: DccQuoteRequest): Promise<DccQuote | null>;
}

// ---- arithmetic -------------------------------------------------------------------------------------------

/** Rates are integers of 10^-8. */
export const RATE_DECIMALS = 8;
const SCALE = 10n ** BigInt(RATE_DECIMALS);

/** round(n / d), half up, for n >= 0, d > 0. */
function divRound(n: bigint, d: bigint): bigint {
  return (n * 2n + d) / (2n * d);
}

/** A decimal string ("1.0850") as an integer of 10^-8; throws on anything else. */
export function parseRate(s: string): bigint {
  const m = /^([0-9]{1,12})(?:\.([0-9]{1,8}))?$/.exec(s);
  if (!m) throw new Error(`not a rate: ${s}`);
  return BigInt(m[1]) * SCALE + BigInt((m[2] ?? '').padEnd(RATE_DECIMALS, '0'));
}

/** An integer of 10^-8 as a decimal string with at least 4 and at most 8 decimals ("1.12297500" → "1.122975"). */
export function formatRate(v: bigint): string {
  const int = v / SCALE;
  let frac = (v % SCALE).toString().padStart(RATE_DECIMALS, '0');
  while (frac.length > 4 && frac.endsWith('0')) frac = frac.slice(0, -1);
  return `${int}.${frac}`;
}

/** Basis points (350) as a percentage string ("3.50"). */
export function formatPercent(bps: number): string {
  return `${Math.floor(bps / 100)}.${String(bps % 100).padStart(2, '0')}`;
}

/** The rate from A to B given the reference rates of both against a common base (1 base = refA A = refB B). */
export function crossRate(refFrom: bigint, refTo: bigint): bigint {
  return divRound(refTo * SCALE, refFrom);
}

/** The rate with a margin of `bps` basis points added. */
export function withMarkup(rate: bigint, bps: number): bigint {
  return divRound(rate * BigInt(10_000 + bps), 10_000n);
}

/**
 * `amount` minor units of a currency with `fromDigits` decimals, at `rate`, in minor units of a
 * currency with `toDigits` decimals, rounded half up.
 */
export function convertAmount(amount: number, fromDigits: number, toDigits: number, rate: bigint): number {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new Error('amount must be a non-negative integer');
  const n = BigInt(amount) * rate * 10n ** BigInt(toDigits);
  const d = SCALE * 10n ** BigInt(fromDigits);
  return Number(divRound(n, d));
}

// ---- the sandbox rate source --------------------------------------------------------------------------

/**
 * Reference rates of the sandbox: 1 EUR in each currency. Fixed (not market rates), so tests and
 * merchants see the same quotes every day.
 */
export const SANDBOX_DCC_RATES: Readonly<Record<string, string>> = {
  EUR: '1.0000',
  USD: '1.0850',
  GBP: '0.8450',
  CHF: '0.9400',
  JPY: '162.5000',
  SEK: '11.2000',
  DKK: '7.4600',
  NOK: '11.5000',
  PLN: '4.3000',
  CZK: '25.0000',
  HUF: '395.0000',
  RON: '4.9700',
  CAD: '1.4700',
  AUD: '1.6500',
  MXN: '18.5000',
  BRL: '5.4000',
  KWD: '0.3330',
};

/** The sandbox's margin over the reference rate, in basis points (3.50 %). */
export const SANDBOX_DCC_MARKUP_BPS = 350;
/** How long a sandbox quote holds (10 minutes). */
export const SANDBOX_DCC_VALID_SECONDS = 600;

/**
 * Sandbox test cards by the currency the sandbox quotes for them (Luhn-valid, issuing country in the
 * number): any future expiry, any holder, any security code of the brand's length.
 */
export const SANDBOX_DCC_CARDS = {
  /** United States: US dollars. */
  USD: '4000084000000006',
  /** United Kingdom: pounds sterling. */
  GBP: '4000082600000004',
  /** Switzerland: Swiss francs. */
  CHF: '4000075600000008',
  /** Japan: yen (no decimals). */
  JPY: '4000039200000008',
  /** Kuwait: dinars (three decimals). */
  KWD: '4000041400000002',
  /** Spain: euros (no offer on a euro order). */
  EUR: '4000072400000007',
} as const;

/** The currency of a sandbox card (from its issuing country), or null. */
export function sandboxCardCurrency(bin: string): string | null {
  const country = sandboxCardCountry(bin);
  if (!country) return null;
  return (countryToCurrency as Record<string, string>)[country] ?? null;
}

/** The quote of the sandbox table (pure; the sandbox source answers with it). */
export function sandboxQuote(req: DccQuoteRequest): DccQuote | null {
  const to = sandboxCardCurrency(req.bin);
  if (!to || to === req.currency || req.amount <= 0) return null;
  const refFrom = SANDBOX_DCC_RATES[req.currency];
  const refTo = SANDBOX_DCC_RATES[to];
  const from = currencyByCode(req.currency);
  const target = currencyByCode(to);
  if (!refFrom || !refTo || !from || !target) return null;
  const reference = crossRate(parseRate(refFrom), parseRate(refTo));
  const rate = withMarkup(reference, SANDBOX_DCC_MARKUP_BPS);
  const cardholderAmount = convertAmount(req.amount, from.digits, target.digits, rate);
  if (cardholderAmount <= 0) return null;
  return {
    cardholderCurrency: to,
    cardholderAmount,
    rate: formatRate(rate),
    referenceRate: formatRate(reference),
    markup: formatPercent(SANDBOX_DCC_MARKUP_BPS),
    source: 'SANDBOX',
    validSeconds: SANDBOX_DCC_VALID_SECONDS,
  };
}

/** The sandbox rate source: the fixed table above, no network. */
export class SandboxDccRates implements DccRateSource {
  readonly name = 'sandbox';
  async quote(req: DccQuoteRequest): Promise<DccQuote | null> {
    return sandboxQuote(req);
  }
}
