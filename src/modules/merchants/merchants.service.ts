/**
 * Use cases of merchants (clients): create (D1), promote to production (D2), dashboard users (D3), API
 * keys, key resolution for the auth pipeline, and the sandbox test clock.
 */
import { randomUUID } from 'node:crypto';
import type { Platform } from '../../platform/index.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { isUniqueViolation } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import { badRequest, conflict, forbidden, notFound } from '../../platform/errors/errors.js';
import { hashKey } from '../../platform/http/auth.js';
import { requestContext } from '../../platform/http/context.js';
import { isProfile, type AuthKey, type Profile, type RequestContext } from '../../platform/http/types.js';
import { hashPassword, randomPassword, randomToken, sha256Hex } from '../../platform/security/hashing.js';
import type { Secret } from '../../platform/security/secret.js';
import {
  checkTimezone,
  credentialsEmail,
  normaliseProfiles,
  presentDashboardUser,
  presentMerchant,
  type MerchantCategory,
} from './merchants.domain.js';
import * as repo from './merchants.repo.js';
import { merchantClock } from '../../platform/time/clock.js';
import { TtlCache } from '../../platform/cache/ttl-cache.js';

export interface NewMerchant {
  name: string;
  email: string;
  timezone?: string;
  autorecover_transactions?: boolean;
  resend_failed_notifications?: boolean;
  is_pci?: boolean;
  category?: MerchantCategory | null;
  mcc?: string | null;
  address?: string | null;
  phone_number?: string | null;
  parent_id?: string | null;
}

export interface IssuedKey {
  keyId: string;
  apiKey: string;
  signature: string;
  profiles: Profile[];
}

/** Opened signing keys of notifications are kept this long (a change in any process drops them). */
const SIGNATURE_CACHE_MS = 60_000;

export class MerchantsService {
  /** Resolved keys by hash, so the hot path does not hit the database every request. */
  readonly #cache: TtlCache<AuthKey | null>;
  /** Keys by id for contextForKey, as fresh as the auth pipeline's (same time to live, same invalidation). */
  readonly #byId: TtlCache<AuthKey | null>;
  readonly #signatures = new TtlCache<Secret<string>>(SIGNATURE_CACHE_MS);

  constructor(private readonly p: Platform, opts: { keyCacheTtlMs?: number } = {}) {
    this.#cache = new TtlCache(opts.keyCacheTtlMs ?? p.config.cacheTtlMs);
    this.#byId = new TtlCache(opts.keyCacheTtlMs ?? p.config.cacheTtlMs);
    // a key revoked, a merchant or service changed in any process (NOTIFY): drop the cache at once
    p.invalidation?.onInvalidate(() => {
      this.#cache.clear();
      this.#byId.clear();
      this.#signatures.clear();
    });
  }

  // ---- keys ----------------------------------------------------------------------------------------

  /** Resolver for the auth pipeline (cached for a short time; changes in this process clear it). */
  resolveKey = async (keyHash: string): Promise<AuthKey | null> => {
    const cached = this.#cache.get(keyHash);
    if (cached !== undefined) return cached;
    const row = await repo.findActiveKeyByHash(this.p.database.db, keyHash);
    const key = row ? authKeyOf(row) : null;
    this.#cache.set(keyHash, key);
    return key;
  };

  /**
   * The caller context of a key, for work done later on the key's behalf (a recurring charge, a batch
   * line, a device operation): the same merchant, environment, clock and signature as a request made
   * with that key. A revoked key still acts for what it set up; a deleted merchant does not.
   */
  async contextForKey(keyId: string): Promise<RequestContext> {
    // cached like the keys of requests (a background worker charging 10,000 subscriptions of one key
    // reads it once): a change in any process drops it at once
    let key = this.#byId.get(keyId);
    if (!key) {
      const row = await repo.findKeyWithMerchant(this.p.database.db, keyId);
      if (!row) throw notFound(`The key ${keyId} was not found`);
      key = authKeyOf(row);
      this.#byId.set(keyId, key);
    }
    return requestContext(key, { timezone: this.p.config.timezone, clock: this.p.clock, vault: this.p.vault });
  }

  invalidateKeyCache(): void {
    this.#cache.clear();
    this.#byId.clear();
  }

  /** The key exists and is not revoked (a long-lived request, the event stream, checks it as it goes). */
  async keyActive(db: Executor, keyId: string): Promise<boolean> {
    const row = await repo.findKey(db, keyId);
    return !!row && row.revoked_at === null;
  }

  /**
   * The signature of a key in clear, for validation_hash and the signature header of notifications
   * (which are signed with the key that created the order). Null when the key is unknown.
   */
  async keySignature(db: Executor, keyId: string): Promise<Secret<string> | null> {
    const cached = this.#signatures.get(keyId);
    if (cached) return cached;
    const row = await repo.findKey(db, keyId);
    const signature = row ? this.p.vault.open(row.signature_sealed, `signature:${keyId}`) : null;
    if (signature) this.#signatures.set(keyId, signature);
    return signature;
  }

  /**
   * Issues a new API key and signature for a merchant (shown once; stored hashed and sealed). `at` is now
   * on the merchant's clock (default: the real clock, right for production and a clock never moved).
   */
  async issueKey(trx: Executor, merchantId: string, env: Env, profiles: Profile[], description?: string, at?: Date, opts: { internal?: boolean } = {}): Promise<IssuedKey> {
    if (profiles.length === 0) throw badRequest('at least one profile is needed');
    const keyId = randomUUID();
    const apiKey = randomToken(16);
    const signature = randomToken(16);
    const normalised = normaliseProfiles(profiles);
    await repo.insertApiKey(trx, {
      id: keyId,
      merchant_id: merchantId,
      env,
      key_hash: hashKey(apiKey),
      key_prefix: apiKey.slice(0, 6),
      signature_hash: sha256Hex(signature),
      signature_sealed: this.p.vault.seal(signature, `signature:${keyId}`),
      profiles: normalised,
      description: description ?? null,
      created_at: at ?? this.p.clock.now(),
      ...(opts.internal ? { internal: true } : {}),
    });
    return { keyId, apiKey, signature, profiles: normalised };
  }

  /** Revokes a key given its id or its value. Returns the key id. */
  async revokeKey(idOrKey: string): Promise<string> {
    const db = this.p.database.db;
    const row = /^[0-9a-f-]{36}$/i.test(idOrKey)
      ? await repo.findKey(db, idOrKey)
      : await repo.findKeyByHash(db, hashKey(idOrKey));
    if (!row) throw notFound('API key not found');
    // on the merchant's clock, as every timestamp of its records
    const owner = await repo.findMerchant(db, row.merchant_id);
    await repo.revokeKey(db, row.id, merchantClock(this.p.clock, Number(owner?.clock_offset_ms ?? 0)).now());
    this.invalidateKeyCache();
    // every cache of this process that depends on the key (devices acting for it, their sockets) drops it
    // before this answers; other processes hear the api_keys trigger
    this.p.invalidation?.invalidate(null);
    return row.id;
  }

  // ---- merchants -----------------------------------------------------------------------------------

  /**
   * Creates a merchant with an `all` key. Used by D1 and the CLI. A sandbox child made by D1 starts on its
   * parent's clock (`clock`: the parent's now and test-clock offset), so its records and the parent's
   * share one time line; otherwise the clock is the real one.
   */
  async createMerchant(trx: Tx, env: Env, input: NewMerchant, clock?: { now: Date; offsetMs: number }) {
    const tz = input.timezone ?? 'Europe/Madrid';
    const tzProblem = checkTimezone(tz);
    if (tzProblem) throw badRequest(tzProblem);
    const now = clock?.now ?? this.p.clock.now();
    const row: repo.MerchantRow = {
      id: randomUUID(),
      env,
      parent_id: input.parent_id ?? null,
      sandbox_twin_id: null,
      name: input.name,
      email: input.email,
      timezone: tz,
      autorecover_transactions: input.autorecover_transactions ?? false,
      resend_failed_notifications: input.resend_failed_notifications ?? false,
      is_pci: input.is_pci ?? false,
      is_deleted: false,
      category: input.category ?? null,
      mcc: input.mcc ?? null,
      address: input.address ?? null,
      phone_number: input.phone_number ?? null,
      clock_offset_ms: env === 'sandbox' ? (clock?.offsetMs ?? 0) : 0,
      created_at: now,
    };
    await repo.insertMerchant(trx, row);
    const key = await this.issueKey(trx, row.id, env, ['all'], 'created with the merchant', now);
    return { merchant: row, key };
  }

  /** D1: a partner creates a merchant under itself (or under one of its descendants). */
  async createChild(ctx: RequestContext, input: NewMerchant & { parent_uuid?: string | null }) {
    return this.p.database.transaction(async (trx) => {
      const parentId = input.parent_uuid ?? ctx.merchant.id;
      await this.assertOwns(trx, ctx, parentId, 'parent merchant');
      const { merchant, key } = await this.createMerchant(trx, ctx.env, { ...input, parent_id: parentId }, { now: ctx.clock.now(), offsetMs: ctx.clock.offsetMs });
      return presentMerchant(merchant, ctx.timezone, { apiKey: key.apiKey, signature: key.signature, services: null });
    });
  }

  /** D2: creates the production twin of a sandbox merchant with a new key and signature. */
  async promote(ctx: RequestContext, sandboxMerchantId: string) {
    return this.p.database.transaction(async (trx) => {
      const target = await repo.findMerchantForUpdate(trx, sandboxMerchantId);
      if (!target || target.is_deleted) throw notFound('Merchant not found');
      // The caller must own the sandbox merchant: directly in sandbox, or through its own twin.
      const callerSandboxId =
        ctx.env === 'sandbox' ? ctx.merchant.id : ((await repo.findMerchant(trx, ctx.merchant.id))?.sandbox_twin_id ?? null);
      if (!callerSandboxId || !(await repo.isSelfOrDescendant(trx, callerSandboxId, target.id))) {
        throw notFound('Merchant not found');
      }
      if (target.env !== 'sandbox') throw notFound('Merchant not found in sandbox');
      if (await repo.findProductionTwin(trx, target.id)) throw conflict('This merchant is already in production');
      const parentTwin = target.parent_id ? await repo.findProductionTwin(trx, target.parent_id) : undefined;
      const { merchant, key } = await this.createMerchant(trx, 'production', {
        name: target.name,
        email: target.email,
        timezone: target.timezone,
        autorecover_transactions: target.autorecover_transactions,
        resend_failed_notifications: target.resend_failed_notifications,
        is_pci: target.is_pci,
        category: target.category as MerchantCategory | null,
        mcc: target.mcc,
        address: target.address,
        phone_number: target.phone_number,
        parent_id: parentTwin?.id ?? null,
      });
      await trx.updateTable('merchants').set({ sandbox_twin_id: target.id }).where('id', '=', merchant.id).execute();
      return { uuid: merchant.id, api_key: key.apiKey, signature: key.signature };
    });
  }

  /** D3: a dashboard user; the password is returned once and, when asked, e-mailed via the outbox. */
  async createUser(
    ctx: RequestContext,
    input: {
      email: string;
      username: string;
      language: string;
      environment: 'SANDBOX' | 'PRODUCTION';
      send_email_with_credentials: boolean;
      group: string;
      parent_uuid?: string | null;
    },
    /** run in the user's transaction with the new user and its credentials e-mail (null: none sent) */
    onCreated?: (trx: Executor, created: { userId: string; mailId: string | null }) => Promise<void>,
  ) {
    const password = randomPassword(16);
    const passwordHash = await hashPassword(password);
    return this.p.database.transaction(async (trx) => {
      const ownerId = input.parent_uuid ?? ctx.merchant.id;
      await this.assertOwns(trx, ctx, ownerId, 'merchant');
      const owner = (await repo.findMerchant(trx, ownerId))!;
      // Link the user to both twins where they exist.
      let sandboxId: string | null = null;
      let productionId: string | null = null;
      if (owner.env === 'sandbox') {
        sandboxId = owner.id;
        productionId = (await repo.findProductionTwin(trx, owner.id))?.id ?? null;
      } else {
        productionId = owner.id;
        sandboxId = owner.sandbox_twin_id;
      }
      if (input.environment === 'PRODUCTION' && !productionId) {
        throw badRequest('environment is PRODUCTION but the merchant has not been promoted to production');
      }
      if (input.environment === 'SANDBOX' && !sandboxId) {
        throw badRequest('environment is SANDBOX but the merchant has no sandbox twin');
      }
      const row: repo.DashboardUserRow = {
        id: randomUUID(),
        merchant_id: owner.id,
        client_sandbox_id: sandboxId,
        client_production_id: productionId,
        username: input.username,
        email: input.email,
        language: input.language,
        user_group: input.group,
        status: 'ACTIVE',
        password_hash: passwordHash,
        // on the clock of the merchant the user belongs to
        created_at: merchantClock(this.p.clock, Number(owner.clock_offset_ms)).now(),
      };
      try {
        await repo.insertDashboardUser(trx, row);
      } catch (err) {
        if (isUniqueViolation(err)) throw conflict(`The username "${input.username}" is already taken`);
        throw err;
      }
      let mailId: string | null = null;
      if (input.send_email_with_credentials) {
        const mail = credentialsEmail(row, password, `${this.p.config.publicUrl}/dashboard`);
        mailId = await this.p.mailer.queue(trx, { merchantId: owner.id, to: row.email, subject: mail.subject, text: mail.body });
      }
      if (onCreated) await onCreated(trx, { userId: row.id, mailId });
      return { user: presentDashboardUser(row, ctx.timezone), password, email: row.email };
    });
  }

  // ---- ownership -----------------------------------------------------------------------------------

  /**
   * Throws 404 unless `merchantId` is the caller or one of its descendants in the caller's environment.
   * Another merchant's resources are indistinguishable from missing ones.
   */
  async assertOwns(db: Executor, ctx: RequestContext, merchantId: string, what = 'merchant'): Promise<repo.MerchantRow> {
    const m = await repo.findMerchant(db, merchantId);
    if (!m || m.env !== ctx.env || !(await repo.isSelfOrDescendant(db, ctx.merchant.id, merchantId))) {
      throw notFound(`The ${what} ${merchantId} was not found`);
    }
    return m;
  }

  async findMerchant(db: Executor, id: string) {
    return repo.findMerchant(db, id);
  }

  async selfAndDescendantIds(db: Executor, rootId: string) {
    return repo.selfAndDescendantIds(db, rootId);
  }

  // ---- the dashboard ---------------------------------------------------------------------------------

  /**
   * The merchant's own settings the dashboard shows (what D1 set: notification retries, automatic
   * recovery, timezone) and its descendants in this environment, each with whether its sandbox merchant
   * has been promoted to production (D2).
   */
  async dashboardSettings(ctx: RequestContext) {
    const db = this.p.database.db;
    const self = await repo.findMerchant(db, ctx.merchant.id);
    if (!self) throw notFound('Merchant not found');
    const ids = (await repo.selfAndDescendantIds(db, ctx.merchant.id)).filter((id) => id !== ctx.merchant.id);
    const children = [];
    for (const id of ids) {
      const m = await repo.findMerchant(db, id);
      if (!m || m.env !== ctx.env) continue;
      const inProduction = m.env === 'sandbox' ? !!(await repo.findProductionTwin(db, m.id)) : true;
      children.push({ uuid: m.id, name: m.name, email: m.email, parent_uuid: m.parent_id, timezone: m.timezone, created_at: m.created_at.toISOString(), in_production: inProduction });
    }
    return {
      merchant: { uuid: self.id, name: self.name, timezone: self.timezone, resend_failed_notifications: self.resend_failed_notifications, autorecover_transactions: self.autorecover_transactions },
      children,
    };
  }


  /**
   * The caller context the dashboard acts with for a merchant: the merchant's internal key (issued on the
   * first use, its value thrown away), so a refund from the dashboard runs exactly as the API's does.
   */
  async dashboardContext(merchantId: string): Promise<RequestContext> {
    const db = this.p.database.db;
    let key = await repo.findInternalKey(db, merchantId);
    if (!key) {
      const m = await repo.findMerchant(db, merchantId);
      if (!m) throw notFound(`The merchant ${merchantId} was not found`);
      try {
        await this.p.database.transaction((trx) =>
          this.issueKey(trx, m.id, m.env, ['all'], 'dashboard', merchantClock(this.p.clock, Number(m.clock_offset_ms)).now(), { internal: true }),
        );
      } catch (err) {
        // issued meanwhile by another request (one internal key per merchant): use that one
        if (!isUniqueViolation(err)) throw err;
      }
      key = await repo.findInternalKey(db, merchantId);
      if (!key) throw notFound(`The merchant ${merchantId} was not found`);
    }
    return this.contextForKey(key.id);
  }

  async dashboardUser(db: Executor, id: string) {
    return repo.findDashboardUser(db, id);
  }

  /**
   * The group of dashboard user `userId` when the user may still act for `merchantId`: the user exists and
   * is ACTIVE, and the merchant is the user's own in that merchant's environment (its twin) or one of its
   * descendants, neither of them deleted. Null otherwise (an unknown user or merchant too).
   */
  async dashboardUserActiveFor(userId: string, merchantId: string): Promise<{ group: string } | null> {
    const db = this.p.database.db;
    const user = await repo.findDashboardUser(db, userId);
    if (!user || user.status !== 'ACTIVE') return null;
    const merchant = await repo.findMerchant(db, merchantId);
    if (!merchant) return null;
    const own = merchant.env === 'sandbox' ? user.client_sandbox_id : user.client_production_id;
    if (!own || !(await repo.findMerchant(db, own))) return null;
    return (await repo.isSelfOrDescendant(db, own, merchant.id)) ? { group: user.user_group } : null;
  }

  /** The user a sign-in names: by username, else by e-mail when exactly one user has it. */
  async dashboardUserForSignIn(login: string) {
    const db = this.p.database.db;
    const byName = await repo.findDashboardUserByUsername(db, login);
    if (byName) return byName;
    if (!login.includes('@')) return undefined;
    const byEmail = await repo.findDashboardUsersByEmail(db, login);
    return byEmail.length === 1 ? byEmail[0] : undefined;
  }

  async updateDashboardUser(db: Executor, id: string, set: Parameters<typeof repo.updateDashboardUser>[2]) {
    await repo.updateDashboardUser(db, id, set);
  }

  /** Users of a merchant (either twin) and its children. */
  async listDashboardUsers(db: Executor, merchantIds: string[]) {
    return repo.listDashboardUsers(db, merchantIds);
  }

  /** The merchant's API keys, without the dashboard's own; never their values. */
  async listKeys(db: Executor, merchantId: string) {
    return repo.listKeys(db, merchantId);
  }

  // ---- sandbox test clock --------------------------------------------------------------------------

  /** Moves a sandbox merchant's clock forward by `seconds`; due jobs of that merchant move with it. */
  async advanceClock(ctx: RequestContext, seconds: number): Promise<{ offsetMs: number; now: Date }> {
    if (ctx.env !== 'sandbox') throw forbidden('The test clock exists only in sandbox');
    const ms = Math.round(seconds * 1000);
    const offsetMs = await this.p.database.transaction(async (trx) => {
      const m = await repo.findMerchantForUpdate(trx, ctx.merchant.id);
      if (!m) throw notFound('Merchant not found');
      const next = Number(m.clock_offset_ms) + ms;
      await repo.setClockOffset(trx, m.id, next);
      await this.p.jobs.shiftMerchantJobs(trx, m.id, ms);
      return next;
    });
    this.invalidateKeyCache();
    return { offsetMs, now: merchantClock(this.p.clock, offsetMs).now() };
  }

  /**
   * Sets a sandbox merchant's clock back to real time. Pending jobs keep their place on the merchant's
   * time line (a job due in one sandbox hour is still due in one hour); records written while the clock
   * ran ahead keep their times.
   */
  async resetClock(ctx: RequestContext): Promise<{ offsetMs: number; now: Date }> {
    if (ctx.env !== 'sandbox') throw forbidden('The test clock exists only in sandbox');
    await this.p.database.transaction(async (trx) => {
      const m = await repo.findMerchantForUpdate(trx, ctx.merchant.id);
      if (!m) throw notFound('Merchant not found');
      const was = Number(m.clock_offset_ms);
      if (was === 0) return;
      await repo.setClockOffset(trx, m.id, 0);
      await this.p.jobs.shiftMerchantJobs(trx, m.id, -was);
    });
    this.invalidateKeyCache();
    return { offsetMs: 0, now: this.p.clock.now() };
  }
}

export function parseProfiles(list: string): Profile[] {
  const out: Profile[] = [];
  for (const p of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    if (!isProfile(p)) throw badRequest(`unknown profile "${p}"`);
    out.push(p);
  }
  return out;
}

function authKeyOf(row: repo.KeyWithMerchant): AuthKey {
  return {
    keyId: row.key_id,
    env: row.key_env,
    profiles: row.profiles.filter(isProfile),
    signatureHash: row.signature_hash,
    signatureSealed: row.signature_sealed,
    merchant: {
      id: row.merchant_id,
      env: row.merchant_env,
      name: row.name,
      timezone: row.timezone,
      parentId: row.parent_id,
      isPci: row.is_pci,
      clockOffsetMs: Number(row.clock_offset_ms),
    },
  };
}
