/**
 * Database round trips of the background work that runs at full size (10,000 due charges, 10,000-row
 * files): a due subscription charge, a notification delivery and a payments-file line, each counted as a
 * worker runs it (the job's claim, the work, the job's completion; every statement, BEGIN and COMMIT
 * included), warm as in a running worker (the fewer of the second and third of three jobs due at once). Counted, not timed: a
 * change that adds a query to these paths fails here; the speed they give is measured by
 * `npm run bench:bulk`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHARGE_QUEUE } from '../../src/modules/subscriptions/index.js';
import { BATCH_QUEUE } from '../../src/modules/batch/index.js';
import { DELIVER_QUEUE } from '../../src/modules/events/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { storeCard, TEST_CARDS } from '../helpers/payments.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let t: TestApp;
let m: TestMerchant;
let rx: Receiver;

beforeAll(async () => {
  // caches kept as long as the test runs: a busy machine must not make a warm worker cold
  t = await createTestApp({ PAYGATE_CACHE_TTL_MS: '3600000' });
  m = await t.merchant({ isPci: true });
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

/** Runs one due job of `queue` (claimed alone); its round trips. */
async function oneJob(queue: string): Promise<number> {
  const before = t.p.database.stats.roundTrips;
  expect(await t.p.jobs.drain({ queues: [queue], maxRounds: 1, batchSize: 1 })).toBe(1);
  return t.p.database.stats.roundTrips - before;
}

/**
 * The most each may cost, the job's claim (1) and completion included (1 more, but a delivery completes its
 * job in its last statement).
 * - A charge (10): the payment row claimed in one statement; the order (a read that finds a retried one,
 *   the stored card, the insert); its payment (the order read with its card, started, settled); the payment
 *   row and the subscription settled with the next charge's job and the product's notification in one
 *   statement.
 * - A delivery (3): the attempt begun in one statement, finished in one with the job's completion.
 * - A file line (10): the line claimed in one statement; its order (read, insert); its payment (as above);
 *   its outcome; the file's completion check (after the outcome is committed, so the last line to finish
 *   sees every line finished).
 */
const TARGETS = { charge: 10, delivery: 3, line: 10 };

describe('round trips of the bulk paths', () => {
  it('a due subscription charge, its notification and a payments-file line stay at or under their targets', async () => {
    const cards = [];
    for (const ref of ['rt-1', 'rt-2', 'rt-3']) cards.push(await storeCard(t, m, TEST_CARDS.APPROVED, ref));
    expect((await m.api.post('/subscriptions/product', { name: 'P', external_id: 'rt-p', notification_url: `${rx.url}/rt` })).status).toBe(200);
    expect((await m.api.post('/subscriptions/plan', { name: 'Monthly', external_id: 'rt-m', product: 'rt-p', amount: 500, interval_type: 'MONTHLY' })).status).toBe(200);
    const day = new Date(Date.now() + 2 * 86400_000).toISOString().slice(0, 10);
    const subs: string[] = [];
    for (const [i, card] of cards.entries()) {
      const r = await m.api.post('/subscriptions/subscription', { plan: 'rt-m', customer: `rt-${i + 1}`, payment_attempts_limit: 2, initial_date: day, additional_data: { source_uuid: card, service: m.service_uuid } });
      expect(r.body.status, r.raw).toBe('CREATED');
      subs.push(r.body.subscription);
    }
    await t.p.jobs.drain();
    expect((await m.api.post('/test-clock', { advance_seconds: 3 * 86400 })).status).toBe(200);

    // three charges due at once: the first warms what a running worker keeps (the key, the service, the
    // merchant's settings), the fewer of the next two is counted (a 2-second cache, the antifraud
    // settings', may expire between two charges on a busy machine; a query added to every charge shows in both)
    await oneJob(CHARGE_QUEUE);
    const charge = Math.min(await oneJob(CHARGE_QUEUE), await oneJob(CHARGE_QUEUE));
    await oneJob(DELIVER_QUEUE);
    const delivery = await oneJob(DELIVER_QUEUE);
    expect(charge, `charge: ${charge}`).toBeLessThanOrEqual(TARGETS.charge);
    expect(delivery, `delivery: ${delivery}`).toBeLessThanOrEqual(TARGETS.delivery);
    for (const id of subs) {
      const s = await m.api.get(`/subscriptions/subscription/${id}`);
      expect(s.body.subscription).toMatchObject({ status: 'PAID', total_payment_charged: 1 });
    }
    await t.p.jobs.drain({ queues: [DELIVER_QUEUE] }); // the third charge's notification
    expect(rx.received.filter((r) => r.path === '/rt')).toHaveLength(3);

    // a payments file of three lines: the fewer of the last two is counted (as the charges above)
    const file = `AMOUNT,CARD,SERVICE\n100,${cards[0]},${m.service_uuid}\n200,${cards[1]},${m.service_uuid}\n300,${cards[2]},${m.service_uuid}\n`;
    const r = await m.api.post('/batch/authorizations', { data: Buffer.from(file).toString('base64'), filename: 'rt.csv' });
    expect(r.status, r.raw).toBe(200);
    await oneJob(BATCH_QUEUE);
    const line = Math.min(await oneJob(BATCH_QUEUE), await oneJob(BATCH_QUEUE));
    expect(line, `line: ${line}`).toBeLessThanOrEqual(TARGETS.line);
    const b = await m.api.get(`/batch/${r.body.batch.uuid}`);
    expect(b.body.batch).toMatchObject({ status: 'COMPLETED', succeeded: 3 });
  });
});
