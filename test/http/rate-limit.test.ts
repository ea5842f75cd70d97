import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';

let t: TestApp;
let a: TestMerchant;
let b: TestMerchant;

beforeAll(async () => {
  t = await createTestApp({ PAYGATE_RATE_LIMIT_SANDBOX: '5', PAYGATE_RATE_LIMIT_PRODUCTION: '8' });
  a = await t.merchant();
  b = await t.merchant();
});
afterAll(async () => t?.close());

describe('per-key rate limit (decisions §8)', () => {
  it('over the limit: 429 with Retry-After, per key, and allowed again after the wait', async () => {
    const statuses: number[] = [];
    let retryAfter: string | undefined;
    for (let i = 0; i < 12; i++) {
      const r = await a.api.get('/auth/check');
      statuses.push(r.status);
      if (r.status === 429) {
        retryAfter = r.headers['retry-after'] as string;
        expect(r.body).toMatchObject({ code: 429, message: 'Too Many Requests' });
      }
    }
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(5);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(6);
    expect(statuses.slice(-3)).toEqual([429, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    // another key is not affected
    expect((await b.api.get('/auth/check')).status).toBe(200);
    await new Promise((r) => setTimeout(r, Number(retryAfter) * 1000 + 50));
    expect((await a.api.get('/auth/check')).status).toBe(200);
  });

  it('production keys have their own (higher) limit', async () => {
    const prod = await t.merchant({ env: 'production' });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await prod.api.get('/auth/check')).status);
    const ok = statuses.filter((s) => s === 200).length;
    expect(ok).toBeGreaterThanOrEqual(8);
    expect(ok).toBeLessThanOrEqual(9);
  });
});
