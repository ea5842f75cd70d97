/**
 * The database goes away under load (PostgreSQL only): the gateway's backends are terminated several
 * times (pg_terminate_backend, its own connections only), then the connection is cut at a TCP proxy and
 * restored, then connections are refused (nothing listens) and allowed again: every outage answers 503
 * with Retry-After and is logged once. The process survives, requests in flight fail cleanly (503 in the error envelope), /readyz
 * answers 503 while the database is away and 200 when it is back, and no order is half-done: every 200
 * has its order as answered, every order belongs to a request answered 200 or 503, and nothing stays
 * pending once the reconciler has run.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl, testDbKind } from '../helpers/db.js';
import { client, gatewayHome, startGateway, type Gateway, type GatewayHome } from '../helpers/server.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { TEST_CARDS } from '../../src/processors/index.js';

let home: GatewayHome | null = null;
let gw: Gateway | null = null;
let proxy: TcpProxy | null = null;
let admin: pg.Client | null = null;

afterAll(async () => {
  await gw?.kill('SIGKILL');
  await proxy?.close();
  await admin?.end().catch(() => {});
  await home?.cleanup();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe.skipIf(testDbKind() !== 'postgres')('PostgreSQL goes away under load', () => {
  it('survives terminated backends and a cut connection, answers 503 while down and recovers by itself', async () => {
    const target = new URL(testDatabaseUrl());
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const appName = `paygate_outage_${process.pid}_${Date.now()}`;
    const viaProxy = new URL(testDatabaseUrl());
    viaProxy.port = String(proxy.port);
    viaProxy.searchParams.set('application_name', appName);
    home = await gatewayHome({
      DATABASE_URL: viaProxy.toString(),
      PAYGATE_DB_CONNECT_TIMEOUT_MS: '1000',
      PAYGATE_SIMULATOR_LATENCY_MS: '20',
      PAYGATE_PROCESSOR_TIMEOUT_MS: '1000',
      PAYGATE_RECONCILE_AFTER_MS: '1500',
      PAYGATE_SWEEP_EVERY_MS: '250',
      PAYGATE_JOB_POLL_MS: '50',
      PAYGATE_JOB_LEASE_MS: '3000',
      PAYGATE_NOTIFICATION_TIMEOUT_MS: '2000',
      PAYGATE_RATE_LIMIT_SANDBOX: '100000',
    });
    home.env.DATABASE_URL = viaProxy.toString();
    admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    const schema = /search_path=(\S+)/.exec(home.env.PGOPTIONS ?? '')![1];

    gw = await startGateway(home);
    const boot = JSON.parse(fs.readFileSync(path.join(home.dataDir, 'sandbox-credentials.json'), 'utf8'));
    const parent = client(gw.url, boot);
    const created = await parent.post('/client', { name: 'outage shop', email: 'o@example.com', timezone: 'Europe/Madrid', is_pci: true, autorecover_transactions: true });
    expect(created.status).toBe(200);
    const api = client(gw.url, { api_key: created.body.client.api_key, signature: created.body.client.signature });
    const terminal = await api.post('/terminal', { currency_code: 'EUR', type: 'PAYGATE', description: 'outage terminal' });
    const service = await api.post('/service', { name: 'outage service', type: 'PAYGATE', terminal_uuid: terminal.body.terminal.uuid });
    expect(service.status).toBe(200);
    const serviceUuid = service.body.service.uuid;

    // the load: 6 clients paying; every answer is kept by the reference it paid
    const answers = new Map<string, { status: number; body: any }>();
    const transportErrors: string[] = [];
    let stop = false;
    let n = 0;
    const pay = async (i: number) => {
      const reference = `outage-${i}`;
      try {
        const r = await api.post('/payment/single-step', {
          amount: 1000 + i, operative: 'AUTHORIZATION', secure: false, description: `outage ${i}`, customer_ext_id: 'outage', service: serviceUuid, reference,
          card_holder: 'Outage Test', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
        });
        answers.set(reference, r);
        return r;
      } catch (err) {
        transportErrors.push(`${reference}: ${(err as Error).message}`);
        return null;
      }
    };
    const workers = Array.from({ length: 6 }, async () => {
      while (!stop) await pay(n++);
    });
    const ok = () => [...answers.values()].filter((a) => a.status === 200).length;
    const alive = () => gw!.proc.exitCode === null && gw!.proc.signalCode === null;

    // 1. its backends terminated several times under load
    for (let round = 0; round < 4; round++) {
      const before = ok();
      await until('payments to flow', async () => ok() >= before + 5);
      const { rows } = await admin.query('select pg_terminate_backend(pid) as t from pg_stat_activity where application_name = $1', [appName]);
      expect(rows.length, 'the gateway had backends to terminate').toBeGreaterThan(0);
      await sleep(100);
      expect(alive(), `the process died:\n${gw.output()}`).toBe(true);
    }

    // 2. the connection cut: readiness goes 503, requests answer 503 in the envelope
    const beforeCut = ok();
    await until('payments to flow', async () => ok() >= beforeCut + 5);
    proxy.cut();
    await until('/readyz to answer 503', async () => (await fetch(`${gw!.url}/readyz`)).status === 503);
    await until('a payment answered 503 while the database is away', async () => {
      const r = await pay(n++);
      return r !== null && r.status === 503;
    });
    const down = (await pay(n++))!;
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ code: 503, message: 'Service Unavailable' });
    expect(down.body.details).toMatch(/unavailable/i);
    expect((await fetch(`${gw.url}/healthz`)).status).toBe(200);
    expect(alive()).toBe(true);

    // 3. back by itself
    proxy.restore();
    await until('/readyz to answer 200 again', async () => (await fetch(`${gw!.url}/readyz`)).status === 200);
    const afterRestore = ok();
    await until('payments to flow again', async () => ok() >= afterRestore + 5);

    // 4. connections refused (nothing listens: ECONNREFUSED): 503 with Retry-After, one log line for the
    // whole outage (not one per request), no stack trace; back by itself again
    const outageLines = () => gw!.output().split('\n').filter((l) => l.includes('"msg":"database unavailable')).length;
    const endLines = () => gw!.output().split('\n').filter((l) => l.includes('"msg":"database available again"')).length;
    await until('the earlier outages to be over (each logged once, and its end once)', async () => outageLines() > 0 && endLines() === outageLines());
    const linesBefore = outageLines();
    const errorsBefore = (gw.output().match(/"msg":"unhandled error"/g) ?? []).length;
    proxy.refuse();
    await until('a payment answered 503 while connections are refused', async () => {
      const r = await pay(n++);
      return r !== null && r.status === 503;
    });
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${gw.url}/v1/sandbox/orders`, { headers: { authorization: `Basic ${Buffer.from(`${created.body.client.api_key}:`).toString('base64')}` } });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(((await res.json()) as { code: number }).code).toBe(503);
    }
    expect(outageLines() - linesBefore, 'one log line for the outage').toBe(1);
    expect((gw.output().match(/"msg":"unhandled error"/g) ?? []).length).toBe(errorsBefore);
    proxy.restore();
    await until('/readyz to answer 200 after the refusals', async () => (await fetch(`${gw!.url}/readyz`)).status === 200);
    const afterRefusals = ok();
    await until('payments to flow after the refusals', async () => ok() >= afterRefusals + 5);
    stop = true;
    await Promise.all(workers);
    expect(alive()).toBe(true);

    // every answer is a success or a clean error; no connection was dropped on the client
    expect(transportErrors).toEqual([]);
    const statuses = new Set([...answers.values()].map((a) => a.status));
    expect([...statuses].filter((s) => s !== 200 && s !== 503), `answers: ${[...statuses]}`).toEqual([]);
    for (const a of answers.values()) if (a.status === 503) expect(a.body.code).toBe(503);

    // every 200 has its order as answered
    for (const [reference, a] of answers) {
      if (a.status !== 200) continue;
      const r = await api.get(`/order/${a.body.order.uuid}`);
      expect(r.status, reference).toBe(200);
      expect(r.body.order.status, reference).toBe(a.body.order.status);
    }
    // every order belongs to a request answered 200 or 503, and the reconciler leaves none pending
    const { rows: orders } = await admin.query(`select reference, status from ${schema}.orders where merchant_id = $1`, [created.body.client.uuid]);
    for (const o of orders) expect(answers.get(o.reference)?.status, o.reference).toBeOneOf([200, 503]);
    await until('no order left pending', async () => {
      const { rows } = await admin!.query(`select count(*)::int as n from ${schema}.orders where merchant_id = $1 and status in ('CREATED', 'PENDING_PROCESSOR_RESPONSE')`, [created.body.client.uuid]);
      return rows[0].n === 0;
    });
    expect(gw.output()).not.toMatch(/Unhandled 'error' event|unhandledRejection|"msg":"unhandled error"/);
  }, 180_000);
});
