/**
 * Every route of the dashboard's JSON API, signed in as a MANAGER (so requests reach validation and
 * the handlers) and signed out: malformed bodies get a 4xx envelope, and random bodies, queries and
 * path parameters never cause a 5xx. Every route declares its permission (or is the public sign-in).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { listDashboardRoutes, PERMISSIONS } from '../../src/modules/dashboard/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createUser, signedIn, type DashClient, type DashUser } from '../helpers/dashboard.js';
import { paidOrder } from '../helpers/payments.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

let t: TestApp;
let a: TestMerchant;
let u: DashUser;
let c: DashClient;
let orderId: string;

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_BODY_LIMIT: '65536', PAYGATE_DASHBOARD_LOCKOUT_FAILURES: '1000', PAYGATE_DASHBOARD_LOCKOUT_FAILURES_PER_ADDRESS: '100000' });
  a = await t.merchant({ isPci: true });
  orderId = (await paidOrder(t, a)).uuid;
  u = await createUser(a, 'MANAGER');
  c = await signedIn(t.app, u);
});
afterAll(async () => t?.close());

const fill = (url: string, value: string) => url.replace(/:[A-Za-z_]+/g, encodeURIComponent(value) || 'x');

/** Signs in again when a route ended the session (sign-out, sign-out everywhere). */
async function session(): Promise<DashClient> {
  if ((await c.get('/session')).status !== 200) c = await signedIn(t.app, u);
  return c;
}

function headers(cl: DashClient, extra: Record<string, string> = {}) {
  return { cookie: cl.cookieHeader(), 'x-csrf-token': cl.csrf ?? '', 'x-forwarded-proto': 'https', ...extra };
}

function expectEnvelope4xx(status: number, body: string, label: string) {
  expect(status, label).toBeGreaterThanOrEqual(400);
  expect(status, label).toBeLessThan(500);
  const parsed = JSON.parse(body);
  expect(parsed.code, label).toBe(status);
  expect(typeof parsed.details, label).toBe('string');
}

async function read(res: { statusCode: number; headers: Record<string, unknown>; stream(): NodeJS.ReadableStream }, label: string): Promise<void> {
  const body = res.stream();
  if (res.statusCode === 200) {
    expect(String(res.headers['content-type']), label).toMatch(/^text\/event-stream/);
    (body as unknown as { destroy(): void }).destroy();
    return;
  }
  const text = await new Promise<string>((resolve, reject) => {
    let out = '';
    body.on('data', (x: Buffer) => (out += x));
    body.on('end', () => resolve(out));
    body.on('error', reject);
  });
  if (res.statusCode >= 500) throw new Error(`${label} -> ${res.statusCode} ${text}`);
  expectEnvelope4xx(res.statusCode, text, label);
}

describe('the dashboard routes', () => {
  it('every route declares a permission of the role table, or is public, and there are routes of every kind', () => {
    const routes = listDashboardRoutes(t.app);
    expect(routes.length).toBeGreaterThan(30);
    for (const r of routes) {
      if (r.dashboard.public) continue;
      // the bridge's permission is the called operation's (API_OPERATIONS: test/http/dashboard-bridge.test.ts)
      if (r.dashboard.bridge) continue;
      if (r.dashboard.permission) expect(PERMISSIONS, `${r.method} ${r.url}`).toContain(r.dashboard.permission);
      else expect(r.url, `${r.method} ${r.url} has no permission: only the user's own session and account may`).toMatch(/\/(session|account)(\/|$)/);
    }
  });

  it('malformed bodies are 4xx envelopes', async () => {
    for (const r of listDashboardRoutes(t.app).filter((x) => x.hasBody)) {
      const cl = await session();
      const url = fill(r.url, orderId);
      for (const [label, type, payload] of [
        ['text/plain', 'text/plain', 'a=1'],
        ['broken JSON', 'application/json', '{"login":'],
        ['empty JSON', 'application/json', ''],
        ['array', 'application/json', '[1]'],
        ['oversized', 'application/json', JSON.stringify({ pad: 'x'.repeat(70_000) })],
      ] as const) {
        const res = await t.app.inject({ method: r.method as any, url, headers: headers(cl, { 'content-type': type }), payload });
        expectEnvelope4xx(res.statusCode, res.body, `${r.method} ${r.url} ${label}`);
      }
    }
  });
});

describe('the NUL character (PostgreSQL text cannot hold it)', () => {
  it('in a query field, a path parameter or a body field of any route is 400 naming it, before any handler', async () => {
    for (const r of listDashboardRoutes(t.app)) {
      // the sign-in's own steps (public, or a stage before ACTIVE) are not open to a signed-in user
      if (r.dashboard.public || (r.dashboard.stages && !r.dashboard.stages.includes('ACTIVE'))) continue;
      const cl = await session();
      const body = r.hasBody ? { payload: JSON.stringify({ name: 'a\u0000b' }) } : {};
      const type: Record<string, string> = r.hasBody ? { 'content-type': 'application/json' } : {};
      const q = await t.app.inject({ method: r.method as any, url: fill(r.url, orderId), query: { external_id: 'a\u0000b' }, headers: headers(cl, type), ...body });
      expect(q.statusCode, `${r.method} ${r.url} ${q.body}`).toBe(400);
      expect(q.json().details, `${r.method} ${r.url}`).toMatch(/^querystring\/external_id must not contain the NUL character/);
      if (r.url.includes(':')) {
        const p = await t.app.inject({ method: r.method as any, url: fill(r.url, 'a\u0000b'), headers: headers(cl, type), ...body });
        expect(p.statusCode, `${r.method} ${r.url} ${p.body}`).toBe(400);
        expect(p.json().details, `${r.method} ${r.url}`).toMatch(/^params\/\w+ must not contain the NUL character/);
      }
      if (r.hasBody) {
        const b = await t.app.inject({ method: r.method as any, url: fill(r.url, orderId), headers: headers(cl, type), ...body });
        expect(b.statusCode, `${r.method} ${r.url} ${b.body}`).toBe(400);
        expect(b.json().details, `${r.method} ${r.url}`).toMatch(/^body\/name must not contain the NUL character/);
      }
    }
  });
});

describe('values at the edge of what the database holds', () => {
  it('a date before year 1 and a cursor past a bigint are 400, not a database error', async () => {
    const cl = await session();
    const get = (url: string) => t.app.inject({ method: 'GET', url: `/dashboard/api${url}`, headers: headers(cl) });
    for (const url of ['/orders?from=0000-01-01', '/orders?to=0000-12-31', '/orders/export.csv?from=0000-01-01', '/orders?from=0001-01-01T00:00:00%2B01:00']) {
      const r = await get(url);
      expect(r.statusCode, `${url} ${r.body}`).toBe(400);
      expect(r.json().details, url).toMatch(/must be a date \(YYYY-MM-DD or ISO 8601\) from year 1/);
    }
    // year 1 itself is a date PostgreSQL holds
    expect((await get('/orders?from=0001-01-01')).statusCode).toBe(200);
    const audit = await get('/audit?cursor=99999999999999999999');
    expect(audit.statusCode, audit.body).toBe(400);
    expect((await get('/audit?cursor=999999999999999999')).statusCode).toBe(200);
  });
});

describe('property: random input never causes a 5xx', () => {
  const junk = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(null, true, -1, 0, 1e20, '', 'sandbox', 'production', 'MANAGER', 'VIEWER', 'ES', 'SUCCESS', '0004', '2026-02-30', 'all', 'payment'),
  );
  const fields = ['login', 'password', 'current_password', 'new_password', 'env', 'merchant_uuid', 'language', 'amount', 'metadata', 'name', 'filters', 'profiles', 'description', 'username', 'email', 'group', 'status', 'code', 'recovery_code', 'token'];

  it('bodies, signed in (with the CSRF token), on every route with a body', async () => {
    for (const r of listDashboardRoutes(t.app).filter((x) => x.hasBody)) {
      await fc.assert(
        fc.asyncProperty(fc.dictionary(fc.oneof(fc.constantFrom(...fields), fc.string({ maxLength: 8 })), junk, { maxKeys: 6 }), fc.oneof(fc.uuid(), fc.constant(orderId), fc.string({ maxLength: 40 })), async (body, param) => {
          const cl = await session();
          const res = await t.app.inject({ method: r.method as any, url: fill(r.url, param), headers: headers(cl, { 'content-type': 'application/json' }), payload: JSON.stringify(body) });
          if (res.statusCode >= 500) throw new Error(`${r.method} ${r.url} -> ${res.statusCode} ${res.body} for ${JSON.stringify(body)}`);
          if (!r.csv) expect(() => JSON.parse(res.body)).not.toThrow();
        }),
        { numRuns: 20 },
      );
    }
  });

  it('queries and path parameters of every route, signed in and signed out', async () => {
    for (const r of listDashboardRoutes(t.app)) {
      await fc.assert(
        fc.asyncProperty(fc.dictionary(fc.oneof(fc.constantFrom('status', 'from', 'to', 'amount_min', 'last4', 'q', 'cursor', 'limit', 'request_id', 'user', 'action'), fc.string({ maxLength: 10 })), fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('0000-01-01', '9999-12-31', '2026-02-30', '99999999999999999999', '-1', '1e309')), { maxKeys: 5 }), fc.oneof(fc.uuid(), fc.string({ maxLength: 60 })), fc.boolean(), async (query, param, signedOut) => {
          const cl = await session();
          const res = await t.app.inject({
            method: r.method as any,
            url: fill(r.url, param),
            query,
            headers: signedOut ? { 'x-forwarded-proto': 'https', ...(r.hasBody ? { 'content-type': 'application/json' } : {}) } : headers(cl, r.hasBody ? { 'content-type': 'application/json' } : {}),
            payload: r.hasBody ? '{}' : undefined,
            ...(r.stream ? { payloadAsStream: true } : {}),
          });
          const label = `${r.method} ${r.url} ${JSON.stringify(query)}`;
          if (r.stream) return read(res as never, label);
          if (res.statusCode >= 500) throw new Error(`${label} -> ${res.statusCode} ${res.body}`);
          if (signedOut && !r.dashboard.public) expect(res.statusCode, label).toBe(401);
        }),
        { numRuns: 15 },
      );
    }
  }, 240_000);
});
