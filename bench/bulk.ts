/**
 * npm run bench:bulk: background work at full size on PostgreSQL, next to the direct-payment flow of the
 * same run.
 *
 *   direct     BENCH_DIRECT payments (3,000), each `POST /payment` with url_post then
 *              `POST /payment/direct` with a stored card, by BENCH_CONCURRENCY clients (32): payments/s
 *              from the first request until every notification has been received.
 *   due        BENCH_BULK subscriptions (10,000) of a monthly plan whose product has a notification_url,
 *              all due at the same instant (the sandbox test clock moves past their first charge):
 *              charges/s from the clock move until every subscription payment is PAID and every
 *              subscription payment notification has been received.
 *   file       a payments file (H1) of BENCH_BULK rows (10,000), each with URL_POST: rows/s from the
 *              upload until the file is COMPLETED and every order notification has been received.
 *
 * The gateway runs as `npm start` runs it (the compiled build in dist/, an API process and its worker
 * process, default settings) on PostgreSQL in a schema of its own; one fresh gateway and schema per run.
 * The ratios (due and file over direct) are taken within each run, then their median over BENCH_RUNS (3).
 *
 * BENCH_BEFORE=<another checkout> also measures that checkout (e.g. the previous commit, unpacked with
 * `git archive`) in every run, before this one, so both see the same machine.
 *
 * Settings (environment): BENCH_BULK (10000), BENCH_DIRECT (3000), BENCH_CONCURRENCY (32), BENCH_RUNS (3),
 * BENCH_PHASES (direct,due,file), BENCH_BEFORE, BENCH_GATEWAY_ENV (extra gateway settings,
 * `A=1,B=2`), BENCH_GATEWAY_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`; the workers get them
 * too), BENCH_JSON (write the raw figures there), TEST_DATABASE_URL
 * (postgres://postgres@127.0.0.1:5432/test). Prints a Markdown report.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { freePort, median } from './kit.js';

const BULK = Number(process.env.BENCH_BULK ?? 10_000);
const DIRECT = Number(process.env.BENCH_DIRECT ?? 3_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const PHASES = new Set((process.env.BENCH_PHASES ?? 'direct,due,file').split(','));
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const HERE = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const BEFORE = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE) : null;
const EXTRA_ENV: Record<string, string> = Object.fromEntries(
  (process.env.BENCH_GATEWAY_ENV ?? '')
    .split(',')
    .filter(Boolean)
    .map((kv) => kv.split('=') as [string, string]),
);
const APPROVED_CARD = '4548812049400004';

const agent = new Agent({ connections: CONCURRENCY * 2, pipelining: 1, keepAliveTimeout: 30_000 });
type Res = { status: number; body: any };
type Creds = { api_key: string; signature: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (s: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${s}\n`);

async function call(url: string, method: 'GET' | 'POST', p: string, creds: Creds | null, body?: Record<string, unknown>): Promise<Res> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (creds) headers.authorization = `Basic ${Buffer.from(`${creds.api_key}:`).toString('base64')}`;
  const res = await request(`${url}${p}`, {
    method,
    headers,
    body: body ? JSON.stringify(creds ? { signature: creds.signature, ...body } : body) : undefined,
    dispatcher: agent,
    headersTimeout: 300_000,
    bodyTimeout: 300_000,
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : null };
}

function must(step: string, r: Res, check?: (b: any) => boolean): any {
  if (r.status >= 400 || (check && !check(r.body))) throw new Error(`${step}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
  return r.body;
}

/** Runs `work(i)` for i in [0, n) on CONCURRENCY loops. */
async function pool(n: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

/** Counts the notifications received on each path (distinct Paygate-Event ids, and all deliveries). */
function receiver(): Promise<{ url: string; distinct(path: string): number; deliveries(path: string): number; close(): Promise<void> }> {
  const events = new Map<string, Set<string>>();
  const all = new Map<string, number>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const p = (req.url ?? '/').split('?')[0];
      const id = String(req.headers['paygate-event'] ?? randomBytes(8).toString('hex'));
      if (!events.has(p)) events.set(p, new Set());
      events.get(p)!.add(id);
      all.set(p, (all.get(p) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
    });
  });
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      resolve({
        url: `http://127.0.0.1:${port}`,
        distinct: (p) => events.get(p)?.size ?? 0,
        deliveries: (p) => all.get(p) ?? 0,
        close: () => new Promise((r) => server.close(() => r())),
      });
    }),
  );
}

type Rx = Awaited<ReturnType<typeof receiver>>;

interface Gateway {
  url: string;
  db: pg.Client;
  /** The key of the sandbox merchant made at first start. */
  boot: Creds;
  stop(): Promise<void>;
}

/** Starts the compiled gateway of `root` (API process + worker process) on a schema of its own. */
async function startGateway(root: string): Promise<Gateway> {
  const schema = `bulk_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.query(`set search_path = ${schema}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-bulk-'));
  const port = await freePort();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATABASE_URL: PG_URL,
    PGOPTIONS: `-c search_path=${schema}`,
    PAYGATE_DATA_DIR: dataDir,
    PAYGATE_LOG_LEVEL: 'warn',
    PAYGATE_RATE_LIMIT_SANDBOX: '1000000',
    PORT: String(port),
    ...EXTRA_ENV,
  };
  const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const proc: ChildProcess = spawn(process.execPath, [...nodeArgs, '--enable-source-maps', 'dist/server.js'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out = (out + d.toString()).slice(-20_000)));
  proc.stderr!.on('data', (d) => (out = (out + d.toString()).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`gateway exited ${proc.exitCode}:\n${out}`);
    if (/PAYGATE_SERVICE=/.test(out)) break;
    if (Date.now() > deadline) throw new Error(`gateway did not start:\n${out}`);
    await sleep(100);
  }
  const boot = JSON.parse(fs.readFileSync(path.join(dataDir, 'sandbox-credentials.json'), 'utf8')) as Creds;
  return {
    url,
    db: admin,
    boot,
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise<void>((r) => proc.once('exit', () => r()));
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(t);
      }
      if (/job failed permanently|"level":50/.test(out)) log(`gateway errors:\n${out.slice(-4000)}`);
      await admin.query(`drop schema ${schema} cascade`).catch(() => {});
      await admin.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface Shop {
  creds: Creds;
  merchantId: string;
  service: string;
  cards: string[];
}

/** A PCI merchant with a service and `cards` stored cards (one customer each). */
async function shop(gw: Gateway, boot: Creds, name: string, cards: number): Promise<Shop> {
  const base = '/v1/sandbox';
  const c = must('client', await call(gw.url, 'POST', `${base}/client`, boot, { name, email: `${name}@example.com`, timezone: 'Europe/Madrid', is_pci: true }));
  const creds = { api_key: c.client.api_key, signature: c.client.signature };
  const term = must('terminal', await call(gw.url, 'POST', `${base}/terminal`, creds, { currency_code: 'EUR', type: 'PAYGATE', description: name }));
  const svc = must('service', await call(gw.url, 'POST', `${base}/service`, creds, { name, type: 'PAYGATE', terminal_uuid: term.terminal.uuid }));
  const out: string[] = [];
  for (let i = 0; i < cards; i++) {
    const r = must('card', await call(gw.url, 'POST', `${base}/payment-method/card`, creds, { customer_ext_id: `${name}-${i}`, card_holder: 'Bench Customer', card_pan: APPROVED_CARD, card_expiry_month: '12', card_expiry_year: '2030' }));
    out.push(r.Source.uuid);
  }
  return { creds, merchantId: c.client.uuid, service: svc.service.uuid, cards: out };
}

async function waitFor(what: string, done: () => Promise<boolean>, limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not done after ${limitMs / 1000} s`);
    await sleep(50);
  }
}

interface Figures {
  direct?: number;
  due?: number;
  dueSetup?: number;
  file?: number;
  fileUpload?: number;
  duplicates: number;
}

async function measureGateway(root: string, rx: Rx, tag: string): Promise<Figures> {
  const gw = await startGateway(root);
  const base = '/v1/sandbox';
  const figures: Figures = { duplicates: 0 };
  try {
    const boot = gw.boot;

    // ---- direct: create with url_post, pay with a stored card ------------------------------------------
    if (PHASES.has('direct')) {
      const s = await shop(gw, boot, `direct${tag}`, CONCURRENCY);
      const p = `/direct${tag}`;
      const t0 = performance.now();
      await pool(DIRECT, async (i) => {
        const c = i % CONCURRENCY;
        const o = must('create', await call(gw.url, 'POST', `${base}/payment`, s.creds, { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'bench', service: s.service, customer_ext_id: `direct${tag}-${c}`, url_post: `${rx.url}${p}` }));
        must('pay', await call(gw.url, 'POST', `${base}/payment/direct`, s.creds, { order_uuid: o.order.uuid, card_uuid: s.cards[c] }), (b) => b.order.status === 'SUCCESS');
      });
      const answered = (performance.now() - t0) / 1000;
      await waitFor('direct notifications', async () => rx.distinct(p) >= DIRECT, 600_000);
      const secs = (performance.now() - t0) / 1000;
      figures.direct = DIRECT / secs;
      figures.duplicates += rx.deliveries(p) - rx.distinct(p);
      log(`${tag || 'after'}: direct ${DIRECT} payments answered in ${answered.toFixed(1)} s, notified in ${secs.toFixed(1)} s: ${figures.direct.toFixed(1)}/s`);
    }

    // ---- due: BULK subscriptions charged at the same instant --------------------------------------------
    if (PHASES.has('due')) {
      const s = await shop(gw, boot, `subs${tag}`, 8);
      const p = `/subs${tag}`;
      must('product', await call(gw.url, 'POST', `${base}/subscriptions/product`, s.creds, { name: 'Gym', external_id: 'gym', notification_url: `${rx.url}${p}` }));
      must('plan', await call(gw.url, 'POST', `${base}/subscriptions/plan`, s.creds, { name: 'Monthly', external_id: 'monthly', product: 'gym', amount: 2990, interval: 1, interval_type: 'MONTHLY' }));
      const day = new Date(Date.now() + 2 * 86400_000).toISOString().slice(0, 10);
      const t00 = performance.now();
      await pool(BULK, async (i) => {
        const c = i % s.cards.length;
        must('subscribe', await call(gw.url, 'POST', `${base}/subscriptions/subscription`, s.creds, {
          plan: 'monthly', customer: `subs${tag}-${c}`, payment_attempts_limit: 3, initial_date: day, additional_data: { source_uuid: s.cards[c], service: s.service },
        }), (b) => b.status === 'CREATED');
      });
      figures.dueSetup = (performance.now() - t00) / 1000;
      log(`${tag || 'after'}: ${BULK} subscriptions registered in ${figures.dueSetup.toFixed(1)} s`);
      const t0 = performance.now();
      must('test clock', await call(gw.url, 'POST', `${base}/test-clock`, s.creds, { advance_seconds: 3 * 86400 }));
      let shown = 0;
      await waitFor('due charges', async () => {
        const { rows } = await gw.db.query(`select count(*) filter (where status = 'PAID')::int as paid, count(*) filter (where status <> 'PAID' and status <> 'CREATED')::int as failed from subscription_payments where merchant_id = $1`, [s.merchantId]);
        if (performance.now() - shown > 10_000) {
          shown = performance.now();
          log(`  paid ${rows[0].paid}, failed ${rows[0].failed}, notified ${rx.distinct(p)}`);
        }
        if (rows[0].failed > 0) throw new Error(`due charges: ${rows[0].failed} failed`);
        return rows[0].paid >= BULK && rx.distinct(p) >= BULK;
      }, 3_600_000);
      const secs = (performance.now() - t0) / 1000;
      figures.due = BULK / secs;
      figures.duplicates += rx.deliveries(p) - rx.distinct(p);
      log(`${tag || 'after'}: ${BULK} due charges charged and notified in ${secs.toFixed(1)} s: ${figures.due.toFixed(1)}/s`);
    }

    // ---- file: a payments file of BULK rows --------------------------------------------------------------
    if (PHASES.has('file')) {
      const s = await shop(gw, boot, `file${tag}`, 8);
      const p = `/file${tag}`;
      const lines = ['AMOUNT,CARD,CUSTOMER_EXTERNAL_ID,SERVICE,URL_POST'];
      for (let i = 0; i < BULK; i++) lines.push(`${100 + (i % 900)},${s.cards[i % s.cards.length]},file${tag}-${i % s.cards.length},${s.service},${rx.url}${p}`);
      const data = Buffer.from(lines.join('\n')).toString('base64');
      const t0 = performance.now();
      const sub = must('file', await call(gw.url, 'POST', `${base}/batch/authorizations`, s.creds, { data, filename: 'bench.csv' }));
      figures.fileUpload = (performance.now() - t0) / 1000;
      const id = sub.batch.uuid;
      let shown = 0;
      await waitFor('file', async () => {
        const { rows } = await gw.db.query(`select status from batch_files where id = $1`, [id]);
        if (performance.now() - shown > 10_000) {
          shown = performance.now();
          const done = await gw.db.query(`select count(*)::int as n from batch_lines where batch_id = $1 and status in ('SUCCEEDED', 'FAILED')`, [id]);
          log(`  lines done ${done.rows[0].n}, notified ${rx.distinct(p)}`);
        }
        return rows[0]?.status === 'COMPLETED' && rx.distinct(p) >= BULK;
      }, 3_600_000);
      const secs = (performance.now() - t0) / 1000;
      const { rows } = await gw.db.query(`select count(*) filter (where status = 'SUCCEEDED')::int as ok from batch_lines where batch_id = $1`, [id]);
      if (rows[0].ok !== BULK) throw new Error(`file: ${BULK - rows[0].ok} lines did not succeed`);
      figures.file = BULK / secs;
      figures.duplicates += rx.deliveries(p) - rx.distinct(p);
      log(`${tag || 'after'}: file of ${BULK} rows accepted in ${figures.fileUpload.toFixed(1)} s, settled and notified in ${secs.toFixed(1)} s: ${figures.file.toFixed(1)}/s`);
    }
  } finally {
    await gw.stop();
  }
  return figures;
}

const f = (n: number | undefined, d = 1) => (n !== undefined && Number.isFinite(n) ? n.toFixed(d) : '-');

async function main() {
  const roots: Array<{ label: string; root: string; tag: string }> = [];
  if (BEFORE) roots.push({ label: 'before', root: BEFORE, tag: 'b' });
  roots.push({ label: BEFORE ? 'after' : 'this code', root: HERE, tag: '' });
  for (const r of roots) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: r.root, stdio: 'inherit' });
  const rx = await receiver();
  const runs: Array<Record<string, Figures>> = [];
  for (let i = 0; i < RUNS; i++) {
    const one: Record<string, Figures> = {};
    for (const r of roots) one[r.label] = await measureGateway(r.root, rx, `${r.tag}${i}`);
    runs.push(one);
    log(`run ${i + 1}/${RUNS} done`);
  }
  await rx.close();

  const cpus = os.cpus();
  const lines: string[] = [];
  lines.push(`Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load average at the end ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  lines.push(`${BULK.toLocaleString('en')} subscriptions / rows, ${DIRECT.toLocaleString('en')} direct payments at ${CONCURRENCY} clients; medians of ${RUNS} run(s); ratios taken within each run.`);
  lines.push('');
  lines.push('| run | code | direct payments/s | due charges/s | % of direct | file rows/s | % of direct | subscribe, s | upload, s | duplicate deliveries |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  const pctOf = (x: number | undefined, y: number | undefined) => (x !== undefined && y ? (100 * x) / y : NaN);
  runs.forEach((one, i) => {
    for (const r of roots) {
      const g = one[r.label];
      lines.push(`| ${i + 1} | ${r.label} | ${f(g.direct)} | ${f(g.due)} | ${f(pctOf(g.due, g.direct))}% | ${f(g.file)} | ${f(pctOf(g.file, g.direct))}% | ${f(g.dueSetup)} | ${f(g.fileUpload)} | ${g.duplicates} |`);
    }
  });
  for (const r of roots) {
    const col = (k: keyof Figures) => median(runs.map((x) => x[r.label][k] as number));
    const ratio = (k: 'due' | 'file') => median(runs.map((x) => pctOf(x[r.label][k], x[r.label].direct)));
    lines.push(`| **median** | ${r.label} | ${f(col('direct'))} | ${f(col('due'))} | **${f(ratio('due'))}%** | ${f(col('file'))} | **${f(ratio('file'))}%** | ${f(col('dueSetup'))} | ${f(col('fileUpload'))} | |`);
  }
  process.stdout.write(lines.join('\n') + '\n');
  if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify(runs, null, 2));
  await agent.close();
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
