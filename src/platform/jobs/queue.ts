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
import { sql, type ColumnType, type Generated } from 'kysely';
import type { Logger } from 'pino';
import type { Database, Executor } from '../db/database.js';
import type { Clock } from '../time/clock.js';

export interface JobsTable {
  id: Generated<number>;
  queue: string;
  payload: ColumnType<unknown, string, string>;
  run_at: Date;
  status: Generated<'pending' | 'running' | 'done' | 'failed'>;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  merchant_id: string | null;
  locked_by: string | null;
  locked_until: Date | null;
  last_error: string | null;
  dedupe_key: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
  finished_at: Date | null;
}

declare module '../db/schema.js' {
  interface DB {
    jobs: JobsTable;
  }
}

export interface Job<P = unknown> {
  id: number;
  queue: string;
  payload: P;
  attempts: number;
  maxAttempts: number;
  merchantId: string | null;
  runAt: Date;
}

/** Returned by a handler to be run again at a given time (not counted as a failure). */
export interface Reschedule {
  retryAt: Date;
}

/** Thrown by a handler to fail the job without further retries. */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}

export type JobHandler<P = any> = (job: Job<P>) => Promise<void | Reschedule>;

export interface EnqueueOptions<P = unknown> {
  queue: string;
  payload?: P;
  /** Defaults to now. */
  runAt?: Date;
  merchantId?: string | null;
  maxAttempts?: number;
  /** At most one pending/running job per (queue, dedupeKey). */
  dedupeKey?: string;
}

export interface JobQueueOptions {
  database: Database;
  clock: Clock;
  logger: Logger;
  pollMs: number;
  batchSize: number;
  /** Lease of a claimed job; a worker that dies frees its jobs after this long. */
  leaseMs?: number;
  onJobFinished?: (queue: string, outcome: 'done' | 'retry' | 'failed') => void;
}

interface Registered {
  handler: JobHandler;
  backoffMs: (attempt: number) => number;
  /** Lease of this queue's jobs (the queue default when absent). */
  leaseMs?: number;
}

const defaultBackoff = (attempt: number) => Math.min(3_600_000, 1000 * 2 ** Math.min(attempt, 20));

interface Schedule {
  queue: string;
  everyMs: number;
  next: number;
}

export class JobQueue {
  readonly workerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  readonly #handlers = new Map<string, Registered>();
  readonly #schedules: Schedule[] = [];
  readonly #opts: Required<Omit<JobQueueOptions, 'onJobFinished'>> & Pick<JobQueueOptions, 'onJobFinished'>;
  #running = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #inFlight = new Set<Promise<void>>();

  constructor(opts: JobQueueOptions) {
    this.#opts = { leaseMs: 60_000, ...opts };
  }

  /**
   * Registers the handler of `queue`. `leaseMs` is how long a claimed job of this queue stays with its
   * worker without news: while the handler runs the worker renews the lease (every third of it), so a
   * long job is never taken over, and a job whose worker died runs again once the lease lapses. Give
   * queues whose handlers have a known deadline (a notification's timeout) a lease just above it.
   */
  register<P>(queue: string, handler: JobHandler<P>, opts: { backoffMs?: (attempt: number) => number; leaseMs?: number } = {}): void {
    if (this.#handlers.has(queue)) throw new Error(`job handler for "${queue}" registered twice`);
    this.#handlers.set(queue, { handler: handler as JobHandler, backoffMs: opts.backoffMs ?? defaultBackoff, leaseMs: opts.leaseMs });
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
    const runAt = opts.runAt ?? this.#opts.clock.now();
    const values = {
      queue: opts.queue,
      payload: JSON.stringify(opts.payload ?? {}),
      run_at: runAt,
      merchant_id: opts.merchantId ?? null,
      max_attempts: opts.maxAttempts ?? 10,
      dedupe_key: opts.dedupeKey ?? null,
    };
    if (opts.dedupeKey) {
      await sql`insert into jobs (queue, payload, run_at, merchant_id, max_attempts, dedupe_key)
        values (${values.queue}, ${values.payload}::jsonb, ${values.run_at}, ${values.merchant_id}, ${values.max_attempts}, ${values.dedupe_key})
        on conflict (queue, dedupe_key) where dedupe_key is not null and status in ('pending', 'running') do nothing`.execute(executor);
    } else {
      await executor.insertInto('jobs').values(values).execute();
    }
    this.poke();
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

  /** Wakes the local worker loop (new work may be due). */
  poke(): void {
    const wake = this.#wake;
    if (wake) setImmediate(wake);
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Stops claiming and waits for jobs in progress. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#wake?.();
    await this.#loop;
    await Promise.allSettled([...this.#inFlight]);
  }

  /**
   * Claims and runs due jobs until none is due (or `maxRounds` is reached). Tests and the CLI use it to
   * drain the queue deterministically without a background loop. Returns the number of jobs run.
   */
  async drain(opts: { queues?: string[]; maxRounds?: number } = {}): Promise<number> {
    let total = 0;
    for (let round = 0; round < (opts.maxRounds ?? 1000); round++) {
      await this.#enqueueSchedules();
      const claimed = await this.#claim(opts.queues);
      if (claimed.length === 0) break;
      // one after another, in the order they were due (then enqueued): deterministic for tests
      for (const j of claimed) await this.#execute(j);
      total += claimed.length;
    }
    return total;
  }

  async #run(): Promise<void> {
    while (this.#running) {
      let claimed: Job[] = [];
      try {
        await this.#enqueueSchedules();
        claimed = await this.#claim();
      } catch (err) {
        // the database is away: log once per poll without a stack and try again after the poll interval
        this.#opts.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'job claim failed');
      }
      if (claimed.length > 0) {
        // Run the batch, but keep claiming when the batch was full. A job whose bookkeeping failed (the
        // database went away) is only logged: its lease lapses and it runs again; the loop goes on.
        const batch = Promise.all(claimed.map((j) => this.#track(this.#safeExecute(j))));
        if (claimed.length < this.#opts.batchSize) await batch;
        continue;
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, this.#opts.pollMs);
        function done() {
          clearTimeout(t);
          resolve();
        }
        this.#wake = done;
      });
      this.#wake = null;
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

  async #enqueueSchedules(): Promise<void> {
    const now = Date.now();
    for (const s of this.#schedules) {
      if (now < s.next) continue;
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

  async #claim(queues?: string[]): Promise<Job[]> {
    const names = queues ?? [...this.#handlers.keys()];
    if (names.length === 0) return [];
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
      update jobs set status = 'running', attempts = attempts + 1, locked_by = ${this.workerId}, locked_until = ${now}::timestamptz + (coalesce((${JSON.stringify(leases)}::jsonb ->> jobs.queue)::float8, ${this.#opts.leaseMs}) * interval '1 millisecond')
      where id in (
        select id from jobs
        where queue = any(${names}::text[])
          and ((status = 'pending' and run_at <= ${now}) or (status = 'running' and locked_until < ${now}))
        order by run_at, id
        limit ${this.#opts.batchSize}
        for update skip locked
      )
      returning id, queue, payload, attempts, max_attempts, merchant_id, run_at`.execute(this.#opts.database.db);
    return rows.map((r) => ({
      id: Number(r.id),
      queue: r.queue,
      payload: r.payload,
      attempts: r.attempts,
      maxAttempts: r.max_attempts,
      merchantId: r.merchant_id,
      runAt: r.run_at,
    })).sort((x, y) => x.runAt.getTime() - y.runAt.getTime() || x.id - y.id);
  }

  async #execute(job: Job): Promise<void> {
    const reg = this.#handlers.get(job.queue);
    const db = this.#opts.database.db;
    const owned = (q: any) => q.where('id', '=', job.id).where('locked_by', '=', this.workerId);
    if (!reg) {
      await owned(db.updateTable('jobs').set({ status: 'failed', last_error: 'no handler', finished_at: this.#opts.clock.now() })).execute();
      return;
    }
    // renew the lease while the handler runs, so only a dead worker's job is taken over
    const leaseMs = this.leaseOf(job.queue);
    const heartbeat = setInterval(() => {
      owned(db.updateTable('jobs').set({ locked_until: new Date(this.#opts.clock.now().getTime() + leaseMs) }).where('status', '=', 'running'))
        .execute()
        .catch(() => {});
    }, Math.max(50, Math.floor(leaseMs / 3)));
    heartbeat.unref();
    try {
      let result: void | Reschedule;
      try {
        result = await reg.handler(job);
      } finally {
        clearInterval(heartbeat);
      }
      if (result && 'retryAt' in result) {
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
