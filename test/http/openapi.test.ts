/**
 * The OpenAPI document is generated from the route schemas; the committed copy (docs/openapi.json)
 * must be current, and it must list every API route with its schemas.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listApiRoutes } from '../../src/platform/http/platform.js';
import { generateOpenApi, stableJson } from '../../scripts/openapi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let doc: any;

beforeAll(async () => {
  t = await createTestApp();
  doc = await generateOpenApi(t.p.database);
});
afterAll(async () => t?.close());

describe('OpenAPI document', () => {
  it('the committed docs/openapi.json is current (run `npm run openapi` after changing routes)', () => {
    expect(fs.readFileSync('docs/openapi.json', 'utf8')).toBe(stableJson(doc));
  });

  it('lists every API route once, without the environment prefix, with its request and response schemas', () => {
    const routes = listApiRoutes(t.app).filter((r) => r.env === 'production');
    expect(routes.length).toBeGreaterThan(0);
    for (const r of routes) {
      const path = r.url.replace(/^\/v1/, '').replace(/:([A-Za-z_]+)/g, '{$1}');
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${path}`).toBeDefined();
      expect(op.summary, `${r.method} ${path} summary`).toBeTruthy();
      expect(op.responses['200']?.content?.['application/json']?.schema, `${r.method} ${path} 200 schema`).toBeDefined();
      if (r.hasBody) {
        const body = op.requestBody?.content?.['application/json']?.schema;
        expect(body, `${r.method} ${path} body`).toBeDefined();
        expect(body.required, `${r.method} ${path} signature`).toContain('signature');
      }
    }
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/v1'))).toBe(false);
    expect(doc.servers.map((s: { url: string }) => s.url)).toEqual(['http://127.0.0.1:8080/v1', 'http://127.0.0.1:8080/v1/sandbox']);
  });
});
