/**
 * The customers area's own routes (/dashboard/api/customers…): the merchant's customers listed and
 * searched (external id, profile name, e-mail), paged by cursor, one customer with its accounts,
 * addresses and profile; another merchant's customers are never seen; groups without `cards.read` get
 * 403. What the area does through the bridge (F10, F9) is checked here once too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUPS, can } from '../../src/modules/dashboard/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createUser, signedIn, type DashClient } from '../helpers/dashboard.js';
import { storeCard, TEST_CARDS } from '../helpers/payments.js';
import { useTestSeed } from '../helpers/seed.js';
import fc from 'fast-check';

useTestSeed(import.meta.url);

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;
let manager: DashClient;

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_DASHBOARD_LOCKOUT_FAILURES: '1000' });
  a = await t.merchant({ name: 'Customers Shop', isPci: true });
  b = await t.merchant({ name: 'Other Shop', isPci: true });
  // 7 customers of A (c-01 … c-07), two with a profile; one of B
  for (let i = 1; i <= 7; i++) expect((await a.api.post('/customer', { customer_ext_id: `c-0${i}` })).status).toBe(200);
  const prof = await a.api.post('/customer/profile', { external_id: 'c-03', first_name: 'Lucía', last_name: 'Martín', email: 'Lucia.Martin@Example.com' });
  expect(prof.status, prof.raw).toBe(200);
  const addr = await a.api.post('/customer/address', { external_id: 'c-03', address1: 'Calle Mayor 1', city: 'Madrid', country: 'ESP', default: true, state_code: 'M', type: 'BILLING', zip_code: '28013' });
  expect(addr.status, addr.raw).toBe(200);
  const acc = await a.api.post('/customer/account', { external_id: 'c-03', account_type: 'PERSONAL', account_number: '12345678' });
  expect(acc.status, acc.raw).toBe(200);
  expect((await b.api.post('/customer', { customer_ext_id: 'c-99-other' })).status).toBe(200);
  manager = await signedIn(t.app, await createUser(a, 'MANAGER'));
}, 120_000);
afterAll(async () => t?.close());

describe('the customers list', () => {
  it('pages in external id order with a cursor, every customer once, none of another merchant', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await manager.get('/customers', { limit: '3', ...(cursor ? { cursor } : {}) });
      expect(r.status, r.raw).toBe(200);
      expect(r.body.customers.length).toBeLessThanOrEqual(3);
      seen.push(...r.body.customers.map((c: { external_id: string }) => c.external_id));
      cursor = r.body.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual(['c-01', 'c-02', 'c-03', 'c-04', 'c-05', 'c-06', 'c-07']);
    expect(pages).toBe(3);
  });

  it('finds by part of the external id, the name or the e-mail, in any case', async () => {
    const ids = async (q: string) => ((await manager.get('/customers', { q })).body.customers as { external_id: string }[]).map((c) => c.external_id);
    expect(await ids('C-05')).toEqual(['c-05']);
    expect(await ids('martín')).toEqual(['c-03']);
    expect(await ids('lucia.martin@')).toEqual(['c-03']);
    expect(await ids('c-99')).toEqual([]);
    // LIKE's wildcards are searched as themselves
    expect(await ids('%')).toEqual([]);
    expect(await ids('c_0')).toEqual([]);
    const r = await manager.get('/customers', { q: 'lucía' });
    expect(r.body.customers[0]).toMatchObject({ external_id: 'c-03', name: 'Lucía Martín', email: 'Lucia.Martin@Example.com' });
  });

  it('a cursor it never gave is 400', async () => {
    expect((await manager.get('/customers', { cursor: 'not a cursor!' })).status).toBe(400);
    // a cursor that decodes to a NUL character (Postgres text cannot hold one)
    expect((await manager.get('/customers', { cursor: 'AA' })).status).toBe(400);
    expect((await manager.get('/customers', { q: 'a\u0000b' })).status).toBe(400);
  });

  it('random searches, cursors and external ids are answered, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 30, unit: 'binary' }), fc.string({ maxLength: 30 }), fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }), async (q, cursor, ext) => {
        const list = await manager.get('/customers', { q, ...(cursor ? { cursor } : {}) });
        expect(list.status, `${JSON.stringify(q)} ${JSON.stringify(cursor)} ${list.raw}`).toBeLessThan(500);
        const one = await manager.get('/customers/one', { external_id: ext });
        expect(one.status, `${JSON.stringify(ext)} ${one.raw}`).toBeLessThan(500);
      }),
      { numRuns: 25 },
    );
  });
});

describe('one customer', () => {
  it('holds its accounts, addresses and profile', async () => {
    const r = await manager.get('/customers/one', { external_id: 'c-03' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body.customer.external_id).toBe('c-03');
    expect(r.body.customer.accounts).toEqual([expect.objectContaining({ account_type: 'PERSONAL', account_number: '12345678' })]);
    expect(r.body.customer.addresses).toEqual([expect.objectContaining({ address1: 'Calle Mayor 1', city: 'Madrid', type: 'BILLING', default: true })]);
    expect(r.body.customer.profile).toMatchObject({ first_name: 'Lucía', last_name: 'Martín' });
    const bare = await manager.get('/customers/one', { external_id: 'c-01' });
    expect(bare.body.customer).toMatchObject({ accounts: [], addresses: [], profile: null });
  });

  it("another merchant's customer is 404", async () => {
    expect((await manager.get('/customers/one', { external_id: 'c-99-other' })).status).toBe(404);
    expect((await manager.get('/customers/one', { external_id: 'nobody' })).status).toBe(404);
  });

  it('its stored cards through the bridge show BIN and last 4 only, and a deleted one is gone', async () => {
    const uuid = await storeCard(t, a, TEST_CARDS.APPROVED, 'c-05');
    const list = await manager.get('/v1/customer/c-05/sources', { status: 'ALL' });
    expect(list.status, list.raw).toBe(200);
    expect(list.body.sources).toHaveLength(1);
    expect(list.raw).not.toContain(TEST_CARDS.APPROVED);
    expect(list.body.sources[0]).toMatchObject({ uuid, bin: Number(TEST_CARDS.APPROVED.slice(0, 6)), last4: TEST_CARDS.APPROVED.slice(-4) });
    const del = await manager.request('DELETE', '/v1/payment-method/card', { body: { source_uuid: uuid, customer_external_id: 'c-05' } });
    expect(del.status, del.raw).toBe(200);
    expect((await manager.get('/v1/customer/c-05/sources', { status: 'ALL' })).body.sources).toEqual([]);
  });
});

describe('roles', () => {
  it('only groups with cards.read reach the area routes; the others get 403', async () => {
    // MANAGER has it, VIEWER not (one sign-in more: signing in is a deliberately slow hash); the
    // permission of every group is the role table's, checked by one hook (dashboard-bridge.test.ts)
    const groups = GROUPS.filter((g) => g === 'VIEWER');
    expect(groups.map((g) => can(g, 'cards.read'))).toEqual([false]);
    for (const g of ['MANAGER', ...groups] as const) {
      const c = g === 'MANAGER' ? manager : await signedIn(t.app, await createUser(a, g));
      for (const [path, query] of [['/customers', {}], ['/customers/one', { external_id: 'c-03' }]] as const) {
        const r = await c.get(path, query);
        expect(r.status, `${g} ${path}`).toBe(can(g, 'cards.read') ? 200 : 403);
      }
    }
  }, 60_000);
});
