/**
 * A payments file (H1) processed with a kill -9 of the gateway (its API process and its workers) in the
 * middle, at the size: after a restart every row has exactly one order with exactly one payment
 * (a payment the crash cut short before the processor had it is an ERROR transaction, made again on the
 * same order), every outcome is listed, and the results CSV matches the database, counted there.
 *
 * BATCH_CRASH_ROWS sets the number of rows: 10,000 by default on PostgreSQL (under a minute on two
 * cores); 4,000 on the embedded database, whose one process and one connection work a file at about a
 * third of the speed (the full file takes about two minutes there: `BATCH_CRASH_ROWS=10000`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { client, gatewayHome, homeDatabase, startGateway, type Gateway, type GatewayHome } from '../helpers/server.js';
import { TEST_CARDS } from '../../src/processors/index.js';
import { testDbKind } from '../helpers/db.js';

let home: GatewayHome;
let gw: Gateway | null = null;

const postgres = testDbKind() === 'postgres';
const ROWS = Number(process.env.BATCH_CRASH_ROWS ?? (postgres ? 10_000 : 4_000));
const SETTINGS = {
  PAYGATE_SIMULATOR_LATENCY_MS: '0',
  PAYGATE_PROCESSOR_TIMEOUT_MS: '1000',
  PAYGATE_JOB_POLL_MS: '50',
  PAYGATE_JOB_LEASE_MS: '3000',
  PAYGATE_NOTIFICATION_TIMEOUT_MS: '1000',
  PAYGATE_RECONCILE_AFTER_MS: '1500',
  PAYGATE_SWEEP_EVERY_MS: '250',
  PAYGATE_RATE_LIMIT_SANDBOX: '100000',
};

beforeAll(async () => {
  home = await gatewayHome(SETTINGS);
});
afterAll(async () => {
  await gw?.kill('SIGKILL');
  await home?.cleanup();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('kill -9 in the middle of a payments file', () => {
  it(`${ROWS} rows: after a restart every row has exactly one order and one payment, and the results CSV matches the database`, async () => {
    const T = Date.now();
    const mark = (what: string) => process.env.E2E_TIMINGS && console.log(what, ((Date.now() - T) / 1000).toFixed(1));
    gw = await startGateway(home);
    const boot = JSON.parse(fs.readFileSync(path.join(home.dataDir, 'sandbox-credentials.json'), 'utf8'));
    const parent = client(gw.url, boot);
    const created = await parent.post('/client', { name: 'batch crash shop', email: 'b@example.com', timezone: 'Europe/Madrid', is_pci: true, autorecover_transactions: true });
    expect(created.status).toBe(200);
    const merchantId = created.body.client.uuid as string;
    const creds = { api_key: created.body.client.api_key, signature: created.body.client.signature };
    let api = client(gw.url, creds);
    const terminal = await api.post('/terminal', { currency_code: 'EUR', type: 'PAYGATE', description: 'batch terminal' });
    const service = await api.post('/service', { name: 'batch service', type: 'PAYGATE', terminal_uuid: terminal.body.terminal.uuid });
    expect(service.status, JSON.stringify(service.body)).toBe(200);
    const serviceUuid = service.body.service.uuid;
    const cards: string[] = [];
    for (let i = 0; i < 6; i++) {
      const pan = i === 5 ? TEST_CARDS.REFUSED : TEST_CARDS.APPROVED;
      const r = await api.post('/payment-method/card', { customer_ext_id: `c${i}`, card_holder: 'Batch Test', card_pan: pan, card_expiry_month: '12', card_expiry_year: '2030' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      cards.push(r.body.Source.uuid);
    }
    const lines = ['AMOUNT,CARD,CUSTOMER_EXTERNAL_ID,SERVICE,ADDITIONAL'];
    for (let i = 0; i < ROWS; i++) lines.push(`${100 + (i % 900)},${cards[i % 6]},c${i % 6},${serviceUuid},row ${i}`);
    const submitted = await api.post('/batch/authorizations', { data: Buffer.from(lines.join('\n')).toString('base64'), filename: 'big.csv' });
    expect(submitted.status, JSON.stringify(submitted.body).slice(0, 500)).toBe(200);
    const id = submitted.body.batch.uuid;
    mark('submitted');

    // kill -9 once a part of the file is done
    const t0 = Date.now();
    let doneBefore = 0;
    for (;;) {
      // the counts alone: a cheap read while the file is worked
      const s = await api.get(`/batch/${id}?limit=0`);
      doneBefore = s.body.batch.succeeded + s.body.batch.failed;
      if (doneBefore >= Math.min(1000, ROWS / 5)) break;
      if (Date.now() - t0 > 240_000) throw new Error('no progress');
      await sleep(100);
    }
    expect(doneBefore).toBeLessThan(ROWS);
    await gw.kill('SIGKILL');
    mark(`killed after ${doneBefore} lines`);

    gw = await startGateway(home);
    api = client(gw.url, creds);
    let batch: any;
    let all: any[] = [];
    const deadline = Date.now() + 600_000;
    for (;;) {
      batch = (await api.get(`/batch/${id}?limit=0`)).body.batch;
      if (batch.status === 'COMPLETED') break;
      if (Date.now() > deadline) throw new Error(`not completed: ${JSON.stringify(batch)}`);
      await sleep(250);
    }
    all = (await api.get(`/batch/${id}`)).body.lines;
    mark('completed');
    expect(batch).toMatchObject({ total: ROWS, pending: 0 });
    expect(batch.succeeded + batch.failed).toBe(ROWS);
    expect(all).toHaveLength(ROWS);
    // every 6th row pays with the refused card
    for (const l of all) {
      const i = l.line - 2;
      expect(l.status, `line ${l.line}`).toBe(i % 6 === 5 ? 'FAILED' : 'SUCCEEDED');
      expect(l.outcome, `line ${l.line}`).toBe(i % 6 === 5 ? 'REFUSED' : 'SUCCESS');
    }
    const csv = await fetch(`${gw.url}/v1/sandbox/batch/${id}/results.csv`, { headers: { authorization: `Bearer ${creds.api_key}` } });
    expect(csv.status).toBe(200);
    const records = parse(await csv.text(), { columns: true }) as Array<Record<string, string>>;

    if (!postgres) {
      await gw.kill('SIGTERM');
      gw = null;
    }
    // counted in the database: one order per line and one payment per order. A payment the crash cut
    // short before the processor had it is an ERROR transaction of the same order (the processor has no
    // record of it: the card was not charged), paid again; nothing else is.
    const db = await homeDatabase(home);
    try {
      const q = async <T,>(query: RawBuilder<T>) => (await query.execute(db.db)).rows;
      const [orders] = await q(sql<{ orders: number; payments: number; line_orders: number; other: number }>`
        select count(distinct o.id)::int as orders, count(t.id) filter (where t.status <> 'ERROR')::int as payments,
          count(distinct o.id) filter (where o.id in (select order_id from batch_lines where batch_id = ${id}))::int as line_orders,
          count(t.id) filter (where t.operative <> 'AUTHORIZATION')::int as other
        from orders o left join transactions t on t.order_id = o.id where o.merchant_id = ${merchantId}`);
      expect(orders).toEqual({ orders: ROWS, payments: ROWS, line_orders: ROWS, other: 0 });
      const rows = await q(sql<{ line: number; status: string; order_id: string; outcome: string | null; error: string | null; amount: number; order_status: string; tx_status: string; tx_amount: number; n: number; cut: number }>`
        select l.line, l.status, l.order_id, l.outcome, l.error, (l.data->>'amount')::int as amount, o.status as order_status,
          min(t.status) filter (where t.status <> 'ERROR') as tx_status, min(t.amount) filter (where t.status <> 'ERROR')::int as tx_amount,
          count(t.id) filter (where t.status <> 'ERROR')::int as n, count(t.id) filter (where t.status = 'ERROR')::int as cut
        from batch_lines l join orders o on o.id = l.order_id left join transactions t on t.order_id = o.id
        where l.batch_id = ${id} group by l.id, o.id order by l.line`);
      expect(rows).toHaveLength(ROWS);
      const byLine = new Map(rows.map((r) => [r.line, r]));
      for (const r of rows) {
        expect(r.n, `line ${r.line}`).toBe(1);
        expect(r.tx_amount, `line ${r.line}`).toBe(r.amount);
        expect(r.tx_status, `line ${r.line}`).toBe(r.status === 'SUCCEEDED' ? 'SUCCESS' : 'REFUSED');
        expect(r.outcome, `line ${r.line}`).toBe(r.order_status);
      }
      mark(`${rows.filter((r) => r.cut > 0).length} payments cut short by the crash and made again`);
      // the results CSV is the database's
      expect(records).toHaveLength(ROWS);
      for (const rec of records) {
        const r = byLine.get(Number(rec.LINE))!;
        expect(rec, `line ${rec.LINE}`).toEqual({ LINE: String(r.line), STATUS: r.status, ORDER_UUID: r.order_id, AMOUNT: String(r.amount), OUTCOME: r.outcome ?? '', ERROR: r.error ?? '' });
      }
      // and so is the API's listing
      for (const l of all) expect(byLine.get(l.line)!.order_id).toBe(l.order_uuid);
    } finally {
      await db.close();
    }
    await gw?.kill('SIGTERM');
    gw = null;
    mark('checked');
  }, 900_000);
});
