/** SQL of customers, their accounts, addresses and profiles. Every function takes the executor to run on. */
import { sql, type ColumnType, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { CreatedAt, Env } from '../../platform/db/schema.js';
import { registerSealedColumn } from '../../platform/security/sealed-columns.js';
import { isUuid } from '../../platform/ids.js';

registerSealedColumn({ table: 'customer_accounts', idColumn: 'id', column: 'account_number_sealed', aad: (id) => `account:${id}` });
registerSealedColumn({ table: 'customer_profiles', idColumn: 'customer_id', column: 'social_security_number_sealed', aad: (id) => `ssn:${id}` });

export interface CustomersTable {
  id: string;
  merchant_id: string;
  env: Env;
  external_id: string;
  /** `Customer.token`: opens the embedded card form until `token_expires_at` (never when null). */
  token: string;
  token_expires_at: Date | null;
  created_at: CreatedAt;
}

export interface CustomerAccountsTable {
  id: string;
  merchant_id: string;
  customer_id: string;
  account_type: string;
  account_number_sealed: string;
  account_number_shown: string;
  created_at: CreatedAt;
  updated_at: Date;
}

export interface CustomerAddressesTable {
  id: string;
  merchant_id: string;
  customer_id: string;
  address1: string;
  address2: string | null;
  address3: string | null;
  city: string;
  country: string;
  is_default: boolean;
  state_code: string;
  type: string;
  zip_code: string;
  created_at: CreatedAt;
  updated_at: Date;
}

export interface PhoneJson {
  number: string;
  prefix: string | null;
}
type PhoneColumn = ColumnType<PhoneJson | null, string | null, string | null>;

export interface CustomerProfilesTable {
  customer_id: string;
  merchant_id: string;
  first_name: string;
  last_name: string;
  cardholder_name: string | null;
  document_identification_issuer_type: string | null;
  document_identification_type: string | null;
  document_identification_number: string | null;
  email: string | null;
  phone: PhoneColumn;
  work_phone: PhoneColumn;
  home_phone: PhoneColumn;
  mobile_phone: PhoneColumn;
  birthdate: string | null;
  source_of_funds: string | null;
  occupation: string | null;
  social_security_number_sealed: string | null;
  social_security_number_last4: string | null;
  created_at: CreatedAt;
  updated_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    customers: CustomersTable;
    customer_accounts: CustomerAccountsTable;
    customer_addresses: CustomerAddressesTable;
    customer_profiles: CustomerProfilesTable;
  }
}

export type AccountRow = Selectable<CustomerAccountsTable>;
export type AddressRow = Selectable<CustomerAddressesTable>;
export type ProfileRow = Selectable<CustomerProfilesTable>;

export type CustomerRow = Selectable<CustomersTable>;

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

/**
 * How to reach a customer, from its profile (for antifraud and security lists): e-mail and phones, or
 * undefined when the customer has no profile. One query.
 */
export async function findContact(db: Executor, owner: Owner, externalId: string): Promise<{ email: string | null; phones: PhoneJson[] } | undefined> {
  const r = await db
    .selectFrom('customers as c')
    .innerJoin('customer_profiles as p', 'p.customer_id', 'c.id')
    .select(['p.email', 'p.phone', 'p.mobile_phone', 'p.work_phone', 'p.home_phone'])
    .where('c.merchant_id', '=', owner.merchantId)
    .where('c.external_id', '=', externalId)
    .executeTakeFirst();
  if (!r) return undefined;
  return { email: r.email, phones: [r.phone, r.mobile_phone, r.work_phone, r.home_phone].filter((x): x is PhoneJson => !!x && typeof x.number === 'string') };
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

/**
 * Issues the customer's token for the embedded card form (E1): the current token, extended to
 * `expiresAt`, while it is still valid at `now`; otherwise `fresh`, valid until `expiresAt`.
 */
export async function issueToken(db: Executor, customerId: string, fresh: string, now: Date, expiresAt: Date): Promise<{ token: string; token_expires_at: Date }> {
  const { rows } = await sql<{ token: string; token_expires_at: Date }>`
    update customers
    set token = case when token_expires_at > ${now} then token else ${fresh} end,
        token_expires_at = ${expiresAt}
    where id = ${customerId}
    returning token, token_expires_at`.execute(db);
  if (!rows[0]) throw new Error('customer vanished while its token was issued');
  return rows[0];
}

/** Revokes the token: it is replaced by `fresh`, which opens nothing until POST /customer issues it. */
export async function revokeToken(db: Executor, customerId: string, fresh: string): Promise<void> {
  await db.updateTable('customers').set({ token: fresh, token_expires_at: null }).where('id', '=', customerId).execute();
}

/** The customer a token belongs to, in `env` (whatever its expiry: the caller decides). */
export async function findCustomerByToken(db: Executor, env: Env, token: string): Promise<CustomerRow | undefined> {
  if (!/^[0-9a-f]{16,128}$/i.test(token)) return undefined;
  return db.selectFrom('customers').selectAll().where('token', '=', token.toLowerCase()).where('env', '=', env).executeTakeFirst();
}

/** Locks the customer row: serialises changes to one customer's addresses (one default). */
export async function lockCustomer(db: Executor, id: string): Promise<void> {
  await db.selectFrom('customers').select('id').where('id', '=', id).forUpdate().execute();
}


// ---- accounts ---------------------------------------------------------------------------------------

export async function insertAccount(db: Executor, row: AccountRow): Promise<void> {
  await db.insertInto('customer_accounts').values(row).execute();
}

export async function findAccount(db: Executor, merchantId: string, id: string): Promise<(AccountRow & { external_id: string; token: string }) | undefined> {
  if (!isUuid(id)) return undefined;
  return db
    .selectFrom('customer_accounts as a')
    .innerJoin('customers as c', 'c.id', 'a.customer_id')
    .selectAll('a')
    .select(['c.external_id', 'c.token'])
    .where('a.id', '=', id.toLowerCase())
    .where('a.merchant_id', '=', merchantId)
    .executeTakeFirst();
}

export async function updateAccount(db: Executor, id: string, set: Partial<Omit<AccountRow, 'id' | 'merchant_id' | 'created_at'>>): Promise<void> {
  await db.updateTable('customer_accounts').set(set).where('id', '=', id).execute();
}

export async function deleteAccount(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('customer_accounts').where('id', '=', id).execute();
}

// ---- addresses --------------------------------------------------------------------------------------

export async function insertAddress(db: Executor, row: AddressRow): Promise<void> {
  await db.insertInto('customer_addresses').values(row).execute();
}

export async function findAddress(db: Executor, merchantId: string, id: string): Promise<(AddressRow & { external_id: string; token: string }) | undefined> {
  if (!isUuid(id)) return undefined;
  return db
    .selectFrom('customer_addresses as a')
    .innerJoin('customers as c', 'c.id', 'a.customer_id')
    .selectAll('a')
    .select(['c.external_id', 'c.token'])
    .where('a.id', '=', id.toLowerCase())
    .where('a.merchant_id', '=', merchantId)
    .executeTakeFirst();
}

export async function clearDefaultAddress(db: Executor, customerId: string, exceptId: string): Promise<void> {
  await db.updateTable('customer_addresses').set({ is_default: false }).where('customer_id', '=', customerId).where('is_default', '=', true).where('id', '<>', exceptId).execute();
}

export async function updateAddress(db: Executor, id: string, set: Partial<Omit<AddressRow, 'id' | 'merchant_id' | 'customer_id' | 'type' | 'created_at'>>): Promise<void> {
  await db.updateTable('customer_addresses').set(set).where('id', '=', id).execute();
}

export async function deleteAddress(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('customer_addresses').where('id', '=', id).execute();
}

export async function findDefaultAddress(db: Executor, customerId: string): Promise<AddressRow | undefined> {
  return db.selectFrom('customer_addresses').selectAll().where('customer_id', '=', customerId).where('is_default', '=', true).executeTakeFirst();
}

// ---- profiles ---------------------------------------------------------------------------------------

type ProfileWrite = Omit<ProfileRow, 'phone' | 'work_phone' | 'home_phone' | 'mobile_phone'> & {
  phone: PhoneJson | null;
  work_phone: PhoneJson | null;
  home_phone: PhoneJson | null;
  mobile_phone: PhoneJson | null;
};

const phoneJson = (p: PhoneJson | null) => (p ? JSON.stringify(p) : null);

export async function findProfile(db: Executor, customerId: string): Promise<ProfileRow | undefined> {
  return db.selectFrom('customer_profiles').selectAll().where('customer_id', '=', customerId).executeTakeFirst() as Promise<ProfileRow | undefined>;
}

export async function insertProfile(db: Executor, row: ProfileWrite): Promise<void> {
  await db
    .insertInto('customer_profiles')
    .values({ ...row, phone: phoneJson(row.phone), work_phone: phoneJson(row.work_phone), home_phone: phoneJson(row.home_phone), mobile_phone: phoneJson(row.mobile_phone) })
    .execute();
}

export async function replaceProfile(db: Executor, row: ProfileWrite): Promise<void> {
  const { customer_id, merchant_id, created_at, ...rest } = row;
  void merchant_id;
  void created_at;
  await db
    .updateTable('customer_profiles')
    .set({ ...rest, phone: phoneJson(row.phone), work_phone: phoneJson(row.work_phone), home_phone: phoneJson(row.home_phone), mobile_phone: phoneJson(row.mobile_phone) })
    .where('customer_id', '=', customer_id)
    .execute();
}

/** The external ids of a merchant's customers whose profile has this e-mail (any case), at most `limit`. */
export async function externalIdsByEmail(db: Executor, merchantId: string, email: string, limit = 200): Promise<string[]> {
  const rows = await db
    .selectFrom('customers as c')
    .innerJoin('customer_profiles as p', 'p.customer_id', 'c.id')
    .select('c.external_id')
    .where('c.merchant_id', '=', merchantId)
    .where(sql<string>`lower(p.email)`, '=', email.trim().toLowerCase())
    .limit(limit)
    .execute();
  return rows.map((r) => r.external_id);
}

/** A customer in the staff's list: the customer with the name and e-mail of its profile. */
export interface CustomerListRow {
  id: string;
  external_id: string;
  created_at: Date;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
}

/**
 * A merchant's customers in external id order, `limit` after `after` (an external id), whose external
 * id, profile name or e-mail contains `q` (any case). One query.
 */
export async function searchCustomers(db: Executor, merchantId: string, opts: { q?: string; after?: string; limit: number }): Promise<CustomerListRow[]> {
  let query = db
    .selectFrom('customers as c')
    .leftJoin('customer_profiles as p', 'p.customer_id', 'c.id')
    .select(['c.id', 'c.external_id', 'c.created_at', 'p.first_name', 'p.last_name', 'p.email'])
    .where('c.merchant_id', '=', merchantId);
  const q = opts.q?.trim();
  if (q) {
    const like = `%${q.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    query = query.where((eb) =>
      eb.or([
        eb(sql<string>`lower(c.external_id)`, 'like', like),
        eb(sql<string>`lower(p.email)`, 'like', like),
        eb(sql<string>`lower(p.first_name || ' ' || p.last_name)`, 'like', like),
      ]),
    );
  }
  if (opts.after !== undefined) query = query.where('c.external_id', '>', opts.after);
  return (await query.orderBy('c.external_id').limit(opts.limit).execute()) as CustomerListRow[];
}

/** The accounts of a customer, oldest first. */
export async function listAccounts(db: Executor, customerId: string): Promise<AccountRow[]> {
  return db.selectFrom('customer_accounts').selectAll().where('customer_id', '=', customerId).orderBy('created_at').orderBy('id').execute() as Promise<AccountRow[]>;
}

/** The addresses of a customer, oldest first. */
export async function listAddresses(db: Executor, customerId: string): Promise<AddressRow[]> {
  return db.selectFrom('customer_addresses').selectAll().where('customer_id', '=', customerId).orderBy('created_at').orderBy('id').execute() as Promise<AddressRow[]>;
}
