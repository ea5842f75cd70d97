/**
 * The gateway process: configuration, database and migrations, workers, HTTP, graceful shutdown.
 */
import net from 'node:net';
import fs from 'node:fs';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { loadConfig, ConfigError, configWarnings, type Config } from './config/config.js';
import { DataDirLockedError } from './platform/db/lock.js';
import { buildApp, buildModules, readTls, registerJobs, type Modules } from './app.js';
import type { Platform } from './platform/index.js';
import { SERVICE_TYPES } from './modules/services/index.js';
import { credentialsBanner, ensureSandboxMerchant } from './bootstrap.js';
import { migrate } from './platform/db/migrate.js';
import { migrationsLine } from './platform/logging.js';
import { createPlatform, verifyVault, type PlatformOverrides } from './platform/create.js';
import { superviseWorkers } from './supervisor.js';

/** The port is taken by another process: said in one line, before anything else happens. */
export class PortInUseError extends Error {
  constructor(host: string, port: number) {
    super(`port ${port} on ${host} is already in use (another paygate or another program): stop it, or start paygate on another port with PORT=<n> npm start`);
    this.name = 'PortInUseError';
  }
}

/** Fails fast when the port cannot be bound (checked before the database is opened or migrated). */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new PortInUseError(host, port) : err));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

export interface StartOptions {
  /**
   * Run background work (job queues) in this process. `npm start` on PostgreSQL leaves it to worker
   * processes (PAYGATE_WORKER_PROCESSES); default: as PAYGATE_WORKERS says.
   */
  backgroundInProcess?: boolean;
}

/**
 * Which service types production can process, and how: the connector of each type that has one, the
 * simulator for every type under PAYGATE_PRODUCTION_SIMULATOR, and the types that answer 503.
 */
export function logProductionConnectors(p: Platform, modules: Modules): void {
  const connectors = modules.processors.productionConnectors();
  if (p.config.productionSimulator) {
    p.logger.warn('PAYGATE_PRODUCTION_SIMULATOR is on: every production service is served by the simulator (staging only: no real money moves)');
    return;
  }
  const byConnector: Record<string, string[]> = {};
  for (const [type, name] of connectors) (byConnector[name] ??= []).push(type);
  const without = SERVICE_TYPES.filter((t) => !connectors.has(t));
  const urls = p.config.connectorUrls;
  const baseUrls = Object.fromEntries(Object.keys(byConnector).filter((n) => urls[n]).map((n) => [`${n}_url`, urls[n]]));
  p.logger.info({ connectors: byConnector, ...baseUrls }, `production connectors: ${Object.entries(byConnector).map(([n, t]) => `${n} for ${t.join(', ')}`).join('; ')}`);
  p.logger.warn({ service_types: without }, `production payments of these service types answer 503 (no connector): ${without.join(', ')}`);
}

export async function startServer(config: Config, overrides: PlatformOverrides = {}, opts: StartOptions = {}) {
  await assertPortFree(config.host, config.port);
  const p = await createPlatform(config, { lockHolder: 'gateway', ...overrides });
  const applied = await migrate(p.database);
  // one line: how many, the first and the last (the list is in the JSON record's `applied`)
  if (applied.length > 0) p.logger.info({ applied }, migrationsLine(applied));
  await verifyVault(p);
  const modules = buildModules(p);
  registerJobs(p, modules);
  const created = config.bootstrapSandbox ? await ensureSandboxMerchant(p, modules) : null;
  const tls = readTls(config);
  const app = await buildApp(p, modules, { server: tls ? { https: tls } : {} });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await p.jobs.stop().catch(() => {});
    await p.database.close().catch(() => {});
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new PortInUseError(config.host, config.port);
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const baseUrl = `${tls ? 'https' : 'http'}://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  p.database.lock?.setUrl(baseUrl);
  if (config.workers && opts.backgroundInProcess !== false) p.jobs.start();
  // The key file may be rotated by `paygate vault rotate` while we run: look for a new key ring every few
  // seconds (a new active key queues the background re-wrap, see registerJobs).
  const keyRingWatch = setInterval(() => p.vault.refresh(), 5000);
  keyRingWatch.unref();
  // A renewed TLS certificate (certbot, a secret mount) is picked up without a restart: new
  // connections get it, connections open keep theirs. A half-written pair is ignored until it matches.
  const stopTlsWatch = tls ? watchTls(config, (ctx) => (app.server as unknown as import('node:tls').Server).setSecureContext(ctx), p.logger) : () => {};
  for (const warning of configWarnings(config)) p.logger.warn(warning);
  if (p.database.kind === 'pglite') {
    p.logger.warn(
      'running on the embedded database (PGlite): fine for development and sandbox, NOT for production. ' +
        'Production routes (/v1) need PostgreSQL: set DATABASE_URL.',
    );
  }
  if (config.sandboxHttpAnyAddress) {
    p.logger.warn(
      'PAYGATE_SANDBOX_HTTP_ANY_ADDRESS is on: sandbox routes answer plain HTTP on every address, so sandbox API keys and signatures can be read on the network. ' +
        'Use it on a trusted network or in a container only; production routes still require HTTPS.',
    );
  }
  logProductionConnectors(p, modules);
  if (created) process.stdout.write(credentialsBanner(created, baseUrl) + '\n');
  p.logger.info({ url: baseUrl, database: p.database.kind }, 'paygate listening');

  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    clearInterval(keyRingWatch);
    stopTlsWatch();
    p.logger.info('shutting down');
    await app.close();
    await p.jobs.stop();
    p.mailer.close();
    await p.invalidation.stop();
    await p.reads.stop();
    await p.database.close();
  };
  return { app, platform: p, modules, baseUrl, close };
}

/** Watches the certificate and key files; calls `apply` with a new pair once both load and match. */
export function watchTls(
  config: Config,
  apply: (ctx: { cert: Buffer; key: Buffer }) => void,
  logger: { info: (o: object, m: string) => void; warn: (o: object, m: string) => void },
  intervalMs = 1000,
): () => void {
  const files = [config.tlsCertFile!, config.tlsKeyFile!];
  const reload = () => {
    try {
      const pair = { cert: fs.readFileSync(config.tlsCertFile!), key: fs.readFileSync(config.tlsKeyFile!) };
      tls.createSecureContext(pair); // throws when the key does not match the certificate
      apply(pair);
      const fingerprint = new X509Certificate(pair.cert).fingerprint256;
      logger.info({ fingerprint }, 'TLS certificate reloaded');
    } catch (err) {
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'TLS certificate changed but could not be loaded; keeping the previous one');
    }
  };
  for (const f of files) fs.watchFile(f, { interval: intervalMs }, reload);
  return () => {
    for (const f of files) fs.unwatchFile(f, reload);
  };
}

/** `npm start` and `paygate serve`: the gateway, and on PostgreSQL its worker processes. */
export async function main() {
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
  // On PostgreSQL background work runs in worker processes, off the API's event loop; the embedded
  // database is single-process, so there it stays here.
  const separate = config.workers && config.databaseUrl !== null && config.workerProcesses > 0;
  const server = await startServer(config, {}, { backgroundInProcess: !separate });
  const workers = separate ? superviseWorkers(config.workerProcesses, server.platform.logger) : null;
  // npm relays a terminal's Ctrl-C or a group's SIGTERM, so the signal can arrive twice: the second must
  // not cut the graceful shutdown short (the embedded database's lock is removed at its end)
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      Promise.all([server.close(), workers?.stop()]).then(
        () => process.exit(0),
        (err) => {
          server.platform.logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop()!);
if (isMain) {
  main().catch((err) => {
    if (err instanceof PortInUseError || err instanceof DataDirLockedError) {
      process.stderr.write(`paygate: ${err.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`paygate failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
  });
}
