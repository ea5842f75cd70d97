/**
 * decisions §8: a limit of 0 disables the per-key limit; requests with a missing or unknown API key are
 * limited per client IP, so keys cannot be guessed at speed, without affecting valid keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';

let t: TestApp;
let a: TestMerchant;

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_RATE_LIMIT_SANDBOX: '0', PAYGATE_RATE_LIMIT_UNKNOWN_KEY: '3' });
  a = await t.merchant();
});
afterAll(async () => t?.close());

const check = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/v1/sandbox/auth/check', headers });
const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;

describe('rate limits', () => {
  it('PAYGATE_RATE_LIMIT_SANDBOX=0: no limit per key', async () => {
    for (let i = 0; i < 60; i++) expect((await a.api.get('/auth/check')).status).toBe(200);
  });

  it('unknown and missing keys: limited per client IP (429 with Retry-After); valid keys and other addresses are not affected', async () => {
    const from = (ip: string, auth?: string) => check({ 'x-forwarded-for': ip, ...(auth ? { authorization: auth } : {}) });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await from('198.51.100.7', basic(`guess${i}`))).statusCode);
    expect(statuses).toEqual([401, 401, 401]);
    const limited = await from('198.51.100.7', basic('guess9'));
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(limited.body)).toMatchObject({ code: 429, message: 'Too Many Requests' });
    // a missing key counts too
    expect((await from('198.51.100.7')).statusCode).toBe(429);
    // a valid key from the same address still works
    expect((await from('198.51.100.7', basic(a.api_key))).statusCode).toBe(200);
    // another address has its own allowance
    expect((await from('198.51.100.8', basic('guess'))).statusCode).toBe(401);
  });
});
