/**
 * Request rate limits (decisions §8): a token bucket per API key (and, for requests with a missing or
 * unknown key, per client IP) holding one second of requests, refilled continuously. Over the limit the
 * caller gets 429 with Retry-After.
 *
 * Two implementations of one `Limiter` interface:
 * - `RateLimiter` (memory): buckets live in the process; with several gateway processes each enforces
 *   the limit on the traffic it receives.
 * - `RedisRateLimiter` (PAYGATE_REDIS_URL): buckets live in Redis, taken by one atomic script, so the
 *   limit holds across every process. When Redis cannot answer, the process falls back to its own
 *   memory buckets (the limit is kept per process rather than lifted) and logs it.
 */
import type { Logger } from 'pino';

export interface Limiter {
  /** Takes one token; resolves 0 when allowed, otherwise the seconds to wait. `perSecond` 0: no limit. */
  take(key: string, perSecond: number): number | Promise<number>;
  close?(): Promise<void>;
}

interface Bucket {
  tokens: number;
  updated: number;
}

export class RateLimiter implements Limiter {
  readonly #buckets = new Map<string, Bucket>();
  #sweeps = 0;

  constructor(private readonly now: () => number = () => Date.now()) {}

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

/**
 * The token bucket as one Redis script (atomic: concurrent requests from every process see one
 * bucket). Time is Redis's own clock, so processes with skewed clocks agree. Returns the seconds to
 * wait (0: allowed). Buckets expire after a minute without use.
 */
const TAKE_SCRIPT = `
local rate = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'updated')
local tokens = tonumber(b[1])
local updated = tonumber(b[2])
if tokens == nil then
  tokens = rate
else
  tokens = math.min(rate, tokens + ((now - updated) / 1000) * rate)
end
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = math.max(1, math.ceil((1 - tokens) / rate))
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'updated', tostring(now))
redis.call('PEXPIRE', KEYS[1], 60000)
return wait
`;

export interface RedisLimiterOptions {
  url: string;
  logger?: Logger;
  /** Prefix of the bucket keys (several gateways may share one Redis). */
  prefix?: string;
}

export class RedisRateLimiter implements Limiter {
  readonly #fallback = new RateLimiter();
  readonly #prefix: string;
  readonly #logger?: Logger;
  #redis: import('ioredis').Redis;
  #warned = 0;

  private constructor(redis: import('ioredis').Redis, o: RedisLimiterOptions) {
    this.#redis = redis;
    this.#prefix = o.prefix ?? 'paygate:rl:';
    this.#logger = o.logger;
    redis.defineCommand('paygateTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  }

  /** Connects (and checks the connection) before the gateway takes requests. */
  static async connect(o: RedisLimiterOptions): Promise<RedisRateLimiter> {
    const { Redis } = await import('ioredis');
    const redis = new Redis(o.url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000 });
    redis.on('error', () => {}); // reported by take() when it matters
    await redis.connect();
    return new RedisRateLimiter(redis, o);
  }

  async take(key: string, perSecond: number): Promise<number> {
    if (perSecond <= 0) return 0;
    try {
      const wait = await (this.#redis as unknown as { paygateTake(k: string, rate: number): Promise<number> }).paygateTake(this.#prefix + key, perSecond);
      return Number(wait);
    } catch (err) {
      const now = Date.now();
      if (now - this.#warned > 10_000) {
        this.#warned = now;
        this.#logger?.warn({ err: err instanceof Error ? err.message : String(err) }, 'rate limit: Redis did not answer; limits are kept per process meanwhile');
      }
      return this.#fallback.take(key, perSecond);
    }
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}

/** The limiter the configuration asks for: Redis when PAYGATE_REDIS_URL is set, else memory. */
export async function limiterFromConfig(config: { redisUrl: string | null }, logger?: Logger): Promise<Limiter> {
  if (!config.redisUrl) return new RateLimiter();
  return RedisRateLimiter.connect({ url: config.redisUrl, logger });
}
