/**
 * Per-service behaviour of the sandbox simulator (docs/payments.md, "Per-service behaviour"): a sandbox
 * service's approval rates by BIN range, soft decline, outage and added latency, kept in
 * `service_sandbox_behaviours` (migration 1145). The API sets, reads and resets it (sandbox keys only);
 * the simulator reads it through `lookup`, which the app injects into the processor registry.
 *
 * `lookup` answers from a cache kept PAYGATE_CACHE_TTL_MS (a miss reads the table once; a service
 * without a behaviour is cached too), dropped on a write in this process and, through the table's
 * invalidation trigger, in every other process.
 */
import type { Platform } from '../../platform/index.js';
import { TtlCache } from '../../platform/cache/ttl-cache.js';
import { badRequest, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import { formatContractDate } from '../../platform/time/format.js';
import type { MerchantsService } from '../merchants/index.js';
import { DEFAULT_BEHAVIOUR, parseBehaviour, type BehaviourInput, type BehaviourLookup, type SandboxBehaviour } from '../../processors/sandbox-behaviour.js';
import * as repo from './services.repo.js';

export class SandboxBehaviours {
  readonly #cache: TtlCache<SandboxBehaviour | null>;

  constructor(
    private readonly p: Platform,
    private readonly merchants: MerchantsService,
  ) {
    this.#cache = new TtlCache(p.config.cacheTtlMs);
    p.invalidation?.onInvalidate((table) => {
      if (table === null || table.endsWith('.service_sandbox_behaviours')) this.#cache.clear();
    });
  }

  /** The behaviour of a service for the simulator (null: none, the test cards). Never in a transaction. */
  readonly lookup: BehaviourLookup = async (serviceId) => {
    const hit = this.#cache.get(serviceId);
    if (hit !== undefined) return hit;
    const row = await repo.findSandboxBehaviour(this.p.database.db, serviceId);
    return this.#cache.set(serviceId, row ? behaviourOf(row) : null);
  };

  async get(ctx: RequestContext, serviceId: string) {
    const db = this.p.database.db;
    await this.#ownService(ctx, serviceId);
    return present(serviceId, await repo.findSandboxBehaviour(db, serviceId), ctx.timezone);
  }

  /** Replaces the service's behaviour (fields not given take their defaults). */
  async put(ctx: RequestContext, serviceId: string, input: BehaviourInput) {
    const parsed = parseBehaviour(input);
    if ('error' in parsed) throw badRequest(parsed.error);
    const at = ctx.clock.now();
    await this.p.database.transaction(async (trx) => {
      await this.#ownService(ctx, serviceId, trx);
      await repo.putSandboxBehaviour(trx, serviceId, parsed.ok, at);
    });
    this.#cache.delete(serviceId);
    return present(serviceId, { ...parsed.ok, service_id: serviceId, updated_at: at }, ctx.timezone);
  }

  /** Back to the test cards: the default behaviour. */
  async reset(ctx: RequestContext, serviceId: string) {
    await this.p.database.transaction(async (trx) => {
      await this.#ownService(ctx, serviceId, trx);
      await repo.deleteSandboxBehaviour(trx, serviceId);
    });
    this.#cache.delete(serviceId);
    return present(serviceId, undefined, ctx.timezone);
  }

  // ---- for the operator (`paygate sandbox behaviour`): a sandbox service by its uuid -------------------

  /** The behaviour of a sandbox service; `input`: replace it first, null: reset it first. */
  async operate(serviceId: string, input?: BehaviourInput | null) {
    const parsed = input ? parseBehaviour(input) : null;
    if (parsed && 'error' in parsed) throw badRequest(parsed.error);
    const db = this.p.database.db;
    const s = /^[0-9a-f-]{36}$/i.test(serviceId) ? await repo.findService(db, serviceId.toLowerCase()) : undefined;
    if (!s) throw notFound(`service ${serviceId} not found`);
    if (s.env !== 'sandbox') throw badRequest(`service ${s.id} is a production service: behaviours exist only in sandbox`);
    if (parsed) await repo.putSandboxBehaviour(db, s.id, parsed.ok, this.p.clock.now());
    else if (input === null) await repo.deleteSandboxBehaviour(db, s.id);
    this.#cache.delete(s.id);
    return present(s.id, await repo.findSandboxBehaviour(db, s.id), 'UTC');
  }

  /** A sandbox service of the caller (or of a descendant); production keys and anyone else's services: 404. */
  async #ownService(ctx: RequestContext, serviceId: string, db = this.p.database.db) {
    if (ctx.env !== 'sandbox') throw notFound('Sandbox behaviour exists only in sandbox (/v1/sandbox/service/{service_uuid}/sandbox-behaviour)');
    const s = await repo.findService(db, serviceId);
    if (!s) throw notFound(`The service ${serviceId} was not found`);
    await this.merchants.assertOwns(db, ctx, s.merchant_id, 'service').catch(() => {
      throw notFound(`The service ${serviceId} was not found`);
    });
    return s;
  }
}

function behaviourOf(row: repo.SandboxBehaviourRow): SandboxBehaviour {
  return { approval: row.approval, soft_decline: row.soft_decline, outage: row.outage, latency_ms: row.latency_ms };
}

function present(serviceId: string, row: repo.SandboxBehaviourRow | undefined, timezone: string) {
  const b = row ? behaviourOf(row) : DEFAULT_BEHAVIOUR;
  return {
    service_uuid: serviceId,
    approval: b.approval.map((r) => ({ ...r })),
    soft_decline: b.soft_decline,
    outage: b.outage,
    latency_ms: b.latency_ms,
    updated: row ? formatContractDate(row.updated_at, timezone) : null,
  };
}
