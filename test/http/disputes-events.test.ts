/**
 * Dispute events are always on the merchant's event log and event stream, signed as every notification;
 * they are posted only to the URL a merchant gave for them (PUT /disputes/settings). Without it each event
 * is NOT_SENT: listed (GET /events), streamed (GET /events/stream), never posted, and not resendable.
 */
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { paidOrder } from '../helpers/payments.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { openSse, type SseClient } from '../helpers/sse.js';
import { validationHash } from '../../src/modules/events/index.js';

let t: TestApp;
let rx: Receiver;
let base: string;
const open: SseClient[] = [];

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_EVENTS_STREAM_POLL_MS: '100' });
  rx = await startReceiver();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of open) s.close();
  await rx?.close();
  await t?.close();
});

async function stream(m: TestMerchant): Promise<SseClient> {
  const s = await openSse(`${base}/v1/sandbox/events/stream`, { authorization: `Bearer ${m.api_key}`, 'x-forwarded-proto': 'https' });
  open.push(s);
  await s.ready();
  return s;
}

async function sandboxDispute(m: TestMerchant, amount: number) {
  // the order has no url_post: none of its own notifications exist, only the dispute's
  const order = await paidOrder(t, m, { amount });
  const r = await m.api.post('/disputes/simulate', { order_uuid: order.uuid });
  expect(r.status, r.raw).toBe(200);
  return { order, d: r.body.dispute };
}

const disputeEvents = async (m: TestMerchant, orderUuid: string) =>
  ((await m.api.get('/events', { order_uuid: orderUuid })).body.events as any[]).filter((e) => e.type.startsWith('DISPUTE_'));

function signedWith(headers: Record<string, string>, body: string, signature: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(headers['paygate-signature'] ?? '');
  return !!m && createHmac('sha256', signature).update(`${m[1]}.${body}`).digest('hex') === m[2];
}

describe('dispute events', () => {
  it('without a URL for them: on the event log and the stream, signed with the order\'s key, never posted', async () => {
    const m = await t.merchant({ name: 'Quiet Shop' });
    const s = await stream(m);
    const { order, d } = await sandboxDispute(m, 700);
    expect((await m.api.post(`/disputes/${d.uuid}/accept`, {})).status).toBe(200);

    const listed = await disputeEvents(m, order.uuid);
    expect(listed.map((e) => e.type).sort()).toEqual(['DISPUTE_ACCEPTED', 'DISPUTE_CREATED']);
    for (const e of listed) expect(e).toMatchObject({ status: 'NOT_SENT', url: '', attempts: 0, first_attempt_at: null, next_attempt_at: null, delivered_at: null });
    expect(listed.find((e) => e.type === 'DISPUTE_ACCEPTED').payload.dispute).toMatchObject({ uuid: d.uuid, status: 'ACCEPTED', money: { disputed: 0, lost: 700, won: 0 } });
    // the status filter knows it
    const notSent = (await m.api.get('/events', { status: 'NOT_SENT' })).body;
    expect(notSent.events.map((e: any) => e.uuid).sort()).toEqual(listed.map((e) => e.uuid).sort());

    // streamed, in order, with the body and headers a delivery would send, signed with the signature of
    // the key that created the order
    const got = await s.waitEvents(2);
    expect(got.map((x) => x.event)).toEqual(['DISPUTE_CREATED', 'DISPUTE_ACCEPTED']);
    const accepted = JSON.parse(got[1].data);
    expect(accepted).toMatchObject({ type: 'DISPUTE_ACCEPTED', order_uuid: order.uuid, url: '' });
    const body = JSON.parse(accepted.body);
    expect(body.dispute).toMatchObject({ uuid: d.uuid, status: 'ACCEPTED' });
    expect(body.validation_hash).toBe(validationHash(JSON.stringify({ dispute: body.dispute }), m.signature));
    expect(signedWith(accepted.headers, accepted.body, m.signature)).toBe(true);
    expect(signedWith(accepted.headers, accepted.body, 'another-signature')).toBe(false);

    // nothing is ever posted: no delivery job, nothing received, and a resend is refused
    rx.received.length = 0;
    await t.p.jobs.drain();
    expect(rx.received).toEqual([]);
    expect((await disputeEvents(m, order.uuid)).every((e) => e.status === 'NOT_SENT')).toBe(true);
    const resend = await m.api.post(`/event/${listed[0].uuid}/resend`, {});
    expect(resend.status, resend.raw).toBe(409);
    expect(resend.raw).toMatch(/NOT_SENT/);
  });

  it('with a URL for them: on the event log and the stream, and posted there, signed', async () => {
    const m = await t.merchant({ name: 'Listening Shop' });
    const set = await m.api.put('/disputes/settings', { notification_url: `${rx.url}/m-disputes` });
    expect(set.status, set.raw).toBe(200);
    const s = await stream(m);
    const { order, d } = await sandboxDispute(m, 800);
    expect((await m.api.post(`/disputes/${d.uuid}/accept`, {})).status).toBe(200);
    await t.p.jobs.drain();

    const listed = await disputeEvents(m, order.uuid);
    expect(listed.map((e) => e.type).sort()).toEqual(['DISPUTE_ACCEPTED', 'DISPUTE_CREATED']);
    for (const e of listed) expect(e).toMatchObject({ status: 'DELIVERED', url: `${rx.url}/m-disputes`, attempts: 1 });
    const got = await s.waitEvents(2);
    expect(got.map((x) => JSON.parse(x.data).uuid).sort()).toEqual(listed.map((e) => e.uuid).sort());

    const posted = rx.received.filter((x) => x.path === '/m-disputes');
    expect(posted.map((x) => JSON.parse(x.body).dispute.status)).toEqual(['NEEDS_RESPONSE', 'ACCEPTED']);
    const last = JSON.parse(posted[1].body);
    expect(last.validation_hash).toBe(validationHash(JSON.stringify({ dispute: last.dispute }), m.signature));
    expect(signedWith(posted[1].headers as Record<string, string>, posted[1].body, m.signature)).toBe(true);
  });
});
