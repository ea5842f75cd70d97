/**
 * Errors that teach (issue 30 item 12): every error answer carries its request id (`request_id`, the
 * `X-Request-Id` header); a sandbox key on a production path over plain HTTP is told to use
 * /v1/sandbox; an amount in major units is told that amounts are integers in minor units; pattern
 * errors are sentences.
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

const order = (fields: Record<string, unknown>) => ({ amount: 1050, operative: 'AUTHORIZATION', secure: false, description: 'x', service: a.service_uuid, ...fields });

describe('errors that teach', () => {
  it('every error answer carries request_id, the same as X-Request-Id', async () => {
    const answers = [
      await a.api.post('/payment', order({ amount: 'ten' })), // 400 validation
      await a.api.get('/order/7e57c0de-0000-4000-8000-000000000000'), // 404 of a handler
      await a.api.get('/no-such-route'), // 404 of the router
      await a.api.request('PATCH', '/payment'), // 405
      await a.api.withCreds({ api_key: 'nope', signature: 'x' }).get('/auth/check'), // 401
    ];
    for (const r of answers) {
      expect(r.status, r.raw).toBeGreaterThanOrEqual(400);
      const header = r.headers['x-request-id'];
      expect(typeof header, r.raw).toBe('string');
      expect(r.body.request_id, r.raw).toBe(header);
    }
    expect(new Set(answers.map((r) => r.body.request_id)).size).toBe(answers.length);
  });

  it('an amount sent in major units is told that amounts are integers in minor units', async () => {
    for (const [amount, minor] of [['10.50', '1050'], [10.5, '1050'], ['19.99', '1999']] as const) {
      const r = await a.api.post('/payment', order({ amount }));
      expect(r.status).toBe(400);
      expect(r.body.details).toContain('amount must be an integer: amounts are in minor units of the currency');
      expect(r.body.details).toContain(`is ${minor})`);
      expect(r.body.errors).toEqual([{ field: 'amount', problem: expect.stringContaining(`is ${minor}`) }]);
    }
    // an integer too large is still told its range, not about decimals
    const big = await a.api.post('/payment', order({ amount: 1e15 }));
    expect(big.status).toBe(400);
    expect(big.body.details).not.toContain('minor units of the currency (');
  });

  it('pattern errors read as sentences, not regular expressions', async () => {
    const r = await a.api.post('/payment', { amount: 100, operative: 'AUTHORIZATION', secure: false, description: 'x', currency: 'EURO' });
    expect(r.status).toBe(400);
    expect(r.body.details).toBe('currency must be a 3-letter ISO 4217 code such as EUR, or its numeric code');
    expect(r.raw).not.toMatch(/must match pattern/);
  });

  it('a sandbox key on a production path over plain HTTP is told to call /v1/sandbox', async () => {
    const auth = { authorization: `Basic ${Buffer.from(`${a.api_key}:`).toString('base64')}` };
    const r = await t.app.inject({ method: 'POST', url: '/v1/payment', headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify(order({ signature: a.signature })) });
    expect(r.statusCode).toBe(403);
    const body = JSON.parse(r.body);
    expect(body.details).toBe('HTTPS is required: this is a sandbox API key, and /v1/payment is the production API. Call the sandbox at /v1/sandbox/payment (served over plain HTTP on loopback)');
    expect(body.request_id).toBe(r.headers['x-request-id']);
    // a production key (or none) is told only that HTTPS is required
    const prod = await t.merchant({ env: 'production' });
    const p = await t.app.inject({ method: 'GET', url: '/v1/auth/check', headers: { authorization: `Basic ${Buffer.from(`${prod.api_key}:`).toString('base64')}` } });
    expect(JSON.parse(p.body).details).toBe('HTTPS is required');
    const none = await t.app.inject({ method: 'GET', url: '/v1/auth/check' });
    expect(JSON.parse(none.body).details).toBe('HTTPS is required');
  });
});
