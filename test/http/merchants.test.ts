import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant({ name: 'Merchant A' });
  b = await t.merchant({ name: 'Merchant B' });
});
afterAll(async () => t?.close());

const CONTRACT_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4}$/;

describe('D1 create merchant', () => {
  it('creates a child merchant with its own key and signature, shown once', async () => {
    const r = await a.api.post('/client', {
      name: 'Tienda José/Norte',
      email: 'norte@example.com',
      timezone: 'America/Mexico_City',
      category: 'E_COMMERCE',
      mcc: '5411',
      resend_failed_notifications: true,
    });
    expect(r.status).toBe(200);
    const c = r.body.client;
    expect(Object.keys(c)).toEqual([
      'uuid', 'created', 'name', 'email', 'timezone', 'autorecover_transactions', 'resend_failed_notifications',
      'is_pci', 'is_deleted', 'category', 'mcc', 'address', 'phone_number', 'api_key', 'signature', 'services',
    ]);
    expect(c).toMatchObject({ name: 'Tienda José/Norte', timezone: 'America/Mexico_City', mcc: '5411', category: 'E_COMMERCE', resend_failed_notifications: true, services: null });
    expect(c.created).toMatch(CONTRACT_DATE);
    expect(c.api_key).toMatch(/^[0-9a-f]{32}$/);
    expect(c.signature).toMatch(/^[0-9a-f]{32}$/);
    // the wire form escapes / and non-ASCII the reference way
    expect(r.raw).toContain('"name":"Tienda Jos\\u00e9\\/Norte"');
    expect(r.raw).toContain('"timezone":"America\\/Mexico_City"');
    // the new key works, in the same environment, and is not stored in clear
    const child = a.api.withCreds({ api_key: c.api_key, signature: c.signature });
    expect((await child.get('/auth/check')).status).toBe(200);
    const stored = await t.p.database.db.selectFrom('api_keys').selectAll().where('merchant_id', '=', c.uuid).execute();
    expect(JSON.stringify(stored)).not.toContain(c.api_key);
    expect(JSON.stringify(stored)).not.toContain(c.signature);
    // the parent sees the child's services; the child does not see the parent's
    expect((await a.api.get(`/client/${c.uuid}/services`)).status).toBe(200);
    expect((await child.get(`/client/${a.client_uuid}/services`)).status).toBe(404);
  });

  it('rejects a bad mcc, category, timezone, e-mail and a foreign parent', async () => {
    const base = { name: 'x', email: 'x@example.com', timezone: 'Europe/Madrid' };
    for (const [patch, field] of [
      [{ mcc: '12345' }, 'mcc'],
      [{ mcc: '12a4' }, 'mcc'],
      [{ mcc: 5411 }, 'mcc'],
      [{ category: 'SHOES' }, 'category'],
      [{ email: 'not-an-email' }, 'email'],
      [{ name: '' }, 'name'],
      [{ autorecover_transactions: 'yes' }, 'autorecover_transactions'],
    ] as const) {
      const r = await a.api.post('/client', { ...base, ...patch });
      expect(r.status, JSON.stringify(patch)).toBe(400);
      expect(r.body.details).toContain(field);
    }
    const tz = await a.api.post('/client', { ...base, timezone: 'Mars/Olympus' });
    expect(tz.status).toBe(400);
    expect(tz.body.details).toContain('timezone');
    const foreign = await a.api.post('/client', { ...base, parent_uuid: b.client_uuid });
    expect(foreign.status).toBe(404);
  });
});

describe('D2 promote to production', () => {
  it('creates the production twin once, with a new key and signature', async () => {
    const child = (await a.api.post('/client', { name: 'Promo', email: 'p@example.com', timezone: 'Europe/Madrid' })).body.client;
    const r = await a.api.post(`/client/${child.uuid}/promote`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['message', 'code', 'current_time', 'uuid', 'api_key', 'signature']);
    expect(r.body.uuid).not.toBe(child.uuid);
    expect(r.body.api_key).not.toBe(child.api_key);
    const prod = a.api.withCreds({ api_key: r.body.api_key, signature: r.body.signature }).withEnv('production');
    expect((await prod.get('/auth/check')).status).toBe(200);
    // production and sandbox stay apart
    expect((await prod.withEnv('sandbox').get('/auth/check')).status).toBe(401);
    const again = await a.api.post(`/client/${child.uuid}/promote`);
    expect(again.status).toBe(409);
  });

  it('another merchant cannot promote it; an unknown uuid is 404', async () => {
    const child = (await a.api.post('/client', { name: 'Mine', email: 'm@example.com', timezone: 'Europe/Madrid' })).body.client;
    expect((await b.api.post(`/client/${child.uuid}/promote`)).status).toBe(404);
    expect((await a.api.post('/client/8b5c6d1e-0000-4000-8000-000000000000/promote')).status).toBe(404);
    expect((await a.api.post('/client/not-a-uuid/promote')).status).toBe(400);
  });
});

describe('D3 dashboard users', () => {
  const user = (username: string) => ({
    email: `${username}@example.com`, username, language: 'ES', environment: 'SANDBOX', send_email_with_credentials: true, group: 'MANAGER',
  });

  it('creates a user whose password is returned once and stored only hashed; the e-mail waits in the outbox', async () => {
    const r = await a.api.post('/client/user', user('ana.lopez'));
    expect(r.status).toBe(200);
    expect(r.body.user).toMatchObject({ username: 'ana.lopez', language: 'ES', group: 'MANAGER', status: 'ACTIVE', client_sandbox: a.client_uuid, client_production: null });
    expect(r.body.password).toHaveLength(16);
    const row = await t.p.database.db.selectFrom('dashboard_users').selectAll().where('username', '=', 'ana.lopez').executeTakeFirstOrThrow();
    expect(row.password_hash.startsWith('scrypt$')).toBe(true);
    expect(row.password_hash).not.toContain(r.body.password);
    const mail = await t.p.database.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', 'ana.lopez@example.com').executeTakeFirstOrThrow();
    expect(mail.body_sealed).not.toContain(r.body.password);
    expect(t.p.vault.open(mail.body_sealed, `mail:${mail.id}`).reveal()).toContain(r.body.password);
  });

  it('a taken username is 409; bad enums are 400; production without a twin is 400', async () => {
    expect((await a.api.post('/client/user', user('dup.user'))).status).toBe(200);
    expect((await b.api.post('/client/user', user('dup.user'))).status).toBe(409);
    for (const patch of [{ language: 'FR' }, { group: 'ADMIN' }, { environment: 'TEST' }, { send_email_with_credentials: 'no' }, { username: 'a b' }]) {
      const r = await a.api.post('/client/user', { ...user('bad.one'), ...patch });
      expect(r.status, JSON.stringify(patch)).toBe(400);
    }
    const prod = await a.api.post('/client/user', { ...user('prod.user'), environment: 'PRODUCTION' });
    expect(prod.status).toBe(400);
  });

  it('a user cannot be created under another merchant', async () => {
    const r = await b.api.post('/client/user', { ...user('intruder'), parent_uuid: a.client_uuid });
    expect(r.status).toBe(404);
  });
});

describe('D5/D6 services and terminals', () => {
  it('a service without a terminal is pending until one is linked', async () => {
    const s = await a.api.post('/service', { name: 'Cards', type: 'CREDORAX' });
    expect(s.status).toBe(200);
    expect(s.body.service).toMatchObject({ name: 'Cards', type: 'CREDORAX', enabled: false, terminal: null, status: 'PENDING' });
    const term = await a.api.post('/terminal', {
      currency_code: 'USD', type: 'CREDORAX', description: 'US terminal',
      credentials: { merchant_id: 'CRX-000123', signing_api_key: 'sk_live_abcdefghijklmnop' },
    });
    expect(term.status).toBe(200);
    expect(term.body.terminal).toMatchObject({ type: 'CREDORAX', currency_code: 'USD', client_uuid: a.client_uuid, client_name: 'Merchant A' });
    expect(term.body.terminal.credentials).toEqual({ merchant_id: '****0123', signing_api_key: '****mnop' });
    expect(term.raw).not.toContain('sk_live_abcdefghijklmnop');
    const row = await t.p.database.db.selectFrom('terminals').selectAll().where('id', '=', term.body.terminal.uuid).executeTakeFirstOrThrow();
    expect(row.credentials_sealed).not.toContain('sk_live');
    const linked = await a.api.put(`/service/${s.body.service.uuid}`, { terminal_uuid: term.body.terminal.uuid });
    expect(linked.status).toBe(200);
    expect(linked.body.service).toMatchObject({ enabled: true, terminal: term.body.terminal.uuid, status: 'ACTIVE' });
    const read = await a.api.get(`/service/${s.body.service.uuid}`);
    expect(read.body.service.enabled).toBe(true);
  });

  it('validates terminal credentials per type', async () => {
    const redsys = (credentials: unknown) => a.api.post('/terminal', { currency_code: 'EUR', type: 'REDSYSPSD2', description: 'r', code: 7, credentials });
    expect((await redsys(null)).status).toBe(400);
    expect((await redsys({ key_secure: 'a', key_not_secure: 'b', terminal_secure: '1' })).body.details).toContain('terminal_not_secure');
    expect((await redsys({ key_secure: 'a', key_not_secure: 'b', terminal_secure: '1', terminal_not_secure: '2', extra: 'x' })).body.details).toContain('extra');
    expect((await redsys({ key_secure: 'a', key_not_secure: 'b', terminal_secure: '1', terminal_not_secure: '2' })).status).toBe(200);
    expect((await a.api.post('/terminal', { currency_code: 'EUR', type: 'CREDORAX', description: 'c', credentials: { merchant_id: 'm' } })).status).toBe(400);
    expect((await a.api.post('/terminal', { currency_code: 'EUR', type: 'PAYPAL', description: 'p', credentials: { client_id: 'id', secret: 's' } })).status).toBe(200);
    expect((await a.api.post('/terminal', { currency_code: 'EURO', type: 'PAYPAL', description: 'p' })).status).toBe(400);
    expect((await a.api.post('/terminal', { currency_code: 'ZZZ', type: 'PAYPAL', description: 'p' })).status).toBe(400);
    expect((await a.api.post('/terminal', { currency_code: 'EUR', type: 'VISA', description: 'p' })).status).toBe(400);
    expect((await a.api.post('/terminal', { currency_code: 'EUR', type: 'PAYPAL', description: 'p', code: 'A1' })).status).toBe(400);
  });

  it('DCC settings are for the REDSYS family only; type must match the terminal', async () => {
    expect((await a.api.post('/service', { name: 'x', type: 'CREDORAX', is_dcc_allowed: true })).status).toBe(400);
    const ok = await a.api.post('/service', { name: 'x', type: 'REDSYSPSD2', is_dcc_allowed: true, dcc_mode: 'DYNAMIC', mcc: '5999' });
    expect(ok.body.service).toMatchObject({ dcc_allowed: true, dcc_mode: 'DYNAMIC', mcc: '5999' });
    expect((await a.api.post('/service', { name: 'x', type: 'REDSYSPSD2', mcc: '59999' })).status).toBe(400);
    expect((await a.api.post('/service', { name: 'x', type: 'CREDORAX', terminal_uuid: a.terminal_uuid })).status).toBe(400);
  });

  it('merchant B can neither read nor change merchant A\'s services, terminals or users', async () => {
    const s = (await a.api.post('/service', { name: 'A only', type: 'REDSYSPSD2' })).body.service;
    expect((await b.api.get(`/service/${s.uuid}`)).status).toBe(404);
    expect((await b.api.put(`/service/${s.uuid}`, { name: 'stolen' })).status).toBe(404);
    expect((await b.api.put(`/service/${s.uuid}`, { terminal_uuid: b.terminal_uuid })).status).toBe(404);
    expect((await b.api.get(`/client/${a.client_uuid}/services`)).status).toBe(404);
    // B cannot link A's terminal to its own service, nor create a service on A's terminal
    const bs = (await b.api.post('/service', { name: 'B', type: 'REDSYSPSD2' })).body.service;
    expect((await b.api.put(`/service/${bs.uuid}`, { terminal_uuid: a.terminal_uuid })).status).toBe(404);
    expect((await b.api.post('/service', { name: 'B2', type: 'REDSYSPSD2', terminal_uuid: a.terminal_uuid })).status).toBe(404);
    // B cannot create terminals, services or users under A
    expect((await b.api.post('/terminal', { currency_code: 'EUR', type: 'PAYPAL', description: 'x', parent_uuid: a.client_uuid })).status).toBe(404);
    expect((await b.api.post('/service', { name: 'x', type: 'PAYPAL', parent_uuid: a.client_uuid })).status).toBe(404);
    // nothing of A changed
    expect((await a.api.get(`/service/${s.uuid}`)).body.service.name).toBe('A only');
    const listA = (await a.api.get('/client/services')).body.services.map((x: { uuid: string }) => x.uuid);
    const listB = (await b.api.get('/client/services')).body.services.map((x: { uuid: string }) => x.uuid);
    expect(listA).toContain(s.uuid);
    expect(listB).not.toContain(s.uuid);
  });
});

describe('sandbox test clock', () => {
  it('moves only this merchant\'s sandbox time forward', async () => {
    const before = await a.api.get('/test-clock');
    expect(before.body.test_clock.offset_seconds).toBeGreaterThanOrEqual(0);
    const moved = await a.api.post('/test-clock', { advance_seconds: 86400 });
    expect(moved.status).toBe(200);
    expect(moved.body.test_clock.offset_seconds).toBe(before.body.test_clock.offset_seconds + 86400);
    expect(moved.body.current_time).toBe(moved.body.test_clock.current_time);
    const other = await b.api.get('/test-clock');
    expect(other.body.test_clock.offset_seconds).toBe(0);
    expect((await a.api.post('/test-clock', { advance_seconds: -5 })).status).toBe(400);
    expect((await a.api.post('/test-clock', {})).status).toBe(400);
    const prod = await t.merchant({ env: 'production' });
    expect((await prod.api.get('/test-clock')).status).toBe(404);
  });
});
