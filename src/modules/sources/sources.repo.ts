/** SQL of stored payment methods (sources). Every function takes the executor to run on. */
import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { CreatedAt, Env } from '../../platform/db/schema.js';
import { registerSealedColumn } from '../../platform/security/sealed-columns.js';
import type { Owner } from '../customers/index.js';
import { isUuid } from '../../platform/ids.js';

registerSealedColumn({ table: 'sources', idColumn: 'id', column: 'number_sealed', aad: (id) => `source:${id}` });

export interface SourcesTable {
  id: string;
  merchant_id: string;
  env: Env;
  customer_id: string;
  type: string;
  holder: string;
  token: string;
  /** PAN or IBAN sealed by the vault, associated data `source:<id>`. */
  number_sealed: string;
  fingerprint: string;
  bin: string | null;
  last4: string;
  brand: string | null;
  brand_description: string | null;
  card_type: string;
  country: string | null;
  bank: string;
  prepaid: boolean | null;
  expire_month: number | null;
  expire_year: number | null;
  additional: string | null;
  origin: string;
  is_saved: boolean;
  validation_date: Date | null;
  first_paid_at: Date | null;
  /** The service that validated the card, or charged it first (card listings show it). */
  tokenization_service_id: string | null;
  deleted_at: Date | null;
  created_at: CreatedAt;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    sources: SourcesTable;
  }
}

export type SourceRow = Selectable<SourcesTable>;

/** A source with its customer's external id. */
export type SourceWithCustomer = SourceRow & { customer_ext_id: string; customer_token: string };


export async function insertSource(db: Executor, row: SourceRow): Promise<void> {
  await db.insertInto('sources').values(row).execute();
}

export async function insertSources(db: Executor, rows: SourceRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('sources').values(rows).execute();
}

function withCustomer(db: Executor) {
  return db.selectFrom('sources as s').innerJoin('customers as c', 'c.id', 's.customer_id').selectAll('s').select(['c.external_id as customer_ext_id', 'c.token as customer_token']);
}

/** A live (not deleted) source of `owner`; undefined for unknown ids, other merchants' and deleted sources. */
export async function findOwnedSource(db: Executor, owner: Owner, id: string, opts: { forUpdate?: boolean } = {}): Promise<SourceWithCustomer | undefined> {
  if (!isUuid(id)) return undefined;
  // by the primary key alone, the owner checked here: a prepared statement's generic plan made on small
  // tables could otherwise take another index of sources and read all of a merchant's cards per payment
  let q = withCustomer(db).where('s.id', '=', id.toLowerCase());
  if (opts.forUpdate) q = q.forUpdate('s');
  const row = await q.executeTakeFirst();
  return row && isLiveOf(row, owner) ? row : undefined;
}

/** A source `owner` may use: its own, in its environment, not deleted. */
function isLiveOf(row: { merchant_id?: unknown; env?: unknown; deleted_at?: unknown }, owner: Owner): boolean {
  return row.merchant_id === owner.merchantId && row.env === owner.env && row.deleted_at === null;
}

/**
 * A source with its customer as one JSON value, looked up by its primary key alone (`idExpr`, SQL of a
 * uuid): a scalar subquery for a caller's statement that needs the card along with its own row (the
 * fast payment path reads the order and its card in one round trip). Read it with `sourceFromJson`.
 */
export function sourceJsonSql(idExpr: string): string {
  return `(select row_to_json(x) from (
      select s.*, c.external_id as customer_ext_id, c.token as customer_token
      from sources s join customers c on c.id = s.customer_id where s.id = ${idExpr}
    ) x)`;
}

/** The row of `sourceJsonSql` if it is a live source of `owner` (what findOwnedSource returns), else undefined. */
export function sourceFromJson(j: Record<string, unknown> | null | undefined, owner: Owner): SourceWithCustomer | undefined {
  if (!j || !isLiveOf(j, owner)) return undefined;
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
  return {
    ...(j as unknown as SourceWithCustomer),
    ...(j.seq !== undefined && j.seq !== null ? { seq: String(j.seq) } : {}),
    created_at: new Date(j.created_at as string),
    validation_date: date(j.validation_date),
    first_paid_at: date(j.first_paid_at),
    deleted_at: null,
  } as SourceWithCustomer;
}

/**
 * Every live source of a customer, oldest first (decisions §10: in the order they were created).
 * `seq` (insertion order, not declared to Kysely: never written) orders sources stored in the same
 * millisecond (a batch, parallel requests) exactly.
 */
export async function listCustomerSources(db: Executor, customerId: string, types?: readonly string[]): Promise<SourceRow[]> {
  let q = db.selectFrom('sources').selectAll().where('customer_id', '=', customerId).where('deleted_at', 'is', null);
  if (types && types.length > 0) q = q.where('type', 'in', [...types]);
  return q.orderBy('created_at', 'asc').orderBy(sql`seq`, 'asc').execute();
}

/**
 * One page of a customer's live sources, oldest first (the order of listCustomerSources), with the
 * listing semantics applied in SQL: `validatedOnly` keeps sources validated at storage or paid with;
 * `unique` keeps, per card (fingerprint), only the newest entry of those listed. The page starts after
 * the source `afterId` (keyset on created_at, seq); `more` tells whether another page follows.
 */
export async function pageCustomerSources(
  db: Executor,
  customerId: string,
  o: { types?: readonly string[]; validatedOnly: boolean; unique: boolean; limit: number; afterId?: string },
): Promise<{ rows: SourceRow[]; more: boolean }> {
  const types = o.types && o.types.length > 0 ? [...o.types] : null;
  const typeFilter = (alias: string) => (types ? sql`and ${sql.ref(alias + '.type')} = any(${types}::text[])` : sql``);
  const validFilter = (alias: string) =>
    o.validatedOnly ? sql`and (${sql.ref(alias + '.validation_date')} is not null or ${sql.ref(alias + '.first_paid_at')} is not null)` : sql``;
  const { rows } = await sql<SourceRow>`
    select s.* from sources s
    where s.customer_id = ${customerId} and s.deleted_at is null ${typeFilter('s')} ${validFilter('s')}
      ${o.unique ? sql`and not exists (select 1 from sources n where n.customer_id = s.customer_id and n.deleted_at is null
          and n.fingerprint = s.fingerprint ${typeFilter('n')} ${validFilter('n')} and (n.created_at, n.seq) > (s.created_at, s.seq))` : sql``}
      ${o.afterId ? sql`and (s.created_at, s.seq) > (select c.created_at, c.seq from sources c where c.id = ${o.afterId} and c.customer_id = ${customerId})` : sql``}
    order by s.created_at, s.seq
    limit ${o.limit + 1}`.execute(db);
  const more = rows.length > o.limit;
  if (more) rows.length = o.limit;
  return { rows, more };
}

/** Whether `id` is a source of the customer (live or not): a cursor must point into the list it pages. */
export async function isCustomerSource(db: Executor, customerId: string, id: string): Promise<boolean> {
  const row = await db.selectFrom('sources').select('id').where('id', '=', id).where('customer_id', '=', customerId).executeTakeFirst();
  return !!row;
}

/**
 * A successful payment: the source becomes valid and records its first successful use (first time), and
 * the service that charged it is its tokenization service unless one validated it before. The row is
 * written only when one of these changes, so later payments with the card leave it alone (payments that
 * share a card never wait on its row).
 */
export async function markPaid(db: Executor, id: string, at: Date, serviceId: string | null = null): Promise<void> {
  await markPaidCte({ id, at, serviceId, when: sql`true` }).execute(db);
}

/**
 * `markPaid` as the body of a data-modifying CTE, for a caller that settles a payment in one statement:
 * `when` is a condition of the caller's statement that must hold for the write. The row is written only
 * when something in it changes (in practice: the card's first successful payment).
 */
export function markPaidCte(p: { id: string | null; at: Date; serviceId: string | null; when: RawBuilder<unknown> }): RawBuilder<unknown> {
  return sql`update sources
    set validation_date = coalesce(validation_date, ${p.at}::timestamptz),
        first_paid_at = coalesce(first_paid_at, ${p.at}::timestamptz),
        tokenization_service_id = coalesce(tokenization_service_id, ${p.serviceId}::uuid)
    where id = ${p.id}::uuid and ${p.when}
      and (validation_date is null or first_paid_at is null
        or (tokenization_service_id is null and ${p.serviceId}::uuid is not null))`;
}

/** Validated at storage or revalidated: the validation date moves to `at`; the first validating service is kept. */
export async function setValidated(db: Executor, id: string, at: Date, serviceId: string | null = null): Promise<void> {
  await sql`update sources
    set validation_date = ${at},
        tokenization_service_id = coalesce(tokenization_service_id, ${serviceId}::uuid)
    where id = ${id}`.execute(db);
}

/**
 * The card of a customer with the newest successful payment (B15), found from the payments themselves
 * (the card row does not record each use): among the customer's live cards that were ever paid with, the
 * one whose newest successful payment (an authorization or a pre-authorization: not a refund,
 * confirmation, cancellation or payout that carries the card) is the latest.
 */
export async function findLastPaidCard(db: Executor, owner: Owner, customerExtId: string): Promise<SourceWithCustomer | undefined> {
  return withCustomer(db)
    .where('c.merchant_id', '=', owner.merchantId)
    .where('c.external_id', '=', customerExtId)
    .where('s.env', '=', owner.env)
    .where('s.type', '=', 'card')
    .where('s.deleted_at', 'is', null)
    .where('s.first_paid_at', 'is not', null)
    .orderBy(sql`(select max(t.seq) from transactions t where t.source_id = s.id and t.status = 'SUCCESS' and t.operative in ('AUTHORIZATION', 'DEFERRED'))`, (ob) => ob.desc().nullsLast())
    .orderBy('s.created_at', 'desc')
    .orderBy(sql`s.seq`, 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function updateSource(db: Executor, id: string, set: Partial<Omit<SourceRow, 'id' | 'merchant_id' | 'env' | 'created_at'>>): Promise<void> {
  await db.updateTable('sources').set(set).where('id', '=', id).execute();
}
