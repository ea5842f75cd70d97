/**
 * Hardening headers: `X-Content-Type-Options: nosniff` on every answer (API, errors, health, docs),
 * HSTS only over TLS, and a Content-Security-Policy on the API reference (/docs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('security headers', () => {
  it('nosniff on every kind of answer; no HSTS over plain HTTP', async () => {
    const m = await t.merchant();
    const auth = { authorization: `Basic ${Buffer.from(`${m.api_key}:`).toString('base64')}` };
    for (const [url, headers] of [
      ['/healthz', {}],
      ['/readyz', {}],
      ['/openapi.json', {}],
      ['/v1/sandbox/auth/check', auth],
      ['/v1/sandbox/auth/check', {}],
      ['/no-such-route', {}],
      ['/docs/', {}],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url, headers });
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['strict-transport-security'], url).toBeUndefined();
    }
  });

  it('HSTS over TLS (a trusted proxy saying https)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-forwarded-proto': 'https' } });
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  });

  it('the API reference carries a Content-Security-Policy that allows only its own origin', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toMatch(/https?:|\*/);
  });
});
