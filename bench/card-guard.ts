/**
 * npm run bench:card-guard: the cost of the card-number guard (src/platform/http/pan-guard.ts) per
 * request, measured on the guard function itself (no HTTP, no database) for request shapes the gateway
 * sees: a typical order creation, a card payment (the card field is skipped), a list query, a body with
 * 50 metadata entries full of digits, the largest free-text body (64 KiB of text with digit groups), and
 * the CSV reader's check of a 10,000-row batch file. Each case runs BENCH_ITERATIONS times (the 64 KiB
 * body 50 times) after a warm-up; the report gives microseconds per call (median of BENCH_RUNS runs). Prints a Markdown table.
 */
import os from 'node:os';
import type { FastifyRequest } from 'fastify';
import { refuseCardNumbers } from '../src/platform/http/pan-guard.js';
import { readCsv } from '../src/platform/csv/csv.js';
import { AUTH_OPTIONAL, AUTH_REQUIRED } from '../src/modules/batch/batch.domain.js';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

const req = (method: string, url: string, body: unknown, query: Record<string, string> = {}, params: Record<string, string> = {}) =>
  ({ method, body, query, params, headers: { 'idempotency-key': 'order-42-attempt-1' }, routeOptions: { url: `/v1/sandbox${url}` } }) as unknown as FastifyRequest;

const order = {
  signature: '9f86d081884c7d659a2feaa0c55ad015', amount: 1050, operative: 'AUTHORIZATION', secure: false, service: '7d2b4f0a-6c1e-4b8d-9e3f-1a5c7b9d2e40',
  description: 'Order 42, pack EAN 8412345678907', customer_ext_id: 'customer-1', additional: 'cart 8812', reference: 'order-42',
  url_post: 'https://shop.example/paygate/notify', url_ok: 'https://shop.example/checkout/ok', url_ko: 'https://shop.example/checkout/ko', expires_in: 3600,
};
const card = { ...order, card_holder: 'Ana Pérez', card_pan: '4548812049400004', card_expiry_month: '12', card_expiry_year: '30', card_cvv: '123' };
const metadata = { metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`line_${i}`, `sku ${1000000 + i} qty ${i} ts ${1763769600000 + i}`])) };
const bigText = { description: Array.from({ length: 3000 }, (_, i) => `item ${i} 2026-11-${String(i % 28 + 1).padStart(2, '0')} ${8412345678900 + i}`).join('; ').slice(0, 64 * 1024) };

const cases: Array<[string, () => void, number?]> = [
  ['create order (`POST /payment`, 13 fields)', () => refuseCardNumbers(req('POST', '/payment', order))],
  ['card payment (`POST /payment/single-step`, the card field skipped)', () => refuseCardNumbers(req('POST', '/payment/single-step', card))],
  ['list query (`GET /orders?…`, 5 parameters)', () => refuseCardNumbers(req('GET', '/orders', undefined, { reference: 'order-42', status: 'SUCCESS', from: '202611010000', to: '202611300000', limit: '100' }))],
  ['50 metadata entries with numbers and timestamps', () => refuseCardNumbers(req('POST', '/transaction/:transaction_uuid/metadata', metadata, {}, { transaction_uuid: '7d2b4f0a-6c1e-4b8d-9e3f-1a5c7b9d2e40' }))],
  ['64 KiB of free text, a 13-digit number and a date in every item', () => refuseCardNumbers(req('POST', '/payment', bigText)), 50],
];

function timeCase(fn: () => void, iterations = ITERATIONS): number {
  for (let i = 0; i < Math.min(2000, iterations); i++) fn();
  const runs: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) fn();
    runs.push(Number(process.hrtime.bigint() - t0) / 1000 / iterations);
  }
  return runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)];
}

async function csvCost(): Promise<{ withCheck: number; rows: number }> {
  const columns = [...AUTH_REQUIRED, ...AUTH_OPTIONAL];
  const rows = 10_000;
  const lines = [columns.join(',')];
  for (let i = 0; i < rows; i++) lines.push(['1000', '7d2b4f0a-6c1e-4b8d-9e3f-1a5c7b9d2e40', '7d2b4f0a-6c1e-4b8d-9e3f-1a5c7b9d2e41', `cust-${i}`, `invoice ${100000 + i}`, '', 'AUTHORIZATION', `Monthly fee ${i}, EAN 8412345678907`].join(','));
  const bytes = Buffer.from(lines.join('\n'));
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = process.hrtime.bigint();
    await readCsv('data', bytes, { required: AUTH_REQUIRED, optional: AUTH_OPTIONAL });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { withCheck: times.sort((a, b) => a - b)[Math.floor(times.length / 2)], rows };
}

const out: string[] = [];
out.push(`Machine: ${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}, Node ${process.version}, load average ${os.loadavg()[0].toFixed(2)}; ${ITERATIONS} calls × ${RUNS} runs (median)`);
out.push('');
out.push('| request | guard, µs per request |');
out.push('|---|---|');
for (const [name, fn, iterations] of cases) out.push(`| ${name} | ${timeCase(fn, iterations).toFixed(2)} |`);
const csv = await csvCost();
out.push('');
out.push(`Reading a ${csv.rows.toLocaleString('en')}-row batch file (8 columns), every cell checked: ${csv.withCheck.toFixed(0)} ms in all (median of ${RUNS}).`);
process.stdout.write(out.join('\n') + '\n');
