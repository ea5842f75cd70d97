/**
 * kill -9 of the gateway between the provider's answer and our settle, for every connector of the list
 * (src/processors/connectors.ts) at once: one gateway, two production merchants per connector on its own
 * simulator (autorecover_transactions on and off), one payment each, all started together. Every
 * simulator decides its payments (approved) and holds the answers (the kit's `beforeMoneyAnswer`) until
 * all have decided; then the gateway is killed, so each provider charged the cards and the gateway
 * recorded no answer. After one restart the reconciler asks each provider and settles each payment once
 * (docs/decisions.md, "The reconciler always asks the processor"): with autorecover, one transaction
 * SUCCESS, one notification, the provider asked to pay once; without it, the payment reversed at the
 * provider (one more money call) and ERROR (TIMEOUT) naming the reversal, notified once. A provider that
 * offers no way to read a payment back (its harness's `lostPayments: 'failed'`: Clearhaus, whose payment
 * is captured only after its authorization's answer is read) has captured nothing: ERROR (TIMEOUT) either
 * way, notified once, no more money calls. Connectors run on the databases their harness names.
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
import type { MoneyCall, SimulatorBase } from '../../src/processors/kit/simulator.js';

type Harness = ConnectorHarness & { sim: SimulatorBase };

const harnesses: Harness[] = CONNECTORS.map((d) => harnessOf(d)).filter((h) => h.databases.includes(testDbKind()));
let home: GatewayHome;
let rx: Receiver;
let gw: Gateway | null = null;

const SETTINGS = {
  // the first payments held wait for the last to be decided: room for that on a busy machine
  PAYGATE_PROCESSOR_TIMEOUT_MS: '10000',
  PAYGATE_RECONCILE_AFTER_MS: '11000',
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

/** A payment of the run: a connector, and whether its merchant has `autorecover_transactions`. */
interface Run {
  h: Harness;
  autorecover: boolean;
  /** Where its notifications go (url_post). */
  path: string;
  amount: number;
}
const runs: Run[] = harnesses.flatMap((h, i) => [true, false].map((autorecover) => ({ h, autorecover, path: `/crash/${h.name}/${autorecover ? 'recover' : 'reverse'}`, amount: 4300 + i * 2 + (autorecover ? 0 : 1) })));

/** One production merchant per run (its connector's harness terminal), written into the gateway's database before it starts. */
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
    for (const r of runs) {
      const created = await createMerchantWithService(p, m, { env: 'production', isPci: true, serviceType: r.h.serviceType, terminal: r.h.terminal });
      await p.database.db.updateTable('merchants').set({ autorecover_transactions: r.autorecover }).where('id', '=', created.client_uuid).execute();
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
  it('after one restart every payment is settled once from its provider: a success with autorecover, else reversed', { timeout: 240_000 }, async () => {
    expect(harnesses.length).toBeGreaterThan(0);
    const merchants = await productionMerchants();
    gw = await startGateway(home);

    // every simulator decides its two payments and holds the answers until all have decided
    const decided = new Map<string, number[]>(harnesses.map((h) => [h.name, []]));
    const allDecided = () => harnesses.every((h) => decided.get(h.name)!.length === 2);
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    for (const h of harnesses) {
      h.sim.beforeMoneyAnswer = async (call) => {
        decided.get(h.name)!.push(call.status);
        await gate;
      };
    }
    const paying = runs.map((r, i) =>
      production(gw!.url, merchants[i]).post('/payment/single-step', {
        amount: r.amount, operative: 'AUTHORIZATION', secure: false, description: `crash ${r.h.name}`, customer_ext_id: `crash-${i}`,
        service: merchants[i].service_uuid, url_post: `${rx.url}${r.path}`, card_holder: 'Crash Test', card_pan: r.h.cards.approved(), card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
      }),
    );
    const outcomes = Promise.allSettled(paying);
    await until(() => `payments decided: ${JSON.stringify(Object.fromEntries(decided))}`, allDecided, 8_000);
    // all approved: the providers charged the cards
    for (const h of harnesses) for (const status of decided.get(h.name)!) expect(status, h.name).toBeLessThan(300);
    await gw.kill('SIGKILL');
    release();
    // no answer reached the merchant: the gateway died with every payment in flight
    expect((await outcomes).map((o) => o.status)).toEqual(runs.map(() => 'rejected'));
    // from now on the money calls are only counted
    const later = new Map<string, MoneyCall[]>(harnesses.map((h) => [h.name, []]));
    for (const h of harnesses) {
      expect(h.paymentCalls(), h.name).toBe(2);
      h.sim.beforeMoneyAnswer = async (call) => void later.get(h.name)!.push(call);
    }

    gw = await startGateway(home);
    const apis = merchants.map((m) => production(gw!.url, m));
    // the reconciler finds each PENDING transaction once it is old enough, asks its provider, settles it
    const txs: any[][] = runs.map(() => []);
    const pending = () => runs.filter((_r, i) => txs[i].length === 0 || txs[i].some((x) => x.status === 'PENDING'));
    await until(
      () => `still PENDING: ${pending().map((r) => r.path).join(', ')}`,
      async () => {
        for (const i of runs.keys()) {
          const list = await apis[i].get('/orders');
          expect(list.status).toBe(200);
          txs[i] = list.body.transactions;
        }
        return pending().length === 0;
      },
      90_000,
    );
    const notified = (r: Run) => rx.received.filter((x) => x.path === r.path).map((x) => JSON.parse(x.body));
    await until(() => `no notification to ${runs.filter((r) => notified(r).length === 0).map((r) => r.path).join(', ')}`, () => runs.every((r) => notified(r).length > 0), 30_000);
    for (const [i, r] of runs.entries()) {
      const what = `${r.h.name} autorecover ${r.autorecover}`;
      expect(txs[i], what).toHaveLength(1);
      const order = (await apis[i].get(`/order/${txs[i][0].order_uuid}`)).body.order;
      expect(order.transactions, what).toHaveLength(1);
      if (r.h.lostPayments === 'failed') {
        // a provider that cannot be asked (Clearhaus): the authorization's answer never read, nothing captured: ERROR (TIMEOUT), notified once
        expect(txs[i][0], what).toMatchObject({ status: 'ERROR', error: 'TIMEOUT', amount: r.amount });
        expect(order.paid, what).toBe(false);
        expect(notified(r).map((n: any) => n.order?.transactions?.[0]?.status), what).toEqual(['ERROR']);
      } else if (r.autorecover) {
        // settled as the provider says: charged once, the merchant notified once of the SUCCESS
        expect(txs[i][0], what).toMatchObject({ status: 'SUCCESS', amount: r.amount });
        expect(order, what).toMatchObject({ status: 'SUCCESS', paid: true });
        expect(order.transactions[0].processor_id, what).toMatch(/\S/);
        expect(notified(r).map((n: any) => n.order?.transactions?.[0]?.status), what).toEqual(['SUCCESS']);
      } else {
        // never turned into a success: reversed at the provider, ERROR (TIMEOUT) naming the reversal, notified once
        expect(txs[i][0], what).toMatchObject({ status: 'ERROR', error: 'TIMEOUT', amount: r.amount });
        expect(order.transactions[0].error_details, what).toMatch(/reversed: refund \S+ of \d+/);
        expect(order.paid, what).toBe(false);
        expect(notified(r).map((n: any) => n.order?.transactions?.[0]?.status), what).toEqual(['ERROR']);
      }
    }
    // per provider: each payment asked once; after the restart one more money call where a payment was reversed (approved)
    for (const h of harnesses) {
      const failed = h.lostPayments === 'failed';
      expect(later.get(h.name)!.map((c) => c.status < 300), h.name).toEqual(failed ? [] : [true]);
      expect(h.paymentCalls(), h.name).toBe(failed ? 2 : 3);
    }
    // the gateway says at start which service types production can take, and which answer 503
    const warned = /production payments of these service types answer 503 \(no connector\): ([A-Z0-9, ]+)/.exec(gw.output());
    expect(warned, gw.output()).not.toBeNull();
    const without = warned![1].split(', ');
    expect(without).toContain('EVOSNAP');
    for (const d of CONNECTORS) for (const type of d.serviceTypes) expect(without, d.name).not.toContain(type);
  });
});
