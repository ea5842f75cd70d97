/**
 * Reads that may be a little stale (order lists, exports, analytics) can go to a standby
 * (PAYGATE_READ_DATABASE_URL) instead of the primary. Money steps, and every read that decides one,
 * always use the primary (`p.database`); only code that lists or reports asks `p.reads.db`.
 *
 * The staleness bound is measured, not assumed. Every `checkEveryMs` the process reads the primary's
 * WAL position (`pg_current_wal_lsn()`), noting the time it asked, and the standby's replayed position
 * (`pg_last_wal_replay_lsn()`). The standby holds everything the primary had committed at the latest
 * noted time whose position it has replayed; reads go to it only while that time is less than
 * `maxLagMs` ago, so what a read misses was committed at most `maxLagMs` before it (plus the check's
 * own round trip). A standby that lags more, cannot be reached, or a primary that cannot be asked,
 * sends the reads back to the primary until a check finds the standby fresh again. No clock of the
 * database servers is involved, only this process's.
 */
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database, Db } from './database.js';

export interface ReadRoutingOptions {
  primary: Database;
  /** The standby (or a proxy in front of the standbys); null: every read uses the primary. */
  replica: Database | null;
  maxLagMs: number;
  checkEveryMs?: number;
  logger?: Logger;
  /** The clock of the checks (tests). */
  now?: () => number;
  /** How positions are read (tests script them); by default the queries below. */
  positions?: Positions;
}

/** The primary's current WAL position and the standby's replayed one (`X/Y`; null: nothing replayed yet). */
export interface Positions {
  primary(): Promise<string>;
  replica(): Promise<{ standby: boolean; lsn: string | null }>;
}

function queryPositions(primary: Database, replica: Database): Positions {
  return {
    async primary() {
      const { rows } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(primary.db);
      return rows[0].lsn;
    },
    async replica() {
      const { rows } = await sql<{ standby: boolean; lsn: string | null }>`
        select pg_is_in_recovery() as standby, case when pg_is_in_recovery() then pg_last_wal_replay_lsn()::text end as lsn`.execute(replica.db);
      return rows[0];
    },
  };
}

/** A WAL position `X/Y` as a number of bytes. */
export function lsnBytes(lsn: string): bigint {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

export class ReadRouting {
  readonly #opts: ReadRoutingOptions;
  /** Positions of the primary and when they were read, oldest first (only those not yet replayed, plus the last replayed one). */
  #samples: Array<{ at: number; lsn: bigint }> = [];
  /** The latest time at which everything the primary had committed is on the standby. */
  #freshAsOf = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | null = null;
  #checking: Promise<void> | null = null;
  #usingReplica = false;

  readonly #positions: Positions | null;

  constructor(opts: ReadRoutingOptions) {
    this.#opts = opts;
    this.#positions = opts.replica ? (opts.positions ?? queryPositions(opts.primary, opts.replica)) : null;
  }

  get #now(): number {
    return (this.#opts.now ?? Date.now)();
  }

  /** Whether reads go to the standby now. */
  get usingReplica(): boolean {
    return this.#opts.replica !== null && this.#now - this.#freshAsOf <= this.#opts.maxLagMs;
  }

  /** The executor of reads that may be stale: the standby while it is fresh enough, else the primary. */
  get db(): Db {
    return this.usingReplica ? this.#opts.replica!.db : this.#opts.primary.db;
  }

  /** How old the standby's data may be now, in milliseconds (null: no standby, or never fresh). */
  get staleness(): number | null {
    if (!this.#opts.replica || !Number.isFinite(this.#freshAsOf)) return null;
    return this.#now - this.#freshAsOf;
  }

  /** Starts the periodic checks (none without a standby). */
  start(): void {
    if (!this.#opts.replica || this.#timer) return;
    const every = this.#opts.checkEveryMs ?? Math.max(100, Math.min(1000, Math.floor(this.#opts.maxLagMs / 3)));
    void this.check();
    this.#timer = setInterval(() => void this.check(), every);
    this.#timer.unref();
  }

  /** One check (the timer calls it; tests call it directly). */
  check(): Promise<void> {
    this.#checking ??= this.#check().finally(() => (this.#checking = null));
    return this.#checking;
  }

  async #check(): Promise<void> {
    const positions = this.#positions;
    if (!positions) return;
    try {
      const at = this.#now;
      this.#samples.push({ at, lsn: lsnBytes(await positions.primary()) });
      const r = await positions.replica();
      if (!r.standby) {
        // not a standby (a primary, or the proxy sent this connection to one): as fresh as the primary
        this.#freshAsOf = at;
        this.#samples = this.#samples.slice(-1);
      } else if (r.lsn !== null) {
        const replayed = lsnBytes(r.lsn);
        let i = -1;
        for (let k = 0; k < this.#samples.length; k++) if (this.#samples[k].lsn <= replayed) i = k;
        if (i >= 0) {
          this.#freshAsOf = Math.max(this.#freshAsOf, this.#samples[i].at);
          this.#samples = this.#samples.slice(i);
        }
        // bounded: positions older than the bound can no longer make the standby fresh
        const horizon = this.#now - 2 * this.#opts.maxLagMs;
        while (this.#samples.length > 1 && this.#samples[0].at < horizon) this.#samples.shift();
      }
    } catch (err) {
      // the standby or the primary cannot be asked: reads go to the primary until a check succeeds
      this.#freshAsOf = Number.NEGATIVE_INFINITY;
      this.#samples = [];
      this.#opts.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, 'read standby not checked; reads use the primary');
    }
    const using = this.usingReplica;
    if (using !== this.#usingReplica) {
      this.#usingReplica = using;
      this.#opts.logger?.info({ staleness_ms: this.staleness }, using ? 'reads that may be stale use the standby' : 'the standby is too far behind or unreachable; reads use the primary');
    }
  }

  /** Stops the checks and closes the standby's connections (the primary belongs to the caller). */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#checking?.catch(() => {});
    await this.#opts.replica?.close().catch(() => {});
  }
}
