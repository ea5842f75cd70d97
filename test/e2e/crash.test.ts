/**
 * Crash safety: kill -9 the gateway during a stream of payments and start it again. Every order
 * acknowledged with 200 is there, no transaction stays PENDING once the reconciler has run, and every
 * final order's notification is delivered. The overview's figures count exactly what the orders and
 * transactions hold, before and after they are folded into day rows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { client, gatewayHome, homeDatabase, startGateway, type Gateway, type GatewayHome } from '../helpers/server.js';
import { foldOverview } from '../../src/modules/payments/operations/overview.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { TEST_CARDS } from '../../src/processors/index.js';

let home: GatewayHome;
let rx: Receiver;
let gw: Gateway | null = null;

const SETTINGS = {
  PAYGATE_SIMULATOR_LATENCY_MS: '30',
  PAYGATE_PROCESSOR_TIMEOUT_MS: '1000',
  PAYGATE_RECONCILE_AFTER_MS: '1500',
  PAYGATE_SWEEP_EVERY_MS: '250',
  PAYGATE_JOB_POLL_MS: '50',
  PAYGATE_JOB_LEASE_MS: '3000',
  PAYGATE_NOTIFICATION_TIMEOUT_MS: '2000',
  PAYGATE_RATE_LIMIT_SANDBOX: '100000',
};

beforeAll(async () => {
  home = await gatewayHome(SETTINGS);
  rx = await startReceiver();
});
afterAll(async () => {
  await gw?.kill('SIGKILL');
  await rx?.close();
  await home?.cleanup();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('kill -9 during a stream of payments', () => {
  it('loses no acknowledged order, leaves nothing PENDING, delivers every notification', async () => {
    const T = Date.now();
    const mark = (what: string) => process.env.E2E_TIMINGS && console.log(what, Date.now() - T);
    gw = await startGateway(home);
    mark('started');
    const boot = JSON.parse(fs.readFileSync(path.join(home.dataDir, 'sandbox-credentials.json'), 'utf8'));
    const parent = client(gw.url, boot);
    // a PCI merchant that recovers transactions and resends notifications, with its own service
    const created = await parent.post('/client', { name: 'crash shop', email: 'c@example.com', timezone: 'Europe/Madrid', is_pci: true, autorecover_transactions: true, resend_failed_notifications: true });
    expect(created.status).toBe(200);
    const creds = { api_key: created.body.client.api_key, signature: created.body.client.signature };
    let api = client(gw.url, creds);
    const terminal = await api.post('/terminal', { currency_code: 'EUR', type: 'PAYGATE', description: 'crash terminal' });
    const service = await api.post('/service', { name: 'crash service', type: 'PAYGATE', terminal_uuid: terminal.body.terminal.uuid });
    expect(service.status).toBe(200);
    const serviceUuid = service.body.service.uuid;

    // the stream: 8 clients paying single-step, some cards refused
    const acked = new Map<string, string>();
    let stop = false;
    let n = 0;
    const worker = async (w: number) => {
      while (!stop) {
        const i = n++;
        try {
          const r = await api.post('/payment/single-step', {
            amount: 1000 + i, operative: i % 5 === 0 ? 'DEFERRED' : 'AUTHORIZATION', secure: false, description: `crash ${i}`,
            customer_ext_id: `w${w}`, service: serviceUuid, reference: `crash-${i}`, url_post: `${rx.url}/n`,
            card_holder: 'Crash Test', card_pan: i % 7 === 0 ? TEST_CARDS.REFUSED : TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
          });
          if (r.status === 200) acked.set(r.body.order.uuid, r.body.order.status);
        } catch {
          // the gateway died under this request: not acknowledged
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    const t0 = Date.now();
    while (acked.size < 40 && Date.now() - t0 < 20_000) await sleep(20);
    await gw.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);
    expect(acked.size).toBeGreaterThanOrEqual(40);
    mark('killed');

    gw = await startGateway(home);
    api = client(gw.url, creds);
    mark('restarted');

    // every acknowledged order is there, as it was acknowledged
    for (const [uuid, status] of acked) {
      const r = await api.get(`/order/${uuid}`);
      expect(r.status, uuid).toBe(200);
      expect(r.body.order.status).toBe(status);
    }

    // the reconciler settles whatever the crash left PENDING
    let pending = -1;
    const deadline = Date.now() + 30_000;
    let all: any[] = [];
    while (Date.now() < deadline) {
      all = (await api.get('/orders')).body.transactions;
      pending = all.filter((x: any) => x.status === 'PENDING').length;
      if (pending === 0) break;
      await sleep(250);
    }
    expect(pending).toBe(0);
    mark('reconciled');
    const orderIds = [...new Set(all.map((x: any) => x.order_uuid as string))];
    for (const id of orderIds) {
      const o = (await api.get(`/order/${id}`)).body.order;
      expect(o.status, id).not.toBe('PENDING_PROCESSOR_RESPONSE');
    }

    // every final order's notification is delivered (the gateway delivers what the first one left)
    const finals = new Set(['SUCCESS', 'REFUSED', 'ERROR', 'PENDING_CONFIRMATION']);
    let undelivered: string[] = [];
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      undelivered = [];
      for (const id of orderIds) {
        const o = (await api.get(`/order/${id}`)).body.order;
        if (!finals.has(o.status)) continue;
        const got = rx.received.some((r) => {
          const b = JSON.parse(r.body);
          return b.order.uuid === id && b.order.status === o.status;
        });
        if (!got) undelivered.push(`${id} ${o.status}`);
      }
      if (undelivered.length === 0) break;
      await sleep(300);
    }
    expect(undelivered).toEqual([]);
    mark('delivered');
    await gw.kill('SIGTERM');
    gw = null;

    // the overview's figures (day rows and changes, written by triggers in the payments' own database
    // transactions) count exactly what the orders and transactions hold: nothing the crash cut short,
    // nothing twice; the same once every change is folded
    const db = await homeDatabase(home);
    try {
      const merchantId = created.body.client.uuid as string;
      const counted = async () => (await sql<Record<string, string>>`
        select 'orders' as what, coalesce(sum(orders), 0)::text as n, coalesce(sum(paid), 0)::text as amount from (
          select orders, paid from overview_order_days where merchant_id = ${merchantId}
          union all select orders, paid from overview_order_changes where merchant_id = ${merchantId}) x
        union all
        select operative || ' ' || status, sum(n)::text, sum(amount)::text from (
          select operative, status, n, amount from overview_tx_days where merchant_id = ${merchantId}
          union all select operative, status, n, amount from overview_tx_changes where merchant_id = ${merchantId}) y
        group by operative, status having sum(n) <> 0
        order by 1`.execute(db.db)).rows;
      const actual = (await sql<Record<string, string>>`
        select 'orders' as what, count(*)::text as n, (count(*) filter (where paid))::text as amount from orders
          where merchant_id = ${merchantId} and operative in ('AUTHORIZATION', 'PARTIAL_AUTHORIZATION', 'DEFERRED')
        union all
        select t.operative || ' ' || t.status, count(*)::text, sum(t.amount)::text from transactions t join orders o on o.id = t.order_id
          where o.merchant_id = ${merchantId} and ((t.status = 'SUCCESS' and t.operative in ('AUTHORIZATION', 'DEFERRED', 'CONFIRMATION', 'REFUND'))
            or (t.status in ('REFUSED', 'ERROR') and t.operative in ('AUTHORIZATION', 'DEFERRED')))
          group by t.operative, t.status
        order by 1`.execute(db.db)).rows;
      expect(actual.find((r) => r.what === 'AUTHORIZATION SUCCESS')).toBeTruthy();
      expect(await counted()).toEqual(actual);
      while ((await foldOverview(db.db, 1_000)) > 0);
      expect(await counted()).toEqual(actual);
    } finally {
      await db.close();
    }
  }, 180_000);
});
