/** SQL of merchants, API keys and dashboard users. Every function takes the executor to run on. */
import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { ColumnType, CreatedAt, Env } from '../../platform/db/schema.js';

export interface MerchantsTable {
  id: string;
  env: Env;
  parent_id: string | null;
  sandbox_twin_id: string | null;
  name: string;
  email: string;
  timezone: string;
  autorecover_transactions: boolean;
  resend_failed_notifications: boolean;
  is_pci: boolean;
  is_deleted: boolean;
  category: string | null;
  mcc: string | null;
  address: string | null;
  phone_number: string | null;
  clock_offset_ms: number;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: string;
  merchant_id: string;
  env: Env;
  key_hash: string;
  key_prefix: string;
  signature_hash: string;
  signature_sealed: string;
  profiles: string[];
  description: string | null;
  created_at: CreatedAt;
  revoked_at: Date | null;
  /** The dashboard's own key of a merchant (never shown; left out of key lists). */
  internal: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface DashboardUsersTable {
  id: string;
  merchant_id: string;
  client_sandbox_id: string | null;
  client_production_id: string | null;
  username: string;
  email: string;
  language: string;
  user_group: string;
  status: string;
  password_hash: string;
  created_at: CreatedAt;
  /** Set by D3 (the e-mailed password); cleared by the user's first password change. */
  must_change_password: ColumnType<boolean, boolean | undefined, boolean>;
  password_changed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  totp_secret_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  totp_enabled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The last TOTP time step accepted (a code is good once). */
  totp_last_step: ColumnType<string | null, string | number | null | undefined, string | number | null>;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    merchants: MerchantsTable;
    api_keys: ApiKeysTable;
    dashboard_users: DashboardUsersTable;
  }
}

export type MerchantRow = Selectable<MerchantsTable>;
/** `internal` may be left out (false) where a key is built in code. */
export type ApiKeyRow = Omit<Selectable<ApiKeysTable>, 'internal'> & { internal?: boolean };
/** A user as most reads select it: the sign-in columns may be left out (FullDashboardUserRow has them all). */
type DashboardUserSignIn = 'must_change_password' | 'password_changed_at' | 'totp_secret_sealed' | 'totp_enabled_at';
export type DashboardUserRow = Omit<Selectable<DashboardUsersTable>, DashboardUserSignIn | 'totp_last_step'> & Partial<Pick<Selectable<DashboardUsersTable>, DashboardUserSignIn>>;

export async function insertMerchant(db: Executor, row: Omit<MerchantsTable, 'created_at'> & { created_at: Date }): Promise<void> {
  await db.insertInto('merchants').values(row).execute();
}

export async function findMerchant(db: Executor, id: string): Promise<MerchantRow | undefined> {
  return db.selectFrom('merchants').selectAll().where('id', '=', id).where('is_deleted', '=', false).executeTakeFirst();
}

export async function findMerchantForUpdate(db: Executor, id: string): Promise<MerchantRow | undefined> {
  return db.selectFrom('merchants').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function findProductionTwin(db: Executor, sandboxId: string): Promise<MerchantRow | undefined> {
  return db.selectFrom('merchants').selectAll().where('sandbox_twin_id', '=', sandboxId).executeTakeFirst();
}

/** True when `id` is `ancestorId` or one of its descendants (children, grandchildren, ...). */
export async function isSelfOrDescendant(db: Executor, ancestorId: string, id: string): Promise<boolean> {
  if (ancestorId === id) return true;
  const { rows } = await sql<{ found: boolean }>`
    with recursive up as (
      select id, parent_id, 1 as depth from merchants where id = ${id}
      union all
      select m.id, m.parent_id, up.depth + 1 from merchants m join up on m.id = up.parent_id where up.depth < 64
    )
    select exists(select 1 from up where id = ${ancestorId}) as found`.execute(db);
  return rows[0]?.found === true;
}

/** Ids of `rootId` and all its descendants. */
export async function selfAndDescendantIds(db: Executor, rootId: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    with recursive down as (
      select id, 1 as depth from merchants where id = ${rootId}
      union all
      select m.id, down.depth + 1 from merchants m join down on m.parent_id = down.id where down.depth < 64
    )
    select id from down`.execute(db);
  return rows.map((r) => r.id);
}

export async function insertApiKey(db: Executor, row: Omit<ApiKeysTable, 'created_at' | 'revoked_at' | 'internal'> & { created_at: Date; internal?: boolean }): Promise<void> {
  await db.insertInto('api_keys').values({ ...row, revoked_at: null }).execute();
}

export interface KeyWithMerchant {
  key_id: string;
  key_env: Env;
  profiles: string[];
  signature_hash: string;
  signature_sealed: string;
  merchant_id: string;
  merchant_env: Env;
  name: string;
  timezone: string;
  parent_id: string | null;
  is_pci: boolean;
  clock_offset_ms: number;
}

function keyWithMerchant(db: Executor) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('merchants as m', 'm.id', 'k.merchant_id')
    .select([
      'k.id as key_id',
      'k.env as key_env',
      'k.profiles',
      'k.signature_hash',
      'k.signature_sealed',
      'm.id as merchant_id',
      'm.env as merchant_env',
      'm.name',
      'm.timezone',
      'm.parent_id',
      'm.is_pci',
      'm.clock_offset_ms',
    ])
    .where('m.is_deleted', '=', false);
}

export async function findActiveKeyByHash(db: Executor, keyHash: string): Promise<KeyWithMerchant | undefined> {
  return keyWithMerchant(db).where('k.key_hash', '=', keyHash).where('k.revoked_at', 'is', null).executeTakeFirst();
}

/** A key by id, revoked or not (background work set up with a key keeps running after its revocation). */
export async function findKeyWithMerchant(db: Executor, keyId: string): Promise<KeyWithMerchant | undefined> {
  return keyWithMerchant(db).where('k.id', '=', keyId).executeTakeFirst();
}

export async function findKey(db: Executor, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findKeyByHash(db: Executor, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

export async function revokeKey(db: Executor, id: string, at: Date): Promise<boolean> {
  const res = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows ?? 0) > 0;
}

export async function insertDashboardUser(db: Executor, row: DashboardUserRow): Promise<void> {
  await db.insertInto('dashboard_users').values(row).execute();
}

export async function setClockOffset(db: Executor, merchantId: string, offsetMs: number): Promise<void> {
  await db.updateTable('merchants').set({ clock_offset_ms: offsetMs }).where('id', '=', merchantId).execute();
}

// ---- dashboard users (the dashboard module signs them in through MerchantsService) -----------------

export type FullDashboardUserRow = Selectable<DashboardUsersTable>;

export async function findDashboardUser(db: Executor, id: string): Promise<FullDashboardUserRow | undefined> {
  return db.selectFrom('dashboard_users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findDashboardUserByUsername(db: Executor, username: string): Promise<FullDashboardUserRow | undefined> {
  return db.selectFrom('dashboard_users').selectAll().where('username', '=', username).executeTakeFirst();
}

export async function findDashboardUsersByEmail(db: Executor, email: string): Promise<FullDashboardUserRow[]> {
  return db.selectFrom('dashboard_users').selectAll().where(sql<string>`lower(email)`, '=', email.toLowerCase()).limit(2).execute();
}

export async function listDashboardUsers(db: Executor, merchantIds: string[]): Promise<FullDashboardUserRow[]> {
  if (merchantIds.length === 0) return [];
  return db
    .selectFrom('dashboard_users')
    .selectAll()
    .where((eb) => eb.or([eb('client_sandbox_id', 'in', merchantIds), eb('client_production_id', 'in', merchantIds), eb('merchant_id', 'in', merchantIds)]))
    .orderBy('username')
    .limit(1000)
    .execute();
}

export async function updateDashboardUser(
  db: Executor,
  id: string,
  set: Partial<Pick<DashboardUsersTable, 'password_hash' | 'user_group' | 'status' | 'language'>> & {
    must_change_password?: boolean;
    password_changed_at?: Date | null;
    totp_secret_sealed?: string | null;
    totp_enabled_at?: Date | null;
    totp_last_step?: number | null;
  },
): Promise<void> {
  await db.updateTable('dashboard_users').set(set).where('id', '=', id).execute();
}

export async function findInternalKey(db: Executor, merchantId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('merchant_id', '=', merchantId).where('internal', '=', true).where('revoked_at', 'is', null).executeTakeFirst();
}

/** The merchant's API keys (not the dashboard's own), newest first. */
export async function listKeys(db: Executor, merchantId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('merchant_id', '=', merchantId).where('internal', '=', false).orderBy('created_at', 'desc').limit(500).execute();
}
