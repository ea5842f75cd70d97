/** SQL of routing: the routing profiles and the operator's BIN table. */
import { sql, type ColumnType, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import type { CardType, ProfileStatus, Rule } from './routing.domain.js';
import type { BinRow } from './routing.bins.js';
import type { FeeCardType, FeeLine, FeeModel, FeeRegion } from './routing.fees.js';

export interface RoutingProfilesTable {
  id: string;
  merchant_id: string;
  env: Env;
  service_id: string;
  name: string;
  status: ProfileStatus;
  max_attempts: number;
  rules: ColumnType<Rule[], string, string>;
  version: number;
  key_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface RoutingBinsTable {
  bin_from: string;
  bin_to: string;
  brand: string | null;
  card_type: CardType | null;
  issuer_country: string | null;
}

/** A service's fee model (migration 1150): the merchant's country for it, and its lines. */
export interface RoutingFeeModelsTable {
  service_id: string;
  merchant_id: string;
  env: Env;
  merchant_country: string | null;
  updated_at: Date;
}

export interface RoutingFeeLinesTable {
  service_id: string;
  card_type: FeeCardType;
  region: FeeRegion;
  percent_bp: number;
  fixed: number;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    routing_profiles: RoutingProfilesTable;
    routing_bins: RoutingBinsTable;
    routing_fee_models: RoutingFeeModelsTable;
    routing_fee_lines: RoutingFeeLinesTable;
  }
}

export type ProfileRow = Selectable<RoutingProfilesTable>;
export type Owner = { merchantId: string; env: Env };
export type NewProfileRow = Omit<ProfileRow, 'rules'> & { rules: Rule[] };

/** jsonb comes back parsed from PostgreSQL and PGlite alike; a string (older drivers) is parsed here. */
const rowOf = (r: ProfileRow): ProfileRow => ({ ...r, rules: typeof r.rules === 'string' ? (JSON.parse(r.rules) as Rule[]) : r.rules });

export async function insertProfile(db: Executor, row: NewProfileRow): Promise<void> {
  await db.insertInto('routing_profiles').values({ ...row, rules: JSON.stringify(row.rules) }).execute();
}

export async function findProfile(db: Executor, owner: Owner, id: string, lock = false): Promise<ProfileRow | undefined> {
  let q = db.selectFrom('routing_profiles').selectAll().where('id', '=', id).where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env);
  if (lock) q = q.forUpdate();
  const r = await q.executeTakeFirst();
  return r ? rowOf(r) : undefined;
}

export async function listProfiles(db: Executor, owner: Owner, f: { serviceId?: string | null; status?: ProfileStatus | null }): Promise<ProfileRow[]> {
  let q = db.selectFrom('routing_profiles').selectAll().where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env);
  if (f.serviceId) q = q.where('service_id', '=', f.serviceId);
  if (f.status) q = q.where('status', '=', f.status);
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1000).execute();
  return rows.map(rowOf);
}

export async function updateProfile(db: Executor, id: string, set: Pick<NewProfileRow, 'service_id' | 'name' | 'status' | 'max_attempts' | 'rules' | 'version' | 'key_id' | 'updated_at'>): Promise<void> {
  await db.updateTable('routing_profiles').set({ ...set, rules: JSON.stringify(set.rules) }).where('id', '=', id).execute();
}

export async function deleteProfile(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('routing_profiles').where('id', '=', id).execute();
}

/** The ACTIVE profile of an entry service of the merchant (a merchant is of one environment), if any. */
export async function activeProfile(db: Executor, merchantId: string, serviceId: string): Promise<ProfileRow | undefined> {
  const r = await db
    .selectFrom('routing_profiles')
    .selectAll()
    .where('service_id', '=', serviceId)
    .where('merchant_id', '=', merchantId)
    .where('status', '=', 'ACTIVE')
    .executeTakeFirst();
  return r ? rowOf(r) : undefined;
}

/** The key of the merchant's most recently written profile (the one routing events are signed with). */
export async function latestKeyOf(db: Executor, owner: Owner): Promise<string | null> {
  const r = await db
    .selectFrom('routing_profiles')
    .select('key_id')
    .where('merchant_id', '=', owner.merchantId)
    .where('env', '=', owner.env)
    .where('key_id', 'is not', null)
    .orderBy('updated_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r?.key_id ?? null;
}

export async function allBins(db: Executor): Promise<BinRow[]> {
  return db.selectFrom('routing_bins').selectAll().execute();
}

/** Replaces the whole BIN table with `rows` (in the caller's transaction), in batches. */
export async function replaceBins(db: Executor, rows: BinRow[]): Promise<void> {
  await sql`delete from routing_bins`.execute(db);
  for (let i = 0; i < rows.length; i += 1000) await db.insertInto('routing_bins').values(rows.slice(i, i + 1000)).execute();
}

export type FeeModelRow = Selectable<RoutingFeeModelsTable>;
type FeeLineRow = Selectable<RoutingFeeLinesTable>;

/** The lines in a stable order: card type, then region, as the lists name them. */
const ORDER = ['CREDIT', 'DEBIT', 'PREPAID', 'DOMESTIC', 'INTRA_EEA', 'INTERNATIONAL', 'ANY'];
const lineOrder = (a: FeeLine, b: FeeLine) => ORDER.indexOf(a.card_type) - ORDER.indexOf(b.card_type) || ORDER.indexOf(a.region) - ORDER.indexOf(b.region);
const lineOf = (r: FeeLineRow): FeeLine => ({ card_type: r.card_type, region: r.region, percent_bp: Number(r.percent_bp), fixed: Number(r.fixed) });

/** The fee models of the merchant's services, by service id (with their lines). */
export async function feeModels(db: Executor, owner: Owner, serviceId?: string): Promise<Map<string, FeeModel & { updated_at: Date }>> {
  let q = db.selectFrom('routing_fee_models').selectAll().where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env);
  if (serviceId) q = q.where('service_id', '=', serviceId);
  const models = await q.execute();
  const out = new Map<string, FeeModel & { updated_at: Date }>();
  if (models.length === 0) return out;
  for (const m of models) out.set(m.service_id, { merchant_country: m.merchant_country, lines: [], updated_at: m.updated_at });
  const lines = await db.selectFrom('routing_fee_lines').selectAll().where('service_id', 'in', models.map((m) => m.service_id)).execute();
  for (const l of lines) out.get(l.service_id)!.lines.push(lineOf(l));
  for (const m of out.values()) m.lines.sort(lineOrder);
  return out;
}

/** Replaces a service's fee model whole (in the caller's transaction). */
export async function replaceFeeModel(db: Executor, row: FeeModelRow, lines: FeeLine[]): Promise<void> {
  await db.deleteFrom('routing_fee_lines').where('service_id', '=', row.service_id).execute();
  await db.insertInto('routing_fee_models').values(row)
    .onConflict((oc) => oc.column('service_id').doUpdateSet({ merchant_country: row.merchant_country, updated_at: row.updated_at }))
    .execute();
  if (lines.length > 0) await db.insertInto('routing_fee_lines').values(lines.map((l) => ({ service_id: row.service_id, ...l }))).execute();
}
