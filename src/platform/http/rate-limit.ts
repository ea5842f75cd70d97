/**
 * Request rate limits (decisions §8): a token bucket per API key (and, for requests with a missing or
 * unknown key, per client IP) holding one second of requests,
 * refilled continuously. Over the limit the caller gets 429 with Retry-After. Buckets live in the
 * process; with several gateway processes each enforces the limit on the traffic it receives.
 */

interface Bucket {
  tokens: number;
  updated: number;
}

export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  #sweeps = 0;

  constructor(private readonly now: () => number = () => Date.now()) {}

  /** Takes one token; returns 0 when allowed, otherwise the seconds to wait. `perSecond` 0: no limit. */
  take(key: string, perSecond: number): number {
    if (perSecond <= 0) return 0;
    const now = this.now();
    let b = this.#buckets.get(key);
    if (!b) {
      b = { tokens: perSecond, updated: now };
      this.#buckets.set(key, b);
    } else {
      b.tokens = Math.min(perSecond, b.tokens + ((now - b.updated) / 1000) * perSecond);
      b.updated = now;
    }
    if (++this.#sweeps % 10_000 === 0) this.#sweep(now);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / perSecond));
  }

  #sweep(now: number): void {
    for (const [k, b] of this.#buckets) if (now - b.updated > 60_000) this.#buckets.delete(k);
  }
}
