/** SQL of the risk module: security lists, their items and services, antifraud settings, velocity. */
import { sql, type ColumnType, type Generated, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import type { ItemType, ListType } from './risk.domain.js';

export interface RiskListsTable {
  id: string;
  merchant_id: string;
  env: Env;
  type: ListType;
  enabled: boolean;
  description: string;
  item_count: Generated<number>;
  created_at: Date;
  updated_at: Date;
}

export interface RiskListServicesTable {
  service_id: string;
  list_id: string;
  created_at: Date;
}

export interface RiskListItemsTable {
  id: string;
  list_id: string;
  seq: Generated<string>;
  type: ItemType;
  match_key: string;
  shown: string;
  bin: string | null;
  last4: string | null;
  description: string | null;
  created_at: Date;
}

export interface RiskSettingsTable {
  merchant_id: string;
  settings: ColumnType<unknown, string, string>;
  updated_at: Date;
}

export interface RiskVelocityTable {
  merchant_id: string;
  key: string;
  at: Date;
}

export interface RiskCardsTable {
  merchant_id: string;
  fingerprint: string;
  first_seen_at: Date;
  last_reject_at: Date | null;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    risk_lists: RiskListsTable;
    risk_list_services: RiskListServicesTable;
    risk_list_items: RiskListItemsTable;
    risk_settings: RiskSettingsTable;
    risk_velocity: RiskVelocityTable;
    risk_cards: RiskCardsTable;
  }
}

export type ListRow = Selectable<RiskListsTable> & { services: string[] };
export type ItemRow = Selectable<RiskListItemsTable>;

export interface Owner {
  merchantId: string;
  env: Env;
}

const listColumns = ['l.id', 'l.merchant_id', 'l.env', 'l.type', 'l.enabled', 'l.description', 'l.item_count', 'l.created_at', 'l.updated_at'] as const;

function withServices(db: Executor) {
  return db
    .selectFrom('risk_lists as l')
    .select(listColumns)
    .select(sql<string[]>`coalesce((select array_agg(s.service_id::text order by s.created_at, s.service_id) from risk_list_services s where s.list_id = l.id), '{}')`.as('services'));
}

export async function insertList(db: Executor, row: Omit<RiskListsTable, 'item_count'>): Promise<void> {
  await db.insertInto('risk_lists').values(row).execute();
}

/** A list of the owner (`forUpdate`: locked until the transaction ends). */
export async function findList(db: Executor, owner: Owner, id: string, opts: { forUpdate?: boolean } = {}): Promise<ListRow | undefined> {
  let q = withServices(db).where('l.id', '=', id).where('l.merchant_id', '=', owner.merchantId).where('l.env', '=', owner.env);
  if (opts.forUpdate) q = q.forUpdate();
  const r = await q.executeTakeFirst();
  return r ? { ...r, item_count: Number(r.item_count) } : undefined;
}

export async function listLists(db: Executor, owner: Owner, type?: ListType): Promise<ListRow[]> {
  let q = withServices(db).where('l.merchant_id', '=', owner.merchantId).where('l.env', '=', owner.env);
  if (type) q = q.where('l.type', '=', type);
  const rows = await q.orderBy('l.created_at').orderBy('l.id').execute();
  return rows.map((r) => ({ ...r, item_count: Number(r.item_count) }));
}

export async function updateList(db: Executor, id: string, set: Partial<Pick<RiskListsTable, 'enabled' | 'updated_at'>>): Promise<void> {
  await db.updateTable('risk_lists').set(set).where('id', '=', id).execute();
}

export async function deleteList(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('risk_lists').where('id', '=', id).execute();
}

export async function linkService(db: Executor, listId: string, serviceId: string, at: Date): Promise<void> {
  await db.insertInto('risk_list_services').values({ list_id: listId, service_id: serviceId, created_at: at }).onConflict((oc) => oc.doNothing()).execute();
}

export async function unlinkService(db: Executor, listId: string, serviceId: string): Promise<boolean> {
  const r = await db.deleteFrom('risk_list_services').where('list_id', '=', listId).where('service_id', '=', serviceId).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0) > 0;
}

/**
 * Inserts items, skipping those the list already has (same type and value); returns how many were added.
 * Rows go as arrays (one statement per 5,000 items, whatever their number: few parameters to parse).
 */
export async function insertItems(db: Executor, listId: string, rows: Array<Omit<RiskListItemsTable, 'seq' | 'list_id'>>, at: Date): Promise<number> {
  let added = 0;
  for (let i = 0; i < rows.length; i += 5000) {
    const c = rows.slice(i, i + 5000);
    const { rows: ins } = await sql<{ n: number }>`
      with ins as (
        insert into risk_list_items (id, list_id, type, match_key, shown, bin, last4, description, created_at)
        select x.id, ${listId}::uuid, x.type, x.match_key, x.shown, x.bin, x.last4, x.description, ${at}::timestamptz
        from unnest(${c.map((r) => r.id)}::uuid[], ${c.map((r) => r.type)}::text[], ${c.map((r) => r.match_key)}::text[], ${c.map((r) => r.shown)}::text[],
                    ${c.map((r) => r.bin)}::text[], ${c.map((r) => r.last4)}::text[], ${c.map((r) => r.description)}::text[])
          as x(id, type, match_key, shown, bin, last4, description)
        on conflict (list_id, match_key) do nothing
        returning 1)
      select count(*)::int as n from ins`.execute(db);
    added += Number(ins[0]?.n ?? 0);
  }
  if (added > 0) await sql`update risk_lists set item_count = item_count + ${added}, updated_at = ${at} where id = ${listId}`.execute(db);
  return added;
}

/** Deletes items of a list by uuid (or the stored card uuid of a CARD_UUID item) or match key; returns how many were removed. */
export async function deleteItems(db: Executor, listId: string, ids: string[], keys: string[], at: Date): Promise<number> {
  if (ids.length === 0 && keys.length === 0) return 0;
  const res = await db
    .deleteFrom('risk_list_items')
    .where('list_id', '=', listId)
    .where((eb) =>
      eb.or([
        ...(ids.length ? [eb('id', 'in', ids), eb.and([eb('type', '=', 'CARD_UUID'), eb('shown', 'in', ids)])] : []),
        ...(keys.length ? [eb('match_key', 'in', keys)] : []),
      ]),
    )
    .executeTakeFirst();
  const removed = Number(res.numDeletedRows ?? 0);
  if (removed > 0) await sql`update risk_lists set item_count = item_count - ${removed}, updated_at = ${at} where id = ${listId}`.execute(db);
  return removed;
}

export async function pageItems(db: Executor, listId: string, limit: number, offset: number): Promise<ItemRow[]> {
  return db.selectFrom('risk_list_items').selectAll().where('list_id', '=', listId).orderBy('seq').limit(limit).offset(offset).execute() as Promise<ItemRow[]>;
}

/** Enabled lists linked to a service: their ids and types (cached by the service: most services have none). */
export async function linkedLists(db: Executor, serviceId: string): Promise<Array<{ id: string; type: ListType }>> {
  return db
    .selectFrom('risk_list_services as s')
    .innerJoin('risk_lists as l', 'l.id', 's.list_id')
    .select(['l.id', 'l.type'])
    .where('s.service_id', '=', serviceId)
    .where('l.enabled', '=', true)
    .execute();
}

// ---- settings -------------------------------------------------------------------------------------------

export async function findSettings(db: Executor, merchantId: string): Promise<unknown | undefined> {
  const r = await db.selectFrom('risk_settings').select('settings').where('merchant_id', '=', merchantId).executeTakeFirst();
  return r?.settings;
}

export async function saveSettings(db: Executor, merchantId: string, settings: unknown, at: Date): Promise<void> {
  const text = JSON.stringify(settings);
  await db
    .insertInto('risk_settings')
    .values({ merchant_id: merchantId, settings: text, updated_at: at })
    .onConflict((oc) => oc.column('merchant_id').doUpdateSet({ settings: text, updated_at: at }))
    .execute();
}

// ---- the evaluation of a payment: one statement --------------------------------------------------------------

export interface EvaluationQuery {
  merchantId: string;
  /** Enabled lists linked to the payment's service to match against (none: no list part). */
  listIds: string[];
  /** Match keys of the payment (card, BIN prefixes, IP networks, countries, customer, e-mail, phones). */
  candidates: string[];
  /** Velocity counts: each key counted from `since` (exclusive). */
  velocity: Array<{ name: string; key: string; since: Date }>;
  /** Velocity events to record for this payment. */
  record: string[];
  /** The card's fingerprint (first seen / last rejected), or null to skip. */
  cardFingerprint: string | null;
  now: Date;
}

export interface EvaluationRows {
  /** Types of the matching lists. */
  lists: Set<ListType>;
  velocity: Record<string, number>;
  card: { first_seen_at: Date; last_reject_at: Date | null } | null;
}

/**
 * Everything the evaluation of one payment reads, and the velocity events it writes, in one statement
 * (one round trip): list items matched by (list, match key) on the unique index, velocity counts on
 * (merchant, key, at), the card's first sighting by primary key. The data-modifying parts see the
 * database as it was before the statement, so the counts are of earlier payments.
 */
export async function evaluationRows(db: Executor, q: EvaluationQuery): Promise<EvaluationRows> {
  const parts = [];
  if (q.listIds.length > 0 && q.candidates.length > 0) {
    parts.push(sql`select 'L' as k, l.type as name, null::bigint as n, null::timestamptz as t1, null::timestamptz as t2
      from risk_lists l join risk_list_items i on i.list_id = l.id
      where l.id = any(${q.listIds}::uuid[]) and i.match_key = any(${q.candidates}::text[])`);
  }
  for (const v of q.velocity) {
    parts.push(sql`select 'V' as k, ${v.name}::text as name, count(*) as n, null::timestamptz as t1, null::timestamptz as t2
      from risk_velocity where merchant_id = ${q.merchantId} and key = ${v.key} and at > ${v.since}`);
  }
  if (q.cardFingerprint) {
    parts.push(sql`select 'C' as k, null::text as name, null::bigint as n, first_seen_at as t1, last_reject_at as t2
      from risk_cards where merchant_id = ${q.merchantId} and fingerprint = ${q.cardFingerprint}`);
  }
  const out: EvaluationRows = { lists: new Set(), velocity: {}, card: null };
  if (parts.length === 0) return out;
  const ctes = [];
  if (q.record.length > 0) {
    const values = sql.join(q.record.map((k) => sql`(${q.merchantId}::uuid, ${k}, ${q.now}::timestamptz)`));
    ctes.push(sql`rv as (insert into risk_velocity (merchant_id, key, at) values ${values})`);
  }
  if (q.cardFingerprint) {
    ctes.push(sql`rc as (insert into risk_cards (merchant_id, fingerprint, first_seen_at) values (${q.merchantId}, ${q.cardFingerprint}, ${q.now}) on conflict do nothing)`);
  }
  const body = sql.join(parts, sql` union all `);
  const { rows } = await (ctes.length > 0 ? sql<Row>`with ${sql.join(ctes)} ${body}` : sql<Row>`${body}`).execute(db);
  for (const r of rows) {
    if (r.k === 'L') out.lists.add(r.name as ListType);
    else if (r.k === 'V') out.velocity[r.name!] = Number(r.n);
    else if (r.k === 'C') out.card = { first_seen_at: r.t1!, last_reject_at: r.t2 };
  }
  return out;
}

type Row = { k: 'L' | 'V' | 'C'; name: string | null; n: string | number | null; t1: Date | null; t2: Date | null };

/** A card rejected as fraud: F2 refuses to store it for a while. */
export async function markRejected(db: Executor, merchantId: string, fingerprint: string, at: Date): Promise<void> {
  await sql`insert into risk_cards (merchant_id, fingerprint, first_seen_at, last_reject_at) values (${merchantId}, ${fingerprint}, ${at}, ${at})
    on conflict (merchant_id, fingerprint) do update set last_reject_at = ${at}`.execute(db);
}

export async function lastRejectOf(db: Executor, merchantId: string, fingerprint: string): Promise<Date | null> {
  const r = await db.selectFrom('risk_cards').select('last_reject_at').where('merchant_id', '=', merchantId).where('fingerprint', '=', fingerprint).executeTakeFirst();
  return r?.last_reject_at ?? null;
}

/**
 * Which of `keys` (card and BIN match keys) an enabled black list of the owner holds: lists linked to
 * `serviceIds`, or, for `anyList`, any enabled black list of the owner. One query for a whole listing.
 */
export async function blacklistedKeys(db: Executor, owner: Owner, keys: string[], serviceIds: string[], anyList: boolean): Promise<Array<{ match_key: string; service_id: string | null }>> {
  if (keys.length === 0) return [];
  const { rows } = await sql<{ match_key: string; service_id: string | null }>`
    select distinct i.match_key, s.service_id::text as service_id
    from risk_lists l
    join risk_list_items i on i.list_id = l.id and i.match_key = any(${keys}::text[])
    left join risk_list_services s on s.list_id = l.id
    where l.merchant_id = ${owner.merchantId} and l.env = ${owner.env} and l.type = 'BLACKLIST' and l.enabled
      and (${anyList} or s.service_id = any(${serviceIds}::uuid[]))`.execute(db);
  return rows;
}

/** Enabled black lists of the owner to screen a card against: linked to `serviceId`, or all of them. */
export async function blackListIds(db: Executor, owner: Owner, serviceId: string | null): Promise<string[]> {
  let q = db.selectFrom('risk_lists as l').select('l.id').where('l.merchant_id', '=', owner.merchantId).where('l.env', '=', owner.env).where('l.type', '=', 'BLACKLIST').where('l.enabled', '=', true);
  if (serviceId) q = q.where(({ exists, selectFrom }) => exists(selectFrom('risk_list_services as s').select('s.list_id').whereRef('s.list_id', '=', 'l.id').where('s.service_id', '=', serviceId)));
  return (await q.execute()).map((r) => r.id);
}

/** Purges velocity events older than `before`. */
export async function purgeVelocity(db: Executor, before: Date): Promise<number> {
  const r = await db.deleteFrom('risk_velocity').where('at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
}
