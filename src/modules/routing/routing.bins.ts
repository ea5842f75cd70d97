/**
 * BIN facts (docs/routing.md "BIN facts"), pure: the issuer's country and the card's type (and brand)
 * of a card's first digits, from the operator's BIN table (`routing_bins`, filled by a CSV import) and,
 * where the table says nothing, the sandbox test cards built in. An unknown BIN has no facts: the
 * conditions on them do not match.
 */
import type { Executor } from '../../platform/db/database.js';
import cardValidator from 'card-validator';
import { TEST_CARDS, sandboxCardCountry } from '../../processors/index.js';
import { CARD_TYPES, type CardType } from './routing.domain.js';
import type { LineError } from '../../platform/csv/csv.js';

export interface BinFacts {
  /** the digits asked about */
  bin: string;
  brand: string | null;
  card_type: CardType | null;
  issuer_country: string | null;
  /** where the facts come from */
  source: 'TABLE' | 'SANDBOX';
}

/** Where the routing module learns a BIN's facts (the table in the database, or a test's own). */
export interface BinInfo {
  /** `db`: the caller's transaction when it holds one. */
  lookup(bin: string, db?: Executor): Promise<BinFacts | null>;
}

/** One range of the table: prefixes of 6 to 8 digits, of one length. */
export interface BinRow {
  bin_from: string;
  bin_to: string;
  brand: string | null;
  card_type: CardType | null;
  issuer_country: string | null;
}

export const BIN_CSV_REQUIRED = ['BIN_FROM', 'BIN_TO'] as const;
export const BIN_CSV_OPTIONAL = ['BRAND', 'CARD_TYPE', 'ISSUER_COUNTRY'] as const;
/** The most ranges one file may hold. */
export const BIN_MAX_ROWS = 500_000;

const PREFIX = /^[0-9]{6,8}$/;

/** Brand codes (the ones payments use) from card-validator's names. */
const BRANDS: Record<string, string> = {
  visa: 'VISA', mastercard: 'MASTERCARD', 'american-express': 'AMEX', 'diners-club': 'DINERS', discover: 'DISCOVER', jcb: 'JCB',
  unionpay: 'UNIONPAY', maestro: 'MAESTRO', mir: 'MIR', elo: 'ELO', hiper: 'HIPER', hipercard: 'HIPERCARD',
};

/** The brand a card's first digits belong to, when they say (null: unknown or ambiguous). */
export function brandOfPrefix(digits: string): string | null {
  const v = cardValidator.number(digits);
  return v.card ? BRANDS[v.card.type] ?? v.card.type.toUpperCase() : null;
}

/** Reads one line of the import: its range and facts, or what is wrong with it. */
export function parseBinRow(values: Record<string, string>): { row: BinRow } | { error: string } {
  const from = values.BIN_FROM ?? '';
  const to = values.BIN_TO ?? '';
  if (!PREFIX.test(from)) return { error: 'BIN_FROM must be 6 to 8 digits' };
  if (!PREFIX.test(to)) return { error: 'BIN_TO must be 6 to 8 digits' };
  if (from.length !== to.length) return { error: 'BIN_FROM and BIN_TO must have the same number of digits' };
  if (from > to) return { error: `BIN_FROM (${from}) must not be above BIN_TO (${to})` };
  const brand = (values.BRAND ?? '').trim().toUpperCase();
  if (brand && !/^[A-Z][A-Z0-9_]{1,29}$/.test(brand)) return { error: 'BRAND must be a brand code (VISA, MASTERCARD, AMEX...)' };
  const type = (values.CARD_TYPE ?? '').trim().toUpperCase();
  if (type && !(CARD_TYPES as readonly string[]).includes(type)) return { error: `CARD_TYPE must be one of ${CARD_TYPES.join(', ')} (or empty)` };
  const country = (values.ISSUER_COUNTRY ?? '').trim().toUpperCase();
  if (country && !/^[A-Z]{2}$/.test(country)) return { error: 'ISSUER_COUNTRY must be an ISO 3166 alpha-2 code (or empty)' };
  return { row: { bin_from: from, bin_to: to, brand: brand || null, card_type: (type || null) as CardType | null, issuer_country: country || null } };
}

const low = (p: string) => Number(p.padEnd(8, '0'));
const high = (p: string) => Number(p.padEnd(8, '9'));

/**
 * Ranges in memory, sorted and without overlaps, searched by halves: a lookup is a few comparisons
 * whatever the table's size.
 */
export class BinIndex {
  readonly #from: number[] = [];
  readonly #to: number[] = [];
  readonly #rows: BinRow[] = [];

  /** `rows` must not overlap (`overlaps` says where they do). */
  constructor(rows: BinRow[]) {
    const sorted = [...rows].sort((a, b) => low(a.bin_from) - low(b.bin_from));
    for (const r of sorted) {
      this.#from.push(low(r.bin_from));
      this.#to.push(high(r.bin_to));
      this.#rows.push(r);
    }
  }

  get size(): number {
    return this.#rows.length;
  }

  /** The range holding every card of `bin` (6 to 8 digits), or null. */
  find(bin: string): BinRow | null {
    if (!PREFIX.test(bin)) return null;
    const lo = low(bin);
    const hi = high(bin);
    let a = 0;
    let b = this.#from.length - 1;
    let at = -1;
    while (a <= b) {
      const mid = (a + b) >> 1;
      if (this.#from[mid] <= lo) {
        at = mid;
        a = mid + 1;
      } else b = mid - 1;
    }
    return at >= 0 && hi <= this.#to[at] ? this.#rows[at] : null;
  }
}

/** The lines whose range overlaps an earlier line's (each range of the table holds its cards alone). */
export function overlaps(rows: Array<{ line: number; row: BinRow }>): LineError[] {
  const sorted = [...rows].sort((a, b) => low(a.row.bin_from) - low(b.row.bin_from) || a.line - b.line);
  const out: LineError[] = [];
  let last: { line: number; to: number } | null = null;
  for (const r of sorted) {
    if (last && low(r.row.bin_from) <= last.to) out.push({ line: Math.max(r.line, last.line), msg: `the range ${r.row.bin_from}-${r.row.bin_to} overlaps the range of line ${Math.min(r.line, last.line)}` });
    if (!last || high(r.row.bin_to) > last.to) last = { line: r.line, to: high(r.row.bin_to) };
  }
  return out.sort((a, b) => a.line - b.line);
}

/** The sandbox test cards' facts (docs/routing.md lists them): what routing rules can be tried with. */
const SANDBOX_FACTS: Record<string, Pick<BinRow, 'card_type' | 'issuer_country'>> = {
  [TEST_CARDS.APPROVED]: { card_type: 'DEBIT', issuer_country: 'ES' },
  [TEST_CARDS.THREEDS_OK]: { card_type: 'CREDIT', issuer_country: 'ES' },
  [TEST_CARDS.THREEDS_FAIL]: { card_type: 'CREDIT', issuer_country: 'ES' },
  [TEST_CARDS.NON_3DS_OK]: { card_type: 'CREDIT', issuer_country: 'FR' },
  [TEST_CARDS.SOFT_DECLINE]: { card_type: 'DEBIT', issuer_country: 'DE' },
  [TEST_CARDS.REFUSED]: { card_type: 'PREPAID', issuer_country: 'ES' },
  [TEST_CARDS.REFUSED_VISA]: { card_type: 'CREDIT', issuer_country: 'US' },
};

/** The built-in rows: each listed test card's 8-digit BIN. */
export const SANDBOX_BINS: BinRow[] = Object.entries(SANDBOX_FACTS).map(([pan, f]) => ({ bin_from: pan.slice(0, 8), bin_to: pan.slice(0, 8), brand: brandOfPrefix(pan), ...f }));
const SANDBOX_INDEX = new BinIndex(SANDBOX_BINS);

/**
 * The built-in facts of `bin`: a listed test card, or a sandbox card `40000ccc…` whose digits after
 * 40000 are an ISO 3166 numeric country (CREDIT, that country).
 */
export function sandboxBinFacts(bin: string): BinFacts | null {
  const row = SANDBOX_INDEX.find(bin);
  if (row) return { bin, brand: row.brand, card_type: row.card_type, issuer_country: row.issuer_country, source: 'SANDBOX' };
  if (bin.length >= 8) {
    const country = sandboxCardCountry(bin);
    if (country) return { bin, brand: 'VISA', card_type: 'CREDIT', issuer_country: country, source: 'SANDBOX' };
  }
  return null;
}

/** The facts of a row of the table for `bin`. */
export const factsOf = (bin: string, row: BinRow): BinFacts => ({ bin, brand: row.brand, card_type: row.card_type, issuer_country: row.issuer_country, source: 'TABLE' });
