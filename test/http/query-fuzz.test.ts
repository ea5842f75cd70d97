/**
 * Issue 31 item 7: random and wrong-kind input reaches the declared query parameters of every route
 * (the names come from the OpenAPI document, so a new filter is reached too) and is never a 500: a
 * malformed filter is a 4xx envelope. `GET /devices?service=<not a uuid>` was a 500.
 */
import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listApiRoutes } from '../../src/platform/http/platform.js';
import { createTestApp, type TestApp, type TestMerchant } from '../helpers/app.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

let t: TestApp;
let a: TestMerchant;
let device: { token: string; headers: Record<string, string> };
let doc: any;

beforeAll(async () => {
  t = await createTestApp();
  a = await t.merchant();
  const d = await a.api.post('/device', { service: a.service_uuid, identifier: 'query-fuzz-pos', communication_type: 'SOCKET' });
  expect(d.status, d.raw).toBe(200);
  device = { token: d.body.token, headers: { 'x-service-mid': d.body.device.mid, 'x-service-tid': d.body.device.terminal_id } };
  doc = JSON.parse(fs.readFileSync('docs/openapi.json', 'utf8'));
});
afterAll(async () => t?.close());

const authFor = (r: { auth: string }) => (r.auth === 'device' ? { authorization: `Bearer ${device.token}`, ...device.headers } : { authorization: `Bearer ${a.api_key}` });

/** Every sandbox route with the query parameters the document declares for it. */
function routesWithQuery() {
  const out: Array<{ method: string; url: string; auth: string; stream?: boolean; names: string[] }> = [];
  for (const r of listApiRoutes(t.app).filter((x) => x.env === 'sandbox' && !x.stream)) {
    const path = r.url.replace(/^\/v1\/sandbox/, '').replace(/:([A-Za-z_]+)/g, '{$1}');
    const op = doc.paths[path]?.[r.method.toLowerCase()];
    const names = (op?.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name as string);
    if (names.length > 0) out.push({ ...r, names });
  }
  return out;
}

async function get(r: { method: string; url: string; auth: string }, query: Record<string, string>) {
  const url = r.url.replace(/:[A-Za-z_]+/g, a.service_uuid!);
  return t.app.inject({ method: r.method as any, url, query, headers: { ...authFor(r), 'x-forwarded-proto': 'https' } });
}

function expectNo500(res: { statusCode: number; body: string }, label: string) {
  expect(res.statusCode, `${label}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
  if (res.statusCode >= 400) expect(JSON.parse(res.body).code, label).toBe(res.statusCode);
}

const WRONG = ['not-a-uuid', 'x'.repeat(300), '-1', '2026-02-30', '1e400', 'true', '%', 'Ω', '0', ' '];

describe('query parameters of every route', () => {
  it('reaches the declared filters of the list routes (GET /devices among them)', () => {
    const routes = routesWithQuery();
    const names = routes.map((r) => `${r.method} ${r.url}`);
    expect(names).toContain('GET /v1/sandbox/devices');
    expect(names).toContain('GET /v1/sandbox/orders');
    expect(routes.find((r) => r.url === '/v1/sandbox/devices')!.names).toContain('service');
  });

  it('GET /devices?service=<not a uuid> is 400 naming the parameter', async () => {
    const r = await a.api.get('/devices', { service: 'not-a-uuid' });
    expect(r.status, r.raw).toBe(400);
    expect(r.body.details).toMatch(/service/);
  });

  it('every declared parameter with a value of the wrong kind is never a 500', async () => {
    const failures: string[] = [];
    for (const r of routesWithQuery()) {
      for (const name of r.names) {
        for (const v of WRONG) {
          const res = await get(r, { [name]: v });
          if (res.statusCode >= 500) failures.push(`${r.method} ${r.url}?${name}=${v.slice(0, 20)}`);
          else expectNo500(res, `${r.method} ${r.url}?${name}=${v.slice(0, 20)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('random combinations of the declared parameters are never a 500 (seeded)', async () => {
    for (const r of routesWithQuery()) {
      await fc.assert(
        fc.asyncProperty(fc.dictionary(fc.constantFrom(...r.names), fc.oneof(fc.string({ maxLength: 40 }), fc.uuid(), fc.integer().map(String), fc.constantFrom(...WRONG)), { maxKeys: 4 }), async (query) => {
          expectNo500(await get(r, query), `${r.method} ${r.url} ${JSON.stringify(query)}`);
        }),
        { numRuns: 15 },
      );
    }
  });
});
