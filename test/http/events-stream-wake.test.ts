/**
 * The events trigger NOTIFYs only merchants with a stream open (migration 0871): a notification of a
 * merchant nobody streams for commits without a NOTIFY (the server-wide notification queue's lock is not
 * taken), a stream is woken by its merchant's events at once (its poll here is ten minutes away), and
 * its registration goes when its last stream closes.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS_CHANNEL } from '../../src/modules/events/events.stream.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { openSse } from '../helpers/sse.js';

let t: TestApp;
let base: string;
let stopListening: (() => Promise<void>) | null = null;
const heard: Array<string | null> = [];

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_EVENTS_STREAM_POLL_MS: '600000' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  stopListening = await t.p.database.listen!(EVENTS_CHANNEL, (payload) => heard.push(payload));
});
afterAll(async () => {
  await stopListening?.();
  await t?.close();
});

/** Writes a notification event of `m` (as a module does). */
async function event(m: TestMerchant): Promise<string> {
  return t.m.events.enqueueNotification(t.p.database.db, {
    merchantId: m.client_uuid, env: 'sandbox', orderId: null, type: 'TEST_EVENT', keyId: m.key_id,
    url: 'http://127.0.0.1:9/x', payload: JSON.stringify({ n: randomUUID() }), retries: false, at: new Date(),
  });
}

/** What reached the channel up to now: a marker NOTIFY sent after everything else comes after it all. */
async function heardUntilNow(): Promise<Array<string | null>> {
  const marker = `marker-${randomUUID()}`;
  await sql`select pg_notify(${EVENTS_CHANNEL}, ${marker})`.execute(t.p.database.db);
  const deadline = Date.now() + 10_000;
  while (!heard.includes(marker)) {
    if (Date.now() > deadline) throw new Error('the marker notification never came');
    await new Promise((r) => setTimeout(r, 10));
  }
  const got = heard.splice(0, heard.indexOf(marker) + 1).slice(0, -1);
  // the channel is the database's: test files running at the same time on other schemas of the same
  // database announce their own merchants on it; only this file's merchants are looked at
  const { rows } = await sql<{ id: string }>`select id::text from merchants where id::text = any(${got.filter((x): x is string => x !== null)})`.execute(t.p.database.db);
  const ours = new Set(rows.map((r) => r.id));
  return got.filter((x) => x === null || ours.has(x));
}

async function listeners(m: TestMerchant): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from event_stream_listeners where merchant_id = ${m.client_uuid}`.execute(t.p.database.db);
  return rows[0].n;
}

describe('event stream wake-ups', () => {
  it('only merchants with a stream open are announced, and a stream is woken at once', async () => {
    const quiet = await t.merchant();
    const streamed = await t.merchant();
    await heardUntilNow();
    await event(quiet);
    await event(streamed);
    expect(await heardUntilNow()).toEqual([]);

    const s = await openSse(`${base}/v1/sandbox/events/stream`, { authorization: `Bearer ${streamed.api_key}`, 'x-forwarded-proto': 'https' });
    expect(s.status, s.text).toBe(200);
    await s.ready();
    expect(await listeners(streamed)).toBe(1);
    expect(await listeners(quiet)).toBe(0);
    await event(quiet);
    const id = await event(streamed);
    expect(await heardUntilNow()).toEqual([streamed.client_uuid]);
    // the stream polls every ten minutes: only the wake-up brings the event this soon
    const [got] = await s.waitEvents(1, 5_000);
    expect(JSON.parse(got.data).uuid).toBe(id);

    s.close();
    await s.ended;
    const deadline = Date.now() + 10_000;
    while ((await listeners(streamed)) > 0) {
      if (Date.now() > deadline) throw new Error('the registration outlived the stream');
      await new Promise((r) => setTimeout(r, 20));
    }
    await event(streamed);
    expect(await heardUntilNow()).toEqual([]);
  });

  it('a registration whose process died lapses', async () => {
    const m = await t.merchant();
    await sql`insert into event_stream_listeners (merchant_id, listener, expires_at) values (${m.client_uuid}, 'dead-process', now() - interval '1 second')`.execute(t.p.database.db);
    await heardUntilNow();
    await event(m);
    expect(await heardUntilNow()).toEqual([]);
    await sql`update event_stream_listeners set expires_at = now() + interval '1 minute' where listener = 'dead-process'`.execute(t.p.database.db);
    await event(m);
    expect(await heardUntilNow()).toEqual([m.client_uuid]);
  });
});
