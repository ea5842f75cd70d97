/**
 * npm run bench: the gateway on PostgreSQL and on PGlite, driven by concurrent merchants through
 * create order → direct payment → partial refund → read order, and card-present payments (K1 with a
 * PIN, one payment terminal per client), next to a baseline measured in the same run (a bare Fastify
 * endpoint doing one PostgreSQL insert per request).
 *
 * Settings (environment): BENCH_CONCURRENCY (32), BENCH_SECONDS (10, per phase), BENCH_MERCHANTS (8),
 * BENCH_ENGINES (postgres,pglite), TEST_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test).
 * Prints a Markdown report.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const MERCHANTS = Number(process.env.BENCH_MERCHANTS ?? 8);
const ENGINES = (process.env.BENCH_ENGINES ?? 'postgres,pglite').split(',');
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

const agent = new Agent({ connections: CONCURRENCY * 2, pipelining: 1, keepAliveTimeout: 30_000 });

interface Proc {
  proc: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

function spawnServer(script: string, env: Record<string, string>, ready: (out: string) => number | null, nodeArgs: string[] = []): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const port = ready(out);
      if (port) {
        proc.stdout!.off('data', onData);
        resolve({
          proc,
          url: `http://127.0.0.1:${port}`,
          stop: () => new Promise((r) => (proc.exitCode !== null ? r() : (proc.once('exit', () => r()), proc.kill('SIGTERM')))),
        });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', (d) => (out += d.toString()));
    proc.once('exit', (code) => reject(new Error(`${script} exited ${code}:\n${out}`)));
  });
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as import('node:net').AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

async function call(url: string, method: 'GET' | 'POST', p: string, creds: { api_key: string; signature: string } | { device_token: string } | null, body?: Record<string, unknown>) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (creds && 'device_token' in creds) {
    headers.authorization = `Bearer ${creds.device_token}`;
    const res = await request(`${url}${p}`, { method, headers, body: body ? JSON.stringify(body) : undefined, dispatcher: agent });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? JSON.parse(text) : null };
  }
  if (creds) headers.authorization = `Basic ${Buffer.from(`${creds.api_key}:`).toString('base64')}`;
  const res = await request(`${url}${p}`, {
    method,
    headers,
    body: body ? JSON.stringify(creds ? { signature: creds.signature, ...body } : body) : undefined,
    dispatcher: agent,
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : null };
}

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface PhaseResult {
  rps: number;
  count: number;
  errors: number;
  steps: Record<string, { p50: number; p99: number; n: number }>;
}

/** Runs `flow` in CONCURRENCY loops for SECONDS; each flow reports its steps' latencies. */
async function phase(flow: (client: number, time: (step: string, fn: () => Promise<{ status: number }>) => Promise<any>) => Promise<void>): Promise<PhaseResult> {
  const lat: Record<string, number[]> = {};
  let count = 0;
  let errors = 0;
  const end = Date.now() + SECONDS * 1000;
  const time = async (step: string, fn: () => Promise<{ status: number; body?: any }>) => {
    const t0 = performance.now();
    const r = await fn();
    (lat[step] ??= []).push(performance.now() - t0);
    if (r.status >= 400) {
      errors++;
      throw new Error(`${step}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    }
    return r;
  };
  const t0 = Date.now();
  let firstError: Error | null = null;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, c) => {
      while (Date.now() < end) {
        try {
          await flow(c, time);
          count++;
        } catch (err) {
          firstError ??= err as Error;
          if (errors > 100) throw err;
        }
      }
    }),
  );
  if (firstError && count === 0) throw firstError;
  const elapsed = (Date.now() - t0) / 1000;
  const steps: PhaseResult['steps'] = {};
  for (const [k, v] of Object.entries(lat)) {
    v.sort((a, b) => a - b);
    steps[k] = { p50: pct(v, 50), p99: pct(v, 99), n: v.length };
  }
  return { rps: count / elapsed, count, errors, steps };
}

async function benchBaseline(): Promise<PhaseResult> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const port = await freePort();
  const srv = await spawnServer('bench/baseline.ts', { DATABASE_URL: PG_URL, PGOPTIONS: `-c search_path=${schema}`, PORT: String(port) }, (out) => {
    const m = /listening (\d+)/.exec(out);
    return m ? Number(m[1]) : null;
  });
  try {
    return await phase(async (_c, time) => {
      await time('insert', () => call(srv.url, 'POST', '/baseline', null, { amount: 1000, description: 'baseline' }));
    });
  } finally {
    await srv.stop();
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  }
}

interface Merchant {
  creds: { api_key: string; signature: string };
  service: string;
}

async function benchGateway(engine: 'postgres' | 'pglite') {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-'));
  const env: Record<string, string> = {
    PAYGATE_DATA_DIR: dataDir,
    PAYGATE_LOG_LEVEL: 'warn',
    PAYGATE_RATE_LIMIT_SANDBOX: '1000000',
    PORT: String(await freePort()),
  };
  let schema: string | null = null;
  const admin = new pg.Client({ connectionString: PG_URL });
  if (engine === 'postgres') {
    schema = `bench_${randomBytes(4).toString('hex')}`;
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    env.DATABASE_URL = PG_URL;
    env.PGOPTIONS = `-c search_path=${schema}`;
  }
  const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const srv = await spawnServer('src/server.ts', env, (out) => (/PAYGATE_SERVICE=/.test(out) ? Number(env.PORT) : null), nodeArgs);
  try {
    const boot = JSON.parse(fs.readFileSync(path.join(dataDir, 'sandbox-credentials.json'), 'utf8'));
    const base = '/v1/sandbox';
    // merchants: PCI children with their own service; every client pays with a card of its own customer
    // (stored by a first single-step payment)
    const merchants: Merchant[] = [];
    for (let i = 0; i < MERCHANTS; i++) {
      const c = await call(srv.url, 'POST', `${base}/client`, boot, { name: `bench ${i}`, email: `b${i}@example.com`, timezone: 'Europe/Madrid', is_pci: true });
      const creds = { api_key: c.body.client.api_key, signature: c.body.client.signature };
      const term = await call(srv.url, 'POST', `${base}/terminal`, creds, { currency_code: 'EUR', type: 'PAYGATE', description: 'bench' });
      const svc = await call(srv.url, 'POST', `${base}/service`, creds, { name: 'bench', type: 'PAYGATE', terminal_uuid: term.body.terminal.uuid });
      merchants.push({ creds, service: svc.body.service.uuid });
    }
    const m = (c: number) => merchants[c % merchants.length];
    const cards: string[] = [];
    for (let c = 0; c < CONCURRENCY; c++) {
      const first = await call(srv.url, 'POST', `${base}/payment/single-step`, m(c).creds, {
        amount: 100, operative: 'AUTHORIZATION', secure: false, description: 'card', customer_ext_id: `bench-customer-${c}`, service: m(c).service,
        card_holder: 'Bench Customer', card_pan: '4548812049400004', card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
      });
      if (first.status !== 200) throw new Error(`setup payment failed: ${JSON.stringify(first.body)}`);
      cards.push(first.body.order.transactions[0].source.uuid);
    }
    // one payment terminal per client (card-present phase)
    const devices: string[] = [];
    for (let c = 0; c < CONCURRENCY; c++) {
      const d = await call(srv.url, 'POST', `${base}/device`, m(c).creds, { service: m(c).service, identifier: `bench-pos-${c}`, communication_type: 'SOCKET' });
      if (d.status !== 200) throw new Error(`device registration failed: ${JSON.stringify(d.body)}`);
      devices.push(d.body.token);
    }
    let stan = 0;
    const cardPresentBody = () => ({
      card: { pan: '4548812049400004', expiration_date: '3012' }, amount: 1000, currency: 'EUR', stan: String(++stan),
      card_reading_method: 'ICC', pin: { block: '041234FFFFFFFFFF', format: 0 }, device: { serial_number: 'bench', model: 'bench' },
    });
    const orderBody = (mm: Merchant, c: number) => ({ amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'bench order', service: mm.service, customer_ext_id: `bench-customer-${c}` });

    // warm-up
    await phaseFor(2, async (c, time) => {
      await time('create', () => call(srv.url, 'POST', `${base}/payment`, m(c).creds, orderBody(m(c), c)));
    });

    const create = await phase(async (c, time) => {
      await time('create order', () => call(srv.url, 'POST', `${base}/payment`, m(c).creds, orderBody(m(c), c)));
    });
    if (process.env.BENCH_ONLY_CREATE) return { create, flow: create, cardPresent: null };
    const flow = await phase(async (c, time) => {
      const mm = m(c);
      const o = await time('create order', () => call(srv.url, 'POST', `${base}/payment`, mm.creds, orderBody(mm, c)));
      const id = o.body.order.uuid;
      const paid = await time('direct payment', () => call(srv.url, 'POST', `${base}/payment/direct`, mm.creds, { order_uuid: id, card_uuid: cards[c] }));
      if (paid.body.order.status !== 'SUCCESS') throw new Error(`payment not SUCCESS: ${paid.body.order.status}`);
      await time('partial refund', () => call(srv.url, 'POST', `${base}/payment/refund`, mm.creds, { order_uuid: id, amount: 300 }));
      await time('read order', () => call(srv.url, 'GET', `${base}/order/${id}`, mm.creds));
    });
    const cardPresent = await phase(async (c, time) => {
      const r = await time('card-present payment', () => call(srv.url, 'POST', `${base}/card-present/payment`, { device_token: devices[c] }, cardPresentBody()));
      if (r.body.order.status !== 'SUCCESS') throw new Error(`card-present payment not SUCCESS: ${r.body.order.status}`);
    });
    return { create, flow, cardPresent };
  } finally {
    await srv.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (schema) {
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    }
  }
}

/** A phase of `seconds` (for warm-ups). */
async function phaseFor(seconds: number, flow: Parameters<typeof phase>[0]) {
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, c) => {
      while (Date.now() < end) await flow(c, async (_s, fn) => fn()).catch(() => {});
    }),
  );
}

const f = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');

async function main() {
  const cpus = os.cpus();
  const lines: string[] = [];
  lines.push(`Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`);
  lines.push(`Concurrency ${CONCURRENCY}, ${SECONDS} s per phase, ${MERCHANTS} merchants.`);
  lines.push('');
  const baseline = await benchBaseline();
  lines.push(`Baseline (bare Fastify + one PostgreSQL insert): ${f(baseline.rps)} req/s, p50 ${f(baseline.steps.insert.p50)} ms, p99 ${f(baseline.steps.insert.p99)} ms`);
  lines.push('');
  lines.push('| engine | create order req/s | vs baseline | create p50 / p99 (ms) | flows/s | payment p50 / p99 | refund p50 / p99 | read p50 / p99 | flow-phase create p50 / p99 |');
  lines.push('|---|---|---|---|---|---|---|---|---|');
  const cardPresentLines: string[] = [];
  for (const engine of ENGINES as Array<'postgres' | 'pglite'>) {
    const { create, flow, cardPresent } = await benchGateway(engine);
    if (cardPresent) {
      const k = cardPresent.steps['card-present payment'];
      const d = flow.steps['direct payment'];
      cardPresentLines.push(`| ${engine} | ${f(cardPresent.rps)} | ${k ? `${f(k.p50)} / ${f(k.p99)}` : '-'} | ${d ? `${f(d.p50)} / ${f(d.p99)}` : '-'} |${cardPresent.errors ? ` (${cardPresent.errors} errors)` : ''}`);
    }
    const s = flow.steps;
    const st = (x: { p50: number; p99: number } | undefined) => (x ? `${f(x.p50)} / ${f(x.p99)}` : '-');
    lines.push(
      `| ${engine} | ${f(create.rps)} | ${f((100 * create.rps) / baseline.rps)}% | ${st(create.steps['create order'])} | ${flow === create ? '-' : f(flow.rps)} | ${st(s['direct payment'])} | ${st(s['partial refund'])} | ${st(s['read order'])} | ${flow === create ? '-' : st(s['create order'])} |`,
    );
    if (create.errors + flow.errors > 0) lines.push(`(${engine}: ${create.errors + flow.errors} errors)`);
  }
  if (cardPresentLines.length > 0) {
    lines.push('');
    lines.push('Card-present payments (K1 with a PIN: order created and paid in one call), next to the direct payment step of the flow phase:');
    lines.push('');
    lines.push('| engine | K1 payments/s | K1 p50 / p99 (ms) | direct payment p50 / p99 (ms) |');
    lines.push('|---|---|---|---|');
    lines.push(...cardPresentLines);
  }
  process.stdout.write(lines.join('\n') + '\n');
  await agent.close();
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
