/**
 * Pure rules of batch files (H1 payments with stored cards, H2 refunds): the lifecycles of a file and of
 * its lines (one transition table each), the columns, the checks of one row, and `execute_at`.
 */
import { AMOUNT_MAX } from '../../platform/http/schemas.js';
import { csvAmount, csvUrl, type LineError } from '../../platform/csv/csv.js';
import { UUID_RE } from '../../platform/ids.js';
import { zonedTimeToUtc } from '../../platform/time/format.js';

export const BATCH_KINDS = ['AUTHORIZATION', 'REFUND'] as const;
export type BatchKind = (typeof BATCH_KINDS)[number];

export const BATCH_STATUSES = ['SCHEDULED', 'PROCESSING', 'COMPLETED'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];
export type BatchEvent = 'START' | 'ALL_DONE';

const BATCH_TABLE: Record<BatchStatus, Partial<Record<BatchEvent, BatchStatus>>> = {
  SCHEDULED: { START: 'PROCESSING', ALL_DONE: 'COMPLETED' },
  PROCESSING: { ALL_DONE: 'COMPLETED' },
  COMPLETED: {},
};

export function batchTransition(from: BatchStatus, event: BatchEvent): BatchStatus | null {
  return BATCH_TABLE[from][event] ?? null;
}

/** The statuses `event` moves a file out of, and the one status it moves them to (for a guarded update). */
export function batchMoves(event: BatchEvent): { from: BatchStatus[]; to: BatchStatus } {
  const from = BATCH_STATUSES.filter((st) => batchTransition(st, event) !== null);
  const to = new Set(from.map((st) => batchTransition(st, event)!));
  if (to.size !== 1) throw new Error(`batch event ${event} does not lead to one status`);
  return { from, to: [...to][0] };
}

export const LINE_STATUSES = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED'] as const;
export type LineStatus = (typeof LINE_STATUSES)[number];
/** CLAIM: a worker starts (or, after a crash, restarts) the line; SUCCEED / FAIL: its outcome is known. */
export type LineEvent = 'CLAIM' | 'SUCCEED' | 'FAIL';

const LINE_TABLE: Record<LineStatus, Partial<Record<LineEvent, LineStatus>>> = {
  PENDING: { CLAIM: 'RUNNING' },
  // a RUNNING line claimed again is a line whose worker died: it resumes, and finds what was done
  RUNNING: { CLAIM: 'RUNNING', SUCCEED: 'SUCCEEDED', FAIL: 'FAILED' },
  SUCCEEDED: {},
  FAILED: {},
};

export function lineTransition(from: LineStatus, event: LineEvent): LineStatus | null {
  return LINE_TABLE[from][event] ?? null;
}

/** Where `event` moves a line, for each status it moves one out of (for a guarded update). */
export function lineMoves(event: LineEvent): Partial<Record<LineStatus, LineStatus>> {
  const out: Partial<Record<LineStatus, LineStatus>> = {};
  for (const st of LINE_STATUSES) {
    const to = lineTransition(st, event);
    if (to) out[st] = to;
  }
  return out;
}

export const AUTH_REQUIRED = ['AMOUNT', 'CARD', 'SERVICE'] as const;
export const AUTH_OPTIONAL = ['CUSTOMER_EXTERNAL_ID', 'ADDITIONAL', 'URL_POST', 'OPERATIVE', 'DESCRIPTION'] as const;
export const REFUND_REQUIRED = ['ORDER_UUID'] as const;
export const REFUND_OPTIONAL = ['AMOUNT'] as const;

export interface AuthLine {
  amount: number;
  card: string;
  customer: string | null;
  service: string;
  additional: string | null;
  url_post: string | null;
  operative: 'AUTHORIZATION' | 'DEFERRED';
  description: string | null;
}

export interface RefundLine {
  order: string;
  /** null: the whole refundable remainder. */
  amount: number | null;
}

/** The checks of one H1 row that need nothing but the row. */
export function parseAuthRow(line: number, v: Record<string, string>): AuthLine | LineError[] {
  const errors: string[] = [];
  const amount = csvAmount(v.AMOUNT, AMOUNT_MAX);
  if (amount === null) errors.push('AMOUNT is required');
  else if (amount === 'invalid') errors.push(`AMOUNT must be a whole number of minor units from 1 to ${AMOUNT_MAX}`);
  const card = (v.CARD ?? '').trim();
  if (card === '') errors.push('CARD (the uuid of a stored card) is required');
  else if (!UUID_RE.test(card)) errors.push('CARD must be the uuid of a stored card');
  const service = (v.SERVICE ?? '').trim();
  if (service === '') errors.push('SERVICE (a service uuid) is required');
  else if (!UUID_RE.test(service)) errors.push('SERVICE must be a service uuid');
  const customer = (v.CUSTOMER_EXTERNAL_ID ?? '').trim() || null;
  if (customer && customer.length > 100) errors.push('CUSTOMER_EXTERNAL_ID is longer than 100 characters');
  const additional = (v.ADDITIONAL ?? '').trim() || null;
  if (additional && additional.length > 500) errors.push('ADDITIONAL is longer than 500 characters');
  const description = (v.DESCRIPTION ?? '').trim() || null;
  if (description && description.length > 500) errors.push('DESCRIPTION is longer than 500 characters');
  const url = csvUrl(v.URL_POST);
  if (url === 'invalid') errors.push('URL_POST must be an absolute http or https URL of at most 500 characters');
  const operative = (v.OPERATIVE ?? '').trim().toUpperCase() || 'AUTHORIZATION';
  if (operative !== 'AUTHORIZATION' && operative !== 'DEFERRED') errors.push('OPERATIVE must be AUTHORIZATION or DEFERRED');
  if (errors.length > 0) return errors.map((msg) => ({ line, msg }));
  return { amount: amount as number, card: card.toLowerCase(), customer, service: service.toLowerCase(), additional, url_post: url as string | null, operative: operative as AuthLine['operative'], description };
}

/** The checks of one H2 row that need nothing but the row. */
export function parseRefundRow(line: number, v: Record<string, string>): RefundLine | LineError[] {
  const errors: string[] = [];
  const order = (v.ORDER_UUID ?? '').trim();
  if (order === '') errors.push('ORDER_UUID is required');
  else if (!UUID_RE.test(order)) errors.push('ORDER_UUID must be an order uuid');
  const amount = csvAmount(v.AMOUNT, AMOUNT_MAX);
  if (amount === 'invalid') errors.push(`AMOUNT must be empty (the rest) or a whole number of minor units from 1 to ${AMOUNT_MAX}`);
  if (errors.length > 0) return errors.map((msg) => ({ line, msg }));
  return { order: order.toLowerCase(), amount: amount as number | null };
}

/**
 * `execute_at`: `YYYY-MM-DD HH:mm:ss` or ISO 8601; without an offset it is the merchant's wall-clock
 * time. Null when it is not a date-time.
 */
export function parseExecuteAt(value: string, tz: string): Date | null {
  const v = value.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(v);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  const probe = new Date(Date.UTC(y, mo - 1, d));
  if (probe.getUTCMonth() !== mo - 1) return null;
  if (m[7]) {
    const t = Date.parse(v.replace(' ', 'T'));
    return Number.isNaN(t) ? null : new Date(t);
  }
  return new Date(zonedTimeToUtc(y, mo, d, h, mi, tz).getTime() + s * 1000);
}

/** One field of the results CSV, quoted when needed. */
export function csvField(v: string | number | null): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
