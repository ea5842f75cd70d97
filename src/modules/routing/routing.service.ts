/**
 * Routing and cascading (docs/routing.md): the merchants' routing profiles (API), the decision for a
 * payment, the retry table, the services' health and circuit breakers, and the BIN facts. The payments
 * module calls it through index.ts (`activeProfileFor`, `decide`, `cascadeAllowed`, `record`, `isOpen`,
 * `binFacts`); none of those costs a database round trip once the caches are warm.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, notFound, registerConflictConstraint, unprocessable } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import { TtlCache } from '../../platform/cache/ttl-cache.js';
import type { Executor } from '../../platform/db/database.js';
import { streamCsv, type LineError } from '../../platform/csv/csv.js';
import { findServiceWithTerminal, listServices } from '../services/index.js';
import type { EventsService } from '../events/index.js';
import {
  DEFAULT_MAX_ATTEMPTS, compileProfile, normalizeRules, profileProblems, problemsSentence,
  type CompiledProfile, type FieldProblem, type Profile, type ProfileInput, type ProfileStatus,
} from './routing.domain.js';
import { decide, type DecideOptions, type Decision } from './routing.decide.js';
import { cascadeAllowed, type CascadeVerdict, type FailedAttempt } from './routing.retry.js';
import { DEFAULT_HEALTH, HealthTracker, type HealthSettings, type HealthSnapshot } from './routing.health.js';
import type { AttemptOutcome, BreakerEvent } from './routing.breaker.js';
import { BIN_CSV_OPTIONAL, BIN_CSV_REQUIRED, BIN_MAX_ROWS, BinIndex, factsOf, overlaps, parseBinRow, sandboxBinFacts, type BinFacts, type BinInfo, type BinRow } from './routing.bins.js';
import { registerRoutingMetrics } from './routing.metrics.js';
import { testPayment, type TestPaymentInput } from './routing.test-payment.js';
import { RoutingEconomics } from './routing.economics.js';
import * as repo from './routing.repo.js';

registerConflictConstraint('routing_profiles_active', 'The service already has an ACTIVE routing profile: make this one a DRAFT, or the other one a DRAFT first');

export const ROUTING_CIRCUIT_OPENED = 'ROUTING_CIRCUIT_OPENED';
/** How long the BIN table is kept in memory (a change through any process drops it at once). */
const BIN_CACHE_MS = 10 * 60_000;
/** The largest BIN file `import-bins` reads. */
export const BIN_MAX_BYTES = 100 * 1024 * 1024;

export interface RoutingOptions {
  /** the BIN facts' source (default: the operator's table, then the sandbox test cards) */
  binInfo?: BinInfo;
  /** the breakers' and figures' settings */
  health?: HealthSettings;
}

const own = (ctx: RequestContext): repo.Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });

/** A stored row as `decide` takes it. */
export function profileOf(r: repo.ProfileRow): Profile {
  return { id: r.id, service_uuid: r.service_id, name: r.name, status: r.status, max_attempts: r.max_attempts, version: r.version, rules: r.rules };
}

export function presentProfile(r: repo.ProfileRow) {
  return {
    uuid: r.id,
    service_uuid: r.service_id,
    name: r.name,
    status: r.status,
    max_attempts: r.max_attempts,
    version: r.version,
    rules: r.rules,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

export class RoutingService {
  /** This process's health of every service tried, with their circuit breakers. */
  readonly health: HealthTracker;
  /** The fee models and the replay of profiles over the history (routing.economics.ts). */
  readonly economics: RoutingEconomics;
  /** Compiled ACTIVE profiles by `merchant:service` (null: the service has none). */
  readonly #profiles: TtlCache<CompiledProfile | null>;
  readonly #bins: TtlCache<BinIndex>;
  readonly #binInfo: BinInfo;
  /** Events being written (a breaker that opened): `settled()` waits for them. */
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly p: Platform,
    private readonly deps: { events: EventsService },
    opts: RoutingOptions = {},
  ) {
    this.#profiles = new TtlCache(Math.max(p.config.cacheTtlMs, 0));
    this.#bins = new TtlCache(BIN_CACHE_MS);
    this.#binInfo = opts.binInfo ?? { lookup: (bin, db) => this.#tableLookup(bin, db ?? this.p.database.db) };
    this.health = new HealthTracker(() => p.clock.now().getTime(), opts.health ?? DEFAULT_HEALTH, (service, event, snap) => this.#breakerMoved(service, event, snap));
    p.invalidation?.onInvalidate((table) => {
      if (table === null || table.endsWith('.routing_profiles') || table.endsWith('.services')) this.#profiles.clear();
      if (table === null || table.endsWith('.routing_bins')) this.#bins.clear();
    });
    registerRoutingMetrics(p.metrics.registry, this.health);
    this.economics = new RoutingEconomics(p, this);
  }

  // ---- what the payments module calls ------------------------------------------------------------------------

  /**
   * The compiled ACTIVE profile of a merchant's entry service, or null (cached; dropped on any write).
   * `db`: the caller's transaction, when it holds one (a payment's first step), else the pool.
   */
  async activeProfileFor(merchantId: string, serviceUuid: string, db: Executor = this.p.database.db): Promise<CompiledProfile | null> {
    const key = `${merchantId}:${serviceUuid.toLowerCase()}`;
    const cached = this.#profiles.get(key);
    if (cached !== undefined) return cached;
    const row = await repo.activeProfile(db, merchantId, serviceUuid.toLowerCase());
    return this.#profiles.set(key, row ? compileProfile(profileOf(row)) : null);
  }

  /** The services to try, in order (routing.decide.ts); open circuits of this process are skipped unless `options.isOpen` says otherwise. */
  decide(profile: CompiledProfile | null, facts: Parameters<typeof decide>[1], options: DecideOptions = {}): Decision {
    return decide(profile, facts, { isOpen: (s) => this.health.isOpen(s), ...options });
  }

  /** Whether the next service may be tried after a failed attempt (routing.retry.ts). */
  cascadeAllowed(attempt: FailedAttempt): CascadeVerdict {
    return cascadeAllowed(attempt);
  }

  /** Records an attempt at a service: its outcome and the processor's time in ms. */
  record(serviceUuid: string, outcome: AttemptOutcome, ms: number): void {
    this.health.record(serviceUuid, outcome, ms);
  }

  /** Whether the service's circuit is open in this process now. */
  isOpen(serviceUuid: string): boolean {
    return this.health.isOpen(serviceUuid);
  }

  /** The issuer country, card type and brand of a BIN (6 to 8 digits), or null when unknown. */
  binFacts(bin: string, db?: Executor): Promise<BinFacts | null> {
    return this.#binInfo.lookup(bin, db);
  }

  /** Resolves when the events of breakers that moved are written (tests; a shutdown). */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  async #binIndex(db: Executor): Promise<BinIndex> {
    const cached = this.#bins.get('all');
    if (cached) return cached;
    return this.#bins.set('all', new BinIndex(await repo.allBins(db)));
  }

  async #tableLookup(bin: string, db: Executor): Promise<BinFacts | null> {
    const row = (await this.#binIndex(db)).find(bin);
    return row ? factsOf(bin, row) : sandboxBinFacts(bin);
  }

  /** A breaker that opened: a ROUTING_CIRCUIT_OPENED event for the service's merchant (event log and stream). */
  #breakerMoved(service: string, event: BreakerEvent, snap: HealthSnapshot): void {
    const log = this.p.logger.child({ module: 'routing', service });
    if (event === 'TRIP' || event === 'PROBE_FAILED') log.warn({ event, window_bad_rate: snap.window_bad_rate }, 'routing: circuit opened');
    else log.info({ event }, `routing: circuit ${event === 'COOL_DOWN' ? 'half-open' : 'closed'}`);
    if (event !== 'TRIP' && event !== 'PROBE_FAILED') return;
    const job = this.#emitOpened(service, snap).catch((err) => log.error({ err }, 'routing: the circuit event could not be written'));
    this.#pending.add(job);
    void job.finally(() => this.#pending.delete(job));
  }

  async #emitOpened(service: string, snap: HealthSnapshot): Promise<void> {
    const db = this.p.database.db;
    const s = await findServiceWithTerminal(db, service);
    if (!s) return;
    const owner = { merchantId: s.merchant_id, env: s.env };
    // signed with the key that last wrote a routing profile: a merchant without one gets no event
    const keyId = await repo.latestKeyOf(db, owner);
    if (!keyId) return;
    const at = new Date(this.p.clock.now().getTime());
    await this.p.database.transaction((trx) =>
      this.deps.events.enqueueNotification(trx, {
        merchantId: owner.merchantId,
        env: owner.env,
        orderId: null,
        type: ROUTING_CIRCUIT_OPENED,
        keyId,
        url: null,
        payload: JSON.stringify({ routing_health: { ...snap, service_name: s.name } }),
        retries: false,
        at,
      }),
    );
  }

  // ---- the API ---------------------------------------------------------------------------------------------

  /** The problems of a profile's content, the services it names checked as the caller's own. */
  async #check(db: Executor, ctx: RequestContext, input: ProfileInput): Promise<void> {
    const { problems, services } = profileProblems(input);
    const named = [{ uuid: input.service_uuid.toLowerCase(), field: 'service_uuid' }, ...services];
    const seen = new Map<string, boolean>();
    for (const n of named) {
      if (problems.some((x) => x.field === n.field)) continue;
      let mine = seen.get(n.uuid);
      if (mine === undefined) {
        const s = await findServiceWithTerminal(db, n.uuid);
        mine = !!s && s.merchant_id === ctx.merchant.id && s.env === ctx.env;
        seen.set(n.uuid, mine);
      }
      if (!mine) problems.push({ field: n.field, problem: `names ${n.uuid}, which is not a service of yours in ${ctx.env}` });
    }
    if (problems.length > 0) throw invalid(problems);
  }

  /** Checks a profile's content (the replay's draft rules): 400 naming every problem's field. */
  checkContent(db: Executor, ctx: RequestContext, input: ProfileInput): Promise<void> {
    return this.#check(db, ctx, input);
  }

  async create(ctx: RequestContext, input: ProfileInput) {
    const now = ctx.clock.now();
    const row: repo.NewProfileRow = {
      id: randomUUID(),
      merchant_id: ctx.merchant.id,
      env: ctx.env,
      service_id: input.service_uuid.toLowerCase(),
      name: input.name.trim(),
      status: input.status ?? 'DRAFT',
      max_attempts: input.max_attempts ?? DEFAULT_MAX_ATTEMPTS,
      rules: normalizeRules(input.rules ?? []),
      version: 1,
      key_id: ctx.keyId,
      created_at: now,
      updated_at: now,
    };
    await this.p.database.transaction(async (trx) => {
      await this.#check(trx, ctx, input);
      await repo.insertProfile(trx, row);
    });
    this.#profiles.clear();
    return this.get(ctx, row.id);
  }

  async get(ctx: RequestContext, id: string) {
    const r = await repo.findProfile(this.p.database.db, own(ctx), id.toLowerCase());
    if (!r) throw notFound(`The routing profile ${id} was not found`);
    return { routing_profile: presentProfile(r) };
  }

  async list(ctx: RequestContext, q: { service_uuid?: string | null; status?: ProfileStatus | null }) {
    const rows = await repo.listProfiles(this.p.reads.db, own(ctx), { serviceId: q.service_uuid?.toLowerCase() ?? null, status: q.status ?? null });
    return { routing_profiles: rows.map(presentProfile) };
  }

  /** PUT: the whole content replaced, the version bumped. */
  async replace(ctx: RequestContext, id: string, input: ProfileInput) {
    await this.p.database.transaction(async (trx) => {
      const r = await repo.findProfile(trx, own(ctx), id.toLowerCase(), true);
      if (!r) throw notFound(`The routing profile ${id} was not found`);
      await this.#check(trx, ctx, input);
      await repo.updateProfile(trx, r.id, {
        service_id: input.service_uuid.toLowerCase(),
        name: input.name.trim(),
        status: input.status ?? r.status,
        max_attempts: input.max_attempts ?? DEFAULT_MAX_ATTEMPTS,
        rules: normalizeRules(input.rules ?? []),
        version: r.version + 1,
        key_id: ctx.keyId,
        updated_at: ctx.clock.now(),
      });
    });
    this.#profiles.clear();
    return this.get(ctx, id);
  }

  async remove(ctx: RequestContext, id: string) {
    const out = await this.p.database.transaction(async (trx) => {
      const r = await repo.findProfile(trx, own(ctx), id.toLowerCase(), true);
      if (!r) throw notFound(`The routing profile ${id} was not found`);
      await repo.deleteProfile(trx, r.id);
      return presentProfile(r);
    });
    this.#profiles.clear();
    return { routing_profile: out };
  }

  /** POST /routing-profiles/{uuid}/test: the decision for a hypothetical payment (ACTIVE or DRAFT profile). */
  async test(ctx: RequestContext, id: string, input: TestPaymentInput) {
    const r = await repo.findProfile(this.p.database.db, own(ctx), id.toLowerCase());
    if (!r) throw notFound(`The routing profile ${id} was not found`);
    return testPayment(r, compileProfile(profileOf(r)), input, { binFacts: (bin) => this.binFacts(bin), decide: (p, f) => this.decide(p, f) });
  }

  /** GET /routing/health: this process's figures of each of the caller's services. */
  async healthOf(ctx: RequestContext) {
    const services = (await listServices(this.p.database.db, ctx.merchant.id)).filter((s) => s.env === ctx.env);
    return {
      routing_health: services.map((s) => {
        this.health.state(s.id);
        return { ...this.health.snapshot(s.id), service_name: s.name };
      }),
    };
  }

  // ---- the BIN table ---------------------------------------------------------------------------------------

  /**
   * Replaces the BIN table with a CSV file's ranges (docs/routing.md "BIN facts"): every line checked,
   * no two ranges overlapping; all or nothing (422 with every line's problems).
   */
  async importBins(source: AsyncIterable<Uint8Array> | Uint8Array, field = 'file'): Promise<{ ranges: number }> {
    const rows: Array<{ line: number; row: BinRow }> = [];
    const errors: LineError[] = [];
    for await (const r of streamCsv(field, source, { required: BIN_CSV_REQUIRED, optional: BIN_CSV_OPTIONAL }, { maxBytes: BIN_MAX_BYTES, maxRows: BIN_MAX_ROWS })) {
      const parsed = parseBinRow(r.values);
      if ('error' in parsed) errors.push({ line: r.line, msg: parsed.error });
      else rows.push({ line: r.line, row: parsed.row });
    }
    errors.push(...overlaps(rows));
    if (errors.length > 0) throw unprocessable(`${errors.length} problem${errors.length === 1 ? '' : 's'} in the BIN file: nothing was imported`, { errors: errors.sort((a, b) => a.line - b.line).slice(0, 1000) });
    await this.p.database.transaction((trx) => repo.replaceBins(trx, rows.map((r) => r.row)));
    this.#bins.clear();
    return { ranges: rows.length };
  }
}

function invalid(problems: FieldProblem[]) {
  return badRequest(problemsSentence(problems), { errors: problems });
}
