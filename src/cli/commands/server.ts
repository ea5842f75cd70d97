/** `paygate migrate`, `serve`, `worker` and `simulator`: running the gateway. */
import { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import { migrate } from '../../platform/db/migrate.js';
import { createPlatform } from '../../platform/create.js';
import { createLogger } from '../../platform/logging.js';
import { listen } from '../listen.js';
import { print } from './shared.js';

export function serverCommands(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations')
    .option('--json', 'JSON output')
    .action(async (o: { json?: boolean }) => {
      const config = loadConfig();
      const p = await createPlatform({ ...config, workers: false, cacheInvalidation: false }, { logger: createLogger('warn', process.stderr as any) });
      try {
        const applied = await migrate(p.database);
        print(!!o.json, { applied, database: p.database.kind }, () =>
          applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date',
        );
      } finally {
        await p.database.close();
      }
    });

  program
    .command('serve')
    .description('run the gateway (same as npm start)')
    .action(async () => {
      const { main } = await import('../../server.js');
      await main();
    });

  program
    .command('worker')
    .description('run background work only (notifications, sweeps, job queues), no HTTP; needs PostgreSQL (DATABASE_URL)')
    .action(async () => {
      const { runWorker } = await import('../../worker.js');
      await runWorker();
    });

  program
    .command('simulator')
    .description('run the processor simulator as a service of its own, shared by several gateway processes (PAYGATE_SIMULATOR_URL); staging and tests only')
    .option('--host <host>', 'listen address', '127.0.0.1')
    .option('--port <port>', 'listen port', '8090')
    .option('--latency-ms <ms>', 'delay of every answer', '0')
    .action(async (o: { host: string; port: string; latencyMs: string }) => {
      const { startSimulatorService } = await import('../../processors/simulator-service.js');
      const svc = await startSimulatorService({ host: o.host, port: Number(o.port), latencyMs: Number(o.latencyMs) });
      process.stdout.write(`processor simulator listening on ${svc.url} (PAYGATE_SIMULATOR_URL=${svc.url})\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await svc.close();
    });
}
