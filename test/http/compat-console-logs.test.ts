/**
 * Console logs (issue 30 item 13): on a terminal one line per request (`POST /v1/sandbox/payment 200
 * 12 ms <request id>`) and one for the migrations; JSON lines, with Fastify's request records, otherwise.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { buildApp, buildModules } from '../../src/app.js';
import { createMerchantWithService } from '../../src/bootstrap.js';
import { createPlatform } from '../../src/platform/create.js';
import { createLogger, migrationsLine } from '../../src/platform/logging.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { testVault } from '../helpers/app.js';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  const s = new Writable({ write(c, _e, cb) { chunks.push(String(c)); cb(); } }) as Writable & { isTTY?: boolean };
  s.isTTY = isTTY;
  return { stream: s, lines: () => chunks.join('').split('\n').filter((l) => l.trim() !== '') };
}

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.drop());

async function appWith(format: 'pretty' | 'json') {
  const out = sink(format === 'pretty');
  const config = loadConfig({ PAYGATE_LOG_LEVEL: 'info', PAYGATE_LOG_FORMAT: format, PAYGATE_WORKERS: 'false', PAYGATE_DATA_DIR: '/nonexistent-test-data-dir' });
  const p = await createPlatform(config, { database: db.database, vault: testVault(), logger: createLogger('info', out.stream as any, format) });
  const m = buildModules(p);
  const app = await buildApp(p, m, { consoleLines: format === 'pretty' });
  const merchant = await createMerchantWithService(p, m, {});
  return { app, p, out, merchant };
}

describe('console logs', () => {
  it('a terminal gets one line per request: method, path, status, time, request id', async () => {
    const { app, p, out, merchant } = await appWith('pretty');
    try {
      const before = out.lines().length;
      const res = await app.inject({
        method: 'POST', url: '/v1/sandbox/payment',
        headers: { authorization: `Bearer ${merchant.api_key}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ signature: merchant.signature, amount: 1050, operative: 'AUTHORIZATION', description: 'x', service: merchant.service_uuid }),
      });
      expect(res.statusCode, res.body).toBe(200);
      // eslint-disable-next-line no-control-regex
      const lines = out.lines().slice(before).map((l) => l.replace(/\u001b\[[0-9;]*m/g, ''));
      expect(lines, lines.join('\n')).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`INFO.*POST /v1/sandbox/payment 200 \\d+ ms ${res.headers['x-request-id']}$`));
      expect(lines[0]).not.toContain('{');
    } finally {
      await app.close();
      await p.jobs.stop();
    }
  });

  it('JSON logs keep the structured request records', async () => {
    const { app, p, out } = await appWith('json');
    try {
      const before = out.lines().length;
      await app.inject({ method: 'GET', url: '/v1/sandbox/auth/check' });
      const records = out.lines().slice(before).map((l) => JSON.parse(l));
      expect(records.map((r) => r.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    } finally {
      await app.close();
      await p.jobs.stop();
    }
  });

  it('the migrations are one line', () => {
    expect(migrationsLine(['0001_foundation', '0200_payments', '0960_order_reference_held'])).toBe('migrations applied: 3 (0001_foundation … 0960_order_reference_held)');
    expect(migrationsLine(['0960_order_reference_held'])).toBe('migrations applied: 1 (0960_order_reference_held)');
  });
});
