/** SQL of services and terminals. */
import type { ColumnType, Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { CreatedAt, Env } from '../../platform/db/schema.js';
import type { ApprovalRule, Outage, SandboxBehaviour, SoftDecline } from '../../processors/sandbox-behaviour.js';

export interface ServicesTable {
  id: string;
  merchant_id: string;
  env: Env;
  name: string;
  type: string;
  terminal_id: string | null;
  enabled: boolean;
  dcc_allowed: boolean;
  dcc_mode: 'LOCAL' | 'FOREIGN' | 'DYNAMIC' | null;
  dynamic_descriptor: string | null;
  referential_integrity: string | null;
  mcc: string | null;
  /** Bizum on the payment pages (REDSYS family only; migration 0300). */
  bizum_enabled: boolean;
  created_at: CreatedAt;
}

export interface TerminalsTable {
  id: string;
  merchant_id: string;
  env: Env;
  type: string;
  code: string | null;
  currency_code: string;
  dcc_allowed: boolean;
  is_cof_disabled_by_default: boolean;
  description: string;
  acquirer: string | null;
  credentials_sealed: string | null;
  credentials_masked: ColumnType<Record<string, string> | null, string | null, string | null>;
  created_at: CreatedAt;
}

/** A sandbox service's behaviour (migration 1145); no row: the test cards. */
export interface SandboxBehavioursTable {
  service_id: string;
  approval: ColumnType<ApprovalRule[], string, string>;
  soft_decline: SoftDecline;
  outage: Outage;
  latency_ms: number;
  updated_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    services: ServicesTable;
    terminals: TerminalsTable;
    service_sandbox_behaviours: SandboxBehavioursTable;
  }
}

export type ServiceRow = Selectable<ServicesTable>;
export type TerminalRow = Selectable<TerminalsTable>;

export async function insertService(db: Executor, row: ServiceRow): Promise<void> {
  await db.insertInto('services').values(row).execute();
}

export async function insertTerminal(db: Executor, row: TerminalRow): Promise<void> {
  await db
    .insertInto('terminals')
    .values({ ...row, credentials_masked: row.credentials_masked ? JSON.stringify(row.credentials_masked) : null })
    .execute();
}

export async function findService(db: Executor, id: string): Promise<ServiceRow | undefined> {
  return db.selectFrom('services').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findTerminal(db: Executor, id: string): Promise<TerminalRow | undefined> {
  return db.selectFrom('terminals').selectAll().where('id', '=', id).executeTakeFirst() as Promise<TerminalRow | undefined>;
}

export async function listTerminals(db: Executor, merchantId: string, env: Env): Promise<TerminalRow[]> {
  return db.selectFrom('terminals').selectAll().where('merchant_id', '=', merchantId).where('env', '=', env).orderBy('created_at').orderBy('id').execute() as Promise<TerminalRow[]>;
}

export async function listServices(db: Executor, merchantId: string): Promise<ServiceRow[]> {
  return db.selectFrom('services').selectAll().where('merchant_id', '=', merchantId).orderBy('created_at').orderBy('id').execute();
}

export async function updateService(db: Executor, id: string, set: Partial<Omit<ServiceRow, 'id' | 'merchant_id' | 'env' | 'created_at'>>): Promise<void> {
  await db.updateTable('services').set(set).where('id', '=', id).execute();
}

/** A service with the currency of its terminal: what payments need to route an order. */
export interface ServiceWithTerminal extends ServiceRow {
  currency_code: string | null;
  terminal_type: string | null;
}

export async function findServiceWithTerminal(db: Executor, id: string): Promise<ServiceWithTerminal | undefined> {
  return db
    .selectFrom('services as s')
    .leftJoin('terminals as t', 't.id', 's.terminal_id')
    .selectAll('s')
    .select(['t.currency_code', 't.type as terminal_type'])
    .where('s.id', '=', id)
    .executeTakeFirst();
}

/** The merchant's first enabled service whose terminal uses `currency` (B1 without `service`). */
export async function findDefaultServiceForCurrency(db: Executor, merchantId: string, currency: string): Promise<ServiceWithTerminal | undefined> {
  return db
    .selectFrom('services as s')
    .innerJoin('terminals as t', 't.id', 's.terminal_id')
    .selectAll('s')
    .select(['t.currency_code', 't.type as terminal_type'])
    .where('s.merchant_id', '=', merchantId)
    .where('s.enabled', '=', true)
    .where('t.currency_code', '=', currency)
    .orderBy('s.created_at')
    .orderBy('s.id')
    .executeTakeFirst();
}

export type SandboxBehaviourRow = Selectable<SandboxBehavioursTable>;

export async function findSandboxBehaviour(db: Executor, serviceId: string): Promise<SandboxBehaviourRow | undefined> {
  return db.selectFrom('service_sandbox_behaviours').selectAll().where('service_id', '=', serviceId).executeTakeFirst();
}

/** Sets a service's behaviour, replacing the one it had. */
export async function putSandboxBehaviour(db: Executor, serviceId: string, b: SandboxBehaviour, at: Date): Promise<void> {
  const row = { approval: JSON.stringify(b.approval), soft_decline: b.soft_decline, outage: b.outage, latency_ms: b.latency_ms, updated_at: at };
  await db
    .insertInto('service_sandbox_behaviours')
    .values({ service_id: serviceId, ...row })
    .onConflict((oc) => oc.column('service_id').doUpdateSet(row))
    .execute();
}

export async function deleteSandboxBehaviour(db: Executor, serviceId: string): Promise<void> {
  await db.deleteFrom('service_sandbox_behaviours').where('service_id', '=', serviceId).execute();
}
