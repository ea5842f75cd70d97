/**
 * npm run bench:connectors: the money path in production through every production connector of the list
 * (src/processors/connectors.ts) against its own simulator with the same fixed latency, next to the same
 * gateway with the in-process simulator answering after that latency (PAYGATE_PRODUCTION_SIMULATOR): what
 * each connector adds on top of the processor's latency.
 *
 * Each connector's simulator is the one its declaration loads (the terminal and the approved cards of its
 * conformance harness), in this process, answering every request after BENCH_LATENCY_MS. The gateway
 * (the compiled build, as `npm start` runs it) runs on PostgreSQL in production with its
 * `PAYGATE_<NAME>_URL` pointing at the simulator. Each client pays B10 direct payments (the money path's
 * fast path) with orders and stored cards made before the timed phase, one card and one customer per
 * payment (antifraud counts payments per card and per customer). A payment's round trips to the provider
 * are counted by the simulator (every HTTP request it received in the timed phase, tokens included, over
 * the payments made), so the
 * latency-bound ideal is clients × 1000 / (latency × round trips) payments per second, and the report
 * gives payments per second as a ratio of it and of the in-process simulator's rate in the same run.
 *
 * BENCH_STEP=single-step pays B3 single-step payments instead (the order, the stored card and the
 * payment in one request, a new card each time).
 *
 * Settings (environment): BENCH_MODES (every connector's name and in-process), BENCH_LATENCY_MS (150),
 * BENCH_CONCURRENCY (200), BENCH_SECONDS (10), BENCH_RUNS (3), BENCH_STEP (direct, single-step),
 * BENCH_GATEWAY_NODE_ARGS, TEST_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test). Prints a
 * Markdown report. (`npm run bench:redsys` is the same bench with BENCH_MODES=redsys,in-process.)
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import pg from 'pg';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config/config.js';
import { buildModules } from '../src/app.js';
import { createMerchantWithService } from '../src/bootstrap.js';
import { migrate } from '../src/platform/db/migrate.js';
import { createPlatform } from '../src/platform/create.js';
import { createLogger } from '../src/platform/logging.js';
import { Secret } from '../src/platform/security/secret.js';
import { CONNECTORS, type AnyConnectorDeclaration } from '../src/processors/connectors.js';
import type { SimulatorBase } from '../src/processors/kit/simulator.js';
import type { SimulatorModule } from '../src/processors/kit/declaration.js';
import { luhnCard } from '../test/helpers/connectors.js';
import { freePort, median, pct } from './kit.js';

const LATENCY = Number(process.env.BENCH_LATENCY_MS ?? process.env.BENCH_REDSYS_LATENCY_MS ?? 150);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const STEP = process.env.BENCH_STEP === 'single-step' ? 'single-step' : 'direct';
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const MODES = (process.env.BENCH_MODES ?? [...CONNECTORS.map((c) => c.name), 'in-process'].join(',')).split(',').map((x) => x.trim()).filter(Boolean);
for (const m of MODES) if (m !== 'in-process' && !CONNECTORS.some((c) => c.name === m)) throw new Error(`BENCH_MODES: no connector ${m} (${CONNECTORS.map((c) => c.name).join(', ')}, in-process)`);

const agent = new Agent({ connections: CONCURRENCY * 2, pipelining: 1, keepAliveTimeout: 30_000 });

interface Result { rps: number; trips: number; p50: number; p99: number; errors: number }

async function main() {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const sims = new Map<string, { decl: AnyConnectorDeclaration; mod: SimulatorModule; sim: SimulatorBase; url: string }>();
  for (const decl of CONNECTORS.filter((c) => MODES.includes(c.name))) {
    const mod = await decl.simulator.load();
    const sim = mod.create({ terminal: mod.harness.terminal, latencyMs: LATENCY, webhookUrl: null });
    sims.set(decl.name, { decl, mod, sim, url: await sim.listen() });
  }
  const all = new Map<string, Result[]>(MODES.map((m) => [m, []]));
  const inProcess = sims.values().next().value;
  let cardSeq = 0;

  for (let run = 0; run < RUNS; run++) for (const mode of MODES) {
    const s = mode === 'in-process' ? null : sims.get(mode)!;
    // the in-process simulator takes a connector's service type (the first's) with the simulator answering
    const shape = s ?? inProcess;
    if (!shape) throw new Error('BENCH_MODES: name at least one connector beside in-process (its service type is the one the in-process simulator takes)');
    const schema = `bench_conn_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-connectors-'));
    const env: Record<string, string> = {
      DATABASE_URL: PG_URL, PGOPTIONS: `-c search_path=${schema}`, PAYGATE_DATA_DIR: dataDir, PAYGATE_LOG_LEVEL: 'warn', PAYGATE_TRUST_PROXY: '127.0.0.1',
      PAYGATE_RATE_LIMIT_PRODUCTION: '0', PAYGATE_BOOTSTRAP_SANDBOX: 'false', PAYGATE_DB_POOL_SIZE: '40',
      ...Object.fromEntries([...sims.values()].map((x) => [x.decl.url.env, x.url])),
      ...(mode === 'in-process' ? { PAYGATE_PRODUCTION_SIMULATOR: 'true', PAYGATE_SIMULATOR_LATENCY_MS: String(LATENCY) } : {}),
    };
    const p = await createPlatform(loadConfig({ ...process.env, ...env }), { schema, lockHolder: 'bench', logger: createLogger('silent') });
    await migrate(p.database);
    const m = buildModules(p);
    const merchant = await createMerchantWithService(p, m, { env: 'production', isPci: true, serviceType: shape.decl.serviceTypes[0], terminal: shape.mod.harness.terminal });
    const perClient = Math.ceil((SECONDS * 1000) / LATENCY) + 20;
    const cards: string[][] = [];
    for (let c = 0; c < (STEP === 'direct' ? CONCURRENCY : 0); c++) {
      const list: string[] = [];
      await p.database.transaction(async (trx) => {
        for (let i = 0; i < perClient; i++) {
          const row = await m.sources.storeCard(trx, { merchantId: merchant.client_uuid, env: 'production' }, {
            customerExtId: `c${c}-${i}`, holder: 'Bench', pan: new Secret(luhnCard(shape.mod.harness.cards.approvedPrefix, ++cardSeq)), expMonth: 12, expYear: 2030,
          });
          list.push(row.id);
        }
      });
      cards.push(list);
    }
    await p.jobs.stop().catch(() => {});
    await p.invalidation.stop().catch(() => {});
    await p.database.close();

    const port = await freePort();
    const proc = spawn(process.execPath, ['--enable-source-maps', '--max-semi-space-size=64', ...(process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean), 'dist/server.js'], { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout!.on('data', (d) => (out += d));
    proc.stderr!.on('data', (d) => (out += d));
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${url}/readyz`)).status === 200) break;
      } catch {
        // not yet
      }
      if (i > 600) throw new Error(`gateway did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const headers = { authorization: `Basic ${Buffer.from(`${merchant.api_key}:`).toString('base64')}`, 'x-forwarded-proto': 'https', 'content-type': 'application/json' };
    const post = async (p: string, body: Record<string, unknown>) => {
      const res = await request(`${url}/v1${p}`, { method: 'POST', headers, body: JSON.stringify({ signature: merchant.signature, ...body }), dispatcher: agent });
      return { status: res.statusCode, body: (await res.body.json()) as any };
    };
    const orders: string[][] = [];
    await Promise.all(Array.from({ length: CONCURRENCY }, async (_, c) => {
      const list: string[] = [];
      for (let i = 0; i < (STEP === 'direct' ? perClient : 0); i++) {
        const r = await post('/payment', { amount: 1000 + i, operative: 'AUTHORIZATION', secure: false, description: 'bench', service: merchant.service_uuid, customer_ext_id: `c${c}-${i}` });
        if (r.status !== 200) throw new Error(`create: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
        list.push(r.body.order.uuid);
      }
      orders[c] = list;
    }));

    const callsBefore = s ? s.sim.httpRequests : 0;
    const latencies: number[] = [];
    let errors = 0;
    let done = 0;
    const until = Date.now() + SECONDS * 1000;
    const t0 = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async (_, c) => {
      for (let i = 0; Date.now() < until && i < perClient; i++) {
        const st = performance.now();
        const r = STEP === 'direct'
          ? await post('/payment/direct', { order_uuid: orders[c][i], card_uuid: cards[c][i] })
          : await post('/payment/single-step', {
              amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'bench', service: merchant.service_uuid, customer_ext_id: `c${c}-${i}`,
              card_holder: 'Bench', card_pan: luhnCard(shape.mod.harness.cards.approvedPrefix, ++cardSeq), card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
            });
        latencies.push(performance.now() - st);
        if (r.status === 200 && r.body.order?.status === 'SUCCESS') done++;
        else if (errors++ === 0) process.stderr.write(`first error (${mode}): ${r.status} ${JSON.stringify(r.body).slice(0, 400)}\n`);
      }
    }));
    const elapsed = (Date.now() - t0) / 1000;
    const trips = s ? (s.sim.httpRequests - callsBefore) / Math.max(1, done + errors) : 1;
    const result = { rps: done / elapsed, trips, p50: pct(latencies, 50), p99: pct(latencies, 99), errors };
    all.get(mode)!.push(result);
    process.stderr.write(`run ${run + 1} ${mode}: ${result.rps.toFixed(0)} payments/s, ${trips.toFixed(2)} round trips per payment, p50 ${result.p50.toFixed(0)} ms, errors ${errors}\n`);
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  for (const x of sims.values()) await x.sim.close();
  const cpus = os.cpus();
  process.stdout.write(`\nMachine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, Node ${process.version}, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}. ${STEP === 'direct' ? 'B10 direct payments (stored card)' : 'B3 single-step payments'}, ${LATENCY} ms latency, ${CONCURRENCY} clients, ${SECONDS} s, medians of ${RUNS} run(s).\n`);
  process.stdout.write(`\n| processor | round trips per payment | payments/s (runs) | latency-bound ideal | ratio | of the in-process rate | p50 | p99 | errors |\n|---|---|---|---|---|---|---|---|---|\n`);
  const base = all.has('in-process') ? median(all.get('in-process')!.map((r) => r.rps)) : NaN;
  for (const mode of MODES) {
    const rs = all.get(mode)!;
    const rps = median(rs.map((r) => r.rps));
    const trips = Math.max(1, Math.round(median(rs.map((r) => r.trips))));
    const ideal = (CONCURRENCY * 1000) / (LATENCY * trips);
    const label = mode === 'in-process' ? 'in-process simulator (no HTTP call)' : `${sims.get(mode)!.decl.label} connector + simulator (HTTP)`;
    process.stdout.write(
      `| ${label} | ${median(rs.map((r) => r.trips)).toFixed(2)} | ${rps.toFixed(0)} (${rs.map((r) => r.rps.toFixed(0)).join(', ')}) | ${ideal.toFixed(0)} | ${((100 * rps) / ideal).toFixed(1)}% | ${Number.isFinite(base) ? `${((100 * rps) / base).toFixed(1)}%` : '-'} | ${median(rs.map((r) => r.p50)).toFixed(0)} ms | ${median(rs.map((r) => r.p99)).toFixed(0)} ms | ${rs.reduce((a, r) => a + r.errors, 0)} |\n`,
    );
  }
  await agent.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
