/**
 * npm run bench:routing-uplift: what routing and cascading do to the approval rate, on the sandbox. Two
 * sandbox services of one merchant approve differently by BIN range, through the sandbox simulator's
 * per-service behaviour (`PUT /service/{uuid}/sandbox-behaviour`, docs/payments.md):
 *
 *   | range               | service A approves | service B approves |
 *   | 455555 (VISA)       | 70 %               | 92 %               |
 *   | 530000 (MASTERCARD) | 95 %               | 80 %               |
 *
 * A refused draw is a soft decline (DENIED), which the retry table cascades. The simulator's draw is a
 * hash of the transaction and the service: each attempt is drawn afresh, so over many payments the shares
 * approach the rates. BENCH_PAYMENTS payments, half of each range, are made through the API (create the
 * order, pay it with a stored card; antifraud off) in four scenarios:
 *
 *   1-2. every payment on service A alone, then on B alone (no routing profile): the best is the best
 *        single service;
 *   3.   routing: A's ACTIVE profile sends 455555 to B and the rest to A, one attempt (max_attempts 1);
 *   4.   routing and cascading: the same, each rule with the other service as its fallback (max_attempts 2).
 *
 * The report gives, per scenario, the approvals, the approval rate, the rate the behaviours predict and
 * the payment calls the simulator answered. The gateway runs in this process (the test app), on the
 * embedded database (BENCH_DB=postgres: PostgreSQL at TEST_DATABASE_URL), BENCH_CONCURRENCY payments at a
 * time.
 *
 * Settings (environment): BENCH_PAYMENTS (10000), BENCH_CONCURRENCY (8), BENCH_DB (pglite). Prints Markdown.
 */
import os from 'node:os';
import { Secret } from '../src/platform/security/secret.js';
import { createTestApp, type TestMerchant } from '../test/helpers/app.js';

const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
process.env.PAYGATE_TEST_DB = process.env.BENCH_DB ?? 'pglite';

const RANGES = ['455555', '530000'] as const;
/** The share each service approves, per range (RANGES' order). */
const APPROVES: Record<'A' | 'B', [number, number]> = { A: [0.7, 0.95], B: [0.92, 0.8] };
const CARDS_PER_RANGE = 20;
const BASE_AMOUNT = 1000;

function luhn(prefix: string, n: number): string {
  const d = prefix + String(n).padStart(15 - prefix.length, '0');
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    let x = Number(d[14 - i]);
    if (i % 2 === 0) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
    sum += x;
  }
  return d + String((10 - (sum % 10)) % 10);
}

const t = await createTestApp();
const m: TestMerchant = await t.merchant({ name: 'Uplift Shop', isPci: true });
const A = m.service_uuid!;
// antifraud off: its velocity rules would challenge a bench's traffic, and what is measured is the acquirers' answers
const off = await m.api.put('/antifraud/rules', { enabled: false });
if (off.status !== 200) throw new Error(`antifraud: ${off.raw}`);
const terminal = await m.api.post('/terminal', { currency_code: 'EUR', type: 'REDSYSPSD2', description: 'B', code: '1', credentials: { key_secure: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7', key_not_secure: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7', terminal_secure: '1', terminal_not_secure: '2' } });
const created = await m.api.post('/service', { name: 'B', type: 'REDSYSPSD2', terminal_uuid: terminal.body.terminal.uuid });
if (created.status !== 200) throw new Error(`service B: ${created.raw}`);
const B: string = created.body.service.uuid;
for (const [name, uuid] of [['A', A], ['B', B]] as const) {
  const approval = RANGES.map((bin, r) => ({ bin_from: bin, bin_to: bin, approve_rate: APPROVES[name][r] }));
  const set = await m.api.put(`/service/${uuid}/sandbox-behaviour`, { approval, soft_decline: 'DENIED' });
  if (set.status !== 200) throw new Error(`behaviour of ${name}: ${set.raw}`);
}

const cards: string[][] = [];
for (const prefix of RANGES) {
  const pool: string[] = [];
  for (let n = 0; n < CARDS_PER_RANGE; n++) {
    const row = await t.p.database.transaction((trx) =>
      t.m.sources.storeCard(trx, { merchantId: m.client_uuid, env: m.env }, { customerExtId: 'bench', holder: 'Ana Pérez', pan: new Secret(luhn(prefix, n + 1)), expMonth: 12, expYear: 2030 }),
    );
    pool.push(row.id);
  }
  cards.push(pool);
}

// the payment calls the simulator answers (authorizations)
const sim = t.m.processors.simulator;
const calls = () => sim.calls.get('authorize') ?? 0;

async function pay(i: number, service: string): Promise<boolean> {
  const range = i % 2;
  const order = await m.api.post('/payment', { amount: BASE_AMOUNT + i, operative: 'AUTHORIZATION', secure: false, description: `uplift ${i}`, service, customer_ext_id: 'bench' });
  if (order.status !== 200) throw new Error(`order ${i}: ${order.raw}`);
  const paid = await m.api.post('/payment/direct', { order_uuid: order.body.order.uuid, card_uuid: cards[range][Math.floor(i / 2) % CARDS_PER_RANGE] });
  if (paid.status !== 200) throw new Error(`payment ${i}: ${paid.raw}`);
  return paid.body.order.paid === true;
}

async function scenario(service: string): Promise<{ approved: number; calls: number; seconds: number }> {
  const before = calls();
  const t0 = Date.now();
  let next = 0;
  let approved = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let i = next++; i < PAYMENTS; i = next++) if (await pay(i, service)) approved++;
  }));
  return { approved, calls: calls() - before, seconds: (Date.now() - t0) / 1000 };
}

/** The approval rate the behaviours predict (half the payments in each range; every decline soft). */
function predicted(kind: 'A' | 'B' | 'routing' | 'cascading'): number {
  const ok = (s: 'A' | 'B', r: 0 | 1) => APPROVES[s][r];
  const per = (r: 0 | 1): number => {
    if (kind === 'A' || kind === 'B') return ok(kind, r);
    const [first, second] = r === 0 ? (['B', 'A'] as const) : (['A', 'B'] as const);
    return kind === 'routing' ? ok(first, r) : ok(first, r) + (1 - ok(first, r)) * ok(second, r);
  };
  return (per(0) + per(1)) / 2;
}

const rows: Array<[string, Awaited<ReturnType<typeof scenario>>, number]> = [];
rows.push(['service A alone', await scenario(A), predicted('A')]);
rows.push(['service B alone', await scenario(B), predicted('B')]);
const rules = (fallbacks: boolean) => [
  { name: 'visa-455555-to-b', conditions: [{ type: 'bin', ranges: [{ from: RANGES[0], to: RANGES[0] }] }], action: { type: 'service', service_uuid: B, fallbacks: fallbacks ? [A] : [] } },
  { name: 'rest-to-a', conditions: [], action: { type: 'service', service_uuid: A, fallbacks: fallbacks ? [B] : [] } },
];
const profile = await m.api.post('/routing-profiles', { service_uuid: A, name: 'by range', status: 'ACTIVE', max_attempts: 1, rules: rules(false) });
if (profile.status !== 200) throw new Error(`profile: ${profile.raw}`);
rows.push(['routing (455555 to B, the rest to A)', await scenario(A), predicted('routing')]);
const cascading = await m.api.put(`/routing-profiles/${profile.body.routing_profile.uuid}`, { service_uuid: A, name: 'by range, cascading', status: 'ACTIVE', max_attempts: 2, rules: rules(true) });
if (cascading.status !== 200) throw new Error(`profile: ${cascading.raw}`);
rows.push(['routing and cascading (the other service as fallback)', await scenario(A), predicted('cascading')]);
await t.close();

const best = rows[0][1].approved >= rows[1][1].approved ? 0 : 1;
const out: string[] = [];
out.push(`Machine: ${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}, Node ${process.version}, load average ${os.loadavg()[0].toFixed(2)}; ${process.env.PAYGATE_TEST_DB}; ${PAYMENTS} payments per scenario, ${CONCURRENCY} at a time`);
out.push('');
out.push('| scenario | approved | approval rate | predicted by the behaviours | simulator calls | seconds |');
out.push('|---|---|---|---|---|---|');
rows.forEach(([name, r, p], i) => {
  out.push(`| ${name}${i === best ? ' (the best single service)' : ''} | ${r.approved} | ${(r.approved / PAYMENTS * 100).toFixed(2)} % | ${(p * 100).toFixed(2)} % | ${r.calls} | ${r.seconds.toFixed(1)} |`);
});
const single = rows[best][1].approved;
out.push('');
out.push(`Uplift over the best single service: routing ${((rows[2][1].approved - single) / PAYMENTS * 100).toFixed(2)} points, routing and cascading ${((rows[3][1].approved - single) / PAYMENTS * 100).toFixed(2)} points.`);
process.stdout.write(out.join('\n') + '\n');
process.exit(0);
