/** SQL of checkout configurations. Every function takes the executor to run on. */
import { sql, type ColumnType, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import type { CheckoutRecord, Customization } from './checkouts.domain.js';
import { isUuid } from '../../platform/ids.js';

export interface CheckoutsTable {
  id: string;
  merchant_id: string;
  env: Env;
  name: string;
  payment_methods: ColumnType<string[], string, string>;
  default_payment_method: string | null;
  customization: ColumnType<Customization | null, string | null, string | null>;
  created_at: Date;
  updated_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    checkouts: CheckoutsTable;
  }
}

export interface Owner {
  merchantId: string;
  env: Env;
}

export type CheckoutRow = Selectable<CheckoutsTable>;

const json = (v: unknown) => (v === null ? null : JSON.stringify(v));

export async function insertCheckout(db: Executor, row: CheckoutRow): Promise<void> {
  await db
    .insertInto('checkouts')
    .values({ ...row, payment_methods: JSON.stringify(row.payment_methods), customization: json(row.customization) })
    .execute();
}

/** A checkout of `owner`; undefined for unknown ids and other merchants' (or environments') checkouts. */
export async function findCheckout(db: Executor, owner: Owner, id: string, opts: { forUpdate?: boolean } = {}): Promise<CheckoutRow | undefined> {
  if (!isUuid(id)) return undefined;
  let q = db.selectFrom('checkouts').selectAll().where('id', '=', id.toLowerCase()).where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env);
  if (opts.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** The checkouts of `owner`, oldest first (insertion order breaks ties). */
export async function listCheckouts(db: Executor, owner: Owner): Promise<CheckoutRow[]> {
  return db
    .selectFrom('checkouts')
    .selectAll()
    .where('merchant_id', '=', owner.merchantId)
    .where('env', '=', owner.env)
    .orderBy('created_at', 'asc')
    .orderBy(sql`seq`, 'asc')
    .execute();
}

export async function updateCheckout(db: Executor, id: string, set: Partial<Omit<CheckoutRecord, 'id' | 'created_at'>>): Promise<void> {
  const values: Record<string, unknown> = { ...set };
  if (set.payment_methods !== undefined) values.payment_methods = JSON.stringify(set.payment_methods);
  if (set.customization !== undefined) values.customization = json(set.customization);
  await db.updateTable('checkouts').set(values).where('id', '=', id).execute();
}

export async function deleteCheckout(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('checkouts').where('id', '=', id).execute();
}
