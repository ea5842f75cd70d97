/**
 * The store of the dashboard's API request log: what the platform's request-log hook captured, redacted
 * and written in batches off the request's path.
 */
import { uuidV7 } from '../../platform/ids.js';
import type { Platform } from '../../platform/index.js';
import { redactEntry, type CapturedRequest, type RequestLogSink } from '../../platform/http/request-log.js';
import * as repo from './dashboard.repo.js';

/** The row of a captured request: redacted (request-log.ts) and shaped for the table. */
function rowOf(c: CapturedRequest): repo.NewRequestLog {
  const e = redactEntry(c);
  return {
    id: uuidV7(e.at.getTime()),
    merchant_id: e.merchantId,
    env: e.env,
    key_id: e.keyId,
    method: e.method,
    path: e.path,
    status: e.status,
    duration_ms: e.durationMs,
    idempotency_key: e.idempotencyKey,
    request_id: e.requestId,
    order_id: e.orderId,
    request_body: e.requestBody,
    response_body: e.responseBody,
    created_at: e.at,
  };
}

/**
 * Where the platform's request-log hook puts what it captured: kept in memory, then redacted and written
 * in batches (one statement for many requests), off the request's path: a request pays only for its
 * capture. Memory is bounded: past MAX_PENDING captures waiting (the database slower than the traffic)
 * new ones are dropped and counted (`dropped`, a metric and a warning a minute). Readers flush first, so
 * what was answered is there when a developer looks. An entry still in memory when the process dies is
 * lost (a log, not a record of money).
 */
export class RequestLogStore implements RequestLogSink {
  static readonly MAX_PENDING = 20_000;
  static readonly BATCH = 200;
  #buffer: CapturedRequest[] = [];
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();
  /** Captures dropped because too many waited (since the process started). */
  dropped = 0;
  #warnedAt = 0;

  constructor(private readonly p: Platform) {}

  /** Captures taken and not yet written (buffered, or waiting for the writes before them). */
  #pending = 0;

  get pending(): number {
    return this.#pending;
  }

  capture(c: CapturedRequest): void {
    if (this.#pending >= RequestLogStore.MAX_PENDING) {
      this.dropped++;
      this.p.metrics.requestLogDropped.inc();
      const now = Date.now();
      if (now - this.#warnedAt > 60_000) {
        this.#warnedAt = now;
        this.p.logger.warn({ dropped: this.dropped, pending: this.#buffer.length }, 'request log behind the traffic: entries dropped');
      }
      return;
    }
    this.#buffer.push(c);
    this.#pending++;
    if (this.#buffer.length >= RequestLogStore.BATCH) void this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), 1000);
      this.#timer.unref();
    }
  }

  /** Writes what is buffered (and waits for writes under way). */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const rows = this.#buffer;
    this.#buffer = [];
    this.#writing = this.#writing.then(async () => {
      if (rows.length === 0) return;
      try {
        // redacted here, a batch at a time, yielding to requests between batches
        for (let i = 0; i < rows.length; i += RequestLogStore.BATCH) {
          if (i > 0) await new Promise((r) => setImmediate(r));
          await repo.insertRequestLogs(this.p.database.db, uuidV7(), rows.slice(i, i + RequestLogStore.BATCH).map(rowOf));
        }
      } catch (err) {
        this.p.logger.warn({ err: err instanceof Error ? err.message : String(err), entries: rows.length }, 'request log entries not written');
      } finally {
        this.#pending -= rows.length;
      }
    });
    return this.#writing;
  }
}
