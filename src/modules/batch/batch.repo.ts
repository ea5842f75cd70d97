/** SQL of batch files and their lines. */
import { sql, type ColumnType, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import type { BatchKind, BatchStatus, LineStatus } from './batch.domain.js';

export interface BatchFilesTable {
  id: string;
  merchant_id: string;
  env: Env;
  key_id: string;
  kind: BatchKind;
  filename: string;
  status: BatchStatus;
  execute_at: Date;
  line_count: number;
  created_at: Date;
  finished_at: Date | null;
}

export interface BatchLinesTable {
  id: string;
  batch_id: string;
  line: number;
  data: ColumnType<Record<string, unknown>, string, string>;
  order_id: string;
  status: LineStatus;
  outcome: string | null;
  error: string | null;
  refunds_before: number | null;
  attempts: ColumnType<number, number | undefined, number>;
  updated_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    batch_files: BatchFilesTable;
    batch_lines: BatchLinesTable;
  }
}

export type BatchRow = Selectable<BatchFilesTable>;
export type LineRow = Selectable<BatchLinesTable>;

export async function insertBatch(db: Executor, row: BatchRow): Promise<void> {
  await db.insertInto('batch_files').values(row).execute();
}

export async function insertLines(db: Executor, rows: Array<Omit<LineRow, 'attempts'>>): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await db.insertInto('batch_lines').values(rows.slice(i, i + 500).map((r) => ({ ...r, data: JSON.stringify(r.data) }))).execute();
  }
}

export async function findBatch(db: Executor, owner: { merchantId: string; env: Env }, id: string): Promise<BatchRow | undefined> {
  return db.selectFrom('batch_files').selectAll().where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env).executeTakeFirst();
}

export async function batchById(db: Executor, id: string, lock = false): Promise<BatchRow | undefined> {
  let q = db.selectFrom('batch_files').selectAll().where('id', '=', id);
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function linesOf(db: Executor, batchId: string, page?: { limit: number; offset: number }): Promise<LineRow[]> {
  let q = db.selectFrom('batch_lines').selectAll().where('batch_id', '=', batchId).orderBy('line');
  if (page) q = q.limit(page.limit).offset(page.offset);
  return (await q.execute()) as LineRow[];
}

export async function updateLine(db: Executor, id: string, set: Partial<Omit<LineRow, 'data'>>): Promise<void> {
  await db.updateTable('batch_lines').set(set).where('id', '=', id).execute();
}

/** A line claimed by a worker, with what it needs of its file. */
export type ClaimedLine = LineRow & { key_id: string; kind: BatchKind; batch_status: BatchStatus };

/**
 * Claims a line in one statement: moves it `from` one of the statuses (the CLAIM transitions of the
 * line table, as `to[from]`), counts the attempt and returns it with its file's key, kind and status.
 * Undefined when the line is in no status it can be claimed from (finished).
 */
export async function claimLine(db: Executor, id: string, to: Partial<Record<LineStatus, LineStatus>>, at: Date): Promise<ClaimedLine | undefined> {
  const from = Object.keys(to) as LineStatus[];
  if (from.length === 0) return undefined;
  const next = sql.join(from.map((f) => sql`when ${f} then ${to[f]!}`), sql` `);
  const { rows } = await sql<ClaimedLine>`
    update batch_lines l set status = case l.status ${next} end, attempts = l.attempts + 1, updated_at = ${at}
    from batch_files b
    where l.id = ${id} and b.id = l.batch_id and l.status = any(${from}::text[])
    returning l.*, b.key_id, b.kind, b.status as batch_status`.execute(db);
  return rows[0];
}

/** Moves a file `from` one of the statuses to `to` (guarded: a file already moved is left as it is). */
export async function moveBatch(db: Executor, id: string, from: BatchStatus[], to: BatchStatus, set: Partial<BatchRow> = {}): Promise<void> {
  if (from.length === 0) return;
  await db.updateTable('batch_files').set({ ...set, status: to }).where('id', '=', id).where('status', 'in', from).execute();
}

/**
 * Moves a file `from` one of the statuses to `to` when none of its lines is open (PENDING or RUNNING),
 * in one statement. Run after a line's own outcome is committed, by every line: the last one to commit
 * sees every line finished.
 */
export async function completeIfDone(db: Executor, id: string, from: BatchStatus[], to: BatchStatus, at: Date): Promise<void> {
  if (from.length === 0) return;
  await sql`update batch_files set status = ${to}, finished_at = ${at}
    where id = ${id} and status = any(${from}::text[])
      and not exists (select 1 from batch_lines where batch_id = ${id} and status in ('PENDING', 'RUNNING'))`.execute(db);
}

export async function counts(db: Executor, batchId: string): Promise<Record<LineStatus, number>> {
  const { rows } = await sql<{ status: LineStatus; n: string }>`select status, count(*) as n from batch_lines where batch_id = ${batchId} group by status`.execute(db);
  const out: Record<LineStatus, number> = { PENDING: 0, RUNNING: 0, SUCCEEDED: 0, FAILED: 0 };
  for (const r of rows) out[r.status] = Number(r.n);
  return out;
}

/**
 * The files of a merchant in an environment, newest first, a page of them with the counts of their
 * lines by status (one statement).
 */
export async function listBatches(db: Executor, owner: { merchantId: string; env: Env }, page: { limit: number; offset: number }): Promise<Array<BatchRow & { counts: Record<LineStatus, number> }>> {
  const files = await db
    .selectFrom('batch_files')
    .selectAll()
    .where('merchant_id', '=', owner.merchantId)
    .where('env', '=', owner.env)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  if (files.length === 0) return [];
  const ids = files.map((f) => f.id);
  const { rows } = await sql<{ batch_id: string; status: LineStatus; n: string }>`select batch_id, status, count(*) as n from batch_lines where batch_id = any(${ids}::uuid[]) group by batch_id, status`.execute(db);
  const byId = new Map<string, Record<LineStatus, number>>(ids.map((id) => [id, { PENDING: 0, RUNNING: 0, SUCCEEDED: 0, FAILED: 0 }]));
  for (const r of rows) byId.get(r.batch_id)![r.status] = Number(r.n);
  return files.map((f) => ({ ...f, counts: byId.get(f.id)! }));
}
