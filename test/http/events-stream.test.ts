/**
 * The event stream (GET /events/stream): a merchant's notifications as Server-Sent Events, over real
 * HTTP. Each event carries the exact body and headers the delivery sends (verifiable with the
 * signature); a reconnect with Last-Event-ID or `after` resumes with nothing missed and nothing twice;
 * only the merchant's events of its environment are streamed; events made by another gateway process
 * arrive; an event is never streamed ahead of an older transaction still running (which would make a
 * cursor skip it); and a stream opened without a cursor starts now, whatever else is running.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeerApp, createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { paidOrder } from '../helpers/payments.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { openSse, type SseClient } from '../helpers/sse.js';

let t: TestApp;
let rx: Receiver;
let base: string;
const open: SseClient[] = [];

beforeAll(async () => {
  // streams look for events every 100 ms when nothing woke them; at most 3 per merchant
  t = await createTestApp({ PAYGATE_EVENTS_STREAM_POLL_MS: '100', PAYGATE_EVENTS_STREAMS_PER_MERCHANT: '3' });
  rx = await startReceiver();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of open) s.close();
  await rx?.close();
  await t?.close();
});

async function stream(m: { api_key: string }, opts: { env?: 'sandbox' | 'production'; query?: string; headers?: Record<string, string> } = {}): Promise<SseClient> {
  const prefix = (opts.env ?? 'sandbox') === 'sandbox' ? '/v1/sandbox' : '/v1';
  const s = await openSse(`${base}${prefix}/events/stream${opts.query ?? ''}`, {
    authorization: `Bearer ${m.api_key}`,
    'x-forwarded-proto': 'https',
    ...(opts.headers ?? {}),
  });
  open.push(s);
  return s;
}

function verifyHash(raw: string, signature: string): boolean {
  const body = JSON.parse(raw);
  const serialized = `{${raw.slice(raw.indexOf('"order":'), raw.lastIndexOf(',"validation_hash":'))}}`;
  return createHash('sha256').update(serialized + signature).digest('hex') === body.validation_hash;
}

function verifySignatureHeader(header: string, raw: string, signature: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  return !!m && createHmac('sha256', signature).update(`${m[1]}.${raw}`).digest('hex') === m[2];
}

const data = (msg: { data: string }) => JSON.parse(msg.data);

/** Writes a notification event of `m` directly (as a module does, in its transaction). */
async function event(m: TestMerchant, type = 'ORDER_NOTIFICATION', trx = t.p.database.db): Promise<string> {
  return t.m.events.enqueueNotification(trx, {
    merchantId: m.client_uuid,
    env: m.env,
    orderId: null,
    type,
    keyId: m.key_id,
    url: 'https://shop.example/notify',
    payload: JSON.stringify({ order: null, client: { uuid: m.client_uuid }, n: randomUUID() }),
    retries: false,
    at: t.p.clock.now(),
  });
}

describe('GET /events/stream', () => {
  it('streams a notification made after it opened, with the exact body and headers the delivery sends', async () => {
    const m = await t.merchant();
    const s = await stream(m);
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const ready = await s.ready();
    expect(ready.id).toMatch(/^\d+-\d+$/);
    expect(data(ready)).toMatchObject({ client_uuid: m.client_uuid, env: 'sandbox', cursor: ready.id, types: [] });

    const o = await paidOrder(t, m, { url_post: `${rx.url}/direct`, additional: 'Zoë/€' });
    const [msg] = await s.waitEvents(1);
    expect(msg.event).toBe('ORDER_NOTIFICATION');
    expect(msg.id).toMatch(/^\d+-\d+$/);
    const ev = data(msg);
    const listed = (await m.api.get('/events', { order_uuid: o.uuid })).body.events;
    expect(listed).toHaveLength(1);
    expect(ev).toMatchObject({ uuid: listed[0].uuid, type: 'ORDER_NOTIFICATION', env: 'sandbox', order_uuid: o.uuid, url: `${rx.url}/direct` });
    expect(ev.created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4}$/);
    // the body: the notification, verifiable with the merchant's signature as a delivered one is
    expect(JSON.parse(ev.body).order).toMatchObject({ uuid: o.uuid, status: 'SUCCESS', paid: true });
    expect(ev.body).toContain('Zo\\u00eb\\/\\u20ac');
    expect(verifyHash(ev.body, m.signature)).toBe(true);
    expect(verifySignatureHeader(ev.headers['paygate-signature'], ev.body, m.signature)).toBe(true);
    expect(verifySignatureHeader(ev.headers['paygate-signature'], ev.body, 'not-the-signature')).toBe(false);
    expect(ev.headers['paygate-event']).toBe(ev.uuid);

    // the gateway's own delivery sends the same request (only current_time and t differ with the time)
    rx.received.length = 0;
    await t.p.jobs.drain();
    expect(rx.received).toHaveLength(1);
    const delivered = rx.received[0];
    const { current_time: _a, ...sentFields } = JSON.parse(delivered.body);
    const { current_time: _b, ...streamedFields } = JSON.parse(ev.body);
    expect(streamedFields).toEqual(sentFields);
    for (const h of ['content-type', 'user-agent', 'paygate-event']) expect(ev.headers[h], h).toBe(delivered.headers[h]);
    expect(Object.keys(ev.headers).sort()).toEqual(['content-type', 'paygate-event', 'paygate-signature', 'user-agent']);
  });

  it('resumes after Last-Event-ID or `after`: every event since, in order, none twice; without a cursor it starts now', async () => {
    const m = await t.merchant();
    const first = await stream(m);
    await first.ready();
    const a = await event(m);
    const [gotA] = await first.waitEvents(1);
    expect(data(gotA).uuid).toBe(a);
    first.close();

    // made while nobody listens
    const b = await event(m);
    const c = await event(m);

    const byHeader = await stream(m, { headers: { 'last-event-id': gotA.id! } });
    expect((await byHeader.ready()).id).toBe(gotA.id);
    const resumed = await byHeader.waitEvents(2);
    expect(resumed.map((x) => data(x).uuid)).toEqual([b, c]);
    const byQuery = await stream(m, { query: `?after=${gotA.id}` });
    expect((await byQuery.waitEvents(2)).map((x) => data(x).uuid)).toEqual([b, c]);
    byQuery.close();

    // a new event reaches the resumed stream after b and c, and a stream opened now starts with it
    const fresh = await stream(m);
    await fresh.ready();
    const d = await event(m);
    expect((await byHeader.waitEvents(3)).map((x) => data(x).uuid)).toEqual([b, c, d]);
    expect((await fresh.waitEvents(1)).map((x) => data(x).uuid)).toEqual([d]);
    // ids grow in the order events are streamed, and resuming from the last one brings nothing back
    const ids = byHeader.events().map((x) => x.id!);
    expect(ids).toHaveLength(3); // none twice
    expect(new Set(ids).size).toBe(3);
    const e = await event(m);
    const last = await stream(m, { query: `?after=${ids[2]}` });
    expect((await last.waitEvents(1)).map((x) => data(x).uuid)).toEqual([e]);
    expect((await byHeader.waitEvents(4)).map((x) => data(x).uuid)).toEqual([b, c, d, e]);
    expect(byHeader.events()).toHaveLength(4);
    for (const s of [byHeader, fresh, last]) s.close();
  });

  it("streams only the merchant's own events of its environment, and only the types asked for", async () => {
    const m1 = await t.merchant();
    const m2 = await t.merchant();
    const s2 = await stream(m2);
    const typed = await stream(m1, { query: '?types=order_notification' });
    await s2.ready();
    expect(data(await typed.ready()).types).toEqual(['ORDER_NOTIFICATION']);
    // m1's events are written first: were they streamed to m2 they would come before m2's
    await event(m1, 'SUBSCRIPTION_PAYMENT');
    await event(m1);
    const own = await event(m2);
    expect((await s2.waitEvents(1)).map((x) => data(x).uuid)).toEqual([own]);
    const [onlyOrder] = await typed.waitEvents(1);
    expect(onlyOrder.event).toBe('ORDER_NOTIFICATION');
    expect(data(onlyOrder).type).toBe('ORDER_NOTIFICATION');
    s2.close();
    typed.close();

    // a production merchant's stream is under /v1 only; a sandbox key is unknown there
    const prod = await t.merchant({ env: 'production' });
    const ps = await stream(prod, { env: 'production' });
    expect(data(await ps.ready())).toMatchObject({ client_uuid: prod.client_uuid, env: 'production' });
    const wrongEnv = await stream(m1, { env: 'production' });
    expect(wrongEnv.status).toBe(401);
    ps.close();
  });

  it('refuses with the envelope: no key 401, a key without a read profile 403, a bad cursor 400, too many streams 429', async () => {
    const m = await t.merchant();
    const none = await openSse(`${base}/v1/sandbox/events/stream`, {});
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text)).toMatchObject({ code: 401 });

    const refundOnly = await t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, m.client_uuid, 'sandbox', ['refund']));
    const forbidden = await stream({ api_key: refundOnly.apiKey });
    expect(forbidden.status).toBe(403);
    expect(JSON.parse(forbidden.text).details).toMatch(/readonly|payment/);
    const readonly = await t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, m.client_uuid, 'sandbox', ['readonly']));
    const allowed = await stream({ api_key: readonly.apiKey });
    expect(allowed.status).toBe(200);
    allowed.close();

    const badHeader = await stream(m, { headers: { 'last-event-id': 'yesterday' } });
    expect(badHeader.status).toBe(400);
    expect(JSON.parse(badHeader.text).details).toMatch(/last-event-id/i);
    const badAfter = await stream(m, { query: '?after=12-x' });
    expect(badAfter.status).toBe(400);
    expect(JSON.parse(badAfter.text).errors).toEqual([expect.objectContaining({ field: 'after' })]);
    const outOfRange = await stream(m, { query: '?after=99999999999999999999-1' });
    expect(outOfRange.status).toBe(400);

    // at most 3 streams per merchant (this test app's setting); another merchant is not counted
    const busy = await t.merchant();
    const three = [await stream(busy), await stream(busy), await stream(busy)];
    for (const x of three) expect(x.status).toBe(200);
    const fourth = await stream(busy);
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('retry-after')).toBe('5');
    expect(JSON.parse(fourth.text).details).toMatch(/already has 3 event streams open/);
    const other = await stream(m);
    expect(other.status).toBe(200);
    other.close();
    // once one is closed (the server sees the connection go), another may open
    three[0].close();
    const deadline = Date.now() + 30_000;
    let again = await stream(busy);
    while (again.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      again = await stream(busy);
    }
    expect(again.status).toBe(200);
    for (const x of [...three, again]) x.close();
  });

  it('a revoked key: its stream ends before the next event, and reconnecting is 401', async () => {
    const m = await t.merchant();
    const key = await t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, m.client_uuid, 'sandbox', ['readonly']));
    const s = await stream({ api_key: key.apiKey });
    await s.ready();
    await t.m.merchants.revokeKey(key.keyId);
    await event(m);
    await s.ended;
    expect(s.events()).toEqual([]);
    expect((await stream({ api_key: key.apiKey })).status).toBe(401);
  });

  it('streams events written by another gateway process on the same database', async () => {
    const peer = await createPeerApp(t);
    try {
      const m = await t.merchant();
      const s = await stream(m);
      await s.ready();
      const o = await paidOrder({ ...t, app: peer.app, m: peer.m, p: peer.p } as TestApp, { ...m, api: peer.api(m) }, { url_post: `${rx.url}/peer` });
      const [msg] = await s.waitEvents(1);
      expect(data(msg)).toMatchObject({ order_uuid: o.uuid, url: `${rx.url}/peer` });
      s.close();
    } finally {
      await peer.close();
    }
  });

  it('never streams an event ahead of an older transaction still running, so a cursor cannot skip one (PostgreSQL)', async (ctx) => {
    if (t.db.kind !== 'postgres') ctx.skip(); // the embedded database runs one transaction at a time
    const m = await t.merchant();
    const s = await stream(m);
    await s.ready();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const written = new Promise<void>((r) => (inserted = r));
    let early = '';
    const slow = t.p.database.transaction(async (trx) => {
      early = await event(m, 'ORDER_NOTIFICATION', trx as never);
      inserted();
      await gate;
    });
    await written;
    // a later transaction commits first (its NOTIFY wakes the stream, which also polls every 100 ms)
    const late = await event(m);
    const deadline = Date.now() + 1500;
    while (Date.now() < deadline) {
      expect(s.events(), 'streamed while an older transaction was still running').toEqual([]);
      await new Promise((r) => setTimeout(r, 50));
    }
    release();
    await slow;
    expect((await s.waitEvents(2)).map((x) => data(x).uuid)).toEqual([early, late]);
    s.close();
  });

  it('without a cursor a stream starts now: an event committed before it opened is not sent, even while an older transaction runs (PostgreSQL)', async (ctx) => {
    if (t.db.kind !== 'postgres') ctx.skip(); // the embedded database runs one transaction at a time
    const m = await t.merchant();
    const other = await t.merchant();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let begun!: () => void;
    const running = new Promise<void>((r) => (begun = r));
    // another merchant's transaction, older than everything below, still running when the stream opens:
    // the stream's cursor starts at it, and the event committed after it began came before the stream
    const slow = t.p.database.transaction(async (trx) => {
      await event(other, 'ORDER_NOTIFICATION', trx as never);
      begun();
      await gate;
    });
    await running;
    const before = await event(m);
    const s = await stream(m);
    await s.ready();
    const after = await event(m);
    release();
    await slow;
    const [first] = await s.waitEvents(1);
    expect(data(first).uuid, `the event made before the stream opened (${before}) was streamed`).toBe(after);
    s.close();
  });

  it('the stream route is in the API reference as text/event-stream with the StreamedEvent record', async () => {
    const doc = JSON.parse((await t.app.inject({ method: 'GET', url: '/openapi.json' })).body);
    const op = doc.paths['/events/stream'].get;
    expect(op.operationId).toBe('streamEvents');
    expect(op.responses['200'].content['text/event-stream'].schema).toEqual({ $ref: '#/components/schemas/StreamedEvent' });
    expect(doc.components.schemas.StreamedEvent.required).toEqual(expect.arrayContaining(['uuid', 'type', 'headers', 'body']));
    expect(op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort()).toEqual(['header:last-event-id', 'query:after', 'query:types']);
  });
});

