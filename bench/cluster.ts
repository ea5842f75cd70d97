/**
 * npm run bench:cluster: the story (create order → pay with a stored card → partial refund → read) on the
 * reference topology (scripts/cluster: pg_auto_failover, 3 data nodes, one synchronous standby required,
 * two HAProxy behind keepalived's floating address) with 1, 2 and 3 gateway nodes behind the load
 * balancer, next to one gateway node on a single PostgreSQL (no replication, no proxy:
 * TEST_DATABASE_URL); then the unavailability window of a failover
 * (kill -9 of the primary's data node under the same load). Medians of BENCH_RUNS runs.
 *
 * Also, per story on the formation: the commits and the WAL the primary wrote (pg_stat_database and
 * pg_current_wal_lsn() before and after the phase), the figures of the capacity model (docs/deployment.md).
 *
 * Settings (environment): BENCH_CONCURRENCY (32), BENCH_SECONDS (10), BENCH_RUNS (3), BENCH_MERCHANTS (8),
 * BENCH_FAILOVER (true), PAYGATE_CLUSTER_BASE_PORT (5700), TEST_DATABASE_URL
 * (postgres://postgres@127.0.0.1:5432/test). Prints a Markdown report.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import {
  checkRequirements,
  ensureRequirements,
  formationSettled,
  haproxyCommand,
  killNode,
  primaryNode,
  rejoinNode,
  ROOT,
  startCluster,
  stopCluster,
  type ClusterState,
} from '../scripts/cluster/topology.js';
import { freePort, median } from './kit.js';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const MERCHANTS = Number(process.env.BENCH_MERCHANTS ?? 8);
const FAILOVER = !/^(0|false|no)$/i.test(process.env.BENCH_FAILOVER ?? 'true');
const BASE_PORT = Number(process.env.PAYGATE_CLUSTER_BASE_PORT ?? 5700);
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DIR = path.join(os.tmpdir(), `paygate-bench-cluster-${process.pid}`);

const agent = new Agent({ connections: CONCURRENCY * 2, keepAliveTimeout: 30_000 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (l: string) => process.stderr.write(`[bench:cluster] ${l}\n`);
type Creds = { api_key: string; signature: string };

async function call(url: string, method: 'GET' | 'POST', p: string, creds: Creds, body?: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await request(`${url}/v1/sandbox${p}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from(`${creds.api_key}:`).toString('base64')}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify({ signature: creds.signature, ...body }) : undefined,
    dispatcher: agent,
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : null };
}

interface Shop {
  merchants: Array<{ creds: Creds; service: string }>;
  cards: string[];
}

/** PCI merchants with a service each, and one stored card per client (as bench/run.ts). */
async function setup(url: string, boot: Creds): Promise<Shop> {
  const merchants: Shop['merchants'] = [];
  for (let i = 0; i < MERCHANTS; i++) {
    const c = await call(url, 'POST', '/client', boot, { name: `bench ${i}`, email: `b${i}@example.com`, timezone: 'Europe/Madrid', is_pci: true, autorecover_transactions: true });
    const creds = { api_key: c.body.client.api_key, signature: c.body.client.signature };
    const term = await call(url, 'POST', '/terminal', creds, { currency_code: 'EUR', type: 'PAYGATE', description: 'bench' });
    const svc = await call(url, 'POST', '/service', creds, { name: 'bench', type: 'PAYGATE', terminal_uuid: term.body.terminal.uuid });
    merchants.push({ creds, service: svc.body.service.uuid });
  }
  const cards: string[] = [];
  for (let c = 0; c < CONCURRENCY; c++) {
    const m = merchants[c % merchants.length];
    const first = await call(url, 'POST', '/payment/single-step', m.creds, {
      amount: 100, operative: 'AUTHORIZATION', secure: false, description: 'card', customer_ext_id: `bench-customer-${c}`, service: m.service,
      card_holder: 'Bench Customer', card_pan: '4548812049400004', card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
    });
    if (first.status !== 200) throw new Error(`setup payment: ${first.status} ${JSON.stringify(first.body)}`);
    cards.push(first.body.order.transactions[0].source.uuid);
  }
  return { merchants, cards };
}

/** One story; throws on any answer but 200. */
async function story(url: string, shop: Shop, c: number): Promise<void> {
  const m = shop.merchants[c % shop.merchants.length];
  const created = await call(url, 'POST', '/payment', m.creds, { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'bench order', service: m.service, customer_ext_id: `bench-customer-${c}` });
  if (created.status !== 200) throw new Error(`create ${created.status}`);
  const id = created.body.order.uuid;
  const paid = await call(url, 'POST', '/payment/direct', m.creds, { order_uuid: id, card_uuid: shop.cards[c] });
  if (paid.status !== 200) throw new Error(`pay ${paid.status}`);
  const refunded = await call(url, 'POST', '/payment/refund', m.creds, { order_uuid: id, amount: 300 });
  if (refunded.status !== 200) throw new Error(`refund ${refunded.status}`);
  const read = await call(url, 'GET', `/order/${id}`, m.creds);
  if (read.status !== 200) throw new Error(`read ${read.status}`);
}

/** Stories by CONCURRENCY clients for `seconds`: flows per second (failed stories are counted apart). */
async function storyPhase(url: string, shop: Shop, seconds: number, onDone?: (at: number) => void): Promise<{ rate: number; failed: number }> {
  let done = 0;
  let failed = 0;
  const end = Date.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, c) => {
      while (Date.now() < end) {
        try {
          await story(url, shop, c);
          done++;
          onDone?.(Date.now());
        } catch {
          failed++;
          await sleep(50);
        }
      }
    }),
  );
  return { rate: done / ((performance.now() - t0) / 1000), failed };
}

/** Commits and WAL bytes of the primary, to divide by the stories of a phase. */
async function primaryCounters(url: string): Promise<{ commits: number; wal: bigint }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ commits: string; lsn: string }>(
      `select (select xact_commit from pg_stat_database where datname = current_database())::text as commits, pg_current_wal_lsn()::text as lsn`,
    );
    const [hi, lo] = rows[0].lsn.split('/');
    return { commits: Number(rows[0].commits), wal: (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`) };
  } finally {
    await c.end();
  }
}

/** Sends a command to the admin socket of both HAProxy (the same configuration on both proxy machines). */
async function haproxyCommandAll(s: ClusterState, command: string): Promise<void> {
  for (const p of s.proxies) await haproxyCommand(s, p.name, command);
}

/** One gateway node (npm start: API process and worker) on the single PostgreSQL, own schema. */
async function singlePostgres(): Promise<number> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-single-'));
  const port = await freePort();
  const proc = spawn(process.execPath, ['--max-semi-space-size=64', 'dist/server.js'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: PG_URL, PGOPTIONS: `-c search_path=${schema}`, PAYGATE_DATA_DIR: dataDir, PAYGATE_LOG_LEVEL: 'warn', PAYGATE_RATE_LIMIT_SANDBOX: '1000000', PORT: String(port) },
    stdio: 'ignore',
    detached: true,
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      if (await fetch(`${url}/readyz`).then((r) => r.status === 200, () => false)) break;
      if (i > 600) throw new Error('the single-PostgreSQL gateway did not start');
      await sleep(100);
    }
    const boot = JSON.parse(fs.readFileSync(path.join(dataDir, 'sandbox-credentials.json'), 'utf8'));
    const shop = await setup(url, boot);
    await storyPhase(url, shop, 2);
    return (await storyPhase(url, shop, SECONDS)).rate;
  } finally {
    try {
      process.kill(-proc.pid!, 'SIGTERM');
    } catch {
      // gone
    }
    await new Promise((r) => proc.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
    await admin.query(`drop schema ${schema} cascade`).catch(() => {});
    await admin.end();
  }
}

const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

async function main(): Promise<number> {
  let req = checkRequirements();
  if (req.missing.length > 0) req = ensureRequirements(log);
  if (req.missing.length > 0) {
    log(`cannot run: missing ${req.missing.join('; ')} (apt-get install ${req.packages.join(' ')})`);
    return 2;
  }
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const rows: Array<Record<string, number>> = [];
  let s: ClusterState | null = null;
  try {
    s = await startCluster({ dir: DIR, basePort: BASE_PORT, gateways: 3, log, gatewayEnv: { PAYGATE_RATE_LIMIT_SANDBOX: '1000000' } });
    const shop = await setup(s.gatewayUrl, s.credentials!);
    for (let run = 1; run <= RUNS; run++) {
      const row: Record<string, number> = {};
      row.single = await singlePostgres();
      for (const n of [1, 2, 3]) {
        for (const g of s.gateways) await haproxyCommandAll(s, `${g.n <= n ? 'enable' : 'disable'} server gateway_nodes/gw${g.n}`);
        await storyPhase(s.gatewayUrl, shop, 2);
        const before = await primaryCounters(s.databaseUrl);
        const { rate } = await storyPhase(s.gatewayUrl, shop, SECONDS);
        const after = await primaryCounters(s.databaseUrl);
        const flows = rate * SECONDS;
        row[`nodes${n}`] = rate;
        if (n === 1) {
          row.commitsPerStory = (after.commits - before.commits) / flows;
          row.walPerStory = Number(after.wal - before.wal) / flows;
        }
      }
      if (FAILOVER) {
        const victim = (await primaryNode(s))!;
        const oks: number[] = [];
        let faultAt = 0;
        let promotedAt = 0;
        const load = storyPhase(s.gatewayUrl, shop, 30, (at) => oks.push(at));
        await sleep(5000);
        faultAt = Date.now();
        killNode(s, victim);
        for (;;) {
          const p = await primaryNode(s).catch(() => null);
          if (p && p !== victim) break;
          await sleep(100);
        }
        promotedAt = Date.now();
        await load;
        const after = [faultAt, ...oks.filter((t) => t >= faultAt).sort((a, b) => a - b)];
        let gap = 0;
        for (let i = 1; i < after.length; i++) gap = Math.max(gap, after[i] - after[i - 1]);
        row.unavailable = gap / 1000;
        row.promoted = (promotedAt - faultAt) / 1000;
        // the lost node rejoins as a standby before the next run (repaired if it cannot follow)
        await rejoinNode(s, victim, { log });
        const t0 = Date.now();
        while (!(await formationSettled(s, { sync: true }).catch(() => false))) {
          if (Date.now() - t0 > 180_000) throw new Error('the formation did not settle after the failover');
          await sleep(500);
        }
      }
      rows.push(row);
      log(`run ${run}/${RUNS}: ${JSON.stringify(row)}`);
    }
  } finally {
    await stopCluster(DIR).catch(() => {});
    await agent.close();
  }
  const col = (k: string) => median(rows.map((r) => r[k]));
  const cpus = os.cpus();
  const out = [
    `Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}. ${CONCURRENCY} clients, ${SECONDS} s per phase, medians of ${RUNS} run(s).`,
    '',
    '| setup | story flows/s | % of one node on a single PostgreSQL |',
    '|---|---|---|',
    `| 1 gateway node, single PostgreSQL (no replication, no proxy) | ${f(col('single'))} | 100% |`,
    ...[1, 2, 3].map((n) => `| ${n} gateway node${n > 1 ? 's' : ''}, formation (synchronous standby, HAProxy) | ${f(col(`nodes${n}`))} | ${f(median(rows.map((r) => (100 * r[`nodes${n}`]) / r.single)))}% |`),
    '',
    `Per story on the formation's primary (1 node): ${f(col('commitsPerStory'), 1)} commits, ${f(col('walPerStory') / 1024, 1)} KiB of WAL.`,
    ...(FAILOVER ? ['', `Failover (kill -9 of the primary's data node under the story load): the clients saw no successful story for ${f(col('unavailable'))} s (median; runs: ${rows.map((r) => f(r.unavailable)).join(', ')} s); the monitor promoted a standby ${f(col('promoted'))} s after the kill.`] : []),
  ];
  process.stdout.write(out.join('\n') + '\n');
  if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify(rows, null, 2));
  return 0;
}

main().then((code) => process.exit(code), (err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
