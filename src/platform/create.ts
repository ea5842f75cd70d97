/** Builds the platform services from configuration. */
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { openDatabase, type Database } from './db/database.js';
import { durabilityGuard } from './db/durability.js';
import { JobQueue } from './jobs/queue.js';
import { CacheInvalidation } from './db/invalidation.js';
import { ReadRouting } from './db/read-replica.js';
import { createLogger } from './logging.js';
import { Mailer } from './mail/outbox.js';
import { Metrics } from './metrics.js';
import { OutgoingClient, OutgoingPolicy, type Resolver } from './net/outgoing.js';
import { vaultFromConfig, type Vault } from './security/vault.js';
import { systemClock, type Clock } from './time/clock.js';
import type { Platform } from './index.js';
import { checkVaultCanaries } from './security/canary.js';

export interface PlatformOverrides {
  database?: Database;
  clock?: Clock;
  logger?: Logger;
  vault?: Vault;
  /** PostgreSQL schema (tests). */
  schema?: string;
  /** Who holds the embedded database's lock: `gateway` or `cli` (the default). */
  lockHolder?: string;
  inMemory?: boolean;
  /** Name resolution of the outgoing client (tests). */
  resolver?: Resolver;
}

export async function createPlatform(config: Config, o: PlatformOverrides = {}): Promise<Platform> {
  const logger = o.logger ?? createLogger(config.logLevel, undefined, config.logFormat);
  const clock = o.clock ?? systemClock;
  const database =
    o.database ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.dbPoolSize,
      connectTimeoutMs: config.dbConnectTimeoutMs,
      onConnectionError: (err) => logger.warn({ err: err.message }, 'database connection lost'),
      prepare: config.dbPrepare,
      schema: o.schema,
      inMemory: o.inMemory,
      lockHolder: o.lockHolder,
    }));
  const vault = o.vault ?? vaultFromConfig({ vaultKeys: config.vaultKeys, fingerprintKey: config.vaultFingerprintKey, dataDir: config.dataDir });
  const metrics = new Metrics();
  const durability = durabilityGuard(database, config.requireSyncStandby);
  const jobs = new JobQueue({
    durability,
    database,
    clock,
    logger,
    pollMs: config.jobPollMs,
    batchSize: config.jobBatchSize,
    concurrency: config.jobConcurrency,
    deliveryConcurrency: config.deliveryConcurrency,
    leaseMs: config.jobLeaseMs,
    onJobFinished: (queue, outcome) => metrics.jobsFinished.inc({ queue, outcome }),
  });
  const mailer = new Mailer({ database, jobs, vault, clock }, { smtpUrl: config.smtpUrl, from: config.mailFrom });
  const outgoing = new OutgoingClient({
    policy: new OutgoingPolicy({ allow: config.outgoingAllow, sandboxLoopback: config.outgoingSandboxLoopback }),
    resolver: o.resolver,
  });
  const invalidation = new CacheInvalidation();
  if (config.cacheInvalidation) await invalidation.start(database, logger);
  const replica = config.readDatabaseUrl
    ? await openDatabase({
        databaseUrl: config.readDatabaseUrl,
        poolSize: config.dbPoolSize,
        connectTimeoutMs: config.dbConnectTimeoutMs,
        onConnectionError: (err) => logger.warn({ err: err.message }, 'read standby connection lost'),
        prepare: config.dbPrepare,
        schema: o.schema,
        lazy: true,
      })
    : null;
  const reads = new ReadRouting({ primary: database, replica, maxLagMs: config.readMaxLagMs, logger });
  reads.start();
  metrics.watchReads(reads);
  return { config, database, clock, vault, jobs, mailer, logger, metrics, outgoing, invalidation, reads, durability };
}

/** Checks after migrations that the configured vault keys are the ones that sealed existing data. */
export async function verifyVault(p: Platform): Promise<void> {
  await checkVaultCanaries(p.database, p.vault, p.logger);
}
