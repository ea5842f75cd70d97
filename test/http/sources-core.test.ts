/** The sources core API other modules use: store, load for payment, mark validated, last used card. */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/platform/security/secret.js';
import { presentSource, type Owner } from '../../src/modules/sources/index.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;
let A: Owner;
let B: Owner;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
  b = await t.merchant();
  A = { merchantId: a.client_uuid, env: 'sandbox' };
  B = { merchantId: b.client_uuid, env: 'sandbox' };
});
afterAll(async () => t?.close());

const card = (over: Record<string, unknown> = {}) => ({
  customerExtId: 'cust-1', holder: 'Ana Pérez', pan: new Secret('4548812049400004'), expMonth: '12', expYear: '30', ...over,
});

describe('storeCard', () => {
  it('stores a new source each time, sealed, with BIN, last 4 and a keyed fingerprint', async () => {
    const s = t.m.sources;
    const one = await t.p.database.transaction((trx) => s.storeCard(trx, A, card()));
    const two = await t.p.database.transaction((trx) => s.storeCard(trx, A, card({ holder: 'Other Holder' })));
    expect(one.id).not.toBe(two.id);
    expect(one.fingerprint).toBe(two.fingerprint);
    expect(one.fingerprint).toBe(t.p.vault.fingerprint('pan', '4548812049400004'));
    expect(one).toMatchObject({ bin: '454881', last4: '0004', brand: 'VISA', expire_month: 12, expire_year: 2030, customer_ext_id: 'cust-1' });
    const stored = await t.p.database.db.selectFrom('sources').selectAll().where('id', '=', one.id).executeTakeFirstOrThrow();
    expect(stored.number_sealed).not.toContain('4548812049400004');
    expect(stored.number_sealed).not.toContain('812049400');
    expect(t.p.vault.open(stored.number_sealed, `source:${one.id}`).reveal()).toBe('4548812049400004');
    // one customer for both
    const customers = await t.p.database.db.selectFrom('customers').selectAll().where('merchant_id', '=', a.client_uuid).execute();
    expect(customers.map((c) => c.external_id)).toEqual(['cust-1']);
  });

  it('keeps a numeric customer_ext_id as a string', async () => {
    const row = await t.p.database.transaction((trx) => t.m.sources.storeCard(trx, A, card({ customerExtId: 4242 })));
    expect(row.customer_ext_id).toBe('4242');
  });

  it('refuses Luhn-invalid numbers, expired cards and empty holders with 400, storing nothing', async () => {
    const before = await count();
    for (const bad of [card({ pan: new Secret('4548812049400005') }), card({ expYear: '20' }), card({ holder: '  ' }), card({ expMonth: '13' })]) {
      await expect(t.p.database.transaction((trx) => t.m.sources.storeCard(trx, A, bad))).rejects.toMatchObject({ status: 400 });
    }
    expect(await count()).toBe(before);
  });

  it('checks expiry against the merchant clock when given', async () => {
    await expect(
      t.p.database.transaction((trx) => t.m.sources.storeCard(trx, A, card({ expYear: '2030', expMonth: '1', at: new Date('2030-02-01T00:00:00Z') }))),
    ).rejects.toMatchObject({ status: 400, details: 'The card has expired' });
  });
});

async function count() {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from sources`.execute(t.p.database.db);
  return rows[0].n;
}

describe('loadCardForPayment', () => {
  it('opens the card of its owner only; others, unknown and deleted are 404', async () => {
    const s = t.m.sources;
    const row = await t.p.database.transaction((trx) => s.storeCard(trx, A, card({ pan: new Secret('5590337536718399') })));
    const loaded = await s.loadCardForPayment(t.p.database.db, A, row.id.toUpperCase());
    expect(loaded.pan.reveal()).toBe('5590337536718399');
    expect(JSON.stringify(loaded)).not.toContain('5590337536718399');
    expect(loaded).toMatchObject({ sourceId: row.id, customerExtId: 'cust-1', bin: '559033', last4: '8399', brand: 'MASTERCARD', expMonth: 12, expYear: 2030 });
    await expect(s.loadCardForPayment(t.p.database.db, B, row.id)).rejects.toMatchObject({ status: 404 });
    await expect(s.loadCardForPayment(t.p.database.db, { ...A, env: 'production' }, row.id)).rejects.toMatchObject({ status: 404 });
    await expect(s.loadCardForPayment(t.p.database.db, A, '00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ status: 404 });
    await expect(s.loadCardForPayment(t.p.database.db, A, 'not-a-uuid')).rejects.toMatchObject({ status: 404 });
    await t.p.database.db.updateTable('sources').set({ deleted_at: new Date() }).where('id', '=', row.id).execute();
    await expect(s.loadCardForPayment(t.p.database.db, A, row.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe('markValidated', () => {
  it('a successful payment makes the source valid once; later payments leave the card row unwritten', async () => {
    const s = t.m.sources;
    const owner = A;
    const c1 = await t.p.database.transaction((trx) => s.storeCard(trx, owner, card({ customerExtId: 'payer', pan: new Secret('4548812049400004') })));
    expect(await s.lastSuccessfullyUsedCard(t.p.database.db, owner, 'payer')).toBeNull();
    expect(presentSource(c1).validation_date).toBeNull();
    const version = async () => (await sql<{ v: string }>`select xmin::text as v from sources where id = ${c1.id}`.execute(t.p.database.db)).rows[0].v;
    const t1 = new Date('2026-01-01T10:00:00Z');
    const before = await version();
    await t.p.database.transaction((trx) => s.markValidated(trx, c1.id, t1, a.service_uuid));
    const first = await version();
    expect(first).not.toBe(before);
    const row = await t.p.database.db.selectFrom('sources').selectAll().where('id', '=', c1.id).executeTakeFirstOrThrow();
    expect(row.validation_date?.toISOString()).toBe(t1.toISOString());
    expect(row.first_paid_at?.toISOString()).toBe(t1.toISOString());
    expect(row.tokenization_service_id).toBe(a.service_uuid);
    expect(presentSource(row).cof.is_available).toBe(true);
    // a later payment changes nothing in the row, so it is not written at all (same row version)
    await t.p.database.transaction((trx) => s.markValidated(trx, c1.id, new Date('2026-01-03T10:00:00Z'), a.service_uuid));
    expect(await version()).toBe(first);
    // another merchant sees nothing
    expect(await s.lastSuccessfullyUsedCard(t.p.database.db, B, 'payer')).toBeNull();
  });
});
