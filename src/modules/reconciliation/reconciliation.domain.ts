/**
 * Pure rules of reconciliation (no IO): the settlement CSV layout and the reading of one of its rows,
 * the match kinds and payout states, amounts and dates as the imported files write them. Unit-tested
 * without a database (test/unit/reconciliation-matching.test.ts).
 */
import { currencyByCode } from '../../platform/money/currency.js';
import { UUID_RE } from '../../platform/ids.js';

/** What a settlement line is: money in (PAYMENT), out (REFUND, PAYOUT, CHARGEBACK) or either (ADJUSTMENT). */
export const LINE_TYPES = ['PAYMENT', 'REFUND', 'PAYOUT', 'CHARGEBACK', 'ADJUSTMENT'] as const;
export type LineType = (typeof LINE_TYPES)[number];
/** The types matched to paygate's transactions; chargebacks and adjustments only count in their payout. */
export const MATCHED_TYPES: readonly LineType[] = ['PAYMENT', 'REFUND', 'PAYOUT'];

/**
 * What the matcher found for a line (or a transaction):
 *  - MATCHED: the line names a transaction of paygate (its reference, else its processor id) of its type,
 *    with the same amount and currency, settled within the expected days;
 *  - AMOUNT_DIFFERS: the transaction is found, its amount or currency is not the line's;
 *  - ONLY_AT_ACQUIRER: the acquirer settled what paygate has no successful transaction for (none at all,
 *    or one paygate has as refused, failed or still pending);
 *  - ONLY_AT_PAYGATE: a successful money movement of paygate, in a report's days and service, that no
 *    line of any report settles;
 *  - SETTLED_LATE: found and equal, settled more days after the transaction than the report allows;
 *  - DUPLICATE: a second line for a transaction another line already settles.
 */
export const MATCH_KINDS = ['MATCHED', 'AMOUNT_DIFFERS', 'ONLY_AT_ACQUIRER', 'ONLY_AT_PAYGATE', 'SETTLED_LATE', 'DUPLICATE'] as const;
export type MatchKind = (typeof MATCH_KINDS)[number];
export const EXCEPTION_KINDS = MATCH_KINDS.filter((k) => k !== 'MATCHED');

/**
 * A payout (an acquirer's batch) against the bank statements: EXPECTED (no statement covers its day
 * and grace yet), RECEIVED (a credit of its net found), DIFFERENT (a credit naming its batch, of another
 * amount), MISSING (the statements cover its day and grace and no credit is it).
 */
export const PAYOUT_STATUSES = ['EXPECTED', 'RECEIVED', 'DIFFERENT', 'MISSING'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];
/** Days after a payout's settlement date its credit may be booked and still be found by its amount. */
export const PAYOUT_GRACE_DAYS = 3;

/** A line settled more days than this after the transaction is SETTLED_LATE, unless the import says otherwise. */
export const DEFAULT_SETTLEMENT_DAYS = 2;
/** How far back the processor id of a line is looked for (a reference, a transaction uuid, always is). */
export const PROCESSOR_ID_HORIZON_DAYS = 90;

// ---- the CSV layout (docs/reconciliation.md) ----------------------------------------------------------

export const CSV_REQUIRED = ['TYPE', 'AMOUNT', 'CURRENCY', 'TRANSACTION_DATE', 'SETTLEMENT_DATE', 'BATCH'] as const;
export const CSV_OPTIONAL = ['PROCESSOR_ID', 'REFERENCE', 'FEE_INTERCHANGE', 'FEE_SCHEME', 'FEE_PROCESSING', 'NET'] as const;

/** Largest amount or fee of a line, in minor units (the API's AMOUNT_MAX). */
export const LINE_AMOUNT_MAX = 999_999_999_999;

/** One settlement line, read and checked. Dates are `YYYY-MM-DD`. */
export interface SettlementLine {
  line: number;
  type: LineType;
  processorId: string | null;
  reference: string | null;
  amount: number;
  currency: string;
  transactionDate: string;
  settlementDate: string;
  batch: string;
  feeInterchange: number;
  feeScheme: number;
  feeProcessing: number;
  net: number;
}

/** +1 for money the merchant receives, -1 for money it gives back; ADJUSTMENT carries its own sign. */
export function direction(type: LineType): 1 | -1 {
  return type === 'PAYMENT' || type === 'ADJUSTMENT' ? 1 : -1;
}

/** What a line adds to its payout: its signed amount less its fees. */
export function lineNet(type: LineType, amount: number, fees: { interchange: number; scheme: number; processing: number }): number {
  return direction(type) * amount - fees.interchange - fees.scheme - fees.processing;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** A calendar date `YYYY-MM-DD` that exists, or null. */
export function isoDate(y: number, m: number, d: number): string | null {
  if (y < 1970 || y > 2200 || m < 1 || m > 12 || d < 1 || d > 31) return null;
  const t = new Date(Date.UTC(y, m - 1, d));
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== m - 1 || t.getUTCDate() !== d) return null;
  return t.toISOString().slice(0, 10);
}

/**
 * A date as a report writes it: `YYYY-MM-DD`, or an ISO 8601 date and time (its day in UTC when it has
 * an offset, its own day otherwise). Null when it is neither.
 */
export function readDate(v: string): string | null {
  const t = v.trim();
  let m = DATE_RE.exec(t);
  if (m) return isoDate(Number(m[1]), Number(m[2]), Number(m[3]));
  m = DATETIME_RE.exec(t);
  if (!m) return null;
  const day = isoDate(Number(m[1]), Number(m[2]), Number(m[3]));
  if (!day || !m[8]) return day;
  const at = new Date(t.replace(' ', 'T'));
  return Number.isNaN(at.getTime()) ? null : at.toISOString().slice(0, 10);
}

/** Days from `a` to `b` (dates `YYYY-MM-DD`). */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86400_000);
}

/** The date `days` after `d`. */
export function addDays(d: string, days: number): string {
  return new Date(Date.parse(`${d}T00:00:00Z`) + days * 86400_000).toISOString().slice(0, 10);
}

function integer(v: string | undefined, signed: boolean, max = LINE_AMOUNT_MAX): number | null | 'invalid' {
  if (v === undefined || v.trim() === '') return null;
  const t = v.trim();
  if (!(signed ? /^-?[0-9]{1,15}$/ : /^[0-9]{1,15}$/).test(t)) return 'invalid';
  const n = Number(t);
  return Math.abs(n) > max ? 'invalid' : n;
}

/** Printable text without control characters, at most `max` characters. */
function text(v: string | undefined, max: number): string | null | 'invalid' {
  if (v === undefined || v.trim() === '') return null;
  const t = v.trim();
  // eslint-disable-next-line no-control-regex
  if (t.length > max || /[\u0000-\u001f\u007f]/.test(t)) return 'invalid';
  return t;
}

/**
 * Reads one row of the settlement CSV layout (values by upper-case column): the line, or every problem of
 * it, each naming its column.
 */
export function parseSettlementRow(line: number, v: Record<string, string>): SettlementLine | Array<{ line: number; msg: string }> {
  const problems: string[] = [];
  const type = (v.TYPE ?? '').trim().toUpperCase();
  if (!(LINE_TYPES as readonly string[]).includes(type)) problems.push(`TYPE must be one of ${LINE_TYPES.join(', ')}`);
  const signedAmount = type === 'ADJUSTMENT';
  const amount = integer(v.AMOUNT, signedAmount);
  if (amount === null || amount === 'invalid' || (!signedAmount && amount === 0)) {
    problems.push(signedAmount ? 'AMOUNT must be a whole number of minor units (an ADJUSTMENT may be negative)' : `AMOUNT must be a whole number of minor units from 1 to ${LINE_AMOUNT_MAX}`);
  }
  const currency = currencyByCode((v.CURRENCY ?? '').trim());
  if (!currency || !/^[A-Za-z]{3}$/.test((v.CURRENCY ?? '').trim())) problems.push('CURRENCY must be an ISO 4217 code such as EUR');
  const transactionDate = readDate(v.TRANSACTION_DATE ?? '');
  if (!transactionDate) problems.push('TRANSACTION_DATE must be a date YYYY-MM-DD (or an ISO 8601 date and time)');
  const settlementDate = readDate(v.SETTLEMENT_DATE ?? '');
  if (!settlementDate) problems.push('SETTLEMENT_DATE must be a date YYYY-MM-DD (or an ISO 8601 date and time)');
  if (transactionDate && settlementDate && settlementDate < transactionDate) problems.push(`SETTLEMENT_DATE ${settlementDate} is before TRANSACTION_DATE ${transactionDate}`);
  const batch = text(v.BATCH, 64);
  if (batch === null || batch === 'invalid') problems.push('BATCH must be the acquirer\'s payout or batch reference, 1 to 64 characters');
  const processorId = text(v.PROCESSOR_ID, 100);
  if (processorId === 'invalid') problems.push('PROCESSOR_ID must be at most 100 characters');
  const reference = text(v.REFERENCE, 100);
  if (reference === 'invalid') problems.push('REFERENCE must be at most 100 characters');
  if ((MATCHED_TYPES as readonly string[]).includes(type) && processorId === null && reference === null) problems.push(`a ${type} line needs its PROCESSOR_ID or its REFERENCE`);
  const fees: Record<string, number> = {};
  for (const [col, key] of [['FEE_INTERCHANGE', 'interchange'], ['FEE_SCHEME', 'scheme'], ['FEE_PROCESSING', 'processing']] as const) {
    const f = integer(v[col], true);
    if (f === 'invalid') problems.push(`${col} must be a whole number of minor units (negative for a rebate)`);
    fees[key] = typeof f === 'number' ? f : 0;
  }
  // the net is the amount less three fees, each up to the largest amount
  const net = integer(v.NET, true, 4 * LINE_AMOUNT_MAX);
  if (net === 'invalid') problems.push('NET must be a whole number of minor units');
  if (problems.length > 0) return problems.map((msg) => ({ line, msg }));
  const t = type as LineType;
  const computed = lineNet(t, amount as number, fees as { interchange: number; scheme: number; processing: number });
  if (typeof net === 'number' && net !== computed) {
    return [{ line, msg: `NET ${net} is not the line's ${direction(t) > 0 ? 'AMOUNT' : 'negative AMOUNT'} less its fees (${computed})` }];
  }
  return {
    line,
    type: t,
    processorId: processorId as string | null,
    reference: reference as string | null,
    amount: amount as number,
    currency: currency!.code,
    transactionDate: transactionDate!,
    settlementDate: settlementDate!,
    batch: batch as string,
    feeInterchange: fees.interchange,
    feeScheme: fees.scheme,
    feeProcessing: fees.processing,
    net: computed,
  };
}

/** The reference read as a transaction uuid (lower case), or null. */
export function referenceUuid(reference: string | null): string | null {
  return reference !== null && UUID_RE.test(reference) ? reference.toLowerCase() : null;
}

/**
 * Why a line or movement is an exception, as a sentence (the API's `detail`), from what the matcher
 * stored with it.
 */
export function describe(item: {
  kind: MatchKind;
  type: string;
  amount: number;
  currency: string;
  settlement_date?: string | null;
  paygate_amount?: number | null;
  paygate_currency?: string | null;
  paygate_date?: string | null;
  paygate_status?: string | null;
  transaction_found?: boolean;
  settlement_days?: number | null;
}): string {
  switch (item.kind) {
    case 'MATCHED':
      return 'settled as paygate recorded it';
    case 'AMOUNT_DIFFERS':
      return `the acquirer settled ${item.amount} ${item.currency}; paygate recorded ${item.paygate_amount} ${item.paygate_currency}`;
    case 'ONLY_AT_ACQUIRER':
      return item.transaction_found
        ? `the acquirer settled this ${item.type.toLowerCase()}; paygate has the transaction as ${item.paygate_status}, not successful`
        : `the acquirer settled a ${item.type.toLowerCase()} paygate has no transaction for (no reference or processor id of this merchant matches)`;
    case 'ONLY_AT_PAYGATE':
      return `paygate recorded this ${item.type.toLowerCase()} as successful; no settlement line of the acquirer settles it`;
    case 'SETTLED_LATE': {
      const days = item.paygate_date && item.settlement_date ? daysBetween(item.paygate_date, item.settlement_date) : null;
      return `settled on ${item.settlement_date}, ${days} days after the transaction (${item.paygate_date}); expected within ${item.settlement_days ?? DEFAULT_SETTLEMENT_DAYS}`;
    }
    case 'DUPLICATE':
      return 'another settlement line already settles this transaction: the acquirer settled it twice';
  }
}

/** A CSV field, quoted when it needs to be (exports). */
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
