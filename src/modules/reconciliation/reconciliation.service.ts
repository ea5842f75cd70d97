/**
 * Reconciliation: importing what the acquirers settled (the settlement CSV layout, uploaded or given to
 * the CLI, or a connector's report of a day) and the merchant's bank statements (camt.053, Norma 43),
 * matching them against paygate's transactions and the expected payouts, and reading the result.
 *
 * An import is one transaction: the file is read as a stream (each row checked as it comes and stored in
 * chunks), then matched by set-based statements (reconciliation.repo.ts). A row with a problem makes the
 * whole import a 422 naming every line's problems and nothing is kept; a file that cannot be read is a
 * 400. The same file (by its SHA-256) is not imported twice (409).
 */
import { createHash, randomUUID } from 'node:crypto';
import { streamCsv } from '../../platform/csv/csv.js';
import { badRequest, conflict, notFound, unavailable, unprocessable } from '../../platform/errors/errors.js';
import { IdempotencyStore } from '../../platform/http/idempotency.js';
import type { RequestContext } from '../../platform/http/types.js';
import { UUID_RE } from '../../platform/ids.js';
import type { Platform } from '../../platform/index.js';
import type { ProcessorRegistry } from '../../processors/index.js';
import { findServiceWithTerminal, listServices } from '../services/index.js';
import {
  CSV_OPTIONAL,
  CSV_REQUIRED,
  DEFAULT_SETTLEMENT_DAYS,
  EXCEPTION_KINDS,
  PAYOUT_STATUSES,
  csvCell,
  parseSettlementRow,
  readDate,
  referenceUuid,
  type MatchKind,
  type PayoutStatus,
  type SettlementLine,
} from './reconciliation.domain.js';
import { parseCamt053 } from './parsers/camt053.js';
import { norma43Text, parseNorma43 } from './parsers/norma43.js';
import { StatementProblems, type BankStatement } from './parsers/statement.js';
import * as repo from './reconciliation.repo.js';

import {
  CHUNK,
  CSV_COLUMNS,
  MAX_PROBLEMS,
  UPLOAD_MAX_BYTES,
  UPLOAD_MAX_LINES,
  connectorRow,
  cursorOf,
  decodeUpload,
  ownerOf,
  presentItem,
  presentPayout,
  presentReport,
  presentStatement,
  readCursor,
  settlementCsv,
  sha256Of,
  timeCursor,
  type Bytes,
  type SettlementImportInput,
  type Source,
  type StatementImportInput,
} from './reconciliation.shared.js';

export class ReconciliationService {
  constructor(
    private readonly p: Platform,
    private readonly deps: { processors: ProcessorRegistry },
  ) {}

  // ---- settlement reports ----------------------------------------------------------------------------------

  /** POST /reconciliation/settlements: a file in the settlement CSV layout, in base64. */
  async uploadSettlement(ctx: RequestContext, body: SettlementImportInput & { data: string }) {
    const bytes = decodeUpload('data', body.data);
    return this.importSettlement(ctx, body, () => bytes, { source: 'UPLOAD', maxBytes: UPLOAD_MAX_BYTES, maxLines: UPLOAD_MAX_LINES });
  }

  /**
   * Imports a settlement file read from `bytes` (called again if the transaction is retried): checks
   * its options, refuses a file imported before, streams it in and matches it.
   */
  async importSettlement(ctx: RequestContext, input: SettlementImportInput, bytes: Bytes, opts: { source: Source; maxBytes: number; maxLines: number }) {
    const meta = await this.#settlementMeta(ctx, input);
    const sha256 = await sha256Of(bytes);
    const rows = () => streamCsv('data', bytes(), { required: CSV_REQUIRED, optional: CSV_OPTIONAL }, { maxBytes: opts.maxBytes, maxRows: opts.maxLines });
    return this.#ingest(ctx, { ...meta, source: opts.source, sha256 }, rows);
  }

  /**
   * POST /reconciliation/settlements/fetch: asks the connector of a service for its settlement report of
   * a day (the sandbox simulator gives one) and imports it as a file would be.
   */
  async fetchSettlement(ctx: RequestContext, body: { service: string; date: string; settlement_days?: number | null }) {
    const day = readDate(body.date);
    if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(body.date.trim())) throw badRequest('date must be a date YYYY-MM-DD');
    if (day > ctx.clock.now().toISOString().slice(0, 10)) throw badRequest(`date ${day} is in the future: a day is settled after it ends`);
    const service = await this.#service(ctx, body.service);
    const done = await repo.connectorReport(this.p.database.db, ownerOf(ctx), service.id, day);
    if (done) throw conflict(`The settlement report of ${day} for this service was imported already (report ${done.id})`);
    const connector = this.deps.processors.forService(service.type, ctx.env);
    if (!connector.settlementReport) throw unprocessable(`The connector of services of type ${service.type} gives no settlement report through an API: import the acquirer's report as a file (POST /reconciliation/settlements)`);
    const r = await connector.settlementReport({ day, terminal: { serviceType: service.type, terminalId: null, serviceId: service.id } });
    if (r.outcome === 'NOT_READY') throw conflict(`The settlement report of ${day} is not ready at the acquirer yet: ${r.details}`);
    if (r.outcome === 'UNKNOWN') throw unavailable(`The acquirer could not be asked for its settlement report: ${r.details}`);
    const text = settlementCsv(r.lines);
    const bytes = Buffer.from(text, 'utf8');
    const meta = await this.#settlementMeta(ctx, {
      filename: `${r.acquirer.toLowerCase()}-${service.id.slice(0, 8)}-${day}.csv`,
      acquirer: r.acquirer,
      service: service.id,
      settlement_days: body.settlement_days,
      period_from: day,
      period_to: day,
    });
    const rows = async function* () {
      let line = 1;
      for (const l of r.lines) yield { line: ++line, values: connectorRow(l), width: CSV_COLUMNS.length };
    };
    return this.#ingest(ctx, { ...meta, source: 'CONNECTOR', sha256: createHash('sha256').update(bytes).digest('hex') }, rows, { allowEmpty: true });
  }

  /**
   * The merchant's services in the caller's environment, each with whether its connector gives a
   * settlement report through an API (the dashboard offers to fetch those; the others' reports are files).
   */
  async reportSources(ctx: RequestContext) {
    const rows = await listServices(this.p.database.db, ctx.merchant.id);
    return rows.filter((s) => s.env === ctx.env).map((s) => {
      let report = false;
      try {
        report = this.deps.processors.supports(s.type, ctx.env) && !!this.deps.processors.forService(s.type, ctx.env).settlementReport;
      } catch {
        report = false;
      }
      return { uuid: s.id, name: s.name, type: s.type, enabled: s.enabled, settlement_report: report };
    });
  }

  async #service(ctx: RequestContext, id: string) {
    const s = UUID_RE.test(id) ? await findServiceWithTerminal(this.p.database.db, id.toLowerCase()) : undefined;
    if (!s || s.merchant_id !== ctx.merchant.id || s.env !== ctx.env) throw notFound(`The service ${String(id).slice(0, 64)} was not found`);
    return s;
  }

  async #settlementMeta(ctx: RequestContext, input: SettlementImportInput) {
    const filename = input.filename.trim();
    if (filename === '') throw badRequest('filename must not be empty');
    const acquirer = input.acquirer.trim().toUpperCase();
    if (!/^[A-Z0-9][A-Z0-9 ._-]{0,39}$/.test(acquirer)) throw badRequest('acquirer must be 1 to 40 letters, digits, spaces, dots, dashes or underscores (CHECKOUT, PAYPAL, REDSYS, ...)');
    const serviceId = input.service ? (await this.#service(ctx, input.service)).id : null;
    const from = input.period_from ? readDate(input.period_from) : null;
    const to = input.period_to ? readDate(input.period_to) : null;
    if (input.period_from && !from) throw badRequest('period_from must be a date YYYY-MM-DD');
    if (input.period_to && !to) throw badRequest('period_to must be a date YYYY-MM-DD');
    if ((from === null) !== (to === null)) throw badRequest('period_from and period_to go together: give both or neither');
    if (from && to && to < from) throw badRequest('period_to is before period_from');
    return { filename: filename.slice(0, 255), acquirer, serviceId, settlementDays: input.settlement_days ?? DEFAULT_SETTLEMENT_DAYS, period: from && to ? { from, to } : null };
  }

  async #ingest(
    ctx: RequestContext,
    meta: { filename: string; acquirer: string; serviceId: string | null; settlementDays: number; period: { from: string; to: string } | null; source: Source; sha256: string },
    rows: () => AsyncIterable<{ line: number; values: Record<string, string> }>,
    opts: { allowEmpty?: boolean } = {},
  ) {
    const owner = ownerOf(ctx);
    const db = this.p.database.db;
    const before = await repo.reportBySha(db, owner, meta.sha256);
    if (before) throw conflict(`This file was imported already (report ${before.id}, ${before.filename}): the same file is not imported twice`);
    const now = ctx.clock.now();
    const report = await this.p.database.transaction(async (trx) => {
      const row: repo.ReportRow = {
        id: randomUUID(),
        merchant_id: owner.merchantId,
        env: owner.env,
        source: meta.source,
        acquirer: meta.acquirer,
        service_id: meta.serviceId,
        filename: meta.filename,
        sha256: meta.sha256,
        period_from: meta.period?.from ?? '1970-01-01',
        period_to: meta.period?.to ?? '1970-01-01',
        settlement_days: meta.settlementDays,
        line_count: 0,
        created_at: now,
      };
      await repo.insertReport(trx, row);
      await repo.prepareStaging(trx);
      const problems: Array<{ line: number; msg: string }> = [];
      let problemCount = 0;
      let count = 0;
      let min: string | null = null;
      let max: string | null = null;
      let chunk: Array<SettlementLine & { refUuid: string | null }> = [];
      for await (const r of rows()) {
        const parsed = parseSettlementRow(r.line, r.values);
        if (Array.isArray(parsed)) {
          problemCount += parsed.length;
          if (problems.length < MAX_PROBLEMS) problems.push(...parsed.slice(0, MAX_PROBLEMS - problems.length));
          continue;
        }
        count++;
        if (min === null || parsed.transactionDate < min) min = parsed.transactionDate;
        if (max === null || parsed.transactionDate > max) max = parsed.transactionDate;
        if (problemCount > 0) continue;
        chunk.push({ ...parsed, refUuid: referenceUuid(parsed.reference) });
        if (chunk.length >= CHUNK) {
          await repo.insertLines(trx, chunk);
          chunk = [];
        }
      }
      if (problemCount > 0) throw unprocessable(`${problemCount} problem${problemCount > 1 ? 's' : ''} in the file: nothing was imported`, { errors: problems });
      await repo.insertLines(trx, chunk);
      if (count === 0 && !opts.allowEmpty) throw badRequest('data has a header and no rows');
      const period = meta.period ?? { from: min ?? now.toISOString().slice(0, 10), to: max ?? now.toISOString().slice(0, 10) };
      row.period_from = period.from;
      row.period_to = period.to;
      row.line_count = count;
      await repo.setReportCounts(trx, row.id, count, period);
      await repo.matchReport(trx, row);
      await repo.upsertPayouts(trx, row, now);
      await repo.matchPayouts(trx, owner, now);
      await IdempotencyStore.commit(trx, ctx);
      return row;
    });
    const counts = await repo.reportCounts(db, [report.id]);
    return { report: presentReport(report, counts.get(report.id)!) };
  }

  async listReports(ctx: RequestContext, q: { limit?: number; cursor?: string | null }) {
    const limit = q.limit ?? 50;
    const before = timeCursor('reports', q.cursor);
    const db = this.p.reads.db;
    const rows = await repo.listReports(db, ownerOf(ctx), { limit: limit + 1, before });
    const page = rows.slice(0, limit);
    const counts = await repo.reportCounts(db, page.map((r) => r.id));
    const last = page[page.length - 1];
    return {
      reports: page.map((r) => presentReport(r, counts.get(r.id)!)),
      next_cursor: rows.length > limit && last ? cursorOf('reports', `${last.created_at.toISOString()}_${last.id}`) : null,
    };
  }

  async getReport(ctx: RequestContext, id: string, q: { limit?: number; cursor?: string | null }) {
    const owner = ownerOf(ctx);
    const db = this.p.reads.db;
    const r = UUID_RE.test(id) ? await repo.findReport(db, owner, id.toLowerCase()) : undefined;
    if (!r) throw notFound(`The settlement report ${String(id).slice(0, 64)} was not found`);
    const limit = q.limit ?? 100;
    const after = readCursor('items', q.cursor);
    if (after !== null && !/^\d{1,9}$/.test(after)) throw badRequest('cursor is not one this list gave: pass next_cursor as it was answered');
    const [counts, lines] = await Promise.all([repo.reportCounts(db, [r.id]), limit > 0 ? repo.reportLines(db, r.id, { after: after === null ? null : Number(after), limit: limit + 1 }) : Promise.resolve([])]);
    const page = lines.slice(0, limit);
    const last = page[page.length - 1];
    return {
      report: presentReport(r, counts.get(r.id)!),
      lines: page.map(presentItem),
      next_cursor: lines.length > limit && last?.line ? cursorOf('items', String(last.line)) : null,
    };
  }

  // ---- exceptions ------------------------------------------------------------------------------------------

  async listItems(ctx: RequestContext, q: { kind?: MatchKind[]; report?: string | null; limit?: number; cursor?: string | null }) {
    const limit = q.limit ?? 100;
    const kinds = q.kind && q.kind.length > 0 ? [...new Set(q.kind)] : [...EXCEPTION_KINDS];
    const c = readCursor('items', q.cursor);
    if (c !== null && !/^\d{1,15}$/.test(c)) throw badRequest('cursor is not one this list gave: pass next_cursor as it was answered');
    if (q.report && !UUID_RE.test(q.report)) throw badRequest('report must be the uuid of a settlement report');
    const rows = await repo.listItems(this.p.reads.db, ownerOf(ctx), { kinds, reportId: q.report ? q.report.toLowerCase() : null, before: c === null ? null : Number(c), limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { items: page.map(presentItem), next_cursor: rows.length > limit && last ? cursorOf('items', String(last.id)) : null };
  }

  /** Every exception (or the kinds asked for) as CSV, newest first, at most `max` rows. */
  async itemsCsv(ctx: RequestContext, q: { kind?: MatchKind[]; report?: string | null }, max = 100_000): Promise<{ filename: string; body: string }> {
    const out = ['KIND,DETAIL,TYPE,ACQUIRER,REPORT,LINE,PROCESSOR_ID,REFERENCE,AMOUNT,CURRENCY,TRANSACTION_DATE,SETTLEMENT_DATE,BATCH,FEE_INTERCHANGE,FEE_SCHEME,FEE_PROCESSING,NET,TRANSACTION_UUID,ORDER_UUID,PAYGATE_AMOUNT,PAYGATE_CURRENCY,PAYGATE_DATE,PAYGATE_STATUS'];
    let cursor: string | null = null;
    let n = 0;
    do {
      const page: Awaited<ReturnType<ReconciliationService['listItems']>> = await this.listItems(ctx, { ...q, limit: Math.min(5000, max - n), cursor });
      for (const i of page.items) {
        out.push([i.kind, i.detail, i.type, i.report.acquirer, i.report.uuid, i.report.line, i.line?.processor_id, i.line?.reference, i.line?.amount, i.line?.currency, i.line?.transaction_date, i.line?.settlement_date, i.line?.batch,
          i.line?.fees.interchange, i.line?.fees.scheme, i.line?.fees.processing, i.line?.net, i.transaction?.uuid, i.transaction?.order_uuid, i.transaction?.amount, i.transaction?.currency, i.transaction?.date, i.transaction?.status].map(csvCell).join(','));
      }
      n += page.items.length;
      cursor = page.next_cursor;
    } while (cursor && n < max);
    return { filename: `reconciliation-exceptions-${ctx.clock.now().toISOString().slice(0, 10)}.csv`, body: `${out.join('\n')}\n` };
  }

  async summary(ctx: RequestContext) {
    const db = this.p.reads.db;
    const [kinds, payouts] = await Promise.all([repo.kindTotals(db, ownerOf(ctx)), repo.payoutTotals(db, ownerOf(ctx))]);
    const exceptions = EXCEPTION_KINDS.reduce((t, k) => t + kinds[k], 0);
    return { kinds, exceptions, payouts };
  }

  // ---- payouts and bank statements -----------------------------------------------------------------------

  async listPayouts(ctx: RequestContext, q: { status?: PayoutStatus[]; limit?: number; cursor?: string | null }) {
    const limit = q.limit ?? 100;
    const c = readCursor('payouts', q.cursor);
    let before: { date: string; id: string } | null = null;
    if (c !== null) {
      const m = /^(\d{4}-\d{2}-\d{2})_([0-9a-f-]{36})$/.exec(c);
      if (!m || !readDate(m[1]) || !UUID_RE.test(m[2])) throw badRequest('cursor is not one this list gave: pass next_cursor as it was answered');
      before = { date: m[1], id: m[2] };
    }
    const statuses = q.status && q.status.length > 0 ? [...new Set(q.status)] : [...PAYOUT_STATUSES];
    const rows = await repo.listPayouts(this.p.reads.db, ownerOf(ctx), { statuses, before, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { payouts: page.map(presentPayout), next_cursor: rows.length > limit && last ? cursorOf('payouts', `${last.settlement_date}_${last.id}`) : null };
  }

  async payoutsCsv(ctx: RequestContext, q: { status?: PayoutStatus[] }, max = 100_000): Promise<{ filename: string; body: string }> {
    const out = ['STATUS,ACQUIRER,BATCH,CURRENCY,SETTLEMENT_DATE,LINES,GROSS,FEE_INTERCHANGE,FEE_SCHEME,FEE_PROCESSING,FEES,EXPECTED,RECEIVED,RECEIVED_ON,DIFFERENCE,STATEMENT,STATEMENT_LINE,BANK_REFERENCE'];
    let cursor: string | null = null;
    let n = 0;
    do {
      const page: Awaited<ReturnType<ReconciliationService['listPayouts']>> = await this.listPayouts(ctx, { ...q, limit: Math.min(5000, max - n), cursor });
      for (const p of page.payouts) {
        out.push([p.status, p.acquirer, p.batch, p.currency, p.settlement_date, p.lines, p.gross, p.fees.interchange, p.fees.scheme, p.fees.processing, p.fees.total, p.expected, p.received?.amount, p.received?.date, p.difference,
          p.received?.statement_uuid, p.received?.line, p.received?.reference].map(csvCell).join(','));
      }
      n += page.payouts.length;
      cursor = page.next_cursor;
    } while (cursor && n < max);
    return { filename: `reconciliation-payouts-${ctx.clock.now().toISOString().slice(0, 10)}.csv`, body: `${out.join('\n')}\n` };
  }

  /** POST /reconciliation/bank-statements: a camt.053 or Norma 43 file in base64. */
  async uploadStatement(ctx: RequestContext, body: StatementImportInput & { data: string }) {
    const bytes = decodeUpload('data', body.data);
    return this.importStatement(ctx, body, bytes, 'UPLOAD');
  }

  async importStatement(ctx: RequestContext, input: StatementImportInput, bytes: Uint8Array, source: 'UPLOAD' | 'CLI') {
    const filename = input.filename.trim();
    if (filename === '') throw badRequest('filename must not be empty');
    if (bytes.length > UPLOAD_MAX_BYTES * 4) throw badRequest('data is larger than 64 MiB, the largest bank statement taken');
    const head = Buffer.from(bytes.subarray(0, 64)).toString('latin1').replace(/^\uFEFF|^\xEF\xBB\xBF/, '').trimStart();
    const format = input.format ?? (head.startsWith('<') ? 'CAMT053' : /^11\d/.test(head) ? 'NORMA43' : null);
    if (!format) throw badRequest('data is neither a camt.053 file (XML) nor a Norma 43 file (its first record 11): say which with format');
    let statements: BankStatement[];
    try {
      if (format === 'CAMT053') {
        let text: string;
        try {
          text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
        } catch {
          throw badRequest('data is not UTF-8 text (a camt.053 file is UTF-8 XML)');
        }
        statements = parseCamt053('data', text);
      } else {
        statements = parseNorma43('data', norma43Text(bytes));
      }
    } catch (err) {
      if (err instanceof StatementProblems) {
        throw unprocessable(`${err.problems.length} problem${err.problems.length > 1 ? 's' : ''} in the statement: nothing was imported`, { errors: err.problems.slice(0, MAX_PROBLEMS) });
      }
      throw err;
    }
    const owner = ownerOf(ctx);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const before = await repo.statementBySha(this.p.database.db, owner, sha256);
    if (before) throw conflict(`This file was imported already (statement ${before.id}, ${before.filename}): the same file is not imported twice`);
    const now = ctx.clock.now();
    const ids = await this.p.database.transaction(async (trx) => {
      const out: string[] = [];
      for (const s of statements) {
        const id = randomUUID();
        await repo.insertStatement(trx, {
          id, merchant_id: owner.merchantId, env: owner.env, format, source, filename: filename.slice(0, 255), sha256, account: s.account, currency: s.currency,
          period_from: s.periodFrom, period_to: s.periodTo, opening_balance: s.opening, closing_balance: s.closing, line_count: s.entries.length, created_at: now,
        });
        await repo.insertBankLines(trx, { id, merchantId: owner.merchantId, env: owner.env }, s.entries);
        out.push(id);
      }
      await repo.matchPayouts(trx, owner, now);
      await IdempotencyStore.commit(trx, ctx);
      return out;
    });
    const db = this.p.database.db;
    const rows = await repo.listStatements(db, owner, { limit: ids.length, before: null }, ids);
    return { statements: rows.map(presentStatement), payouts: (await repo.payoutTotals(db, owner)) };
  }

  async listStatements(ctx: RequestContext, q: { limit?: number; cursor?: string | null }) {
    const limit = q.limit ?? 50;
    const rows = await repo.listStatements(this.p.reads.db, ownerOf(ctx), { limit: limit + 1, before: timeCursor('statements', q.cursor) });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { statements: page.map(presentStatement), next_cursor: rows.length > limit && last ? cursorOf('statements', `${last.created_at.toISOString()}_${last.id}`) : null };
  }
}
