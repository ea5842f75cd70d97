/**
 * npm run bench:routing-decide: the time of one routing decision (`decide`, src/modules/routing/
 * routing.decide.ts: pure, on a compiled profile), p50 and p99 in microseconds, for a profile of 100 rules
 * whose matching rule is the last (the worst case: every rule before it is tried) and one of 20 rules
 * (the same shape). Each rule has three conditions (brand, amount, issuer country); the rules before the
 * last fail on the third, so each costs all three tests. The last rule is a weighted split of three
 * services with two fallbacks (the hash of the order's uuid, the dedup of the candidates).
 *
 * Facts are seeded (BENCH_SEED, printed): brand, amount, BIN, issuer country and order uuid vary per
 * call, from a pool made before the clock starts. Each call is timed alone (process.hrtime.bigint) after
 * a warm-up; the report gives the median of BENCH_RUNS runs of each percentile.
 *
 * Settings (environment): BENCH_ITERATIONS (200000 per run), BENCH_RUNS (5), BENCH_SEED (random).
 * Prints a Markdown table.
 */
import os from 'node:os';
import { compileProfile, type Facts, type Rule } from '../src/modules/routing/routing.domain.js';
import { decide } from '../src/modules/routing/routing.decide.js';
import { median, pct } from './kit.js';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SEED = Number(process.env.BENCH_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** mulberry32: a small seeded generator, the same sequence for the same seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const r = rng(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const hex = (n: number) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join('');
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;

const ENTRY = uuid();
const SERVICES = Array.from({ length: 5 }, uuid);
/** Issuer countries the rules before the last name: the payments' countries are never among them. */
const OTHER_COUNTRIES = ['US', 'GB', 'CA', 'MX', 'BR', 'AR', 'CL', 'JP', 'CN', 'IN', 'AU', 'NZ', 'ZA', 'NG', 'EG', 'TR', 'RU', 'UA', 'KR', 'SG'];
const PAYMENT_COUNTRIES = ['ES', 'PT', 'FR', 'DE', 'IT', 'NL', 'BE', 'AT', 'IE', 'PL'];

function profileOf(n: number) {
  const rules: Rule[] = [];
  for (let i = 0; i < n - 1; i++) {
    rules.push({
      name: `rule-${i}`,
      conditions: [
        { type: 'brand', values: ['VISA', 'MASTERCARD'] },
        { type: 'amount', min: 1, max: 10_000_000 },
        { type: 'issuer_country', values: [OTHER_COUNTRIES[i % OTHER_COUNTRIES.length], OTHER_COUNTRIES[(i + 7) % OTHER_COUNTRIES.length]] },
      ],
      action: { type: 'service', service_uuid: SERVICES[i % SERVICES.length], fallbacks: [SERVICES[(i + 1) % SERVICES.length]] },
    });
  }
  rules.push({
    name: 'last',
    conditions: [
      { type: 'brand', values: ['VISA', 'MASTERCARD'] },
      { type: 'amount', min: 1, max: 10_000_000 },
      { type: 'issuer_country', values: PAYMENT_COUNTRIES },
    ],
    action: { type: 'split', splits: [{ service_uuid: SERVICES[0], weight: 50 }, { service_uuid: SERVICES[1], weight: 30 }, { service_uuid: SERVICES[2], weight: 20 }], fallbacks: [SERVICES[3], SERVICES[0]] },
  });
  return compileProfile({ id: uuid(), service_uuid: ENTRY, name: `${n} rules`, status: 'ACTIVE', max_attempts: 3, version: 1, rules });
}

const POOL = 4096;
const facts: Facts[] = Array.from({ length: POOL }, () => ({
  entry_service_uuid: ENTRY,
  order_uuid: uuid(),
  amount: 100 + Math.floor(r() * 500_000),
  currency: 'EUR',
  brand: pick(['VISA', 'MASTERCARD']),
  bin: `4${String(Math.floor(r() * 1e7)).padStart(7, '0')}`,
  issuer_country: pick(PAYMENT_COUNTRIES),
  card_type: pick(['CREDIT', 'DEBIT', 'PREPAID']),
  customer_country: null,
  channel: 'ECOMMERCE',
  metadata: null,
}));

function measure(n: number): { p50: number; p99: number; rule: string | null } {
  const profile = profileOf(n);
  const noneOpen = new Set<string>();
  const rule = decide(profile, facts[0], { isOpen: noneOpen }).rule;
  for (let i = 0; i < 20_000; i++) decide(profile, facts[i % POOL], { isOpen: noneOpen });
  const p50s: number[] = [];
  const p99s: number[] = [];
  const times = new Float64Array(ITERATIONS);
  for (let run = 0; run < RUNS; run++) {
    for (let i = 0; i < ITERATIONS; i++) {
      const f = facts[i % POOL];
      const t0 = process.hrtime.bigint();
      decide(profile, f, { isOpen: noneOpen });
      times[i] = Number(process.hrtime.bigint() - t0) / 1000;
    }
    const xs = Array.from(times);
    p50s.push(pct(xs, 50));
    p99s.push(pct(xs, 99));
  }
  return { p50: median(p50s), p99: median(p99s), rule };
}

const out: string[] = [];
out.push(`Machine: ${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}, Node ${process.version}, load average ${os.loadavg()[0].toFixed(2)}; seed ${SEED} (BENCH_SEED=${SEED} to replay); ${ITERATIONS} calls × ${RUNS} runs, each call timed alone (median of the runs' percentiles)`);
out.push('');
out.push('| profile | matching rule | p50, µs | p99, µs |');
out.push('|---|---|---|---|');
for (const n of [100, 20]) {
  const m = measure(n);
  if (m.rule !== 'last') throw new Error(`the ${n}-rule profile matched ${m.rule}, not its last rule`);
  out.push(`| ${n} rules | the last (every rule tried) | ${m.p50.toFixed(2)} | ${m.p99.toFixed(2)} |`);
}
process.stdout.write(out.join('\n') + '\n');
