/**
 * What reconciliation's use cases share: the limits of an import, its inputs, reading an uploaded file,
 * the settlement CSV layout, the cursors of its lists, and presenting its records.
 */
import { createHash } from 'node:crypto';
import { badRequest } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import { UUID_RE } from '../../platform/ids.js';
import type { SettlementLine as ConnectorLine } from '../../processors/index.js';
import { EXCEPTION_KINDS, csvCell, describe, type SettlementLine } from './reconciliation.domain.js';
import * as repo from './reconciliation.repo.js';


/** Largest file the API takes (decoded); the CLI reads larger files from disk. */
export const UPLOAD_MAX_BYTES = 16 * 1024 * 1024;
/** A JSON body that carries the largest file in base64, with room for the other fields. */
export const UPLOAD_BODY_LIMIT = Math.ceil((UPLOAD_MAX_BYTES * 4) / 3) + 1024 * 1024;
export const UPLOAD_MAX_LINES = 200_000;
/** Limits of a file given to the CLI. */
export const CLI_MAX_BYTES = 4 * 1024 * 1024 * 1024;
export const CLI_MAX_LINES = 20_000_000;
/** Lines stored per statement while a file streams in. */
export const CHUNK = 5000;
/** Line problems listed at most in a 422 (the count says how many there were). */
export const MAX_PROBLEMS = 1000;

export type Source = 'UPLOAD' | 'CLI' | 'CONNECTOR';
export type Bytes = () => AsyncIterable<Uint8Array> | Uint8Array;

export interface SettlementImportInput {
  filename: string;
  acquirer: string;
  service?: string | null;
  settlement_days?: number | null;
  period_from?: string | null;
  period_to?: string | null;
}

export interface StatementImportInput {
  filename: string;
  format?: 'CAMT053' | 'NORMA43' | null;
}

export const ownerOf = (ctx: RequestContext): repo.Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });

export async function sha256Of(bytes: Bytes): Promise<string> {
  const h = createHash('sha256');
  const src = bytes();
  if (src instanceof Uint8Array) h.update(src);
  else for await (const c of src) h.update(c);
  return h.digest('hex');
}

/** The bytes of a base64 field (a `data:` prefix of any type allowed), at most UPLOAD_MAX_BYTES. */
export function decodeUpload(field: string, value: string): Buffer {
  let text = value.trim();
  const m = /^data:[^;,]*(;[^,]*)?,/i.exec(text);
  if (m) {
    if (!/;base64$/i.test(m[1] ?? '')) throw badRequest(`${field} must be base64 (a data: URL must say ;base64)`);
    text = text.slice(m[0].length);
  }
  text = text.replace(/\s+/g, '');
  if (text.length === 0) throw badRequest(`${field} is empty`);
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw badRequest(`${field} is not valid base64`);
  if (text.length > Math.ceil(UPLOAD_MAX_BYTES / 3) * 4) throw badRequest(`${field} is larger than ${UPLOAD_MAX_BYTES} bytes (16 MiB), the largest file the API takes; import larger files with paygate reconcile import`);
  return Buffer.from(text, 'base64');
}

/** A connector's line as the values of a CSV row, so it is checked by the very rules of the layout. */
export function connectorRow(l: ConnectorLine): Record<string, string> {
  return {
    TYPE: l.type,
    PROCESSOR_ID: l.processorId ?? '',
    REFERENCE: l.reference ?? '',
    AMOUNT: String(l.amount),
    CURRENCY: l.currency,
    TRANSACTION_DATE: l.transactionDate,
    SETTLEMENT_DATE: l.settlementDate,
    BATCH: l.batch,
    FEE_INTERCHANGE: String(l.fees.interchange),
    FEE_SCHEME: String(l.fees.scheme),
    FEE_PROCESSING: String(l.fees.processing),
    NET: String(l.net),
  };
}

export const CSV_COLUMNS = ['TYPE', 'PROCESSOR_ID', 'REFERENCE', 'AMOUNT', 'CURRENCY', 'TRANSACTION_DATE', 'SETTLEMENT_DATE', 'BATCH', 'FEE_INTERCHANGE', 'FEE_SCHEME', 'FEE_PROCESSING', 'NET'] as const;

/** A report's lines in the settlement CSV layout (the file a connector's report is kept as). */
export function settlementCsv(lines: ConnectorLine[]): string {
  const out = [CSV_COLUMNS.join(',')];
  for (const l of lines) {
    const v = connectorRow(l);
    out.push(CSV_COLUMNS.map((c) => csvCell(v[c])).join(','));
  }
  return `${out.join('\n')}\n`;
}

export function cursorOf(kind: 'items' | 'reports' | 'payouts' | 'statements', v: string): string {
  return Buffer.from(`${kind}:${v}`).toString('base64url');
}

export function readCursor(kind: 'items' | 'reports' | 'payouts' | 'statements', c: string | null | undefined): string | null {
  if (c === undefined || c === null || c === '') return null;
  const text = /^[A-Za-z0-9_-]{1,200}$/.test(c) ? Buffer.from(c, 'base64url').toString('utf8') : '';
  if (!text.startsWith(`${kind}:`)) throw badRequest('cursor is not one this list gave: pass next_cursor as it was answered');
  return text.slice(kind.length + 1);
}

export function timeCursor(kind: 'reports' | 'statements', c: string | null | undefined): { at: Date; id: string } | null {
  const v = readCursor(kind, c);
  if (v === null) return null;
  const m = /^(\d{4}-\d{2}-\d{2}T[\d:.]+Z)_([0-9a-f-]{36})$/.exec(v);
  if (!m || Number.isNaN(Date.parse(m[1])) || !UUID_RE.test(m[2])) throw badRequest('cursor is not one this list gave: pass next_cursor as it was answered');
  return { at: new Date(m[1]), id: m[2] };
}

export function presentReport(r: repo.ReportRow, counts: repo.KindCounts) {
  return {
    uuid: r.id,
    acquirer: r.acquirer,
    source: r.source,
    filename: r.filename,
    service: r.service_id,
    period_from: r.period_from,
    period_to: r.period_to,
    settlement_days: r.settlement_days,
    lines: r.line_count,
    counts,
    exceptions: EXCEPTION_KINDS.reduce((t, k) => t + counts[k], 0),
    created_at: r.created_at.toISOString(),
  };
}

export function presentItem(i: repo.ItemRow) {
  const isLine = i.line !== null;
  return {
    id: String(i.id),
    kind: i.kind,
    detail: i.kind ? describe({ ...i, transaction_found: i.transaction_id !== null }) : i.type === 'CHARGEBACK' ? 'a chargeback: it counts in its payout, and is matched with the dispute' : 'an adjustment of the acquirer: it counts in its payout',
    type: i.type,
    report: { uuid: i.report_id, filename: i.report_filename, acquirer: i.acquirer, line: i.line },
    line: isLine
      ? {
          processor_id: i.processor_id,
          reference: i.reference,
          amount: Number(i.amount),
          currency: i.currency,
          transaction_date: i.transaction_date,
          settlement_date: i.settlement_date!,
          batch: i.batch_ref!,
          fees: { interchange: Number(i.fee_interchange), scheme: Number(i.fee_scheme), processing: Number(i.fee_processing) },
          net: Number(i.net),
        }
      : null,
    transaction: i.transaction_id
      ? { uuid: i.transaction_id, order_uuid: i.order_id!, amount: Number(i.paygate_amount), currency: i.paygate_currency!, date: i.paygate_date!, status: i.paygate_status! }
      : null,
  };
}

export function presentPayout(p: repo.PayoutRow) {
  const fees = { interchange: Number(p.fee_interchange), scheme: Number(p.fee_scheme), processing: Number(p.fee_processing) };
  return {
    uuid: p.id,
    acquirer: p.acquirer,
    batch: p.batch_ref,
    currency: p.currency,
    settlement_date: p.settlement_date,
    status: p.status,
    lines: p.line_count,
    gross: Number(p.gross),
    fees: { ...fees, total: fees.interchange + fees.scheme + fees.processing },
    expected: Number(p.net),
    received: p.received_amount === null
      ? null
      : { amount: Number(p.received_amount), date: p.received_on!, statement_uuid: p.statement_id!, statement_filename: p.statement_filename!, line: p.bank_line!, reference: p.bank_reference },
    difference: p.received_amount === null ? null : Number(p.received_amount) - Number(p.net),
  };
}

export function presentStatement(s: repo.StatementWithCounts) {
  return {
    uuid: s.id,
    format: s.format,
    source: s.source,
    filename: s.filename,
    account: s.account,
    currency: s.currency,
    period_from: s.period_from,
    period_to: s.period_to,
    opening_balance: Number(s.opening_balance),
    closing_balance: Number(s.closing_balance),
    entries: s.line_count,
    credits: s.credits,
    debits: s.debits,
    payouts_found: s.payouts_found,
    created_at: s.created_at.toISOString(),
  };
}

