/** Use cases of services and terminals (D4–D6, and linking a terminal to a pending service). */
import { randomUUID } from 'node:crypto';
import type { Platform } from '../../platform/index.js';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import { badRequest, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import { currencyFrom } from '../../platform/money/currency.js';
import type { MerchantsService } from '../merchants/index.js';
import { declarationOfType } from '../../processors/connectors.js';
import { credentialProblems } from '../../processors/kit/declaration.js';
import { isRedsysFamily, maskCredentials, presentService, presentTerminal, validateCredentials, SERVICE_TYPES, type Credentials } from './services.domain.js';
import * as repo from './services.repo.js';
import { SandboxBehaviours } from './services.behaviour.js';

export interface NewService {
  name: string;
  type: string;
  dcc_mode?: 'LOCAL' | 'FOREIGN' | 'DYNAMIC' | null;
  is_dcc_allowed?: boolean | null;
  terminal_uuid?: string | null;
  mcc?: string | null;
  dynamic_descriptor?: string | null;
  referential_integrity?: string | null;
  /** Bizum on the payment pages (REDSYS family only). */
  bizum_enabled?: boolean | null;
}

export interface NewTerminal {
  currency_code: string | number;
  type: string;
  description: string;
  code?: string | number | null;
  acquirer?: string | null;
  dcc_allowed?: boolean | null;
  is_cof_disabled_by_default?: boolean | null;
  credentials?: unknown;
  /** Try the credentials against the processor before creating the terminal (production). */
  test_credentials?: boolean | null;
}

/** Tries a terminal's credentials against its processor; returns the problems found (empty: usable). */
export type CredentialTester = (type: string, code: string | null, credentials: Credentials, currency: string) => Promise<string[] | null>;

export class ServicesService {
  /** Set by the app: the processors' credential tests (a type without one: null). */
  credentialTester: CredentialTester | null = null;
  /** The sandbox services' behaviours in the simulator (services.behaviour.ts); the app gives its `lookup` to the processors. */
  readonly sandboxBehaviours: SandboxBehaviours;

  constructor(
    private readonly p: Platform,
    private readonly merchants: MerchantsService,
  ) {
    this.sandboxBehaviours = new SandboxBehaviours(p, merchants);
  }

  // ---- for a known owner (CLI, bootstrap) and for API callers ---------------------------------------

  /** `at`: the owner's time now (its sandbox clock); the platform clock when not given. */
  async createTerminalFor(trx: Executor, owner: { id: string; env: Env }, input: NewTerminal, at?: Date): Promise<repo.TerminalRow> {
    if (!(SERVICE_TYPES as readonly string[]).includes(input.type)) throw badRequest(`type must be one of ${SERVICE_TYPES.join(', ')}`);
    const currency = currencyFrom(input.currency_code);
    if (!currency) {
      throw badRequest(`currency_code "${input.currency_code}" is not an ISO 4217 currency (alpha-3 like EUR, or numeric like 978)`);
    }
    let code: string | null = null;
    if (input.code !== undefined && input.code !== null) {
      code = String(input.code);
      if (!/^[0-9]{1,12}$/.test(code)) throw badRequest('code must be a number of at most 12 digits');
    }
    const creds = validateCredentials(input.type, input.credentials);
    if ('error' in creds) throw badRequest(creds.error);
    // production terminals of a type with a connector are used by it: their code and credentials must be
    // what the provider issues (sandbox terminals run on the simulator and take any credentials)
    const connector = owner.env === 'production' ? declarationOfType(input.type) : null;
    if (connector) {
      const problems = credentialProblems(connector.credentials, code, creds.ok ?? {});
      if (problems.length > 0) throw badRequest(`The ${input.type} terminal is not usable with ${connector.label}: ${problems.join('; ')}`);
    }
    const id = randomUUID();
    const row: repo.TerminalRow = {
      id,
      merchant_id: owner.id,
      env: owner.env,
      type: input.type,
      code,
      currency_code: currency.code,
      dcc_allowed: input.dcc_allowed ?? false,
      is_cof_disabled_by_default: input.is_cof_disabled_by_default ?? false,
      description: input.description,
      acquirer: input.acquirer ?? null,
      credentials_sealed: creds.ok ? this.p.vault.seal(JSON.stringify(creds.ok), `terminal:${id}`) : null,
      credentials_masked: maskCredentials(creds.ok),
      created_at: at ?? this.p.clock.now(),
    };
    await repo.insertTerminal(trx, row);
    return row;
  }

  async createServiceFor(trx: Executor, owner: { id: string; env: Env }, input: NewService, at?: Date): Promise<repo.ServiceRow> {
    if (!(SERVICE_TYPES as readonly string[]).includes(input.type)) throw badRequest(`type must be one of ${SERVICE_TYPES.join(', ')}`);
    const redsys = isRedsysFamily(input.type);
    if (!redsys && (input.is_dcc_allowed || input.dcc_mode)) {
      throw badRequest('is_dcc_allowed and dcc_mode apply only to services of the REDSYS family');
    }
    if (!redsys && input.bizum_enabled) throw badRequest('bizum_enabled applies only to services of the REDSYS family');
    let terminalId: string | null = null;
    if (input.terminal_uuid) terminalId = (await this.#terminalForService(trx, owner, input.terminal_uuid, input.type)).id;
    const row: repo.ServiceRow = {
      id: randomUUID(),
      merchant_id: owner.id,
      env: owner.env,
      name: input.name,
      type: input.type,
      terminal_id: terminalId,
      enabled: terminalId !== null,
      dcc_allowed: redsys ? (input.is_dcc_allowed ?? false) : false,
      // DCC allowed without a mode: the cardholder chooses on the page (DYNAMIC; docs/dcc.md)
      dcc_mode: redsys ? (input.dcc_mode ?? (input.is_dcc_allowed ? 'DYNAMIC' : null)) : null,
      dynamic_descriptor: input.dynamic_descriptor ?? null,
      referential_integrity: input.referential_integrity ?? null,
      mcc: input.mcc ?? null,
      bizum_enabled: input.bizum_enabled ?? false,
      created_at: at ?? this.p.clock.now(),
    };
    await repo.insertService(trx, row);
    return row;
  }

  /** The terminal must belong to the service's owner (same environment) and be of the same type. */
  async #terminalForService(trx: Executor, owner: { id: string; env: Env }, terminalId: string, type: string) {
    const t = await repo.findTerminal(trx, terminalId);
    if (!t || t.merchant_id !== owner.id || t.env !== owner.env) throw notFound(`The terminal ${terminalId} was not found`);
    if (t.type !== type) throw badRequest(`The terminal is of type ${t.type}, the service of type ${type}`);
    return t;
  }

  // ---- API ----------------------------------------------------------------------------------------

  async createTerminal(ctx: RequestContext, input: NewTerminal & { parent_uuid?: string | null }) {
    // the credentials are tried before the terminal is written, outside any transaction
    if (input.test_credentials && ctx.env === 'production') {
      const creds = validateCredentials(input.type, input.credentials);
      if ('error' in creds) throw badRequest(creds.error);
      const currency = currencyFrom(input.currency_code);
      const problems = creds.ok && currency && this.credentialTester
        ? await this.credentialTester(input.type, input.code === undefined || input.code === null ? null : String(input.code), creds.ok, currency.code)
        : null;
      if (problems === null) throw badRequest(`test_credentials: terminals of type ${input.type} cannot be tested (no connector)`);
      if (problems.length > 0) throw badRequest(`The credentials were refused by the processor: ${problems.join('; ')}`);
    }
    return this.p.database.transaction(async (trx) => {
      const owner = await this.merchants.assertOwns(trx, ctx, input.parent_uuid ?? ctx.merchant.id);
      const row = await this.createTerminalFor(trx, owner, input, owner.id === ctx.merchant.id ? ctx.clock.now() : undefined);
      return presentTerminal(row, owner.name, ctx.timezone);
    });
  }

  async createService(ctx: RequestContext, input: NewService & { parent_uuid?: string | null }) {
    return this.p.database.transaction(async (trx) => {
      const owner = await this.merchants.assertOwns(trx, ctx, input.parent_uuid ?? ctx.merchant.id);
      const row = await this.createServiceFor(trx, owner, input, owner.id === ctx.merchant.id ? ctx.clock.now() : undefined);
      return presentService(row, ctx.timezone);
    });
  }

  async listServices(ctx: RequestContext, clientId: string) {
    const db = this.p.database.db;
    await this.merchants.assertOwns(db, ctx, clientId, 'merchant');
    const rows = await repo.listServices(db, clientId);
    return rows.map((s) => presentService(s, ctx.timezone));
  }

  /**
   * The terminals of the caller's merchant, for choosing one to link: credentials as the names of the
   * keys that are set, never their values.
   */
  async listTerminals(ctx: RequestContext) {
    const rows = await repo.listTerminals(this.p.database.db, ctx.merchant.id, ctx.env);
    return rows.map((t) => {
      const { credentials, ...rest } = presentTerminal(t, ctx.merchant.name, ctx.timezone);
      return { ...rest, credentials_set: Object.keys(credentials ?? {}) };
    });
  }

  async getService(ctx: RequestContext, serviceId: string) {
    const db = this.p.database.db;
    const s = await repo.findService(db, serviceId);
    if (!s) throw notFound(`The service ${serviceId} was not found`);
    await this.merchants.assertOwns(db, ctx, s.merchant_id, 'service').catch(() => {
      throw notFound(`The service ${serviceId} was not found`);
    });
    return presentService(s, ctx.timezone);
  }

  /** Links a terminal (which enables a pending service), renames, or enables/disables a service. */
  async updateService(
    ctx: RequestContext,
    serviceId: string,
    input: { terminal_uuid?: string | null; name?: string; enabled?: boolean; bizum_enabled?: boolean; is_dcc_allowed?: boolean | null; dcc_mode?: 'LOCAL' | 'FOREIGN' | 'DYNAMIC' | null },
  ) {
    return this.p.database.transaction(async (trx) => {
      const s = await repo.findService(trx, serviceId);
      if (!s) throw notFound(`The service ${serviceId} was not found`);
      const owner = await this.merchants.assertOwns(trx, ctx, s.merchant_id, 'service').catch(() => {
        throw notFound(`The service ${serviceId} was not found`);
      });
      const set: Partial<repo.ServiceRow> = {};
      if (input.name !== undefined) set.name = input.name;
      if (input.terminal_uuid !== undefined) {
        if (input.terminal_uuid === null) {
          set.terminal_id = null;
          set.enabled = false;
        } else {
          set.terminal_id = (await this.#terminalForService(trx, owner, input.terminal_uuid, s.type)).id;
          set.enabled = true;
        }
      }
      if (input.enabled !== undefined) {
        const terminal = set.terminal_id !== undefined ? set.terminal_id : s.terminal_id;
        if (input.enabled && !terminal) throw badRequest('A service without a terminal cannot be enabled');
        set.enabled = input.enabled;
      }
      if (input.bizum_enabled !== undefined) {
        if (input.bizum_enabled && !isRedsysFamily(s.type)) throw badRequest('bizum_enabled applies only to services of the REDSYS family');
        set.bizum_enabled = input.bizum_enabled;
      }
      if ((input.is_dcc_allowed !== undefined && input.is_dcc_allowed !== null) || (input.dcc_mode !== undefined && input.dcc_mode !== null)) {
        if (!isRedsysFamily(s.type)) throw badRequest('is_dcc_allowed and dcc_mode apply only to services of the REDSYS family');
        if (input.is_dcc_allowed !== undefined && input.is_dcc_allowed !== null) set.dcc_allowed = input.is_dcc_allowed;
        if (input.dcc_mode) set.dcc_mode = input.dcc_mode;
        else if (set.dcc_allowed && !s.dcc_mode) set.dcc_mode = 'DYNAMIC';
      }
      if (Object.keys(set).length > 0) await repo.updateService(trx, s.id, set);
      return presentService({ ...s, ...set }, ctx.timezone);
    });
  }

  readonly #processorTerminals = new Map<string, { at: number; value: { code: string | null; credentials: Credentials | null } | null }>();

  /**
   * The terminal a processor request goes through (by terminal, or by the service linked to it): its
   * code and opened credentials, for real connectors only. Kept for PAYGATE_CACHE_TTL_MS.
   */
  async processorTerminal(ref: { terminalId?: string | null; serviceId?: string | null }): Promise<{ code: string | null; credentials: Credentials | null } | null> {
    const key = ref.terminalId ? `t:${ref.terminalId}` : ref.serviceId ? `s:${ref.serviceId}` : null;
    if (!key) return null;
    const now = Date.now();
    const hit = this.#processorTerminals.get(key);
    if (hit && now - hit.at < this.p.config.cacheTtlMs) return hit.value;
    const db = this.p.database.db;
    let terminalId = ref.terminalId ?? null;
    if (!terminalId && ref.serviceId) terminalId = (await repo.findService(db, ref.serviceId))?.terminal_id ?? null;
    const t = terminalId ? await repo.findTerminal(db, terminalId) : undefined;
    const value = t ? { code: t.code, credentials: this.openCredentials(t) } : null;
    if (this.#processorTerminals.size > 10_000) this.#processorTerminals.clear();
    this.#processorTerminals.set(key, { at: now, value });
    return value;
  }

  /**
   * A terminal by its uuid with its credentials opened, for `paygate connector certify` (an operator's
   * command, never an API answer); null when there is none.
   */
  async certificationTerminal(id: string): Promise<{ id: string; type: string; env: Env; currency: string; code: string | null; credentials: Credentials | null } | null> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
    const t = await repo.findTerminal(this.p.database.db, id.toLowerCase());
    if (!t) return null;
    return { id: t.id, type: t.type, env: t.env, currency: currencyFrom(t.currency_code)?.code ?? String(t.currency_code), code: t.code, credentials: this.openCredentials(t) };
  }

  /** Terminal credentials in clear, for processors only. */
  openCredentials(t: repo.TerminalRow): Credentials | null {
    if (!t.credentials_sealed) return null;
    return JSON.parse(this.p.vault.open(t.credentials_sealed, `terminal:${t.id}`).reveal()) as Credentials;
  }
}
