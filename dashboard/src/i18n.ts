/**
 * The dashboard's words in English, Spanish and Portuguese (the D3 languages). The user's language comes
 * from their D3 record and is switched in the header; every key exists in every language (their type
 * holds it: `tsc -p dashboard` fails on a missing one).
 */
import { createContext, useContext } from 'react';
import { AREA_EN, AREA_ES, AREA_PT } from './areas/words';
import { EN, type BaseKey } from './lang/en';
import { ES } from './lang/es';
import { PT } from './lang/pt';

export { currencyDigits, toMinor } from './amounts';

export type Lang = 'EN' | 'ES' | 'PT';
export const LANGS: Lang[] = ['EN', 'ES', 'PT'];

/** Every word of the dashboard: the shell's (lang/en.ts) and each area's (areas/<area>/i18n.ts). */
export type Key = BaseKey | keyof typeof AREA_EN;

export const DICTS: Record<Lang, Record<Key, string>> = { EN: { ...EN, ...AREA_EN }, ES: { ...ES, ...AREA_ES }, PT: { ...PT, ...AREA_PT } };

export type T = (key: Key, vars?: Record<string, string>) => string;

export function translator(lang: Lang): T {
  const d = DICTS[lang] ?? DICTS.EN;
  return (key, vars) => {
    let s = d[key] ?? DICTS.EN[key] ?? key;
    for (const [k, v] of Object.entries(vars ?? {})) s = s.replace(`{${k}}`, v);
    return s;
  };
}

/** A state of the API (an order's, a transaction's, a notification's…) in the user's language; the API's word when it has none. */
export function statusLabel(value: string, t: T): string {
  const key = `status.${value}` as Key;
  return key in DICTS.EN ? t(key) : value;
}

/** An error code of a transaction (a decline's reason) in the user's language: DENIED → Denied, Denegada. */
export function reasonLabel(code: string, t: T): string {
  const key = `reason.${code}` as Key;
  if (key in DICTS.EN) return t(key);
  const words = code.replace(/_/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The plural form of `count` in the language (one, other…): picks the key `base.one` or `base.other`. */
export function plural(lang: Lang, count: number): 'one' | 'other' {
  const locale = lang === 'ES' ? 'es-ES' : lang === 'PT' ? 'pt-PT' : 'en-GB';
  return new Intl.PluralRules(locale).select(count) === 'one' ? 'one' : 'other';
}

export const LangContext = createContext<{ lang: Lang; t: T }>({ lang: 'EN', t: translator('EN') });
export const useT = () => useContext(LangContext);

/** Money in the currency's own minor units (EUR 2 decimals, JPY none). */
export function money(minor: number, currency: string, lang: Lang): string {
  const locale = lang === 'ES' ? 'es-ES' : lang === 'PT' ? 'pt-PT' : 'en-GB';
  try {
    const f = new Intl.NumberFormat(locale, { style: 'currency', currency });
    const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
    return f.format(minor / 10 ** digits);
  } catch {
    return `${(minor / 100).toFixed(2)} ${currency}`;
  }
}

/**
 * An instant as the merchant's date and time (every date of the dashboard is in the merchant's timezone);
 * `seconds`: with the seconds (the request log, where requests a second apart are told apart).
 */
export function dateTime(iso: string, lang: Lang, timeZone: string, seconds = false): string {
  const locale = lang === 'ES' ? 'es-ES' : lang === 'PT' ? 'pt-PT' : 'en-GB';
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short', timeZone }).format(new Date(iso));
  } catch {
    return iso;
  }
}
