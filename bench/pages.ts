/**
 * How fast the hosted payment page is: GET latency under concurrency over real HTTP, the size of the
 * page, and full card payments through the form (GET, POST, 303). Embedded database in memory, sandbox
 * simulator with no latency.
 *
 *   npx tsx bench/pages.ts [requests=2000] [concurrency=16]
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/pages.ts
 */
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config/config.js';
import { buildApp, buildModules } from '../src/app.js';
import { createMerchantWithService } from '../src/bootstrap.js';
import { createPlatform } from '../src/platform/create.js';
import { openDatabase } from '../src/platform/db/database.js';
import { migrate } from '../src/platform/db/migrate.js';
import { createLogger } from '../src/platform/logging.js';
import { Vault } from '../src/platform/security/vault.js';
import { pct } from './kit.js';

const N = Number(process.argv[2] ?? 2000);
const C = Number(process.argv[3] ?? 16);
const agent = new http.Agent({ keepAlive: true, maxSockets: C });

function request(url: string, method = 'GET', body?: string): Promise<{ status: number; body: string; location?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: body ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } : {} }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (data += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function run(label: string, count: number, fn: (i: number) => Promise<void>) {
  const times: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      for (;;) {
        const i = next++;
        if (i >= count) return;
        const s = performance.now();
        await fn(i);
        times.push(performance.now() - s);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  process.stdout.write(`${label}: ${count} in ${secs.toFixed(2)} s = ${(count / secs).toFixed(0)}/s; p50 ${pct(times, 50).toFixed(1)} ms, p95 ${pct(times, 95).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms\n`);
}

const port = 18000 + Math.floor(Math.random() * 1000);
const config = loadConfig({ PAYGATE_LOG_LEVEL: 'silent', PAYGATE_WORKERS: 'false', PORT: String(port), PAYGATE_RATE_LIMIT_SANDBOX: '1000000' });
// BENCH_DATABASE_URL=postgres://... runs on PostgreSQL (in a fresh schema) instead of in-memory PGlite
const pgUrl = process.env.BENCH_DATABASE_URL ?? null;
const schema = `bench_${randomBytes(4).toString('hex')}`;
if (pgUrl) {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: pgUrl });
  await c.connect();
  await c.query(`create schema ${schema}`);
  await c.end();
}
const database = pgUrl ? await openDatabase({ databaseUrl: pgUrl, schema, poolSize: 20 }) : await openDatabase({ databaseUrl: null, inMemory: true });
process.stdout.write(`database: ${pgUrl ? 'PostgreSQL' : 'PGlite (in memory)'}\n`);
await migrate(database);
const p = await createPlatform(config, { database, logger: createLogger('silent'), vault: new Vault([{ id: 'bench', key: randomBytes(32) }], randomBytes(32)) });
const m = buildModules(p);
const app = await buildApp(p, m);
await app.listen({ port, host: '127.0.0.1' });
const merchant = await createMerchantWithService(p, m);
const base = `http://127.0.0.1:${port}`;

async function newOrder(): Promise<string> {
  const r = await app.inject({
    method: 'POST',
    url: '/v1/sandbox/payment',
    headers: { authorization: `Bearer ${merchant.api_key}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ signature: merchant.signature, amount: 4990, operative: 'AUTHORIZATION', secure: false, description: 'bench', service: merchant.service_uuid, url_ok: 'https://shop.example/ok' }),
  });
  return JSON.parse(r.body).order.token;
}

const token = await newOrder();
const url = `${base}/v1/sandbox/payment/process/${token}?lang=en`;
const first = await request(url);
process.stdout.write(`page: ${first.status}, ${Buffer.byteLength(first.body)} bytes of HTML (${gzipSync(first.body).length} gzipped), no other request (script and style inline)\n`);
await run('warm-up GET', 200, async () => void (await request(url)));
await run(`GET /payment/process (concurrency ${C})`, N, async () => {
  const r = await request(url);
  if (r.status !== 200) throw new Error(`status ${r.status}`);
});
const tokens = await Promise.all(Array.from({ length: Math.min(500, N) }, () => newOrder()));
await run(`pay by form: GET + POST + 303 (concurrency ${C})`, tokens.length, async (i) => {
  const u = `${base}/v1/sandbox/payment/process/${tokens[i]}?lang=en`;
  const page = await request(u);
  const nonce = /name="nonce" value="([^"]+)"/.exec(page.body)![1];
  const r = await request(u, 'POST', new URLSearchParams({ nonce, holder: 'Ana', number: '4548812049400004', expiry: '12/30', cvv: '123' }).toString());
  if (r.status !== 303 || r.location !== 'https://shop.example/ok') throw new Error(`status ${r.status} ${r.location}`);
});
await app.close();
await p.jobs.stop();
await database.close();
if (pgUrl) {
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: pgUrl });
  await c.connect();
  await c.query(`drop schema ${schema} cascade`);
  await c.end();
}
agent.destroy();
