/**
 * Paging contracts of the big lists: GET /orders (offset paging as before, keyset paging with
 * `cursor`/`next_cursor`, a capped count), GET /events (capped count) and a customer's sources
 * (optional `limit` + `cursor`, same entries as the unpaged list).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { paidOrder, storeCard, TEST_CARDS } from '../helpers/payments.js';
import * as paymentsRepo from '../../src/modules/payments/list.repo.js';

let t: TestApp;
let parent: TestMerchant;
let child: TestMerchant;
let stranger: TestMerchant;
let expected: string[];

beforeAll(async () => {
  t = await createTestApp();
  parent = await t.merchant({ timezone: 'UTC' });
  child = await t.merchant({ parentId: parent.client_uuid, timezone: 'UTC' });
  stranger = await t.merchant({ timezone: 'UTC' });
  for (let i = 0; i < 3; i++) await paidOrder(t, parent, { service: parent.service_uuid });
  for (let i = 0; i < 2; i++) await paidOrder(t, child, { service: child.service_uuid });
  await paidOrder(t, stranger, { service: stranger.service_uuid });
  // five more transactions stored in the same instant as one of the parent's: paging must order ties
  const { rows } = await sql<{ id: string }>`select id from transactions where merchant_id = ${parent.client_uuid} order by created_at limit 1`.execute(t.p.database.db);
  for (let i = 0; i < 5; i++) {
    await sql`insert into transactions select ${randomUUID()}::uuid as id, order_id, merchant_id, operative, processor_operation, amount, status, error, auth_code,
        processor_id, source_id, source_json, antifraud, device, error_details, customer_ip, awaiting_3ds, metadata, created_at, updated_at, started_at
      from transactions where id = ${rows[0].id}`.execute(t.p.database.db);
  }
  const all = await parent.api.get('/orders');
  expect(all.status, all.raw).toBe(200);
  expected = all.body.transactions.map((x: any) => x.uuid);
});
afterAll(async () => t?.close());

describe('GET /orders paging', () => {
  it('lists the merchant and its children, oldest first (ties by id), with an exact count below the cap', async () => {
    const all = await parent.api.get('/orders');
    expect(all.body).toMatchObject({ count: 10, count_capped: false, next_offset: null, next_cursor: null });
    expect(expected).toHaveLength(10);
    expect(new Set(expected).size).toBe(10);
    const rows = all.body.transactions;
    const { rows: stored } = await sql<{ id: string }>`select id from transactions where merchant_id in (${parent.client_uuid}, ${child.client_uuid})
      order by created_at, id`.execute(t.p.database.db);
    expect(expected).toEqual(stored.map((r) => r.id));
    expect(new Set(rows.map((x: any) => x.client_uuid))).toEqual(new Set([parent.client_uuid, child.client_uuid]));
  });

  it('offset paging keeps working: next_offset walks the list and is null on the last page', async () => {
    const seen: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const r = await parent.api.get('/orders', { limit: '3', offset: String(offset) });
      expect(r.status, r.raw).toBe(200);
      expect(r.body.count).toBe(10);
      seen.push(...r.body.transactions.map((x: any) => x.uuid));
      offset = r.body.next_offset;
      pages++;
    }
    expect(pages).toBe(4);
    expect(seen).toEqual(expected);
  });

  it('keyset paging: cursor in, next_cursor out, the same rows as offset paging, null at the end', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: Record<string, string> = { limit: '3' };
      if (cursor) q.cursor = cursor;
      const r = await parent.api.get('/orders', q);
      expect(r.status, r.raw).toBe(200);
      expect(r.body.count).toBe(10);
      if (cursor) expect(r.body.next_offset).toBeNull();
      seen.push(...r.body.transactions.map((x: any) => x.uuid));
      cursor = r.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(seen).toEqual(expected);
  });

  it('a page that ends exactly at the end has no next page', async () => {
    const r = await parent.api.get('/orders', { limit: '10' });
    expect(r.body.transactions).toHaveLength(10);
    expect(r.body.next_offset).toBeNull();
    expect(r.body.next_cursor).toBeNull();
    const nine = await parent.api.get('/orders', { limit: '9' });
    expect(nine.body.next_offset).toBe(9);
    const rest = await parent.api.get('/orders', { limit: '9', cursor: nine.body.next_cursor });
    expect(rest.body.transactions.map((x: any) => x.uuid)).toEqual(expected.slice(9));
    expect(rest.body.next_cursor).toBeNull();
  });

  it('cursor with offset, or a cursor that is not one, is 400', async () => {
    const first = await parent.api.get('/orders', { limit: '3' });
    const both = await parent.api.get('/orders', { limit: '3', offset: '3', cursor: first.body.next_cursor });
    expect(both.status).toBe(400);
    expect(both.body.details).toMatch(/cursor and offset/);
    for (const bad of ['nope', Buffer.from(`t1:${randomUUID()}`).toString('base64url'), 'x'.repeat(201)]) {
      const r = await parent.api.get('/orders', { cursor: bad });
      expect(r.status, bad).toBe(400);
    }
  });

  it('the count stops at its cap and says so (count_capped), with paging unaffected', async () => {
    const ids = [parent.client_uuid, child.client_uuid];
    const zones = { server: 'UTC', merchant: 'UTC' };
    const capped = await paymentsRepo.listTransactionsJson(t.p.database.db, { merchantIds: ids, limit: 2, offset: 0, countCap: 4 }, zones);
    expect(capped).toMatchObject({ count: 4, capped: true, more: true });
    expect(capped.rows.map((r) => r.id)).toEqual(expected.slice(0, 2));
    const exact = await paymentsRepo.listTransactionsJson(t.p.database.db, { merchantIds: ids, limit: 2, offset: 0, countCap: 10 }, zones);
    expect(exact).toMatchObject({ count: 10, capped: false });
  });

  it('a child sees only its own transactions', async () => {
    const r = await child.api.get('/orders', { limit: '1' });
    expect(r.body.count).toBe(2);
    const next = await child.api.get('/orders', { limit: '1', cursor: r.body.next_cursor });
    expect(next.body.transactions).toHaveLength(1);
    expect(next.body.next_cursor).toBeNull();
    expect(next.body.transactions[0].client_uuid).toBe(child.client_uuid);
  });
});

describe('GET /events count', () => {
  it('counts the matching events and pages with next_offset (count_capped false below the cap)', async () => {
    const m = await t.merchant({ timezone: 'UTC' });
    for (let i = 0; i < 3; i++) await paidOrder(t, m, { service: m.service_uuid, url_post: 'http://127.0.0.1:9/hook' });
    const r = await m.api.get('/events', { limit: '2' });
    expect(r.status, r.raw).toBe(200);
    expect(r.body).toMatchObject({ count: 3, count_capped: false, next_offset: 2 });
    const f = await m.api.get('/events', { status: 'PENDING', limit: '2', offset: '2' });
    expect(f.body).toMatchObject({ count: 3, next_offset: null });
    expect(f.body.events).toHaveLength(1);
  });
});

describe('customer sources paging', () => {
  it('limit + cursor give the same entries as the unpaged list, for every listing option', async () => {
    const m = await t.merchant({ timezone: 'UTC' });
    const pans = [TEST_CARDS.APPROVED, TEST_CARDS.REFUSED_VISA, TEST_CARDS.APPROVED, TEST_CARDS.PARTIAL, TEST_CARDS.APPROVED, TEST_CARDS.REFUSED_VISA, TEST_CARDS.FRICTIONLESS];
    for (const pan of pans) await storeCard(t, m, pan, 'many-cards');
    // one of them paid with: validated
    await paidOrder(t, m, { service: m.service_uuid, customer_ext_id: 'many-cards' });
    const queries: Record<string, string>[] = [{ status: 'ALL' }, { status: 'ALL', unique: 'true' }, {}, { unique: 'true' }, { status: 'ALL', sourceType: 'card' }];
    for (const q of queries) {
      const whole = await m.api.get('/customer/many-cards/sources', q);
      expect(whole.status, whole.raw).toBe(200);
      expect(whole.body.next_cursor).toBeUndefined();
      const want = whole.body.sources.map((s: any) => s.uuid);
      const got: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r = await m.api.get('/customer/many-cards/sources', { ...q, limit: '2', ...(cursor ? { cursor } : {}) });
        expect(r.status, r.raw).toBe(200);
        expect(r.body.sources.length).toBeLessThanOrEqual(2);
        got.push(...r.body.sources.map((s: any) => s.uuid));
        cursor = r.body.next_cursor;
        pages++;
      } while (cursor && pages < 20);
      expect(got, JSON.stringify(q)).toEqual(want);
    }
    const all = await m.api.get('/customer/many-cards/sources', { status: 'ALL' });
    expect(all.body.sources.length).toBe(8);
  });

  it('a cursor of another customer is 400', async () => {
    const m = await t.merchant();
    const other = await storeCard(t, m, TEST_CARDS.APPROVED, 'someone-else');
    await storeCard(t, m, TEST_CARDS.APPROVED, 'me');
    const r = await m.api.get('/customer/me/sources', { status: 'ALL', cursor: Buffer.from(`s1:${other}`).toString('base64url') });
    expect(r.status).toBe(400);
  });
});
