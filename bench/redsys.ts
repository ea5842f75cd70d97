/**
 * npm run bench:redsys (and bench:connectors): the money path in production against each production
 * connector's simulator (Redsys, Checkout.com, PayPal) with a fixed latency. A payment is one round trip
 * to Redsys or Checkout.com, two to PayPal (the order, then its capture with the card), so with C clients
 * and a latency of L ms the latency-bound ideal is C × 1000 / (L × round trips) payments per second: the
 * report gives payments per second as a ratio of that ideal (how much the gateway adds on top of the
 * processor's latency).
 *
 * The gateway (the compiled build, as `npm start` runs it) runs on PostgreSQL in production mode with
 * PAYGATE_REDSYS_URL, PAYGATE_CHECKOUT_URL or PAYGATE_PAYPAL_URL pointing at the simulator, which runs
 * in this process. Each client pays B10 direct
 * payments (the money path's fast path) with cards and orders stored before the timed phase, one card
 * and one customer per payment (antifraud counts payments per card and per customer: a customer's
 * eleventh payment within the hour is sent to 3-D Secure); BENCH_STEP=single-step pays B3 single-step payments
 * (the order, the stored card and the payment in one request, a new card each time) instead.
 *
 * For comparison each run also measures the same gateway with the in-process sandbox simulator answering
 * after the same latency (PAYGATE_PRODUCTION_SIMULATOR): what the connector itself costs.
 *
 * Settings (environment): BENCH_MODES (redsys,checkout,paypal,in-process), BENCH_REDSYS_LATENCY_MS (150: every simulator's latency), BENCH_CONCURRENCY (200), BENCH_SECONDS (15),
 * BENCH_RUNS (3), BENCH_GATEWAY_NODE_ARGS (node options of the gateway, e.g. --cpu-prof), BENCH_STEP (direct: B10 with a stored card; single-step: B3 with card data),
 * TEST_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test). Prints a Markdown report.
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
import { RedsysSimulator } from '../src/processors/redsys/simulator/server.js';
import { CheckoutSimulator } from '../src/processors/checkout/simulator/server.js';
import { PaypalSimulator } from '../src/processors/paypal/simulator/server.js';
import { freePort, median } from './kit.js';

const LATENCY = Number(process.env.BENCH_REDSYS_LATENCY_MS ?? 150);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const STEP = process.env.BENCH_STEP === 'single-step' ? 'single-step' : 'direct';
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const KEY = 'sq7HjrUOBfKmC576ILgskD5srU870gJ7';
const FUC = '999008881';

type Mode = 'redsys' | 'checkout' | 'paypal' | 'in-process';
const MODES: Mode[] = (process.env.BENCH_MODES ?? 'redsys,checkout,paypal,in-process').split(',') as Mode[];
/** Processor round trips of one payment. */
const TRIPS: Record<Mode, number> = { redsys: 1, checkout: 1, paypal: 2, 'in-process': 1 };
const LABEL: Record<Mode, string> = { redsys: 'Redsys connector + simulator (HTTP)', checkout: 'Checkout.com connector + simulator (HTTP)', paypal: 'PayPal connector + simulator (HTTP, 2 calls)', 'in-process': 'in-process simulator' };
const CHECKOUT = { secret_key: 'sk_sbox_bench000000000000000000000', processing_channel_id: 'pc_bench000000000000000000000', webhook_signature_key: 'bench-webhook-key-0123456789' };
const PAYPAL = { client_id: 'AbenchClientId0000000000000000', client_secret: 'EbenchSecret', webhook_id: 'BENCH000WEBHOOK000000000' };

const agent = new Agent({ connections: CONCURRENCY * 2, pipelining: 1, keepAliveTimeout: 30_000 });

function luhnCard(seq: number): string {
  const body = `4548${String(seq).padStart(11, '0')}`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = body.charCodeAt(body.length - 1 - i) - 48;
    if (i % 2 === 0 && (d *= 2) > 9) d -= 9;
    sum += d;
  }
  return body + String((10 - (sum % 10)) % 10);
}

async function main() {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const sim = new RedsysSimulator({ merchants: { [FUC]: { '001': { key: KEY }, '002': { key: KEY } } }, latencyMs: LATENCY, notifyRest: false });
  const simUrl = await sim.listen();
  const checkout = new CheckoutSimulator({ accounts: { [CHECKOUT.secret_key]: { processingChannelId: CHECKOUT.processing_channel_id, webhookKey: CHECKOUT.webhook_signature_key } }, latencyMs: LATENCY });
  const checkoutUrl = await checkout.listen();
  const paypal = new PaypalSimulator({ apps: { [PAYPAL.client_id]: { clientSecret: PAYPAL.client_secret, webhookId: PAYPAL.webhook_id } }, latencyMs: LATENCY });
  const paypalUrl = await paypal.listen();
  const all: Record<Mode, Array<{ rps: number; ideal: number; p50: number; p99: number; n: number; errors: number }>> = { redsys: [], checkout: [], paypal: [], 'in-process': [] };

  for (let run = 0; run < RUNS; run++) for (const mode of MODES) {
    const results = all[mode];
    const schema = `bench_redsys_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-redsys-'));
    const env: Record<string, string> = {
      DATABASE_URL: PG_URL, PGOPTIONS: `-c search_path=${schema}`, PAYGATE_DATA_DIR: dataDir, PAYGATE_LOG_LEVEL: 'warn', PAYGATE_TRUST_PROXY: '127.0.0.1',
      PAYGATE_RATE_LIMIT_PRODUCTION: '0', PAYGATE_REDSYS_URL: simUrl, PAYGATE_CHECKOUT_URL: checkoutUrl, PAYGATE_PAYPAL_URL: paypalUrl, PAYGATE_BOOTSTRAP_SANDBOX: 'false', PAYGATE_DB_POOL_SIZE: '40',
      // the comparison: the same gateway with the in-process simulator answering after the same latency
      ...(mode === 'in-process' ? { PAYGATE_PRODUCTION_SIMULATOR: 'true', PAYGATE_SIMULATOR_LATENCY_MS: String(LATENCY) } : {}),
    };
    // the merchant, its Redsys terminal and one stored card per payment to come, before the gateway starts
    const p = await createPlatform(loadConfig({ ...process.env, ...env }), { schema, lockHolder: 'bench', logger: createLogger('silent') });
    await migrate(p.database);
    const m = buildModules(p);
    const merchant = await createMerchantWithService(p, m, {
      env: 'production', isPci: true,
      ...(mode === 'checkout' ? { serviceType: 'CHECKOUT', terminal: { code: null, credentials: CHECKOUT } }
        : mode === 'paypal' ? { serviceType: 'PAYPAL', terminal: { code: null, credentials: PAYPAL } }
          : { terminal: { code: FUC, credentials: { terminal_secure: '001', key_secure: KEY, terminal_not_secure: '002', key_not_secure: KEY } } }),
    });
    const perClient = Math.ceil((SECONDS * CONCURRENCY * 1000) / (LATENCY * TRIPS[mode]) / CONCURRENCY) + 20;
    const cards: string[][] = [];
    if (STEP === 'direct') {
      for (let c = 0; c < CONCURRENCY; c++) {
        const list: string[] = [];
        await p.database.transaction(async (trx) => {
          for (let i = 0; i < perClient; i++) {
            const row = await m.sources.storeCard(trx, { merchantId: merchant.client_uuid, env: 'production' }, {
              customerExtId: `c${c}-${i}`, holder: 'Bench', pan: new Secret(luhnCard(run * 10_000_000 + c * 10_000 + i)), expMonth: 12, expYear: 2030,
            });
            list.push(row.id);
          }
        });
        cards.push(list);
      }
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
    // orders to pay, made before the timed phase
    const orders: string[][] = [];
    await Promise.all(Array.from({ length: CONCURRENCY }, async (_, c) => {
      const list: string[] = [];
      if (STEP === 'direct') {
        for (let i = 0; i < perClient; i++) {
          const r = await post('/payment', { amount: 1000 + i, operative: 'AUTHORIZATION', secure: false, description: 'bench', service: merchant.service_uuid, customer_ext_id: `c${c}-${i}` });
          if (r.status !== 200) throw new Error(`create: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
          list.push(r.body.order.uuid);
        }
      }
      orders[c] = list;
    }));

    const latencies: number[] = [];
    let errors = 0;
    let done = 0;
    const until = Date.now() + SECONDS * 1000;
    const t0 = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async (_, c) => {
      for (let i = 0; Date.now() < until; i++) {
        const s = performance.now();
        const r = STEP === 'direct'
          ? await post('/payment/direct', { order_uuid: orders[c][i], card_uuid: cards[c][i] })
          : await post('/payment/single-step', {
              amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'bench', service: merchant.service_uuid, customer_ext_id: `c${c}-${i}`,
              card_holder: 'Bench', card_pan: luhnCard(90_000_000 + run * 1_000_000 + c * 1000 + i), card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
            });
        latencies.push(performance.now() - s);
        if (r.status === 200 && r.body.order?.status === 'SUCCESS') done++;
        else if (errors++ === 0) process.stderr.write(`first error (${mode}): ${r.status} ${JSON.stringify(r.body).slice(0, 400)}\n`);
      }
    }));
    const elapsed = (Date.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    const rps = done / elapsed;
    const ideal = (CONCURRENCY * 1000) / (LATENCY * TRIPS[mode]);
    results.push({ rps, ideal, p50: latencies[Math.floor(latencies.length / 2)], p99: latencies[Math.floor(latencies.length * 0.99)], n: done, errors });
    process.stderr.write(`run ${run + 1} ${mode}: ${rps.toFixed(0)} payments/s (${((100 * rps) / ideal).toFixed(1)}% of ${ideal.toFixed(0)}), p50 ${latencies[Math.floor(latencies.length / 2)].toFixed(0)} ms, errors ${errors}\n`);
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  await sim.close();
  await checkout.close();
  await paypal.close();
  const medianOf = <T>(xs: T[], f: (x: T) => number) => median(xs.map(f));
  process.stdout.write(`\n| processor | step | latency | clients | payments/s | latency-bound ideal | ratio | p50 | p99 | errors |\n|---|---|---|---|---|---|---|---|---|---|\n`);
  for (const mode of MODES) {
    const results = all[mode];
    const rps = medianOf(results, (r) => r.rps);
    const ideal = results[0].ideal;
    process.stdout.write(
      `| ${LABEL[mode]} | ${STEP === 'direct' ? 'B10 direct payment (stored card)' : 'B3 single-step payment'} | ${LATENCY} ms | ${CONCURRENCY} | ${rps.toFixed(0)} | ${ideal.toFixed(0)} | ${((100 * rps) / ideal).toFixed(1)}% | ${medianOf(results, (r) => r.p50).toFixed(0)} ms | ${medianOf(results, (r) => r.p99).toFixed(0)} ms | ${results.reduce((a, r) => a + r.errors, 0)} |\n`,
    );
  }
  await agent.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
