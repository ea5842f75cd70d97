/**
 * The OpenAPI document is generated from the route schemas; the committed copy (docs/openapi.json)
 * must be current, it must list every API route with its schemas, and it must be a self-contained
 * reference: every operation with an operationId, a summary, a description, tags and realistic
 * examples; the shared records as named components; and `redocly lint` clean. A new route that lacks
 * any of these fails here.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listApiRoutes, listPageRoutes } from '../../src/platform/http/platform.js';
import { EXAMPLE_PLACEHOLDER } from '../../src/platform/http/openapi.js';
import { generateOpenApi, stableJson } from '../../scripts/openapi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const run = promisify(execFile);
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

let t: TestApp;
let doc: any;

beforeAll(async () => {
  t = await createTestApp();
  doc = await generateOpenApi(t.p.database);
});
afterAll(async () => t?.close());

function operations(): Array<{ method: string; path: string; op: any }> {
  const out = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of METHODS) if (item[method]) out.push({ method, path, op: item[method] });
  }
  return out;
}

/** Every string in an example, with where it is. */
function strings(value: unknown, at: string, out: Array<[string, string]> = []): Array<[string, string]> {
  if (typeof value === 'string') out.push([at, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, `${at}[${i}]`, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) strings(v, `${at}.${k}`, out);
  return out;
}

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
      // JSON, a file the route serves (a batch's results CSV), or the event stream (its messages' data)
      const content = op.responses['200']?.content ?? {};
      expect(content['application/json']?.schema ?? content['text/csv']?.schema ?? (r.stream ? content['text/event-stream']?.schema : undefined), `${r.method} ${path} 200 schema`).toBeDefined();
      if (r.hasBody) {
        const body = op.requestBody?.content?.['application/json']?.schema;
        expect(body, `${r.method} ${path} body`).toBeDefined();
        const resolved = body.$ref ? doc.components.schemas[body.$ref.split('/').pop()] : body;
        // card-present routes authenticate with the device's token and carry no signature
        if (r.auth === 'device') expect(resolved.required, `${r.method} ${path} signature`).not.toContain('signature');
        else expect(resolved.required, `${r.method} ${path} signature`).toContain('signature');
      }
      if (r.auth === 'device') expect(op.security, `${r.method} ${path} security`).toEqual([{ deviceToken: [] }]);
    }
    for (const r of listPageRoutes(t.app).filter((x) => x.env === 'production')) {
      const path = r.url.replace(/^\/v1/, '').replace(/:([A-Za-z_]+)/g, '{$1}');
      expect(doc.paths[path]?.[r.method.toLowerCase()], `${r.method} ${path}`).toBeDefined();
    }
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/v1'))).toBe(false);
  });

  it('every operation has a unique camelCase operationId, a summary, a description and tags', () => {
    const ids = new Set<string>();
    const ops = operations();
    expect(ops.length).toBeGreaterThan(60);
    for (const { method, path, op } of ops) {
      const label = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, `${label} operationId`).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(ids.has(op.operationId), `${label}: operationId ${op.operationId} is used twice`).toBe(false);
      ids.add(op.operationId);
      expect(op.summary?.length, `${label} summary`).toBeGreaterThan(5);
      expect(op.description?.length, `${label} description`).toBeGreaterThan(20);
      expect(op.tags?.length, `${label} tags`).toBeGreaterThan(0);
      // stands alone: no reference to documents the reader does not have
      expect(`${op.summary} ${op.description}`, label).not.toMatch(/api\.md|decisions\.md|decisions §|§/);
    }
  });

  it('every JSON request body and success response has a realistic example (no placeholders)', () => {
    for (const { method, path, op } of operations()) {
      const label = `${method.toUpperCase()} ${path}`;
      const media: Array<[string, any]> = [];
      const body = op.requestBody?.content?.['application/json'];
      if (op.requestBody) {
        expect(body?.example, `${label} request example`).toBeDefined();
        media.push(['request', body]);
      }
      const ok = op.responses['200']?.content?.['application/json'];
      if (ok) {
        expect(ok.example, `${label} response example`).toBeDefined();
        media.push(['200', ok]);
      }
      for (const [where, m] of media) {
        for (const [at, value] of strings(m.example, where)) {
          expect(value, `${label} ${at}: give the schema an example`).not.toBe(EXAMPLE_PLACEHOLDER);
        }
      }
    }
  });

  it('the shared records are named components, referred to with $ref', () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of ['Order', 'Transaction', 'Source', 'Customer', 'CustomerAddress', 'CustomerProfile', 'Service', 'Terminal', 'Merchant', 'Event', 'Template', 'ErrorEnvelope', 'OrderResponse']) {
      expect(names, name).toContain(name);
    }
    const getOrder = doc.paths['/order/{order_uuid}'].get;
    expect(getOrder.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/OrderResponse' });
    expect(getOrder.responses['4XX'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
    expect(doc.components.schemas.OrderResponse.properties.order).toEqual({ $ref: '#/components/schemas/Order' });
    expect(doc.components.schemas.ErrorEnvelope.properties.errors.items).toEqual({ $ref: '#/components/schemas/FieldProblem' });
    // no record is inlined a second time under its name
    expect(JSON.stringify(doc.paths)).not.toMatch(/"title":"(Order|Source|Transaction)"/);
  });

  it('one path for the source by uuid (GET) and by type (DELETE), as the wire routes are', () => {
    const item = doc.paths['/payment-method/{identifier}'];
    expect(Object.keys(item).filter((k) => METHODS.includes(k)).sort()).toEqual(['delete', 'get']);
    expect(doc.paths['/payment-method/{uuid}']).toBeUndefined();
    expect(doc.paths['/payment-method/{type}']).toBeUndefined();
  });

  it('targets the sandbox first, and documents the key and the signature', () => {
    expect(doc.servers.map((s: { url: string }) => s.url)).toEqual(['http://127.0.0.1:8080/v1/sandbox', 'http://127.0.0.1:8080/v1']);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['basicAuth', 'bearerAuth', 'deviceToken']);
    expect(doc.info.description).toMatch(/Every POST, PUT, PATCH and DELETE body carries `signature`/);
  });

  it('passes redocly lint with no problem', async () => {
    const res = await run('node_modules/.bin/redocly', ['lint', 'docs/openapi.json', '--format=json'], { maxBuffer: 64 * 1024 * 1024 }).catch((err) => err);
    const report = JSON.parse(String(res.stdout).slice(String(res.stdout).indexOf('{')));
    const problems = (report.problems ?? []).map((p: any) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location?.[0]?.pointer})`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('the typed client (clients/typescript/schema.ts) is generated from the current document (run `npm run client`)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-client-'));
    try {
      const out = path.join(dir, 'schema.ts');
      await run('node_modules/.bin/openapi-typescript', ['docs/openapi.json', '-o', out], { maxBuffer: 64 * 1024 * 1024 });
      expect(fs.readFileSync('clients/typescript/schema.ts', 'utf8') === fs.readFileSync(out, 'utf8'), 'clients/typescript/schema.ts is stale: run `npm run client`').toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('the dashboard types (dashboard/src/schema.ts) are generated from the current dashboard document (run `npm run openapi`)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-dashboard-schema-'));
    try {
      const out = path.join(dir, 'schema.ts');
      await run('node_modules/.bin/openapi-typescript', ['docs/dashboard-openapi.json', '-o', out], { maxBuffer: 64 * 1024 * 1024 });
      expect(fs.readFileSync('dashboard/src/schema.ts', 'utf8') === fs.readFileSync(out, 'utf8'), 'dashboard/src/schema.ts is stale: run `npm run openapi`').toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
