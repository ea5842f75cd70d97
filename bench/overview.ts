/**
 * The dashboard's overview with disputes at size: 1,000,000 orders of one merchant on PostgreSQL over the
 * last 365 days (with their payment transactions, refunds and disputes), then the overview of the last 30 and 90 days
 * (each with its previous period: 60 and 180 days of data read) timed through the payments service,
 * median of 5 after a warm-up, and EXPLAIN ANALYZE's plan summary of its two statements. The bulk-loaded
 * rows go in as the overview's changes and are folded into its day rows by the payments job's fold
 * (both timed), 50 payments follow through the API (changes not folded yet), and each overview's figures
 * are checked equal to the same figures computed straight from the orders and transactions (and, for
 * the money lost to disputes, from the disputes), timed too. The dispute ratio (`GET /disputes/ratios`,
 * 6 and 12 months) is timed the same way.
 *
 *   npm run bench:overview                  # 1,000,000 orders
 *   npm run bench:overview -- 200000        # fewer (BENCH_ORDERS=200000 too)
 *   BENCH_DATABASE_URL=postgres://... npm run bench:overview
 *
 * Data (INSERT … SELECT over generate_series, cloning one real order and transaction made through the
 * API so every row has the shape the gateway writes): 70% paid, 15% declined (five reasons), 5% paid and
 * refunded the next day, 10% never paid (expired); 80% EUR, 20% USD; VISA, MASTERCARD, AMEX and BIZUM;
 * a third with a 3-D Secure record. Disputes on about 0.5% of the orders (0.7% of the paid ones, one per
 * order), received up to 30 days after the payment: 5% retrievals, the rest chargebacks; 40% lost (LOST,
 * ACCEPTED, EXPIRED), 30% won, 30% still open, decided up to 20 days after they were received; each
 * order's dispute money written on it as the disputes module does. After the fold, 6 disputes raised
 * through the API on the payments made then, 3 of them accepted (lost): changes not folded yet. A second
 * merchant with 200,000 orders (and its disputes) shares the tables. Merchant timezone Europe/Madrid. The schema is dropped at the end (BENCH_KEEP=1 keeps it).
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
import { Vault } from '../src/platform/security/vault.js';
import { TEST_CARDS } from '../src/processors/index.js';
import { dayIn, overviewStatements, periodDays } from '../src/modules/payments/operations/overview.js';
import { median } from './kit.js';

const TOTAL = Number(process.argv[2] ?? process.env.BENCH_ORDERS ?? 1_000_000);
const OTHER = Math.floor(TOTAL / 5);
const RUNS = 5;
const CHUNK = 100_000;
const pgUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_overview_${randomBytes(4).toString('hex')}`;
const out = (s: string) => process.stdout.write(s + '\n');

const admin = await openDatabase({ databaseUrl: pgUrl, poolSize: 1 });
await sql.raw(`create schema ${schema}`).execute(admin.db);
await admin.close();
const database = await openDatabase({ databaseUrl: pgUrl, schema, poolSize: 4 });
await migrate(database);
const config = loadConfig({ PAYGATE_LOG_LEVEL: 'silent', PAYGATE_WORKERS: 'false', PORT: '0', PAYGATE_RATE_LIMIT_SANDBOX: '0', PAYGATE_DATA_DIR: '/nonexistent' });
const p = await createPlatform(config, { database, logger: createLogger('silent'), vault: new Vault([{ id: 'bench', key: randomBytes(32) }], randomBytes(32)) });
const m = buildModules(p);
const app = await buildApp(p, m);
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/v1/sandbox`;
const db = database.db;

function post(path: string, key: CreatedMerchant, body: Record<string, unknown>): Promise<any> {
  const payload = JSON.stringify({ signature: key.signature, ...body });
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.api_key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) reject(new Error(`POST ${path}: ${res.statusCode} ${text.slice(0, 300)}`));
        else resolve(JSON.parse(text));
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const one = await createMerchantWithService(p, m, { timezone: 'Europe/Madrid', isPci: true, name: 'overview merchant' });
const other = await createMerchantWithService(p, m, { timezone: 'Europe/Madrid', isPci: true, name: 'another merchant' });

// ---- generation -------------------------------------------------------------------------------------------
const g0 = performance.now();
const orderColumns = (await sql<{ c: string }>`select string_agg(quote_ident(column_name), ', ' order by ordinal_position) as c
  from information_schema.columns where table_schema = current_schema() and table_name = 'orders' and is_generated = 'NEVER'`.execute(db)).rows[0].c;
const orderInsert = sql.raw(`insert into orders (${orderColumns}) select ${orderColumns.split(', ').map((c) => `r.${c}`).join(', ')}`);

async function generate(k: CreatedMerchant, total: number) {
  const seed = await post('/payment/single-step', k, {
    amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'bench seed', service: k.service_uuid, customer_ext_id: 'bench-customer',
    card_holder: 'Ana Pérez', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '30', card_cvv: '123',
  });
  const seedOrder = seed.order.uuid as string;
  const seedTx = (await db.selectFrom('transactions').select('id').where('order_id', '=', seedOrder).executeTakeFirstOrThrow()).id;
  for (let from = 0; from < total; from += CHUNK) {
    const n = Math.min(CHUNK, total - from);
    // consistent by construction: triggers and foreign-key checks are skipped for the bulk load
    // (session_replication_role); due_at is written as the gateway's trigger would (offset 0)
    await database.transaction(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await sql`
        with so as (select to_jsonb(o) - 'reference' - 'url_post' - 'threeds_data' as j from orders o where id = ${seedOrder}),
        st as (select to_jsonb(t) - 'source_json' as j, t.source_json::jsonb as src from transactions t where id = ${seedTx}),
        gen as materialized (
          select gen_random_uuid() as oid, gen_random_uuid() as tid, gen_random_uuid() as rid,
            now() - ((${from} + g)::float8 / ${total}) * interval '365 days' as at,
            random() as r, random() as r2, random() as r3, (100 + (g % 500) * 10)::bigint as amount
          from generate_series(1, ${n}) g
        ),
        kind as materialized (
          select *, case when r < 0.70 then 'PAID' when r < 0.85 then 'REFUSED' when r < 0.90 then 'REFUNDED' else 'EXPIRED' end as k,
            case when r2 < 0.8 then 'EUR' else 'USD' end as cur
          from gen
        ),
        ins_orders as (
          ${orderInsert} from kind, so, lateral jsonb_populate_record(null::orders, so.j || jsonb_build_object(
            'id', oid, 'merchant_id', ${k.client_uuid}::uuid, 'key_id', ${k.key_id}::uuid, 'service_id', ${k.service_uuid}::uuid,
            'token', md5(oid::text), 'created_at', at, 'updated_at', at + interval '1 second', 'expires_at', at + interval '10 minutes', 'due_at', at + interval '10 minutes',
            'amount', amount, 'currency', cur, 'currency_number', case cur when 'EUR' then '978' else '840' end,
            'status', case k when 'PAID' then 'SUCCESS' when 'REFUSED' then 'REFUSED' when 'REFUNDED' then 'REFUNDED' else 'EXPIRED' end,
            'paid', k in ('PAID', 'REFUNDED'), 'safe', k in ('PAID', 'REFUNDED') and r3 < 0.33,
            'authorized', case when k in ('PAID', 'REFUNDED') then amount else 0 end,
            'captured', case when k in ('PAID', 'REFUNDED') then amount else 0 end,
            'refunded', case when k = 'REFUNDED' then amount else 0 end)
            || case when r3 < 0.33 and k <> 'EXPIRED' then jsonb_build_object('threeds_data', jsonb_build_object('version', '2.2.0',
                 'flow', case when r3 < 0.22 then 'FRICTIONLESS' else 'CHALLENGE' end, 'sca_requested', true,
                 'status', case when k = 'REFUSED' and r3 < 0.05 then 'N' else 'Y' end, 'eci', '05', 'exemption', null)) else '{}'::jsonb end) r
          returning id
        ),
        ins_payments as (
          insert into transactions
          select r.* from kind, st, lateral jsonb_populate_record(null::transactions, st.j || jsonb_build_object(
            'id', tid, 'order_id', oid, 'merchant_id', ${k.client_uuid}::uuid, 'amount', amount,
            'status', case when k = 'REFUSED' then (case when r3 > 0.95 then 'ERROR' else 'REFUSED' end) else 'SUCCESS' end,
            'error', case when k = 'REFUSED' then (array['DENIED', 'INSUFFICIENT_FUNDS', 'EXPIRED_CARD', 'FRAUD_SUSPECTED', 'PROCESSOR_ERROR'])[1 + floor(r3 * 5)::int] else 'NONE' end,
            'source_json', case when r2 > 0.97 then '{"object":"BIZUM","type":"bizum","phone":"******123"}'
              else (st.src || jsonb_build_object('brand', (array['VISA', 'VISA', 'MASTERCARD', 'AMEX'])[1 + floor(r2 * 4)::int]))::text end,
            'created_at', at + interval '1 second', 'updated_at', at + interval '1 second', 'started_at', at + interval '1 second')) r
          where k <> 'EXPIRED'
          returning id
        )
        insert into transactions
        select r.* from kind, st, lateral jsonb_populate_record(null::transactions, st.j || jsonb_build_object(
          'id', rid, 'order_id', oid, 'merchant_id', ${k.client_uuid}::uuid, 'amount', amount, 'operative', 'REFUND', 'processor_operation', 'refund',
          'status', 'SUCCESS', 'error', 'NONE', 'created_at', at + interval '1 day', 'updated_at', at + interval '1 day', 'started_at', at + interval '1 day')) r
        where k = 'REFUNDED'`.execute(trx);
    });
  }
}

/**
 * Disputes of about 0.7% of `k`'s paid orders (one per order, on its payment), chosen by a hash of the
 * order id, with mixed stages and statuses; then each order's dispute money as the disputes module hands
 * it to the payments module (`recordDisputeMoney`), with the triggers off like the rest of the bulk load
 * (the backfill below books the losses).
 */
async function generateDisputes(k: CreatedMerchant) {
  await database.transaction(async (trx) => {
    await sql`set local session_replication_role = replica`.execute(trx);
    await sql`
      with picked as materialized (
        select o.id as oid, t.id as tid, o.service_id, o.service_type, o.amount, o.currency, t.created_at as paid_at,
          abs(hashtext(o.id::text || 'r')) % 1000 / 1000.0 as r, abs(hashtext(o.id::text || 's')) % 1000 / 1000.0 as s
        from orders o join transactions t on t.order_id = o.id and t.operative = 'AUTHORIZATION' and t.status = 'SUCCESS'
        where o.merchant_id = ${k.client_uuid} and o.paid and abs(hashtext(o.id::text)) % 1000 < 7
      ),
      shaped as materialized (
        select *, least(paid_at + (1 + s * 29) * interval '1 day', now() - interval '1 hour') as received,
          case when r < 0.10 then 'LOST' when r < 0.25 then 'ACCEPTED' when r < 0.40 then 'EXPIRED' when r < 0.70 then 'WON'
            when r < 0.85 then 'NEEDS_RESPONSE' else 'UNDER_REVIEW' end as status,
          case when s < 0.05 then 'RETRIEVAL' when s < 0.9 then 'CHARGEBACK' else 'PRE_ARBITRATION' end as stage
        from picked
      ),
      decided as materialized (
        select *, case when status in ('NEEDS_RESPONSE', 'UNDER_REVIEW') then null
          else least(received + (1 + r * 19) * interval '1 day', now() - interval '1 minute') end as resolved
        from shaped
      )
      insert into disputes (id, merchant_id, env, order_id, transaction_id, service_id, service_type, source, acquirer, provider_id,
        reason_code, category, amount, currency, stage, status, evidence_due_at, sandbox_outcome, submitted_at, resolved_at, created_at, updated_at)
      select gen_random_uuid(), ${k.client_uuid}::uuid, 'sandbox', oid, tid, service_id, service_type, 'IMPORT', 'BENCH', 'B-' || oid::text,
        case when s < 0.5 then '10.4' else '4853' end, case when s < 0.5 then 'FRAUD' else 'PRODUCT_NOT_RECEIVED' end,
        case when r < 0.5 then amount else greatest(1, amount / 2) end, currency, stage, status, received + interval '7 days', null,
        case when status in ('UNDER_REVIEW', 'WON', 'LOST') then received + interval '2 days' end, resolved, received, coalesce(resolved, received)
      from decided`.execute(trx);
    await sql`
      update orders o set dispute_disputed = x.disputed, dispute_lost = x.lost, dispute_won = x.won, dispute_changed_at = x.changed_at
      from (
        select d.order_id,
          sum(case when d.stage <> 'RETRIEVAL' and d.status in ('NEEDS_RESPONSE', 'UNDER_REVIEW') then d.amount else 0 end) as disputed,
          sum(case when d.stage <> 'RETRIEVAL' and d.status in ('LOST', 'ACCEPTED', 'EXPIRED') then d.amount else 0 end) as lost,
          sum(case when d.stage <> 'RETRIEVAL' and d.status = 'WON' then d.amount else 0 end) as won,
          max(d.updated_at) as changed_at
        from disputes d where d.merchant_id = ${k.client_uuid} group by d.order_id
      ) x
      where o.id = x.order_id`.execute(trx);
  });
}

for (const [k, n, label] of [[one, TOTAL, 'the merchant'], [other, OTHER, 'another merchant']] as const) {
  const t0 = performance.now();
  await generate(k, n);
  await generateDisputes(k);
  out(`generated ${n} orders for ${label} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
const disputeMix = await sql<{ status: string; stage: string; n: number }>`
  select status, case when stage = 'RETRIEVAL' then 'RETRIEVAL' else 'CHARGEBACK+' end as stage, count(*)::int as n
  from disputes where merchant_id = ${one.client_uuid} group by 1, 2 order by 1, 2`.execute(db);
out(`disputes of the merchant: ${disputeMix.rows.reduce((a, r) => a + r.n, 0)} (${disputeMix.rows.map((r) => `${r.status}/${r.stage} ${r.n}`).join(', ')})`);
await sql`vacuum analyze`.execute(db);
const counts = await sql<{ orders: number; transactions: number }>`
  select (select count(*) from orders)::int as orders, (select count(*) from transactions)::int as transactions`.execute(db);
out(`generated in ${((performance.now() - g0) / 1000).toFixed(0)} s: ${JSON.stringify(counts.rows[0])}`);

// ---- the day rows --------------------------------------------------------------------------------------------
// the bulk load skipped the triggers: its orders and transactions go in as changes, as the migration puts an
// existing database's, then the payments job's fold turns them into day rows
const b0 = performance.now();
// (the orders made through the API to be cloned were counted by the triggers: everything is counted afresh)
await sql`truncate overview_order_changes, overview_tx_changes, overview_order_days, overview_tx_days`.execute(db);
await sql`select paygate_overview_backfill()`.execute(db);
out(`changes written in ${((performance.now() - b0) / 1000).toFixed(1)} s`);
const f0 = performance.now();
let folded = 0;
for (let n; (n = await m.payments.foldOverview(10_000)) > 0; ) folded += n;
out(`folded ${folded} changes into day rows in ${((performance.now() - f0) / 1000).toFixed(1)} s`);
await sql`vacuum analyze`.execute(db);
const dayRows = await sql<{ orders: number; transactions: number }>`
  select (select count(*) from overview_order_days)::int as orders, (select count(*) from overview_tx_days)::int as transactions`.execute(db);
out(`day rows: ${JSON.stringify(dayRows.rows[0])}`);
// a day's worth of payments made after the fold stays as changes until the next one: the overview adds them
for (let i = 0; i < 50; i++) {
  const paidNow = await post('/payment/single-step', one, {
    amount: 500 + i, operative: 'AUTHORIZATION', secure: false, description: 'after the fold', service: one.service_uuid, customer_ext_id: 'bench-customer',
    card_holder: 'Ana Pérez', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '30', card_cvv: '123',
  });
  // and disputes of some of them through the API, half of them lost at once
  if (i % 8 === 0) {
    const raised = await post('/disputes/simulate', one, { order_uuid: paidNow.order.uuid });
    if (i % 16 === 0) await post(`/disputes/${raised.dispute.uuid}/accept`, one, {});
  }
}

// ---- the overview --------------------------------------------------------------------------------------------
const ctx = await m.merchants.contextForKey(one.key_id);
for (const period of ['30d', '90d'] as const) {
  const r = await m.payments.overview(ctx, { period }); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now();
    await m.payments.overview(ctx, { period });
    times.push(performance.now() - s);
  }
  const eur = r.currencies.find((c) => c.currency === 'EUR');
  out(`overview ${period} (+ previous ${period}): median ${median(times).toFixed(1)} ms (runs ${times.map((x) => x.toFixed(0)).join(', ')}); EUR orders ${eur?.current.orders}, paid ${eur?.current.paid}, volume ${eur?.current.volume}, refunds ${eur?.current.refunds.count}, declines ${eur?.current.declines.reduce((s, d) => s + d.count, 0)}, disputes lost ${eur?.current.disputes_lost.orders} (${eur?.current.disputes_lost.amount}), net ${eur?.current.net}`);

  const tz = ctx.merchant.timezone;
  const { from, to } = periodDays({ period }, dayIn(ctx.clock.now(), tz));
  const days = Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;
  const prevFrom = new Date(Date.parse(from) - days * 86_400_000).toISOString().slice(0, 10);
  const end = new Date(Date.parse(to) + 86_400_000).toISOString().slice(0, 10);
  const st = overviewStatements({ merchantId: ctx.merchant.id, env: ctx.env, timezone: tz, from: prevFrom, end });
  // the same figures straight from the orders and transactions (the way before the day rows): equal, and timed
  const raw = rawStatements({ merchantId: ctx.merchant.id, env: ctx.env, timezone: tz, from: prevFrom, end });
  const rawTimes: number[] = [];
  for (let i = 0; i < 3; i++) {
    const s = performance.now();
    await Promise.all([raw.orders.execute(db), raw.transactions.execute(db)]);
    rawTimes.push(performance.now() - s);
  }
  for (const name of ['orders', 'transactions'] as const) {
    const a = lines((await st[name].execute(db)).rows as never);
    const b = lines((await raw[name].execute(db)).rows);
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${a.filter((x, i) => x !== b[i]).slice(0, 3).join("\n")}\n${b.filter((x, i) => x !== a[i]).slice(0, 3).join("\n")}\n` + `${period} ${name}: the day rows (${a.length} groups) differ from the orders and transactions (${b.length} groups)`);
  }
  out(`  the same figures from the orders and transactions themselves: equal; median ${median(rawTimes).toFixed(1)} ms (runs ${rawTimes.map((x) => x.toFixed(0)).join(', ')})`);
  for (const [name, q] of Object.entries(st)) {
    const c = q.compile(db);
    const plan = await sql<{ 'QUERY PLAN': string }>`explain (analyze, buffers) ${sql.raw(inline(c.sql, c.parameters))}`.execute(db);
    const lines = plan.rows.map((x) => x['QUERY PLAN']);
    const nodes = lines.filter((l) => /Scan|Join|Aggregate|Sort|Gather/.test(l)).map((l) => l.replace(/\s+\(cost=[^)]*\)/, '').replace(/ \(actual time=[\d.]+\.\./, ' (').trim());
    out(`  ${name}: ${lines.filter((l) => /Execution Time|Planning Time/.test(l)).map((l) => l.trim()).join('; ')}`);
    for (const l of nodes) out(`    ${l}`);
  }
}

// ---- the dispute ratio ------------------------------------------------------------------------------------------
for (const months of [6, 12]) {
  const r = await m.disputes.ratios(ctx, { months }); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now();
    await m.disputes.ratios(ctx, { months });
    times.push(performance.now() - s);
  }
  const last = r.ratios.filter((x) => x.month === r.ratios[r.ratios.length - 1].month).map((x) => `${x.scheme} ${x.disputes}/${x.sales} ${x.standing}`);
  out(`dispute ratios, ${months} months: median ${median(times).toFixed(1)} ms (runs ${times.map((x) => x.toFixed(0)).join(', ')}); this month ${last.join(', ')}`);
}

/**
 * The overview's statements as they were before the day rows (migrations/1060_overview_days.sql): the same
 * figures straight from every order and transaction of the period, kept here as the reference the day
 * rows are checked against and timed next to.
 */
function rawStatements(b: { merchantId: string; env: string; timezone: string; from: string; end: string }) {
  const start = sql`(${b.from}::date::timestamp at time zone ${b.timezone})`;
  const stop = sql`(${b.end}::date::timestamp at time zone ${b.timezone})`;
  const day = (col: string) => sql`((${sql.ref(col)} at time zone ${b.timezone})::date)`;
  const orders = sql<Record<string, unknown>>`
    select x.currency, to_char(x.day, 'YYYY-MM-DD') as day, x.tds, count(*)::int as orders, (count(*) filter (where x.paid))::int as paid
    from (
      select o.currency, ${day('o.created_at')} as day, o.paid, nullif(paygate_overview_tds(o.threeds_data, o.paid), '') as tds
      from orders o
      where o.merchant_id = ${b.merchantId} and o.env = ${b.env} and o.created_at >= ${start} and o.created_at < ${stop}
        and o.operative in ('AUTHORIZATION', 'PARTIAL_AUTHORIZATION', 'DEFERRED')
    ) x
    group by x.currency, x.day, x.tds`;
  const attempt = sql`(t.status = 'SUCCESS' and t.operative in ('AUTHORIZATION', 'DEFERRED') and t.source_json is not null and t.source_json <> '')`;
  const transactions = sql<Record<string, unknown>>`
    select x.currency, to_char(x.day, 'YYYY-MM-DD') as day, x.operative, x.status, x.error,
      case when x.obj is null then null
        when x.obj in ('CARD', 'DYNAMIC_CARD', 'TAP_TO_PAY') and coalesce(x.brand, '') <> '' then 'CARD:' || upper(x.brand)
        else x.obj end as method,
      case when x.obj is null then null
        when x.obj in ('CARD', 'DYNAMIC_CARD', 'TAP_TO_PAY') then 'CARD'
        when x.typ = 'wallet' then 'WALLET'
        else 'APM' end as kind,
      count(*)::int as n, sum(x.amount)::text as amount
    from (
      select o.currency, ${day('t.created_at')} as day, t.operative, t.status, case when t.status = 'SUCCESS' then '' else t.error end as error, t.amount,
        case when ${attempt} then upper(coalesce(js.object, 'OTHER')) end as obj, js.brand, js.type as typ
      from transactions t join orders o on o.id = t.order_id and o.merchant_id = ${b.merchantId} and o.created_at < ${stop}
        left join lateral jsonb_to_record(case when ${attempt} then t.source_json::jsonb end) as js(object text, brand text, type text) on true
      where t.merchant_id = ${b.merchantId} and o.env = ${b.env}
        and t.created_at >= ${start} and t.created_at < ${stop}
        and paygate_overview_counts(t.operative, t.status)
      union all
      -- money out to lost disputes (migrations/1131_order_disputes.sql), from the disputes themselves: each
      -- order here has one dispute, so each loss is the order's first, on the day it was lost
      select d.currency, ${day('d.resolved_at')}, 'DISPUTE_LOST', 'SUCCESS', '', d.amount, null, null, null
      from disputes d
      where d.merchant_id = ${b.merchantId} and d.env = ${b.env} and d.stage <> 'RETRIEVAL' and d.status in ('LOST', 'ACCEPTED', 'EXPIRED')
        and d.resolved_at >= ${start} and d.resolved_at < ${stop}
    ) x
    group by x.currency, x.day, x.operative, x.status, x.error, 6, 7`;
  return { orders, transactions };
}

/** Rows of either statement as sorted text lines, to compare the two ways. */
function lines(rows: Array<Record<string, unknown>>) {
  return rows.map((r) => JSON.stringify(Object.keys(r).sort().map((k) => [k, String(r[k])]))).sort();
}

/** The statement with its parameters written in (EXPLAIN of a parameterised statement). */
function inline(text: string, params: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, i) => {
    const v = params[Number(i) - 1];
    return typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`;
  });
}

await app.close();
await p.jobs.stop();
if (!process.env.BENCH_KEEP) await sql.raw(`drop schema ${schema} cascade`).execute(db);
await database.close();
