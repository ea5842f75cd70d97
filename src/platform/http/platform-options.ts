/** What the platform wrapper of the HTTP API (platform.ts) is built with. */
import type { Env } from '../db/schema.js';
import type { OutageLog } from '../db/outage.js';
import type { DurabilityGuard } from '../db/durability.js';
import type { Vault } from '../security/vault.js';
import type { Clock } from '../time/clock.js';
import type { KeyResolver } from './auth.js';
import type { IdempotencyStore } from './idempotency.js';
import type { Limiter } from './rate-limit.js';

export interface PlatformOptions {
  timezone: string;
  /** Largest body read from a GET request (decisions §1: a GET body is read like query parameters). */
  bodyLimit?: number;
  clock: Clock;
  vault: Vault;
  resolveKey: KeyResolver;
  rateLimiter: Limiter;
  rateLimits: Record<Env, number>;
  /** Requests per second per client IP with a missing or unknown API key (0: no limit). */
  unknownKeyRateLimit?: number;
  idempotency: IdempotencyStore;
  /** Sandbox routes over plain HTTP on any address (PAYGATE_SANDBOX_HTTP_ANY_ADDRESS), not only loopback. */
  sandboxHttpAnyAddress?: boolean;
  /** Logs a database outage once (db/outage.ts); without it every 503 of an outage logs a line. */
  outage?: OutageLog;
  /** With a synchronous standby required, no write is answered as done while none streams (db/durability.ts). */
  durability?: DurabilityGuard;
}
