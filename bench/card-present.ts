/**
 * npm run bench:card-present: card-present payments per second (K1, a chip read with a PIN, through the
 * device's bearer token) next to the direct-payment flow of the same run (B1 create order + B10 pay it
 * with a stored card), on PostgreSQL, the compiled gateway (dist/) as `npm start` runs it.
 *
 * Both are "one payment": K1 creates and pays its order in one call, the direct flow takes two calls.
 * Each phase runs BENCH_CONCURRENCY clients for BENCH_SECONDS; client c uses merchant c % BENCH_MERCHANTS
 * and a device of its own (its STANs count up). Every figure is the median of BENCH_RUNS runs, each on a
 * fresh gateway and schema; the ratio is taken within each run, then its median.
 *
 * Settings (environment): BENCH_CONCURRENCY (32), BENCH_SECONDS (10), BENCH_RUNS (3), BENCH_MERCHANTS (8),
 * TEST_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test). Prints a Markdown report.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { freePort, median, pct } from './kit.js';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const MERCHANTS = Number(process.env.BENCH_MERCHANTS ?? 8);
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const PIN = { block: '041234FFFFFFFFFF', format: 0 };
const CARD = '4548812049400004';

const agent = new Agent({ connections: CONCURRENCY * 2, pipelining: 1, keepAliveTimeout: 30_000 });
type Res = { status: number; body: any };

function spawnGateway(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const proc: ChildProcess = spawn(process.execPath, ['dist/server.js'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (!/PAYGATE_SERVICE=/.test(out)) return;
      proc.stdout!.off('data', onData);
      proc.removeAllListeners('exit');
      resolve({
        url: `http://127.0.0.1:${env.PORT}`,
        stop: () => new Promise((r) => (proc.exitCode !== null ? r() : (proc.once('exit', () => r()), proc.kill('SIGTERM')))),
      });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', (d) => (out += d.toString()));
    proc.once('exit', (code) => reject(new Error(`gateway exited ${code}:\n${out}`)));
  });
}

async function call(url: string, method: 'GET' | 'POST', p: string, auth: { api_key: string; signature: string } | { token: string } | null, body?: Record<string, unknown>): Promise<Res> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  let payload = body;
  if (auth && 'api_key' in auth) {
    headers.authorization = `Basic ${Buffer.from(`${auth.api_key}:`).toString('base64')}`;
    if (body) payload = { signature: auth.signature, ...body };
  } else if (auth) headers.authorization = `Bearer ${auth.token}`;
  const res = await request(`${url}${p}`, { method, headers, body: payload ? JSON.stringify(payload) : undefined, dispatcher: agent });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : null };
}

function must(step: string, r: Res, check?: (b: any) => boolean): void {
  if (r.status >= 400 || (check && !check(r.body))) throw new Error(`${step}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
}

interface Stat {
  rps: number;
  p50: number;
  p99: number;
}

/** Runs `pay` (one payment, however many calls) in CONCURRENCY loops for `seconds`. */
async function phase(seconds: number, pay: (c: number) => Promise<void>): Promise<Stat> {
  const lat: number[] = [];
  let errors = 0;
  let firstError: unknown = null;
  const end = Date.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, c) => {
      while (Date.now() < end) {
        const s = performance.now();
        try {
          await pay(c);
          lat.push(performance.now() - s);
        } catch (err) {
          firstError ??= err;
          if (++errors > 50) throw err;
        }
      }
    }),
  );
  if (lat.length === 0 && firstError) throw firstError;
  if (errors > 0) process.stderr.write(`${errors} failed payments (first: ${(firstError as Error)?.message})\n`);
  const elapsed = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  return { rps: lat.length / elapsed, p50: pct(lat, 50), p99: pct(lat, 99) };
}

async function oneRun(): Promise<{ direct: Stat; cardPresent: Stat }> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-'));
  const env = { DATABASE_URL: PG_URL, PGOPTIONS: `-c search_path=${schema}`, PAYGATE_DATA_DIR: dataDir, PAYGATE_LOG_LEVEL: 'warn', PAYGATE_RATE_LIMIT_SANDBOX: '1000000', PORT: String(await freePort()) };
  const gw = await spawnGateway(env);
  try {
    const boot = JSON.parse(fs.readFileSync(path.join(dataDir, 'sandbox-credentials.json'), 'utf8'));
    const base = '/v1/sandbox';
    const merchants: Array<{ creds: { api_key: string; signature: string }; service: string }> = [];
    for (let i = 0; i < MERCHANTS; i++) {
      const c = await call(gw.url, 'POST', `${base}/client`, boot, { name: `bench ${i}`, email: `b${i}@example.com`, timezone: 'Europe/Madrid', is_pci: true });
      must('merchant', c);
      const creds = { api_key: c.body.client.api_key, signature: c.body.client.signature };
      const term = await call(gw.url, 'POST', `${base}/terminal`, creds, { currency_code: 'EUR', type: 'PAYGATE', description: 'bench' });
      const svc = await call(gw.url, 'POST', `${base}/service`, creds, { name: 'bench', type: 'PAYGATE', terminal_uuid: term.body.terminal.uuid });
      must('service', svc);
      merchants.push({ creds, service: svc.body.service.uuid });
    }
    const m = (c: number) => merchants[c % merchants.length];
    // the direct flow pays with a stored card of the client's customer; K1 with a device of the client's own
    const cards: string[] = [];
    const devices: Array<{ token: string; mid: string; stan: number }> = [];
    for (let c = 0; c < CONCURRENCY; c++) {
      const first = await call(gw.url, 'POST', `${base}/payment/single-step`, m(c).creds, {
        amount: 100, operative: 'AUTHORIZATION', secure: false, description: 'card', customer_ext_id: `bench-customer-${c}`, service: m(c).service,
        card_holder: 'Bench Customer', card_pan: CARD, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
      });
      must('setup payment', first);
      cards.push(first.body.order.transactions[0].source.uuid);
      const d = await call(gw.url, 'POST', `${base}/device`, m(c).creds, { service: m(c).service, identifier: `bench-pos-${c}`, communication_type: 'SOCKET' });
      must('device', d);
      devices.push({ token: d.body.token, mid: d.body.device.mid, stan: 0 });
    }
    const direct = async (c: number) => {
      const o = await call(gw.url, 'POST', `${base}/payment`, m(c).creds, { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'bench order', service: m(c).service, customer_ext_id: `bench-customer-${c}` });
      must('create order', o);
      must('direct payment', await call(gw.url, 'POST', `${base}/payment/direct`, m(c).creds, { order_uuid: o.body.order.uuid, card_uuid: cards[c] }), (b) => b.order.status === 'SUCCESS');
    };
    const cardPresent = async (c: number) => {
      const d = devices[c];
      must('K1', await call(gw.url, 'POST', `${base}/card-present/payment`, { token: d.token }, {
        card: { track2: `${CARD}=4912201000000000` }, amount: 1000, currency: 'EUR', mid: d.mid, stan: String(++d.stan), card_reading_method: 'ICC',
        card_sequence_number: '001', pin: PIN, device: { serial_number: `SN-${c}`, model: 'bench' }, sca: null,
      }), (b) => b.order.status === 'SUCCESS');
    };
    // warm-up of both, then each alone
    await phase(2, direct);
    await phase(2, cardPresent);
    const d = await phase(SECONDS, direct);
    const k = await phase(SECONDS, cardPresent);
    return { direct: d, cardPresent: k };
  } finally {
    await gw.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    await admin.query(`drop schema ${schema} cascade`).catch(() => {});
    await admin.end();
  }
}

const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

async function main() {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const runs: Array<{ direct: Stat; cardPresent: Stat }> = [];
  for (let r = 0; r < RUNS; r++) {
    runs.push(await oneRun());
    process.stderr.write(`run ${r + 1}/${RUNS}: direct ${f(runs[r].direct.rps)}/s, card-present ${f(runs[r].cardPresent.rps)}/s\n`);
  }
  const med = (k: 'direct' | 'cardPresent', s: keyof Stat) => median(runs.map((x) => x[k][s]));
  const cpus = os.cpus();
  const lines = [
    `Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`,
    `PostgreSQL, compiled build (dist/). ${CONCURRENCY} clients, ${SECONDS} s per phase, medians of ${RUNS} run(s).`,
    '',
    '| payment | payments/s | p50 / p99 ms |',
    '|---|---|---|',
    `| direct flow (B1 create + B10 stored card) | ${f(med('direct', 'rps'))} | ${f(med('direct', 'p50'))} / ${f(med('direct', 'p99'))} |`,
    `| card-present K1 (chip + PIN, device token) | ${f(med('cardPresent', 'rps'))} | ${f(med('cardPresent', 'p50'))} / ${f(med('cardPresent', 'p99'))} |`,
    '',
    `Card-present: ${f(median(runs.map((x) => (100 * x.cardPresent.rps) / x.direct.rps)))}% of the direct flow's payments per second (median of the per-run ratios).`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify(runs, null, 2));
  await agent.close();
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
