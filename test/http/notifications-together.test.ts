/**
 * Deliveries in flight together share their statements (events.service.ts): the attempts of the jobs a
 * lane claimed at once begin in one statement, and the deliveries that end in the same turn of the event
 * loop are finished in one, each attempt, event and job with its own outcome.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVER_QUEUE } from '../../src/modules/events/index.js';
import { beginDeliveries, finishDeliveries } from '../../src/modules/events/events.repo.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder, storeCard } from '../helpers/payments.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let t: TestApp;
let rx: Receiver;
let m: TestMerchant;

beforeAll(async () => {
  // the sweeps due every 100 ms: draining the delivery queue must not enqueue them (a round trip each)
  t = await createTestApp({ PAYGATE_CACHE_TTL_MS: '3600000', PAYGATE_SWEEP_EVERY_MS: '100' });
  rx = await startReceiver();
  m = await t.merchant();
  await t.p.database.db.updateTable('merchants').set({ resend_failed_notifications: true }).where('id', '=', m.client_uuid).execute();
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

/** Pays `n` orders whose url_post is `${rx.url}/${path(i)}`; their order ids. */
async function notified(n: number, path: (i: number) => string): Promise<string[]> {
  const card = await storeCard(t, m);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const o = await createOrder(m, { url_post: `${rx.url}/${path(i)}` });
    const r = await m.api.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card });
    expect(r.status, r.raw).toBe(200);
    ids.push(o.uuid);
  }
  return ids;
}

async function eventOf(orderId: string) {
  const r = await m.api.get('/events', { order_uuid: orderId });
  expect(r.body.count).toBe(1);
  const one = await m.api.get(`/event/${r.body.events[0].uuid}`);
  expect(one.status, one.raw).toBe(200);
  return one.body.event;
}

async function jobOf(eventId: string) {
  return t.p.database.db.selectFrom('jobs').selectAll().where('dedupe_key', '=', `event:${eventId}`).executeTakeFirstOrThrow();
}

describe('notifications delivered together', () => {
  it('ten deliveries claimed at once begin in one statement; each event gets its own attempt and outcome', async () => {
    // a delivery first, as a running worker has made: its caches (the key's signature) are warm
    await notified(1, () => 'warm');
    expect(await t.p.jobs.drain({ queues: [DELIVER_QUEUE] })).toBe(1);
    const ids = await notified(10, (i) => `together-${i}`);
    const failing = new Set([0, 3, 6, 9]);
    for (const i of failing) rx.byPath.set(`/together-${i}`, 500);
    rx.received.length = 0;
    const before = t.p.database.stats.roundTrips;
    // one round of ten jobs, run together as a lane runs them
    expect(await t.p.jobs.drain({ queues: [DELIVER_QUEUE], batchSize: 10, maxRounds: 1, concurrent: true })).toBe(10);
    const trips = t.p.database.stats.roundTrips - before;
    // the claim (1), the ten attempts begun (1), and at most one statement per delivery to finish them:
    // an attempt begun in a statement of its own would make it 21
    expect(trips, `round trips: ${trips}`).toBeLessThanOrEqual(12);
    expect(rx.received.map((r) => r.path).sort()).toEqual(ids.map((_, i) => `/together-${i}`).sort());
    for (const [i, id] of ids.entries()) {
      const e = await eventOf(id);
      expect(e.attempts, `order ${i}`).toBe(1);
      expect(e.deliveries, `order ${i}`).toHaveLength(1);
      if (failing.has(i)) {
        // refused: due again on the retry schedule, its job pending again
        expect(e.status).toBe('PENDING');
        expect(e.deliveries[0]).toMatchObject({ http_status: 500, error: 'HTTP 500' });
        expect(e.next_attempt_at).toBeTruthy();
        expect(await jobOf(e.uuid)).toMatchObject({ status: 'pending', locked_by: null, attempts: 1 });
      } else {
        expect(e.status).toBe('DELIVERED');
        expect(e.deliveries[0]).toMatchObject({ http_status: 200, error: null });
        expect(await jobOf(e.uuid)).toMatchObject({ status: 'done' });
      }
    }
  });

  it('attempts begun and finished in one statement each: every row keeps its own outcome, and a job another process holds is left alone', async () => {
    const ids = await notified(3, (i) => `one-statement-${i}`);
    const evs = await Promise.all(ids.map(eventOf));
    // the three jobs claimed by this process, the last one then taken by another process
    const jobs = await Promise.all(evs.map((e) => jobOf(e.uuid)));
    const db = t.p.database.db;
    await db.updateTable('jobs').set({ status: 'running', locked_by: t.p.jobs.workerId, attempts: 1 }).where('id', 'in', jobs.map((j) => j.id)).execute();
    await db.updateTable('jobs').set({ locked_by: 'another-process' }).where('id', '=', jobs[2].id).execute();

    const now = new Date();
    const begun = await beginDeliveries(db, [evs[0].uuid, 'f0000000-0000-4000-8000-000000000000', evs[1].uuid, evs[2].uuid], now, 'interrupted');
    expect(begun.map((b) => b?.id)).toEqual([evs[0].uuid, undefined, evs[1].uuid, evs[2].uuid]);
    expect(new Set(begun.filter(Boolean).map((b) => b!.attempt_id)).size).toBe(3);

    const retryAt = new Date(now.getTime() + 60_000);
    const asJob = (j: (typeof jobs)[number]) => ({ id: Number(j.id), queue: j.queue, payload: j.payload, attempts: 1, maxAttempts: j.max_attempts, merchantId: j.merchant_id, runAt: j.run_at });
    const outcomes = [
      { attemptId: begun[0]!.attempt_id, outcome: { http_status: 200, error: null, duration_ms: 5 }, eventId: evs[0].uuid, set: { status: 'DELIVERED' as const, delivered_at: now, next_attempt_at: null }, job: asJob(jobs[0]), retryAt: null },
      { attemptId: begun[2]!.attempt_id, outcome: { http_status: 503, error: 'HTTP 503', duration_ms: 7 }, eventId: evs[1].uuid, set: { status: 'PENDING' as const, delivered_at: null, next_attempt_at: retryAt }, job: asJob(jobs[1]), retryAt },
      { attemptId: begun[3]!.attempt_id, outcome: { http_status: null, error: 'timeout', duration_ms: 9 }, eventId: evs[2].uuid, set: { status: 'FAILED' as const, delivered_at: null, next_attempt_at: null }, job: asJob(jobs[2]), retryAt: null },
    ];
    const before = t.p.database.stats.roundTrips;
    await finishDeliveries(db, outcomes, t.p.jobs.finishManySql(outcomes));
    expect(t.p.database.stats.roundTrips - before).toBe(1);

    const attempts = await db.selectFrom('event_attempts').selectAll().where('id', 'in', outcomes.map((o) => o.attemptId)).orderBy('event_id').execute();
    expect(attempts.map((a) => [a.event_id, a.http_status, a.error, a.duration_ms, a.finished]).sort()).toEqual([
      [evs[0].uuid, 200, null, 5, true],
      [evs[1].uuid, 503, 'HTTP 503', 7, true],
      [evs[2].uuid, null, 'timeout', 9, true],
    ].sort());
    const rows = await db.selectFrom('events').select(['id', 'status', 'delivered_at', 'next_attempt_at']).where('id', 'in', evs.map((e) => e.uuid)).execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(evs[0].uuid)).toMatchObject({ status: 'DELIVERED', next_attempt_at: null });
    expect(byId.get(evs[0].uuid)!.delivered_at).not.toBeNull();
    expect(byId.get(evs[1].uuid)).toMatchObject({ status: 'PENDING', delivered_at: null });
    expect(byId.get(evs[1].uuid)!.next_attempt_at!.getTime()).toBe(retryAt.getTime());
    expect(byId.get(evs[2].uuid)).toMatchObject({ status: 'FAILED', delivered_at: null, next_attempt_at: null });
    const after = await db.selectFrom('jobs').selectAll().where('id', 'in', jobs.map((j) => j.id)).orderBy('id').execute();
    expect(after[0]).toMatchObject({ status: 'done', locked_until: null });
    expect(after[0].finished_at).not.toBeNull();
    expect(after[1]).toMatchObject({ status: 'pending', locked_by: null, locked_until: null, finished_at: null });
    expect(after[1].run_at.getTime()).toBe(retryAt.getTime());
    // held by another process: not this one's to finish
    expect(after[2]).toMatchObject({ status: 'running', locked_by: 'another-process', finished_at: null });
  });
});
