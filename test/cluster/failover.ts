/**
 * npm run test:cluster: the failover test on the reference topology (scripts/cluster: pg_auto_failover
 * with three data nodes and one synchronous standby required, two HAProxy machines behind keepalived's
 * floating address, the shared processor simulator, 3 gateway nodes behind the HTTP load balancer).
 *
 * Five scenarios in a row, each under load: 16 clients create orders, pay them with a stored card, refund
 * half of them and create subscriptions (whose first charge is made in the request) for
 * CLUSTER_TEST_SECONDS and until 3 s after the formation is back, every request with an Idempotency-Key
 * and retried with the same key on 502/503/409 or a lost connection, as a merchant's client should:
 *   1. primary failover: the primary's data node is killed with kill -9 (its keeper, PostgreSQL and every
 *      backend);
 *   2. double failure: the new primary is killed too while the first is still down; both come back
 *      together 4 s later, and the one that cannot follow the new primary is repaired (drop and
 *      re-create); the formation must be back to one primary, two secondaries, number_sync_standbys 1;
 *   3. monitor down during a failover: the primary's data node is killed, then the monitor as soon as it
 *      has assigned the new primary wait_primary; the monitor is started again 4 s later;
 *   4. gateway node lost: a gateway node is killed with kill -9 (its API process and its worker);
 *   5. proxy lost: the HAProxy that holds the floating address is killed with kill -9 (keepalived moves
 *      the address to the other proxy machine).
 * After each, counted in the database and at the clients: every acknowledged payment and refund is there
 * exactly once; nothing was charged twice on the simulator and every charge it made is a successful
 * transaction (and the other way round); no transaction is left PENDING after reconciliation; every
 * notification was delivered (to the receiver, and on an event stream that reconnects by itself); and
 * the unavailability window seen by the clients is reported.
 *
 * Throughout, every data node is asked directly every 100 ms whether it takes writes and how many
 * synchronous standbys stream from it; no write may be acknowledged (2xx) inside a window in which the
 * primary had none (PAYGATE_REQUIRE_SYNC_STANDBY; a write counts when it was sent after a sample saw the
 * window and answered before a later sample still saw it: the sampling interval is the resolution).
 * PAYGATE_REQUIRE_SYNC_STANDBY=false in this test's environment runs the gateway nodes without the
 * setting, to see that check fail.
 *
 * The sandbox environment is used: the money path is the same code in both environments (the
 * environment is a column), the sandbox's processor is the simulator by design, and it answers plain
 * HTTP; production would add TLS and a second set of keys, which a failover does not touch.
 * The simulator runs as a service shared by every node (PAYGATE_SIMULATOR_URL), as a real processor
 * would be: it outlives the nodes, the reconciler on any node can ask it about a payment made by a node
 * that died, and its log of operations is what "charged" means below.
 *
 * When what it needs cannot be installed (pg_auto_failover, HAProxy, keepalived: Debian's packages) or
 * it does not run as root (network namespaces), the test is skipped with the reason (exit 0, "SKIPPED"
 * on stderr), except with CI=true as root with apt-get, where it must run.
 * Settings: CLUSTER_TEST_SECONDS (8), CLUSTER_TEST_SCENARIOS (primary,double,monitor,gateway,proxy),
 * PAYGATE_CLUSTER_BASE_PORT (5650), CLUSTER_TEST_LOGS (a directory to keep every process's log in),
 * CLUSTER_TEST_LOG_LEVEL (the gateway nodes'), CLUSTER_TEST_JSON (the figures).
 */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { request } from 'undici';
import { TEST_CARDS } from '../../src/processors/index.js';
import { checkRequirements, ensureRequirements, formationSettled, formationState, killGatewayNode, killMonitor, killNode, killProxy, numberSyncStandbys, primaryNode, rejoinNode, restartMonitor, restartNode, startProxyHaproxy, vipHolder, startCluster, startGatewayNode, stopCluster, type ClusterState } from '../../scripts/cluster/topology.js';
import { SECONDS, SHORT_SECONDS, MONITOR_DOWN_MS, SCENARIOS, CLIENTS, BASE_PORT, DIR, log, sleep, waitFor, failures, check, startReceiver, agent, Api } from './support.js';
import { sampleReadiness, sampleDurability, acknowledgedWithoutStandby, followStream, readsOnStandby } from './sampling.js';
import { runLoad, unavailability, verify } from './load.js';

async function main(): Promise<number> {
  const ci = process.env.CI === 'true';
  let req = checkRequirements();
  if (req.missing.length > 0) req = ensureRequirements(log);
  if (req.missing.length > 0) {
    const aptWorks = (() => {
      try {
        execFileSync('apt-get', ['--version'], { stdio: 'ignore' });
        return process.getuid?.() === 0;
      } catch {
        return false;
      }
    })();
    const reason = `the failover test needs ${req.missing.join('; ')}${req.packages.length > 0 ? `; install: apt-get install ${req.packages.join(' ')}` : ''}`;
    if (ci && aptWorks) {
      process.stderr.write(`[cluster test] FAILED: apt-get is available (root) but the test cannot run: ${reason}\n`);
      return 1;
    }
    process.stderr.write(`[cluster test] SKIPPED: ${reason}\n`);
    return 0;
  }

  const receiver = await startReceiver();
  const started = Date.now();
  let s: ClusterState | null = null;
  const results: Record<string, unknown> = {};
  try {
    s = await startCluster({
      dir: DIR,
      basePort: BASE_PORT,
      gateways: 3,
      log,
      gatewayEnv: {
        // the reference topology sets PAYGATE_REQUIRE_SYNC_STANDBY=true; PAYGATE_REQUIRE_SYNC_STANDBY=false
        // here shows what the durability check catches without it
        ...(process.env.PAYGATE_REQUIRE_SYNC_STANDBY ? { PAYGATE_REQUIRE_SYNC_STANDBY: process.env.PAYGATE_REQUIRE_SYNC_STANDBY } : {}),
        // more of the gateway nodes' logs (CLUSTER_TEST_LOGS keeps them)
        ...(process.env.CLUSTER_TEST_LOG_LEVEL ? { PAYGATE_LOG_LEVEL: process.env.CLUSTER_TEST_LOG_LEVEL } : {}),
        PAYGATE_SIMULATOR_LATENCY_MS: '20',
        PAYGATE_PROCESSOR_TIMEOUT_MS: '2000',
        // a request that died holds its key this long (above the processor's deadline), not 60 s
        PAYGATE_IDEMPOTENCY_LOCK_MS: '8000',
        // above the processor timeout: the reconciler never asks about a call still in flight
        PAYGATE_RECONCILE_AFTER_MS: '5000',
        PAYGATE_SWEEP_EVERY_MS: '1000',
        PAYGATE_JOB_POLL_MS: '100',
        PAYGATE_JOB_LEASE_MS: '5000',
        PAYGATE_NOTIFICATION_TIMEOUT_MS: '2000',
        PAYGATE_RATE_LIMIT_SANDBOX: '100000',
        PAYGATE_EVENTS_STREAM_POLL_MS: '1000',
        PAYGATE_DB_POOL_SIZE: '10',
      },
    });
    log(`cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const boot = new Api(s.gatewayUrl, s.credentials!);
    const m = await boot.call('POST', '/client', { name: 'cluster shop', email: 'cluster@example.com', timezone: 'Europe/Madrid', is_pci: true, autorecover_transactions: true, resend_failed_notifications: true });
    if (m.status !== 200) throw new Error(`merchant: ${m.status} ${JSON.stringify(m.body)}`);
    const merchantId: string = m.body.client.uuid;
    const api = new Api(s.gatewayUrl, { api_key: m.body.client.api_key, signature: m.body.client.signature });
    const terminal = await api.call('POST', '/terminal', { currency_code: 'EUR', type: 'PAYGATE', description: 'cluster terminal' });
    const service = await api.call('POST', '/service', { name: 'cluster service', type: 'PAYGATE', terminal_uuid: terminal.body.terminal.uuid });
    const serviceUuid: string = service.body.service.uuid;
    await api.call('POST', '/subscriptions/product', { name: 'Cluster', external_id: 'cluster-p', notification_url: `${receiver.url}/sub` });
    await api.call('POST', '/subscriptions/plan', { name: 'Monthly', external_id: 'cluster-m', product: 'cluster-p', amount: 700, interval_type: 'MONTHLY' });
    const cards: string[] = [];
    for (let c = 0; c < CLIENTS; c++) {
      const first = await api.call('POST', '/payment/single-step', {
        amount: 100, operative: 'AUTHORIZATION', secure: false, description: 'card', customer_ext_id: `customer-${c}`, service: serviceUuid,
        card_holder: 'Cluster Customer', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '2030', card_cvv: '123',
      });
      if (first.status !== 200) throw new Error(`card: ${first.status} ${JSON.stringify(first.body)}`);
      cards.push(first.body.order.transactions[0].source.uuid);
    }
    const stream = followStream(s.gatewayUrl, m.body.client.api_key);
    {
      const states = await readsOnStandby(s);
      check(states.every((x) => x.includes('standby in use')), `lists read from a standby within the bound (${states.join('; ')})`);
    }

    // what every data node had, every 100 ms, from here to the end (the check is at the end)
    const durability = sampleDurability(s);
    const periods: Array<{ name: string; from: number; to: number }> = [];
    const scenario = async (key: string, name: string, body: () => Promise<Record<string, unknown>>) => {
      if (!SCENARIOS.includes(key)) return;
      const from = Date.now();
      api.attempts.length = 0;
      log(`---- ${name}`);
      const pending = afterNext;
      afterNext = null;
      try {
        results[key] = await body();
        await pending?.();
      } finally {
        periods.push({ name, from, to: Date.now() });
        const slow = api.attempts.filter((a) => a.at - a.sent > 3000).sort((x, y) => y.at - y.sent - (x.at - x.sent));
        if (slow.length > 0) log(`${name}: ${slow.length} attempt(s) took more than 3 s, the longest: ${slow.slice(0, 3).map((a) => `${a.path} ${a.outcome} ${((a.at - a.sent) / 1000).toFixed(1)} s from ${new Date(a.sent).toISOString().slice(11, 23)}`).join('; ')}`);
      }
    };
    /** What a scenario leaves to be checked at the end of the next one. */
    let afterNext: (() => Promise<void>) | null = null;
    const formationText = async () => (await formationState(s!).catch(() => [])).map((n) => `${n.name} ${n.reported}/${n.goal}`).join(', ');
    const settled = async (what: string, ms = 90_000) => {
      const t = Date.now();
      while (Date.now() - t < ms && !(await formationSettled(s!, { sync: true }).catch(() => false))) await sleep(500);
      const ok = await formationSettled(s!, { sync: true }).catch(() => false);
      check(ok, `${what}: the formation is back to three nodes, one primary and two secondaries, number_sync_standbys ${await numberSyncStandbys(s!).catch(() => '?')}, ${((Date.now() - t) / 1000).toFixed(1)} s later (${await formationText()})`);
    };

    // 1. the primary's data node, kill -9
    await scenario('primary', 'primary failover', async () => {
      const since = new Date();
      const readiness = sampleReadiness(s!);
      const before = await primaryNode(s!);
      let promotedAt = 0;
      let newPrimary: string | null = null;
      const load = await runLoad({
        api, serviceUuid, cards, receiverUrl: receiver.url, plan: 'cluster-m', tag: 'db', seconds: SECONDS, faultAfterMs: 3000,
        fault: async () => {
          log(`kill -9 the primary's data node (${before})`);
          killNode(s!, before!);
          const t0 = Date.now();
          while (Date.now() - t0 < 120_000) {
            newPrimary = await primaryNode(s!).catch(() => null);
            if (newPrimary && newPrimary !== before) break;
            await sleep(200);
          }
          promotedAt = Date.now();
          log(`${newPrimary} promoted ${((promotedAt - t0) / 1000).toFixed(1)} s after the kill`);
        },
      });
      await readiness.stop();
      const window = unavailability(api.attempts, load);
      const firstOkAfterPromotion = api.attempts.filter((a) => a.ok && a.at >= promotedAt).sort((x, y) => x.at - y.at)[0]?.at;
      log(`primary failover: clients saw no success for ${(window.windowMs / 1000).toFixed(1)} s, from ${(window.startsAfterFaultMs / 1000).toFixed(1)} s after the kill (${window.failedAttempts} failed attempts, retried); the monitor promoted ${newPrimary} ${((promotedAt - load.faultAt) / 1000).toFixed(1)} s after the kill; first success ${firstOkAfterPromotion ? ((firstOkAfterPromotion - promotedAt) / 1000).toFixed(1) : '-'} s after the promotion${window.tail}`);
      check(newPrimary !== null && newPrimary !== before, `primary failover: a new primary was promoted (${newPrimary})`);
      check(firstOkAfterPromotion !== undefined && firstOkAfterPromotion - promotedAt < 10_000, 'primary failover: requests reach the new primary within seconds of its promotion');
      const down = readiness.samples.filter((x) => x.at > load.faultAt && x.at < promotedAt && x.status === 503);
      const last = s!.gateways.map((g) => readiness.samples.filter((x) => x.node === g.n).at(-1)?.status);
      check(down.length > 0, `primary failover: /readyz answered 503 while there was no primary (${down.length} samples)`);
      check(last.every((x) => x === 200), `primary failover: /readyz answers 200 on every node afterwards (${last.join(', ')})`);
      const totals = await verify({ name: 'primary failover', s: s!, api, merchantId, load, receiver, stream, since });
      const states = await readsOnStandby(s!);
      check(states.every((x) => x.includes('standby in use')), `primary failover: lists read from the remaining standby again (${states.join('; ')})`);
      const list = await api.call('GET', '/orders?limit=5');
      check(list.status === 200 && Array.isArray(list.body?.transactions), `primary failover: the order list answers (${list.status})`);
      return { ...totals, unavailable_s: window.windowMs / 1000, last_client_after_s: window.tailMs / 1000, promoted_after_s: (promotedAt - load.faultAt) / 1000, killed: before, formation: await formationText() };
    });

    // 2. a double failure: the primary's data node killed while the previous primary is still down (as
    // after scenario 1). The one node left is not promoted alone (the monitor cannot know it has every
    // commit); both killed nodes come back a few seconds later, together (power back on two machines):
    // the most advanced is promoted and takes writes alone (wait_primary) until another node follows it;
    // the other old primary has a history the new timeline does not contain (pg_auto_failover leaves it
    // in join_secondary for good: "requested timeline N does not contain minimum recovery point"), and is
    // repaired (rejoinNode: drop and re-create). Nothing may be acknowledged while a primary is alone, and
    // the formation must be back to three nodes.
    await scenario('double', 'double failure', async () => {
      const since = new Date();
      let down = s!.nodes.filter((n) => n.pid === null).map((n) => n.name);
      if (down.length === 0) {
        // run alone: make the first failure here
        const first = (await primaryNode(s!))!;
        log(`double failure: kill -9 the primary's data node (${first}) and wait for the failover`);
        killNode(s!, first);
        await waitFor('a new primary', async () => ((await primaryNode(s!).catch(() => null)) ?? first) !== first, 120_000);
        down = [first];
      }
      const previous = down[0];
      const victim = (await primaryNode(s!))!;
      const rejoined: Record<string, string> = {};
      let backAt = 0;
      let promoted: string | null = null;
      // the other old primary is brought back (or repaired) while the clients go on and the ledger is checked
      let rejoining: Promise<unknown> = Promise.resolve();
      const load = await runLoad({
        api, serviceUuid, cards, receiverUrl: receiver.url, plan: 'cluster-m', tag: 'dbl', seconds: SHORT_SECONDS, faultAfterMs: 2000,
        fault: async () => {
          log(`kill -9 the primary's data node (${victim}); ${previous} is still down`);
          killNode(s!, victim);
          await sleep(4000);
          log(`double failure: the formation after 4 s: ${await formationText()}; starting ${victim} and ${previous} again`);
          const logFrom = new Map([victim, previous].map((n) => [n, restartNode(s!, n)]));
          await waitFor('a primary with a secondary', async () => {
            promoted = (await formationState(s!)).find((n) => n.reported === 'primary' && n.goal === 'primary')?.name ?? null;
            return promoted !== null;
          }, 120_000);
          backAt = Date.now();
          log(`double failure: ${await formationText()}`);
          rejoining = Promise.all([victim, previous].filter((x) => x !== promoted).map(async (n) => (rejoined[n] = await rejoinNode(s!, n, { log, logFrom: logFrom.get(n) }))));
        },
      });
      const window = unavailability(api.attempts, load);
      log(`double failure: clients saw no success for ${(window.windowMs / 1000).toFixed(1)} s (${window.failedAttempts} failed attempts, retried); ${promoted} primary with a synchronous standby ${((backAt - load.faultAt) / 1000).toFixed(1)} s after the kill${window.tail}`);
      const totals = await verify({ name: 'double failure', s: s!, api, merchantId, load, receiver, stream, since });
      await rejoining;
      log(`double failure: ${JSON.stringify(rejoined)}`);
      await settled('double failure');
      return { ...totals, unavailable_s: window.windowMs / 1000, last_client_after_s: window.tailMs / 1000, primary_back_after_s: (backAt - load.faultAt) / 1000, promoted, rejoined, formation: await formationText() };
    });

    // 3. the monitor down during a failover: the primary's data node killed, and the monitor killed as
    // soon as it has assigned the new primary `wait_primary` (it then cannot tell it that the other
    // standby caught up); started again after MONITOR_DOWN_MS
    await scenario('monitor', 'monitor down during a failover', async () => {
      const since = new Date();
      const victim = (await primaryNode(s!))!;
      let monitorKilledAt = 0;
      let waitPrimary: string | null = null;
      let repair: 'rejoined' | 'repaired' | null = null;
      let rejoining: Promise<unknown> = Promise.resolve();
      const load = await runLoad({
        api, serviceUuid, cards, receiverUrl: receiver.url, plan: 'cluster-m', tag: 'mon', seconds: SHORT_SECONDS, faultAfterMs: 2000,
        fault: async () => {
          log(`kill -9 the primary's data node (${victim}), then the monitor once it assigns wait_primary`);
          killNode(s!, victim);
          const killedAt = Date.now();
          await waitFor('a node assigned wait_primary', async () => {
            waitPrimary = (await formationState(s!)).find((n) => n.goal === 'wait_primary')?.name ?? null;
            return waitPrimary !== null;
          }, 120_000, 50);
          killMonitor(s!);
          monitorKilledAt = Date.now();
          log(`monitor killed ${((monitorKilledAt - killedAt) / 1000).toFixed(1)} s after the primary, ${waitPrimary} assigned wait_primary`);
          await sleep(MONITOR_DOWN_MS);
          log('monitor started again');
          restartMonitor(s!);
          await waitFor('a primary with a secondary', async () => (await formationState(s!)).some((n) => n.reported === 'primary' && n.goal === 'primary'), 120_000);
          rejoining = rejoinNode(s!, victim, { log }).then((r) => (repair = r));
        },
      });
      const window = unavailability(api.attempts, load);
      log(`monitor down: clients saw no success for ${(window.windowMs / 1000).toFixed(1)} s (${window.failedAttempts} failed attempts, retried)${window.tail}`);
      const totals = await verify({ name: 'monitor down during a failover', s: s!, api, merchantId, load, receiver, stream, since });
      // the old primary rejoins while the next scenario runs (it needs no third data node); checked after it
      afterNext = async () => {
        await rejoining;
        log(`monitor down: ${victim} ${repair}`);
        await settled('monitor down during a failover');
      };
      return { ...totals, unavailable_s: window.windowMs / 1000, last_client_after_s: window.tailMs / 1000, wait_primary: waitPrimary, monitor_down_s: MONITOR_DOWN_MS / 1000, [victim]: repair, formation: await formationText() };
    });

    // 4. a gateway node, kill -9
    await scenario('gateway', 'gateway node lost', async () => {
      const since = new Date();
      const victim = 2;
      const load = await runLoad({
        api, serviceUuid, cards, receiverUrl: receiver.url, plan: 'cluster-m', tag: 'gw', seconds: SHORT_SECONDS, faultAfterMs: 2000, afterFault: false,
        fault: async () => {
          log(`kill -9 gateway node ${victim}`);
          killGatewayNode(s!, victim);
        },
      });
      const window = unavailability(api.attempts, load);
      log(`gateway node lost: clients saw no success for ${(window.windowMs / 1000).toFixed(1)} s (${window.failedAttempts} failed attempts, retried)${window.tail}`);
      const totals = await verify({ name: 'gateway node lost', s: s!, api, merchantId, load, receiver, stream, since });
      await startGatewayNode(s!, victim);
      check((await fetch(`${s!.gateways[victim - 1].url}/readyz`)).status === 200, 'gateway node lost: the node started again is ready');
      return { ...totals, unavailable_s: window.windowMs / 1000, last_client_after_s: window.tailMs / 1000 };
    });

    // 5. the proxy that holds the floating address: its HAProxy killed with -9 (keepalived on that machine
    // sees it fail its check and gives the address up; the other machine takes it over)
    await scenario('proxy', 'proxy lost', async () => {
      const since = new Date();
      const holder = vipHolder(s!)!;
      let movedAt = 0;
      let newHolder: string | null = null;
      const load = await runLoad({
        api, serviceUuid, cards, receiverUrl: receiver.url, plan: 'cluster-m', tag: 'lb', seconds: SHORT_SECONDS, faultAfterMs: 2000, afterFault: false,
        fault: async () => {
          log(`kill -9 the HAProxy of ${holder}, which holds the floating address`);
          killProxy(s!, holder, 'haproxy');
          const t0 = Date.now();
          await waitFor('the floating address to move', async () => {
            newHolder = vipHolder(s!);
            return newHolder !== null && newHolder !== holder;
          }, 30_000, 50);
          movedAt = Date.now();
          log(`the floating address moved to ${newHolder} ${((movedAt - t0) / 1000).toFixed(1)} s after the kill`);
        },
      });
      const window = unavailability(api.attempts, load);
      const firstOkAfterMove = api.attempts.filter((a) => a.ok && a.at >= movedAt).sort((x, y) => x.at - y.at)[0]?.at;
      log(`proxy lost: clients saw no success for ${(window.windowMs / 1000).toFixed(1)} s (${window.failedAttempts} failed attempts, retried); first success ${firstOkAfterMove ? ((firstOkAfterMove - movedAt) / 1000).toFixed(1) : '-'} s after the address moved${window.tail}`);
      check(newHolder !== null && newHolder !== holder, `proxy lost: the floating address moved to the other proxy machine (${newHolder})`);
      check(window.windowMs < 15_000, `proxy lost: traffic continued through the other proxy (no success for ${(window.windowMs / 1000).toFixed(1)} s)`);
      const totals = await verify({ name: 'proxy lost', s: s!, api, merchantId, load, receiver, stream, since });
      // the HAProxy started again: its machine is the backup now (nopreempt), the address stays
      await startProxyHaproxy(s!, holder);
      await sleep(3000);
      check(vipHolder(s!) === newHolder, `proxy lost: HAProxy on ${holder} started again; the address stays on ${newHolder} (${vipHolder(s!)})`);
      return { ...totals, unavailable_s: window.windowMs / 1000, last_client_after_s: window.tailMs / 1000, address_moved_after_s: (movedAt - load.faultAt) / 1000, from: holder, to: newHolder };
    });

    await (afterNext as (() => Promise<void>) | null)?.();
    await stream.close();
    await durability.stop();

    // nothing acknowledged while the primary had no synchronous standby (PAYGATE_REQUIRE_SYNC_STANDBY)
    {
      const windows = durability.windows();
      const gaps = durability.samples.slice(1).map((x, i) => x.start - durability.samples[i].start);
      const unknown = durability.samples.filter((x) => x.unknown).length;
      const resolution = `${durability.samples.length} samples, every ${Math.round(gaps.reduce((a, b) => a + b, 0) / Math.max(1, gaps.length))} ms on average, at most ${Math.max(0, ...gaps)} ms apart; ${unknown} unknown`;
      log(`durability sampling: ${resolution}`);
      const maxGap = Math.max(0, ...gaps);
      check(maxGap <= 3000, `the data nodes were sampled throughout (at most ${maxGap} ms between two samples)`);
      const durabilityResults: Record<string, unknown> = {};
      for (const p of periods) {
        const ws = windows.filter((w) => w.first.start >= p.from && w.first.start <= p.to);
        const acks = api.acks.filter((a) => a.at >= p.from && a.sent <= p.to);
        const { certain, edge } = acknowledgedWithoutStandby(acks, ws);
        const seen = ws.reduce((t, w) => t + (w.last.end - w.first.start), 0);
        const alone = ws.filter((w) => w.alone).reduce((t, w) => t + (w.last.end - w.first.start), 0);
        const timeline = durability.formation.filter((f) => f.at >= p.from && f.at <= p.to).filter((f, i, all) => i === 0 || f.states !== all[i - 1].states);
        for (const f of timeline) log(`${p.name}: ${new Date(f.at).toISOString().slice(11, 23)} ${f.states}`);
        for (const w of ws) log(`${p.name}: no synchronous standby from ${new Date(w.first.start).toISOString().slice(11, 23)} for ${((w.last.end - w.first.start) / 1000).toFixed(2)} s${w.alone ? ' (alone: synchronous_standby_names empty)' : ''}: ${w.nodes}`);
        log(`${p.name}: ${ws.length} window(s) without a synchronous standby, ${(seen / 1000).toFixed(1)} s (alone ${(alone / 1000).toFixed(1)} s); ${acks.length} writes acknowledged, ${certain.length} inside a window, ${edge.length} at its edges (within the sampling resolution)`);
        for (const c of certain.slice(0, 5)) log(`  acknowledged without a synchronous standby: POST ${c.path} ${c.status} sent ${new Date(c.sent).toISOString().slice(11, 23)} answered ${new Date(c.at).toISOString().slice(11, 23)} (${c.window.nodes})`);
        check(certain.length === 0, `${p.name}: no write acknowledged while the primary had no synchronous standby (${certain.length} of ${acks.length}; windows: ${ws.length}, ${(seen / 1000).toFixed(1)} s)`);
        durabilityResults[p.name] = { windows: ws.length, without_standby_s: seen / 1000, alone_s: alone / 1000, acknowledged: acks.length, acknowledged_without_standby: certain.length, at_the_edges: edge.length };
      }
      results.durability = { sampling: resolution, ...durabilityResults };
    }
    log(`formation at the end: ${await formationText()} settled=${await formationSettled(s).catch(() => false)}`);
  } catch (err) {
    failures.push(`the test could not run to the end: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    log(failures.at(-1)!);
    if (s) for (const f of ['gateway1.log', 'gateway2.log', 'haproxy-lb1.log', 'haproxy-lb2.log', 'keepalived-lb1.log', 'keepalived-lb2.log', 'node1.log', 'node2.log', 'node3.log', 'monitor.log']) {
      try {
        log(`${f} (tail):\n${fs.readFileSync(path.join(s.dir, 'logs', f), 'utf8').split('\n').slice(-20).join('\n')}`);
      } catch {
        // no such log
      }
    }
  } finally {
    if (process.env.CLUSTER_TEST_LOGS && s) {
      // every process's log, kept for whoever looks into a failure (the cluster's directory is removed)
      fs.cpSync(path.join(s.dir, 'logs'), process.env.CLUSTER_TEST_LOGS, { recursive: true });
      log(`logs copied to ${process.env.CLUSTER_TEST_LOGS}`);
    }
    const stopping = Date.now();
    await stopCluster(DIR, { immediate: true }).catch((e) => log(`stop failed: ${e}`));
    log(`cluster stopped in ${((Date.now() - stopping) / 1000).toFixed(1)} s`);
    await receiver.close();
    await agent.destroy();
  }
  log(`results: ${JSON.stringify(results)}`);
  if (process.env.CLUSTER_TEST_JSON) fs.writeFileSync(process.env.CLUSTER_TEST_JSON, JSON.stringify(results, null, 2));
  // the failed checks again at the very end, where a truncated CI log still shows them
  for (const f of failures) log(`failed: ${f.split('\n')[0].slice(0, 400)}`);
  log(`${failures.length === 0 ? 'PASSED' : `FAILED (${failures.length})`} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return failures.length === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});