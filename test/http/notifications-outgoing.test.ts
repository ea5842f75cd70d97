/**
 * Notifications go through the outgoing client: a production merchant's url_post on loopback is refused
 * (the operator allowed nothing) and the attempt says why without the address; a sandbox merchant
 * reaches loopback (sandbox loopback on). A delivery attempt is recorded before the request leaves, and
 * an attempt cut short (the process died mid-send) stays visible and the notification is sent again.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createOrder, paidOrder, storeCard } from '../helpers/payments.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { DELIVER_QUEUE, INTERRUPTED } from '../../src/modules/events/events.service.js';

let t: TestApp;
let rx: Receiver;

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_OUTGOING_ALLOW: '', PAYGATE_OUTGOING_SANDBOX_LOOPBACK: 'true', PAYGATE_PRODUCTION_SIMULATOR: 'true' });
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

async function eventOf(m: Awaited<ReturnType<TestApp['merchant']>>, orderUuid: string) {
  const list = await m.api.get('/events', { order_uuid: orderUuid });
  expect(list.status, list.raw).toBe(200);
  const one = await m.api.get(`/event/${list.body.events[0].uuid}`);
  expect(one.status, one.raw).toBe(200);
  return one.body.event;
}

describe('notifications and internal addresses', () => {
  it('a production url_post on loopback is refused, and the attempt names the class, not the address', async () => {
    const m = await t.merchant({ env: 'production' });
    rx.received.length = 0;
    // refused at creation (test/http/compat-clients.test.ts); delivery judges again, for a name whose
    // addresses changed since, or an order stored before that rule: the URL is written straight here
    const created = await m.api.post('/payment', { amount: 1000, operative: 'AUTHORIZATION', secure: false, description: 'x', service: m.service_uuid, url_post: `${rx.url}/prod` });
    expect(created.status).toBe(400);
    const orig = await createOrder(m, { url_post: 'http://93.184.215.14/notify' });
    await t.p.database.db.updateTable('orders').set({ url_post: `${rx.url}/prod` }).where('id', '=', orig.uuid).execute();
    const card = await storeCard(t, m);
    expect((await m.api.post('/payment/direct', { order_uuid: orig.uuid, card_uuid: card })).status).toBe(200);
    const o = orig;
    await t.p.jobs.drain();
    expect(rx.received).toHaveLength(0);
    const e = await eventOf(m, o.uuid);
    expect(e.deliveries).toHaveLength(1);
    expect(e.deliveries[0].http_status).toBeNull();
    expect(e.deliveries[0].error).toMatch(/destination address is not allowed/);
    expect(JSON.stringify(e.deliveries)).not.toContain('127.0.0.1');
    expect(JSON.stringify(e.deliveries)).not.toContain(new URL(rx.url).port);
  });

  it('the cloud metadata address is refused for sandbox merchants too', async () => {
    const m = await t.merchant();
    const o = await paidOrder(t, m, { url_post: 'http://169.254.169.254/latest/meta-data/' });
    await t.p.jobs.drain();
    const e = await eventOf(m, o.uuid);
    expect(e.deliveries[0].error).toMatch(/destination address is not allowed/);
  });

  it('a sandbox url_post on loopback is delivered (sandbox loopback on)', async () => {
    const m = await t.merchant();
    rx.received.length = 0;
    const o = await paidOrder(t, m, { url_post: `${rx.url}/sandbox` });
    await t.p.jobs.drain();
    expect(rx.received.map((r) => r.path)).toEqual(['/sandbox']);
    expect((await eventOf(m, o.uuid)).status).toBe('DELIVERED');
  });
});

describe('delivery attempts are recorded before the send', () => {
  it('while the request is in flight the attempt is already stored; then it gets its answer', async () => {
    const m = await t.merchant();
    let seenDuringSend: any = null;
    const server = http.createServer(async (req, res) => {
      req.resume();
      const event = (await m.api.get('/events')).body.events[0];
      seenDuringSend = (await m.api.get(`/event/${event.uuid}`)).body.event;
      res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const o = await paidOrder(t, m, { url_post: url });
      await t.p.jobs.drain();
      expect(seenDuringSend).not.toBeNull();
      expect(seenDuringSend.attempts).toBe(1);
      expect(seenDuringSend.deliveries).toEqual([expect.objectContaining({ http_status: null, error: INTERRUPTED })]);
      const after = await eventOf(m, o.uuid);
      expect(after.status).toBe('DELIVERED');
      expect(after.deliveries).toEqual([expect.objectContaining({ http_status: 200, error: null })]);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('an attempt cut short by a crash stays visible, and the delivery runs again once its lease lapses', async () => {
    const m = await t.merchant();
    rx.received.length = 0;
    const o = await paidOrder(t, m, { url_post: `${rx.url}/crash` });
    // the state a process leaves when it dies mid-send: the attempt stored unfinished, the job running
    // under a lease that has lapsed
    const db = t.p.database.db;
    const ev = await db.selectFrom('events').select(['id', 'created_at']).where('order_id', '=', o.uuid).executeTakeFirstOrThrow();
    await t.p.database.transaction(async (trx) => {
      await trx.insertInto('event_attempts').values({ event_id: ev.id, attempted_at: ev.created_at, http_status: null, error: INTERRUPTED, duration_ms: 0, finished: false }).execute();
      await trx.updateTable('events').set({ attempts: 1, first_attempt_at: ev.created_at }).where('id', '=', ev.id).execute();
      await trx
        .updateTable('jobs')
        .set({ status: 'running', attempts: 1, locked_by: 'dead-worker', locked_until: new Date(t.p.clock.now().getTime() - 1) })
        .where('queue', '=', DELIVER_QUEUE)
        .where('dedupe_key', '=', `event:${ev.id}`)
        .execute();
    });
    await t.p.jobs.drain({ queues: [DELIVER_QUEUE] });
    expect(rx.received.map((r) => r.path)).toEqual(['/crash']);
    const e = await eventOf(m, o.uuid);
    expect(e.status).toBe('DELIVERED');
    expect(e.attempts).toBe(2);
    expect(e.deliveries).toEqual([
      expect.objectContaining({ http_status: null, error: INTERRUPTED }),
      expect.objectContaining({ http_status: 200, error: null }),
    ]);
    // both deliveries carry the same Paygate-Event: receivers deduplicate by it
    expect(rx.received[0].headers['paygate-event']).toBe(ev.id);
  });
});
