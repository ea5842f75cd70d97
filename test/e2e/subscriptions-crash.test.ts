/**
 * Recurring billing under a crash, at the size: 1,000 subscriptions fall due at once (the sandbox
 * clock moves past their first charge) and the gateway is killed with SIGKILL (its API process and its
 * workers) while it charges them, then started again. On PostgreSQL two gateway processes share the due
 * charges before and after the crash. In the end every subscription is charged exactly once, counted in
 * the database: one PAID payment, one order, one successful transaction each, and no declined one.
 *
 * SUBS_CRASH_COUNT sets the number: 1,000 by default, on both databases (on the embedded one a single
 * process charges them, and is the one killed).
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, gatewayHome, homeDatabase, startGateway, type Gateway, type GatewayHome } from '../helpers/server.js';
import { testDbKind } from '../helpers/db.js';
import { TEST_CARDS } from '../../src/processors/index.js';
import { CHARGE_QUEUE } from '../../src/modules/subscriptions/index.js';

const postgres = testDbKind() === 'postgres';
const N = Number(process.env.SUBS_CRASH_COUNT ?? 1_000);
let home: GatewayHome;
const gateways: Gateway[] = [];

const SETTINGS = {
  PAYGATE_SIMULATOR_LATENCY_MS: '20',
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
});
afterAll(async () => {
  for (const g of gateways) await g.kill('SIGKILL');
  await home?.cleanup();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** One gateway on the embedded database (one process owns it); two sharing PostgreSQL. */
const PROCESSES = postgres ? 2 : 1;

describe(`kill -9 while ${N} subscriptions fall due`, () => {
  it(`${PROCESSES === 2 ? 'two processes share the charges; ' : ''}after the restart every subscription is charged exactly once`, async () => {
    const T = Date.now();
    const mark = (what: string) => process.env.E2E_TIMINGS && console.log(what, ((Date.now() - T) / 1000).toFixed(1));
    for (let i = 0; i < PROCESSES; i++) gateways.push(await startGateway(home));
    const gw = gateways[0];
    const boot = JSON.parse(fs.readFileSync(path.join(home.dataDir, 'sandbox-credentials.json'), 'utf8'));
    const parent = client(gw.url, boot);
    const created = await parent.post('/client', { name: 'gym', email: 'g@example.com', timezone: 'Europe/Madrid', autorecover_transactions: true });
    expect(created.status).toBe(200);
    const merchantId = created.body.client.uuid as string;
    const creds = { api_key: created.body.client.api_key, signature: created.body.client.signature };
    let api = client(gw.url, creds);
    const terminal = await api.post('/terminal', { currency_code: 'EUR', type: 'PAYGATE', description: 'gym terminal' });
    const service = await api.post('/service', { name: 'gym service', type: 'PAYGATE', terminal_uuid: terminal.body.terminal.uuid });
    expect(service.status).toBe(200);
    const serviceUuid = service.body.service.uuid;
    expect((await api.post('/customer', { customer_ext_id: 'crowd' })).status).toBe(200);
    const card = await api.post('/payment-method/card', { card_holder: 'Crowd', card_pan: TEST_CARDS.APPROVED, card_expiry_month: 12, card_expiry_year: 30, customer_ext_id: 'crowd' });
    expect(card.status).toBe(200);
    const sourceUuid = card.body.Source.uuid;
    expect((await api.post('/subscriptions/product', { name: 'Gym', external_id: 'gym' })).status).toBe(200);
    expect((await api.post('/subscriptions/plan', { name: 'Monthly', external_id: 'monthly', product: 'gym', amount: 2990, interval_type: 'MONTHLY' })).status).toBe(200);

    // N subscriptions whose first charge is in two days
    const day = new Date(Date.now() + 2 * 86400_000).toISOString().slice(0, 10);
    let next = 0;
    const subscribe = async () => {
      while (next < N) {
        next++;
        const r = await api.post('/subscriptions/subscription', { plan: 'monthly', customer: 'crowd', payment_attempts_limit: 3, initial_date: day, additional_data: { source_uuid: sourceUuid, service: serviceUuid } });
        expect(r.status).toBe(200);
        expect(r.body.status).toBe('CREATED');
      }
    };
    await Promise.all(Array.from({ length: 8 }, subscribe));
    mark('subscribed');
    // polled while the gateway is busy charging: a keep-alive connection it closed is tried again
    const paidCount = async () => {
      for (let i = 0; ; i++) {
        try {
          return (await api.get('/subscriptions/payments?status=PAID&limit=1')).body.count as number;
        } catch (err) {
          if (i >= 3) throw new Error(`the gateway stopped answering (exit ${gw.proc.exitCode}): ${String(err)}\n${gw.output().slice(-3000)}`);
          await sleep(200);
        }
      }
    };
    expect(await paidCount()).toBe(0);

    // all fall due at once; kill the whole gateway (every process) in the middle of charging them
    expect((await api.post('/test-clock', { advance_seconds: 3 * 86400 })).status).toBe(200);
    const t0 = Date.now();
    let before = 0;
    while ((before = await paidCount()) < N / 10 && Date.now() - t0 < 120_000) await sleep(20);
    expect(before).toBeGreaterThanOrEqual(N / 10);
    expect(before).toBeLessThan(N);
    for (const g of gateways) await g.kill('SIGKILL');
    gateways.length = 0;
    mark(`killed after ${before} charges`);

    // restart (on PostgreSQL, two processes again)
    for (let i = 0; i < PROCESSES; i++) gateways.push(await startGateway(home));
    api = client(gateways[0].url, creds);
    const deadline = Date.now() + 600_000;
    let paid = 0;
    while (Date.now() < deadline) {
      paid = await paidCount();
      if (paid >= N) break;
      await sleep(250);
    }
    expect(paid).toBe(N);
    mark('all paid');
    // the charges' settling transactions are done; let the notifications and sweeps finish, then count
    await sleep(1000);
    if (!postgres) {
      for (const g of gateways) await g.kill('SIGTERM');
      gateways.length = 0;
    }

    const db = await homeDatabase(home);
    try {
      const q = async <T,>(query: RawBuilder<T>) => (await query.execute(db.db)).rows;
      // one payment per subscription, PAID, first payment, first attempt
      const [payments] = await q(sql<{ n: number; paid: number; first: number; subs: number }>`
        select count(*)::int as n, count(*) filter (where status = 'PAID')::int as paid,
          count(*) filter (where payment_number = 1 and attempt = 1)::int as first, count(distinct subscription_id)::int as subs
        from subscription_payments where merchant_id = ${merchantId}`);
      expect(payments).toEqual({ n: N, paid: N, first: N, subs: N });
      const [subs] = await q(sql<{ n: number; paid: number; charged: number }>`
        select count(*)::int as n, count(*) filter (where status = 'PAID')::int as paid, sum(total_payment_charged)::int as charged
        from subscriptions where merchant_id = ${merchantId}`);
      expect(subs).toEqual({ n: N, paid: N, charged: N });
      // exactly one order per subscription, each with exactly one successful transaction (an attempt the
      // crash cut short is an ERROR transaction of the same order, paid again: the card was not declined)
      const [orders] = await q(sql<{ orders: number; ok: number; ok_orders: number; declined: number; paid_orders: number }>`
        select count(distinct o.id)::int as orders, count(t.id) filter (where t.status = 'SUCCESS')::int as ok,
          count(distinct o.id) filter (where t.status = 'SUCCESS')::int as ok_orders,
          count(t.id) filter (where t.status not in ('SUCCESS', 'ERROR'))::int as declined,
          count(distinct o.id) filter (where o.paid)::int as paid_orders
        from orders o left join transactions t on t.order_id = o.id where o.merchant_id = ${merchantId}`);
      expect(orders).toEqual({ orders: N, ok: N, ok_orders: N, declined: 0, paid_orders: N });
      // every payment names its own order, and that order is the one paid
      const [linked] = await q(sql<{ n: number }>`
        select count(*)::int as n from subscription_payments p join orders o on o.id = p.order_id and o.paid
        where p.merchant_id = ${merchantId}`);
      expect(linked.n).toBe(N);
      if (postgres) {
        // both processes charged: the charge jobs were claimed by more than one worker
        const workers = await q(sql<{ w: string }>`select distinct split_part(locked_by, '-', 1) as w from jobs where queue = ${CHARGE_QUEUE} and status = 'done'`);
        expect(workers.length).toBeGreaterThanOrEqual(2);
      }
    } finally {
      await db.close();
    }
    for (const g of gateways) await g.kill('SIGTERM');
    gateways.length = 0;
    mark('checked');
  }, 900_000);
});
