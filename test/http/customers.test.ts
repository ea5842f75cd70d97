/** Customers, accounts, addresses and profiles (api.md E1–E12). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
  b = await t.merchant();
});
afterAll(async () => t?.close());

const address = (over: Record<string, unknown> = {}) => ({
  external_id: 'c-addr', address1: 'Calle Mayor 1', city: 'Madrid', country: 'ESP', default: true,
  state_code: 'M', type: 'BILLING', zip_code: '28013', ...over,
});

describe('E1 customers', () => {
  it('creates a customer (response key Customer), numbers kept as strings, creating twice returns the same', async () => {
    const r = await a.api.post('/customer', { customer_ext_id: 12345 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ message: 'OK', code: 200, Customer: { external_id: '12345' } });
    expect(r.body.Customer.token).toMatch(/^[0-9a-f]{40}$/);
    const again = await a.api.post('/customer', { customer_ext_id: '12345' });
    expect(again.body.Customer).toEqual(r.body.Customer);
  });

  it('reads a customer by query or by a JSON body on GET (decisions §1)', async () => {
    await a.api.post('/customer', { customer_ext_id: 'get-me' });
    const q = await a.api.get('/customer', { customer_ext_id: 'get-me' });
    expect(q.status).toBe(200);
    expect(q.body.Customer.external_id).toBe('get-me');
    const body = await a.api.request('GET', '/customer', { body: { customer_ext_id: 'get-me' }, sign: false });
    expect(body.status).toBe(200);
    expect(body.body.Customer.external_id).toBe('get-me');
    const numeric = await a.api.request('GET', '/customer', { body: { customer_ext_id: 12345 }, sign: false });
    expect(numeric.body.Customer.external_id).toBe('12345');
    expect((await a.api.get('/customer')).status).toBe(400);
    expect((await a.api.get('/customer', { customer_ext_id: 'nobody' })).status).toBe(404);
    const badJson = await a.api.request('GET', '/customer', { body: '{nope', sign: false, headers: { 'content-type': 'application/json' } });
    expect(badJson.status).toBe(400);
    // another merchant's customer is not found
    expect((await b.api.get('/customer', { customer_ext_id: 'get-me' })).status).toBe(404);
  });

  it('wrong types are 400 naming the field; unknown fields are ignored', async () => {
    const r = await a.api.post('/customer', { customer_ext_id: { x: 1 } });
    expect(r.status).toBe(400);
    expect(r.body.details).toContain('customer_ext_id');
    expect((await a.api.post('/customer', {})).body.details).toContain('customer_ext_id');
    expect((await a.api.post('/customer', { customer_ext_id: 'x1', order_id: 7 })).status).toBe(200);
  });
});

describe('E2–E5 accounts', () => {
  it('creates, reads, updates and deletes an account of every type', async () => {
    await a.api.post('/customer', { customer_ext_id: 'acc' });
    const numbers: Record<string, string> = {
      ACCOUNT_NUMBER: '0049123456789', BUSINESS: 'B123456', ACCOUNT_CLABE: '032180000118359719', CARD_NUMBER: '4548812049400004',
      INTEREST_CHECKING: '111222333', MONEY_MARKET: 'MM998877', MOBILE_PHONE_NUMBER: '+34600123456', NOT_USED_FOR_THIS_BANK: '1',
      PERSONAL: 'P-1', REGULAR_CHECKING: '445566', SAVING_ACCOUNT: '778899',
    };
    for (const [type, number] of Object.entries(numbers)) {
      const r = await a.api.post('/customer/account', { external_id: 'acc', account_type: type, account_number: number });
      expect(r.status, type).toBe(200);
      expect(r.body.customer.external_id).toBe('acc');
      expect(r.body.customer_account.account_type).toBe(type);
      if (type === 'CARD_NUMBER') expect(r.body.customer_account.account_number).toBe('454881******0004');
      const got = await a.api.get(`/customer/account/${r.body.customer_account.uuid}`);
      expect(got.body.customer_account).toEqual(r.body.customer_account);
    }
    const created = await a.api.post('/customer/account', { external_id: 'acc', account_type: 'PERSONAL', account_number: '123' });
    const uuid = created.body.customer_account.uuid;
    const upd = await a.api.put('/customer/account', { uuid, external_id: 'acc', account_type: 'SAVING_ACCOUNT', account_number: '999' });
    expect(upd.status).toBe(200);
    expect(upd.body.customer_account).toEqual({ uuid, account_number: '999', account_type: 'SAVING_ACCOUNT' });
    expect((await b.api.get(`/customer/account/${uuid}`)).status).toBe(404);
    expect((await b.api.delete('/customer/account', { uuid })).status).toBe(404);
    const del = await a.api.delete('/customer/account', { uuid });
    expect(del.status).toBe(200);
    expect(del.body.customer_account.uuid).toBe(uuid);
    expect((await a.api.get(`/customer/account/${uuid}`)).status).toBe(404);
  });

  it('refuses wrong enums, unknown customers and bad numbers', async () => {
    const badType = await a.api.post('/customer/account', { external_id: 'acc', account_type: 'GOLD', account_number: '1' });
    expect(badType.status).toBe(400);
    expect(badType.body.details).toContain('account_type');
    expect((await a.api.post('/customer/account', { external_id: 'ghost', account_type: 'PERSONAL', account_number: '1' })).status).toBe(404);
    expect((await a.api.post('/customer/account', { external_id: 'acc', account_type: 'ACCOUNT_CLABE', account_number: '123' })).status).toBe(400);
    expect((await a.api.post('/customer/account', { external_id: 'acc', account_type: 'CARD_NUMBER', account_number: 'abc' })).status).toBe(400);
    expect((await a.api.get('/customer/account/not-a-uuid')).status).toBe(400);
    expect((await a.api.get('/customer/account/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe('E6–E9 addresses', () => {
  it('creates, reads, updates and deletes; one default per customer', async () => {
    await a.api.post('/customer', { customer_ext_id: 'c-addr' });
    const first = await a.api.post('/customer/address', address({ address2: null }));
    expect(first.status).toBe(200);
    expect(first.body.customer_address).toMatchObject({ address1: 'Calle Mayor 1', address2: null, address3: null, country: 'ESP', default: true, type: 'BILLING' });
    expect(Object.keys(first.body.customer_address)).toEqual(['uuid', 'address1', 'address2', 'address3', 'city', 'country', 'default', 'state_code', 'type', 'zip_code']);
    const second = await a.api.post('/customer/address', address({ type: 'SHIPPING', country: 'fra' }));
    expect(second.body.customer_address).toMatchObject({ default: true, country: 'FRA' });
    const firstNow = await a.api.get(`/customer/address/${first.body.customer_address.uuid}`);
    expect(firstNow.body.customer_address.default).toBe(false);
    // update: make the first default again, change a line; type unchanged is fine
    const upd = await a.api.put('/customer/address', { uuid: first.body.customer_address.uuid, default: true, address1: 'Gran Vía 2', type: 'BILLING' });
    expect(upd.status).toBe(200);
    expect(upd.body.customer_address).toMatchObject({ address1: 'Gran Vía 2', default: true, city: 'Madrid' });
    expect((await a.api.get(`/customer/address/${second.body.customer_address.uuid}`)).body.customer_address.default).toBe(false);
    // another merchant cannot see, change or delete it
    expect((await b.api.get(`/customer/address/${first.body.customer_address.uuid}`)).status).toBe(404);
    expect((await b.api.put('/customer/address', { uuid: first.body.customer_address.uuid, city: 'X' })).status).toBe(404);
    const del = await a.api.delete('/customer/address', { uuid: second.body.customer_address.uuid });
    expect(del.status).toBe(200);
    expect((await a.api.get(`/customer/address/${second.body.customer_address.uuid}`)).status).toBe(404);
  });

  it('refuses 51-character lines, non-alpha-3 countries, wrong types, type changes and unknown customers', async () => {
    await a.api.post('/customer', { customer_ext_id: 'c-addr' });
    const fifty = 'x'.repeat(50);
    expect((await a.api.post('/customer/address', address({ address1: fifty, address2: fifty, address3: fifty, default: false }))).status).toBe(200);
    for (const field of ['address1', 'address2', 'address3']) {
      const r = await a.api.post('/customer/address', address({ [field]: 'x'.repeat(51) }));
      expect(r.status, field).toBe(400);
      expect(r.body.details).toContain(field);
    }
    for (const country of ['ES', 'XXX', 'SPAIN']) {
      const r = await a.api.post('/customer/address', address({ country }));
      expect(r.status, country).toBe(400);
      expect(r.body.details).toContain('country');
    }
    const badType = await a.api.post('/customer/address', address({ type: 'HOME' }));
    expect(badType.status).toBe(400);
    expect(badType.body.details).toContain('type');
    expect((await a.api.post('/customer/address', address({ default: 'yes' }))).status).toBe(400);
    expect((await a.api.post('/customer/address', address({ external_id: 'ghost' }))).status).toBe(404);
    const created = await a.api.post('/customer/address', address({ default: false, type: 'OTHER' }));
    const change = await a.api.put('/customer/address', { uuid: created.body.customer_address.uuid, type: 'SHIPPING' });
    expect(change.status).toBe(400);
    expect(change.body.details).toContain('type');
    expect((await a.api.get(`/customer/address/${created.body.customer_address.uuid}`)).body.customer_address.type).toBe('OTHER');
    const long = await a.api.put('/customer/address', { uuid: created.body.customer_address.uuid, address2: 'y'.repeat(51) });
    expect(long.status).toBe(400);
  });

  it('the database keeps one default per customer even without the service (partial unique index)', async () => {
    const r = await a.api.post('/customer/address', address({ external_id: 'c-addr', default: false, type: 'OTHER' }));
    const current = await t.p.database.db.selectFrom('customer_addresses').select('customer_id').where('id', '=', r.body.customer_address.uuid).executeTakeFirstOrThrow();
    await t.p.database.db.updateTable('customer_addresses').set({ is_default: false }).where('customer_id', '=', current.customer_id).execute();
    await t.p.database.db.updateTable('customer_addresses').set({ is_default: true }).where('id', '=', r.body.customer_address.uuid).execute();
    const other = await t.p.database.db.selectFrom('customer_addresses').select('id').where('customer_id', '=', current.customer_id).where('id', '<>', r.body.customer_address.uuid).executeTakeFirstOrThrow();
    await expect(t.p.database.db.updateTable('customer_addresses').set({ is_default: true }).where('id', '=', other.id).execute()).rejects.toThrow();
  });
});

describe('E10–E12 profiles', () => {
  const profile = (over: Record<string, unknown> = {}) => ({
    external_id: 'prof', first_name: 'Ana', last_name: 'Pérez', cardholder_name: 'ANA PEREZ',
    document_identification_issuer_type: 'STATE_GOVERNMENT', document_identification_type: 'VALID_PASSPORT',
    document_identification_number: 'X1234567', email: 'ana@example.com',
    phone: { number: '600123456', prefix: '+34' }, work_phone: { number: '+34911234567', prefix: null },
    home_phone: null, mobile_phone: { number: '612345678', prefix: '34' }, birthdate: '1990-02-28',
    source_of_funds: 'SALARY', occupation: 'Engineer', social_security_number: '123-45-6789', ...over,
  });

  it('creates, reads and updates a profile with every field', async () => {
    await a.api.post('/customer', { customer_ext_id: 'prof' });
    const r = await a.api.post('/customer/profile', profile());
    expect(r.status).toBe(200);
    expect(r.body.customer.external_id).toBe('prof');
    const p = r.body.customer_profile;
    expect(Object.keys(p)).toEqual([
      'first_name', 'last_name', 'cardholder_name', 'document_identification_issuer_type', 'document_identification_type',
      'document_identification_number', 'email', 'phone', 'work_phone', 'home_phone', 'mobile_phone', 'birthdate',
      'source_of_funds', 'occupation', 'social_security_number', 'created_at', 'updated_at',
    ]);
    expect(p).toMatchObject({ first_name: 'Ana', last_name: 'Pérez', phone: { number: '600123456', prefix: '+34' }, mobile_phone: { number: '612345678', prefix: '34' }, home_phone: null, birthdate: '1990-02-28', social_security_number: '*****6789' });
    expect(r.raw).toContain('P\\u00e9rez');
    expect(r.raw).not.toContain('123-45-6789');
    expect(p.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const got = await a.api.get('/customer/profile/prof');
    expect(got.body.customer_profile).toEqual(p);
    expect((await a.api.post('/customer/profile', profile())).status).toBe(409);
    const upd = await a.api.put('/customer/profile', profile({ first_name: 'Ana María', birthdate: null, phone: null }));
    expect(upd.status).toBe(200);
    expect(upd.body.customer_profile).toMatchObject({ first_name: 'Ana María', birthdate: null, phone: null, created_at: p.created_at });
    expect((await b.api.get('/customer/profile/prof')).status).toBe(404);
  });

  it('refuses bad enums, phones, birthdates and unknown customers', async () => {
    await a.api.post('/customer', { customer_ext_id: 'prof2' });
    const bad = async (over: Record<string, unknown>, field: string) => {
      const r = await a.api.post('/customer/profile', profile({ external_id: 'prof2', ...over }));
      expect(r.status, JSON.stringify(over)).toBe(400);
      expect(r.body.details).toContain(field);
    };
    await bad({ document_identification_type: 'PASSPORT' }, 'document_identification_type');
    await bad({ document_identification_issuer_type: 'CITY' }, 'document_identification_issuer_type');
    await bad({ phone: { number: '123', prefix: '+34' } }, 'phone');
    await bad({ mobile_phone: { number: '12', prefix: null } }, 'mobile_phone');
    await bad({ work_phone: 'not an object' }, 'work_phone');
    await bad({ birthdate: '1990-02-30' }, 'birthdate');
    await bad({ birthdate: '28/02/1990' }, 'birthdate');
    await bad({ birthdate: '2999-01-01' }, 'birthdate');
    await bad({ email: 'not-an-email' }, 'email');
    await bad({ first_name: 7 }, 'first_name');
    expect((await a.api.post('/customer/profile', profile({ external_id: 'ghost' }))).status).toBe(404);
    expect((await a.api.put('/customer/profile', profile({ external_id: 'prof2' }))).status).toBe(404);
    expect((await a.api.get('/customer/profile/prof2')).status).toBe(404);
  });
});

describe('profiles of keys', () => {
  it('readonly reads customers but cannot write them', async () => {
    const key = await t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, a.client_uuid, 'sandbox', ['readonly']));
    const ro = a.api.withCreds({ api_key: key.apiKey, signature: key.signature });
    await a.api.post('/customer', { customer_ext_id: 'ro' });
    expect((await ro.get('/customer', { customer_ext_id: 'ro' })).status).toBe(200);
    expect((await ro.post('/customer', { customer_ext_id: 'ro2' })).status).toBe(403);
    const tok = await t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, a.client_uuid, 'sandbox', ['tokenize']));
    expect((await a.api.withCreds({ api_key: tok.apiKey, signature: tok.signature }).post('/customer', { customer_ext_id: 'tk' })).status).toBe(200);
  });
});
