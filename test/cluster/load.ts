/** The failover test's load (payments, captures, refunds by many clients through a fault) and the checks of what it left. */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import pg from 'pg';
import { request } from 'undici';
import { type ClusterState } from '../../scripts/cluster/topology.js';

import { LOAD_AFTER_FAULT_MS, CLIENTS, REFUND, log, sleep, check, startReceiver, type Attempt, Api } from './support.js';
import { followStream } from './sampling.js';

// ---- the load ------------------------------------------------------------------------------------------

export interface OrderRecord {
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
export interface SubscriptionRecord {
  key: string;
  history: string[];
  customer: string;
  ack: boolean;
  status: number;
  id: string | null;
}

export async function runLoad(opts: {
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
export function unavailability(attempts: Attempt[], load: { faultAt: number; firstDoneAt: number; finishedAt: number }) {
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

export async function verify(opts: {
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
