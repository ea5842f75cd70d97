/** Security lists (L1–L9 and the items of a list): the resource, its items, and what is stored of them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import fc from 'fast-check';
import { ITEM_TYPES } from '../../src/modules/risk/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { storeCard } from '../helpers/payments.js';
import { freshCard, newService } from '../helpers/risk.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

let t: TestApp;
let m: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  m = await t.merchant({ isPci: true });
  other = await t.merchant();
});
afterAll(async () => t?.close());

const create = (mm: TestMerchant, body: Record<string, unknown>) => mm.api.post('/security-list', body);

describe('lists', () => {
  it('L1 creates, L2 lists by type, L3 reads, L5 enables and disables, L4 deletes', async () => {
    const black = await create(m, { type: 'BLACKLIST', enabled: true, description: 'chargebacks' });
    expect(black.status, black.raw).toBe(200);
    expect(black.body.colorlists).toMatchObject({ type: 'BLACKLIST', enabled: true, description: 'chargebacks', services: [], items_count: 0 });
    const grey = await create(m, { type: 'GREYLIST', enabled: false, description: '' });
    expect(grey.body.colorlists).toMatchObject({ type: 'GREYLIST', enabled: false });
    const all = await m.api.get('/security-lists');
    expect(all.body.colorlists.map((l: any) => l.uuid)).toEqual([black.body.colorlists.uuid, grey.body.colorlists.uuid]);
    const greys = await m.api.get('/security-lists', { type: 'GREYLIST' });
    expect(greys.body.colorlists.map((l: any) => l.uuid)).toEqual([grey.body.colorlists.uuid]);
    const id = black.body.colorlists.uuid;
    expect((await m.api.get(`/security-list/${id.toUpperCase()}`)).body.colorlists.uuid).toBe(id);
    const off = await m.api.put(`/security-list/${id}/enabled`, { enabled: false });
    expect(off.body.colorlists.enabled).toBe(false);
    expect((await m.api.get(`/security-list/${id}`)).body.colorlists.enabled).toBe(false);
    expect((await m.api.delete(`/security-list/${id}`)).status).toBe(200);
    expect((await m.api.get(`/security-list/${id}`)).status).toBe(404);
    expect((await m.api.delete(`/security-list/${id}`)).status).toBe(404);
  });

  it('bad input is 400 naming the field; another merchant\'s list is 404; profiles', async () => {
    expect((await create(m, { type: 'REDLIST', enabled: true, description: 'x' })).body.details).toMatch(/type/);
    expect((await create(m, { type: 'BLACKLIST', description: 'x' })).body.details).toMatch(/enabled/);
    expect((await create(m, { type: 'BLACKLIST', enabled: true })).body.details).toMatch(/description/);
    expect((await m.api.get('/security-lists', { type: 'PINK' })).status).toBe(400);
    const mine = (await create(m, { type: 'WHITELIST', enabled: true, description: 'mine' })).body.colorlists.uuid;
    expect((await other.api.get(`/security-list/${mine}`)).status).toBe(404);
    expect((await other.api.put(`/security-list/${mine}/enabled`, { enabled: false })).status).toBe(404);
    expect((await other.api.post(`/security-list/${mine}/items`, { items: [{ type: 'BIN', value: '454881' }] })).status).toBe(404);
    expect((await other.api.get('/security-lists')).body.colorlists).toEqual([]);
    // the sandbox list is not a production one
    expect((await m.api.withEnv('production').get(`/security-list/${mine}`)).status).toBe(401);
    const ro = await t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, m.client_uuid, 'sandbox', ['readonly']));
    const readonly = m.api.withCreds({ api_key: ro.apiKey, signature: ro.signature });
    expect((await readonly.get(`/security-list/${mine}`)).status).toBe(200);
    expect((await readonly.get(`/security-list/${mine}/items`)).status).toBe(200);
    const denied = await readonly.post('/security-list', { type: 'BLACKLIST', enabled: true, description: 'x' });
    expect(denied.status).toBe(403);
    expect(denied.body.details).toMatch(/payment/);
    const pay = await t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, m.client_uuid, 'sandbox', ['payment']));
    expect((await m.api.withCreds({ api_key: pay.apiKey, signature: pay.signature }).post('/security-list', { type: 'BLACKLIST', enabled: true, description: 'x' })).status).toBe(200);
  });

  it('L6 links own services only, L7 unlinks (404 when not linked); L3 shows them', async () => {
    const id = (await create(m, { type: 'BLACKLIST', enabled: true, description: 'links' })).body.colorlists.uuid;
    const second = await newService(m);
    expect((await m.api.post(`/security-list/${id}/service`, { service_uuid: m.service_uuid })).status).toBe(200);
    expect((await m.api.post(`/security-list/${id}/service`, { service_uuid: m.service_uuid })).status).toBe(200);
    expect((await m.api.post(`/security-list/${id}/service`, { service_uuid: second })).status).toBe(200);
    expect((await m.api.get(`/security-list/${id}`)).body.colorlists.services.sort()).toEqual([m.service_uuid, second].sort());
    expect((await m.api.post(`/security-list/${id}/service`, { service_uuid: other.service_uuid })).status).toBe(404);
    expect((await m.api.post(`/security-list/${id}/service`, { service_uuid: 'not-a-uuid' })).status).toBe(400);
    expect((await m.api.delete(`/security-list/${id}/service`, { service_uuid: second })).status).toBe(200);
    expect((await m.api.delete(`/security-list/${id}/service`, { service_uuid: second })).status).toBe(404);
    expect((await m.api.get(`/security-list/${id}`)).body.colorlists.services).toEqual([m.service_uuid]);
  });
});

describe('items', () => {
  it('L8 adds items of every type; duplicates are skipped; one bad item adds nothing', async () => {
    const id = (await create(m, { type: 'BLACKLIST', enabled: true, description: 'items' })).body.colorlists.uuid;
    const pan = freshCard();
    const stored = await storeCard(t, m, freshCard(), 'cust-items');
    const items = [
      { type: 'CARD', value: pan, description: 'chargeback' },
      { type: 'CARD_UUID', value: stored },
      { type: 'BIN', value: '454881' },
      { type: 'EMAIL', value: 'Fraud@Example.com' },
      { type: 'IP', value: '198.51.100.0/24' },
      { type: 'IP', value: '2001:db8::7' },
      { type: 'COUNTRY', value: 'fr' },
      { type: 'CUSTOMER', value: 'bad-customer' },
      { type: 'PHONE', value: '+34 600 000 001' },
    ];
    const r = await m.api.post(`/security-list/${id}/items`, { items });
    expect(r.status, r.raw).toBe(200);
    expect(r.body).toMatchObject({ added: 9, items_count: 9 });
    const again = await m.api.post(`/security-list/${id}/items`, { items: [{ type: 'EMAIL', value: 'fraud@example.COM' }, { type: 'BIN', value: '45488120' }] });
    expect(again.body).toMatchObject({ added: 1, items_count: 10 });
    const bad = await m.api.post(`/security-list/${id}/items`, { items: [{ type: 'BIN', value: '411111' }, { type: 'IP', value: '300.0.0.1' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toMatch(/^items\[1\]: /);
    expect((await m.api.post(`/security-list/${id}/items`, { items: [{ type: 'CARD_UUID', value: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f' }] })).status).toBe(400);
    expect((await m.api.post(`/security-list/${id}/items`, { items: [] })).status).toBe(400);
    const list = await m.api.get(`/security-list/${id}/items`);
    expect(list.body.count).toBe(10);
    expect(list.body.items.map((i: any) => [i.type, i.value])).toEqual([
      ['CARD', `${pan.slice(0, 6)}******${pan.slice(-4)}`],
      ['CARD_UUID', stored],
      ['BIN', '454881'],
      ['EMAIL', 'fraud@example.com'],
      ['IP', '198.51.100.0/24'],
      ['IP', '2001:db8::7'],
      ['COUNTRY', 'FR'],
      ['CUSTOMER', 'bad-customer'],
      ['PHONE', '+34600000001'],
      ['BIN', '45488120'],
    ]);
    // the card number is nowhere in the database: only its keyed fingerprint, BIN and last 4
    const { rows } = await sql<{ j: string }>`select row_to_json(i)::text as j from risk_list_items i`.execute(t.p.database.db);
    const dump = rows.map((x) => x.j).join('\n');
    expect(dump).not.toContain(pan);
    expect(dump).not.toContain(pan.slice(6, 12));
    expect(dump).toContain(`CARD:${t.p.vault.fingerprint('pan', pan)}`);
  });

  it('L9 removes by uuid or by value; GET pages through the items', async () => {
    const id = (await create(m, { type: 'GREYLIST', enabled: true, description: 'paging' })).body.colorlists.uuid;
    const emails = Array.from({ length: 250 }, (_, i) => ({ type: 'EMAIL', value: `user${i}@example.com` }));
    const pan = freshCard();
    const stored = await storeCard(t, m, freshCard(), 'cust-items');
    await m.api.post(`/security-list/${id}/items`, { items: [...emails, { type: 'CARD', value: pan }, { type: 'IP', value: '192.0.2.0/25' }, { type: 'CARD_UUID', value: stored }] });
    const p1 = await m.api.get(`/security-list/${id}/items`, { limit: '100' });
    expect(p1.body).toMatchObject({ count: 253, next_offset: 100 });
    expect(p1.body.items[0].value).toBe('user0@example.com');
    const p3 = await m.api.get(`/security-list/${id}/items`, { limit: '100', offset: '200' });
    expect(p3.body.items).toHaveLength(53);
    expect(p3.body.next_offset).toBeNull();
    expect((await m.api.get(`/security-list/${id}/items`, { limit: '5000' })).status).toBe(400);
    const uuid = p1.body.items[1].uuid;
    const r = await m.api.delete(`/security-list/${id}/items`, { items: [uuid, 'USER2@example.com', pan, '192.0.2.0/25', stored, 'nothing@example.com'] });
    expect(r.status, r.raw).toBe(200);
    expect(r.body).toMatchObject({ removed: 5, items_count: 248 });
    const left = await m.api.get(`/security-list/${id}/items`, { limit: '1000' });
    const values = left.body.items.map((i: any) => i.value);
    expect(values).not.toContain('user1@example.com');
    expect(values).not.toContain('user2@example.com');
    expect(left.body.items.some((i: any) => i.type !== 'EMAIL')).toBe(false);
    expect((await m.api.get(`/security-list/${id}`)).body.colorlists.items_count).toBe(248);
  });

  it('random items and removals never cause a 5xx and never half-apply (property)', async () => {
    const id = (await create(m, { type: 'BLACKLIST', enabled: true, description: 'fuzz' })).body.colorlists.uuid;
    const value = fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.ipV4(), fc.ipV6(), fc.emailAddress(), fc.uuid(), fc.constantFrom('454881', '4548812049400004', '+34600000000', 'ES', '10.0.0.0/8', '::/0', ''), fc.constant(null));
    const item = fc.record({ type: fc.oneof(fc.constantFrom(...ITEM_TYPES), fc.string({ maxLength: 10 })), value, description: fc.option(fc.string({ maxLength: 20 })) });
    await fc.assert(
      fc.asyncProperty(fc.array(item, { maxLength: 6 }), fc.array(fc.oneof(fc.string({ maxLength: 30 }), fc.uuid()), { maxLength: 4 }), async (items, removals) => {
        const before = (await m.api.get(`/security-list/${id}`)).body.colorlists.items_count;
        const add = await m.api.post(`/security-list/${id}/items`, { items });
        if (add.status >= 500) throw new Error(`add -> ${add.status} ${add.raw}`);
        const after = (await m.api.get(`/security-list/${id}`)).body.colorlists.items_count;
        if (add.status !== 200) expect(after).toBe(before);
        else expect(after).toBe(before + add.body.added);
        const del = await m.api.delete(`/security-list/${id}/items`, { items: removals });
        if (del.status >= 500) throw new Error(`remove -> ${del.status} ${del.raw}`);
      }),
      { numRuns: 40 },
    );
    const all = await m.api.get(`/security-list/${id}/items`, { limit: '1000' });
    expect(all.body.items.length).toBe(all.body.count);
  });

  it('a list holds 100,000 items and a payment\'s look-up is one indexed query', async () => {
    const id = (await create(m, { type: 'BLACKLIST', enabled: true, description: 'large' })).body.colorlists.uuid;
    await m.api.post(`/security-list/${id}/service`, { service_uuid: m.service_uuid });
    for (let chunk = 0; chunk < 10; chunk++) {
      const items = Array.from({ length: 10_000 }, (_, i) => ({ type: 'EMAIL', value: `bulk${chunk * 10_000 + i}@example.net` }));
      const r = await m.api.post(`/security-list/${id}/items`, { items });
      expect(r.status, r.raw.slice(0, 200)).toBe(200);
    }
    expect((await m.api.get(`/security-list/${id}`)).body.colorlists.items_count).toBe(100_000);
    await sql`analyze risk_list_items`.execute(t.p.database.db);
    const { rows } = await sql<Record<string, string>>`explain select l.type from risk_lists l join risk_list_items i on i.list_id = l.id
      where l.id = any(${[id]}::uuid[]) and i.match_key = any(${['EMAIL:bulk99999@example.net', 'CARD:x', 'BIN:454881']}::text[])`.execute(t.p.database.db);
    const plan = rows.map((r) => Object.values(r)[0]).join('\n');
    expect(plan).toMatch(/Index (Only )?Scan using risk_list_items_key/);
    expect(plan).not.toMatch(/Seq Scan on risk_list_items/);
  });
});
