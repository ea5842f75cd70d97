/**
 * Amounts as staff type them (a refund, a campaign, the virtual terminal, a device payment), read in
 * minor units of their currency. No imports: the unit tests read it as it is.
 */

/** The decimals of a currency (EUR 2, JPY 0, KWD 3); 2 for a code Intl does not know. */
export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * An amount as typed ("12.50", "12,5", "1000") in minor units of `currency`; null when it is not one
 * (not a number, or more decimals than the currency has: "10.5" is no amount of JPY). Exact: no
 * floating point on the way.
 */
export function toMinor(text: string, currency: string): number | null {
  const digits = currencyDigits(currency);
  const s = text.trim().replace(/\s/g, '').replace(',', '.');
  const re = digits === 0 ? /^\d{1,12}$/ : new RegExp(`^\\d{1,12}(\\.\\d{1,${digits}})?$`);
  if (!re.test(s)) return null;
  const [whole, frac = ''] = s.split('.');
  return Number(whole) * 10 ** digits + Number(frac.padEnd(digits, '0') || '0');
}
