/**
 * Starting the gateway as a user would (a separate process), for end-to-end tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, testDbKind, type TestDatabase } from './db.js';
import { seedEmbeddedDatabase } from './pgdata-template.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export interface GatewayEnv {
  /** Environment for the process (PORT, PAYGATE_DATA_DIR and DATABASE_URL are set). */
  env: Record<string, string>;
  dataDir: string;
  port: number;
  url: string;
  db: TestDatabase | null;
  cleanup(): Promise<void>;
}

/**
 * A data directory, a port and (on the postgres project) a fresh schema, for gateway processes.
 * The schema is left unmigrated: the gateway migrates it at start. `migrated`: on the embedded database,
 * the data directory starts with the run's migrated database (pgdata-template.ts), for tests that do not
 * test a first start.
 */
export async function gatewayEnv(extra: Record<string, string> = {}, opts: { migrated?: boolean } = {}): Promise<GatewayEnv> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-e2e-'));
  if (opts.migrated && testDbKind() === 'pglite') await seedEmbeddedDatabase(dataDir);
  const port = await freePort();
  let db: TestDatabase | null = null;
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    PAYGATE_DATA_DIR: dataDir,
    PAYGATE_LOG_LEVEL: 'info',
    ...extra,
  };
  if (testDbKind() === 'postgres') {
    db = await createTestDatabase({ migrate: false });
    env.DATABASE_URL = `${db.url}?options=${encodeURIComponent(`-c search_path=${db.schema}`)}`;
  }
  return {
    env,
    dataDir,
    port,
    url: `http://127.0.0.1:${port}`,
    db,
    async cleanup() {
      await db?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Gateway {
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `npm start` without npm and the build step: the bundle the global set-up built (test/helpers/dashboard-build.ts). */
export const BUILT_GATEWAY = [process.execPath, '--enable-source-maps', 'dist/server.js'];

/**
 * Starts `command` (default: the built gateway, as `npm start` runs it; the tests of `npm start` itself
 * pass `['npm', 'start']`) in `cwd` (default: the repository) and waits until the gateway listens.
 */
export async function startGateway(g: GatewayEnv, command: string[] = BUILT_GATEWAY, timeoutMs = 90_000, cwd = path.resolve(import.meta.dirname, '../..')): Promise<Gateway> {
  const proc = spawn(command[0], command.slice(1), {
    cwd,
    env: { ...process.env, ...g.env, PAYGATE_TEST_DB: '', CI: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // its own process group, so a signal reaches npm, tsx and node together (as Ctrl-C does)
    detached: true,
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const started = Date.now();
  while (!out.includes('paygate listening')) {
    if (proc.exitCode !== null) throw new Error(`gateway exited with ${proc.exitCode}\n${out}\n${err}`);
    if (Date.now() - started > timeoutMs) {
      proc.kill('SIGKILL');
      throw new Error(`gateway did not start in time\n${out}\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      const group = -proc.pid!;
      const alive = () => {
        try {
          process.kill(group, 0);
          return true;
        } catch {
          return false;
        }
      };
      if (alive()) {
        try {
          process.kill(group, signal);
        } catch {
          /* already gone */
        }
      }
      const code = await exited;
      // npm exits as soon as it relays the signal: wait for the whole group (the gateway and its workers)
      // to be gone, so a restart never meets the old process still draining on its port
      const until = Date.now() + 30_000;
      while (alive()) {
        if (Date.now() > until) {
          process.kill(group, 'SIGKILL');
          break;
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      return code;
    },
  };
}

/** The `export NAME=value` lines the gateway prints on first start. */
export function printedExports(stdout: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const m of stdout.matchAll(/^export (PAYGATE_[A-Z_]+)=(\S+)$/gm)) vars[m[1]] = m[2];
  return vars;
}
