/**
 * Starts the gateway as `npm start` runs it (`node dist/server.js`, built by the global set-up) on a free port, with its own
 * data directory and, on PostgreSQL, its own schema. The process is the server itself (no wrapper), in a
 * process group of its own with the worker processes it starts on PostgreSQL, so a test's kill -9 is a
 * crash of the whole gateway: the API process and its workers die at once, as on a power cut.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { testDatabaseUrl, testDbKind } from './db.js';
import { seedEmbeddedDatabase } from './pgdata-template.js';
import { appendLogText } from './capture.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface GatewayHome {
  dataDir: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/**
 * A data directory and (PostgreSQL) a schema that survive restarts of the gateway. On the embedded
 * database the directory starts with the run's migrated database (pgdata-template.ts): these tests are
 * about what happens after a start, not the first one.
 */
export async function gatewayHome(extra: Record<string, string> = {}): Promise<GatewayHome> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-e2e-'));
  if (testDbKind() === 'pglite') await seedEmbeddedDatabase(dataDir);
  const env: Record<string, string> = { PAYGATE_DATA_DIR: dataDir, PAYGATE_LOG_LEVEL: 'warn', ...extra };
  let schema: string | null = null;
  if (testDbKind() === 'postgres') {
    schema = `e2e_${randomBytes(5).toString('hex')}`;
    const c = new pg.Client({ connectionString: testDatabaseUrl() });
    await c.connect();
    await c.query(`create schema ${schema}`);
    await c.end();
    env.DATABASE_URL = testDatabaseUrl();
    env.PGOPTIONS = `-c search_path=${schema}`;
  }
  return {
    dataDir,
    env,
    async cleanup() {
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (schema) {
        const c = new pg.Client({ connectionString: testDatabaseUrl() });
        await c.connect();
        await c.query(`drop schema if exists ${schema} cascade`);
        await c.end();
      }
    },
  };
}

export interface Gateway {
  url: string;
  proc: ChildProcess;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function startGateway(home: GatewayHome, extra: Record<string, string> = {}): Promise<Gateway> {
  const port = await freePort();
  const env = { ...process.env, ...home.env, PORT: String(port), HOST: '127.0.0.1', ...extra };
  delete (env as Record<string, string | undefined>).PAYGATE_TEST_DB;
  // the bundle the global set-up built from the current sources (test/helpers/dashboard-build.ts)
  const proc = spawn(process.execPath, ['--enable-source-maps', 'dist/server.js'], { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: path.resolve(__dirname, '../..'), detached: true });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  // the gateway's log goes to the card-data scan too (test/helpers/capture.ts)
  proc.once('close', () => appendLogText(out));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`gateway exited with ${proc.exitCode}:\n${out}`);
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`gateway did not become ready:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    proc,
    output: () => out,
    kill: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        const group = () => {
          // SIGKILL: the whole process group (the API process and its workers); others: the API process,
          // which stops its workers itself
          if (signal !== 'SIGKILL') return;
          try {
            process.kill(-proc.pid!, 'SIGKILL');
          } catch {
            // the group is gone
          }
        };
        if (proc.exitCode !== null || proc.signalCode !== null) {
          group();
          return resolve();
        }
        proc.once('exit', () => resolve());
        if (signal === 'SIGKILL') group();
        else proc.kill(signal);
      }),
  };
}

/**
 * The database of a gateway home, to count what the gateway wrote: its schema on PostgreSQL (while the
 * gateway runs, too), its data directory on the embedded database (only once the gateway has stopped:
 * one process owns it).
 */
export async function homeDatabase(home: GatewayHome): Promise<Database> {
  if (home.env.DATABASE_URL) {
    const schema = /search_path=(\S+)/.exec(home.env.PGOPTIONS ?? '')?.[1];
    return openDatabase({ databaseUrl: home.env.DATABASE_URL, schema, poolSize: 2 });
  }
  return openDatabase({ databaseUrl: null, dataDir: home.dataDir, lockHolder: 'test' });
}

/** A minimal API client for a running gateway (sandbox). */
export function client(url: string, creds: { api_key: string; signature: string }) {
  const auth = `Basic ${Buffer.from(`${creds.api_key}:`).toString('base64')}`;
  return {
    async get(p: string) {
      const r = await fetch(`${url}/v1/sandbox${p}`, { headers: { authorization: auth } });
      return { status: r.status, body: (await r.json()) as any };
    },
    async post(p: string, body: Record<string, unknown> = {}) {
      const r = await fetch(`${url}/v1/sandbox${p}`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ signature: creds.signature, ...body }),
      });
      return { status: r.status, body: (await r.json()) as any };
    },
  };
}
