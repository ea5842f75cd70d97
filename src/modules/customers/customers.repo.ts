/** SQL of customers, their accounts, addresses and profiles. Every function takes the executor to run on. */
import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { CreatedAt, Env } from '../../platform/db/schema.js';

export interface CustomersTable {
  id: string;
  merchant_id: string;
  env: Env;
  external_id: string;
  token: string;
  created_at: CreatedAt;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    customers: CustomersTable;
  }
}

export type CustomerRow = Omit<CustomersTable, 'created_at'> & { created_at: Date };

/** Who owns a record: a merchant in one environment. */
export interface Owner {
  merchantId: string;
  env: Env;
}

export async function findCustomer(db: Executor, owner: Owner, externalId: string): Promise<CustomerRow | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('merchant_id', '=', owner.merchantId)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
}

export async function findCustomerById(db: Executor, id: string): Promise<CustomerRow | undefined> {
  return db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The customer with `externalId`, created when missing. Safe under concurrency: a concurrent insert of
 * the same customer makes ours do nothing, and the row is read back.
 */
export async function ensureCustomer(
  db: Executor,
  owner: Owner,
  externalId: string,
  fresh: { id: string; token: string; created_at: Date },
): Promise<{ row: CustomerRow; created: boolean }> {
  const { rows } = await sql<CustomerRow>`
    insert into customers (id, merchant_id, env, external_id, token, created_at)
    values (${fresh.id}, ${owner.merchantId}, ${owner.env}, ${externalId}, ${fresh.token}, ${fresh.created_at})
    on conflict (merchant_id, external_id) do nothing
    returning *`.execute(db);
  if (rows[0]) return { row: rows[0], created: true };
  const row = await findCustomer(db, owner, externalId);
  if (!row) throw new Error('customer vanished while being created');
  return { row, created: false };
}
