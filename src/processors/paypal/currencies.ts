/**
 * The currencies PayPal's REST API takes, and how many decimals PayPal takes in each (pure). Source:
 * PayPal's "Currency codes" reference (developer.paypal.com/docs/api/reference/currency-codes/, the REST
 * API's table): 25 currencies; HUF, JPY and TWD are marked "This currency does not support decimals. If
 * you pass a decimal amount, an error occurs" (the Payments API answers DECIMALS_NOT_SUPPORTED), the others
 * take two decimals ("If the currency supports decimals, only two decimal place precision is supported",
 * DECIMAL_PRECISION).
 *
 * PayPal's rule differs from ISO 4217 for HUF and TWD: ISO gives both two minor units (the gateway's
 * amounts of an HUF order are fillér, of a TWD order cents), PayPal none. So an HUF or TWD amount is sent
 * in whole forints or dollars, and one that is not a whole number of them cannot be sent at all (it is
 * refused before anything reaches PayPal, never rounded). JPY has no minor unit in ISO either.
 */
import { currencyByCode } from '../../platform/money/currency.js';

/** PayPal's decimals per currency code. */
export const PAYPAL_CURRENCY_DECIMALS: Readonly<Record<string, number>> = {
  AUD: 2, BRL: 2, CAD: 2, CNY: 2, CZK: 2, DKK: 2, EUR: 2, HKD: 2, HUF: 0, ILS: 2, JPY: 0, MYR: 2, MXN: 2,
  TWD: 0, NZD: 2, NOK: 2, PHP: 2, PLN: 2, GBP: 2, RUB: 2, SGD: 2, SEK: 2, CHF: 2, THB: 2, USD: 2,
};

export interface PaypalCurrency {
  code: string;
  /** Decimals in PayPal's amounts. */
  paypal: number;
  /** Minor units of the gateway's amounts (ISO 4217). */
  iso: number;
}

export function paypalCurrency(code: string): PaypalCurrency | null {
  const paypal = PAYPAL_CURRENCY_DECIMALS[code];
  const iso = currencyByCode(code)?.digits;
  if (paypal === undefined || iso === undefined || iso < paypal) return null;
  return { code, paypal, iso };
}

/**
 * Why an amount (minor units of `currency`) cannot be sent to PayPal, in words; null when it can: the
 * currency is one PayPal takes and the amount is a whole number of PayPal's units.
 */
export function amountProblem(amount: number, currency: string): string | null {
  const c = paypalCurrency(currency);
  if (!c) return `PayPal does not take payments in ${currency}`;
  if (!Number.isSafeInteger(amount) || amount < 0) return 'the amount is not a whole number of minor units';
  const step = 10 ** (c.iso - c.paypal);
  if (amount % step !== 0) return `PayPal takes ${currency} amounts without decimals: ${amount / 10 ** c.iso} ${currency} cannot be sent`;
  return null;
}

/** The smallest amount (minor units of `currency`) PayPal can take: one of PayPal's units. */
export function smallestAmount(currency: string): number {
  const c = paypalCurrency(currency);
  return c ? 10 ** (c.iso - c.paypal) : 1;
}

/** Minor units as PayPal's decimal string (`1000` EUR → `10.00`, `150000` HUF → `1500`). Throws when it cannot be sent (check `amountProblem` first). */
export function toPaypalValue(amount: number, currency: string): string {
  const problem = amountProblem(amount, currency);
  if (problem) throw new Error(`paypal: ${problem}`);
  const c = paypalCurrency(currency)!;
  const units = amount / 10 ** (c.iso - c.paypal);
  if (c.paypal === 0) return String(units);
  const s = String(units).padStart(c.paypal + 1, '0');
  return `${s.slice(0, -c.paypal)}.${s.slice(-c.paypal)}`;
}

/**
 * PayPal's decimal string back to minor units of `currency`; null when it is not an amount PayPal gives
 * in that currency (more decimals than PayPal uses; decimals in HUF, JPY or TWD other than zeros).
 */
export function fromPaypalValue(value: unknown, currency: string): number | null {
  const c = paypalCurrency(currency);
  if (!c || typeof value !== 'string' || !/^\d{1,15}(\.\d{1,3})?$/.test(value)) return null;
  const [int, frac = ''] = value.split('.');
  const digits = frac.replace(/0+$/, '');
  if (digits.length > c.paypal) return null;
  return Number(int) * 10 ** c.iso + Number(digits.padEnd(c.iso, '0') || '0');
}
