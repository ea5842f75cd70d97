/**
 * Importing and matching a settlement report at full size: 1,000,000 settlement lines against
 * 1,000,000 orders (each with its payment transaction) on PostgreSQL, through the import the CLI runs
 * (`paygate reconcile import`: the file streamed from disk, stored in chunks, matched by set-based
 * statements, one transaction). Measured: the import's wall time, the process's peak resident memory
 * during it, and the share of lines matched; then the first and a deep page of the exceptions (keyset).
 *
 *   npm run bench:reconcile                      # 1,000,000 orders and lines
 *   npm run bench:reconcile -- 100000            # fewer
 *   BENCH_DATABASE_URL=postgres://... npm run bench:reconcile
 *   BENCH_DB=pglite npm run bench:reconcile -- 100000   # on the embedded database (in memory)
 *
 * Data: one sandbox merchant and service; one real order paid through the API, cloned into N orders and
 * transactions (INSERT … SELECT over generate_series) spread over one day, each with its own processor id.
 * The report has one line per transaction in the sandbox fee model, except for the mismatches put in on
 * purpose at fixed shares: 0.5 % settled another amount, 0.5 % left out (ONLY_AT_PAYGATE), 0.5 % settled
 * late, 0.1 % twice, plus 0.1 % lines of no transaction (ONLY_AT_ACQUIRER). Every tenth line names its
 * transaction by processor id only (no reference), to exercise the second pass. The expected counts are
 * checked against the result. The schema is dropped at the end (BENCH_KEEP=1 keeps it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { loadConfig } from '../src/config/config.js';
import { buildApp, buildModules } from '../src/app.js';
import { createMerchantWithService } from '../src/bootstrap.js';
import { createPlatform } from '../src/platform/create.js';
import { openDatabase, type Database } from '../src/platform/db/database.js';
import { migrate } from '../src/platform/db/migrate.js';
import { createLogger } from '../src/platform/logging.js';
import { Vault } from '../src/platform/security/vault.js';
import { Secret } from '../src/platform/security/secret.js';
import { sandboxFees, TEST_CARDS } from '../src/processors/index.js';
import { CLI_MAX_BYTES, CLI_MAX_LINES } from '../src/modules/reconciliation/index.js';

const TOTAL = Number(process.argv[2] ?? 1_000_000);
const onPglite = process.env.BENCH_DB === 'pglite';
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_recon_${randomBytes(4).toString('hex')}`;
const out = (s: string) => process.stdout.write(s + '\n');
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

let database: Database;
if (onPglite) {
  database = await openDatabase({ databaseUrl: null, inMemory: true });
} else {
  const admin = await openDatabase({ databaseUrl: pgUrl, poolSize: 1 });
  await sql.raw(`create schema ${schema}`).execute(admin.db);
  await admin.close();
  database = await openDatabase({ databaseUrl: pgUrl, schema, poolSize: 4 });
}
await migrate(database);
const config = loadConfig({ PAYGATE_LOG_LEVEL: 'silent', PAYGATE_WORKERS: 'false', PAYGATE_RATE_LIMIT_SANDBOX: '0', PAYGATE_DATA_DIR: '/nonexistent' });
const p = await createPlatform(config, { database, logger: createLogger('silent'), vault: new Vault([{ id: 'bench', key: randomBytes(32) }], randomBytes(32)) });
const m = buildModules(p);
const app = await buildApp(p, m);
const db = database.db;

const k = await createMerchantWithService(p, m, { timezone: 'UTC', isPci: true, name: 'bench reconcile' });
const call = async (method: 'GET' | 'POST', url: string, body?: Record<string, unknown>) => {
  const r = await app.inject({ method, url: `/v1/sandbox${url}`, headers: { authorization: `Bearer ${k.api_key}` }, ...(body ? { payload: { signature: k.signature, ...body } } : {}) });
  if (r.statusCode !== 200) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body.slice(0, 300)}`);
  return JSON.parse(r.body);
};

// ---- N orders and their payment transactions, cloned from one paid through the API ------------------------
const seed = await call('POST', '/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'bench seed', service: k.service_uuid, customer_ext_id: 'bench-customer' });
const stored = await database.transaction((trx) => m.sources.storeCard(trx, { merchantId: k.client_uuid, env: k.env }, { customerExtId: 'bench-customer', holder: 'Bench', pan: new Secret(TEST_CARDS.APPROVED), expMonth: 12, expYear: 2030 }));
await call('POST', '/payment/direct', { order_uuid: seed.order.uuid, card_uuid: stored.id });
const seedTx = (await db.selectFrom('transactions').select('id').where('order_id', '=', seed.order.uuid).executeTakeFirstOrThrow()).id;
const DAY = new Date(Date.now() - 86400_000).toISOString().slice(0, 10);
const SETTLED = new Date(Date.parse(`${DAY}T00:00:00Z`) + 86400_000).toISOString().slice(0, 10);
const LATE = new Date(Date.parse(`${DAY}T00:00:00Z`) + 6 * 86400_000).toISOString().slice(0, 10);
const g0 = performance.now();
const orderColumns = (await sql<{ c: string }>`select string_agg(quote_ident(column_name), ', ' order by ordinal_position) as c
  from information_schema.columns where table_schema = current_schema() and table_name = 'orders' and is_generated = 'NEVER'`.execute(db)).rows[0].c;
const orderInsert = sql.raw(`insert into orders (${orderColumns}) select ${orderColumns.split(', ').map((c) => `r.${c}`).join(', ')}`);
const CHUNK = 200_000;
for (let from = 1; from <= TOTAL; from += CHUNK) {
  const to = Math.min(TOTAL, from + CHUNK - 1);
  await database.transaction(async (trx) => {
    if (!onPglite) await sql`set local session_replication_role = replica`.execute(trx);
    await sql`
      with so as (select to_jsonb(o) - 'reference' - 'url_post' as j from orders o where id = ${seed.order.uuid}),
      st as (select to_jsonb(t) as j from transactions t where id = ${seedTx}),
      gen as materialized (
        select gen_random_uuid() as oid, gen_random_uuid() as tid, g, ${`${DAY}T00:00:00Z`}::timestamptz + (g::float8 / ${TOTAL + 1}) * interval '1 day' as at
        from generate_series(${from}::int, ${to}::int) g
      ),
      ins as (
        ${orderInsert} from gen, so, lateral jsonb_populate_record(null::orders, so.j || jsonb_build_object('id', oid, 'amount', 100 + g % 100000, 'authorized', 100 + g % 100000,
          'captured', 100 + g % 100000, 'token', md5(oid::text), 'created_at', at, 'updated_at', at, 'expires_at', at + interval '10 minutes')) r
        returning id
      )
      insert into transactions
      select r.* from gen, st, lateral jsonb_populate_record(null::transactions, st.j || jsonb_build_object('id', tid, 'order_id', oid, 'amount', 100 + g % 100000,
        'processor_id', 'sim_' || substr(md5(tid::text), 1, 20), 'created_at', at, 'updated_at', at, 'started_at', at)) r`.execute(trx);
  });
}
// as autovacuum would have by the time a day is reconciled
await sql`analyze orders`.execute(db);
await sql`analyze transactions`.execute(db);
out(`generated ${TOTAL} orders and transactions of ${DAY} in ${((performance.now() - g0) / 1000).toFixed(1)} s (${database.kind})`);

// ---- the report: one line per transaction, with mismatches at fixed shares ---------------------------------
const file = path.join(os.tmpdir(), `bench-settlement-${randomBytes(4).toString('hex')}.csv`);
const w = fs.createWriteStream(file);
const write = async (s: string) => {
  if (!w.write(s)) await once(w, 'drain');
};
await write('TYPE,PROCESSOR_ID,REFERENCE,AMOUNT,CURRENCY,TRANSACTION_DATE,SETTLEMENT_DATE,BATCH,FEE_INTERCHANGE,FEE_SCHEME,FEE_PROCESSING,NET\n');
const expected = { MATCHED: 0, AMOUNT_DIFFERS: 0, ONLY_AT_ACQUIRER: 0, ONLY_AT_PAYGATE: 0, SETTLED_LATE: 0, DUPLICATE: 0 };
let lines = 0;
const line = (tid: string | null, pid: string, amount: number, settled: string, batch: string) => {
  const f = sandboxFees('PAYMENT', amount);
  lines++;
  return `PAYMENT,${pid},${tid ?? ''},${amount},EUR,${DAY},${settled},${batch},${f.interchange},${f.scheme},${f.processing},${amount - f.interchange - f.scheme - f.processing}\n`;
};
let after = '00000000-0000-0000-0000-000000000000';
let n = 0;
const w0 = performance.now();
for (;;) {
  const { rows } = await sql<{ id: string; processor_id: string; amount: number }>`select id, processor_id, amount from transactions
    where merchant_id = ${k.client_uuid} and id > ${after} and order_id <> ${seed.order.uuid} order by id limit 50000`.execute(db);
  if (rows.length === 0) break;
  for (const r of rows) {
    n++;
    const bucket = n % 1000;
    const ref = n % 10 === 0 ? null : r.id;
    if (bucket < 5) {
      expected.AMOUNT_DIFFERS++;
      await write(line(ref, r.processor_id, Number(r.amount) + 1, SETTLED, 'BATCH-1'));
    } else if (bucket < 10) {
      expected.ONLY_AT_PAYGATE++;
    } else if (bucket < 15) {
      expected.SETTLED_LATE++;
      await write(line(ref, r.processor_id, Number(r.amount), LATE, 'BATCH-LATE'));
    } else if (bucket < 16) {
      expected.MATCHED++;
      expected.DUPLICATE++;
      await write(line(ref, r.processor_id, Number(r.amount), SETTLED, 'BATCH-1'));
      await write(line(ref, r.processor_id, Number(r.amount), SETTLED, 'BATCH-1'));
    } else {
      expected.MATCHED++;
      await write(line(ref, r.processor_id, Number(r.amount), SETTLED, 'BATCH-1'));
    }
    if (bucket === 999) {
      expected.ONLY_AT_ACQUIRER++;
      await write(line(null, `UNKNOWN${n}`, 4242, SETTLED, 'BATCH-1'));
    }
  }
  after = rows[rows.length - 1].id;
}
w.end();
await once(w, 'finish');
out(`wrote ${lines} settlement lines (${mb(fs.statSync(file).size)}) in ${((performance.now() - w0) / 1000).toFixed(1)} s`);

// ---- the import, as `paygate reconcile import` runs it ------------------------------------------------------
const ctx = await m.merchants.contextForKey(k.key_id);
if (global.gc) global.gc();
const base = process.memoryUsage();
let peakRss = base.rss;
let peakHeap = base.heapUsed;
const sampler = setInterval(() => {
  const u = process.memoryUsage();
  peakRss = Math.max(peakRss, u.rss);
  peakHeap = Math.max(peakHeap, u.heapUsed);
}, 50);
const t0 = performance.now();
const r = await m.reconciliation.importSettlement(ctx, { filename: path.basename(file), acquirer: 'SANDBOX', service: k.service_uuid, settlement_days: 2 }, () => fs.createReadStream(file, { highWaterMark: 1024 * 1024 }), { source: 'CLI', maxBytes: CLI_MAX_BYTES, maxLines: CLI_MAX_LINES });
const seconds = (performance.now() - t0) / 1000;
clearInterval(sampler);
const maxRss = process.resourceUsage().maxRSS * 1024;
out(`imported and matched ${r.report.lines} lines in ${seconds.toFixed(1)} s (${Math.round(r.report.lines / seconds)} lines/s)`);
out(`memory: resident before ${mb(base.rss)}, peak during ${mb(peakRss)} (process peak ${mb(maxRss)}); JS heap before ${mb(base.heapUsed)}, peak ${mb(peakHeap)}`);
const c = r.report.counts;
out(`kinds: ${JSON.stringify(c)}`);
out(`matched: ${c.MATCHED} of ${r.report.lines} lines = ${((100 * c.MATCHED) / r.report.lines).toFixed(2)} % (every line found its transaction or was named: ${r.report.lines - c.ONLY_AT_ACQUIRER} of ${r.report.lines} found one)`);
for (const [kind, v] of Object.entries(expected)) if (c[kind as keyof typeof c] !== v) out(`!! ${kind}: expected ${v}, found ${c[kind as keyof typeof c]}`);

// ---- reading the exceptions: the first page and a deep one (keyset) -----------------------------------------
const time = async (label: string, fn: () => Promise<unknown>) => {
  const xs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    await fn();
    xs.push(performance.now() - s);
  }
  xs.sort((a, b) => a - b);
  out(`${label}: median ${xs[2].toFixed(1)} ms`);
};
const first = await call('GET', '/reconciliation/items?limit=100');
let cursor = first.next_cursor;
for (let i = 0; i < 50; i++) {
  const next = (await call('GET', `/reconciliation/items?limit=100&cursor=${cursor}`)).next_cursor;
  if (!next) break;
  cursor = next;
}
await time('GET /reconciliation/items?limit=100 (first page)', () => call('GET', '/reconciliation/items?limit=100'));
await time('GET /reconciliation/items?limit=100 (page 51, by cursor)', () => call('GET', `/reconciliation/items?limit=100&cursor=${cursor}`));
await time('GET /reconciliation/summary', () => call('GET', '/reconciliation/summary'));
await time('GET /reconciliation/payouts', () => call('GET', '/reconciliation/payouts'));

fs.rmSync(file, { force: true });
await app.close();
if (!onPglite && !process.env.BENCH_KEEP) {
  await database.close();
  const admin = await openDatabase({ databaseUrl: pgUrl, poolSize: 1 });
  await sql.raw(`drop schema ${schema} cascade`).execute(admin.db);
  await admin.close();
} else {
  await database.close();
}
