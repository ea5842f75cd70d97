/**
 * Cache invalidation across processes. Each process keeps short-lived caches (API keys, merchants,
 * services, signing keys). Triggers on those tables send NOTIFY on `paygate_invalidate` when they change
 * (delivered at commit); every process listens and drops its caches at once, so a revoked key is refused
 * by every gateway and worker process, not only by the one that revoked it. The caches' time to live
 * (PAYGATE_CACHE_TTL_MS) bounds staleness when notifications cannot be delivered (a lost listening
 * connection is re-opened, and the caches are dropped again when it is).
 */
import type { Logger } from 'pino';
import { sql } from 'kysely';
import type { Database } from './database.js';

export const INVALIDATE_CHANNEL = 'paygate_invalidate';

/** Whether a notification's payload (`schema.table`) names a table of `schema`. */
export function ofSchema(payload: string, schema: string): boolean {
  const dot = payload.indexOf('.');
  return dot < 0 || payload.slice(0, dot) === schema;
}

export class CacheInvalidation {
  readonly #handlers = new Set<(table: string | null) => void>();
  #stop: (() => Promise<void>) | null = null;

  /** Registers a cache to drop; `table` is the table that changed, `schema.table` (null: unknown, drop everything). */
  onInvalidate(handler: (table: string | null) => void): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  /** Drops every registered cache of this process. */
  invalidate(table: string | null = null): void {
    for (const h of this.#handlers) {
      try {
        h(table);
      } catch {
        // a cache that cannot be dropped must not stop the others
      }
    }
  }

  /**
   * Starts listening (when the database supports it). A change to a table of another schema of the same
   * database (another deployment, or another test) is not ours and drops nothing.
   */
  async start(database: Database, logger?: Logger): Promise<void> {
    if (this.#stop || !database.listen) return;
    // unknown (the database does not answer yet): every notification drops the caches, as before
    const own = await sql<{ schema: string }>`select current_schema() as schema`
      .execute(database.db)
      .then((r) => r.rows[0]?.schema ?? null, () => null);
    this.#stop = await database.listen(INVALIDATE_CHANNEL, (payload) => {
      if (payload === null) logger?.info('cache invalidation: listening again after a lost connection');
      if (payload && own && !ofSchema(payload, own)) return;
      this.invalidate(payload || null);
    });
  }

  get listening(): boolean {
    return this.#stop !== null;
  }

  async stop(): Promise<void> {
    const stop = this.#stop;
    this.#stop = null;
    await stop?.();
  }
}
