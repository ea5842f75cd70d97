/** The developers page: the merchant's API keys, its url_post deliveries and the API request log. */
import { badRequest, notFound } from '../../platform/errors/errors.js';
import { isProfile, type Profile } from '../../platform/http/types.js';
import type { DashboardCore, DashSession } from './dashboard.core.js';
import type { RequestLogStore } from './dashboard.request-log.js';
import * as repo from './dashboard.repo.js';

export class DashboardDevelopers {
  constructor(private readonly c: DashboardCore, private readonly requestLog: RequestLogStore) {}

  private get p() {
    return this.c.p;
  }

  private get deps() {
    return this.c.deps;
  }

  get #db() {
    return this.c.db;
  }

  async keys(s: DashSession) {
    const keys = await this.deps.merchants.listKeys(this.#db, s.merchantId);
    await this.requestLog.flush();
    const used = await repo.lastUse(this.#db, keys.map((k) => k.id));
    return keys.map((k) => ({
      uuid: k.id,
      prefix: k.key_prefix,
      profiles: k.profiles,
      description: k.description,
      created_at: k.created_at.toISOString(),
      revoked_at: k.revoked_at ? k.revoked_at.toISOString() : null,
      last_used_at: used.get(k.id)?.toISOString() ?? null,
    }));
  }

  /** A new API key and signature for the merchant looked at: shown once, stored hashed and sealed. */
  async createKey(s: DashSession, input: { profiles: string[]; description?: string | null }) {
    const profiles: Profile[] = [];
    for (const p of input.profiles) {
      if (!isProfile(p)) throw badRequest(`unknown profile "${p}"`);
      profiles.push(p);
    }
    const ctx = await this.c.ctx(s);
    const issued = await this.p.database.transaction((trx) => this.deps.merchants.issueKey(trx, s.merchantId, s.env, profiles, input.description ?? undefined, ctx.clock.now()));
    await this.c.writeAudit(s.user, s.merchantId, 'key.create', issued.keyId, { profiles: issued.profiles }, s.ip);
    return { uuid: issued.keyId, api_key: issued.apiKey, signature: issued.signature, profiles: issued.profiles };
  }

  async revokeKey(s: DashSession, keyId: string) {
    const keys = await this.deps.merchants.listKeys(this.#db, s.merchantId);
    const key = keys.find((k) => k.id === keyId.toLowerCase());
    if (!key) throw notFound(`The API key ${keyId} was not found`);
    if (key.revoked_at) throw badRequest('This API key is already revoked');
    await this.deps.merchants.revokeKey(key.id);
    await this.c.writeAudit(s.user, s.merchantId, 'key.revoke', key.id, { prefix: key.key_prefix }, s.ip);
  }

  async deliveries(s: DashSession, q: { status?: string; limit?: number; offset?: number; order_uuid?: string }) {
    const ctx = await this.c.ctx(s);
    return this.deps.events.list(ctx, q);
  }

  async requests(s: DashSession, q: repo.RequestLogQuery) {
    await this.requestLog.flush();
    return repo.listRequestLogs(this.#db, s.merchantId, q);
  }

  async request(s: DashSession, id: string) {
    await this.requestLog.flush();
    const r = await repo.findRequestLog(this.#db, s.merchantId, id);
    if (!r) throw notFound(`The request ${id} was not found`);
    return r;
  }
}
