/** ISO 4217 currencies (from `currency-codes`): alpha-3 and numeric codes and minor units. */
import cc from 'currency-codes';

export interface Currency {
  code: string;
  number: string;
  digits: number;
}

function usable(c: { code: string; countries: string[] } | undefined): boolean {
  // X-codes (precious metals, testing, "no currency") are not currencies a payment can use.
  return !!c && !c.code.startsWith('X') || (!!c && ['XAF', 'XOF', 'XPF', 'XCD'].includes(c.code));
}

export function currencyByCode(code: string): Currency | null {
  const c = cc.code(code.toUpperCase());
  if (!c || !usable(c)) return null;
  return { code: c.code, number: c.number, digits: c.digits };
}

export function currencyByNumber(num: string | number): Currency | null {
  const c = cc.number(String(num).padStart(3, '0'));
  if (!c || !usable(c)) return null;
  return { code: c.code, number: c.number, digits: c.digits };
}

/**
 * A currency as a request gives it: the ISO 4217 alpha-3 code in any case ("EUR", "eur") or the numeric
 * code as a string or a number ("978", 978; "36" and "036" alike). Null when it names none.
 */
export function currencyFrom(input: string | number): Currency | null {
  const s = String(input).trim();
  if (/^[0-9]{1,3}$/.test(s)) return currencyByNumber(s);
  if (/^[A-Za-z]{3}$/.test(s)) return currencyByCode(s);
  return null;
}
