/** SQL of recurring billing. Every function takes the executor to run on. */
import { sql, type ColumnType, type RawBuilder, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import type { SubscriptionStatus, PaymentStatus } from './subscription-states.js';
import { isUuid } from '../../platform/ids.js';

export interface SubscriptionCompaniesTable {
  id: string;
  merchant_id: string;
  env: Env;
  name: string;
  created_at: Date;
  updated_at: Date;
}

export interface SubscriptionProductsTable {
  id: string;
  merchant_id: string;
  env: Env;
  external_id: string;
  name: string;
  notification_url: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface SubscriptionPlansTable {
  id: string;
  merchant_id: string;
  env: Env;
  product_id: string;
  external_id: string;
  name: string;
  amount: ColumnType<string, number, number>;
  interval: number;
  interval_type: string;
  interval_offset: number | null;
  interval_offset_type: string | null;
  trial_available: boolean;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface SubscriptionsTable {
  id: string;
  merchant_id: string;
  env: Env;
  key_id: string;
  plan_id: string;
  customer_ext_id: string;
  additional_data: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  amount: ColumnType<string, number, number>;
  interval: number;
  interval_type: string;
  status: SubscriptionStatus;
  active: boolean;
  total_payment_number: number | null;
  payment_attempts_limit: number;
  first_charge_date: Date;
  next_charge_date: Date | null;
  next_payment_number: ColumnType<number, number | undefined, number>;
  next_attempt: ColumnType<number, number | undefined, number>;
  total_payment_charged: ColumnType<number, number | undefined, number>;
  created_at: Date;
  updated_at: Date;
}

export interface SubscriptionPaymentsTable {
  id: string;
  subscription_id: string;
  merchant_id: string;
  env: Env;
  payment_number: number;
  attempt: number;
  amount: ColumnType<string, number, number>;
  currency: string | null;
  status: PaymentStatus;
  payment_date: Date;
  order_id: string | null;
  transaction_id: string | null;
  source_uuid: string | null;
  error: string | null;
  charging_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Date;
  updated_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    subscription_companies: SubscriptionCompaniesTable;
    subscription_products: SubscriptionProductsTable;
    subscription_plans: SubscriptionPlansTable;
    subscriptions: SubscriptionsTable;
    subscription_payments: SubscriptionPaymentsTable;
  }
}

export interface Owner {
  merchantId: string;
  env: Env;
}

export type CompanyRow = Selectable<SubscriptionCompaniesTable>;
export type ProductRow = Selectable<SubscriptionProductsTable>;
export type PlanRow = Selectable<SubscriptionPlansTable>;
export type SubscriptionRow = Selectable<SubscriptionsTable>;
/** `charging_until` may be left out where a payment is built in code. */
export type PaymentRow = Omit<Selectable<SubscriptionPaymentsTable>, 'charging_until'> & { charging_until?: Date | null };


// ---- company ------------------------------------------------------------------------------------------

export async function findCompany(db: Executor, owner: Owner): Promise<CompanyRow | undefined> {
  return db.selectFrom('subscription_companies').selectAll().where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env).executeTakeFirst();
}

/** The company of `owner`, created when it has none (one per merchant and environment). */
export async function ensureCompany(db: Executor, owner: Owner, row: CompanyRow): Promise<CompanyRow> {
  await db.insertInto('subscription_companies').values(row).onConflict((oc) => oc.columns(['merchant_id', 'env']).doNothing()).execute();
  return (await findCompany(db, owner))!;
}

// ---- products -----------------------------------------------------------------------------------------

export async function insertProduct(db: Executor, row: ProductRow): Promise<void> {
  await db.insertInto('subscription_products').values(row).execute();
}

export async function findProduct(db: Executor, owner: Owner, externalId: string): Promise<ProductRow | undefined> {
  return db
    .selectFrom('subscription_products')
    .selectAll()
    .where('merchant_id', '=', owner.merchantId)
    .where('env', '=', owner.env)
    .where('external_id', '=', externalId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function findProductById(db: Executor, id: string): Promise<ProductRow | undefined> {
  return db.selectFrom('subscription_products').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listProducts(db: Executor, owner: Owner): Promise<ProductRow[]> {
  return db
    .selectFrom('subscription_products')
    .selectAll()
    .where('merchant_id', '=', owner.merchantId)
    .where('env', '=', owner.env)
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'asc')
    .orderBy('external_id', 'asc')
    .execute();
}

export async function deleteProduct(db: Executor, id: string, at: Date): Promise<number> {
  const r = await db.updateTable('subscription_products').set({ deleted_at: at, updated_at: at }).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows ?? 0);
}

// ---- plans --------------------------------------------------------------------------------------------

export async function insertPlan(db: Executor, row: Omit<SubscriptionPlansTable, 'amount'> & { amount: number }): Promise<void> {
  await db.insertInto('subscription_plans').values(row).execute();
}

export async function findPlan(db: Executor, owner: Owner, externalId: string): Promise<PlanRow | undefined> {
  return db
    .selectFrom('subscription_plans')
    .selectAll()
    .where('merchant_id', '=', owner.merchantId)
    .where('env', '=', owner.env)
    .where('external_id', '=', externalId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function findPlanById(db: Executor, id: string): Promise<PlanRow | undefined> {
  return db.selectFrom('subscription_plans').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listPlans(db: Executor, owner: Owner, productId?: string): Promise<PlanRow[]> {
  let q = db
    .selectFrom('subscription_plans')
    .selectAll()
    .where('merchant_id', '=', owner.merchantId)
    .where('env', '=', owner.env)
    .where('deleted_at', 'is', null);
  if (productId) q = q.where('product_id', '=', productId);
  return q.orderBy('created_at', 'asc').orderBy('external_id', 'asc').execute();
}

export async function deletePlan(db: Executor, id: string, at: Date): Promise<number> {
  const r = await db.updateTable('subscription_plans').set({ deleted_at: at, updated_at: at }).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows ?? 0);
}

// ---- subscriptions ------------------------------------------------------------------------------------

export type NewSubscription = Omit<SubscriptionsTable, 'amount' | 'additional_data' | 'next_payment_number' | 'next_attempt' | 'total_payment_charged'> & { amount: number; additional_data: string | null };

export async function insertSubscription(db: Executor, row: NewSubscription): Promise<void> {
  await db.insertInto('subscriptions').values(row).execute();
}

export async function findSubscription(db: Executor, owner: Owner, id: string, opts: { forUpdate?: boolean } = {}): Promise<SubscriptionRow | undefined> {
  if (!isUuid(id)) return undefined;
  let q = db.selectFrom('subscriptions').selectAll().where('id', '=', id.toLowerCase()).where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env);
  if (opts.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst() as Promise<SubscriptionRow | undefined>;
}

export async function updateSubscription(
  db: Executor,
  id: string,
  set: Partial<Pick<SubscriptionsTable, 'status' | 'active' | 'next_charge_date' | 'updated_at'>> & { next_payment_number?: number; next_attempt?: number; total_payment_charged?: number },
): Promise<void> {
  await db.updateTable('subscriptions').set(set).where('id', '=', id).execute();
}

export interface SubscriptionFilter {
  status?: string;
  customer?: string;
  planId?: string;
  productId?: string;
  active?: boolean;
  start?: Date;
  end?: Date;
  limit: number;
  offset: number;
}

export async function listSubscriptions(db: Executor, owner: Owner, f: SubscriptionFilter): Promise<{ rows: SubscriptionRow[]; count: number }> {
  let q = db.selectFrom('subscriptions').where('subscriptions.merchant_id', '=', owner.merchantId).where('subscriptions.env', '=', owner.env);
  if (f.status) q = q.where('status', '=', f.status as SubscriptionStatus);
  if (f.customer) q = q.where('customer_ext_id', '=', f.customer);
  if (f.planId) q = q.where('plan_id', '=', f.planId);
  if (f.productId) q = q.where('plan_id', 'in', db.selectFrom('subscription_plans').select('id').where('product_id', '=', f.productId));
  if (f.active !== undefined) q = q.where('active', '=', f.active);
  if (f.start) q = q.where('created_at', '>=', f.start);
  if (f.end) q = q.where('created_at', '<=', f.end);
  const { count } = await q.select((eb) => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow();
  const rows = await q.selectAll().orderBy('created_at', 'asc').orderBy(sql`seq`, 'asc').limit(f.limit).offset(f.offset).execute();
  return { rows: rows as SubscriptionRow[], count: Number(count) };
}

// ---- charges ------------------------------------------------------------------------------------------

/** What a charge needs besides the subscription: its payment row (if made), and the names it is notified under. */
export interface ChargeRow extends SubscriptionRow {
  payment: PaymentRow | null;
  plan_external_id: string;
  product_external_id: string;
  notification_url: string | null;
  company_id: string | null;
}

const PAYMENT_COLUMNS = [
  'id', 'subscription_id', 'merchant_id', 'env', 'payment_number', 'attempt', 'amount', 'currency', 'status', 'payment_date',
  'order_id', 'transaction_id', 'source_uuid', 'error', 'charging_until', 'created_at', 'updated_at',
] as const;

/**
 * Locks the subscription (FOR UPDATE: every write to it and to its payments happens under this lock) and
 * reads, in the same statement, the payment row of (number, attempt) and the plan, product and company
 * its notification names.
 */
export async function lockForCharge(trx: Executor, subscriptionId: string, paymentNumber: number, attempt: number): Promise<ChargeRow | undefined> {
  const row = await trx
    .selectFrom('subscriptions as s')
    .innerJoin('subscription_plans as pl', 'pl.id', 's.plan_id')
    .innerJoin('subscription_products as pr', 'pr.id', 'pl.product_id')
    .leftJoin('subscription_companies as c', (j) => j.onRef('c.merchant_id', '=', 's.merchant_id').onRef('c.env', '=', 's.env'))
    .leftJoin('subscription_payments as p', (j) => j.onRef('p.subscription_id', '=', 's.id').on('p.payment_number', '=', paymentNumber).on('p.attempt', '=', attempt))
    .selectAll('s')
    .select(['pl.external_id as plan_external_id', 'pr.external_id as product_external_id', 'pr.notification_url', 'c.id as company_id'])
    .select(PAYMENT_COLUMNS.map((c) => `p.${c} as p_${c}` as const))
    .where('s.id', '=', subscriptionId)
    .forUpdate('s')
    .executeTakeFirst();
  if (!row) return undefined;
  const r = row as unknown as Record<string, unknown>;
  const payment = r.p_id ? (Object.fromEntries(PAYMENT_COLUMNS.map((c) => [c, r[`p_${c}`]])) as unknown as PaymentRow) : null;
  for (const c of PAYMENT_COLUMNS) delete r[`p_${c}`];
  return { ...(r as unknown as SubscriptionRow), payment, plan_external_id: String(r.plan_external_id), product_external_id: String(r.product_external_id), notification_url: (r.notification_url as string | null) ?? null, company_id: (r.company_id as string | null) ?? null };
}

/**
 * The common case of a charge in one statement (no BEGIN, no COMMIT): under the subscription's lock, the
 * payment row of (number, attempt) is inserted, leased until `until`, when it is the subscription's next
 * charge and no row exists yet. Returns the subscription (as lockForCharge, without a payment) when it was
 * inserted; undefined otherwise (the caller takes the transaction path, which finds out why).
 */
export async function insertDuePayment(
  db: Executor,
  p: { id: string; subscriptionId: string; paymentNumber: number; attempt: number; paymentDate: Date; until: Date; now: Date },
): Promise<(Omit<ChargeRow, 'payment'> & { version: string }) | undefined> {
  const { rows } = await sql<Omit<ChargeRow, 'payment'> & { version: string }>`
    with s as (
      select *, xmin::text as version from subscriptions where id = ${p.subscriptionId} for update
    ), ins as (
      insert into subscription_payments (id, subscription_id, merchant_id, env, payment_number, attempt, amount, currency, status,
        payment_date, order_id, transaction_id, source_uuid, error, charging_until, created_at, updated_at)
      select ${p.id}, s.id, s.merchant_id, s.env, ${p.paymentNumber}, ${p.attempt}, s.amount, null, 'CREATED',
        ${p.paymentDate}, null, null, s.additional_data ->> 'source_uuid', null, ${p.until}, ${p.now}, ${p.now}
      from s where s.active and s.next_payment_number = ${p.paymentNumber} and s.next_attempt = ${p.attempt}
      on conflict (subscription_id, payment_number, attempt) do nothing
      returning id
    )
    select s.*, pl.external_id as plan_external_id, pr.external_id as product_external_id, pr.notification_url, c.id as company_id
    from s
    join ins on true
    join subscription_plans pl on pl.id = s.plan_id
    join subscription_products pr on pr.id = pl.product_id
    left join subscription_companies c on c.merchant_id = s.merchant_id and c.env = s.env`.execute(db);
  return rows[0];
}

/**
 * Settles a charge in one statement (no BEGIN, no COMMIT), if the subscription is still the row version
 * `version` read when the charge was claimed and the payment still CREATED: the subscription, the payment,
 * and `also` (the next charge's job, the notification: statements guarded by `when`, the condition this
 * function passes them). Returns false when nothing was written (the caller settles under the lock).
 */
export async function settleChargeAtVersion(
  db: Executor,
  subscriptionId: string,
  version: string,
  paymentId: string,
  pay: Pick<SubscriptionPaymentsTable, 'status' | 'order_id' | 'transaction_id' | 'currency' | 'error' | 'updated_at'>,
  sub: Pick<SubscriptionsTable, 'status' | 'active' | 'next_charge_date' | 'updated_at'> & { next_payment_number: number; next_attempt: number; total_payment_charged: number },
  also: (when: RawBuilder<unknown>) => RawBuilder<unknown>[],
): Promise<boolean> {
  const when = sql`exists (select 1 from p)`;
  const extra = also(when).map((q, i) => sql`, ${sql.raw(`x${i}`)} as (${q})`);
  // both rows locked first (the subscription, then its payment, as the transaction path does), each
  // checked on its newest version: the subscription unchanged since the claim, the payment unsettled
  const { rows } = await sql<{ settled: number }>`
    with ls as (
      select id from subscriptions where id = ${subscriptionId} and xmin::text = ${version} for update
    ), lp as (
      select id from subscription_payments where id = ${paymentId} and status = 'CREATED' and exists (select 1 from ls) for update
    ), s as (
      update subscriptions set status = ${sub.status}, active = ${sub.active}, next_charge_date = ${sub.next_charge_date},
        next_payment_number = ${sub.next_payment_number}, next_attempt = ${sub.next_attempt},
        total_payment_charged = ${sub.total_payment_charged}, updated_at = ${sub.updated_at}
      where id = ${subscriptionId} and exists (select 1 from lp)
      returning id
    ), p as (
      update subscription_payments set status = ${pay.status}, order_id = ${pay.order_id}, transaction_id = ${pay.transaction_id},
        currency = ${pay.currency}, error = ${pay.error}, updated_at = ${pay.updated_at}, charging_until = null
      where id = ${paymentId} and exists (select 1 from lp)
      returning id
    )${sql.join(extra, sql``)}
    select (select count(*) from p)::int as settled, (select count(*) from s)::int as moved`.execute(db);
  return rows[0]?.settled === 1;
}

/**
 * Inserts the payment row of a charge unless it exists (another run made it after the caller's read);
 * undefined when it did.
 */
export async function insertPayment(trx: Executor, row: Omit<SubscriptionPaymentsTable, 'amount' | 'charging_until'> & { amount: number; charging_until: Date | null }): Promise<PaymentRow | undefined> {
  return trx
    .insertInto('subscription_payments')
    .values(row)
    .onConflict((oc) => oc.columns(['subscription_id', 'payment_number', 'attempt']).doNothing())
    .returningAll()
    .executeTakeFirst() as Promise<PaymentRow | undefined>;
}

/** The payment row of (subscription, number, attempt), read afresh. */
export async function paymentOf(db: Executor, subscriptionId: string, paymentNumber: number, attempt: number): Promise<PaymentRow | undefined> {
  return db
    .selectFrom('subscription_payments')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('payment_number', '=', paymentNumber)
    .where('attempt', '=', attempt)
    .executeTakeFirst() as Promise<PaymentRow | undefined>;
}

/**
 * Leases a CREATED charge to a run until `until`, unless another run holds a live lease (at `now`);
 * undefined when it was not leased.
 */
export async function leasePayment(trx: Executor, id: string, until: Date, now: Date): Promise<PaymentRow | undefined> {
  return trx
    .updateTable('subscription_payments')
    .set({ charging_until: until })
    .where('id', '=', id)
    .where('status', '=', 'CREATED')
    .where((eb) => eb.or([eb('charging_until', 'is', null), eb('charging_until', '<=', now)]))
    .returningAll()
    .executeTakeFirst() as Promise<PaymentRow | undefined>;
}

/**
 * Settles a charge in one statement: the payment row (still CREATED) and, when given, the subscription.
 * Returns false when the payment had been settled already (nothing written).
 */
export async function settleCharge(
  trx: Executor,
  paymentId: string,
  pay: Partial<Pick<SubscriptionPaymentsTable, 'status' | 'order_id' | 'transaction_id' | 'currency' | 'error' | 'updated_at'>>,
  subscriptionId: string,
  sub: (Partial<Pick<SubscriptionsTable, 'status' | 'active' | 'next_charge_date' | 'updated_at'>> & { next_payment_number?: number; next_attempt?: number; total_payment_charged?: number }) | null,
): Promise<boolean> {
  const paySet = { ...pay, charging_until: null };
  const q = trx.with('p', (db) => db.updateTable('subscription_payments').set(paySet).where('id', '=', paymentId).where('status', '=', 'CREATED').returning('id'));
  if (!sub) {
    const r = await q.selectFrom('p').select('id').execute();
    return r.length > 0;
  }
  const r = await q
    .with('s', (db) => db.updateTable('subscriptions').set(sub).where('id', '=', subscriptionId).where((eb) => eb.exists(eb.selectFrom('p').select('id'))).returning('id'))
    .selectFrom('p')
    .select('id')
    .execute();
  return r.length > 0;
}

// ---- payments -----------------------------------------------------------------------------------------

export async function findPayment(db: Executor, owner: Owner, id: string): Promise<PaymentRow | undefined> {
  if (!isUuid(id)) return undefined;
  return db
    .selectFrom('subscription_payments')
    .selectAll()
    .where('id', '=', id.toLowerCase())
    .where('merchant_id', '=', owner.merchantId)
    .where('env', '=', owner.env)
    .executeTakeFirst() as Promise<PaymentRow | undefined>;
}

export async function paymentsOf(db: Executor, subscriptionIds: string[]): Promise<PaymentRow[]> {
  if (subscriptionIds.length === 0) return [];
  return db
    .selectFrom('subscription_payments')
    .selectAll()
    .where('subscription_id', 'in', subscriptionIds)
    .orderBy('payment_number', 'asc')
    .orderBy('attempt', 'asc')
    .execute() as Promise<PaymentRow[]>;
}

export interface PaymentFilter {
  status?: string;
  subscriptionId?: string;
  start?: Date;
  end?: Date;
  limit: number;
  offset: number;
}

export async function listPayments(db: Executor, owner: Owner, f: PaymentFilter): Promise<{ rows: PaymentRow[]; count: number }> {
  let q = db.selectFrom('subscription_payments').where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env);
  if (f.status) q = q.where('status', '=', f.status as PaymentStatus);
  if (f.subscriptionId) q = q.where('subscription_id', '=', f.subscriptionId);
  if (f.start) q = q.where('payment_date', '>=', f.start);
  if (f.end) q = q.where('payment_date', '<=', f.end);
  const { count } = await q.select((eb) => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow();
  const rows = await q.selectAll().orderBy('created_at', 'asc').orderBy(sql`seq`, 'asc').limit(f.limit).offset(f.offset).execute();
  return { rows: rows as PaymentRow[], count: Number(count) };
}

/** The charge attempts that failed (FAILED, FAILED_NOTIFICATION), newest due first, a page with the count. */
export async function listFailedPayments(db: Executor, owner: Owner, page: { limit: number; offset: number }): Promise<{ rows: PaymentRow[]; count: number }> {
  const q = db.selectFrom('subscription_payments').where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env).where('status', 'in', ['FAILED', 'FAILED_NOTIFICATION'] as PaymentStatus[]);
  const { count } = await q.select((eb) => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow();
  const rows = await q.selectAll().orderBy('payment_date', 'desc').orderBy('created_at', 'desc').orderBy(sql`seq`, 'desc').limit(page.limit).offset(page.offset).execute();
  return { rows: rows as PaymentRow[], count: Number(count) };
}

/** Subscriptions of the owner by id. */
export async function subscriptionsByIds(db: Executor, owner: Owner, ids: string[]): Promise<SubscriptionRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('subscriptions').selectAll().where('id', 'in', ids).where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env).execute() as Promise<SubscriptionRow[]>;
}
