import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
});
afterAll(async () => t?.close());

const b64 = (s: string) => Buffer.from(s).toString('base64');

async function check(headers: Record<string, string>, url = '/v1/sandbox/auth/check') {
  const res = await t.app.inject({ method: 'GET', url, headers });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

describe('authentication (decisions §2)', () => {
  it('accepts every Authorization variant', async () => {
    for (const h of [
      `Basic ${b64(a.api_key)}`,
      `Basic ${b64(`${a.api_key}:`)}`,
      `Basic ${b64(`${a.api_key}: `)}`,
      `Bearer ${a.api_key}`,
      `bearer ${a.api_key}`,
      `BASIC ${b64(`${a.api_key}:`)}`,
    ]) {
      const r = await check({ authorization: h });
      expect(r.status, h).toBe(200);
      expect(r.body).toMatchObject({ message: 'OK', code: 200 });
      expect(r.body.current_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{4}$/);
    }
  });

  it('missing or unknown key: 401 Unauthorized in the envelope', async () => {
    for (const headers of [{}, { authorization: 'Bearer 00000000000000000000000000000000' }, { authorization: 'Basic' }] as Record<string, string>[]) {
      const r = await check(headers);
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ message: 'Unauthorized', code: 401 });
      expect(typeof r.body.details).toBe('string');
    }
  });

  it('a write without the signature, or with a wrong one, is 403 Unauthenticated', async () => {
    const missing = await a.api.request('POST', '/test-clock', { body: { advance_seconds: 1 }, sign: false });
    expect(missing.status).toBe(403);
    expect(missing.body).toMatchObject({ message: 'Unauthenticated', code: 403 });
    const wrong = await a.api.request('POST', '/test-clock', { body: { advance_seconds: 1, signature: 'f'.repeat(32) }, sign: false });
    expect(wrong.status).toBe(403);
    const other = await t.merchant();
    const crossed = await a.api.request('POST', '/test-clock', { body: { advance_seconds: 1, signature: other.signature }, sign: false });
    expect(crossed.status).toBe(403);
    const ok = await a.api.post('/test-clock', { advance_seconds: 1 });
    expect(ok.status).toBe(200);
  });

  it('a GET may carry the signature as a query parameter; it is ignored', async () => {
    const r = await a.api.get('/auth/check', { signature: 'anything', lang: 'en' });
    expect(r.status).toBe(200);
  });

  it('A2 lists the key profiles and A3 every profile', async () => {
    expect((await a.api.get('/auth/profiles')).body.profiles).toEqual(['all']);
    expect((await a.api.get('/profiles')).body.profiles).toEqual([
      'all', 'payment', 'refund', 'readonly', 'card', 'tokenize', 'moto', 'batch_authorization', 'batch_refund', 'keyentry',
    ]);
  });

  it('a readonly key reads but cannot write (403 naming the profile)', async () => {
    const key = await t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, a.client_uuid, 'sandbox', ['readonly']));
    const ro = a.api.withCreds({ api_key: key.apiKey, signature: key.signature });
    expect((await ro.get('/client/services')).status).toBe(200);
    expect((await ro.get('/auth/profiles')).body.profiles).toEqual(['readonly']);
    const w = await ro.post('/service', { name: 'x', type: 'PAYGATE' });
    expect(w.status).toBe(403);
    expect(w.body.details).toContain('payment');
  });

  it('a revoked key is refused at once', async () => {
    const key = await t.p.database.transaction((trx) => t.m.merchants.issueKey(trx, a.client_uuid, 'sandbox', ['all']));
    const c = a.api.withCreds({ api_key: key.apiKey, signature: key.signature });
    expect((await c.get('/auth/check')).status).toBe(200);
    await t.m.merchants.revokeKey(key.keyId);
    expect((await c.get('/auth/check')).status).toBe(401);
  });
});

describe('environments', () => {
  it('a sandbox key gets nothing from /v1 and a production key nothing from /v1/sandbox', async () => {
    const prod = await t.merchant({ env: 'production' });
    expect((await a.api.withEnv('production').get('/auth/check')).status).toBe(401);
    expect((await a.api.withEnv('production').get('/client/services')).status).toBe(401);
    expect((await prod.api.get('/auth/check')).status).toBe(200);
    expect((await prod.api.withEnv('sandbox').get('/auth/check')).status).toBe(401);
    expect((await prod.api.withEnv('sandbox').get('/client/services')).status).toBe(401);
  });

  it('production refuses plain HTTP (403), sandbox on loopback allows it', async () => {
    const prod = await t.merchant({ env: 'production' });
    const plain = await t.app.inject({ method: 'GET', url: '/v1/auth/check', headers: { authorization: `Bearer ${prod.api_key}` } });
    expect(plain.statusCode).toBe(403);
    expect(JSON.parse(plain.body).details).toMatch(/HTTPS/);
    const forwarded = await t.app.inject({ method: 'GET', url: '/v1/auth/check', headers: { authorization: `Bearer ${prod.api_key}`, 'x-forwarded-proto': 'https' } });
    expect(forwarded.statusCode).toBe(200);
    const sandboxPlain = await t.app.inject({ method: 'GET', url: '/v1/sandbox/auth/check', headers: { authorization: `Bearer ${a.api_key}` } });
    expect(sandboxPlain.statusCode).toBe(200);
  });

  it('accepts a trailing slash on any path', async () => {
    expect((await a.api.get('/auth/check/')).status).toBe(200);
    expect((await a.api.get('/client/services/')).status).toBe(200);
  });

  it('an unknown route is a 404 envelope', async () => {
    const r = await a.api.get('/nope');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ message: 'Not Found', code: 404 });
  });
});

describe('GET with a JSON body (decisions §1)', () => {
  it('is read (broken JSON is a 400, not ignored); its fields act as query parameters', async () => {
    const broken = await t.app.inject({
      method: 'GET',
      url: '/v1/sandbox/auth/check',
      headers: { authorization: `Bearer ${a.api_key}`, 'content-type': 'application/json' },
      payload: '{"a":',
    });
    expect(broken.statusCode).toBe(400);
    const fine = await t.app.inject({
      method: 'GET',
      url: '/v1/sandbox/auth/check',
      headers: { authorization: `Bearer ${a.api_key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ lang: 'es' }),
    });
    expect(fine.statusCode).toBe(200);
  });
});
