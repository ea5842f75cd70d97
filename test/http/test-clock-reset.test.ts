/**
 * The sandbox clock: every timestamp of a merchant's records follows it (a card's creation_date, a
 * terminal's and an order's creation), and it can be set back to real time, with pending scheduled work
 * keeping its place on the merchant's time line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CARDS } from '../../src/processors/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder } from '../helpers/payments.js';

let t: TestApp;
let a: TestMerchant;
const DAY = 86400;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Clock shop' });
});
afterAll(async () => t?.close());

const clock = async () => (await a.api.get('/test-clock')).body.test_clock as { current_time: string; offset_seconds: number };

describe('the sandbox clock', () => {
  it('a card stored while the clock runs 30 days ahead is created on the merchant\'s time, like its orders', async () => {
    expect((await a.api.post('/test-clock', { advance_seconds: 30 * DAY })).status).toBe(200);
    const real = Date.now();
    const card = await a.api.post('/payment-method/card', { card_holder: 'Ana Pérez', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '30', customer_ext_id: 'clock' });
    expect(card.status, card.raw).toBe(200);
    const row = await t.p.database.db.selectFrom('sources').select('created_at').where('id', '=', card.body.Source.uuid).executeTakeFirstOrThrow();
    const ahead = row.created_at.getTime() - real;
    expect(ahead).toBeGreaterThan(29 * DAY * 1000);
    expect(ahead).toBeLessThan(31 * DAY * 1000);
    const order = await createOrder(a, { customer_ext_id: 'clock' });
    const orow = await t.p.database.db.selectFrom('orders').select('created_at').where('id', '=', order.uuid).executeTakeFirstOrThrow();
    expect(Math.abs(orow.created_at.getTime() - row.created_at.getTime())).toBeLessThan(DAY * 1000);
    // a terminal created through the API too
    const term = await a.api.post('/terminal', { currency_code: 'EUR', type: 'CREDORAX', description: 'clock', credentials: { merchant_id: 'CRX-1', signing_api_key: 'abcdefghijkl' } });
    expect(term.status, term.raw).toBe(200);
    const trow = await t.p.database.db.selectFrom('terminals').select('created_at').where('id', '=', term.body.terminal.uuid).executeTakeFirstOrThrow();
    expect(trow.created_at.getTime() - real).toBeGreaterThan(29 * DAY * 1000);
  });

  it('POST /test-clock/reset sets it back to real time; a pending expiry keeps its place on the merchant\'s time line', async () => {
    const order = await createOrder(a, { customer_ext_id: 'clock', expires_in: 3600 });
    const job = async () => (await t.p.database.db.selectFrom('jobs').select(['run_at']).where('merchant_id', '=', a.client_uuid).where('status', '=', 'pending').execute()).map((j) => j.run_at.getTime());
    const before = await job();
    expect((await clock()).offset_seconds).toBe(30 * DAY);
    const r = await a.api.post('/test-clock/reset', {});
    expect(r.status, r.raw).toBe(200);
    expect(r.body.test_clock.offset_seconds).toBe(0);
    const now = await clock();
    expect(now.offset_seconds).toBe(0);
    // pending jobs moved 30 days later in real time: still one sandbox hour away
    const after = await job();
    expect(after.length).toBe(before.length);
    for (let i = 0; i < after.length; i++) expect(after.includes(before[i] + 30 * DAY * 1000)).toBe(true);
    // the order is still open after the reset, and a new card is created at real time
    expect((await a.api.get(`/order/${order.uuid}`)).body.order.status).toBe('CREATED');
    const card = await a.api.post('/payment-method/card', { card_holder: 'Ana Pérez', card_pan: TEST_CARDS.APPROVED, card_expiry_month: '12', card_expiry_year: '30', customer_ext_id: 'clock2' });
    const row = await t.p.database.db.selectFrom('sources').select('created_at').where('id', '=', card.body.Source.uuid).executeTakeFirstOrThrow();
    expect(Math.abs(row.created_at.getTime() - Date.now())).toBeLessThan(3600_000);
    // a second reset changes nothing
    expect((await a.api.post('/test-clock/reset', {})).body.test_clock.offset_seconds).toBe(0);
  });
});
