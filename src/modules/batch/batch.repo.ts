/** SQL of batch files and their lines. */
import { sql, type ColumnType } from 'kysely';
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

export type BatchRow = BatchFilesTable;
export type LineRow = Omit<BatchLinesTable, 'data' | 'attempts'> & { data: Record<string, unknown>; attempts: number };

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

export async function linesOf(db: Executor, batchId: string): Promise<LineRow[]> {
  return (await db.selectFrom('batch_lines').selectAll().where('batch_id', '=', batchId).orderBy('line').execute()) as LineRow[];
}

export async function lineById(db: Executor, id: string, lock = false): Promise<LineRow | undefined> {
  let q = db.selectFrom('batch_lines').selectAll().where('id', '=', id);
  if (lock) q = q.forUpdate();
  return (await q.executeTakeFirst()) as LineRow | undefined;
}

export async function updateLine(db: Executor, id: string, set: Partial<Omit<LineRow, 'data'>>): Promise<void> {
  await db.updateTable('batch_lines').set(set).where('id', '=', id).execute();
}

export async function updateBatch(db: Executor, id: string, set: Partial<BatchRow>): Promise<void> {
  await db.updateTable('batch_files').set(set).where('id', '=', id).execute();
}

export async function counts(db: Executor, batchId: string): Promise<Record<LineStatus, number>> {
  const { rows } = await sql<{ status: LineStatus; n: string }>`select status, count(*) as n from batch_lines where batch_id = ${batchId} group by status`.execute(db);
  const out: Record<LineStatus, number> = { PENDING: 0, RUNNING: 0, SUCCEEDED: 0, FAILED: 0 };
  for (const r of rows) out[r.status] = Number(r.n);
  return out;
}
