/**
 * The card form as the server checks it: the same rules the page's script runs (client/card-rules.mjs),
 * applied to the posted fields, with the same message keys. The payments core checks the card again
 * (sources' card rules) before any processor sees it.
 */
import { checkCardForm, type CardFormErrors, type Today } from './client/card-rules.mjs';

export type { CardFormErrors, Today };

export interface CardForm {
  holder: string;
  number: string;
  expiry: string;
  cvv: string;
}

/** Today's year and month in the merchant's time (the sandbox test clock applies). */
export function todayOf(now: Date): Today {
  return { year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 };
}

export function readCardForm(body: Record<string, unknown>): CardForm {
  const s = (v: unknown) => (typeof v === 'string' ? v.slice(0, 200) : '');
  return { holder: s(body.holder), number: s(body.number), expiry: s(body.expiry), cvv: s(body.cvv) };
}

export function checkCard(form: CardForm, today: Today) {
  return checkCardForm(form, today);
}

/** A Spanish mobile number for Bizum: 9 digits starting with 6 or 7, with an optional +34 / 0034. */
export function parseBizumPhone(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const v = value.replace(/[\s\-.()]/g, '');
  const m = /^(?:\+34|0034)?([67][0-9]{8})$/.exec(v);
  return m ? m[1] : null;
}
