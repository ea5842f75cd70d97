/**
 * npm run bench:risk: the direct-payment flow (create order → direct payment) on PostgreSQL, for
 * merchants with no security list and antifraud off, next to merchants whose service is linked to 10
 * security lists of 100,000 items each (cards, BINs, e-mails, IP networks) with every default antifraud
 * rule on, in the same run. Phases alternate (plain, risk, plain, risk, ...) so both see the same
 * machine; the report gives each phase and the medians.
 *
 * Every payment uses a card and customer of its own pool (each card pays about once per phase), so the
 * velocity rules see ordinary traffic and every payment is accepted: what is measured is the cost of
 * evaluating, not of challenging.
 *
 * Settings (environment): BENCH_CONCURRENCY (16), BENCH_SECONDS (8, per phase), BENCH_ROUNDS (3), BENCH_CARDS_PER_CLIENT (80),
 * BENCH_LISTS (10), BENCH_LIST_ITEMS (100000), TEST_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test).
 * List items are written straight into the gateway's schema (loading a million items through L8 would
 * measure the loading, not the payments). Prints a Markdown report.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { median, pct } from './kit.js';

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LISTS = Number(process.env.BENCH_LISTS ?? 10);
const ITEMS = Number(process.env.BENCH_LIST_ITEMS ?? 100_000);
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const BASE = '/v1/sandbox';

const agent = new Agent({ connections: CONCURRENCY * 2, pipelining: 1, keepAliveTimeout: 30_000 });
type Creds = { api_key: string; signature: string };

async function call(url: string, method: 'GET' | 'POST' | 'PUT', p: string, creds: Creds, body?: Record<string, unknown>) {
  const res = await request(`${url}${p}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${creds.api_key}:`).toString('base64')}` },
    body: body ? JSON.stringify({ signature: creds.signature, ...body }) : undefined,
    dispatcher: agent,
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : null };
}

function luhn(prefix: string, n: number): string {
  let d = prefix + String(n).padStart(15 - prefix.length, '0');
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    let x = Number(d[14 - i]);
    if (i % 2 === 0) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
    sum += x;
  }
  return d + String((10 - (sum % 10)) % 10);
}

interface Shop {
  creds: Creds;
  service: string;
  /** per client: its cards (stored for customers of their own) */
  cards: Array<Array<{ uuid: string; customer: string }>>;
}

async function shop(url: string, boot: Creds, name: string, cardBase: number, cardsPerClient: number): Promise<Shop> {
  const c = await call(url, 'POST', `${BASE}/client`, boot, { name, email: `${name}@example.com`, timezone: 'Europe/Madrid', is_pci: true });
  const creds = { api_key: c.body.client.api_key, signature: c.body.client.signature };
  const term = await call(url, 'POST', `${BASE}/terminal`, creds, { currency_code: 'EUR', type: 'PAYGATE', description: 'bench' });
  const svc = await call(url, 'POST', `${BASE}/service`, creds, { name: 'bench', type: 'PAYGATE', terminal_uuid: term.body.terminal.uuid });
  const cards: Shop['cards'] = [];
  for (let client = 0; client < CONCURRENCY; client++) {
    const batch = Array.from({ length: cardsPerClient }, (_, k) => ({
      card_holder: 'Bench Customer', card_pan: luhn('4916', cardBase + client * cardsPerClient + k), card_expiry_month: '12', card_expiry_year: '2030',
      customer_ext_id: `${name}-c${client}-k${k}`,
    }));
    const r = await call(url, 'POST', `${BASE}/payment-method/cards`, creds, { cards: batch });
    if (r.status !== 200) throw new Error(`storing cards: ${JSON.stringify(r.body).slice(0, 300)}`);
    cards.push(r.body.cards.map((x: any) => ({ uuid: x.Source.uuid, customer: x.Customer.external_id })));
  }
  return { creds, service: svc.body.service.uuid, cards };
}

/** One phase: CONCURRENCY clients doing create order → direct payment for SECONDS. */
async function phase(url: string, s: Shop, cursor: number[]) {
  const lat: number[] = [];
  let flows = 0;
  let errors = 0;
  const end = Date.now() + SECONDS * 1000;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, c) => {
      while (Date.now() < end) {
        const card = s.cards[c][cursor[c]++ % s.cards[c].length];
        const o = await call(url, 'POST', `${BASE}/payment`, s.creds, { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'bench', service: s.service, customer_ext_id: card.customer });
        const p0 = performance.now();
        const paid = await call(url, 'POST', `${BASE}/payment/direct`, s.creds, { order_uuid: o.body.order.uuid, card_uuid: card.uuid });
        lat.push(performance.now() - p0);
        if (paid.status !== 200 || paid.body.order.status !== 'SUCCESS') {
          if (++errors === 1) process.stderr.write(`unexpected payment answer: ${paid.status} ${JSON.stringify(paid.body).slice(0, 300)}\n`);
        }
        flows++;
      }
    }),
  );
  lat.sort((a, b) => a - b);
  return { flowsPerSecond: flows / ((Date.now() - t0) / 1000), p50: pct(lat, 50), p99: pct(lat, 99), errors };
}

async function main() {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-bench-risk-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const env = { ...process.env, PAYGATE_DATA_DIR: dataDir, PAYGATE_LOG_LEVEL: 'warn', PAYGATE_RATE_LIMIT_SANDBOX: '1000000', PORT: String(port), DATABASE_URL: PG_URL, PGOPTIONS: `-c search_path=${schema}` };
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      out += d.toString();
      if (/PAYGATE_SERVICE=/.test(out)) resolve();
    });
    proc.stderr!.on('data', (d) => (out += d.toString()));
    proc.once('exit', (code) => reject(new Error(`gateway exited ${code}:\n${out}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    const boot = JSON.parse(fs.readFileSync(path.join(dataDir, 'sandbox-credentials.json'), 'utf8'));
    const cardsPerClient = Number(process.env.BENCH_CARDS_PER_CLIENT ?? 80);
    const plain = await shop(url, boot, 'plain', 1_000_000, cardsPerClient);
    const risky = await shop(url, boot, 'risky', 5_000_000, cardsPerClient);
    // plain: no lists, antifraud off; risky: the defaults, and 10 lists of 100,000 items on its service
    await call(url, 'PUT', `${BASE}/antifraud/rules`, plain.creds, { enabled: false });
    const types = ['BLACKLIST', 'GREYLIST', 'WHITELIST'];
    const t0 = Date.now();
    for (let l = 0; l < LISTS; l++) {
      const list = await call(url, 'POST', `${BASE}/security-list`, risky.creds, { type: types[l % 3], enabled: true, description: `bench list ${l}` });
      const id = list.body.colorlists.uuid;
      await call(url, 'POST', `${BASE}/security-list/${id}/service`, risky.creds, { service_uuid: risky.service });
      await admin.query(
        `insert into ${schema}.risk_list_items (id, list_id, type, match_key, shown, bin, last4, description, created_at)
         select gen_random_uuid(), $1, t.type, t.type || ':' || t.v, t.v, null, null, null, now()
         from generate_series(1, $2::int) g,
         lateral (select case g % 4 when 0 then 'CARD' when 1 then 'EMAIL' when 2 then 'IP' else 'BIN' end as type) ty,
         lateral (select ty.type, case ty.type
           when 'CARD' then md5('card' || $3::int || g) || md5('x' || g)
           when 'EMAIL' then 'user' || g || '.' || $3::int || '@example.net'
           when 'IP' then ((g >> 16) % 224 + 1) || '.' || ((g >> 8) % 256) || '.' || (g % 256) || '.' || ($3::int % 256) || '/32'
           else (10000000 + g * 7 + $3::int)::text end as v) t`,
        [id, ITEMS, l],
      );
      await admin.query(`update ${schema}.risk_lists set item_count = $2 where id = $1`, [id, ITEMS]);
    }
    await admin.query(`analyze ${schema}.risk_list_items`);
    const loadS = (Date.now() - t0) / 1000;
    const cursors = { plain: Array(CONCURRENCY).fill(0), risky: Array(CONCURRENCY).fill(0) };
    // warm-up of both
    await phase(url, plain, cursors.plain);
    await phase(url, risky, cursors.risky);
    const rows: Array<{ round: number; kind: string; r: Awaited<ReturnType<typeof phase>> }> = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [kind, s] of [['plain', plain], ['risk', risky]] as const) rows.push({ round, kind, r: await phase(url, s, cursors[kind === 'plain' ? 'plain' : 'risky']) });
    }
    const f = (n: number) => n.toFixed(1);
    const lines: string[] = [];
    const cpus = os.cpus();
    lines.push(`Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, Node ${process.version}, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    lines.push(`PostgreSQL; ${CONCURRENCY} clients, ${SECONDS} s per phase, ${ROUNDS} rounds; ${LISTS} lists × ${ITEMS} items linked to the risk merchant's service (loaded in ${f(loadS)} s).`);
    lines.push('');
    lines.push('| round | merchant | flows/s | payment p50 ms | payment p99 ms | errors |');
    lines.push('|---|---|---|---|---|---|');
    for (const { round, kind, r } of rows) lines.push(`| ${round} | ${kind} | ${f(r.flowsPerSecond)} | ${f(r.p50)} | ${f(r.p99)} | ${r.errors} |`);
    const of = (k: string) => rows.filter((x) => x.kind === k).map((x) => x.r);
    const pf = median(of('plain').map((r) => r.flowsPerSecond));
    const rf = median(of('risk').map((r) => r.flowsPerSecond));
    const pp = median(of('plain').map((r) => r.p50));
    const rp = median(of('risk').map((r) => r.p50));
    lines.push('');
    lines.push(`Medians: plain ${f(pf)} flows/s (payment p50 ${f(pp)} ms), with lists and rules ${f(rf)} flows/s (payment p50 ${f(rp)} ms): ${f((100 * (pf - rf)) / pf)}% fewer flows/s, payment p50 ${f((100 * (rp - pp)) / pp)}% slower.`);
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
    await agent.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
