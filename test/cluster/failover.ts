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
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Agent, request } from 'undici';
import { SseParser } from '../../src/cli/listen.js';
import { TEST_CARDS } from '../../src/processors/index.js';
import {
  checkRequirements,
  ensureRequirements,
  formationSettled,
  formationState,
  killGatewayNode,
  killMonitor,
  killNode,
  killProxy,
  numberSyncStandbys,
  primaryNode,
  rejoinNode,
  restartMonitor,
  restartNode,
  startProxyHaproxy,
  vipHolder,
  startCluster,
  startGatewayNode,
  stopCluster,
  type ClusterState,
} from '../../scripts/cluster/topology.js';

/** Load per scenario (at least: it goes on until LOAD_AFTER_FAULT_MS after the fault's recovery). */
const SECONDS = Number(process.env.CLUSTER_TEST_SECONDS ?? 8);
const SHORT_SECONDS = Math.max(5, Math.round(SECONDS * 0.75));
const LOAD_AFTER_FAULT_MS = 3000;
/** How long the monitor stays down in scenario 3. */
const MONITOR_DOWN_MS = 4000;
const ALL_SCENARIOS = ['primary', 'double', 'monitor', 'gateway', 'proxy'];
const SCENARIOS = (process.env.CLUSTER_TEST_SCENARIOS ?? ALL_SCENARIOS.join(',')).split(',').map((x) => x.trim()).filter((x) => ALL_SCENARIOS.includes(x));
const CLIENTS = 16;
const BASE_PORT = Number(process.env.PAYGATE_CLUSTER_BASE_PORT ?? 5650);
const DIR = path.join(os.tmpdir(), `paygate-cluster-test-${process.pid}`);
const REFUND = 300;

const T0 = Date.now();
// the test's own event loop must keep time: its clients, its sampling (reported when it did not)
{
  let last = performance.now();
  setInterval(() => {
    const lag = performance.now() - last - 500;
    if (lag > 1000) process.stdout.write(`[cluster test] the test process's event loop was blocked for ${(lag / 1000).toFixed(1)} s\n`);
    last = performance.now();
  }, 500).unref();
}
const log = (line: string) => process.stdout.write(`[cluster test ${((Date.now() - T0) / 1000).toFixed(1).padStart(5)} s] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor(what: string, fn: () => Promise<boolean>, ms: number, every = 200): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await fn().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(every);
  }
}
const failures: string[] = [];
function check(ok: boolean, what: string): void {
  if (!ok) failures.push(what);
  log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
}

// ---- the notification receiver ----------------------------------------------------------------------

interface Notification {
  event: string;
  path: string;
  body: string;
}
async function startReceiver() {
  const received: Notification[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ event: String(req.headers['paygate-event'] ?? ''), path: req.url ?? '/', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('OK');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

// ---- the API client: retries with the same Idempotency-Key ---------------------------------------------

const agent = new Agent({ connections: CLIENTS * 2, keepAliveTimeout: 10_000 });

interface Attempt {
  sent: number;
  at: number;
  ok: boolean;
  /** The answer's status, or the error of a lost connection. */
  outcome: string;
  path: string;
}

/** A write the gateway acknowledged (2xx): when the attempt was sent and when its answer arrived. */
interface Ack {
  sent: number;
  at: number;
  path: string;
  status: number;
}

class Api {
  readonly attempts: Attempt[] = [];
  /** Calls still going on (retrying), for the progress report. */
  readonly inFlight = new Set<{ path: string; since: number; tries: number; last: string }>();
  /** Every acknowledged write (POST answered 2xx), whole run. */
  readonly acks: Ack[] = [];
  constructor(
    readonly base: string,
    readonly creds: { api_key: string; signature: string },
  ) {}

  /** One attempt: its answer, or null when the connection was lost (`error` says how). */
  async once(method: 'GET' | 'POST', p: string, body?: Record<string, unknown>, key?: string): Promise<{ sent: number; error: string; r: { status: number; body: any; requestId: string } | null }> {
    const sent = Date.now();
    try {
      const res = await request(`${this.base}/v1/sandbox${p}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${this.creds.api_key}:`).toString('base64')}`,
          'content-type': 'application/json',
          ...(key ? { 'idempotency-key': key } : {}),
        },
        body: body ? JSON.stringify({ signature: this.creds.signature, ...body }) : undefined,
        dispatcher: agent,
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
      const text = await res.body.text();
      let parsed: any = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = { unparsed: text.slice(0, 200) };
      }
      if (method === 'POST' && res.statusCode >= 200 && res.statusCode < 300) this.acks.push({ sent, at: Date.now(), path: p, status: res.statusCode });
      return { sent, error: '', r: { status: res.statusCode, body: parsed, requestId: String(res.headers['x-request-id'] ?? '') } };
    } catch (err) {
      // the connection was lost: the outcome is unknown
      return { sent, error: err instanceof Error ? ((err as { code?: string }).code ?? err.message) : String(err), r: null };
    }
  }

  /** A request retried with the same key until it has a final answer (or `deadlineMs` passes). */
  async call(method: 'GET' | 'POST', p: string, body?: Record<string, unknown>, key?: string, deadlineMs = 90_000) {
    const end = Date.now() + deadlineMs;
    let delay = 100;
    let tries = 0;
    const nonEnvelope: string[] = [];
    const me = { path: `${method} ${p}`, since: Date.now(), tries: 0, last: '' };
    // every attempt of this call (for the diagnosis of a failed check)
    const history: string[] = [];
    this.inFlight.add(me);
    try {
      for (;;) {
        tries++;
        me.tries = tries;
        const { sent, error, r } = await this.once(method, p, body, key);
        me.last = r ? String(r.status) : error;
        history.push(`${new Date(sent).toISOString().slice(11, 23)}-${new Date().toISOString().slice(17, 23)} ${r ? `${r.status} ${r.requestId.slice(0, 8)}${r.status >= 300 ? ` ${String(r.body?.details ?? '').slice(0, 60)}` : ''}` : error}`);
        // 409 of a key still in flight: wait for it. 409 of a key whose request was carried out but whose
        // answer was lost: final (the outcome is on the order, settled by the reconciler)
        const lost = r !== null && r.status === 409 && /answer was lost/.test(String(r.body?.details ?? ''));
        const retry = r === null || r.status === 502 || r.status === 503 || r.status === 504 || (r.status === 409 && !lost && (key !== undefined || method === 'GET'));
        this.attempts.push({ sent, at: Date.now(), ok: !retry, outcome: r ? String(r.status) : error, path: `${method} ${p}` });
        if (r && r.status >= 500 && !(r.body && typeof r.body.code === 'number' && typeof r.body.current_time === 'string' && typeof r.body.details === 'string')) {
          nonEnvelope.push(`${r.status} ${JSON.stringify(r.body).slice(0, 120)}`);
        }
        if (!retry || Date.now() > end) return { status: r?.status ?? 0, body: r?.body ?? null, tries, nonEnvelope, lost, history };
        await sleep(delay);
        delay = Math.min(1000, delay * 2);
      }
    } finally {
      this.inFlight.delete(me);
    }
  }
}

// ---- readiness sampling --------------------------------------------------------------------------------

function sampleReadiness(s: ClusterState) {
  const samples: Array<{ at: number; node: number; status: number }> = [];
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      await Promise.all(
        s.gateways.map(async (g) => {
          const status = await fetch(`${g.url}/readyz`, { signal: AbortSignal.timeout(3000) }).then((r) => r.status, () => 0);
          samples.push({ at: Date.now(), node: g.n, status });
        }),
      );
      await sleep(250);
    }
  })();
  return { samples, stop: async () => ((stop = true), await loop) };
}

// ---- what the primary had: sampled on every data node, directly -----------------------------------------

/**
 * One sample of every data node, asked directly (not through the proxies): whether it takes writes (not in
 * recovery, not read-only), its synchronous_standby_names, and how many synchronous standbys stream from it
 * (pg_stat_replication, sync_state sync or quorum, state streaming). `start`/`end` bound the moment each
 * node answered. A node that refuses the connection is down (it cannot commit); one that does not answer
 * within the timeout makes the sample unknown.
 */
interface DurabilitySample {
  start: number;
  end: number;
  /** A node took writes with no synchronous standby streaming from it. */
  exposed: boolean;
  /** ... and its synchronous_standby_names was empty: it acknowledged commits alone (wait_primary). */
  alone: boolean;
  unknown: boolean;
  nodes: string;
}

interface ExposureWindow {
  /** First and last sample that saw it. */
  first: DurabilitySample;
  last: DurabilitySample;
  /** The samples around it that did not (null: none, or unknown). */
  before: DurabilitySample | null;
  after: DurabilitySample | null;
  alone: boolean;
  nodes: string;
}

function sampleDurability(s: ClusterState, everyMs = 100) {
  const samples: DurabilitySample[] = [];
  const formation: Array<{ at: number; states: string }> = [];
  const clients = new Map<string, pg.Client>();
  let stop = false;
  const client = async (name: string, port: number) => {
    let c = clients.get(name);
    if (!c) {
      c = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/paygate`, connectionTimeoutMillis: 1000, query_timeout: 1000, application_name: 'failover-test-sampler' });
      c.on('error', () => clients.delete(name));
      clients.set(name, c);
      try {
        await c.connect();
      } catch (err) {
        clients.delete(name);
        c.end().catch(() => {});
        throw err;
      }
    }
    return c;
  };
  const one = async (n: ClusterState['nodes'][number]) => {
    try {
      const c = await client(n.name, n.port);
      const { rows } = await c.query<{ writable: boolean; names: string; synced: number }>(
        `select not pg_is_in_recovery() and not current_setting('transaction_read_only')::bool as writable, current_setting('synchronous_standby_names') as names,
           (select count(*) from pg_stat_replication where sync_state in ('sync', 'quorum') and state = 'streaming')::int as synced`);
      return { name: n.name, ...rows[0], state: 'up' as const };
    } catch (err) {
      const c = clients.get(n.name);
      clients.delete(n.name);
      c?.end().catch(() => {});
      const msg = err instanceof Error ? err.message : String(err);
      // refused or reset: nothing runs there, or it is starting or stopping (it commits nothing)
      const down = /ECONNREFUSED|ECONNRESET|starting up|shutting down|terminating connection|Connection terminated|not yet accepting|in recovery mode/i.test(msg);
      return { name: n.name, writable: false, names: '', synced: 0, state: down ? ('down' as const) : ('unknown' as const) };
    }
  };
  let lastFormation = 0;
  const loop = (async () => {
    while (!stop) {
      const start = Date.now();
      const rows = await Promise.all(s.nodes.map(one));
      const end = Date.now();
      const bad = rows.filter((r) => r.writable && r.synced === 0);
      samples.push({
        start, end,
        exposed: bad.length > 0,
        alone: bad.some((r) => r.names.trim() === ''),
        unknown: rows.some((r) => r.state === 'unknown'),
        nodes: rows.map((r) => `${r.name}:${r.state === 'up' ? `${r.writable ? 'rw' : 'ro'}${r.writable ? ` sync=${r.synced}${r.names.trim() === '' ? ' alone' : ''}` : ''}` : r.state}`).join(' '),
      });
      if (end - lastFormation >= 200) {
        lastFormation = end;
        // the monitor's view, for the report (it may be down: then nothing is recorded)
        formationState(s).then(
          (f) => formation.push({ at: Date.now(), states: f.map((n) => `${n.name}:${n.reported}/${n.goal}`).join(' ') }),
          () => {},
        );
      }
      await sleep(Math.max(0, everyMs - (Date.now() - start)));
    }
  })();

  /** The windows in which a node took writes without a synchronous standby, from the samples. */
  const windows = (): ExposureWindow[] => {
    const out: ExposureWindow[] = [];
    let cur: ExposureWindow | null = null;
    for (let i = 0; i < samples.length; i++) {
      const x = samples[i];
      if (x.exposed) {
        if (!cur) cur = { first: x, last: x, before: i > 0 && !samples[i - 1].unknown ? samples[i - 1] : null, after: null, alone: x.alone, nodes: x.nodes };
        else cur.last = x;
        cur.alone ||= x.alone;
      } else if (cur) {
        cur.after = x.unknown ? null : x;
        out.push(cur);
        cur = null;
      }
    }
    if (cur) out.push(cur);
    return out;
  };
  return {
    samples,
    formation,
    windows,
    stop: async () => {
      stop = true;
      await loop;
      for (const c of clients.values()) await c.end().catch(() => {});
    },
  };
}

/**
 * Acknowledged writes against the windows. `certain`: the write was sent after a sample had seen the
 * window and answered before a later sample still saw it (its commit happened inside: [first.end,
 * last.start]), so it was acknowledged while its primary had no synchronous standby, unless the state
 * changed and changed back between two samples (the sampling interval, ~100 ms, is the resolution).
 * `edge`: the write overlaps the window only within the sampling resolution (it may have committed just
 * before the window opened or just after it closed): reported, not counted as a failure.
 */
function acknowledgedWithoutStandby(acks: Ack[], windows: ExposureWindow[]) {
  const certain: Array<Ack & { window: ExposureWindow }> = [];
  const edge: Array<Ack & { window: ExposureWindow }> = [];
  for (const a of acks) {
    for (const w of windows) {
      if (a.sent >= w.first.end && a.at <= w.last.start) {
        certain.push({ ...a, window: w });
        break;
      }
      const from = w.before?.start ?? w.first.start;
      const to = w.after?.end ?? w.last.end;
      if (a.at > from && a.sent < to) {
        edge.push({ ...a, window: w });
        break;
      }
    }
  }
  return { certain, edge };
}

// ---- an event stream that reconnects by itself (as `paygate listen` does) --------------------------------

function followStream(base: string, apiKey: string) {
  const ids = new Set<string>();
  let lastId: string | undefined;
  let reconnects = 0;
  const ctl = new AbortController();
  const streamAgent = new Agent({ pipelining: 0 });
  const done = (async () => {
    while (!ctl.signal.aborted) {
      try {
        const res = await request(`${base}/v1/sandbox/events/stream`, {
          headers: { authorization: `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
          signal: ctl.signal,
          dispatcher: streamAgent,
          bodyTimeout: 40_000,
        });
        if (res.statusCode !== 200) {
          await res.body.text().catch(() => '');
          throw new Error(`HTTP ${res.statusCode}`);
        }
        const parser = new SseParser();
        const decoder = new TextDecoder();
        for await (const chunk of res.body) {
          for (const m of parser.push(decoder.decode(chunk as Uint8Array, { stream: true }))) {
            if (m.id) lastId = m.id;
            if (m.event !== 'ready') ids.add(JSON.parse(m.data).uuid);
          }
        }
      } catch {
        // dropped (a node died, the proxy closed it): reconnect from the last event seen
      }
      if (ctl.signal.aborted) break;
      reconnects++;
      await sleep(500);
    }
  })();
  return { ids, reconnects: () => reconnects, close: async () => (ctl.abort(), await done.catch(() => {}), await streamAgent.destroy().catch(() => {})) };
}

// ---- reads from a standby -------------------------------------------------------------------------------

/** Waits until every gateway node's API process sends lists to the standby (its metrics say so). */
async function readsOnStandby(s: ClusterState, ms = 30_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  let states: string[] = [];
  while (Date.now() < deadline) {
    states = await Promise.all(
      s.gateways.map(async (g) => {
        const text = await fetch(`${g.url}/metrics`).then((r) => r.text(), () => '');
        const inUse = /^paygate_read_standby_in_use (\d)/m.exec(text)?.[1] ?? '?';
        const stale = /^paygate_read_standby_staleness_seconds (\S+)/m.exec(text)?.[1] ?? '-';
        return `node ${g.n}: standby ${inUse === '1' ? 'in use' : 'not in use'}, at most ${stale} s behind`;
      }),
    );
    if (states.every((x) => x.includes('standby in use'))) break;
    await sleep(500);
  }
  return states;
}

// ---- the load ------------------------------------------------------------------------------------------

interface OrderRecord {
  uuid: string;
  client: number;
  payAck: boolean;
  payStatus: number;
  refundAck: boolean;
  refundStatus: number | null;
  /** The attempts of the payment and of the refund (for the diagnosis of a failed check). */
  history: string[];
  key: string;
}
interface SubscriptionRecord {
  key: string;
  history: string[];
  customer: string;
  ack: boolean;
  status: number;
  id: string | null;
}

async function runLoad(opts: {
  api: Api;
  serviceUuid: string;
  cards: string[];
  receiverUrl: string;
  plan: string;
  tag: string;
  seconds: number;
  /** Called once, mid-load; returns when the fault has been injected (and, for a failover, undone). */
  fault: () => Promise<void>;
  faultAfterMs: number;
  /** Go on for LOAD_AFTER_FAULT_MS after `fault` returned (the formation is back: its first seconds are loaded too). */
  afterFault?: boolean;
}) {
  const orders: OrderRecord[] = [];
  const subscriptions: SubscriptionRecord[] = [];
  const unresolved: string[] = [];
  const lostAnswers: string[] = [];
  const nonEnvelope: string[] = [];
  const end = Date.now() + opts.seconds * 1000;
  let faultAt = 0;
  // the clients go on until the planned end, and until LOAD_AFTER_FAULT_MS after the fault's function
  // returned (it returns once the formation is back): the load covers the whole disturbance
  let faultDoneAt = Infinity;
  const fault = (async () => {
    await sleep(opts.faultAfterMs);
    faultAt = Date.now();
    try {
      await opts.fault();
    } finally {
      faultDoneAt = Date.now();
    }
  })();
  const after = opts.afterFault === false ? 0 : LOAD_AFTER_FAULT_MS;
  const going = () => Date.now() < end || Date.now() < faultDoneAt + after;
  // after the planned end, what the clients still wait for (every 5 s)
  let clientsLeft = CLIENTS;
  let firstDoneAt: number | undefined;
  const progress = setInterval(() => {
    if (going() || Date.now() < Math.max(end, faultDoneAt + after) + 4000) return;
    const calls = [...opts.api.inFlight].map((x) => `${x.path} ${((Date.now() - x.since) / 1000).toFixed(0)} s, ${x.tries} tries, last ${x.last || 'in flight'}`);
    log(`${opts.tag}: ${clientsLeft} client(s) still going: ${calls.slice(0, 4).join('; ')}`);
  }, 5000);
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = 0; going(); i++) {
        const id = `${opts.tag}-${c}-${i}`;
        if (i % 4 === 3) {
          // the client's customer, whose stored card pays it
          const customer = `customer-${c}`;
          const r = await opts.api.call('POST', '/subscriptions/subscription', {
            plan: opts.plan, customer, payment_attempts_limit: 1, additional_data: { source_uuid: opts.cards[c], service: opts.serviceUuid },
          }, `s-${id}`);
          nonEnvelope.push(...r.nonEnvelope);
          subscriptions.push({ key: `s-${id}`, history: r.history, customer, ack: r.status === 200, status: r.status, id: r.body?.subscription ?? null });
          if (r.lost) lostAnswers.push(`subscription ${customer}`);
          else if (r.status !== 200) unresolved.push(`subscription ${customer}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
          continue;
        }
        const created = await opts.api.call('POST', '/payment', {
          amount: 1000 + i, operative: 'AUTHORIZATION', secure: false, description: `cluster ${id}`, service: opts.serviceUuid,
          customer_ext_id: `customer-${c}`, reference: id, url_post: `${opts.receiverUrl}/n`,
        }, `o-${id}`);
        nonEnvelope.push(...created.nonEnvelope);
        if (created.status !== 200) {
          if (created.lost || (created.status === 409 && /already exists/.test(String(created.body?.details)))) {
            // the order was created but the answer was lost (its node died): the key (or, for an order
            // created before keys were marked, its reference) keeps it from being created twice
            lostAnswers.push(`create ${id}`);
            continue;
          }
          unresolved.push(`create ${id}: ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`);
          continue;
        }
        const uuid: string = created.body.order.uuid;
        const paid = await opts.api.call('POST', '/payment/direct', { order_uuid: uuid, card_uuid: opts.cards[c] }, `p-${id}`);
        nonEnvelope.push(...paid.nonEnvelope);
        const rec: OrderRecord = { uuid, client: c, payAck: paid.status === 200 && paid.body?.order?.status === 'SUCCESS', payStatus: paid.status, refundAck: false, refundStatus: null, key: id, history: paid.history.map((h) => `pay ${h}`) };
        orders.push(rec);
        // an answer lost after the payment was carried out (409), or a retry that finds it done (400): the
        // outcome is on the order (checked below), not an error of the test
        if (paid.lost || (paid.status === 400 && /cannot be paid/.test(String(paid.body?.details)))) lostAnswers.push(`pay ${id}`);
        else if (paid.status !== 200) unresolved.push(`pay ${id}: ${paid.status} ${JSON.stringify(paid.body).slice(0, 200)}`);
        if (rec.payAck && i % 2 === 0) {
          const refunded = await opts.api.call('POST', '/payment/refund', { order_uuid: uuid, amount: REFUND }, `r-${id}`);
          nonEnvelope.push(...refunded.nonEnvelope);
          rec.refundStatus = refunded.status;
          rec.history.push(...refunded.history.map((h) => `refund ${h}`));
          rec.refundAck = refunded.status === 200;
          if (refunded.lost) lostAnswers.push(`refund ${id}`);
          else if (refunded.status !== 200) unresolved.push(`refund ${id}: ${refunded.status} ${JSON.stringify(refunded.body).slice(0, 200)}`);
        }
      }
      clientsLeft--;
      firstDoneAt ??= Date.now();
    }),
  );
  clearInterval(progress);
  await fault;
  const finishedAt = Date.now();
  return { orders, subscriptions, unresolved, lostAnswers, nonEnvelope, faultAt, end, finishedAt, firstDoneAt: firstDoneAt ?? finishedAt };
}

/**
 * The longest time, from the fault on, during which no request of any client succeeded (a failed attempt
 * is retried: 502/503, 409 of a key in flight, a lost connection), while every client was still going
 * (until the first one was done: they go on retrying until the service is back). `tailMs`: how much
 * longer the last client took (a request whose key stays locked until its lock lapses, 60 s, when the
 * request that held it died).
 */
function unavailability(attempts: Attempt[], load: { faultAt: number; firstDoneAt: number; finishedAt: number }) {
  const { faultAt } = load;
  const after = attempts.filter((a) => a.at >= faultAt && a.at <= load.firstDoneAt).sort((x, y) => x.at - y.at);
  const oks = [faultAt, ...after.filter((a) => a.ok).map((a) => a.at)];
  let windowMs = 0;
  let from = faultAt;
  for (let i = 1; i < oks.length; i++) {
    if (oks[i] - oks[i - 1] > windowMs) {
      windowMs = oks[i] - oks[i - 1];
      from = oks[i - 1];
    }
  }
  const tailMs = load.finishedAt - load.firstDoneAt;
  return { windowMs, startsAfterFaultMs: from - faultAt, failedAttempts: after.filter((a) => !a.ok).length, tailMs, tail: tailMs > 5000 ? `; the last client finished ${(tailMs / 1000).toFixed(1)} s after the first (a key locked by a request that died)` : '' };
}

// ---- the checks ------------------------------------------------------------------------------------------

async function verify(opts: {
  name: string;
  s: ClusterState;
  api: Api;
  merchantId: string;
  load: Awaited<ReturnType<typeof runLoad>>;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  stream: ReturnType<typeof followStream>;
  since: Date;
}) {
  const { s, load } = opts;
  const db = new pg.Client({ connectionString: s.databaseUrl });
  await db.connect();
  try {
    // reconciliation: no transaction PENDING, no order waiting for its processor
    const deadline = Date.now() + 60_000;
    let pending = -1;
    while (Date.now() < deadline) {
      const { rows } = await db.query(`select count(*)::int as n from transactions where merchant_id = $1 and status = 'PENDING'`, [opts.merchantId]);
      pending = rows[0].n;
      if (pending === 0) break;
      await sleep(500);
    }
    check(pending === 0, `${opts.name}: no transaction PENDING after reconciliation (${pending} left)`);
    const { rows: stuck } = await db.query(`select count(*)::int as n from orders where merchant_id = $1 and status = 'PENDING_PROCESSOR_RESPONSE'`, [opts.merchantId]);
    check(stuck[0].n === 0, `${opts.name}: no order waiting for its processor (${stuck[0].n})`);

    // what the simulator did, and what the database says
    const ops = ((await (await fetch(`${s.simulatorUrl}/operations`)).json()) as { operations: Array<{ operation: string; reference: string; outcome: string }> }).operations;
    const { rows: txs } = await db.query<{ id: string; order_id: string; operative: string; status: string; amount: number }>(
      `select id, order_id, operative, status, amount::int from transactions where merchant_id = $1 and created_at >= $2::timestamptz - interval '1 minute'`, [opts.merchantId, opts.since]);
    const mine = new Map(txs.map((t) => [t.id, t]));
    const myOps = ops.filter((o) => mine.has(o.reference));
    const calls = new Map<string, number>();
    for (const o of myOps) calls.set(o.reference, (calls.get(o.reference) ?? 0) + 1);
    const repeated = [...calls].filter(([, n]) => n > 1);
    check(repeated.length === 0, `${opts.name}: no processor operation sent twice (${repeated.length} repeated)`);
    const approved = new Set(myOps.filter((o) => o.outcome === 'APPROVED').map((o) => o.reference));
    const succeeded = new Set(txs.filter((t) => t.status === 'SUCCESS').map((t) => t.id));
    const chargedNotRecorded = [...approved].filter((id) => !succeeded.has(id));
    const recordedNotCharged = [...succeeded].filter((id) => !approved.has(id));
    check(chargedNotRecorded.length === 0, `${opts.name}: every operation the simulator approved is a successful transaction (${chargedNotRecorded.length} lost: ${chargedNotRecorded.slice(0, 3).map((id) => `${id} ${mine.get(id)?.status}`).join(', ')})`);
    check(recordedNotCharged.length === 0, `${opts.name}: every successful transaction was approved by the simulator (${recordedNotCharged.length} not)`);
    const chargesPerOrder = new Map<string, number>();
    for (const t of txs) if (t.operative === 'AUTHORIZATION' && approved.has(t.id)) chargesPerOrder.set(t.order_id, (chargesPerOrder.get(t.order_id) ?? 0) + 1);
    const twice = [...chargesPerOrder].filter(([, n]) => n > 1);
    check(twice.length === 0, `${opts.name}: no order charged twice on the simulator (${twice.length})`);

    // every acknowledged payment and refund exactly once
    const byOrder = new Map<string, typeof txs>();
    for (const t of txs) byOrder.set(t.order_id, [...(byOrder.get(t.order_id) ?? []), t]);
    const okPay = (uuid: string) => (byOrder.get(uuid) ?? []).filter((t) => t.operative === 'AUTHORIZATION' && t.status === 'SUCCESS').length;
    const okRefund = (uuid: string) => (byOrder.get(uuid) ?? []).filter((t) => t.operative === 'REFUND' && t.status === 'SUCCESS' && t.amount === REFUND).length;
    const acked = load.orders.filter((o) => o.payAck);
    const badPays = acked.filter((o) => okPay(o.uuid) !== 1);
    check(badPays.length === 0, `${opts.name}: each of ${acked.length} acknowledged payments is one successful charge (${badPays.length} not)`);
    const ackedRefunds = load.orders.filter((o) => o.refundAck);
    const badRefunds = ackedRefunds.filter((o) => okRefund(o.uuid) !== 1);
    check(badRefunds.length === 0, `${opts.name}: each of ${ackedRefunds.length} acknowledged refunds is one successful refund (${badRefunds.length} not)`);
    const extraRefunds = load.orders.filter((o) => okRefund(o.uuid) > 1);
    const twiceOver = [...badPays, ...badRefunds, ...extraRefunds.filter((o) => !badRefunds.includes(o))];
    for (const o of twiceOver.slice(0, 3)) {
      const keys = (await db.query(`select key, status, response_status, locked_until, created_at from idempotency_keys where merchant_id = $1 and key = any($2)`, [opts.merchantId, [`p-${o.key}`, `r-${o.key}`]])).rows;
      const rows = (byOrder.get(o.uuid) ?? []).map((t) => ({ id: t.id, operative: t.operative, status: t.status, amount: t.amount }));
      log(`${opts.name}: order ${o.uuid} (${o.key}): transactions ${JSON.stringify(rows)}; attempts ${JSON.stringify(o.history)}; keys ${JSON.stringify(keys)}`);
    }
    check(extraRefunds.length === 0, `${opts.name}: no order refunded twice (${extraRefunds.length})`);

    // subscriptions: one per acknowledged request, its first charge made once; none created twice (per
    // customer, no more subscriptions than requests, answered or not)
    const ackedSubs = load.subscriptions.filter((x) => x.ack);
    // a first charge the request could not finish (the database went away meanwhile) is made by its job
    let subs: Array<{ id: string; customer_ext_id: string; paid: number; statuses: string }> = [];
    let subById = new Map<string, (typeof subs)[number]>();
    let badSubs = ackedSubs;
    const subsUntil = Date.now() + 60_000;
    while (Date.now() < subsUntil) {
      subs = (await db.query<{ id: string; customer_ext_id: string; paid: number; statuses: string }>(
        `select s.id, s.customer_ext_id, count(p.id) filter (where p.status = 'PAID')::int as paid, string_agg(p.status, ',') as statuses
         from subscriptions s left join subscription_payments p on p.subscription_id = s.id
         where s.merchant_id = $1 and s.created_at >= $2::timestamptz group by s.id, s.customer_ext_id`, [opts.merchantId, opts.since])).rows;
      subById = new Map(subs.map((r) => [r.id, r]));
      badSubs = ackedSubs.filter((x) => !x.id || subById.get(x.id)?.paid !== 1);
      if (badSubs.length === 0) break;
      await sleep(500);
    }
    check(badSubs.length === 0, `${opts.name}: each of ${ackedSubs.length} acknowledged subscriptions exists with its first charge paid once (${badSubs.length} not${badSubs.length ? `: ${JSON.stringify(subById.get(badSubs[0].id ?? '') ?? badSubs[0])}` : ''})`);
    const requested = new Map<string, number>();
    for (const x of load.subscriptions) requested.set(x.customer, (requested.get(x.customer) ?? 0) + 1);
    const created = new Map<string, number>();
    for (const r of subs) created.set(r.customer_ext_id, (created.get(r.customer_ext_id) ?? 0) + 1);
    const tooMany = [...created].filter(([cust, n]) => n > (requested.get(cust) ?? 0));
    for (const [cust] of tooMany.slice(0, 2)) {
      const rows = (await db.query(`select id, created_at, status from subscriptions where merchant_id = $1 and customer_ext_id = $2 and created_at >= $3::timestamptz - interval '2 minutes' order by created_at`, [opts.merchantId, cust, opts.since])).rows;
      const mine = load.subscriptions.filter((x) => x.customer === cust);
      const keys = (await db.query(`select key, status, response_status, locked_until, created_at from idempotency_keys where merchant_id = $1 and key = any($2)`, [opts.merchantId, mine.map((x) => x.key)])).rows;
      log(`${opts.name}: ${cust}: requests ${JSON.stringify(mine)}; their keys ${JSON.stringify(keys)}; subscriptions ${JSON.stringify(rows)} (since ${opts.since.toISOString()})`);
    }
    check(tooMany.length === 0, `${opts.name}: no subscription created twice (${subs.length} created for ${load.subscriptions.length} requests; ${tooMany.length} customers with more than they asked for)`);
    const overPaid = subs.filter((r) => r.paid > 1);
    check(overPaid.length === 0, `${opts.name}: no subscription's first charge paid twice (${overPaid.length})`);

    // every notification delivered: each event of these orders and subscriptions reached the receiver
    let undelivered: string[] = [];
    let events: Array<{ id: string; status: string }> = [];
    const until = Date.now() + 60_000;
    while (Date.now() < until) {
      events = (await db.query<{ id: string; status: string }>(`select id, status from events where merchant_id = $1 and created_at >= $2::timestamptz - interval '1 minute'`, [opts.merchantId, opts.since])).rows;
      const got = new Set(opts.receiver.received.map((r) => r.event));
      undelivered = events.filter((e) => e.status !== 'DELIVERED' || !got.has(e.id)).map((e) => `${e.id} ${e.status}`);
      if (undelivered.length === 0) break;
      await sleep(500);
    }
    check(events.length > 0 && undelivered.length === 0, `${opts.name}: all ${events.length} notifications delivered (${undelivered.length} not: ${undelivered.slice(0, 3).join(', ')})`);
    // and streamed: the event stream resumed by itself and missed none
    let missing: string[] = [];
    const streamUntil = Date.now() + 30_000;
    while (Date.now() < streamUntil) {
      missing = events.filter((e) => !opts.stream.ids.has(e.id)).map((e) => e.id);
      if (missing.length === 0) break;
      await sleep(500);
    }
    check(missing.length === 0, `${opts.name}: the event stream carried all ${events.length} notifications (${missing.length} missing; it reconnected ${opts.stream.reconnects()} times)`);

    check(load.unresolved.length === 0, `${opts.name}: every request got a final answer with retries (${load.unresolved.length} not: ${load.unresolved.slice(0, 3).join(' | ')})`);
    check(load.nonEnvelope.length === 0, `${opts.name}: every error answer was in the contract's envelope (${load.nonEnvelope.length} not: ${load.nonEnvelope.slice(0, 2).join(' | ')})`);
    const totals = { orders: load.orders.length, lost_answers: load.lostAnswers.length, paid: acked.length, refunds: ackedRefunds.length, subscriptions: ackedSubs.length, notifications: events.length, duplicates: opts.receiver.received.length - new Set(opts.receiver.received.map((r) => r.event)).size };
    log(`${opts.name}: ${JSON.stringify(totals)}`);
    return totals;
  } finally {
    await db.end();
  }
}

// ---- main --------------------------------------------------------------------------------------------

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
  log(`${failures.length === 0 ? 'PASSED' : `FAILED (${failures.length})`} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return failures.length === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
