/**
 * What a bank statement parser gives (camt.053, Norma 43): one statement per account, each with its
 * booked entries. Amounts are integer minor units of the statement's currency, credits positive and
 * debits negative; dates `YYYY-MM-DD` as the bank wrote them.
 */
import { badRequest } from '../../../platform/errors/errors.js';
import { containsCardNumber } from '../../../platform/security/card-numbers.js';
import { currencyByCode } from '../../../platform/money/currency.js';

export interface BankEntry {
  /** Norma 43: the line of its record 22; camt.053: the line of its `<Ntry>` element. */
  line: number;
  bookingDate: string;
  valueDate: string | null;
  amount: number;
  currency: string;
  /** The bank's or the payer's reference of the entry (end-to-end id, bank reference). */
  reference: string | null;
  /** Every other text the entry carries (remittance information, concepts, payer): where a payout's batch is looked for. */
  remittance: string | null;
}

export interface BankStatement {
  /** IBAN, or the bank's account id (Norma 43: entity, office and account number). */
  account: string;
  currency: string;
  periodFrom: string;
  periodTo: string;
  opening: number;
  closing: number;
  entries: BankEntry[];
}

/** Problems of single lines of a statement file (422 with `errors`). */
export class StatementProblems extends Error {
  constructor(readonly problems: Array<{ line: number; msg: string }>) {
    super(`${problems.length} problem${problems.length === 1 ? '' : 's'} in the statement`);
  }
}

/**
 * Refuses (400) a file with a card number on any line: a bank statement has no card column, and what it
 * carries is stored and shown as it is (the CSV reader's rule, for XML and fixed-width text).
 */
export function guardCardNumbers(field: string, text: string, strip: (line: string) => string = (l) => l): void {
  let line = 1;
  let at = 0;
  while (at <= text.length) {
    const end = text.indexOf('\n', at);
    const raw = text.slice(at, end < 0 ? text.length : end);
    if (containsCardNumber(strip(raw))) throw badRequest(`${field} line ${line} must not contain a card number: a statement is stored and shown as it is`);
    if (end < 0) break;
    at = end + 1;
    line++;
  }
}

/**
 * A decimal amount as a statement writes it (`105678.50`, `500000`; a comma is no decimal point) in
 * minor units of `currency`; null when it is not one, or has more decimals than the currency.
 */
export function minorUnits(value: string, currency: string): number | null {
  const c = currencyByCode(currency);
  const m = /^([0-9]{1,15})(?:\.([0-9]{1,5}))?$/.exec(value.trim());
  if (!c || !m) return null;
  const decimals = m[2] ?? '';
  if (decimals.replace(/0+$/, '').length > c.digits) return null;
  const n = Number(m[1]) * 10 ** c.digits + Number((decimals + '0'.repeat(c.digits)).slice(0, c.digits) || '0');
  return Number.isSafeInteger(n) ? n : null;
}

/** Text of at most `max` characters, spaces collapsed; null when empty. */
export function clip(v: string | null | undefined, max: number): string | null {
  if (v === null || v === undefined) return null;
  // eslint-disable-next-line no-control-regex
  const t = v.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return t === '' ? null : t.slice(0, max);
}
