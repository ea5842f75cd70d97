/**
 * Queries that stay fast with size: 1,000,000 generated orders (each with its payment transaction) on
 * PostgreSQL, then every list route timed over real HTTP, and create → pay → read on the big database
 * next to the same on the empty one (measured first, on the same schema).
 *
 *   npm run bench:scale                      # 1,000,000 orders
 *   npm run bench:scale -- 200000            # fewer
 *   BENCH_DATABASE_URL=postgres://... npm run bench:scale
 *
 * Data (generated with INSERT … SELECT over generate_series, cloning one real order, transaction, event
 * and card made through the API, so every row has the shape the gateway writes): ten merchants with the
 * same number of orders over the last 90 days; a root merchant with four children (half of all orders
 * under the root), five others. One child ("one merchant") also has an event per order and a customer with
 * 10,000 stored cards, and 20,000 open orders past their expiry for the sweep. Merchant timezone UTC.
 * The schema is dropped at the end (BENCH_KEEP=1 keeps it).
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { loadConfig } from '../src/config/config.js';
import { buildApp, buildModules } from '../src/app.js';
import { createMerchantWithService, type CreatedMerchant } from '../src/bootstrap.js';
import { createPlatform } from '../src/platform/create.js';
import { openDatabase } from '../src/platform/db/database.js';
import { migrate } from '../src/platform/db/migrate.js';
import { createLogger } from '../src/platform/logging.js';
import { Secret } from '../src/platform/security/secret.js';
import { Vault } from '../src/platform/security/vault.js';
import { TEST_CARDS } from '../src/processors/index.js';
import { median, pct } from './kit.js';

const TOTAL = Number(process.argv[2] ?? 1_000_000);
const RUNS = 5;
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_scale_${randomBytes(4).toString('hex')}`;
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const out = (s: string) => process.stdout.write(s + '\n');

const admin = await openDatabase({ databaseUrl: pgUrl, poolSize: 1 });
await sql.raw(`create schema ${schema}`).execute(admin.db);
await admin.close();
const database = await openDatabase({ databaseUrl: pgUrl, schema, poolSize: 20 });
await migrate(database);
const config = loadConfig({ PAYGATE_LOG_LEVEL: 'silent', PAYGATE_WORKERS: 'false', PORT: '0', PAYGATE_RATE_LIMIT_SANDBOX: '0', PAYGATE_DATA_DIR: '/nonexistent' });
const p = await createPlatform(config, { database, logger: createLogger('silent'), vault: new Vault([{ id: 'bench', key: randomBytes(32) }], randomBytes(32)) });
const m = buildModules(p);
const app = await buildApp(p, m);
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/v1/sandbox`;
const db = database.db;

function request(method: string, path: string, key: CreatedMerchant, body?: Record<string, unknown>): Promise<{ status: number; body: string }> {
  const payload = body ? JSON.stringify({ signature: key.signature, ...body }) : undefined;
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, {
      method,
      agent,
      headers: { authorization: `Bearer ${key.api_key}`, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function ok(method: string, path: string, key: CreatedMerchant, body?: Record<string, unknown>) {
  const r = await request(method, path, key, body);
  if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${r.body.slice(0, 300)}`);
  return JSON.parse(r.body);
}

// ---- merchants, and one real order/transaction/event/card to clone ----------------------------------
const mk = (o: Parameters<typeof createMerchantWithService>[2] = {}) => createMerchantWithService(p, m, { timezone: 'UTC', isPci: true, ...o });
const root = await mk({ name: 'root' });
const children = [];
for (let i = 0; i < 4; i++) children.push(await mk({ name: `child ${i + 1}`, parentId: root.client_uuid }));
const others = [];
for (let i = 0; i < 5; i++) others.push(await mk({ name: `other ${i + 1}` }));
const one = children[0];
const all = [root, ...children, ...others];

async function storeCard(key: CreatedMerchant, customer: string) {
  const row = await database.transaction((trx) =>
    m.sources.storeCard(trx, { merchantId: key.client_uuid, env: 'sandbox' }, { customerExtId: customer, holder: 'Ana Pérez', pan: new Secret(TEST_CARDS.APPROVED), expMonth: 12, expYear: 2030 }),
  );
  return row.id;
}

const cards = new Map<string, string>();
for (const k of all) cards.set(k.client_uuid, await storeCard(k, 'bench-customer'));

/** create → pay (stored card) → read, timed per step. */
async function stories(label: string, key: CreatedMerchant, count: number, concurrency: number) {
  const t = { create: [] as number[], pay: [] as number[], read: [] as number[] };
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) {
        let s = performance.now();
        const created = await ok('POST', '/payment', key, { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'bench', service: key.service_uuid, customer_ext_id: 'bench-customer' });
        t.create.push(performance.now() - s);
        s = performance.now();
        await ok('POST', '/payment/direct', key, { order_uuid: created.order.uuid, card_uuid: cards.get(key.client_uuid) });
        t.pay.push(performance.now() - s);
        s = performance.now();
        await ok('GET', `/order/${created.order.uuid}`, key);
        t.read.push(performance.now() - s);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  return { label, perSecond: count / secs, create: t.create, pay: t.pay, read: t.read };
}

const STORIES = 300;
const STORY_CONCURRENCY = 8;
await stories('warm-up', one, 50, STORY_CONCURRENCY);
const empty = await stories('empty database', one, STORIES, STORY_CONCURRENCY);

// ---- generation -------------------------------------------------------------------------------------------
const seedOrder = await ok('POST', '/payment', one, { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'bench seed', service: one.service_uuid, customer_ext_id: 'bench-customer', url_post: 'http://127.0.0.1:9/bench' });
await ok('POST', '/payment/direct', one, { order_uuid: seedOrder.order.uuid, card_uuid: cards.get(one.client_uuid) });
const seedOpen = await ok('POST', '/payment', one, { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'bench open', service: one.service_uuid });
const seedTx = (await db.selectFrom('transactions').select('id').where('order_id', '=', seedOrder.order.uuid).executeTakeFirstOrThrow()).id;
const seedEvent = (await db.selectFrom('events').select('id').where('order_id', '=', seedOrder.order.uuid).executeTakeFirstOrThrow()).id;
const seedCard = cards.get(one.client_uuid)!;

const perMerchant = Math.floor(TOTAL / all.length);
const g0 = performance.now();
// the columns of an order that can be written (not the generated ones)
const orderColumns = (await sql<{ c: string }>`select string_agg(quote_ident(column_name), ', ' order by ordinal_position) as c
  from information_schema.columns where table_schema = current_schema() and table_name = 'orders' and is_generated = 'NEVER'`.execute(db)).rows[0].c;
const orderInsert = sql.raw(`insert into orders (${orderColumns}) select ${orderColumns.split(', ').map((c) => `r.${c}`).join(', ')}`);
for (const k of all) {
  const t0 = performance.now();
  // orders and their payment transactions, in one statement, spread over the last 90 days. Generated rows
  // are consistent by construction: triggers and foreign-key checks are skipped for the bulk load
  // (session_replication_role), due_at is written as the gateway's trigger would (offset 0).
  await database.transaction(async (trx) => {
  await sql`set local session_replication_role = replica`.execute(trx);
  await sql`
    with so as (select to_jsonb(o) - 'reference' - 'url_post' as j from orders o where id = ${seedOrder.order.uuid}),
    st as (select to_jsonb(t) as j from transactions t where id = ${seedTx}),
    gen as materialized (
      select gen_random_uuid() as oid, gen_random_uuid() as tid, now() - (g::float8 / ${perMerchant}) * interval '90 days' as at
      from generate_series(1, ${perMerchant}) g
    ),
    ins as (
      ${orderInsert} from gen, so, lateral jsonb_populate_record(null::orders, so.j || jsonb_build_object('id', oid, 'merchant_id', ${k.client_uuid}::uuid, 'key_id', ${k.key_id}::uuid,
        'service_id', ${k.service_uuid}::uuid, 'token', md5(oid::text), 'created_at', at, 'updated_at', at + interval '1 second',
        'expires_at', at + interval '10 minutes', 'due_at', at + interval '10 minutes')) r
      returning id
    )
    insert into transactions
    select r.* from gen, st, lateral jsonb_populate_record(null::transactions, st.j || jsonb_build_object('id', tid, 'order_id', oid, 'merchant_id', ${k.client_uuid}::uuid,
      'created_at', at + interval '1 second', 'updated_at', at + interval '1 second', 'started_at', at + interval '1 second')) r`.execute(trx);
  });
  out(`generated ${perMerchant} orders for ${k === one ? 'one merchant' : k === root ? 'the root merchant' : 'a merchant'} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
// an event per order of one merchant: 90% delivered, 5% failed, 5% pending
await sql`
  with se as (select to_jsonb(e) as j from events e where id = ${seedEvent})
  insert into events
  select x.* from (select id, created_at, random() as r from orders where merchant_id = ${one.client_uuid}) o, se,
    lateral jsonb_populate_record(null::events, se.j || jsonb_build_object('id', gen_random_uuid(), 'order_id', o.id, 'created_at', o.created_at,
    'status', case when r < 0.9 then 'DELIVERED' when r < 0.95 then 'FAILED' else 'PENDING' end)) x`.execute(db);
// a customer with 10,000 cards
await sql`
  with sc as (select to_jsonb(s) as j from sources s where id = ${seedCard})
  insert into sources
  select r.* from (select gen_random_uuid() as id, g from generate_series(1, 10000) g) x, sc,
    lateral jsonb_populate_record(null::sources, sc.j || jsonb_build_object('id', x.id, 'token', md5(x.id::text), 'fingerprint', encode(sha256(x.id::text::bytea), 'hex'),
    'created_at', now() - (g || ' minutes')::interval, 'seq', nextval(pg_get_serial_sequence('sources', 'seq')))) r`.execute(db);
// 20,000 open orders past their expiry (the sweep's backlog)
await sql`
  with so as (select to_jsonb(o) as j from orders o where id = ${seedOpen.order.uuid})
  ${orderInsert} from (select gen_random_uuid() as id from generate_series(1, 20000)) x, so,
    lateral jsonb_populate_record(null::orders, so.j || jsonb_build_object('id', x.id, 'token', md5(x.id::text), 'expires_at', now() - interval '1 minute', 'created_at', now() - interval '20 minutes')) r`.execute(db);
await sql`vacuum analyze`.execute(db);
const counts = await sql<{ orders: number; transactions: number; events: number; sources: number }>`
  select (select count(*) from orders)::int as orders, (select count(*) from transactions)::int as transactions,
    (select count(*) from events)::int as events, (select count(*) from sources)::int as sources`.execute(db);
out(`generated in ${((performance.now() - g0) / 1000).toFixed(0)} s: ${JSON.stringify(counts.rows[0])}`);

// ---- list routes --------------------------------------------------------------------------------------------
const fmt = (d: Date) => d.toISOString().replace(/[-T:]/g, '').slice(0, 12);
const start30 = fmt(new Date(Date.now() - 30 * 86400_000));
const results: Array<{ route: string; median: number; p95: number; rows: number; bytes: number; count?: unknown }> = [];

async function time(route: string, key: CreatedMerchant, path: string, rowsOf: (b: any) => number) {
  await request('GET', path, key); // warm-up
  const times: number[] = [];
  let last: { status: number; body: string } | null = null;
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now();
    last = await request('GET', path, key);
    times.push(performance.now() - s);
    if (last.status !== 200) throw new Error(`${path}: ${last.status} ${last.body.slice(0, 300)}`);
  }
  const body = JSON.parse(last!.body);
  results.push({ route, median: median(times), p95: Math.max(...times), rows: rowsOf(body), bytes: Buffer.byteLength(last!.body), count: body.count });
}

const txRows = (b: any) => b.transactions.length;
await time('one merchant /orders, 30 days, limit 10000', one, `/orders?start=${start30}&limit=10000`, txRows);
const first = JSON.parse((await request('GET', `/orders?start=${start30}&limit=10000`, one)).body);
if (first.next_cursor) {
  await time('one merchant /orders, 30 days, limit 10000, 2nd page by cursor', one, `/orders?start=${start30}&limit=10000&cursor=${first.next_cursor}`, txRows);
  await time('one merchant /orders, 30 days, limit 10000, 2nd page by offset', one, `/orders?start=${start30}&limit=10000&offset=10000`, txRows);
}
await time('one merchant /orders, 30 days, limit 100', one, `/orders?start=${start30}&limit=100`, txRows);
await time('root merchant /orders, 30 days, limit 10000', root, `/orders?start=${start30}&limit=10000`, txRows);
await time('root merchant /orders, 30 days, limit 100', root, `/orders?start=${start30}&limit=100`, txRows);
await time('root merchant /orders, all time, limit 100', root, `/orders?limit=100`, txRows);
const evRows = (b: any) => b.events.length;
await time('/events (one merchant, 100k events), limit 100', one, '/events?limit=100', evRows);
await time('/events?status=FAILED, limit 100', one, '/events?status=FAILED&limit=100', evRows);
await time('/events?status=PENDING, limit 100', one, '/events?status=PENDING&limit=100', evRows);
const someOrder = (await db.selectFrom('events').select('order_id').where('merchant_id', '=', one.client_uuid).limit(1).executeTakeFirstOrThrow()).order_id!;
await time('/events?order_uuid=…', one, `/events?order_uuid=${someOrder}`, evRows);
const srcRows = (b: any) => b.sources.length;
await time('customer sources (10,000 cards), unpaged', one, '/customer/bench-customer/sources?status=ALL', srcRows);
await time('customer sources (10,000 cards), limit 100', one, '/customer/bench-customer/sources?status=ALL&limit=100', srcRows);
const sp = JSON.parse((await request('GET', '/customer/bench-customer/sources?status=ALL&limit=100', one)).body);
if (sp.next_cursor) await time('customer sources, limit 100, next page by cursor', one, `/customer/bench-customer/sources?status=ALL&limit=100&cursor=${sp.next_cursor}`, srcRows);

// ---- the dashboard's payments list (its own session, its filters and keyset pages) ------------------------
const dashBase = base.replace(/\/v1\/sandbox$/, '/dashboard/api');
const user = await ok('POST', '/client/user', one, { email: 'bench@shop.example', username: `bench-${schema}`, language: 'EN', environment: 'SANDBOX', send_email_with_credentials: false, group: 'VIEWER' });
await db.updateTable('dashboard_users').set({ must_change_password: false }).where('id', '=', user.user.uuid).execute();
let dashCookie = '';
function dashRequest(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${dashBase}${path}`, {
      method,
      agent,
      headers: { ...(dashCookie ? { cookie: dashCookie } : {}), ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      const set = res.headers['set-cookie'];
      if (set) dashCookie = String(set[0]).split(';')[0];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}
const signIn = await dashRequest('POST', '/session', { login: user.user.username, password: user.password });
if (signIn.status !== 200) throw new Error(`dashboard sign-in: ${signIn.status} ${signIn.body}`);
async function timeDash(route: string, path: string) {
  await dashRequest('GET', path); // warm-up
  const times: number[] = [];
  let last: { status: number; body: string } | null = null;
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now();
    last = await dashRequest('GET', path);
    times.push(performance.now() - s);
    if (last.status !== 200) throw new Error(`${path}: ${last.status} ${last.body.slice(0, 300)}`);
  }
  const body = JSON.parse(last!.body);
  results.push({ route, median: median(times), p95: Math.max(...times), rows: body.orders.length, bytes: Buffer.byteLength(last!.body) });
  return body;
}
const from30 = new Date(Date.now() - 30 * 86400_000).toISOString();
const firstDash = await timeDash('dashboard /orders, newest 50', '/orders');
await timeDash('dashboard /orders, newest 50, 2nd page by cursor', `/orders?cursor=${firstDash.next_cursor}`);
await timeDash('dashboard /orders?status=SUCCESS&from=30 days ago, 50', `/orders?status=SUCCESS&from=${from30}`);
await timeDash('dashboard /orders, amount 500–1500 and 30 days, 50', `/orders?amount_min=500&amount_max=1500&from=${from30}`);
await timeDash('dashboard /orders?status=REFUNDED (none match), 50', '/orders?status=REFUNDED');
await timeDash('dashboard /orders?customer=bench-customer, 50', '/orders?customer=bench-customer');
await timeDash('dashboard /orders?last4=0004 (every order), 50', '/orders?last4=0004');
await timeDash('dashboard /orders?q=<order uuid>', `/orders?q=${someOrder}`);

// ---- the expiry sweep on a backlog, and the money path on the big database ---------------------------------------------
const s0 = performance.now();
const expired = await m.payments.expireDue();
const sweepMs = performance.now() - s0;
const s1 = performance.now();
await m.payments.expireDue();
const idleSweepMs = performance.now() - s1;
const big = await stories('big database', one, STORIES, STORY_CONCURRENCY);

// ---- report ------------------------------------------------------------------------------------------------------
out('');
out(`| route | median ms | max ms | rows | bytes | count |`);
out(`|---|---:|---:|---:|---:|---:|`);
for (const r of results) out(`| ${r.route} | ${r.median.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.rows} | ${r.bytes.toLocaleString('en')} | ${r.count ?? ''} |`);
out('');
out(`expiry sweep: ${expired} due orders expired in ${sweepMs.toFixed(0)} ms; a sweep with nothing due: ${idleSweepMs.toFixed(1)} ms`);
out('');
out(`| create → pay → read (${STORIES} stories, ${STORY_CONCURRENCY} clients) | stories/s | create p50 | pay p50 | read p50 | pay p95 |`);
out(`|---|---:|---:|---:|---:|---:|`);
for (const r of [empty, big]) {
  out(`| ${r.label} | ${r.perSecond.toFixed(0)} | ${median(r.create).toFixed(1)} ms | ${median(r.pay).toFixed(1)} ms | ${median(r.read).toFixed(1)} ms | ${pct(r.pay, 95).toFixed(1)} ms |`);
}

await app.close();
await database.close();
if (!process.env.BENCH_KEEP) {
  const a = await openDatabase({ databaseUrl: pgUrl, poolSize: 1 });
  await sql.raw(`drop schema ${schema} cascade`).execute(a.db);
  await a.close();
} else out(`schema kept: ${schema}`);
agent.destroy();
