/**
 * kill -9 of the gateway between the provider's answer and our settle, for every connector of the list
 * (src/processors/connectors.ts) at once: one gateway, one production merchant per connector on its own
 * simulator, one payment each started together. Every simulator decides its payment (approved) and holds
 * its answer (the kit's `beforeMoneyAnswer`) until all have decided; then the gateway is killed, so each
 * provider charged the card and the gateway recorded no answer. After one restart the reconciler asks
 * each provider and settles each payment once: one transaction SUCCESS, one notification to url_post,
 * the provider asked to pay once. Connectors run on the databases their harness names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { buildModules } from '../../src/app.js';
import { createMerchantWithService } from '../../src/bootstrap.js';
import { migrate } from '../../src/platform/db/migrate.js';
import { createPlatform } from '../../src/platform/create.js';
import { createLogger } from '../../src/platform/logging.js';
import { CONNECTORS } from '../../src/processors/connectors.js';
import { gatewayHome, startGateway, type Gateway, type GatewayHome } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { harnessOf, type ConnectorHarness } from '../helpers/connectors.js';
import { testDbKind } from '../helpers/db.js';
import type { SimulatorBase } from '../../src/processors/kit/simulator.js';

type Harness = ConnectorHarness & { sim: SimulatorBase };

const harnesses: Harness[] = CONNECTORS.map((d) => harnessOf(d)).filter((h) => h.databases.includes(testDbKind()));
let home: GatewayHome;
let rx: Receiver;
let gw: Gateway | null = null;

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
  for (const h of harnesses) await h.start();
  home = await gatewayHome(Object.assign({}, SETTINGS, ...harnesses.map((h) => h.env())));
  rx = await startReceiver();
});
afterAll(async () => {
  await gw?.kill('SIGKILL');
  await rx?.close();
  // each simulator saw only what its provider's reference allows
  for (const h of harnesses) await h.close();
  await home?.cleanup();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it is true (or the deadline: then it fails with `what`). */
async function until(what: () => string, check: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await sleep(100);
  }
}

/** One production merchant per connector (its harness terminal, autorecover on), written into the gateway's database before it starts. */
async function productionMerchants() {
  const p = await createPlatform(loadConfig({ ...process.env, ...home.env, PAYGATE_TEST_DB: '' } as Record<string, string>), {
    lockHolder: 'test',
    logger: createLogger('silent'),
    // PostgreSQL: the home's schema (the gateway gets it from PGOPTIONS)
    schema: /search_path=(\S+)/.exec(home.env.PGOPTIONS ?? '')?.[1],
  });
  try {
    await migrate(p.database);
    const m = buildModules(p);
    const out = [];
    for (const h of harnesses) {
      const created = await createMerchantWithService(p, m, { env: 'production', isPci: true, serviceType: h.serviceType, terminal: h.terminal });
      await p.database.db.updateTable('merchants').set({ autorecover_transactions: true }).where('id', '=', created.client_uuid).execute();
      out.push(created);
    }
    return out;
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

describe(`kill -9 between each provider's answer and the settle (${harnesses.map((h) => h.name).join(', ')})`, () => {
  it('after one restart every payment is settled once, from its provider', { timeout: 240_000 }, async () => {
    expect(harnesses.length).toBeGreaterThan(0);
    const merchants = await productionMerchants();
    gw = await startGateway(home);
    const amount = (i: number) => 4321 + i;

    // every simulator decides its payment and holds the answer until all have decided
    const decided = new Map<string, number>();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    for (const h of harnesses) {
      h.sim.beforeMoneyAnswer = async (call) => {
        if (decided.has(h.name)) return;
        decided.set(h.name, call.status);
        await gate;
      };
    }
    const paying = harnesses.map((h, i) =>
      production(gw!.url, merchants[i]).post('/payment/single-step', {
        amount: amount(i), operative: 'AUTHORIZATION', secure: false, description: `crash ${h.name}`, customer_ext_id: `crash-${h.name}`,
        service: merchants[i].service_uuid, url_post: `${rx.url}/crash/${h.name}`, card_holder: 'Crash Test', card_pan: h.cards.approved(), card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
      }),
    );
    const outcomes = Promise.allSettled(paying);
    await until(() => `simulators that decided: ${[...decided.keys()].join(', ') || 'none'}; of ${harnesses.map((h) => h.name).join(', ')}`, () => decided.size === harnesses.length, 4_000);
    // all approved: the providers charged the cards
    for (const h of harnesses) expect(decided.get(h.name), h.name).toBeLessThan(300);
    await gw.kill('SIGKILL');
    release();
    // no answer reached the merchant: the gateway died with every payment in flight
    expect((await outcomes).map((o) => o.status)).toEqual(harnesses.map(() => 'rejected'));
    for (const h of harnesses) {
      h.sim.beforeMoneyAnswer = null;
      expect(h.paymentCalls(), h.name).toBe(1);
    }

    gw = await startGateway(home);
    const apis = merchants.map((m) => production(gw!.url, m));
    // the reconciler finds each PENDING transaction once it is old enough, asks its provider, settles it
    const txs = new Map<string, any[]>();
    await until(
      () => `still PENDING: ${harnesses.filter((h) => (txs.get(h.name) ?? []).some((x) => x.status === 'PENDING') || !txs.has(h.name)).map((h) => h.name).join(', ')}`,
      async () => {
        for (const [i, h] of harnesses.entries()) {
          const list = await apis[i].get('/orders');
          expect(list.status).toBe(200);
          txs.set(h.name, list.body.transactions);
        }
        return harnesses.every((h) => txs.get(h.name)!.length > 0 && txs.get(h.name)!.every((x) => x.status !== 'PENDING'));
      },
      90_000,
    );
    const notified = (h: Harness) => rx.received.filter((r) => r.path === `/crash/${h.name}`).map((r) => JSON.parse(r.body));
    await until(() => `no notification for ${harnesses.filter((h) => notified(h).length === 0).map((h) => h.name).join(', ')}`, () => harnesses.every((h) => notified(h).length > 0), 30_000);
    for (const [i, h] of harnesses.entries()) {
      const mine = txs.get(h.name)!;
      expect(mine, h.name).toHaveLength(1);
      expect(mine[0], h.name).toMatchObject({ status: 'SUCCESS', amount: amount(i) });
      const order = (await apis[i].get(`/order/${mine[0].order_uuid}`)).body.order;
      expect(order, h.name).toMatchObject({ status: 'SUCCESS', paid: true });
      expect(order.transactions, h.name).toHaveLength(1);
      expect(order.transactions[0].processor_id, h.name).toMatch(/\S/);
      // the provider was asked to pay once; the merchant is notified once, of the SUCCESS
      expect(h.paymentCalls(), h.name).toBe(1);
      expect(notified(h).map((n: any) => n.order?.status ?? n.status), h.name).toEqual(['SUCCESS']);
    }
    // the gateway says at start which service types production can take, and which answer 503
    const warned = /production payments of these service types answer 503 \(no connector\): ([A-Z0-9, ]+)/.exec(gw.output());
    expect(warned, gw.output()).not.toBeNull();
    const without = warned![1].split(', ');
    expect(without).toContain('EVOSNAP');
    for (const d of CONNECTORS) for (const type of d.serviceTypes) expect(without, d.name).not.toContain(type);
  });
});
