/** SQL of templates and page settings. */
import type { Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { ColumnType, Env } from '../../platform/db/schema.js';
import type { TemplateType } from './templates.domain.js';

export interface TemplatesTable {
  id: string;
  merchant_id: string;
  env: Env;
  type: TemplateType;
  name: string;
  logo_url: string | null;
  button_color: string | null;
  background_color: string | null;
  is_default: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface PageSettingsTable {
  merchant_id: string;
  /** JSON array of origins; null: any origin. */
  frame_ancestors: ColumnType<string[] | null, string | null, string | null>;
  updated_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    templates: TemplatesTable;
    page_settings: PageSettingsTable;
  }
}

export type TemplateRow = Selectable<TemplatesTable>;

export async function insertTemplate(db: Executor, row: TemplateRow): Promise<void> {
  await db.insertInto('templates').values(row).execute();
}

export async function findTemplate(db: Executor, id: string, opts: { forUpdate?: boolean } = {}): Promise<TemplateRow | undefined> {
  let q = db.selectFrom('templates').selectAll().where('id', '=', id);
  if (opts.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function listTemplates(db: Executor, merchantId: string, env: Env, type?: TemplateType): Promise<TemplateRow[]> {
  let q = db.selectFrom('templates').selectAll().where('merchant_id', '=', merchantId).where('env', '=', env);
  if (type) q = q.where('type', '=', type);
  return q.orderBy('created_at').orderBy('id').execute();
}

export async function defaultTemplate(db: Executor, merchantId: string, env: Env, type: TemplateType): Promise<TemplateRow | undefined> {
  return db
    .selectFrom('templates')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('env', '=', env)
    .where('type', '=', type)
    .where('is_default', '=', true)
    .executeTakeFirst();
}

/** Clears the default flag of the merchant's other templates of a type. */
export async function clearDefault(db: Executor, merchantId: string, env: Env, type: TemplateType, exceptId: string): Promise<void> {
  await db
    .updateTable('templates')
    .set({ is_default: false })
    .where('merchant_id', '=', merchantId)
    .where('env', '=', env)
    .where('type', '=', type)
    .where('is_default', '=', true)
    .where('id', '<>', exceptId)
    .execute();
}

export async function updateTemplate(db: Executor, id: string, set: Partial<Omit<TemplateRow, 'id' | 'merchant_id' | 'env' | 'type' | 'created_at'>>): Promise<void> {
  await db.updateTable('templates').set(set).where('id', '=', id).execute();
}

export async function deleteTemplate(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('templates').where('id', '=', id).execute();
}

export async function pageSettings(db: Executor, merchantId: string): Promise<{ frame_ancestors: string[] | null; updated_at: Date } | undefined> {
  return db.selectFrom('page_settings').select(['frame_ancestors', 'updated_at']).where('merchant_id', '=', merchantId).executeTakeFirst();
}

export async function savePageSettings(db: Executor, merchantId: string, frameAncestors: string[] | null, now: Date): Promise<void> {
  const json = frameAncestors === null ? null : JSON.stringify(frameAncestors);
  await db
    .insertInto('page_settings')
    .values({ merchant_id: merchantId, frame_ancestors: json, updated_at: now })
    .onConflict((oc) => oc.column('merchant_id').doUpdateSet({ frame_ancestors: json, updated_at: now }))
    .execute();
}
