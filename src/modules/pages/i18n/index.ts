/**
 * The 14 languages of the customer pages and messages: catalogues, language choice (?lang=, then
 * Accept-Language, then Spanish), placeholders, and money in each language's format with the
 * currency's minor units.
 */
import { ca } from './ca.js';
import { da } from './da.js';
import { de } from './de.js';
import { en, type Catalogue, type MessageKey } from './en.js';
import { es } from './es.js';
import { eu } from './eu.js';
import { fr } from './fr.js';
import { gl } from './gl.js';
import { it } from './it.js';
import { nl } from './nl.js';
import { pl } from './pl.js';
import { pt } from './pt.js';
import { ro } from './ro.js';
import { sv } from './sv.js';

export type { Catalogue, MessageKey };

/** ISO 639-1 codes, in the order the language menu shows them. */
export const LANGUAGES = ['es', 'en', 'ca', 'eu', 'gl', 'pt', 'fr', 'de', 'it', 'nl', 'pl', 'ro', 'sv', 'da'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'es';

export const CATALOGUES: Record<Language, Catalogue> = { es, en, ca, eu, gl, pt, fr, de, it, nl, pl, ro, sv, da };

/** BCP 47 locale for number and date formats. */
const LOCALES: Record<Language, string> = {
  es: 'es-ES', en: 'en-GB', ca: 'ca-ES', eu: 'eu-ES', gl: 'gl-ES', pt: 'pt-PT', fr: 'fr-FR',
  de: 'de-DE', it: 'it-IT', nl: 'nl-NL', pl: 'pl-PL', ro: 'ro-RO', sv: 'sv-SE', da: 'da-DK',
};

export function localeOf(lang: Language): string {
  return LOCALES[lang];
}

export function isLanguage(v: unknown): v is Language {
  return typeof v === 'string' && (LANGUAGES as readonly string[]).includes(v);
}

/** A language code as given (`EN`, `pt-BR`, `en_GB`) → one of ours, or null. */
export function parseLanguage(v: unknown): Language | null {
  if (typeof v !== 'string') return null;
  const base = v.trim().toLowerCase().split(/[-_]/)[0];
  return isLanguage(base) ? base : null;
}

/** The best of our languages for an Accept-Language header (q-values honoured), or null. */
export function fromAcceptLanguage(header: string | undefined): Language | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .slice(0, 30)
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const q = qp ? Number(qp.slice(2)) : 1;
      return { tag, q: Number.isFinite(q) ? q : 0, i };
    })
    .filter((x) => x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranked) {
    const l = parseLanguage(r.tag);
    if (l) return l;
  }
  return null;
}

/** ?lang= first, then Accept-Language, then Spanish. */
export function chooseLanguage(query: unknown, acceptLanguage: string | undefined): Language {
  return parseLanguage(query) ?? fromAcceptLanguage(acceptLanguage) ?? DEFAULT_LANGUAGE;
}

/** The text of a key in a language, with {placeholders} filled (values are plain text). */
export function translate(lang: Language, key: MessageKey, params: Record<string, string> = {}): string {
  const text = CATALOGUES[lang][key] ?? en[key];
  return text.replace(/\{([a-z0-9_]+)\}/g, (m, name: string) => (name in params ? params[name] : m));
}

/** A translator bound to one language. */
export type T = (key: MessageKey, params?: Record<string, string>) => string;

export function translator(lang: Language): T {
  return (key, params) => translate(lang, key, params);
}

/** Money in minor units, formatted for the language with the currency's own number of decimals. */
const moneyFormats = new Map<string, Intl.NumberFormat>();

export function formatMoney(lang: Language, minorUnits: number, currency: { code: string; digits: number }): string {
  const key = `${lang}|${currency.code}|${currency.digits}`;
  let f = moneyFormats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(LOCALES[lang], {
      style: 'currency',
      currency: currency.code,
      minimumFractionDigits: currency.digits,
      maximumFractionDigits: currency.digits,
    });
    moneyFormats.set(key, f);
  }
  return f.format(minorUnits / 10 ** currency.digits);
}

/** A date and time for messages (payment links), in the merchant's timezone. */
export function formatDateTime(lang: Language, date: Date, timeZone: string): string {
  return new Intl.DateTimeFormat(LOCALES[lang], { dateStyle: 'long', timeStyle: 'short', timeZone }).format(date);
}
