/** SQL of recurring billing. Every function takes the executor to run on. */
import { sql, type ColumnType } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import type { SubscriptionStatus, PaymentStatus } from './subscription-states.js';

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

export type CompanyRow = SubscriptionCompaniesTable;
export type ProductRow = SubscriptionProductsTable;
export type PlanRow = Omit<SubscriptionPlansTable, 'amount'> & { amount: string };
export type SubscriptionRow = Omit<SubscriptionsTable, 'amount' | 'additional_data' | 'next_payment_number' | 'next_attempt' | 'total_payment_charged'> & {
  amount: string;
  additional_data: Record<string, unknown> | null;
  next_payment_number: number;
  next_attempt: number;
  total_payment_charged: number;
};
export type PaymentRow = Omit<SubscriptionPaymentsTable, 'amount' | 'charging_until'> & { amount: string; charging_until?: Date | null };

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: string) => UUID_RE.test(v);

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

export async function lockSubscriptionById(db: Executor, id: string): Promise<SubscriptionRow | undefined> {
  return db.selectFrom('subscriptions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst() as Promise<SubscriptionRow | undefined>;
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

// ---- payments -----------------------------------------------------------------------------------------

/** Inserts the payment of (subscription, number, attempt) unless it exists; returns the one stored. */
export async function claimPayment(db: Executor, row: Omit<SubscriptionPaymentsTable, 'amount' | 'charging_until'> & { amount: number }): Promise<PaymentRow> {
  await db
    .insertInto('subscription_payments')
    .values(row)
    .onConflict((oc) => oc.columns(['subscription_id', 'payment_number', 'attempt']).doNothing())
    .execute();
  return db
    .selectFrom('subscription_payments')
    .selectAll()
    .where('subscription_id', '=', row.subscription_id)
    .where('payment_number', '=', row.payment_number)
    .where('attempt', '=', row.attempt)
    .executeTakeFirstOrThrow() as Promise<PaymentRow>;
}

export async function lockPayment(db: Executor, id: string): Promise<PaymentRow | undefined> {
  return db.selectFrom('subscription_payments').selectAll().where('id', '=', id).forUpdate().executeTakeFirst() as Promise<PaymentRow | undefined>;
}

export async function updatePayment(
  db: Executor,
  id: string,
  set: Partial<Pick<SubscriptionPaymentsTable, 'status' | 'order_id' | 'transaction_id' | 'currency' | 'source_uuid' | 'error' | 'updated_at'>> & { charging_until?: Date | null },
): Promise<void> {
  await db.updateTable('subscription_payments').set(set).where('id', '=', id).execute();
}

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
