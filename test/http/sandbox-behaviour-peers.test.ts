/**
 * A sandbox service's behaviour set through one gateway process reaches the simulator of another at
 * once, not after the cache's time to live: the table's trigger notifies, every process drops its cache.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeerApp, createTestApp, type TestApp } from '../helpers/app.js';

const LONG_TTL = { PAYGATE_CACHE_TTL_MS: '600000' };

let t: TestApp;
let peer: Awaited<ReturnType<typeof createPeerApp>> | null = null;

beforeAll(async () => {
  t = await createTestApp(LONG_TTL);
});
afterAll(async () => {
  await peer?.close();
  await t?.close();
});

describe('sandbox behaviours across processes', () => {
  it('a behaviour set, then reset, through one instance is what the other one reads next', async () => {
    peer = await createPeerApp(t, LONG_TTL);
    const m = await t.merchant();
    const svc = m.service_uuid!;
    const lookup = peer.m.services.sandboxBehaviours.lookup;
    // the peer caches "no behaviour" for 10 minutes
    expect(await lookup(svc)).toBeNull();
    const heard = () =>
      new Promise<void>((resolve) => {
        const off = peer!.p.invalidation.onInvalidate((table) => {
          if (table !== null && table !== `${t.db.schema}.service_sandbox_behaviours`) return;
          off();
          resolve();
        });
      });

    let next = heard();
    expect((await m.api.put(`/service/${svc}/sandbox-behaviour`, { outage: 'refuse', latency_ms: 5 })).status).toBe(200);
    await next;
    expect(await lookup(svc)).toEqual({ approval: [], soft_decline: 'DENIED', outage: 'refuse', latency_ms: 5 });

    next = heard();
    expect((await m.api.delete(`/service/${svc}/sandbox-behaviour`, {})).status).toBe(200);
    await next;
    expect(await lookup(svc)).toBeNull();
  });
});
