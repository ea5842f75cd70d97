/**
 * Every page route, with random tokens, queries and form bodies: never a 5xx, always an HTML page
 * (never the JSON envelope, never a stack trace), always with the page's Content-Security-Policy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { listApiRoutes, listPageRoutes } from '../../src/platform/http/platform.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { createOrder } from '../helpers/payments.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

let t: TestApp;
let a: TestMerchant;
let tokens: string[];

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
  await a.api.put(`/service/${a.service_uuid}`, { bizum_enabled: true });
  const open = await createOrder(a, { customer_ext_id: null });
  const checkout = await createOrder(a, { customer_ext_id: null, extra_data: { checkout: { payment_methods: ['CARD', 'BIZUM'] } } });
  const secure = await createOrder(a, { customer_ext_id: null, secure: true });
  // APMs of every kind, and an order whose APM payment waits (the sandbox provider's pages)
  await a.api.put(`/service/${a.service_uuid}/apms`, { apms: ['IDEAL', 'MBWAY', 'MULTIBANCO'] });
  const waiting = await createOrder(a, { customer_ext_id: null });
  await a.api.post('/payment/push', { order_uuid: waiting.uuid, apm: 'MBWAY', phone: '912000000' });
  const voucher = await createOrder(a, { customer_ext_id: null });
  await a.api.post('/payment/push', { order_uuid: voucher.uuid, apm: 'MULTIBANCO' });
  tokens = [open.token, checkout.token, secure.token, waiting.token, voucher.token];
});
afterAll(async () => t?.close());

function expectPage(res: { statusCode: number; headers: Record<string, unknown>; body: string }, label: string) {
  expect(res.statusCode, label).toBeLessThan(500);
  if (res.statusCode === 303) return;
  expect(String(res.headers['content-type']), label).toBe('text/html; charset=utf-8');
  expect(String(res.headers['content-security-policy']), label).toContain("default-src 'none'");
  expect(res.body, label).toMatch(/^<!doctype html>/);
  // no stack trace: no "at fn (file:line:col)" frames
  expect(res.body, label).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
}

describe('page routes', () => {
  it('are listed apart from the API routes', () => {
    const pages = listPageRoutes(t.app).filter((r) => r.env === 'sandbox').map((r) => `${r.method} ${r.url}`).sort();
    expect(pages).toEqual([
      'GET /v1/sandbox/card-form/:token',
      'GET /v1/sandbox/moto/open/:token',
      'GET /v1/sandbox/payment/apm/:token',
      'GET /v1/sandbox/payment/bizum/:token',
      'GET /v1/sandbox/payment/checkout/:token',
      'GET /v1/sandbox/payment/dcc/:token',
      'GET /v1/sandbox/payment/process/:token',
      'GET /v1/sandbox/payment/tokenized/:token',
      'GET /v1/sandbox/payment/tokenized/:token/cres',
      'GET /v1/sandbox/payment/wallet/:token',
      'GET /v1/sandbox/processor/:connector/redirect/:reference',
      'GET /v1/sandbox/sandbox-apm/bank/:token',
      'GET /v1/sandbox/sandbox-apm/phone/:token',
      'POST /v1/sandbox/card-form/:token',
      'POST /v1/sandbox/payment/apm/:token',
      'POST /v1/sandbox/payment/bizum/:token',
      'POST /v1/sandbox/payment/dcc/:token',
      'POST /v1/sandbox/payment/process/:token',
      'POST /v1/sandbox/payment/tokenized/:token',
      'POST /v1/sandbox/payment/tokenized/:token/authenticate',
      'POST /v1/sandbox/payment/tokenized/:token/cres',
      'POST /v1/sandbox/payment/tokenized/:token/method',
      'POST /v1/sandbox/payment/wallet/:token',
      'POST /v1/sandbox/processor/:connector/notification',
      'POST /v1/sandbox/processor/:connector/webhook',
      'POST /v1/sandbox/sandbox-apm/bank/:token',
      'POST /v1/sandbox/sandbox-apm/phone/:token',
      'POST /v1/sandbox/sandbox-apm/voucher/:token',
    ]);
    expect(listApiRoutes(t.app).some((r) => r.url.includes(':token'))).toBe(false);
  });

  it('property: random tokens and queries never cause a 5xx and always answer a page', async () => {
    const routes = listPageRoutes(t.app).filter((r) => r.env === 'sandbox' && r.method === 'GET');
    for (const r of routes) {
      await fc.assert(
        fc.asyncProperty(
          // (a token of dots would be a path segment `.` or `..`, which URL parsing resolves to another route)
          fc.oneof(fc.constantFrom(...tokens), fc.string({ maxLength: 60 }).filter((x) => !/^\.+$/.test(x)), fc.stringMatching(/^[0-9a-f]{40}$/)),
          fc.dictionary(fc.constantFrom('lang', 'apm', 'method', 'template', 'result', 'wait', 'x'), fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('en', 'BIZUM', 'IDEAL', 'MBWAY', 'MULTIBANCO', 'card', 'ok', 'ko', '1', '<script>'))),
          async (token, query) => {
            const res = await t.app.inject({ method: 'GET', url: r.url.replace(':token', encodeURIComponent(token) || 'x'), query });
            expectPage(res, `${r.url} ${token} ${JSON.stringify(query)}`);
          },
        ),
        { numRuns: 30 },
      );
    }
  });

  it('property: random form bodies (any content type) never cause a 5xx and never pay', async () => {
    // the embedded card form's store route answers JSON to its frame: tested below
    const routes = listPageRoutes(t.app).filter((r) => r.env === 'sandbox' && r.method === 'POST' && !r.url.includes('/card-form/'));
    const before = t.m.processors.simulator.callCount('authorize');
    const apmBefore = [t.m.processors.simulator.callCount('apmStart'), t.m.processors.simulator.callCount('apmComplete')];
    for (const r of routes) {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...tokens),
          fc.dictionary(fc.constantFrom('nonce', 'holder', 'number', 'expiry', 'cvv', 'phone', 'result', 'cres', 'method', 'js', 'tz', 'x'), fc.string({ maxLength: 40 })),
          fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain'),
          async (token, fields, type) => {
            const payload = type === 'application/json' ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
            const res = await t.app.inject({ method: 'POST', url: r.url.replace(':token', token), headers: { 'content-type': type }, payload });
            expectPage(res, `${r.url} ${type} ${JSON.stringify(fields)}`);
          },
        ),
        { numRuns: 25 },
      );
    }
    expect(t.m.processors.simulator.callCount('authorize')).toBe(before);
    expect([t.m.processors.simulator.callCount('apmStart'), t.m.processors.simulator.callCount('apmComplete')]).toEqual(apmBefore);
  });

  it('property: random bodies to the embedded card form never cause a 5xx; its answers are JSON for the frame, or an error page', async () => {
    const customerToken = (await a.api.post('/customer', { customer_ext_id: 'fuzz' })).body.Customer.token as string;
    const before = t.m.processors.simulator.callCount('verifyCard');
    await fc.assert(
      fc.asyncProperty(
        // (a token of dots would be a path segment `.` or `..`, which is another route)
        fc.oneof(fc.constant(customerToken), fc.stringMatching(/^[0-9a-f]{40}$/), fc.string({ maxLength: 40 }).filter((x) => !/^\.+$/.test(x))),
        fc.dictionary(fc.constantFrom('nonce', 'holder', 'number', 'expiry', 'cvv', 'x'), fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.constant(null))),
        fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain'),
        async (token, fields, type) => {
          const payload = type === 'application/json' ? JSON.stringify(fields) : new URLSearchParams(fields as Record<string, string>).toString();
          const res = await t.app.inject({ method: 'POST', url: `/v1/sandbox/card-form/${encodeURIComponent(token) || 'x'}`, headers: { 'content-type': type }, payload });
          const label = `${token} ${type} ${JSON.stringify(fields)}`;
          expect(res.statusCode, label).toBeLessThan(500);
          if (String(res.headers['content-type']).startsWith('application/json')) expect(typeof JSON.parse(res.body).error?.message, `${label} ${res.statusCode} ${res.body}`).toBe('string');
          else expectPage(res, label);
        },
      ),
      { numRuns: 60 },
    );
    // no random body carries a valid form nonce: nothing reached the processor
    expect(t.m.processors.simulator.callCount('verifyCard')).toBe(before);
  });

  it('an oversized form is refused with a page', async () => {
    const res = await t.app.inject({ method: 'POST', url: `/v1/sandbox/payment/process/${tokens[0]}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `holder=${'x'.repeat(20_000)}` });
    expect(res.statusCode).toBe(413);
    expectPage(res, 'oversized');
  });
});
