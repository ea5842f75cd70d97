/**
 * Durable background jobs in the gateway's own database (design.md "Durable background work").
 *
 * - A job is enqueued with the executor of the business transaction that causes it, so it exists iff
 *   that change committed.
 * - Workers claim due jobs with `FOR UPDATE SKIP LOCKED` and a lease; several processes on one
 *   PostgreSQL share the queue and never claim the same job twice. A job whose worker died is claimed
 *   again once its lease runs out (at-least-once; handlers are written to be idempotent).
 * - Failures are retried with exponential backoff up to `max_attempts`; a handler can also ask for a
 *   specific next run time (notification schedules) or fail permanently.
 * - Sandbox jobs carry their merchant, so moving that merchant's test clock forward moves the job's
 *   due time with it.
 */
import { randomUUID } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import { backgroundScope } from '../db/pglite-dialect.js';
import { PermanentJobError, defaultBackoff, type EnqueueOptions, type Finished, type Job, type JobHandler, type JobQueueOptions, type Lane, type LaneState, type Registered, type Reschedule, type Schedule } from './job-types.js';

export type { JobsTable, Job, Reschedule, Finished, JobHandler, EnqueueOptions, JobQueueOptions, Lane } from './job-types.js';
export { PermanentJobError } from './job-types.js';

export class JobQueue {
  readonly workerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  readonly #handlers = new Map<string, Registered>();
  readonly #schedules: Schedule[] = [];
  readonly #opts: Required<Omit<JobQueueOptions, 'onJobFinished' | 'durability'>> & Pick<JobQueueOptions, 'onJobFinished' | 'durability'>;
  readonly #lanes: Record<Lane, LaneState>;
  #running = false;
  #loops: Promise<void>[] = [];
  #inFlight = new Set<Promise<void>>();
  /** Jobs claimed by this process and not finished: id → queue (their leases are renewed together). */
  readonly #held = new Map<number, string>();
  #renewal: NodeJS.Timeout | null = null;

  constructor(opts: JobQueueOptions) {
    const concurrency = opts.concurrency ?? opts.batchSize;
    this.#opts = { ...opts, leaseMs: opts.leaseMs ?? 60_000, concurrency, deliveryConcurrency: opts.deliveryConcurrency ?? concurrency };
    this.#lanes = {
      work: { name: 'work', limit: Math.max(1, this.#opts.concurrency), inFlight: 0, wake: null, more: false },
      delivery: { name: 'delivery', limit: Math.max(1, this.#opts.deliveryConcurrency), inFlight: 0, wake: null, more: false },
    };
  }

  /**
   * Registers the handler of `queue`. `leaseMs` is how long a claimed job of this queue stays with its
   * worker without news: while the handler runs the worker renews the lease (every third of the
   * shortest lease, for all its jobs in one statement), so a long job is never taken over, and a job
   * whose worker died runs again once the lease lapses. Give queues whose handlers have a known deadline
   * (a notification's timeout) a lease just above it. `lane`: `delivery` for outgoing deliveries
   * (notifications, mail), `work` (the default) for everything else.
   */
  register<P>(queue: string, handler: JobHandler<P>, opts: { backoffMs?: (attempt: number) => number; leaseMs?: number; lane?: Lane } = {}): void {
    if (this.#handlers.has(queue)) throw new Error(`job handler for "${queue}" registered twice`);
    this.#handlers.set(queue, { handler: handler as JobHandler, backoffMs: opts.backoffMs ?? defaultBackoff, leaseMs: opts.leaseMs, lane: opts.lane ?? 'work' });
  }

  /** The lease of a claimed job of `queue`, in milliseconds. */
  leaseOf(queue: string): number {
    return this.#handlers.get(queue)?.leaseMs ?? this.#opts.leaseMs;
  }

  /** Runs `queue` every `everyMs` (one pending instance across all processes). */
  every(queue: string, everyMs: number): void {
    this.#schedules.push({ queue, everyMs, next: 0 });
  }

  /** Adds a job using `executor` (pass the business transaction). */
  async enqueue<P>(executor: Executor, opts: EnqueueOptions<P>): Promise<void> {
    await this.insertSql(opts).execute(executor);
    this.poke();
  }

  /**
   * The insert of a job as a SQL statement to run inside a caller's statement (a data-modifying CTE), so
   * a state change and the job it causes are written in one round trip. With `when` (a condition on the
   * caller's other CTEs) the job is inserted only if it holds. Call `poke()` after the statement ran.
   */
  insertSql<P>(opts: EnqueueOptions<P>, when: RawBuilder<unknown> = sql`true`): RawBuilder<unknown> {
    const runAt = opts.runAt ?? this.#opts.clock.now();
    const dedupe = opts.dedupeKey
      ? sql`on conflict (queue, dedupe_key) where dedupe_key is not null and status in ('pending', 'running') do nothing`
      : sql``;
    return sql`insert into jobs (queue, payload, run_at, merchant_id, max_attempts, dedupe_key)
      select ${opts.queue}, ${JSON.stringify(opts.payload ?? {})}::jsonb, ${runAt}::timestamptz, ${opts.merchantId ?? null}::uuid, ${opts.maxAttempts ?? 10}::int, ${opts.dedupeKey ?? null}::text
      where ${when}
      ${dedupe}`;
  }

  /**
   * The job's completion as SQL for a handler's last statement (a data-modifying CTE): done, or pending
   * again at `retryAt`; only while this process still holds it. The handler then returns
   * `{ finished: retryAt ? 'retry' : 'done' }`.
   */
  finishSql(job: Job, retryAt: Date | null): RawBuilder<unknown> {
    return this.finishManySql([{ job, retryAt }]);
  }

  /** `finishSql` of several jobs in one statement (handlers whose last statements run together). */
  finishManySql(jobs: Array<{ job: Job; retryAt: Date | null }>): RawBuilder<unknown> {
    const ids = jobs.map((j) => j.job.id);
    const retryAt = jobs.map((j) => j.retryAt?.toISOString() ?? null);
    return sql`update jobs set
        status = case when f.retry_at is null then 'done' else 'pending' end,
        run_at = coalesce(f.retry_at, jobs.run_at),
        finished_at = case when f.retry_at is null then ${this.#opts.clock.now()}::timestamptz else jobs.finished_at end,
        locked_by = case when f.retry_at is null then jobs.locked_by end,
        locked_until = null,
        last_error = case when f.retry_at is null then null else jobs.last_error end
      from unnest(${ids}::bigint[], ${retryAt}::timestamptz[]) as f(id, retry_at)
      where jobs.id = any(${ids}::bigint[]) and jobs.id = f.id and jobs.locked_by = ${this.workerId}`;
  }

  /** SQL fragment-free variant for bulk use by callers that already build rows. */
  async enqueueMany<P>(executor: Executor, jobs: EnqueueOptions<P>[]): Promise<void> {
    if (jobs.length === 0) return;
    const now = this.#opts.clock.now();
    await executor
      .insertInto('jobs')
      .values(
        jobs.map((j) => ({
          queue: j.queue,
          payload: JSON.stringify(j.payload ?? {}),
          run_at: j.runAt ?? now,
          merchant_id: j.merchantId ?? null,
          max_attempts: j.maxAttempts ?? 10,
          dedupe_key: j.dedupeKey ?? null,
        })),
      )
      .execute();
    this.poke();
  }

  /** Moves the due time of a sandbox merchant's pending jobs earlier by `ms` (its clock moved forward). */
  async shiftMerchantJobs(executor: Executor, merchantId: string, ms: number): Promise<number> {
    const res = await executor
      .updateTable('jobs')
      .set({ run_at: sql`run_at - make_interval(secs => ${ms / 1000})` })
      .where('merchant_id', '=', merchantId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    this.poke();
    return Number(res.numUpdatedRows ?? 0);
  }

  /** Wakes the local worker loops (new work may be due). */
  poke(): void {
    for (const lane of Object.values(this.#lanes)) {
      const wake = lane.wake;
      if (wake) setImmediate(wake);
    }
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loops = (['work', 'delivery'] as const).map((l) => this.#background(() => this.#run(this.#lanes[l])));
  }

  /** Stops claiming and waits for jobs in progress. */
  async stop(): Promise<void> {
    this.#running = false;
    for (const lane of Object.values(this.#lanes)) lane.wake?.();
    await Promise.all(this.#loops);
    await Promise.allSettled([...this.#inFlight]);
    this.#stopRenewal();
  }

  /**
   * Claims and runs due jobs until none is due (or `maxRounds` is reached; `batchSize` jobs claimed per
   * round). Tests and the CLI use it to drain the queue deterministically without a background loop;
   * `concurrent` runs each round's jobs together, as a lane does.
   * Returns the number of jobs run.
   */
  async drain(opts: { queues?: string[]; maxRounds?: number; batchSize?: number; concurrent?: boolean } = {}): Promise<number> {
    let total = 0;
    const names = opts.queues ?? [...this.#handlers.keys()];
    for (let round = 0; round < (opts.maxRounds ?? 1000); round++) {
      // the schedules of the queues drained only: draining one queue adds no job (nor round trip) of another
      await this.#enqueueSchedules(names);
      const claimed = await this.#background(() => this.#claim(names, opts.batchSize ?? this.#opts.batchSize));
      if (claimed.length === 0) break;
      // one after another, in the order they were due (then enqueued): deterministic for tests; or all
      // of a round at once, as a lane runs them (`concurrent`)
      if (opts.concurrent) await this.#background(() => Promise.all(claimed.map((j) => this.#execute(j))));
      else for (const j of claimed) await this.#background(() => this.#execute(j));
      total += claimed.length;
    }
    return total;
  }

  /** Jobs of this process in flight, per lane (metrics, tests). */
  get inFlight(): Record<Lane, number> {
    return { work: this.#lanes.work.inFlight, delivery: this.#lanes.delivery.inFlight };
  }

  /**
   * On the embedded database background work runs in the gateway process, on its one connection: it is
   * marked so the connection goes to API requests first (see pglite-dialect.ts).
   */
  #background<T>(fn: () => Promise<T>): Promise<T> {
    return this.#opts.database.kind === 'pglite' ? backgroundScope.run(true, fn) : fn();
  }

  /**
   * One lane's loop: keeps up to `limit` jobs running, claiming more (at most `batchSize` in one round
   * trip) as soon as half a batch of slots is free, and sleeps for the poll interval when nothing is due.
   */
  async #run(lane: LaneState): Promise<void> {
    const names = () => [...this.#handlers].filter(([, r]) => r.lane === lane.name).map(([q]) => q);
    const refill = Math.max(1, Math.min(Math.ceil(this.#opts.batchSize / 2), Math.ceil(lane.limit / 2)));
    while (this.#running) {
      const free = lane.limit - lane.inFlight;
      let claimed: Job[] | null = null;
      if (free >= refill || (lane.inFlight === 0 && free > 0)) {
        try {
          if (lane.name === 'work') await this.#enqueueSchedules();
          const want = Math.min(free, this.#opts.batchSize);
          claimed = await this.#claim(names(), want);
          lane.more = claimed.length === want;
        } catch (err) {
          // the database is away: log once per poll without a stack and try again after the poll interval
          this.#opts.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'job claim failed');
          lane.more = false;
        }
        for (const j of claimed ?? []) {
          lane.inFlight++;
          // A job whose bookkeeping failed (the database went away) is only logged: its lease lapses and it
          // runs again; the loop goes on.
          void this.#track(
            this.#safeExecute(j).finally(() => {
              lane.inFlight--;
              // a free slot: claim again at once only when more is due; otherwise wait for the poll
              if (lane.more || lane.inFlight === 0) lane.wake?.();
            }),
          );
        }
        if (claimed && claimed.length > 0 && lane.more && lane.inFlight < lane.limit) continue;
      }
      // wait: for slots when the lane is full, else for a poke, a finished job or the poll interval
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, this.#opts.pollMs);
        function done() {
          clearTimeout(t);
          resolve();
        }
        lane.wake = done;
      });
      lane.wake = null;
    }
  }

  async #safeExecute(job: Job): Promise<void> {
    try {
      await this.#execute(job);
    } catch (err) {
      this.#opts.logger.error({ job: job.id, queue: job.queue, err: err instanceof Error ? err.message : String(err) }, 'job bookkeeping failed; the job runs again when its lease lapses');
    }
  }

  #track(p: Promise<void>): Promise<void> {
    this.#inFlight.add(p);
    return p.finally(() => this.#inFlight.delete(p));
  }

  async #enqueueSchedules(only?: string[]): Promise<void> {
    const now = Date.now();
    for (const s of this.#schedules) {
      if (now < s.next || (only && !only.includes(s.queue))) continue;
      await this.enqueue(this.#opts.database.db, {
        queue: s.queue,
        dedupeKey: 'schedule',
        runAt: new Date(this.#opts.clock.now().getTime()),
        maxAttempts: 1,
      });
      // only once it is enqueued: a schedule missed while the database was away is tried again next poll
      s.next = now + s.everyMs;
    }
  }

  /**
   * Claims up to `limit` jobs of `names` in one statement: due pending jobs, oldest first, read per queue
   * from the (queue, run_at, id) index so a long backlog of one queue costs nothing to the others, and
   * jobs whose worker's lease ran out. SKIP LOCKED: two workers never claim the same job.
   */
  async #claim(names: string[], limit: number): Promise<Job[]> {
    if (names.length === 0 || limit <= 0) return [];
    // a notification or a charge of a commit a lone primary may lose is not sent: nothing is claimed
    // (a check at most a quarter of a second old)
    const durability = this.#opts.durability;
    if (durability?.required && (await durability.check(performance.now() - 250)) !== null) return [];
    const now = this.#opts.clock.now();
    const leases: Record<string, number> = {};
    for (const n of names) leases[n] = this.leaseOf(n);
    const { rows } = await sql<{
      id: number;
      queue: string;
      payload: unknown;
      attempts: number;
      max_attempts: number;
      merchant_id: string | null;
      run_at: Date;
    }>`
      with expired as (
        select id from jobs
        where status = 'running' and locked_until < ${now} and queue = any(${names}::text[])
        order by locked_until
        limit ${limit}
        for update skip locked
      ), due as (
        select j.id, j.run_at from unnest(${names}::text[]) as q(name)
        cross join lateral (
          select id, run_at from jobs
          where queue = q.name and status = 'pending' and run_at <= ${now}
          order by run_at, id
          limit ${limit}
          for update skip locked
        ) j
        order by j.run_at, j.id
        limit ${limit}
      ), picked as (
        select id from expired
        union all
        (select id from due order by run_at, id limit greatest(0, ${limit} - (select count(*) from expired)))
      )
      update jobs set status = 'running', attempts = attempts + 1, locked_by = ${this.workerId}, locked_until = ${now}::timestamptz + (coalesce((${JSON.stringify(leases)}::jsonb ->> jobs.queue)::float8, ${this.#opts.leaseMs}) * interval '1 millisecond')
      where id in (select id from picked)
      returning id, queue, payload, attempts, max_attempts, merchant_id, run_at`.execute(this.#opts.database.db);
    const jobs = rows
      .map((r) => ({
        id: Number(r.id),
        queue: r.queue,
        payload: r.payload,
        attempts: r.attempts,
        maxAttempts: r.max_attempts,
        merchantId: r.merchant_id,
        runAt: r.run_at,
      }))
      .sort((x, y) => x.runAt.getTime() - y.runAt.getTime() || x.id - y.id);
    for (const j of jobs) this.#held.set(j.id, j.queue);
    if (jobs.length > 0) this.#startRenewal();
    return jobs;
  }

  /**
   * Renews the leases of every job this process holds, in one statement, every third of the shortest
   * lease: only a dead worker's jobs are taken over.
   */
  #startRenewal(): void {
    if (this.#renewal) return;
    const shortest = Math.min(this.#opts.leaseMs, ...[...this.#handlers.values()].map((r) => r.leaseMs ?? this.#opts.leaseMs));
    const every = Math.max(50, Math.floor(shortest / 3));
    this.#renewal = setInterval(() => {
      if (this.#held.size === 0) return this.#stopRenewal();
      const ids = [...this.#held.keys()];
      const leases: Record<string, number> = {};
      for (const q of new Set(this.#held.values())) leases[q] = this.leaseOf(q);
      const now = this.#opts.clock.now();
      sql`update jobs set locked_until = ${now}::timestamptz + (coalesce((${JSON.stringify(leases)}::jsonb ->> jobs.queue)::float8, ${this.#opts.leaseMs}) * interval '1 millisecond')
        where id = any(${ids}::bigint[]) and locked_by = ${this.workerId} and status = 'running'`
        .execute(this.#opts.database.db)
        .catch(() => {});
    }, every);
    this.#renewal.unref();
  }

  #stopRenewal(): void {
    if (this.#renewal) clearInterval(this.#renewal);
    this.#renewal = null;
  }

  async #execute(job: Job): Promise<void> {
    try {
      await this.#executeHeld(job);
    } finally {
      this.#held.delete(job.id);
    }
  }

  async #executeHeld(job: Job): Promise<void> {
    const reg = this.#handlers.get(job.queue);
    const db = this.#opts.database.db;
    const owned = (q: any) => q.where('id', '=', job.id).where('locked_by', '=', this.workerId);
    if (!reg) {
      await owned(db.updateTable('jobs').set({ status: 'failed', last_error: 'no handler', finished_at: this.#opts.clock.now() })).execute();
      return;
    }
    try {
      const result: void | Reschedule | Finished = await reg.handler(job);
      if (result && 'finished' in result) {
        this.#opts.onJobFinished?.(job.queue, result.finished);
      } else if (result && 'retryAt' in result) {
        await owned(
          db.updateTable('jobs').set({ status: 'pending', run_at: result.retryAt, locked_by: null, locked_until: null }),
        ).execute();
        this.#opts.onJobFinished?.(job.queue, 'retry');
      } else {
        await owned(
          db.updateTable('jobs').set({ status: 'done', finished_at: this.#opts.clock.now(), locked_until: null, last_error: null }),
        ).execute();
        this.#opts.onJobFinished?.(job.queue, 'done');
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const permanent = err instanceof PermanentJobError;
      if (!permanent && job.attempts < job.maxAttempts) {
        const retryAt = new Date(this.#opts.clock.now().getTime() + reg.backoffMs(job.attempts));
        await owned(
          db.updateTable('jobs').set({ status: 'pending', run_at: retryAt, last_error: message.slice(0, 2000), locked_by: null, locked_until: null }),
        ).execute();
        this.#opts.logger.warn({ job: job.id, queue: job.queue, attempt: job.attempts, err: message }, 'job failed, will retry');
        this.#opts.onJobFinished?.(job.queue, 'retry');
      } else {
        await owned(
          db.updateTable('jobs').set({ status: 'failed', finished_at: this.#opts.clock.now(), last_error: message.slice(0, 2000), locked_until: null }),
        ).execute();
        this.#opts.logger.error({ job: job.id, queue: job.queue, attempt: job.attempts, err: message }, 'job failed permanently');
        this.#opts.onJobFinished?.(job.queue, 'failed');
      }
    }
  }
}
