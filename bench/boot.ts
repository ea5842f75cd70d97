/**
 * npm run bench:boot: how long a process of the gateway takes to be useful, on the embedded database:
 * a `paygate` command (`paygate migrate --json` on a database already migrated: load, open, check) and a
 * gateway from `node dist/server.js` until it prints "paygate listening" (no sandbox merchant to create).
 * Also the first start on an empty data directory (PGlite's initdb and every migration), once per run.
 * Runs the build in dist/ as `npm start` and bin/paygate.js do (built first when stale); BENCH_RUNS
 * starts of each (default 5), median and range. Prints a Markdown table.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
// @ts-expect-error: a plain JavaScript build script without type declarations
import { build, isStale } from '../scripts/build.mjs';
import { freePort, median } from './kit.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const root = path.resolve(import.meta.dirname, '..');

function env(dataDir: string, port = 0): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, PAYGATE_DATA_DIR: dataDir, PAYGATE_BOOTSTRAP_SANDBOX: 'false', PORT: String(port), HOST: '127.0.0.1', PAYGATE_LOG_LEVEL: 'info' };
  delete e.DATABASE_URL;
  return e;
}

function command(dataDir: string): number {
  const started = performance.now();
  execFileSync(process.execPath, ['bin/paygate.js', 'migrate', '--json'], { cwd: root, env: env(dataDir), stdio: 'pipe' });
  return performance.now() - started;
}

async function gateway(dataDir: string): Promise<number> {
  const started = performance.now();
  const proc = spawn(process.execPath, ['--enable-source-maps', 'dist/server.js'], { cwd: root, env: env(dataDir, await freePort()), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listening = await new Promise<number>((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('paygate listening')) resolve(performance.now() - started);
    });
    proc.on('exit', (code) => reject(new Error(`gateway exited with ${code}\n${out}`)));
  });
  proc.removeAllListeners('exit');
  await new Promise((r) => {
    proc.on('exit', r);
    proc.kill('SIGTERM');
  });
  return listening;
}

const row = (label: string, xs: number[]) =>
  `| ${label} | ${(median(xs) / 1000).toFixed(2)} s | ${(Math.min(...xs) / 1000).toFixed(2)}–${(Math.max(...xs) / 1000).toFixed(2)} s |`;

if (isStale()) await build();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-boot-'));
try {
  const first = command(dataDir);
  const commands: number[] = [];
  const gateways: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    commands.push(command(dataDir));
    gateways.push(await gateway(dataDir));
  }
  console.log(`${RUNS} runs, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)}\n`);
  console.log('| step | median | range |\n|---|---:|---:|');
  console.log(row('`paygate migrate --json`, first run (empty data directory: initdb, every migration)', [first]));
  console.log(row('`paygate migrate --json` (database up to date)', commands));
  console.log(row('gateway start until "paygate listening"', gateways));
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
