/**
 * The embedded database belongs to one process: while `npm start` runs on a data directory, the
 * operator command and a second gateway refuse with a message saying what to do (nothing is written
 * where the gateway would not see it); once the gateway stops, or its lock is stale (the process died),
 * the command works. And `npm start` on a port in use says so in one line before anything else happens.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../helpers/db.js';
import { freePort, gatewayEnv, printedExports, startGateway, type Gateway, type GatewayEnv } from '../helpers/process.js';

const run = promisify(execFile);

async function paygate(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', ['bin/paygate.js', ...args], { env: { ...process.env, ...env, PAYGATE_TEST_DB: '', CI: '' } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Runs `npm start` to its end (it is expected to fail) and gives its exit code and output. */
async function npmStartFails(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn('npm', ['start', '--silent'], { env: { ...process.env, ...env, PAYGATE_TEST_DB: '', CI: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => (stdout += d));
  proc.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => proc.on('exit', resolve));
  return { code, stdout, stderr };
}

/** Waits until the process (the gateway's node process, which npm may outlive or predecease) has exited. */
async function processGone(pid: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    const stat = fs.existsSync(`/proc/${pid}/stat`) ? fs.readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
    if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`process ${pid} did not exit`);
}

describe.skipIf(testDbKind() === 'postgres')('the embedded database is locked by the gateway that owns it', () => {
  let g: GatewayEnv;
  let gw: Gateway;

  beforeAll(async () => {
    g = await gatewayEnv();
    gw = await startGateway(g, ['npm', 'start']);
  });
  afterAll(async () => {
    await gw?.stop();
    await g?.cleanup();
  });

  it('the lock file names the gateway: its pid and URL', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(g.dataDir, 'paygate.lock'), 'utf8'));
    expect(lock).toMatchObject({ holder: 'gateway', url: g.url, hostname: os.hostname() });
    expect(() => process.kill(lock.pid, 0)).not.toThrow();
  });

  it('`paygate merchant create` while the gateway runs refuses, says what to do, and creates nothing', async () => {
    const r = await paygate(g.env, 'merchant', 'create', '--json');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`the embedded database in ${g.dataDir} is in use by a running paygate gateway`);
    expect(r.stderr).toContain(g.url);
    expect(r.stderr).toContain('stop the gateway (Ctrl-C) and run this again, or do it through the running gateway (its API)');
    // a full key rotation is refused before it touches the key file
    const keysBefore = fs.readdirSync(g.dataDir).sort();
    const rot = await paygate(g.env, 'vault', 'rotate', '--json');
    expect(rot.code).toBe(1);
    expect(rot.stderr).toContain('is in use by a running paygate gateway');
    expect(fs.readdirSync(g.dataDir).sort()).toEqual(keysBefore);
  });

  it('a second gateway on the same data directory refuses in one line', async () => {
    const other = await npmStartFails({ ...g.env, PORT: String(await freePort()) });
    expect(other.code).not.toBe(0);
    expect(other.stderr.trim().split('\n')).toEqual([expect.stringContaining('is in use by a running paygate gateway')]);
    expect(other.stdout).not.toContain('PAYGATE_API_KEY');
    // the first one still serves
    expect((await fetch(`${g.url}/healthz`)).status).toBe(200);
  });

  it('once the gateway stops the lock is gone, and what the command creates works against the restarted gateway', async () => {
    const { pid } = JSON.parse(fs.readFileSync(path.join(g.dataDir, 'paygate.lock'), 'utf8'));
    await gw.stop('SIGTERM');
    await processGone(pid);
    expect(fs.existsSync(path.join(g.dataDir, 'paygate.lock'))).toBe(false);
    const r = await paygate(g.env, 'merchant', 'create', '--json');
    expect(r.code, r.stderr).toBe(0);
    const created = JSON.parse(r.stdout);
    gw = await startGateway(g, ['npm', 'start']);
    const res = await fetch(`${g.url}/v1/sandbox/auth/check`, { headers: { authorization: `Bearer ${created.api_key}` } });
    expect(res.status).toBe(200);
    expect(printedExports(gw.stdout()).PAYGATE_URL).toBe(g.url);
  });

  it('a stale lock (its process died without removing it) is taken over', async () => {
    const { pid } = JSON.parse(fs.readFileSync(path.join(g.dataDir, 'paygate.lock'), 'utf8'));
    await gw.stop('SIGTERM');
    await processGone(pid);
    // a process that has exited: its pid is not running any more
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => dead.on('exit', resolve));
    fs.writeFileSync(
      path.join(g.dataDir, 'paygate.lock'),
      JSON.stringify({ pid: dead.pid, hostname: os.hostname(), started_at: new Date().toISOString(), holder: 'gateway', url: g.url }),
    );
    const r = await paygate(g.env, 'merchant', 'create', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(fs.existsSync(path.join(g.dataDir, 'paygate.lock'))).toBe(false);
  });
});

describe('npm start on a port in use', () => {
  let g: GatewayEnv;
  let squatter: net.Server;

  beforeAll(async () => {
    g = await gatewayEnv();
    squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(g.port, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => squatter?.close(resolve));
    await g?.cleanup();
  });

  it('prints one clear line before anything else happens and exits non-zero', async () => {
    const r = await npmStartFails(g.env);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      `paygate: port ${g.port} on 127.0.0.1 is already in use (another paygate or another program): stop it, or start paygate on another port with PORT=<n> npm start`,
    ]);
    // nothing happened: no log line, no migration, no credentials, no database files
    expect(r.stdout.trim()).toBe('');
    expect(fs.existsSync(path.join(g.dataDir, 'pgdata'))).toBe(false);
    if (g.db) {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = ${g.db.schema}`.execute(g.db.database.db);
      expect(rows[0].n).toBe(0);
    }
  });
});
