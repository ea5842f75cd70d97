/**
 * Errors that teach: a wrong method names the allowed ones (405 + Allow), every validation problem is
 * listed (`errors: [{field, problem}]` next to a readable `details`), a body of the wrong content type
 * or shape is 400 saying so (before the signature check, which still keeps unsigned requests out), and
 * `GET /` points to the API reference.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
});
afterAll(async () => t?.close());

const auth = () => ({ authorization: `Bearer ${a.api_key}` });

describe('a known path with a wrong method', () => {
  it('is 405 with Allow listing the methods the path has', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/v1/sandbox/payment', headers: auth() });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    const body = res.json();
    expect(body).toMatchObject({ code: 405, message: 'Method Not Allowed' });
    expect(body.details).toContain('POST');

    // a path with parameters and several methods (GET also answers HEAD)
    const tpl = await t.app.inject({ method: 'PATCH', url: '/v1/sandbox/template/5b1f6c1e-8d4a-4f3e-9a51-2c7d0e9b4a10', headers: auth() });
    expect(tpl.statusCode).toBe(405);
    expect(tpl.headers.allow).toBe('DELETE, GET, HEAD, PUT');
    // a trailing slash is the same path
    expect((await t.app.inject({ method: 'GET', url: '/v1/payment/refund/' })).headers.allow).toBe('POST');
  });

  it('an unknown path stays 404 and says where the reference is', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/sandbox/no-such-thing', headers: auth() });
    expect(res.statusCode).toBe(404);
    expect(res.headers.allow).toBeUndefined();
    expect(res.json().details).toContain('/docs');
  });
});

describe('validation problems', () => {
  it('lists every problem of a body in errors, and details is a sentence naming them', async () => {
    const res = await a.api.post('/payment', { amount: 'ten', operative: 'SELL', secure: 'yes', currency: 'EURO', expires_in: 5 });
    expect(res.status).toBe(400);
    const errors = res.body.errors as Array<{ field: string; problem: string }>;
    const byField = Object.fromEntries(errors.map((e) => [e.field, e.problem]));
    expect(byField.amount).toMatch(/must be an integer: amounts are in minor units/);
    expect(byField.operative).toMatch(/must be one of: AUTHORIZATION/);
    expect(byField.secure).toMatch(/must be boolean/);
    expect(byField.currency).toBe('must be a 3-letter ISO 4217 code such as EUR, or its numeric code');
    expect(byField.expires_in).toMatch(/>= 600/);
    expect(byField.description).toBe('is required');
    expect(errors.length).toBeGreaterThanOrEqual(6);
    for (const e of errors) expect(res.body.details).toContain(`${e.field} ${e.problem}`);
    expect(res.body.details).not.toMatch(/anyOf|\/body/);
  });

  it('names nested fields the way the client sent them, and merges the branches of a union', async () => {
    const res = await a.api.post('/payment-method/cards', { cards: [{ card_holder: 'A', card_pan: '4548812049400004', card_expiry_month: true, card_expiry_year: 2030 }] });
    expect(res.status).toBe(400);
    const fields = res.body.errors.map((e: { field: string }) => e.field);
    expect(fields).toContain('cards[0].card_expiry_month');
    expect(fields).toContain('cards[0].customer_ext_id');
    const month = res.body.errors.find((e: { field: string }) => e.field === 'cards[0].card_expiry_month');
    expect(month.problem).toBe('must be string or integer');
  });

  it('query and path parameters say where they are', async () => {
    const res = await a.api.get('/order/not-a-uuid');
    expect(res.status).toBe(400);
    expect(res.body.details).toMatch(/^path parameter order_uuid must match format "uuid"/);
    expect(res.body.errors).toEqual([{ field: 'order_uuid', problem: 'must match format "uuid"' }]);
  });

  it('errors that are not validation problems have no errors list', async () => {
    const res = await a.api.get('/order/5b1f6c1e-8d4a-4f3e-9a51-2c7d0e9b4a10');
    expect(res.status).toBe(404);
    expect(res.body.errors).toBeUndefined();
  });
});

describe('a body of the wrong content type or shape', () => {
  const post = (payload: string, contentType: string) =>
    t.app.inject({ method: 'POST', url: '/v1/sandbox/payment', headers: { ...auth(), 'content-type': contentType }, payload });

  it('text/plain is 400 saying the body must be JSON, not 403', async () => {
    const res = await post(JSON.stringify({ signature: a.signature }), 'text/plain');
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toMatch(/must be a JSON object sent with Content-Type: application\/json, not text\/plain/);
  });

  it('an array, a string or a number is 400 naming what was sent', async () => {
    const arr = await post(JSON.stringify([{ signature: a.signature }]), 'application/json');
    expect(arr.statusCode).toBe(400);
    expect(arr.json().details).toMatch(/must be a JSON object .* not an array/);
    const str = await post(JSON.stringify('hello'), 'application/json');
    expect(str.statusCode).toBe(400);
    expect(str.json().details).toMatch(/not a string/);
    const num = await post('42', 'application/json');
    expect(num.statusCode).toBe(400);
    expect(num.json().details).toMatch(/not a number/);
  });

  it('an object without the signature is still 403, and never reaches validation or the handler', async () => {
    const res = await post(JSON.stringify({ amount: 'not even valid' }), 'application/json');
    expect(res.statusCode).toBe(403);
    expect(res.json().details).toMatch(/signature/);
    expect(res.json().errors).toBeUndefined();
  });
});

describe('GET /', () => {
  it('a browser gets a page that links the API reference', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('href="/docs/"');
    expect(res.body).toContain('href="/openapi.json"');
  });

  it('a JSON client gets the links as JSON', async () => {
    for (const accept of ['application/json', '*/*']) {
      const res = await t.app.inject({ method: 'GET', url: '/', headers: { accept } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ docs: '/docs', openapi: '/openapi.json', sandbox: '/v1/sandbox', production: '/v1' });
    }
  });
});
