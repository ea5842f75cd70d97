/**
 * The worker process: background work off the API's event loop. It runs every job queue (notification
 * delivery, the expiry sweep, the reconciler, mail, purges, vault re-wrap and the schedules of every
 * module) against the same database as the API processes, and serves no HTTP. Several workers (and API
 * processes) share the queues safely: jobs are claimed in batches with FOR UPDATE SKIP LOCKED and a lease.
 *
 * Started by `npm start` on PostgreSQL (PAYGATE_WORKER_PROCESSES, one by default, supervised and
 * restarted by the API process), or on its own with `paygate worker` (for a separate service). The
 * embedded database (PGlite) lives in one process: there background work stays in the API process.
 */
import { loadConfig, ConfigError, type Config } from './config/config.js';
import { buildModules, registerJobs } from './app.js';
import { migrate } from './platform/db/migrate.js';
import { createPlatform, verifyVault, type PlatformOverrides } from './platform/create.js';

export async function startWorker(config: Config, overrides: PlatformOverrides = {}) {
  if (!config.databaseUrl && !overrides.database) {
    throw new ConfigError(['a worker process needs PostgreSQL (DATABASE_URL): the embedded database runs background work in the gateway process']);
  }
  const p = await createPlatform(config, overrides);
  // the API process migrates too; the advisory lock keeps them from applying a file twice
  await migrate(p.database);
  await verifyVault(p);
  const modules = buildModules(p);
  registerJobs(p, modules);
  p.jobs.start();
  const keyRingWatch = setInterval(() => p.vault.refresh(), 5000);
  keyRingWatch.unref();
  p.logger.info({ worker: p.jobs.workerId, database: p.database.kind }, 'paygate worker started');

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      clearInterval(keyRingWatch);
      p.logger.info('worker shutting down');
      await p.jobs.stop();
      p.mailer.close();
      await p.invalidation.stop();
      await p.reads.stop();
      await p.database.close();
    })();
    return closing;
  };
  return { platform: p, modules, close };
}

/** How long a stopping worker may take to finish its jobs and close before it exits anyway. */
const SHUTDOWN_DEADLINE_MS = 20_000;

export async function runWorker(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  let worker: Awaited<ReturnType<typeof startWorker>>;
  try {
    worker = await startWorker(config);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      // a shutdown that hangs (a job stuck on a lock, a database gone) must not leave the process behind
      setTimeout(() => {
        worker.platform.logger.error({ after_ms: SHUTDOWN_DEADLINE_MS }, 'worker shutdown did not finish in time; exiting');
        process.exit(1);
      }, SHUTDOWN_DEADLINE_MS).unref();
      worker.close().then(
        () => process.exit(0),
        (err) => {
          worker.platform.logger.error({ err }, 'worker shutdown failed');
          process.exit(1);
        },
      );
    });
  }
  // supervised by the API process: go when it goes (also when it was killed and could not ask)
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop()!);
if (isMain) {
  runWorker().catch((err) => {
    process.stderr.write(`paygate worker failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
  });
}
