/**
 * npm run bench: the gateway's money steps next to bare Fastify + pg baselines of the same database work
 * (bench/baseline.ts), measured in one run so both see the same machine:
 *
 *   (a) create order            vs one INSERT
 *   (b) direct payment          vs a payment as two crash-safe transactions (PENDING, then settle)
 *   (c) partial refund          vs the same for a refund
 *       read order              vs one SELECT of the order with its transactions
 *   (d) the story (create → pay → partial refund → read) vs the bare story built from the four
 *
 * Each step runs alone for BENCH_SECONDS at BENCH_CONCURRENCY clients (the pay phase pays the orders the
 * create phase made, the refund phase refunds those, the read phase reads them), then the story runs.
 * The gateway runs on PostgreSQL and on PGlite, and once more on PostgreSQL with url_post set on every
 * order (notifications delivered to a local receiver by the same process). Every figure is the median of
 * BENCH_RUNS runs; ratios are taken within a run, then their median.
 *
 * Settings (environment): BENCH_CONCURRENCY (32), BENCH_SECONDS (10), BENCH_RUNS (3), BENCH_MERCHANTS (8),
 * BENCH_ENGINES (postgres,pglite), BENCH_URL_POST (true), BENCH_GATEWAY (dist: the compiled build; tsx:
 * the sources), BENCH_ROOT (another checkout to measure, e.g. an older commit; run with tsx),
 * BENCH_GATEWAY_NODE_ARGS (node options for the gateway process besides those `npm start` gives it, read from
 * package.json; e.g. `--cpu-prof --cpu-prof-dir=prof`),
 * TEST_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test). Prints a Markdown report.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { freePort, median, pct } from './kit.js';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const MERCHANTS = Number(process.env.BENCH_MERCHANTS ?? 8);
const ENGINES = (process.env.BENCH_ENGINES ?? 'postgres,pglite').split(',') as Array<'postgres' | 'pglite'>;
const URL_POST = !/^(0|false|no)$/i.test(process.env.BENCH_URL_POST ?? 'true');
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const HERE = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const ROOT = path.resolve(process.env.BENCH_ROOT ?? HERE);
const GATEWAY = process.env.BENCH_ROOT ? 'tsx' : (process.env.BENCH_GATEWAY ?? 'dist');

/** The node options `npm start` runs the gateway with (package.json), so the bench runs it the same way. */
const START_NODE_ARGS: string[] = (() => {
  const start: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts?.start ?? '';
  const m = / node ((?:--\S+ )*)dist\/server\.js/.exec(start);
  return m ? m[1].split(' ').filter(Boolean) : [];
})();

const agent = new Agent({ connections: CONCURRENCY * 2, pipelining: 1, keepAliveTimeout: 30_000 });
type Res = { status: number; body: any };

function spawnServer(cwd: string, args: string[], env: Record<string, string>, ready: (out: string) => number | null): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const proc: ChildProcess = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const port = ready(out);
      if (port) {
        proc.stdout!.off('data', onData);
        proc.removeAllListeners('exit');
        resolve({
          url: `http://127.0.0.1:${port}`,
          pid: proc.pid!,
          stop: () => new Promise((r) => (proc.exitCode !== null ? r() : (proc.once('exit', () => r()), proc.kill('SIGTERM')))),
        });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', (d) => (out += d.toString()));
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}:\n${out}`)));
  });
}

async function call(url: string, method: 'GET' | 'POST', p: string, creds: { api_key: string; signature: string } | null, body?: Record<string, unknown>): Promise<Res> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
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

/** What a target (the gateway or the baseline) does for each step; `c` is the client number. */
interface Target {
  create(c: number): Promise<string>;
  pay(c: number, id: string): Promise<void>;
  refund(c: number, id: string): Promise<void>;
  read(c: number, id: string): Promise<void>;
}

function must(step: string, r: Res, check?: (b: any) => boolean): void {
  if (r.status >= 400 || (check && !check(r.body))) throw new Error(`${step}: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
}

interface Stat {
  rps: number;
  p50: number;
  p99: number;
  n: number;
  /** CPU ms per operation of the server's processes and of PostgreSQL, during the phase. */
  cpuServer?: number;
  cpuPostgres?: number;
}

/**
 * CPU time (user + system, seconds) of a process tree and of every PostgreSQL process, read from /proc
 * (Linux; 0 elsewhere). Per step, next to the rates: where the work goes (the gateway's process or the
 * database), which does not depend on how busy the machine is the way rates do.
 */
const TICKS = 100;
function procCpu(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / TICKS;
  } catch {
    return 0;
  }
}
function allPids(): Array<{ pid: number; ppid: number; comm: string }> {
  try {
    return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((d) => {
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        return [{ pid: Number(d), ppid: Number(stat.split(') ')[1].split(' ')[1]), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) }];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}
function cpuSampler(root: number | null): () => { gateway: number; postgres: number } {
  return () => {
    const ps = allPids();
    const tree = new Set(root ? [root] : []);
    for (let grew = true; grew; ) {
      grew = false;
      for (const p of ps) if (!tree.has(p.pid) && tree.has(p.ppid)) (tree.add(p.pid), (grew = true));
    }
    const sum = (pids: number[]) => pids.reduce((n, x) => n + procCpu(x), 0);
    return { gateway: sum([...tree]), postgres: sum(ps.filter((p) => p.comm === 'postgres').map((p) => p.pid)) };
  };
}

/** Runs `work` in CONCURRENCY loops for SECONDS (or until a loop has nothing left to do: returns false). */
async function phase(seconds: number, work: (c: number, lat: (step: string, fn: () => Promise<void>) => Promise<void>) => Promise<boolean>, cpu?: () => { gateway: number; postgres: number }) {
  const lat: Record<string, number[]> = {};
  let done = 0;
  let errors = 0;
  let firstError: unknown = null;
  const end = Date.now() + seconds * 1000;
  const time = async (step: string, fn: () => Promise<void>) => {
    const t0 = performance.now();
    await fn();
    (lat[step] ??= []).push(performance.now() - t0);
  };
  const t0 = performance.now();
  const cpu0 = cpu?.();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, c) => {
      while (Date.now() < end) {
        try {
          if (!(await work(c, time))) return;
          done++;
        } catch (err) {
          firstError ??= err;
          if (++errors > 50) throw err;
        }
      }
    }),
  );
  if (done === 0 && firstError) throw firstError;
  const elapsed = (performance.now() - t0) / 1000;
  const cpu1 = cpu?.();
  const stats: Record<string, Stat> = {};
  for (const [k, v] of Object.entries(lat)) {
    v.sort((a, b) => a - b);
    stats[k] = { rps: v.length / elapsed, p50: pct(v, 50), p99: pct(v, 99), n: v.length };
    if (cpu0 && cpu1 && done > 0) {
      stats[k].cpuServer = (1000 * (cpu1.gateway - cpu0.gateway)) / done;
      stats[k].cpuPostgres = (1000 * (cpu1.postgres - cpu0.postgres)) / done;
    }
  }
  return { rate: done / elapsed, stats, errors };
}

type Figures = Record<'create' | 'pay' | 'refund' | 'read' | 'story', Stat>;

/** The four steps alone, then the story. */
async function measure(t: Target, cpu?: () => { gateway: number; postgres: number }): Promise<Figures> {
  // warm-up: the story for 2 s
  await phase(2, async (c) => {
    const id = await t.create(c);
    await t.pay(c, id);
    await t.refund(c, id);
    await t.read(c, id);
    return true;
  });
  const created: string[][] = Array.from({ length: CONCURRENCY }, () => []);
  const paid: string[][] = Array.from({ length: CONCURRENCY }, () => []);
  const refunded: string[][] = Array.from({ length: CONCURRENCY }, () => []);
  const create = await phase(SECONDS, async (c, time) => {
    await time('s', async () => void created[c].push(await t.create(c)));
    return true;
  }, cpu);
  const pay = await phase(SECONDS, async (c, time) => {
    const id = created[c].shift();
    if (!id) return false;
    await time('s', () => t.pay(c, id));
    paid[c].push(id);
    return true;
  }, cpu);
  const refund = await phase(SECONDS, async (c, time) => {
    const id = paid[c].shift();
    if (!id) return false;
    await time('s', () => t.refund(c, id));
    refunded[c].push(id);
    return true;
  }, cpu);
  let k = 0;
  const read = await phase(SECONDS, async (c, time) => {
    const ids = refunded[c].length > 0 ? refunded[c] : paid[c];
    if (ids.length === 0) return false;
    await time('s', () => t.read(c, ids[k++ % ids.length]));
    return true;
  }, cpu);
  const story = await phase(SECONDS, async (c, time) => {
    let id = '';
    await time('create', async () => void (id = await t.create(c)));
    await time('pay', () => t.pay(c, id));
    await time('refund', () => t.refund(c, id));
    await time('read', () => t.read(c, id));
    return true;
  }, cpu);
  const flows = story.stats.create;
  const storyP = (q: 'p50' | 'p99') => ['create', 'pay', 'refund', 'read'].reduce((s, x) => s + story.stats[x][q], 0);
  return {
    create: create.stats.s,
    pay: pay.stats.s,
    refund: refund.stats.s,
    read: read.stats.s,
    story: { rps: story.rate, p50: storyP('p50'), p99: storyP('p99'), n: flows?.n ?? 0, cpuServer: flows?.cpuServer, cpuPostgres: flows?.cpuPostgres },
  };
}

async function withSchema<T>(fn: (schema: string) => Promise<T>): Promise<T> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  try {
    return await fn(schema);
  } finally {
    await admin.query(`drop schema ${schema} cascade`).catch(() => {});
    await admin.end();
  }
}

function benchBaseline(): Promise<Figures> {
  return withSchema(async (schema) => {
    const port = await freePort();
    const srv = await spawnServer(HERE, ['--import', 'tsx', 'bench/baseline.ts'], { DATABASE_URL: PG_URL, PGOPTIONS: `-c search_path=${schema}`, PORT: String(port) }, (out) => {
      const m = /listening (\d+)/.exec(out);
      return m ? Number(m[1]) : null;
    });
    try {
      return await measure({
        async create() {
          const r = await call(srv.url, 'POST', '/orders', null, { amount: 1000, description: 'baseline' });
          must('create', r);
          return r.body.order.uuid;
        },
        async pay(_c, id) {
          must('pay', await call(srv.url, 'POST', `/orders/${id}/pay`, null, {}));
        },
        async refund(_c, id) {
          must('refund', await call(srv.url, 'POST', `/orders/${id}/refund`, null, { amount: 300 }));
        },
        async read(_c, id) {
          must('read', await call(srv.url, 'GET', `/orders/${id}`, null));
        },
      }, cpuSampler(srv.pid));
    } finally {
      await srv.stop();
    }
  });
}

/** A local notification receiver: answers 200 to every POST. */
function receiver(): Promise<{ url: string; count: () => number; close(): Promise<void> }> {
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as import('node:net').AddressInfo).port;
      resolve({ url: `http://127.0.0.1:${port}/notify`, count: () => n, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

async function benchGateway(engine: 'postgres' | 'pglite', urlPost: string | null): Promise<Figures> {
  const run = async (schema: string | null) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-'));
    const env: Record<string, string> = {
      PAYGATE_DATA_DIR: dataDir,
      PAYGATE_LOG_LEVEL: 'warn',
      PAYGATE_RATE_LIMIT_SANDBOX: '1000000',
      PORT: String(await freePort()),
    };
    if (schema) {
      env.DATABASE_URL = PG_URL;
      env.PGOPTIONS = `-c search_path=${schema}`;
    }
    const nodeArgs = [...START_NODE_ARGS, ...(process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean)];
    const args = [...nodeArgs, ...(GATEWAY === 'dist' ? ['dist/server.js'] : ['--import', 'tsx', 'src/server.ts'])];
    const srv = await spawnServer(ROOT, args, env, (out) => (/PAYGATE_SERVICE=/.test(out) ? Number(env.PORT) : null));
    try {
      const boot = JSON.parse(fs.readFileSync(path.join(dataDir, 'sandbox-credentials.json'), 'utf8'));
      const base = '/v1/sandbox';
      // PCI merchants with a service each; every client pays with a stored card of its own customer
      const merchants: Array<{ creds: { api_key: string; signature: string }; service: string }> = [];
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
        must('setup payment', first);
        cards.push(first.body.order.transactions[0].source.uuid);
      }
      return await measure({
        async create(c) {
          const r = await call(srv.url, 'POST', `${base}/payment`, m(c).creds, {
            amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'bench order', service: m(c).service, customer_ext_id: `bench-customer-${c}`,
            ...(urlPost ? { url_post: urlPost } : {}),
          });
          must('create order', r);
          return r.body.order.uuid;
        },
        async pay(c, id) {
          must('direct payment', await call(srv.url, 'POST', `${base}/payment/direct`, m(c).creds, { order_uuid: id, card_uuid: cards[c] }), (b) => b.order.status === 'SUCCESS');
        },
        async refund(c, id) {
          must('partial refund', await call(srv.url, 'POST', `${base}/payment/refund`, m(c).creds, { order_uuid: id, amount: 300 }));
        },
        async read(c, id) {
          must('read order', await call(srv.url, 'GET', `${base}/order/${id}`, m(c).creds));
        },
      }, cpuSampler(srv.pid));
    } finally {
      await srv.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  };
  return engine === 'postgres' ? withSchema((s) => run(s)) : run(null);
}

const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

async function main() {
  if (GATEWAY === 'dist') execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const STEPS = ['create', 'pay', 'refund', 'read', 'story'] as const;
  const LABEL: Record<(typeof STEPS)[number], string> = {
    create: '(a) create order',
    pay: '(b) direct payment',
    refund: '(c) partial refund',
    read: 'read order',
    story: '(d) story (flows/s; latency: sum of the steps)',
  };
  const columns = [...ENGINES.map((e) => e as string), ...(URL_POST && ENGINES.includes('postgres') ? ['postgres+url_post'] : [])];
  const runs: Array<Record<string, Figures>> = [];
  const rcv = URL_POST ? await receiver() : null;
  for (let r = 0; r < RUNS; r++) {
    const one: Record<string, Figures> = { baseline: await benchBaseline() };
    for (const e of ENGINES) one[e] = await benchGateway(e, null);
    if (rcv && ENGINES.includes('postgres')) one['postgres+url_post'] = await benchGateway('postgres', rcv.url);
    runs.push(one);
    process.stderr.write(`run ${r + 1}/${RUNS} done\n`);
  }
  await rcv?.close();

  const med = (col: string, step: (typeof STEPS)[number], k: keyof Stat) => median(runs.map((x) => x[col][step][k] ?? NaN));
  const ratio = (col: string, step: (typeof STEPS)[number], over = 'baseline') => median(runs.map((x) => (100 * x[col][step].rps) / x[over][step].rps));
  const cpus = os.cpus();
  const lines: string[] = [];
  lines.push(`Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  lines.push(`Gateway: ${GATEWAY === 'dist' ? 'compiled build (dist/)' : 'sources through tsx'}${process.env.BENCH_ROOT ? ` at ${path.basename(ROOT)}` : ''}. ${CONCURRENCY} clients, ${SECONDS} s per phase, medians of ${RUNS} run(s).`);
  lines.push('');
  lines.push(`| step | baseline req/s (p50 / p99 ms) | ${columns.map((c) => `${c} req/s | % of baseline | p50 / p99 ms`).join(' | ')} |`);
  lines.push(`|---|---|${columns.map(() => '---|---|---|').join('')}`);
  for (const s of STEPS) {
    const cells = columns.map((c) => `${f(med(c, s, 'rps'))} | ${f(ratio(c, s))}% | ${f(med(c, s, 'p50'))} / ${f(med(c, s, 'p99'))}`);
    lines.push(`| ${LABEL[s]} | ${f(med('baseline', s, 'rps'))} (${f(med('baseline', s, 'p50'))} / ${f(med('baseline', s, 'p99'))}) | ${cells.join(' | ')} |`);
  }
  lines.push('');
  lines.push('CPU per operation in ms (medians): the server\'s processes (the gateway: API process and workers) / PostgreSQL\'s (PGlite runs inside the gateway).');
  lines.push('');
  lines.push(`| step | baseline | ${columns.join(' | ')} |`);
  lines.push(`|---|---|${columns.map(() => '---|').join('')}`);
  const cpuCell = (col: string, s: (typeof STEPS)[number]) => `${f(med(col, s, 'cpuServer'), 2)} / ${f(med(col, s, 'cpuPostgres'), 2)}`;
  for (const s of STEPS) lines.push(`| ${LABEL[s]} | ${cpuCell('baseline', s)} | ${columns.map((c) => cpuCell(c, s)).join(' | ')} |`);
  lines.push('');
  if (ENGINES.includes('pglite') && ENGINES.includes('postgres')) lines.push(`PGlite story: ${f(ratio('pglite', 'story', 'postgres'))}% of PostgreSQL's.`);
  if (columns.includes('postgres+url_post')) lines.push(`Story with url_post: ${f(ratio('postgres+url_post', 'story', 'postgres'))}% of the story without (${rcv!.count()} notifications received).`);
  process.stdout.write(lines.join('\n') + '\n');
  if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify(runs, null, 2));
  await agent.close();
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
