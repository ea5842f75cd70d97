/**
 * No write acknowledged without the synchronous standby the formation promises
 * (PAYGATE_REQUIRE_SYNC_STANDBY, docs/deployment.md).
 *
 * A PostgreSQL primary with `synchronous_standby_names` waits, at every commit, until a standby has the
 * commit. But pg_auto_failover lets a primary take writes alone while no standby can follow it
 * (`wait_primary`: after a failover whose old primary is gone, or when the last standby fails): it
 * empties `synchronous_standby_names`, and commits that were waiting are released with it. A commit
 * acknowledged then is lost if that node dies before a standby has copied it. With the setting on, the
 * gateway acknowledges nothing in that state:
 *  - `/readyz` answers 503 (`no synchronous standby`), so the load balancer sends no requests here;
 *  - no processor is called for a money step unless, after the step's first commit, a synchronous
 *    standby streams from this primary (the PENDING transaction is then known to survive a failover; if
 *    not, the request answers 503, nothing was sent, and the reconciler closes the transaction);
 *  - an API write answers below 500 only if, after its last commit, a synchronous standby streams (else
 *    503: the outcome is unknown, a retry with its Idempotency-Key reads it);
 *  - background jobs (notifications, charges) are not claimed until a synchronous standby streams.
 * Off (the default, a single PostgreSQL), availability wins: writes are acknowledged as PostgreSQL
 * acknowledges them.
 *
 * A check counts for a request only if it started after the request's commit. Requests waiting at the
 * same time share one query: while one runs, the next is started once it ends, for everyone who came
 * meanwhile, so there is at most one query in flight and one queued, whatever the load.
 */
import { sql } from 'kysely';
import type { Database } from './database.js';
import { synchronousStandbysNeeded } from './database.js';

/** What is wrong (null: a synchronous standby streams from this primary). */
export type DurabilityProblem = string | null;

export interface DurabilityGuard {
  /** False when the setting is off: every check passes without a query. */
  readonly required: boolean;
  /** The state seen by a check that started at or after `since` (performance.now()); starts one if needed. */
  check(since?: number): Promise<DurabilityProblem>;
  /** The last state seen, without a query (null: none yet, or fine). */
  readonly last: DurabilityProblem;
}

/** The guard of a deployment that does not require a standby. */
export const NO_DURABILITY_GUARD: DurabilityGuard = { required: false, check: async () => null, last: null };

/** What the replication state of a primary says, from one row of `probeReplication`. */
export function replicationProblem(r: { names: string; synced: number; hidden: number; standby: boolean }): DurabilityProblem {
  if (r.standby) return 'database is a standby (read-only)';
  const needed = Math.max(1, synchronousStandbysNeeded(r.names));
  if (r.synced >= needed) return null;
  if (r.hidden > 0 && r.synced === 0) return 'no synchronous standby visible: the database role cannot read pg_stat_replication (grant it pg_monitor)';
  if (r.names.trim() === '') return 'no synchronous standby: the primary takes writes alone (synchronous_standby_names is empty)';
  return `no synchronous standby: ${r.synced} of ${needed} streaming`;
}

/** One query: whether this server is a primary with enough synchronous standbys streaming. */
export async function probeReplication(database: Database): Promise<DurabilityProblem> {
  const { rows } = await sql<{ names: string; synced: number; hidden: number; standby: boolean }>`
    select pg_is_in_recovery() as standby, current_setting('synchronous_standby_names') as names,
      (select count(*) from pg_stat_replication where sync_state in ('sync', 'quorum') and state = 'streaming')::int as synced,
      (select count(*) from pg_stat_replication where sync_state is null)::int as hidden`.execute(database.db);
  return replicationProblem(rows[0]);
}

export class SyncStandbyGuard implements DurabilityGuard {
  readonly required = true;
  #last: { startedAt: number; problem: DurabilityProblem } | null = null;
  #running: { startedAt: number; done: Promise<DurabilityProblem> } | null = null;
  #queued: Promise<DurabilityProblem> | null = null;

  /** `probe` answers the state, or throws when the database cannot be asked (a problem too). */
  constructor(private readonly probe: () => Promise<DurabilityProblem>, private readonly now: () => number = () => performance.now()) {}

  get last(): DurabilityProblem {
    return this.#last?.problem ?? null;
  }

  check(since: number = this.now()): Promise<DurabilityProblem> {
    if (this.#last && this.#last.startedAt >= since) return Promise.resolve(this.#last.problem);
    if (this.#running && this.#running.startedAt >= since) return this.#running.done;
    if (!this.#running) return this.#start();
    // one is running that started too early for this caller: the next one, shared with everyone who
    // comes while this one runs
    this.#queued ??= this.#running.done.then(() => {
      this.#queued = null;
      return this.#start();
    });
    return this.#queued;
  }

  #start(): Promise<DurabilityProblem> {
    const startedAt = this.now();
    const done = this.probe().then(
      (p) => p,
      () => 'database unavailable' as DurabilityProblem,
    ).then((problem) => {
      if (!this.#last || startedAt >= this.#last.startedAt) this.#last = { startedAt, problem };
      if (this.#running?.done === done) this.#running = null;
      return problem;
    });
    this.#running = { startedAt, done };
    return done;
  }
}

/** The guard for a database: the real one when required on PostgreSQL, else none. */
export function durabilityGuard(database: Database, required: boolean): DurabilityGuard {
  if (!required || database.kind !== 'postgres') return NO_DURABILITY_GUARD;
  return new SyncStandbyGuard(() => probeReplication(database));
}
