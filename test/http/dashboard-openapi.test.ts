/**
 * The dashboard's internal JSON API has its own OpenAPI document (docs/dashboard-openapi.json), built
 * from the routes' schemas: it must be current, list every dashboard route with an operationId, a
 * summary, a description and a tag, say which routes are public, and pass `redocly lint`.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDashboardRoutes } from '../../src/modules/dashboard/index.js';
import { generateDocuments, stableJson } from '../../scripts/openapi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const run = promisify(execFile);

let t: TestApp;
let doc: any;

beforeAll(async () => {
  t = await createTestApp();
  doc = (await generateDocuments(t.p.database)).dashboard;
});
afterAll(async () => t?.close());

describe('the dashboard API document', () => {
  it('is committed current (run `npm run openapi` after changing a dashboard route)', () => {
    expect(fs.readFileSync('docs/dashboard-openapi.json', 'utf8')).toBe(stableJson(doc));
  });

  it('lists every dashboard route once, documented, public routes without the session', () => {
    const routes = listDashboardRoutes(t.app);
    const ops: any[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) for (const [method, op] of Object.entries<any>(item)) ops.push({ key: `${method.toUpperCase()} /dashboard/api${path.replace(/\{path\}$/, '*').replace(/\{(\w+)\}/g, ':$1')}`, op });
    expect(ops.map((o) => o.key).sort()).toEqual(routes.map((r) => `${r.method} ${r.url}`).sort());
    const ids = new Set<string>();
    for (const { key, op } of ops) {
      expect(op.operationId, key).toMatch(/^[a-z][A-Za-z]+$/);
      expect(ids.has(op.operationId), `${key}: operationId ${op.operationId} used twice`).toBe(false);
      ids.add(op.operationId);
      expect(op.summary, key).toBeTruthy();
      expect(op.description?.length, key).toBeGreaterThan(20);
      expect(op.tags, key).toHaveLength(1);
      const route = routes.find((r) => `${r.method} ${r.url}` === key)!;
      if (route.dashboard.public) expect(op.security, key).toEqual([]);
      else expect(op.security, key).toBeUndefined();
    }
  });

  it('passes redocly lint with no problem', async () => {
    const res = await run('node_modules/.bin/redocly', ['lint', 'docs/dashboard-openapi.json', '--format=json'], { maxBuffer: 64 * 1024 * 1024 }).catch((err) => err);
    const report = JSON.parse(String(res.stdout).slice(String(res.stdout).indexOf('{')));
    const problems = (report.problems ?? []).map((p: any) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location?.[0]?.pointer})`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);
});
