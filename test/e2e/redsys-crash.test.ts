/**
 * kill -9 of the gateway between Redsys's answer and our settle: Redsys charged the card, the gateway
 * died before it recorded the answer. After a restart the reconciler asks Redsys's query service and
 * settles the payment once: one transaction, SUCCESS, one notification, and Redsys asked to pay once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { buildModules } from '../../src/app.js';
import { createMerchantWithService } from '../../src/bootstrap.js';
import { migrate } from '../../src/platform/db/migrate.js';
import { createPlatform } from '../../src/platform/create.js';
import { createLogger } from '../../src/platform/logging.js';
import { gatewayHome, startGateway, type Gateway, type GatewayHome } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { redsysHarness } from '../helpers/connectors.js';

let home: GatewayHome;
let rx: Receiver;
let gw: Gateway | null = null;
const h = redsysHarness();

const SETTINGS = {
  PAYGATE_PROCESSOR_TIMEOUT_MS: '5000',
  PAYGATE_RECONCILE_AFTER_MS: '6000',
  PAYGATE_SWEEP_EVERY_MS: '250',
  PAYGATE_JOB_POLL_MS: '50',
  PAYGATE_JOB_LEASE_MS: '3000',
  PAYGATE_NOTIFICATION_TIMEOUT_MS: '2000',
  PAYGATE_TRUST_PROXY: '127.0.0.1',
  PAYGATE_OUTGOING_ALLOW: '127.0.0.1',
  PAYGATE_BOOTSTRAP_SANDBOX: 'false',
};

beforeAll(async () => {
  await h.start();
  home = await gatewayHome({ ...SETTINGS, ...h.env() });
  rx = await startReceiver();
});
afterAll(async () => {
  await gw?.kill('SIGKILL');
  await rx?.close();
  await h.close();
  await home?.cleanup();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A production merchant with the Redsys terminal, written into the gateway's database before it starts. */
async function productionMerchant() {
  const p = await createPlatform(loadConfig({ ...process.env, ...home.env, PAYGATE_TEST_DB: '' } as Record<string, string>), {
    lockHolder: 'test',
    logger: createLogger('silent'),
    // PostgreSQL: the home's schema (the gateway gets it from PGOPTIONS)
    schema: /search_path=(\S+)/.exec(home.env.PGOPTIONS ?? '')?.[1],
  });
  try {
    await migrate(p.database);
    const m = buildModules(p);
    const created = await createMerchantWithService(p, m, { env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
    await p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', created.client_uuid).execute();
    return created;
  } finally {
    await p.jobs.stop().catch(() => {});
    await p.invalidation.stop().catch(() => {});
    await p.database.close();
  }
}

function production(url: string, creds: { api_key: string; signature: string }) {
  const headers = { authorization: `Basic ${Buffer.from(`${creds.api_key}:`).toString('base64')}`, 'x-forwarded-proto': 'https', 'content-type': 'application/json' };
  return {
    async get(path: string) {
      const r = await fetch(`${url}/v1${path}`, { headers });
      return { status: r.status, body: (await r.json()) as any };
    },
    async post(path: string, body: Record<string, unknown>) {
      const r = await fetch(`${url}/v1${path}`, { method: 'POST', headers, body: JSON.stringify({ signature: creds.signature, ...body }) });
      return { status: r.status, body: (await r.json()) as any };
    },
  };
}

describe('kill -9 between the Redsys answer and the settle', () => {
  it('after the restart the payment is settled once, from Redsys\'s query service', { timeout: 240_000 }, async () => {
    const merchant = await productionMerchant();
    gw = await startGateway(home);
    let api = production(gw.url, merchant);
    // Redsys processes the payment; before its answer is written, the gateway is killed
    let killed = false;
    h.sim.beforeMoneyAnswer = async (call) => {
      if (call.endpoint !== 'trataPeticion' || killed) return;
      killed = true;
      await gw!.kill('SIGKILL');
    };
    const paying = api.post('/payment/single-step', {
      amount: 4321, operative: 'AUTHORIZATION', secure: false, description: 'crash between answer and settle', customer_ext_id: 'crash-1',
      service: merchant.service_uuid, url_post: `${rx.url}/crash`, card_holder: 'Crash Test', card_pan: h.cards.approved(), card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
    });
    await expect(paying).rejects.toThrow();
    expect(killed).toBe(true);
    h.sim.beforeMoneyAnswer = null;
    expect(h.sim.calls.trataPeticion).toBe(1);
    expect(h.sim.orderCount).toBe(1);

    gw = await startGateway(home);
    api = production(gw.url, merchant);
    // the reconciler finds the PENDING transaction once it is old enough, asks Redsys, settles it
    let txs: any[] = [];
    const deadline = Date.now() + 40_000;
    while (Date.now() < deadline) {
      const list = await api.get('/orders');
      expect(list.status).toBe(200);
      txs = list.body.transactions;
      if (txs.length > 0 && txs.every((x: any) => x.status !== 'PENDING')) break;
      await sleep(200);
    }
    expect(txs).toHaveLength(1);
    expect(txs[0]).toMatchObject({ status: 'SUCCESS', amount: 4321 });
    const order = (await api.get(`/order/${txs[0].order_uuid}`)).body.order;
    expect(order).toMatchObject({ status: 'SUCCESS', paid: true });
    expect(order.transactions).toHaveLength(1);
    expect(order.transactions[0].processor_id).toMatch(/^\d{4}[0-9A-Za-z]{8}$/);
    expect(h.sim.calls.query).toBeGreaterThanOrEqual(1);
    // Redsys was asked to pay once; the merchant is notified once of the SUCCESS
    expect(h.sim.calls.trataPeticion).toBe(1);
    const until = Date.now() + 20_000;
    while (Date.now() < until && !rx.received.some((r) => r.path === '/crash')) await sleep(100);
    // a few more sweeps change nothing
    const sweeps = h.sim.calls.query;
    await sleep(1500);
    expect(h.sim.calls.query).toBe(sweeps);
    const notified = rx.received.filter((r) => r.path === '/crash').map((r) => JSON.parse(r.body));
    expect(notified.map((n: any) => n.order?.status ?? n.status)).toEqual(['SUCCESS']);
    expect((await api.get('/orders')).body.transactions).toHaveLength(1);
    // the gateway says at start which service types production can take, and which answer 503
    const warned = /production payments of these service types answer 503 \(no connector\): ([A-Z0-9, ]+)/.exec(gw.output());
    expect(warned, gw.output()).not.toBeNull();
    expect(warned![1].split(', ')).toContain('CREDORAX');
    for (const type of ['REDSYSPSD2', 'CHECKOUT', 'PAYPAL']) expect(warned![1].split(', ')).not.toContain(type);
  });
});
