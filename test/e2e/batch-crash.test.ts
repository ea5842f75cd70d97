/**
 * A payments file (H1) processed with a kill -9 of the gateway in the middle: after a restart every row
 * has exactly one order with one payment, every outcome is listed, and the results CSV matches what the
 * gateway holds. BATCH_CRASH_ROWS sets the number of rows: 2,000 by default so the suite stays quick;
 * `BATCH_CRASH_ROWS=10000` runs the full-size file (about eight minutes on two busy cores).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { client, gatewayHome, startGateway, type Gateway, type GatewayHome } from '../helpers/server.js';
import { TEST_CARDS } from '../../src/processors/index.js';

let home: GatewayHome;
let gw: Gateway | null = null;

const ROWS = Number(process.env.BATCH_CRASH_ROWS ?? 2_000);
const SETTINGS = {
  PAYGATE_SIMULATOR_LATENCY_MS: '0',
  PAYGATE_PROCESSOR_TIMEOUT_MS: '1000',
  PAYGATE_JOB_POLL_MS: '50',
  PAYGATE_JOB_BATCH: '40',
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
  it(`${ROWS} rows: after a restart every row has exactly one order and one payment, and the results CSV matches`, async () => {
    gw = await startGateway(home);
    const boot = JSON.parse(fs.readFileSync(path.join(home.dataDir, 'sandbox-credentials.json'), 'utf8'));
    const parent = client(gw.url, boot);
    const created = await parent.post('/client', { name: 'batch crash shop', email: 'b@example.com', timezone: 'Europe/Madrid', is_pci: true, autorecover_transactions: true });
    expect(created.status).toBe(200);
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

    // kill -9 once a part of the file is done
    const t0 = Date.now();
    for (;;) {
      const s = await api.get(`/batch/${id}`);
      if (s.body.batch.succeeded + s.body.batch.failed >= Math.min(1000, ROWS / 5)) break;
      if (Date.now() - t0 > 240_000) throw new Error('no progress');
      await sleep(200);
    }
    await gw.kill('SIGKILL');

    gw = await startGateway(home);
    api = client(gw.url, creds);
    let batch: any;
    let all: any[] = [];
    const deadline = Date.now() + 600_000;
    for (;;) {
      const s = await api.get(`/batch/${id}`);
      batch = s.body.batch;
      all = s.body.lines;
      if (batch.status === 'COMPLETED') break;
      if (Date.now() > deadline) throw new Error(`not completed: ${JSON.stringify(batch)}`);
      await sleep(500);
    }
    await sleep(2000); // nothing more happens after completion
    expect(batch).toMatchObject({ total: ROWS, pending: 0 });
    expect(batch.succeeded + batch.failed).toBe(ROWS);
    expect(all).toHaveLength(ROWS);
    // every 6th row pays with the refused card
    for (const l of all) {
      const i = l.line - 2;
      expect(l.status, `line ${l.line}`).toBe(i % 6 === 5 ? 'FAILED' : 'SUCCEEDED');
      expect(l.outcome, `line ${l.line}`).toBe(i % 6 === 5 ? 'REFUSED' : 'SUCCESS');
    }

    // exactly one order per line and one payment per order: the merchant's transactions are the lines'
    const tx = await api.get('/orders?limit=10000');
    expect(tx.status).toBe(200);
    expect(tx.body.count).toBe(ROWS);
    const byOrder = new Map<string, any[]>();
    let offset = 0;
    for (;;) {
      const page = offset === 0 ? tx : await api.get(`/orders?limit=10000&offset=${offset}`);
      for (const t of page.body.transactions) byOrder.set(t.order_uuid, [...(byOrder.get(t.order_uuid) ?? []), t]);
      if (page.body.next_offset === null || page.body.next_offset === undefined) break;
      offset = page.body.next_offset;
    }
    expect(byOrder.size).toBe(ROWS);
    for (const l of all) {
      const txs = byOrder.get(l.order_uuid);
      expect(txs, `line ${l.line}`).toHaveLength(1);
      expect(txs![0].amount).toBe(l.amount);
      expect(txs![0].status).toBe(l.status === 'SUCCEEDED' ? 'SUCCESS' : 'REFUSED');
    }

    // the results CSV is the same
    const csv = await fetch(`${gw.url}/v1/sandbox/batch/${id}/results.csv`, { headers: { authorization: `Bearer ${creds.api_key}` } });
    expect(csv.status).toBe(200);
    const records = parse(await csv.text(), { columns: true }) as Array<Record<string, string>>;
    expect(records).toHaveLength(ROWS);
    const byLine = new Map(all.map((l: any) => [l.line, l]));
    for (const r of records) {
      const l = byLine.get(Number(r.LINE));
      expect(r, `line ${r.LINE}`).toEqual({ LINE: String(l.line), STATUS: l.status, ORDER_UUID: l.order_uuid, AMOUNT: String(l.amount), OUTCOME: l.outcome, ERROR: l.error ?? '' });
    }
    await gw.kill('SIGTERM');
    gw = null;
  }, 900_000);
});
