/** What every module receives: the platform services, built once by the server. */
import type { ReadRouting } from './db/read-replica.js';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Database } from './db/database.js';
import type { DurabilityGuard } from './db/durability.js';
import type { CacheInvalidation } from './db/invalidation.js';
import type { JobQueue } from './jobs/queue.js';
import type { Mailer } from './mail/outbox.js';
import type { Metrics } from './metrics.js';
import type { OutgoingClient } from './net/outgoing.js';
import type { Vault } from './security/vault.js';
import type { Clock } from './time/clock.js';

export interface Platform {
  config: Config;
  database: Database;
  clock: Clock;
  vault: Vault;
  jobs: JobQueue;
  mailer: Mailer;
  logger: Logger;
  metrics: Metrics;
  /** The only way to call a merchant-supplied URL (SSRF protection). */
  outgoing: OutgoingClient;
  /** Drops the in-process caches when keys, merchants or services change in any process. */
  invalidation: CacheInvalidation;
  /** Where reads that may be stale go (lists, exports, analytics): a fresh standby, else the primary. */
  reads: ReadRouting;
  /** Whether a synchronous standby has what this primary commits (PAYGATE_REQUIRE_SYNC_STANDBY; db/durability.ts). */
  durability: DurabilityGuard;
}
