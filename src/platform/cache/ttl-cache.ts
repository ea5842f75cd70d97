/**
 * The one time-limited in-process cache: entries kept for a time to live (the cache's, or one given per
 * entry), read by the clock it is given (Date.now by default; tests drive it). Bounded: a new key
 * arriving when `max` entries are kept empties the cache first (the entries are cheap to read again). A
 * time to live of 0 or less keeps nothing. Callers clear it when what it holds changes (the
 * invalidation of platform/db/invalidation.ts).
 */
export interface TtlCacheOptions {
  /** most entries kept (10,000) */
  max?: number;
  /** the clock, in ms (Date.now) */
  now?: () => number;
}

export class TtlCache<V, K = string> {
  readonly #entries = new Map<K, { value: V; until: number }>();
  readonly #max: number;
  readonly #now: () => number;

  constructor(
    private readonly ttlMs: number,
    opts: TtlCacheOptions = {},
  ) {
    this.#max = opts.max ?? 10_000;
    this.#now = opts.now ?? Date.now;
  }

  /** The value kept for `key`, or undefined when there is none or it has expired. */
  get(key: K): V | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (e.until <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  /** Keeps `value` for `key` for the cache's time to live (or `ttlMs`); answers the value. */
  set(key: K, value: V, ttlMs = this.ttlMs): V {
    if (ttlMs <= 0) {
      this.#entries.delete(key);
      return value;
    }
    if (!this.#entries.has(key) && this.#entries.size >= this.#max) this.#entries.clear();
    this.#entries.set(key, { value, until: this.#now() + ttlMs });
    return value;
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** Entries held (expired ones included until they are read or pushed out). */
  get size(): number {
    return this.#entries.size;
  }
}
