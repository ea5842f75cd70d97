import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { TEST_CARDS, advance, createOrder, paidOrder, storeCard } from '../helpers/payments.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { toWireJson } from '../../src/platform/http/json.js';

let t: TestApp;
let rx: Receiver;

beforeAll(async () => {
  t = await createTestApp();
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

/** The algorithm of spec/validation-hash-vectors.txt, applied to a received body. */
function verifyHash(raw: string, signature: string): boolean {
  const body = JSON.parse(raw);
  // the hashed part is the raw `"order":…,"client":…` slice of the body, as sent
  const start = raw.indexOf('"order":');
  const end = raw.lastIndexOf(',"validation_hash":');
  const serialized = `{${raw.slice(start, end)}}`;
  expect(JSON.parse(serialized)).toEqual({ order: body.order, client: body.client });
  return createHash('sha256').update(serialized + signature).digest('hex') === body.validation_hash;
}

function verifySignatureHeader(header: string, raw: string, signature: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  return createHmac('sha256', signature).update(`${m[1]}.${raw}`).digest('hex') === m[2];
}

async function events(m: TestMerchant, query: Record<string, string> = {}) {
  const r = await m.api.get('/events', query);
  expect(r.status, r.raw).toBe(200);
  return r.body;
}

describe('notifications (decisions §7)', () => {
  it('a final state is notified to url_post with a verifiable validation_hash and signature header', async () => {
    const m = await t.merchant();
    rx.received.length = 0;
    const o = await paidOrder(t, m, { url_post: `${rx.url}/hook-1`, additional: 'Zoë/€' });
    expect(rx.received).toHaveLength(0); // sent by the job, not in the request
    await t.p.jobs.drain();
    expect(rx.received).toHaveLength(1);
    const got = rx.received[0];
    expect(got.path).toBe('/hook-1');
    expect(got.headers['content-type']).toBe('application/json');
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({ message: 'OK', code: 200, client: { uuid: m.client_uuid } });
    expect(body.order).toMatchObject({ uuid: o.uuid, status: 'SUCCESS', paid: true });
    expect(body.order.transactions).toHaveLength(1);
    expect(got.body).toContain('Zo\\u00eb\\/\\u20ac');
    expect(verifyHash(got.body, m.signature)).toBe(true);
    expect(verifyHash(got.body, 'another-signature')).toBe(false);
    expect(verifySignatureHeader(String(got.headers['paygate-signature']), got.body, m.signature)).toBe(true);
    // stored as a delivered event with its attempt
    const list = await events(m, { order_uuid: o.uuid });
    expect(list.count).toBe(1);
    expect(list.events[0]).toMatchObject({ status: 'DELIVERED', attempts: 1, order_uuid: o.uuid, url: `${rx.url}/hook-1` });
    const one = await m.api.get(`/event/${list.events[0].uuid}`);
    expect(one.body.event.deliveries).toEqual([expect.objectContaining({ http_status: 200, error: null })]);
  });

  it('signed with the key that created the order, whoever read it', async () => {
    const m = await t.merchant();
    const key = await t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, m.client_uuid, 'sandbox', ['all']));
    const other = m.api.withCreds({ api_key: key.apiKey, signature: key.signature });
    rx.received.length = 0;
    const o = await createOrder(m, { url_post: `${rx.url}/k` });
    const card = await storeCard(t, m);
    const paid = await other.post('/payment/direct', { order_uuid: o.uuid, card_uuid: card });
    expect(paid.status).toBe(200);
    await t.p.jobs.drain();
    expect(verifyHash(rx.received[0].body, m.signature)).toBe(true);
    // the response is hashed with the requesting key's signature
    const respHash = createHash('sha256').update(toWireJson({ order: paid.body.order, client: paid.body.client }) + key.signature).digest('hex');
    expect(paid.body.validation_hash).toBe(respHash);
  });

  it('declines, refunds, confirmations, cancellations and expiry are notified; no url_post, no event', async () => {
    const m = await t.merchant();
    rx.received.length = 0;
    const url_post = `${rx.url}/all`;
    await paidOrder(t, m, { url_post }, TEST_CARDS.REFUSED);
    const p = await paidOrder(t, m, { url_post });
    await m.api.post('/payment/refund', { order_uuid: p.uuid, amount: 10 });
    const d = await paidOrder(t, m, { url_post, operative: 'DEFERRED' });
    await m.api.post('/payment/confirmation', { order_uuid: d.uuid });
    const c = await paidOrder(t, m, { url_post, operative: 'DEFERRED' });
    await m.api.post('/payment/cancellation', { order_uuid: c.uuid });
    const e = await createOrder(m, { url_post });
    await m.api.post(`/order/${e.uuid}/expire`, {});
    await paidOrder(t, m);
    await t.p.jobs.drain();
    const statuses = rx.received.map((r) => JSON.parse(r.body).order.status).sort();
    expect(statuses).toEqual(['CANCELLED', 'EXPIRED', 'PARTIALLY_REFUNDED', 'PENDING_CONFIRMATION', 'PENDING_CONFIRMATION', 'REFUSED', 'SUCCESS', 'SUCCESS'].sort());
    expect((await events(m)).count).toBe(8);
  });

  it('resend_failed_notifications: fails twice, delivered on the third attempt, on the sandbox clock', async () => {
    const m = await t.merchant();
    await t.p.database.db.updateTable('merchants').set({ resend_failed_notifications: true }).where('id', '=', m.client_uuid).execute();
    rx.received.length = 0;
    rx.script.push(500, 503);
    const o = await paidOrder(t, m, { url_post: `${rx.url}/retry` });
    await t.p.jobs.drain();
    expect(rx.received).toHaveLength(1);
    let ev = (await events(m, { order_uuid: o.uuid })).events[0];
    expect(ev).toMatchObject({ status: 'PENDING', attempts: 1 });
    await t.p.jobs.drain();
    expect(rx.received).toHaveLength(1); // not before a minute on the merchant clock
    await advance(m, 59);
    await t.p.jobs.drain();
    expect(rx.received).toHaveLength(1);
    await advance(m, 2);
    await t.p.jobs.drain();
    expect(rx.received).toHaveLength(2);
    await advance(m, 180); // 4 min after the first try: the 5-minute retry is not due
    await t.p.jobs.drain();
    expect(rx.received).toHaveLength(2);
    await advance(m, 60);
    await t.p.jobs.drain();
    expect(rx.received).toHaveLength(3);
    ev = (await m.api.get(`/event/${ev.uuid}`)).body.event;
    expect(ev).toMatchObject({ status: 'DELIVERED', attempts: 3 });
    expect(ev.deliveries.map((d: any) => d.http_status)).toEqual([500, 503, 200]);
    // the same bytes every time (current_time aside)
    const parts = rx.received.map((r) => r.body.replace(/"current_time":"[^"]+"/, ''));
    expect(new Set(parts).size).toBe(1);
  });

  it('without resend_failed_notifications: one try, FAILED; resend delivers it', async () => {
    const m = await t.merchant();
    rx.received.length = 0;
    rx.script.push(500);
    const o = await paidOrder(t, m, { url_post: `${rx.url}/once` });
    await t.p.jobs.drain();
    await advance(m, 3600);
    await t.p.jobs.drain();
    expect(rx.received).toHaveLength(1);
    const ev = (await events(m, { order_uuid: o.uuid })).events[0];
    expect(ev).toMatchObject({ status: 'FAILED', attempts: 1 });
    const other = await t.merchant();
    expect((await other.api.post(`/event/${ev.uuid}/resend`, {})).status).toBe(404);
    expect((await other.api.get(`/event/${ev.uuid}`)).status).toBe(404);
    const r = await m.api.post(`/event/${ev.uuid}/resend`, {});
    expect(r.status, r.raw).toBe(200);
    await t.p.jobs.drain();
    expect(rx.received).toHaveLength(2);
    const after = (await m.api.get(`/event/${ev.uuid}`)).body.event;
    expect(after).toMatchObject({ status: 'DELIVERED', attempts: 2 });
    expect(verifyHash(rx.received[1].body, m.signature)).toBe(true);
  });

  it('an unreachable receiver is an attempt with an error', async () => {
    const m = await t.merchant();
    const o = await paidOrder(t, m, { url_post: 'http://127.0.0.1:9/nothing' });
    await t.p.jobs.drain();
    const ev = (await events(m, { order_uuid: o.uuid })).events[0];
    const full = (await m.api.get(`/event/${ev.uuid}`)).body.event;
    expect(full.status).toBe('FAILED');
    expect(full.deliveries[0].http_status).toBeNull();
    expect(full.deliveries[0].error).toBeTruthy();
  });

  it('GET /events: events made in the same instant are listed newest first by the order they were written', async () => {
    const m = await t.merchant();
    const at = new Date('2031-05-05T10:00:00.000Z');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push(await t.m.events.enqueueNotification(t.p.database.db, {
        merchantId: m.client_uuid, env: 'sandbox', orderId: null, keyId: m.key_id, url: `${rx.url}/same`, payload: `{"order":null,"client":{"uuid":"${m.client_uuid}"},"n":${i}}`, retries: false, at,
      }));
    }
    const listed = (await events(m)).events.map((e: { uuid: string }) => e.uuid);
    expect(listed).toEqual([...ids].reverse());
  });
});
