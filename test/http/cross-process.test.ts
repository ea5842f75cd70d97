/**
 * Several gateway processes on one database: a key revoked through one is refused by every other at
 * once (LISTEN/NOTIFY drops their caches), and with Redis configured a rate limit holds across them.
 * Each "process" is a gateway instance of its own (platform, caches, limiter and, on PostgreSQL, its own
 * pool and listening connection) on the same schema.
 */
import net from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeerApp, createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';

const LONG_TTL = { PAYGATE_CACHE_TTL_MS: '600000' };
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let t: TestApp;
let peers: Array<Awaited<ReturnType<typeof createPeerApp>>> = [];

beforeAll(async () => {
  t = await createTestApp(LONG_TTL);
});
afterAll(async () => {
  for (const p of peers) await p.close();
  await t?.close();
});

async function peer(env: Record<string, string>) {
  const p = await createPeerApp(t, env);
  peers.push(p);
  return p;
}

/** Resolves when the instance hears that `table` of this test's schema changed. */
function nextInvalidation(p: { p: TestApp['p'] }, table: string): Promise<void> {
  return new Promise((resolve) => {
    const off = p.p.invalidation.onInvalidate((changed) => {
      if (changed !== `${t.db.schema}.${table}`) return;
      off();
      resolve();
    });
  });
}

describe('key revocation across processes', () => {
  it('a key revoked through one instance is refused by the other at once (not after the cache TTL)', async () => {
    const b = await peer(LONG_TTL);
    const stale = await peer({ ...LONG_TTL, PAYGATE_CACHE_INVALIDATION: 'false' });
    const m: TestMerchant = await t.merchant();
    // every instance has the key in its cache (10 minutes)
    expect((await m.api.get('/auth/check')).status).toBe(200);
    expect((await b.api(m).get('/auth/check')).status).toBe(200);
    expect((await stale.api(m).get('/auth/check')).status).toBe(200);

    const heard = nextInvalidation(b, 'api_keys');
    await t.m.merchants.revokeKey(m.key_id);
    await heard;
    expect((await m.api.get('/auth/check')).status).toBe(401);
    const r = await b.api(m).get('/auth/check');
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ code: 401 });
    // an instance that does not listen still serves the key from its cache: the notification did it
    expect((await stale.api(m).get('/auth/check')).status).toBe(200);
  });

  it('a change in another schema of the same database drops nothing (another deployment, another test)', async (ctx) => {
    if (t.db.kind !== 'postgres') ctx.skip(); // the embedded database is one process's: nothing else notifies
    const b = await peer(LONG_TTL);
    const dropped: Array<string | null> = [];
    b.p.invalidation.onInvalidate((changed) => dropped.push(changed));
    const ours = nextInvalidation(b, 'merchants');
    await sql`select pg_notify('paygate_invalidate', 'some_other_schema.api_keys')`.execute(t.p.database.db);
    await sql`select pg_notify('paygate_invalidate', ${`${t.db.schema}.merchants`})`.execute(t.p.database.db);
    await ours; // delivered in order: the other schema's came first, and was not passed on
    expect(dropped).toEqual([`${t.db.schema}.merchants`]);
  });

  it('a change to services reaches the other instance', async () => {
    const b = await peer(LONG_TTL);
    const heard = nextInvalidation(b, 'services');
    await t.p.database.db.updateTable('services').set({ enabled: false } as never).where('id', '=', '00000000-0000-0000-0000-000000000000').execute();
    await heard; // a statement on services notifies even when it changes no row
  });
});

async function redisReachable(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = net.connect({ host: u.hostname, port: Number(u.port || 6379) });
    s.setTimeout(1000);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
  });
}

describe('rate limits across processes', () => {
  it('without Redis each instance keeps its own buckets', async () => {
    const a = await peer({ PAYGATE_RATE_LIMIT_SANDBOX: '5' });
    const b = await peer({ PAYGATE_RATE_LIMIT_SANDBOX: '5' });
    const m = await t.merchant();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await (i % 2 ? b : a).api(m).get('/auth/check')).status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(10);
  });

  it('with Redis one limit holds across two instances', async (ctx) => {
    if (!(await redisReachable(REDIS_URL))) {
      if (process.env.CI) throw new Error(`Redis is required in CI (${REDIS_URL})`);
      console.warn(`SKIPPED: no Redis at ${REDIS_URL}; the shared rate limit test needs one (set TEST_REDIS_URL)`);
      ctx.skip();
    }
    const env = { PAYGATE_RATE_LIMIT_SANDBOX: '5', PAYGATE_REDIS_URL: REDIS_URL };
    const a = await peer(env);
    const b = await peer(env);
    const m = await t.merchant();
    const statuses: number[] = [];
    let retryAfter: unknown;
    for (let i = 0; i < 12; i++) {
      const r = await (i % 2 ? b : a).api(m).get('/auth/check');
      statuses.push(r.status);
      if (r.status === 429) retryAfter = r.headers['retry-after'];
    }
    // one bucket of 5 (plus at most one refilled token while the requests run), not 5 per instance
    const allowed = statuses.filter((s) => s === 200).length;
    expect(allowed).toBeGreaterThanOrEqual(5);
    expect(allowed).toBeLessThanOrEqual(6);
    expect(statuses.slice(-3)).toEqual([429, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    // another key has its own bucket
    const other = await t.merchant();
    expect((await b.api(other).get('/auth/check')).status).toBe(200);
  });
});
