/**
 * Disputes imported from an acquirer's file (docs/disputes.md, "Import"): the CSV layout read and checked line
 * by line, each line matched to a successful payment of the merchant, then created or moved along the
 * transition table; all or nothing. The service's own steps (apply an event, schedule the deadline, record a
 * change) are passed in, so a dispute changes the same way whichever way it arrives.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { badRequest, unprocessable } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import { readCsv, type LineError } from '../../platform/csv/csv.js';
import { moneyMovementsSql } from '../payments/index.js';
import { CSV_OPTIONAL, CSV_REQUIRED, eventTowards, isOpen, parseImportRow, type DisputeEvent, type DisputeStage, type ImportRow } from './disputes.domain.js';
import type { DisputeEventType } from './disputes.changes.js';
import * as repo from './disputes.repo.js';

/** The largest dispute file accepted (decoded), and the body that carries it as base64. */
export const IMPORT_MAX_BYTES = 10 * 1024 * 1024;
export const IMPORT_BODY_LIMIT = Math.ceil((IMPORT_MAX_BYTES * 4) / 3) + 1024 * 1024;

export interface ImportSteps {
  apply(trx: Executor, d: repo.DisputeRow, event: DisputeEvent, now: Date, actor: string, detail: string | null, extra?: Partial<repo.DisputeRow>, stage?: DisputeStage): Promise<repo.DisputeRow>;
  scheduleDeadline(trx: Executor, d: repo.DisputeRow, offsetMs: number): Promise<void>;
  changed(trx: Executor, d: repo.DisputeRow, type: DisputeEventType, now: Date): Promise<void>;
}

const own = (ctx: RequestContext): repo.Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });

/** POST /disputes/import: an acquirer's disputes in the CSV layout; all or nothing. */
export async function importDisputes(p: Platform, ctx: RequestContext, body: { data: string; filename: string; acquirer: string }, steps: ImportSteps) {
  const bytes = decodeCsv(body.data);
  const file = await readCsv('data', bytes, { required: CSV_REQUIRED, optional: CSV_OPTIONAL });
  const problems: LineError[] = [];
  const rows: Array<ImportRow & { acquirer: string }> = [];
  const seen = new Map<string, number>();
  for (const r of file.rows) {
    const parsed = parseImportRow(r.line, r.values);
    if ('problems' in parsed) {
      for (const msg of parsed.problems) problems.push({ line: r.line, msg });
      continue;
    }
    const acquirer = (r.values.ACQUIRER?.trim() || body.acquirer).toUpperCase();
    const key = `${acquirer}\u0000${parsed.row.providerId}`;
    if (seen.has(key)) problems.push({ line: r.line, msg: `DISPUTE_ID ${parsed.row.providerId} is already on line ${seen.get(key)}` });
    seen.set(key, r.line);
    rows.push({ ...parsed.row, acquirer });
  }
  const now = ctx.clock.now();
  const actor = `import:${body.filename}`.slice(0, 300);
  const result = await p.database.transaction(async (trx) => {
    // the disputed payments, as the payments module presents its money movements
    const ids = [...new Set(rows.map((r) => r.transactionId))];
    const pays = new Map<string, { order_id: string; amount: number; currency: string; type: string; status: string; service_id: string }>();
    for (let i = 0; i < ids.length; i += 1000) {
      const chunk = ids.slice(i, i + 1000);
      const { rows: found } = await sql<{ transaction_id: string; order_id: string; amount: string | number; currency: string; type: string; status: string; service_id: string }>`
        select m.transaction_id, m.order_id, m.amount, m.currency, m.type, m.status, m.service_id from (${moneyMovementsSql({ merchantId: ctx.merchant.id, env: ctx.env })}) m
        where m.transaction_id in (${sql.join(chunk.map((x) => sql`${x}::uuid`))})`.execute(trx);
      for (const f of found) pays.set(f.transaction_id, { ...f, amount: Number(f.amount) });
    }
    let created = 0;
    let updated = 0;
    let unchanged = 0;
    for (const r of rows) {
      const pay = pays.get(r.transactionId);
      if (!pay || pay.type !== 'PAYMENT' || pay.status !== 'SUCCESS') {
        problems.push({ line: r.line, msg: `TRANSACTION ${r.transactionId} is not a successful payment of this merchant` });
        continue;
      }
      if (r.currency !== pay.currency) problems.push({ line: r.line, msg: `CURRENCY ${r.currency} is not the payment's (${pay.currency})` });
      if (r.amount > pay.amount) problems.push({ line: r.line, msg: `AMOUNT ${r.amount} is more than the payment's amount (${pay.amount})` });
      if (problems.some((p) => p.line === r.line)) continue;
      const existing = await repo.lockByProviderId(trx, own(ctx), r.acquirer, r.providerId);
      if (existing) {
        if (existing.transaction_id !== r.transactionId) {
          problems.push({ line: r.line, msg: `DISPUTE_ID ${r.providerId} is a dispute of another payment (${existing.transaction_id})` });
          continue;
        }
        const event = eventTowards(existing, r);
        if (event === 'impossible') {
          problems.push({ line: r.line, msg: `the dispute is ${existing.status} at ${existing.stage}: it cannot become ${r.status} at ${r.stage}` });
          continue;
        }
        if (event === null) {
          unchanged++;
          continue;
        }
        const extra: Partial<repo.DisputeRow> = event === 'ESCALATE' ? { evidence_due_at: r.due, amount: r.amount, reason_code: r.reasonCode } : event === 'SUBMIT' ? { submitted_at: now } : {};
        const next = await steps.apply(trx, existing, event, now, actor, `line ${r.line} of ${body.filename}`.slice(0, 1000), extra, event === 'ESCALATE' ? r.stage : undefined);
        if (event === 'ESCALATE') await steps.scheduleDeadline(trx, next, ctx.clock.offsetMs);
        updated++;
        continue;
      }
      const open = await repo.openDisputeOf(trx, r.transactionId);
      if (open && isOpen(r.status)) {
        problems.push({ line: r.line, msg: `the payment ${r.transactionId} already has an open dispute (${open.provider_id ?? open.id})` });
        continue;
      }
      const resolved = !isOpen(r.status);
      const row: repo.DisputeRow = {
        id: randomUUID(), merchant_id: ctx.merchant.id, env: ctx.env, order_id: pay.order_id, transaction_id: r.transactionId, service_id: pay.service_id, service_type: null, source: 'IMPORT',
        acquirer: r.acquirer, provider_id: r.providerId, reason_code: r.reasonCode, category: r.category, amount: r.amount, currency: r.currency,
        stage: r.stage, status: r.status, evidence_due_at: r.due, sandbox_outcome: null, submitted_at: r.status === 'UNDER_REVIEW' ? now : null,
        resolved_at: resolved ? now : null, created_at: now, updated_at: now,
      };
      await repo.insertDispute(trx, row);
      await repo.addHistory(trx, [{ dispute_id: row.id, at: now, actor, event: 'CREATE', from_status: null, to_status: row.status, stage: row.stage, detail: `line ${r.line} of ${body.filename}`.slice(0, 1000) }]);
      if (row.status === 'NEEDS_RESPONSE') await steps.scheduleDeadline(trx, row, ctx.clock.offsetMs);
      await steps.changed(trx, row, 'DISPUTE_CREATED', now);
      created++;
    }
    if (problems.length > 0) {
      problems.sort((a, b) => a.line - b.line);
      throw unprocessable(`${problems.length} problem${problems.length > 1 ? 's' : ''} in the file: nothing was imported`, { errors: problems.slice(0, 1000) });
    }
    return { lines: file.rows.length, created, updated, unchanged };
  });
  return { import: { filename: body.filename, ...result } };
}

function decodeCsv(value: string): Buffer {
  let text = value.trim();
  const m = /^data:([^;,]*)(;[^,]*)?,/i.exec(text);
  if (m) {
    if (!/;base64$/i.test(m[2] ?? '')) throw badRequest('data must be base64 (data:text/csv;base64,)');
    text = text.slice(m[0].length);
  }
  text = text.replace(/\s+/g, '');
  if (text.length === 0) throw badRequest('data is empty');
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw badRequest('data is not valid base64');
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length > IMPORT_MAX_BYTES) throw badRequest(`data is larger than ${IMPORT_MAX_BYTES} bytes (10 MiB), the largest file accepted`);
  return bytes;
}
