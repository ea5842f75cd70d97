/**
 * npm run test:cluster: the failover test on the reference topology (scripts/cluster: pg_auto_failover
 * with three data nodes and one synchronous standby required, HAProxy, the shared processor simulator,
 * 3 gateway nodes behind the HTTP load balancer).
 *
 * Two scenarios, each under load: 16 clients create orders, pay them with a stored card, refund half of
 * them and create subscriptions (whose first charge is made in the request) for a bounded time, every
 * request with an Idempotency-Key and retried with the same key on 502/503/409 or a lost connection,
 * as a merchant's client should. Mid-load:
 *   1. the primary's data node is killed with kill -9 (its keeper, PostgreSQL and every backend);
 *   2. a gateway node is killed with kill -9 (its API process and its worker).
 * Then, counted in the database and at the clients: every acknowledged payment and refund is there
 * exactly once; nothing was charged twice on the simulator and every charge it made is a successful
 * transaction (and the other way round); no transaction is left PENDING after reconciliation; every
 * notification was delivered (to the receiver, and on an event stream that reconnects by itself); and
 * the unavailability window seen by the clients is reported.
 *
 * The sandbox environment is used: the money path is the same code in both environments (the
 * environment is a column), the sandbox's processor is the simulator by design, and it answers plain
 * HTTP on loopback; production would add TLS and a second set of keys, which a failover does not touch.
 * The simulator runs as a service shared by every node (PAYGATE_SIMULATOR_URL), as a real processor
 * would be: it outlives the nodes, the reconciler on any node can ask it about a payment made by a node
 * that died, and its log of operations is what "charged" means below.
 *
 * When pg_auto_failover or HAProxy cannot be installed, the test is skipped with the reason (exit 0,
 * "SKIPPED" on stderr), except with CI=true and a working apt-get, where it must run.
 * Settings: CLUSTER_TEST_SECONDS (20 per scenario), PAYGATE_CLUSTER_BASE_PORT (5650).
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
  killNode,
  primaryNode,
  startCluster,
  startGatewayNode,
  stopCluster,
  type ClusterState,
} from '../../scripts/cluster/topology.js';

const SECONDS = Number(process.env.CLUSTER_TEST_SECONDS ?? 20);
const CLIENTS = 16;
const BASE_PORT = Number(process.env.PAYGATE_CLUSTER_BASE_PORT ?? 5650);
const DIR = path.join(os.tmpdir(), `paygate-cluster-test-${process.pid}`);
const REFUND = 300;

const log = (line: string) => process.stdout.write(`[cluster test] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
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
  at: number;
  ok: boolean;
}

class Api {
  readonly attempts: Attempt[] = [];
  constructor(
    readonly base: string,
    readonly creds: { api_key: string; signature: string },
  ) {}

  async once(method: 'GET' | 'POST', p: string, body?: Record<string, unknown>, key?: string): Promise<{ status: number; body: any } | null> {
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
      return { status: res.statusCode, body: parsed };
    } catch {
      return null; // the connection was lost: the outcome is unknown
    }
  }

  /** A request retried with the same key until it has a final answer (or `deadlineMs` passes). */
  async call(method: 'GET' | 'POST', p: string, body?: Record<string, unknown>, key?: string, deadlineMs = 90_000) {
    const end = Date.now() + deadlineMs;
    let delay = 100;
    let tries = 0;
    const nonEnvelope: string[] = [];
    for (;;) {
      tries++;
      const r = await this.once(method, p, body, key);
      // 409 of a key still in flight: wait for it. 409 of a key whose request was carried out but whose
      // answer was lost: final (the outcome is on the order, settled by the reconciler)
      const lost = r !== null && r.status === 409 && /answer was lost/.test(String(r.body?.details ?? ''));
      const retry = r === null || r.status === 502 || r.status === 503 || r.status === 504 || (r.status === 409 && !lost && (key !== undefined || method === 'GET'));
      this.attempts.push({ at: Date.now(), ok: !retry });
      if (r && r.status >= 500 && !(r.body && typeof r.body.code === 'number' && typeof r.body.current_time === 'string' && typeof r.body.details === 'string')) {
        nonEnvelope.push(`${r.status} ${JSON.stringify(r.body).slice(0, 120)}`);
      }
      if (!retry || Date.now() > end) return { status: r?.status ?? 0, body: r?.body ?? null, tries, nonEnvelope, lost };
      await sleep(delay);
      delay = Math.min(1000, delay * 2);
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
}
interface SubscriptionRecord {
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
  /** Called once, mid-load; returns when the fault has been injected. */
  fault: () => Promise<void>;
  faultAfterMs: number;
}) {
  const orders: OrderRecord[] = [];
  const subscriptions: SubscriptionRecord[] = [];
  const unresolved: string[] = [];
  const lostAnswers: string[] = [];
  const nonEnvelope: string[] = [];
  const end = Date.now() + opts.seconds * 1000;
  let faultAt = 0;
  const fault = (async () => {
    await sleep(opts.faultAfterMs);
    faultAt = Date.now();
    await opts.fault();
  })();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = 0; Date.now() < end; i++) {
        const id = `${opts.tag}-${c}-${i}`;
        if (i % 4 === 3) {
          // the client's customer, whose stored card pays it
          const customer = `customer-${c}`;
          const r = await opts.api.call('POST', '/subscriptions/subscription', {
            plan: opts.plan, customer, payment_attempts_limit: 1, additional_data: { source_uuid: opts.cards[c], service: opts.serviceUuid },
          }, `s-${id}`);
          nonEnvelope.push(...r.nonEnvelope);
          subscriptions.push({ customer, ack: r.status === 200, status: r.status, id: r.body?.subscription ?? null });
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
        const rec: OrderRecord = { uuid, client: c, payAck: paid.status === 200 && paid.body?.order?.status === 'SUCCESS', payStatus: paid.status, refundAck: false, refundStatus: null };
        orders.push(rec);
        // an answer lost after the payment was carried out (409), or a retry that finds it done (400): the
        // outcome is on the order (checked below), not an error of the test
        if (paid.lost || (paid.status === 400 && /cannot be paid/.test(String(paid.body?.details)))) lostAnswers.push(`pay ${id}`);
        else if (paid.status !== 200) unresolved.push(`pay ${id}: ${paid.status} ${JSON.stringify(paid.body).slice(0, 200)}`);
        if (rec.payAck && i % 2 === 0) {
          const refunded = await opts.api.call('POST', '/payment/refund', { order_uuid: uuid, amount: REFUND }, `r-${id}`);
          nonEnvelope.push(...refunded.nonEnvelope);
          rec.refundStatus = refunded.status;
          rec.refundAck = refunded.status === 200;
          if (refunded.lost) lostAnswers.push(`refund ${id}`);
          else if (refunded.status !== 200) unresolved.push(`refund ${id}: ${refunded.status} ${JSON.stringify(refunded.body).slice(0, 200)}`);
        }
      }
    }),
  );
  await fault;
  return { orders, subscriptions, unresolved, lostAnswers, nonEnvelope, faultAt, end };
}

/**
 * The longest time, from the fault on, during which no request of any client succeeded (a failed attempt
 * is retried: 502/503, 409 of a key in flight, a lost connection).
 */
function unavailability(attempts: Attempt[], faultAt: number, loadEnd: number) {
  const after = attempts.filter((a) => a.at >= faultAt && a.at <= loadEnd).sort((x, y) => x.at - y.at);
  const oks = [faultAt, ...after.filter((a) => a.ok).map((a) => a.at)];
  let windowMs = 0;
  let from = faultAt;
  for (let i = 1; i < oks.length; i++) {
    if (oks[i] - oks[i - 1] > windowMs) {
      windowMs = oks[i] - oks[i - 1];
      from = oks[i - 1];
    }
  }
  return { windowMs, startsAfterFaultMs: from - faultAt, failedAttempts: after.filter((a) => !a.ok).length };
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
    const reason = `the failover test needs ${req.missing.join('; ')}; install: apt-get install ${req.packages.join(' ')}`;
    if (ci && aptWorks) {
      process.stderr.write(`[cluster test] FAILED: apt-get is available but the packages could not be installed: ${reason}\n`);
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
        PAYGATE_SIMULATOR_LATENCY_MS: '20',
        PAYGATE_PROCESSOR_TIMEOUT_MS: '2000',
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

    // 1. the primary's data node, kill -9
    {
      const since = new Date();
      const readiness = sampleReadiness(s);
      const before = await primaryNode(s);
      let promotedAt = 0;
      let newPrimary: string | null = null;
      const load = await runLoad({
        api, serviceUuid, cards, receiverUrl: receiver.url, plan: 'cluster-m', tag: 'db', seconds: SECONDS, faultAfterMs: Math.min(6000, (SECONDS * 1000) / 3),
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
      const window = unavailability(api.attempts, load.faultAt, load.end);
      const firstOkAfterPromotion = api.attempts.filter((a) => a.ok && a.at >= promotedAt).sort((x, y) => x.at - y.at)[0]?.at;
      log(`primary failover: clients saw no success for ${(window.windowMs / 1000).toFixed(1)} s, from ${(window.startsAfterFaultMs / 1000).toFixed(1)} s after the kill (${window.failedAttempts} failed attempts, retried); the monitor promoted ${newPrimary} ${((promotedAt - load.faultAt) / 1000).toFixed(1)} s after the kill; first success ${firstOkAfterPromotion ? ((firstOkAfterPromotion - promotedAt) / 1000).toFixed(1) : '-'} s after the promotion`);
      check(newPrimary !== null && newPrimary !== before, `primary failover: a new primary was promoted (${newPrimary})`);
      check(firstOkAfterPromotion !== undefined && firstOkAfterPromotion - promotedAt < 10_000, 'primary failover: requests reach the new primary within seconds of its promotion');
      const down = readiness.samples.filter((x) => x.at > load.faultAt && x.at < promotedAt && x.status === 503);
      const last = s.gateways.map((g) => readiness.samples.filter((x) => x.node === g.n).at(-1)?.status);
      check(down.length > 0, `primary failover: /readyz answered 503 while there was no primary (${down.length} samples)`);
      check(last.every((x) => x === 200), `primary failover: /readyz answers 200 on every node afterwards (${last.join(', ')})`);
      const totals = await verify({ name: 'primary failover', s, api, merchantId, load, receiver, stream, since });
      const states = await readsOnStandby(s);
      check(states.every((x) => x.includes('standby in use')), `primary failover: lists read from the remaining standby again (${states.join('; ')})`);
      const list = await api.call('GET', '/orders?limit=5');
      check(list.status === 200 && Array.isArray(list.body?.transactions), `primary failover: the order list answers (${list.status})`);
      results.primary = { ...totals, unavailable_s: window.windowMs / 1000, promoted_after_s: (promotedAt - load.faultAt) / 1000, formation: await formationState(s) };
    }

    // 2. a gateway node, kill -9 (the formation now has two data nodes: the primary and one standby)
    {
      const since = new Date();
      api.attempts.length = 0;
      const victim = 2;
      const load = await runLoad({
        api, serviceUuid, cards, receiverUrl: receiver.url, plan: 'cluster-m', tag: 'gw', seconds: Math.max(10, SECONDS - 5), faultAfterMs: 4000,
        fault: async () => {
          log(`kill -9 gateway node ${victim}`);
          killGatewayNode(s!, victim);
        },
      });
      const window = unavailability(api.attempts, load.faultAt, load.end);
      log(`gateway node lost: clients saw no success for ${(window.windowMs / 1000).toFixed(1)} s (${window.failedAttempts} failed attempts, retried)`);
      const totals = await verify({ name: 'gateway node lost', s, api, merchantId, load, receiver, stream, since });
      results.gateway = { ...totals, unavailable_s: window.windowMs / 1000 };
      await startGatewayNode(s, victim);
      check((await fetch(`${s.gateways[victim - 1].url}/readyz`)).status === 200, 'gateway node lost: the node started again is ready');
    }
    await stream.close();
    log(`formation at the end: ${JSON.stringify(await formationState(s))} settled=${await formationSettled(s).catch(() => false)}`);
  } catch (err) {
    failures.push(`the test could not run to the end: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    log(failures.at(-1)!);
    if (s) for (const f of ['gateway1.log', 'gateway2.log', 'haproxy.log']) {
      try {
        log(`${f} (tail):\n${fs.readFileSync(path.join(s.dir, 'logs', f), 'utf8').split('\n').slice(-20).join('\n')}`);
      } catch {
        // no such log
      }
    }
  } finally {
    await stopCluster(DIR).catch((e) => log(`stop failed: ${e}`));
    await receiver.close();
    await agent.close();
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
