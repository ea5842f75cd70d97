/** The shapes of the job queue (queue.ts): its table, a job and what its handler answers, the queue's options. */
import type { ColumnType, Generated } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import type { DurabilityGuard } from '../db/durability.js';
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

/**
 * Returned by a handler whose last statement already finished the job (it included `finishSql`): the
 * queue writes nothing more for it (one round trip and one commit fewer per job).
 */
export interface Finished {
  finished: 'done' | 'retry';
}

export type JobHandler<P = any> = (job: Job<P>) => Promise<void | Reschedule | Finished>;

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
  /** Most jobs claimed in one round trip. */
  batchSize: number;
  /**
   * Most jobs of the work lane running at once in this process (several lines of a batch file or
   * subscription charges in flight, each waiting on the database or a processor). Default: `batchSize`.
   */
  concurrency?: number;
  /** Most jobs of the delivery lane (notifications, mail) running at once. Default: `concurrency`. */
  deliveryConcurrency?: number;
  /** Lease of a claimed job; a worker that dies frees its jobs after this long. */
  leaseMs?: number;
  onJobFinished?: (queue: string, outcome: 'done' | 'retry' | 'failed') => void;
  /** With a synchronous standby required, no job is claimed while none streams (db/durability.ts). */
  durability?: DurabilityGuard;
}

/**
 * The lanes of a worker: each claims only its own queues and has its own bound on jobs in flight, so
 * a backlog in one (10,000 due charges) never holds back the other (the notifications those charges
 * cause, or a payment's notification in the meantime).
 */
export type Lane = 'work' | 'delivery';

export interface Registered {
  handler: JobHandler;
  backoffMs: (attempt: number) => number;
  /** Lease of this queue's jobs (the queue default when absent). */
  leaseMs?: number;
  lane: Lane;
}

export const defaultBackoff = (attempt: number) => Math.min(3_600_000, 1000 * 2 ** Math.min(attempt, 20));

export interface Schedule {
  queue: string;
  everyMs: number;
  next: number;
}

export interface LaneState {
  name: Lane;
  limit: number;
  inFlight: number;
  /** Wakes the lane's loop (a job finished, new work may be due). */
  wake: (() => void) | null;
  /** The last claim came back full: more is due. */
  more: boolean;
}
