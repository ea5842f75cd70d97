/** SQL of the dashboard: sessions, sign-in failures, the audit log, saved views. */
import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { ColumnType, Env } from '../../platform/db/schema.js';
import type { FailureState, Stage } from './dashboard.domain.js';
import { registerSealedColumn } from '../../platform/security/sealed-columns.js';

export interface DashboardSessionsTable {
  token_hash: string;
  user_id: string;
  stage: Stage;
  env: Env;
  merchant_id: string;
  ip: string | null;
  user_agent: string | null;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  ended_at: Date | null;
  end_reason: string | null;
}

export interface DashboardSigninFailuresTable {
  key: string;
  failures: number;
  window_started_at: Date;
  locked_until: Date | null;
  user_id: string | null;
  ip: string | null;
  blocked: ColumnType<number, number | undefined, number>;
  slowed_until: Date | null;
}

export interface DashboardKnownAddressesTable {
  user_id: string;
  ip: string;
  last_signin_at: Date;
}

export interface DashboardInvitationsTable {
  user_id: string;
  delivery: 'EMAIL' | 'SHOWN';
  mail_id: string | null;
  invited_by: string | null;
  invited_at: Date;
}

export interface DashboardAuditTable {
  id: ColumnType<string, never, never>;
  merchant_id: string | null;
  user_id: string | null;
  username: string | null;
  action: string;
  target: string | null;
  details: ColumnType<unknown, string | null, never>;
  ip: string | null;
  created_at: Date;
}

export interface DashboardSavedViewsTable {
  id: string;
  user_id: string;
  name: string;
  filters: ColumnType<unknown, string, string>;
  created_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    dashboard_sessions: DashboardSessionsTable;
    dashboard_signin_failures: DashboardSigninFailuresTable;
    dashboard_known_addresses: DashboardKnownAddressesTable;
    dashboard_invitations: DashboardInvitationsTable;
    dashboard_audit: DashboardAuditTable;
    dashboard_saved_views: DashboardSavedViewsTable;
  }
}

export type SessionRow = Selectable<DashboardSessionsTable>;
export type FailureRow = Selectable<DashboardSigninFailuresTable>;
export type AuditRow = Selectable<DashboardAuditTable>;

// ---- sessions ----------------------------------------------------------------------------------------

export async function insertSession(db: Executor, row: SessionRow): Promise<void> {
  await db.insertInto('dashboard_sessions').values(row).execute();
}

export async function findSession(db: Executor, tokenHash: string): Promise<SessionRow | undefined> {
  return db.selectFrom('dashboard_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Marks the session used now (at most once a few seconds is enough for the idle timeout). */
export async function touchSession(db: Executor, tokenHash: string, now: Date): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ last_seen_at: now }).where('token_hash', '=', tokenHash).where('ended_at', 'is', null).execute();
}

export async function updateSession(db: Executor, tokenHash: string, set: Partial<Pick<SessionRow, 'env' | 'merchant_id' | 'stage'>>): Promise<void> {
  await db.updateTable('dashboard_sessions').set(set).where('token_hash', '=', tokenHash).where('ended_at', 'is', null).execute();
}

export async function endSession(db: Executor, tokenHash: string, now: Date, reason: string): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ ended_at: now, end_reason: reason }).where('token_hash', '=', tokenHash).where('ended_at', 'is', null).execute();
}

/** Ends every open session of a user (sign out everywhere, a disabled user, a new password). */
export async function endUserSessions(db: Executor, userId: string, now: Date, reason: string, except?: string): Promise<number> {
  let q = db.updateTable('dashboard_sessions').set({ ended_at: now, end_reason: reason }).where('user_id', '=', userId).where('ended_at', 'is', null);
  if (except) q = q.where('token_hash', '<>', except);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows ?? 0);
}

/** Sessions ended or past their absolute end for a day are deleted (their sign-ins stay in the audit). */
export async function purgeSessions(db: Executor, before: Date): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where((eb) => eb.or([eb('ended_at', '<', before), eb('expires_at', '<', before)])).execute();
}

// ---- sign-in failures --------------------------------------------------------------------------------

export async function failureStates(db: Executor, keys: string[]): Promise<Map<string, FailureRow>> {
  if (keys.length === 0) return new Map();
  const rows = await db.selectFrom('dashboard_signin_failures').selectAll().where('key', 'in', keys).execute();
  return new Map(rows.map((r) => [r.key, r]));
}

/** Saves a key's count; `who` names the user and address it is about (what a manager sees). */
export async function saveFailureState(db: Executor, key: string, s: FailureState, who: { user_id?: string | null; ip?: string | null } = {}): Promise<void> {
  const row = { failures: s.failures, window_started_at: s.window_started_at, locked_until: s.locked_until, slowed_until: s.slowed_until ?? null };
  await db
    .insertInto('dashboard_signin_failures')
    .values({ key, ...row, user_id: who.user_id ?? null, ip: who.ip ?? null, blocked: 0 })
    // a new window starts the count of refused attempts again
    .onConflict((oc) => oc.column('key').doUpdateSet(s.failures === 1 ? { ...row, blocked: 0 } : row))
    .execute();
}

/** One more attempt refused while the key is locked or slowed down. */
export async function countBlocked(db: Executor, key: string): Promise<void> {
  await db.updateTable('dashboard_signin_failures').set((eb) => ({ blocked: eb('blocked', '+', 1) })).where('key', '=', key).execute();
}

export async function clearFailures(db: Executor, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.deleteFrom('dashboard_signin_failures').where('key', 'in', keys).execute();
}

/** Every count of these users' sign-ins that locks or slows them down now (what managers see). */
export async function activeLocks(db: Executor, userIds: string[], now: Date) {
  if (userIds.length === 0) return [];
  return db
    .selectFrom('dashboard_signin_failures')
    .selectAll()
    .where('user_id', 'in', userIds)
    .where((eb) => eb.or([eb('locked_until', '>', now), eb('slowed_until', '>', now)]))
    .execute();
}

/** Lifts every lock and count of a user (a manager's unlock); how many there were. */
export async function clearUserFailures(db: Executor, userId: string): Promise<number> {
  const r = await db.deleteFrom('dashboard_signin_failures').where('user_id', '=', userId).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
}

export async function rememberAddress(db: Executor, userId: string, ip: string, now: Date): Promise<void> {
  await db
    .insertInto('dashboard_known_addresses')
    .values({ user_id: userId, ip, last_signin_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'ip']).doUpdateSet({ last_signin_at: now }))
    .execute();
}

export async function isKnownAddress(db: Executor, userId: string, ip: string, since: Date): Promise<boolean> {
  const r = await db.selectFrom('dashboard_known_addresses').select('ip').where('user_id', '=', userId).where('ip', '=', ip).where('last_signin_at', '>', since).executeTakeFirst();
  return !!r;
}

export async function purgeKnownAddresses(db: Executor, before: Date): Promise<void> {
  await db.deleteFrom('dashboard_known_addresses').where('last_signin_at', '<', before).execute();
}

// ---- invitations -------------------------------------------------------------------------------------

export async function saveInvitation(db: Executor, row: DashboardInvitationsTable): Promise<void> {
  await db
    .insertInto('dashboard_invitations')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ delivery: row.delivery, mail_id: row.mail_id, invited_by: row.invited_by, invited_at: row.invited_at }))
    .execute();
}

/** The invitations of these users with the state of their e-mail (the outbox message). */
export async function invitationsOf(db: Executor, userIds: string[]) {
  if (userIds.length === 0) return [];
  return db
    .selectFrom('dashboard_invitations as i')
    .leftJoin('mail_outbox as m', 'm.id', 'i.mail_id')
    .select(['i.user_id', 'i.delivery', 'i.mail_id', 'i.invited_at', 'm.status as mail_status', 'm.last_error as mail_error', 'm.sent_at as mail_sent_at'])
    .where('i.user_id', 'in', userIds)
    .execute();
}

// ---- the order page's fields that the order's API presentation (C2) has no place for ------------------

export async function orderExtras(db: Executor, merchantId: string, orderId: string) {
  const order = await db.selectFrom('orders').select(['description', 'expires_at']).where('id', '=', orderId).where('merchant_id', '=', merchantId).executeTakeFirst();
  const txs = await db.selectFrom('transactions').select(['id', 'metadata']).where('order_id', '=', orderId).where('merchant_id', '=', merchantId).execute();
  return { order, metadata: Object.fromEntries(txs.map((t) => [t.id, (t.metadata ?? {}) as Record<string, string>])) };
}

export async function purgeFailures(db: Executor, before: Date): Promise<void> {
  await db
    .deleteFrom('dashboard_signin_failures')
    .where('window_started_at', '<', before)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', before)]))
    .execute();
}

// ---- audit -------------------------------------------------------------------------------------------

export interface NewAudit {
  merchant_id: string | null;
  user_id: string | null;
  username: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown> | null;
  ip: string | null;
  created_at: Date;
}

export async function insertAudit(db: Executor, a: NewAudit): Promise<void> {
  await db.insertInto('dashboard_audit').values({ ...a, details: a.details ? JSON.stringify(a.details) : null }).execute();
}

export async function listAudit(db: Executor, merchantIds: string[], q: { before?: string; limit: number; userId?: string; action?: string }): Promise<AuditRow[]> {
  if (merchantIds.length === 0) return [];
  let s = db.selectFrom('dashboard_audit').selectAll().where('merchant_id', 'in', merchantIds);
  if (q.before) s = s.where('id', '<', q.before as never);
  if (q.userId) s = s.where('user_id', '=', q.userId);
  if (q.action) s = s.where('action', '=', q.action);
  return s.orderBy('id', 'desc').limit(q.limit).execute();
}

// ---- saved views ---------------------------------------------------------------------------------------

export async function listViews(db: Executor, userId: string) {
  return db.selectFrom('dashboard_saved_views').selectAll().where('user_id', '=', userId).orderBy('name').limit(100).execute();
}

export async function countViews(db: Executor, userId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from dashboard_saved_views where user_id = ${userId}`.execute(db);
  return rows[0]?.n ?? 0;
}

export async function upsertView(db: Executor, row: { id: string; user_id: string; name: string; filters: unknown; created_at: Date }) {
  return db
    .insertInto('dashboard_saved_views')
    .values({ ...row, filters: JSON.stringify(row.filters) })
    .onConflict((oc) => oc.columns(['user_id', 'name']).doUpdateSet({ filters: JSON.stringify(row.filters) }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteView(db: Executor, userId: string, id: string): Promise<boolean> {
  const r = await db.deleteFrom('dashboard_saved_views').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0) > 0;
}

// ---- API request log -------------------------------------------------------------------------------------

export interface RequestLogsTable {
  id: string;
  merchant_id: string;
  env: Env;
  key_id: string | null;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  idempotency_key: string | null;
  request_id: string;
  order_id: string | null;
  /** only in entries written before the bodies went into batches (migration 1125) */
  request_body: string | null;
  response_body: string | null;
  created_at: Date;
  /** the row of request_log_bodies that holds this entry's bodies, and its place there */
  batch_id: string | null;
  slot: number | null;
}

/** The bodies of a batch of entries: entry `slot` has its request's body at 2·slot and its answer at 2·slot + 1 (0-based). */
export interface RequestLogBodiesTable {
  id: string;
  created_at: Date;
  bodies: Array<string | null>;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    request_logs: RequestLogsTable;
    request_log_bodies: RequestLogBodiesTable;
  }
}

/** An entry as the dashboard reads it: the summary and its bodies. */
export type RequestLogRow = Omit<Selectable<RequestLogsTable>, 'batch_id' | 'slot'>;
/** An entry to write: redacted (platform/http/request-log.ts). */
export type NewRequestLog = RequestLogRow;

const SUMMARY_COLUMNS = ['id', 'merchant_id', 'env', 'key_id', 'method', 'path', 'status', 'duration_ms', 'idempotency_key', 'request_id', 'order_id', 'created_at'] as const;
const SUMMARY_TYPES: Record<(typeof SUMMARY_COLUMNS)[number], string> = {
  id: 'uuid', merchant_id: 'uuid', env: 'text', key_id: 'uuid', method: 'text', path: 'text', status: 'int4', duration_ms: 'int4',
  idempotency_key: 'text', request_id: 'text', order_id: 'uuid', created_at: 'timestamptz',
};

/**
 * Writes a batch of entries in one statement: each entry's summary row, and one row holding every body of the
 * batch. The entries travel as one JSON parameter each (summaries, bodies), so the statement's text is the same
 * for every batch (prepared once) and the database parses two values instead of fourteen per entry.
 */
export async function insertRequestLogs(db: Executor, batchId: string, rows: NewRequestLog[]): Promise<void> {
  if (rows.length === 0) return;
  let newest = rows[0].created_at;
  const summaries = rows.map((r, slot) => {
    if (r.created_at > newest) newest = r.created_at;
    return { id: r.id, merchant_id: r.merchant_id, env: r.env, key_id: r.key_id, method: r.method, path: r.path, status: r.status, duration_ms: r.duration_ms, idempotency_key: r.idempotency_key, request_id: r.request_id, order_id: r.order_id, created_at: r.created_at, slot };
  });
  const bodies: Array<string | null> = [];
  for (const r of rows) bodies.push(r.request_body, r.response_body);
  await sql`
    with b as (
      insert into request_log_bodies (id, created_at, bodies)
      values (${batchId}::uuid, ${newest}::timestamptz, array(select t.body from json_array_elements_text(${JSON.stringify(bodies)}::json) with ordinality as t(body, n) order by t.n))
    )
    insert into request_logs (${sql.raw(SUMMARY_COLUMNS.join(', '))}, batch_id, slot)
    select ${sql.raw(SUMMARY_COLUMNS.join(', '))}, ${batchId}::uuid, slot
    from json_to_recordset(${JSON.stringify(summaries)}::json) as x(${sql.raw(SUMMARY_COLUMNS.map((c) => `${c} ${SUMMARY_TYPES[c]}`).join(', '))}, slot int4)`.execute(db);
}

export interface RequestLogQuery {
  requestId?: string;
  orderId?: string;
  status?: 'ok' | 'error';
  method?: string;
  /** keyset: entries before this one (created_at, id) */
  before?: { at: Date; id: string };
  limit: number;
}

const SUMMARY = ['id', 'key_id', 'method', 'path', 'status', 'duration_ms', 'idempotency_key', 'request_id', 'order_id', 'created_at'] as const;

export async function listRequestLogs(db: Executor, merchantId: string, q: RequestLogQuery) {
  let s = db.selectFrom('request_logs').select(SUMMARY).where('merchant_id', '=', merchantId);
  if (q.requestId) s = s.where('request_id', '=', q.requestId);
  if (q.orderId) s = s.where('order_id', '=', q.orderId);
  if (q.status === 'ok') s = s.where('status', '<', 400);
  if (q.status === 'error') s = s.where('status', '>=', 400);
  if (q.method) s = s.where('method', '=', q.method);
  if (q.before) s = s.where(sql<boolean>`(created_at, id) < (${q.before.at}, ${q.before.id})`);
  return s.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}

export async function findRequestLog(db: Executor, merchantId: string, id: string): Promise<RequestLogRow | undefined> {
  const { rows } = await sql<RequestLogRow>`
    select l.id, l.merchant_id, l.env, l.key_id, l.method, l.path, l.status, l.duration_ms, l.idempotency_key, l.request_id, l.order_id, l.created_at,
           case when l.batch_id is null then l.request_body else b.bodies[2 * l.slot + 1] end as request_body,
           case when l.batch_id is null then l.response_body else b.bodies[2 * l.slot + 2] end as response_body
    from request_logs l left join request_log_bodies b on b.id = l.batch_id
    where l.merchant_id = ${merchantId} and l.id = ${id}`.execute(db);
  return rows[0];
}

/**
 * Deletes entries older than `before`, at most `limit` at a time; once none is left (fewer than `limit` went),
 * the batches of bodies whose newest entry is older, so no entry kept ever loses its bodies. Returns how many
 * entries went.
 */
export async function pruneRequestLogs(db: Executor, before: Date, limit: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with gone as (delete from request_logs where id in (select id from request_logs where created_at < ${before} limit ${limit}) returning 1)
    select count(*)::int as n from gone`.execute(db);
  const n = rows[0]?.n ?? 0;
  if (n < limit) await sql`delete from request_log_bodies where id in (select id from request_log_bodies where created_at < ${before} limit ${limit})`.execute(db);
  return n;
}

/** When each key was last used (from the request log). */
export async function lastUse(db: Executor, keyIds: string[]): Promise<Map<string, Date>> {
  const out = new Map<string, Date>();
  for (const id of keyIds) {
    const r = await db.selectFrom('request_logs').select('created_at').where('key_id', '=', id).orderBy('created_at', 'desc').limit(1).executeTakeFirst();
    if (r) out.set(id, r.created_at);
  }
  return out;
}

// ---- two-factor recovery codes and password resets ----------------------------------------------------

// the TOTP secret of a dashboard user is sealed with the user's id (`totp:<user uuid>`)
registerSealedColumn({ table: 'dashboard_users', idColumn: 'id', column: 'totp_secret_sealed', aad: (id) => `totp:${id}` });

export interface DashboardRecoveryCodesTable {
  user_id: string;
  code_hash: string;
  used_at: Date | null;
  created_at: Date;
}

export interface DashboardPasswordResetsTable {
  token_hash: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    dashboard_recovery_codes: DashboardRecoveryCodesTable;
    dashboard_password_resets: DashboardPasswordResetsTable;
  }
}

export async function replaceRecoveryCodes(db: Executor, userId: string, hashes: string[], now: Date): Promise<void> {
  await db.deleteFrom('dashboard_recovery_codes').where('user_id', '=', userId).execute();
  if (hashes.length > 0) await db.insertInto('dashboard_recovery_codes').values(hashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: null, created_at: now }))).execute();
}

/** Uses a recovery code: true once per code. */
export async function useRecoveryCode(db: Executor, userId: string, hash: string, now: Date): Promise<boolean> {
  const r = await db.updateTable('dashboard_recovery_codes').set({ used_at: now }).where('user_id', '=', userId).where('code_hash', '=', hash).where('used_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows ?? 0) === 1;
}

export async function recoveryCodesLeft(db: Executor, userId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from dashboard_recovery_codes where user_id = ${userId} and used_at is null`.execute(db);
  return rows[0]?.n ?? 0;
}

/** Moves the user's last accepted TOTP step forward; false when `step` is not after it (a replay). */
export async function advanceTotpStep(db: Executor, userId: string, step: number): Promise<boolean> {
  const r = await sql`update dashboard_users set totp_last_step = ${step} where id = ${userId} and (totp_last_step is null or totp_last_step < ${step})`.execute(db);
  return Number(r.numAffectedRows ?? 0) === 1;
}

export async function insertPasswordReset(db: Executor, row: DashboardPasswordResetsTable): Promise<void> {
  await db.insertInto('dashboard_password_resets').values(row).execute();
}

export async function recentResets(db: Executor, userId: string, since: Date): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from dashboard_password_resets where user_id = ${userId} and created_at > ${since}`.execute(db);
  return rows[0]?.n ?? 0;
}

/** Takes a reset token: its user when it is unused and unexpired (then it is used). */
export async function takePasswordReset(db: Executor, tokenHash: string, now: Date): Promise<string | null> {
  const r = await db
    .updateTable('dashboard_password_resets')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return r?.user_id ?? null;
}
