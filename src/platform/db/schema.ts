/**
 * The database schema as Kysely sees it. Each module declares its own tables by merging into `DB`
 * from its repo file:
 *
 *   declare module '../../platform/db/schema.js' { interface DB { orders: OrdersTable } }
 *
 * so modules own their tables while sharing one typed query builder.
 */
import type { ColumnType, Generated } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface DB {
  schema_migrations: { version: string; applied_at: ColumnType<Date, Date | undefined, never> };
}

export type Env = 'sandbox' | 'production';
export const ENVS: readonly Env[] = ['sandbox', 'production'];

/** A timestamp column that the database fills by default. */
export type CreatedAt = ColumnType<Date, Date | undefined, never>;
export type { Generated, ColumnType };
