/**
 * Background work at size leaves room for the API. The job loop runs in this process (as on the embedded
 * database) while a payments file of 400 rows is worked; meanwhile API reads are answered, each while a
 * bounded number of background statements run: the loop keeps a bounded number of jobs in flight, and on
 * the embedded database's one connection an API request goes before queued background statements.
 * (Before, a full claim started the next one at once, every job in flight queued its statements on the
 * one connection, and a read waited behind all of them.) Counted in statements, not timed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { paidOrder, storeCard, TEST_CARDS } from '../helpers/payments.js';

let t: TestApp;
let m: TestMerchant;

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_JOB_POLL_MS: '20' });
  m = await t.merchant({ isPci: true });
});
afterAll(async () => t?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ROWS = 400;

describe('API requests while a file is worked in the same process', () => {
  it(`reads of ${ROWS}-row file's progress and of orders are answered while its lines run`, async () => {
    const card = await storeCard(t, m, TEST_CARDS.APPROVED, 'room');
    const order = await paidOrder(t, m, { amount: 700 });
    const rows = Array.from({ length: ROWS }, (_, i) => `${100 + i},${card},${m.service_uuid}`);
    const r = await m.api.post('/batch/authorizations', { data: Buffer.from(`AMOUNT,CARD,SERVICE\n${rows.join('\n')}\n`).toString('base64'), filename: 'room.csv' });
    expect(r.status, r.raw).toBe(200);
    const id = r.body.batch.uuid;

    t.p.jobs.start();
    try {
      // from the start of the work: every API request, and the statements the database ran meanwhile
      const waits: number[] = [];
      const measured = async <T,>(call: () => Promise<T>) => {
        const before = t.p.database.stats.roundTrips;
        const out = await call();
        waits.push(t.p.database.stats.roundTrips - before);
        return out;
      };
      let progress: any = null;
      for (let i = 0; i < 15; i++) {
        const o = await measured(() => m.api.get(`/order/${order.uuid}`));
        expect(o.status).toBe(200);
        expect(o.body.order.uuid).toBe(order.uuid);
        progress = (await measured(() => m.api.get(`/batch/${id}`))).body.batch;
        await sleep(5);
      }
      // the reads happened while the file was being worked
      expect(progress.pending, `waits ${waits}`).toBeGreaterThan(0);
      expect(t.p.jobs.inFlight.work).toBeLessThanOrEqual(t.p.config.jobConcurrency);
      if (t.db.kind === 'pglite') {
        // one thread and one connection: background statements run whenever a request awaits something,
        // but at each of its own statements a request waits for at most the background transaction
        // holding the connection, never for the queue of every job in flight (the loop before this
        // change: the first request of such a run waited for over 900 statements, most of the file)
        expect(Math.max(...waits), `statements run during each request: ${waits}`).toBeLessThanOrEqual(100);
      }
      for (let i = 0; ; i++) {
        const s = await m.api.get(`/batch/${id}`);
        if (s.body.batch.status === 'COMPLETED') {
          expect(s.body.batch).toMatchObject({ succeeded: ROWS, failed: 0 });
          break;
        }
        if (i > 6000) throw new Error(`not done: ${JSON.stringify(s.body.batch)}`);
        await sleep(20);
      }
    } finally {
      await t.p.jobs.stop();
    }
  }, 300_000);
});
