/**
 * Use cases of customers (E1–E12): customers by external id, accounts, addresses (one default per
 * customer), profiles. Other merchants' records are not found (404).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Platform } from '../../platform/index.js';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import { isUniqueViolation } from '../../platform/db/database.js';
import { badRequest, conflict, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import { localDate } from '../../platform/time/format.js';
import {
  parseAccountNumber,
  parseBirthdate,
  parseCountry,
  parsePhone,
  type AccountType,
  type Phone,
} from './customers.domain.js';
import * as repo from './customers.repo.js';

type ExtIdInput = string | number;

export interface AccountInput {
  external_id: ExtIdInput;
  account_type: AccountType;
  account_number: string;
}

export interface AddressInput {
  external_id?: ExtIdInput;
  address1?: string;
  address2?: string | null;
  address3?: string | null;
  city?: string;
  country?: string;
  default?: boolean;
  state_code?: string;
  type?: 'OTHER' | 'BILLING' | 'SHIPPING';
  zip_code?: string;
}

export interface ProfileInput {
  external_id: ExtIdInput;
  first_name: string;
  last_name: string;
  cardholder_name?: string | null;
  document_identification_issuer_type?: string | null;
  document_identification_type?: string | null;
  document_identification_number?: string | null;
  email?: string | null;
  phone?: Phone | null;
  work_phone?: Phone | null;
  home_phone?: Phone | null;
  mobile_phone?: Phone | null;
  birthdate?: string | null;
  source_of_funds?: string | null;
  occupation?: string | null;
  social_security_number?: string | null;
}

const ownerOf = (ctx: RequestContext): repo.Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });

const newToken = () => randomBytes(20).toString('hex');

/** The external id as a string (numbers are kept as strings). */
export function extIdOf(v: ExtIdInput, field = 'customer_ext_id'): string {
  const s = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : v.trim();
  if (s.length === 0 || s.length > 255) throw badRequest(`${field} must be 1 to 255 characters`);
  return s;
}

export function presentCustomer(c: { external_id: string; token: string }) {
  return { external_id: c.external_id, token: c.token };
}

export function presentAccount(a: repo.AccountRow) {
  return { uuid: a.id, account_number: a.account_number_shown, account_type: a.account_type };
}

export function presentAddress(a: repo.AddressRow) {
  return {
    uuid: a.id,
    address1: a.address1,
    address2: a.address2,
    address3: a.address3,
    city: a.city,
    country: a.country,
    default: a.is_default,
    state_code: a.state_code,
    type: a.type,
    zip_code: a.zip_code,
  };
}

export function presentProfile(p: repo.ProfileRow) {
  return {
    first_name: p.first_name,
    last_name: p.last_name,
    cardholder_name: p.cardholder_name,
    document_identification_issuer_type: p.document_identification_issuer_type,
    document_identification_type: p.document_identification_type,
    document_identification_number: p.document_identification_number,
    email: p.email,
    phone: p.phone,
    work_phone: p.work_phone,
    home_phone: p.home_phone,
    mobile_phone: p.mobile_phone,
    birthdate: p.birthdate,
    source_of_funds: p.source_of_funds,
    occupation: p.occupation,
    social_security_number: p.social_security_number_last4 === null ? null : `*****${p.social_security_number_last4}`,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}

export class CustomersService {
  constructor(private readonly p: Platform) {}

  // ---- customers ---------------------------------------------------------------------------------------

  /**
   * E1: creates the customer, or returns it when it already exists (creating is idempotent). Its
   * `token` opens the embedded card form for `PAYGATE_CUSTOMER_TOKEN_TTL_S` from now: a still valid
   * token is extended, an expired or revoked one replaced.
   */
  async create(ctx: RequestContext, externalId: ExtIdInput) {
    const ext = extIdOf(externalId);
    const now = ctx.clock.now();
    return this.p.database.transaction(async (trx) => {
      const { row } = await repo.ensureCustomer(trx, ownerOf(ctx), ext, { id: randomUUID(), token: newToken(), created_at: now });
      const issued = await repo.issueToken(trx, row.id, newToken(), now, new Date(now.getTime() + this.p.config.customerTokenTtlS * 1000));
      return presentCustomer({ external_id: row.external_id, token: issued.token });
    });
  }

  /** Revokes the customer's token: the embedded card form no longer opens with it. */
  async revokeToken(ctx: RequestContext, externalId: ExtIdInput) {
    return this.p.database.transaction(async (trx) => {
      const c = await this.#customer(trx, ctx, externalId, 'customer_ext_id');
      await repo.revokeToken(trx, c.id, newToken());
    });
  }

  /**
   * The customer whose token opens the embedded card form in `env`, with its merchant; null for an
   * unknown, expired or revoked token. `now(merchantId)` is the merchant's time.
   */
  async customerForToken(env: Env, token: string, now: (merchantId: string) => Promise<Date>): Promise<repo.CustomerRow | null> {
    const c = await repo.findCustomerByToken(this.p.database.db, env, token);
    if (!c || !c.token_expires_at) return null;
    return c.token_expires_at.getTime() > (await now(c.merchant_id)).getTime() ? c : null;
  }

  /** GET /customer: the customer by external id. */
  async get(ctx: RequestContext, externalId: ExtIdInput | undefined) {
    if (externalId === undefined) throw badRequest('customer_ext_id is required');
    const c = await this.#customer(this.p.database.db, ctx, externalId);
    return presentCustomer(c);
  }

  async #customer(db: Executor, ctx: RequestContext, externalId: ExtIdInput, field = 'external_id'): Promise<repo.CustomerRow> {
    const ext = extIdOf(externalId, field);
    const c = await repo.findCustomer(db, ownerOf(ctx), ext);
    if (!c) throw notFound(`The customer ${ext.slice(0, 64)} was not found`);
    return c;
  }

  // ---- accounts ----------------------------------------------------------------------------------------

  #accountNumber(type: AccountType, input: string) {
    const n = parseAccountNumber(type, input);
    if ('error' in n) throw badRequest(n.error);
    return n.ok;
  }

  async createAccount(ctx: RequestContext, input: AccountInput) {
    const number = this.#accountNumber(input.account_type, input.account_number);
    return this.p.database.transaction(async (trx) => {
      const c = await this.#customer(trx, ctx, input.external_id);
      const id = randomUUID();
      const now = ctx.clock.now();
      const row: repo.AccountRow = {
        id,
        merchant_id: ctx.merchant.id,
        customer_id: c.id,
        account_type: input.account_type,
        account_number_sealed: this.p.vault.seal(number.number, `account:${id}`),
        account_number_shown: number.shown,
        created_at: now,
        updated_at: now,
      };
      await repo.insertAccount(trx, row);
      return { customer: presentCustomer(c), customer_account: presentAccount(row) };
    });
  }

  async updateAccount(ctx: RequestContext, input: AccountInput & { uuid: string }) {
    const number = this.#accountNumber(input.account_type, input.account_number);
    return this.p.database.transaction(async (trx) => {
      const a = await this.#account(trx, ctx, input.uuid);
      const c = await this.#customer(trx, ctx, input.external_id);
      if (c.id !== a.customer_id) throw notFound(`The account ${input.uuid} of customer ${c.external_id} was not found`);
      const set = {
        account_type: input.account_type,
        account_number_sealed: this.p.vault.seal(number.number, `account:${a.id}`),
        account_number_shown: number.shown,
        updated_at: ctx.clock.now(),
      };
      await repo.updateAccount(trx, a.id, set);
      return { customer: presentCustomer(c), customer_account: presentAccount({ ...a, ...set }) };
    });
  }

  async deleteAccount(ctx: RequestContext, uuid: string) {
    return this.p.database.transaction(async (trx) => {
      const a = await this.#account(trx, ctx, uuid);
      await repo.deleteAccount(trx, a.id);
      return presentAccount(a);
    });
  }

  async getAccount(ctx: RequestContext, uuid: string) {
    return presentAccount(await this.#account(this.p.database.db, ctx, uuid));
  }

  async #account(db: Executor, ctx: RequestContext, uuid: string) {
    const a = await repo.findAccount(db, ctx.merchant.id, uuid);
    if (!a) throw notFound(`The account ${uuid} was not found`);
    return a;
  }

  // ---- addresses ---------------------------------------------------------------------------------------

  #country(v: string) {
    const c = parseCountry(v);
    if ('error' in c) throw badRequest(c.error);
    return c.ok;
  }

  async createAddress(ctx: RequestContext, input: Required<Pick<AddressInput, 'external_id' | 'address1' | 'city' | 'country' | 'default' | 'state_code' | 'type' | 'zip_code'>> & AddressInput) {
    const country = this.#country(input.country);
    return this.p.database.transaction(async (trx) => {
      const c = await this.#customer(trx, ctx, input.external_id);
      await repo.lockCustomer(trx, c.id);
      const now = ctx.clock.now();
      const row: repo.AddressRow = {
        id: randomUUID(),
        merchant_id: ctx.merchant.id,
        customer_id: c.id,
        address1: input.address1,
        address2: input.address2 ?? null,
        address3: input.address3 ?? null,
        city: input.city,
        country,
        is_default: input.default,
        state_code: input.state_code,
        type: input.type,
        zip_code: input.zip_code,
        created_at: now,
        updated_at: now,
      };
      if (row.is_default) await repo.clearDefaultAddress(trx, c.id, row.id);
      await this.#guardDefault(() => repo.insertAddress(trx, row));
      return { customer: presentCustomer(c), customer_address: presentAddress(row) };
    });
  }

  async updateAddress(ctx: RequestContext, input: AddressInput & { uuid: string }) {
    const country = input.country === undefined ? undefined : this.#country(input.country);
    return this.p.database.transaction(async (trx) => {
      const a = await this.#address(trx, ctx, input.uuid);
      if (input.external_id !== undefined) {
        const c = await this.#customer(trx, ctx, input.external_id);
        if (c.id !== a.customer_id) throw notFound(`The address ${input.uuid} of customer ${c.external_id} was not found`);
      }
      if (input.type !== undefined && input.type !== a.type) {
        throw badRequest(`type cannot be changed by an update (the address is ${a.type})`);
      }
      await repo.lockCustomer(trx, a.customer_id);
      const set: Partial<repo.AddressRow> = { updated_at: ctx.clock.now() };
      if (input.address1 !== undefined) set.address1 = input.address1;
      if (input.address2 !== undefined) set.address2 = input.address2;
      if (input.address3 !== undefined) set.address3 = input.address3;
      if (input.city !== undefined) set.city = input.city;
      if (country !== undefined) set.country = country;
      if (input.state_code !== undefined) set.state_code = input.state_code;
      if (input.zip_code !== undefined) set.zip_code = input.zip_code;
      if (input.default !== undefined) set.is_default = input.default;
      if (set.is_default) await repo.clearDefaultAddress(trx, a.customer_id, a.id);
      await this.#guardDefault(() => repo.updateAddress(trx, a.id, set));
      return { customer: presentCustomer(a), customer_address: presentAddress({ ...a, ...set }) };
    });
  }

  async deleteAddress(ctx: RequestContext, uuid: string) {
    return this.p.database.transaction(async (trx) => {
      const a = await this.#address(trx, ctx, uuid);
      await repo.deleteAddress(trx, a.id);
      return presentAddress(a);
    });
  }

  async getAddress(ctx: RequestContext, uuid: string) {
    return presentAddress(await this.#address(this.p.database.db, ctx, uuid));
  }

  /** The default address of a customer, when it has one (for modules that need a billing address). */
  async defaultAddress(db: Executor, owner: repo.Owner, externalId: string) {
    const c = await repo.findCustomer(db, owner, externalId);
    if (!c) return null;
    const a = await repo.findDefaultAddress(db, c.id);
    return a ? presentAddress(a) : null;
  }

  async #address(db: Executor, ctx: RequestContext, uuid: string) {
    const a = await repo.findAddress(db, ctx.merchant.id, uuid);
    if (!a) throw notFound(`The address ${uuid} was not found`);
    return a;
  }

  async #guardDefault(fn: () => Promise<void>) {
    try {
      await fn();
    } catch (err) {
      if (isUniqueViolation(err, 'customer_addresses_one_default')) throw conflict('Another request changed the default address at the same time; try again');
      throw err;
    }
  }

  // ---- profiles ----------------------------------------------------------------------------------------

  #profileFields(ctx: RequestContext, customerId: string, input: ProfileInput) {
    const phone = (v: Phone | null | undefined, field: string) => {
      if (v === undefined || v === null) return null;
      const r = parsePhone(v, field);
      if ('error' in r) throw badRequest(r.error);
      return r.ok;
    };
    let birthdate: string | null = null;
    if (input.birthdate !== undefined && input.birthdate !== null) {
      const b = parseBirthdate(input.birthdate, localDate(ctx.clock.now(), ctx.merchant.timezone));
      if ('error' in b) throw badRequest(b.error);
      birthdate = b.ok;
    }
    const ssn = input.social_security_number?.trim() || null;
    if (ssn !== null && !/^[0-9A-Za-z -]{4,32}$/.test(ssn)) throw badRequest('social_security_number must be 4 to 32 letters, digits, spaces or dashes');
    const ssnCompact = ssn?.replace(/[\s-]/g, '') ?? null;
    const now = ctx.clock.now();
    return {
      customer_id: customerId,
      merchant_id: ctx.merchant.id,
      first_name: input.first_name.trim(),
      last_name: input.last_name.trim(),
      cardholder_name: input.cardholder_name ?? null,
      document_identification_issuer_type: input.document_identification_issuer_type ?? null,
      document_identification_type: input.document_identification_type ?? null,
      document_identification_number: input.document_identification_number ?? null,
      email: input.email ?? null,
      phone: phone(input.phone, 'phone'),
      work_phone: phone(input.work_phone, 'work_phone'),
      home_phone: phone(input.home_phone, 'home_phone'),
      mobile_phone: phone(input.mobile_phone, 'mobile_phone'),
      birthdate,
      source_of_funds: input.source_of_funds ?? null,
      occupation: input.occupation ?? null,
      social_security_number_sealed: ssnCompact ? this.p.vault.seal(ssnCompact, `ssn:${customerId}`) : null,
      social_security_number_last4: ssnCompact ? ssnCompact.slice(-4) : null,
      created_at: now,
      updated_at: now,
    };
  }

  /** E10: creates the profile; 409 when the customer already has one (use E11). */
  async createProfile(ctx: RequestContext, input: ProfileInput) {
    return this.p.database.transaction(async (trx) => {
      const c = await this.#customer(trx, ctx, input.external_id);
      await repo.lockCustomer(trx, c.id);
      if (await repo.findProfile(trx, c.id)) throw conflict(`The customer ${c.external_id} already has a profile; update it with PUT /customer/profile`);
      const row = this.#profileFields(ctx, c.id, input);
      await repo.insertProfile(trx, row);
      return { customer: presentCustomer(c), customer_profile: presentProfile(row) };
    });
  }

  /** E11: replaces the profile with the body (fields left out become null); 404 without a profile. */
  async updateProfile(ctx: RequestContext, input: ProfileInput) {
    return this.p.database.transaction(async (trx) => {
      const c = await this.#customer(trx, ctx, input.external_id);
      await repo.lockCustomer(trx, c.id);
      const existing = await repo.findProfile(trx, c.id);
      if (!existing) throw notFound(`The customer ${c.external_id} has no profile; create it with POST /customer/profile`);
      const row = { ...this.#profileFields(ctx, c.id, input), created_at: existing.created_at };
      await repo.replaceProfile(trx, row);
      return { customer: presentCustomer(c), customer_profile: presentProfile(row) };
    });
  }

  async getProfile(ctx: RequestContext, externalId: string) {
    const db = this.p.database.db;
    const c = await this.#customer(db, ctx, externalId);
    const p = await repo.findProfile(db, c.id);
    if (!p) throw notFound(`The customer ${c.external_id} has no profile`);
    return presentProfile(p);
  }

  // ---- the dashboard's views --------------------------------------------------------------------------

  /**
   * The merchant's customers for its staff, in external id order, `limit` a page: those whose external
   * id, profile name or e-mail contains `q`. `cursor` is the previous page's `next_cursor`.
   */
  async search(ctx: RequestContext, opts: { q?: string; cursor?: string; limit: number }) {
    let after: string | undefined;
    if (opts.cursor !== undefined) {
      after = Buffer.from(opts.cursor, 'base64url').toString('utf8');
      if (after === '' || after.includes('\u0000') || Buffer.from(after, 'utf8').toString('base64url') !== opts.cursor) throw badRequest('cursor is not one this list gave');
    }
    if (opts.q?.includes('\u0000')) throw badRequest('q must not hold a NUL character');
    const rows = await repo.searchCustomers(this.p.database.db, ctx.merchant.id, { q: opts.q, after, limit: opts.limit + 1 });
    const page = rows.slice(0, opts.limit);
    const more = rows.length > opts.limit;
    return {
      customers: page.map((r) => ({
        external_id: r.external_id,
        name: r.first_name === null ? null : `${r.first_name} ${r.last_name ?? ''}`.trim(),
        email: r.email,
        created_at: r.created_at.toISOString(),
      })),
      next_cursor: more ? Buffer.from(page[page.length - 1]!.external_id, 'utf8').toString('base64url') : null,
    };
  }

  /** A customer with everything it holds but its sources: accounts (numbers as shown by E5), addresses, profile. */
  async detail(ctx: RequestContext, externalId: string) {
    const db = this.p.database.db;
    const c = await this.#customer(db, ctx, externalId);
    const [accounts, addresses, profile] = await Promise.all([repo.listAccounts(db, c.id), repo.listAddresses(db, c.id), repo.findProfile(db, c.id)]);
    return {
      external_id: c.external_id,
      created_at: c.created_at.toISOString(),
      accounts: accounts.map(presentAccount),
      addresses: addresses.map(presentAddress),
      profile: profile ? presentProfile(profile) : null,
    };
  }
}
