/**
 * One log line per database outage, not one per request (issue 31 item 6). While the database cannot be
 * reached (refused connections, "cannot connect now" states, dropped connections), every request that
 * needs it answers 503 with Retry-After; the first of them logs the outage (warn, with the reason), the
 * others only count. A probe then asks the database every `probeMs` whether it answers; when it does,
 * one line says the outage is over and how many requests were answered 503 meanwhile.
 */
import type { FastifyBaseLogger } from 'fastify';
import { pgCode } from '../errors/errors.js';

export interface OutageLogOptions {
  logger: FastifyBaseLogger;
  /** True when the database answers now (a short `select 1`). */
  probe: () => Promise<boolean>;
  /** How often the probe asks while the database is away (transport plumbing, real time). */
  probeMs?: number;
}

export class OutageLog {
  #since: number | null = null;
  #refused = 0;
  #timer: NodeJS.Timeout | null = null;
  #probing = false;

  constructor(private readonly opts: OutageLogOptions) {}

  /** True while an outage is being reported (logged once, probing for its end). */
  get inOutage(): boolean {
    return this.#since !== null;
  }

  /** A request could not reach the database: logs the outage's first request only. */
  unavailable(err: unknown): void {
    this.#refused++;
    if (this.#since !== null) return;
    this.#since = Date.now();
    const e = err as { message?: unknown; code?: unknown };
    this.opts.logger.warn(
      { err: typeof e?.message === 'string' ? e.message : String(err), code: pgCode(err) ?? (typeof e?.code === 'string' ? e.code : undefined) },
      'database unavailable: requests answer 503 with Retry-After until it is back (logged once per outage)',
    );
    this.#timer = setInterval(() => void this.#check(), this.opts.probeMs ?? 1000);
    this.#timer.unref();
  }

  async #check(): Promise<void> {
    if (this.#probing || this.#since === null) return;
    this.#probing = true;
    try {
      if (!(await this.opts.probe().catch(() => false)) || this.#since === null) return;
      // at the same level as the outage's line, so a log kept at warn shows both ends of it
      this.opts.logger.warn({ refused_requests: this.#refused, outage_ms: Date.now() - this.#since }, 'database available again');
      this.#reset();
    } finally {
      this.#probing = false;
    }
  }

  #reset(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#since = null;
    this.#refused = 0;
  }

  stop(): void {
    this.#reset();
  }
}
