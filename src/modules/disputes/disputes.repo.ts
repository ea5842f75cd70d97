/** SQL of disputes: the disputes, their history, their evidence and the merchant's dispute settings. */
import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import type { DisputeCategory, DisputeSource, DisputeStage, DisputeStatus, DocumentType } from './disputes.domain.js';

export interface DisputesTable {
  id: string;
  merchant_id: string;
  env: Env;
  order_id: string;
  transaction_id: string;
  service_id: string | null;
  service_type: string | null;
  source: DisputeSource;
  acquirer: string;
  provider_id: string | null;
  reason_code: string;
  category: DisputeCategory;
  amount: number;
  currency: string;
  stage: DisputeStage;
  status: DisputeStatus;
  evidence_due_at: Date;
  sandbox_outcome: 'WON' | 'LOST' | null;
  submitted_at: Date | null;
  resolved_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface DisputeHistoryTable {
  id: number;
  dispute_id: string;
  at: Date;
  actor: string;
  event: string;
  from_status: DisputeStatus | null;
  to_status: DisputeStatus;
  stage: DisputeStage;
  detail: string | null;
}

export interface DisputeEvidenceTable {
  id: string;
  dispute_id: string;
  kind: 'TEXT' | 'DOCUMENT';
  name: string;
  text_value: string | null;
  content_type: DocumentType | null;
  size: number;
  content: Buffer | null;
  field: string | null;
  created_at: Date;
}

export interface DisputeSettingsTable {
  merchant_id: string;
  notification_url: string | null;
  key_id: string | null;
  reminder_days: number;
  updated_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    disputes: DisputesTable;
    dispute_history: Omit<DisputeHistoryTable, 'id'> & { id: import('kysely').Generated<number> };
    dispute_evidence: DisputeEvidenceTable;
    dispute_settings: DisputeSettingsTable;
  }
}

export type DisputeRow = Selectable<DisputesTable>;
export type HistoryRow = Selectable<DisputeHistoryTable>;
export type EvidenceMeta = Omit<DisputeEvidenceTable, 'content'>;
export type Owner = { merchantId: string; env: Env };

const num = (r: DisputeRow): DisputeRow => ({ ...r, amount: Number(r.amount) });

export async function insertDispute(db: Executor, row: DisputeRow): Promise<void> {
  await db.insertInto('disputes').values(row).execute();
}

export async function findDispute(db: Executor, owner: Owner, id: string): Promise<DisputeRow | undefined> {
  const r = await db.selectFrom('disputes').selectAll().where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env).executeTakeFirst();
  return r && num(r);
}

export async function lockDispute(db: Executor, owner: Owner, id: string): Promise<DisputeRow | undefined> {
  const r = await db.selectFrom('disputes').selectAll().where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env).forUpdate().executeTakeFirst();
  return r && num(r);
}

/** A dispute by its id alone (jobs: the job names it and its merchant). */
export async function lockDisputeById(db: Executor, id: string): Promise<DisputeRow | undefined> {
  const r = await db.selectFrom('disputes').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  return r && num(r);
}

export async function findDisputeById(db: Executor, id: string): Promise<DisputeRow | undefined> {
  const r = await db.selectFrom('disputes').selectAll().where('id', '=', id).executeTakeFirst();
  return r && num(r);
}

export async function lockByProviderId(db: Executor, owner: Owner, acquirer: string, providerId: string): Promise<DisputeRow | undefined> {
  const r = await db.selectFrom('disputes').selectAll()
    .where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env).where('acquirer', '=', acquirer).where('provider_id', '=', providerId)
    .forUpdate().executeTakeFirst();
  return r && num(r);
}

export async function openDisputeOf(db: Executor, transactionId: string): Promise<DisputeRow | undefined> {
  const r = await db.selectFrom('disputes').selectAll().where('transaction_id', '=', transactionId).where('status', 'in', ['NEEDS_RESPONSE', 'UNDER_REVIEW']).executeTakeFirst();
  return r && num(r);
}

export async function updateDispute(db: Executor, id: string, set: Partial<Omit<DisputeRow, 'id' | 'merchant_id' | 'env'>>): Promise<void> {
  await db.updateTable('disputes').set(set).where('id', '=', id).execute();
}

export async function addHistory(db: Executor, rows: Array<Omit<HistoryRow, 'id'>>): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('dispute_history').values(rows).execute();
}

export async function historyOf(db: Executor, disputeId: string): Promise<HistoryRow[]> {
  return db.selectFrom('dispute_history').selectAll().where('dispute_id', '=', disputeId).orderBy('id').execute();
}

export interface ListFilter {
  status?: DisputeStatus[];
  stage?: DisputeStage[];
  orderId?: string | null;
  /** keyset: strictly older than this (created_at, id) */
  before?: { at: Date; id: string } | null;
  limit: number;
}

export async function listDisputes(db: Executor, owner: Owner, f: ListFilter): Promise<DisputeRow[]> {
  let q = db.selectFrom('disputes').selectAll().where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env);
  if (f.status && f.status.length > 0) q = q.where('status', 'in', f.status);
  if (f.stage && f.stage.length > 0) q = q.where('stage', 'in', f.stage);
  if (f.orderId) q = q.where('order_id', '=', f.orderId);
  if (f.before) {
    const b = f.before;
    q = q.where((eb) => eb.or([eb('created_at', '<', b.at), eb.and([eb('created_at', '=', b.at), eb('id', '<', b.id)])]));
  }
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).execute();
  return rows.map(num);
}

export async function disputesOfOrder(db: Executor, owner: Owner, orderId: string): Promise<DisputeRow[]> {
  const rows = await db.selectFrom('disputes').selectAll().where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env).where('order_id', '=', orderId).orderBy('created_at').execute();
  return rows.map(num);
}

// ---- evidence --------------------------------------------------------------------------------------------

export async function evidenceOf(db: Executor, disputeId: string): Promise<EvidenceMeta[]> {
  const rows = await db.selectFrom('dispute_evidence')
    .select(['id', 'dispute_id', 'kind', 'name', 'text_value', 'content_type', 'size', 'field', 'created_at'])
    .where('dispute_id', '=', disputeId).orderBy('created_at').orderBy('name').execute();
  return rows.map((r) => ({ ...r, size: Number(r.size) }));
}

export async function documentsSize(db: Executor, disputeId: string): Promise<{ bytes: number; count: number }> {
  const { rows } = await sql<{ bytes: string | number | null; count: string | number }>`select coalesce(sum(size), 0) as bytes, count(*) as count from dispute_evidence where dispute_id = ${disputeId} and kind = 'DOCUMENT'`.execute(db);
  return { bytes: Number(rows[0].bytes ?? 0), count: Number(rows[0].count) };
}

export async function upsertText(db: Executor, row: Omit<DisputeEvidenceTable, 'content' | 'content_type' | 'field'> & { text_value: string }): Promise<void> {
  await sql`insert into dispute_evidence (id, dispute_id, kind, name, text_value, content_type, size, content, created_at)
    values (${row.id}, ${row.dispute_id}, 'TEXT', ${row.name}, ${row.text_value}, null, ${row.size}, null, ${row.created_at})
    on conflict (dispute_id, name) where kind = 'TEXT' do update set text_value = excluded.text_value, size = excluded.size, created_at = excluded.created_at`.execute(db);
}

export async function insertDocument(db: Executor, row: DisputeEvidenceTable): Promise<void> {
  await db.insertInto('dispute_evidence').values(row).execute();
}

export async function documentsOf(db: Executor, disputeId: string): Promise<Array<{ name: string; content_type: string; content: Buffer; field: string | null }>> {
  const rows = await db.selectFrom('dispute_evidence').select(['name', 'content_type', 'content', 'field']).where('dispute_id', '=', disputeId).where('kind', '=', 'DOCUMENT').orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => ({ name: r.name, content_type: r.content_type!, content: Buffer.from(r.content!), field: r.field }));
}

export async function documentOf(db: Executor, disputeId: string, id: string): Promise<DisputeEvidenceTable | undefined> {
  return db.selectFrom('dispute_evidence').selectAll().where('dispute_id', '=', disputeId).where('id', '=', id).where('kind', '=', 'DOCUMENT').executeTakeFirst();
}

// ---- settings --------------------------------------------------------------------------------------------

export async function settingsOf(db: Executor, merchantId: string): Promise<DisputeSettingsTable | undefined> {
  return db.selectFrom('dispute_settings').selectAll().where('merchant_id', '=', merchantId).executeTakeFirst();
}

export async function saveSettings(db: Executor, row: DisputeSettingsTable): Promise<void> {
  await db.insertInto('dispute_settings').values(row)
    .onConflict((oc) => oc.column('merchant_id').doUpdateSet({ notification_url: row.notification_url, key_id: row.key_id, reminder_days: row.reminder_days, updated_at: row.updated_at }))
    .execute();
}
