/**
 * Issue 31 item 3: a card number in a URL (path or query, plain, grouped or percent-encoded) never
 * reaches the log, the API request log or the 404/405 answers that echo the path: it becomes
 * [REDACTED]. The app logs at trace level into memory.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp, buildModules, registerJobs, type Modules } from '../../src/app.js';
import { createMerchantWithService, type CreatedMerchant } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config/config.js';
import { createPlatform } from '../../src/platform/create.js';
import type { Platform } from '../../src/platform/index.js';
import { createLogger } from '../../src/platform/logging.js';
import { testVault } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { TEST_CARDS } from '../helpers/payments.js';

const PAN = TEST_CARDS.APPROVED;
const MASKED = '[REDACTED]';
let log = '';
let db: TestDatabase;
let p: Platform;
let m: Modules;
let app: FastifyInstance;
let merchant: CreatedMerchant;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      log += chunk.toString();
      cb();
    },
  });
  db = await createTestDatabase();
  p = await createPlatform(loadConfig({ PAYGATE_LOG_LEVEL: 'trace', PAYGATE_WORKERS: 'false', PAYGATE_DATA_DIR: '/nonexistent' }), {
    database: db.database,
    vault: testVault(),
    logger: createLogger('trace', sink),
  });
  m = buildModules(p);
  registerJobs(p, m);
  app = await buildApp(p, m);
  merchant = await createMerchantWithService(p, m);
});
afterAll(async () => {
  await app?.close();
  await p?.jobs.stop();
  await db?.drop();
});

const headers = () => ({ authorization: `Basic ${Buffer.from(`${merchant.api_key}:`).toString('base64')}`, 'x-forwarded-proto': 'https' });
const grouped = PAN.replace(/(\d{4})(?=\d)/g, '$1%20');

describe('card numbers in URLs', () => {
  it('are masked in the log lines of every request, in the path and in the query', async () => {
    const urls = [
      `/v1/sandbox/orders?reference=${PAN}`,
      `/v1/sandbox/orders?reference=${grouped}`,
      `/v1/sandbox/customer/${PAN}/sources`,
      `/v1/sandbox/no-such-route/${PAN}`,
      `/no-such-page?q=${PAN.slice(0, 8)}-${PAN.slice(8)}`,
    ];
    for (const url of urls) {
      const r = await app.inject({ method: 'GET', url, headers: headers() });
      expect(r.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(r.body).not.toContain(PAN);
    }
    expect(log).toContain('"url":"/v1/sandbox/orders?reference=[REDACTED]"');
    expect(log).toContain(`/customer/${MASKED}/sources`);
    expect(log.replace(/%20/g, '')).not.toContain(PAN);
    expect(log).not.toContain(grouped);
    expect(log).not.toContain(PAN.slice(6, 12)); // no hidden digits either
  });

  it('are masked in the path a 404 or a 405 answer echoes', async () => {
    const notFound = await app.inject({ method: 'GET', url: `/v1/sandbox/no-such-route/${PAN}`, headers: headers() });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.json().details).toBe(`No route GET /v1/sandbox/no-such-route/${MASKED}; the API reference is at /docs`);
    const notAllowed = await app.inject({ method: 'PATCH', url: `/v1/sandbox/order/${PAN}`, headers: headers() });
    expect(notAllowed.statusCode).toBe(405);
    expect(notAllowed.json().details).toContain(`/v1/sandbox/order/${MASKED}`);
    expect(notAllowed.body).not.toContain(PAN);
  });

  it('are masked in the API request log (path and Idempotency-Key)', async () => {
    const r = await app.inject({ method: 'POST', url: `/v1/sandbox/payment?note=${PAN}`, headers: { ...headers(), 'content-type': 'application/json', 'idempotency-key': `k-${PAN}` }, payload: '{}' });
    expect(r.statusCode).toBe(400);
    await m.dashboard.requestLog.flush();
    const rows = await p.database.db.selectFrom('request_logs').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(PAN);
    const bodies = await p.database.db.selectFrom('request_log_bodies').selectAll().execute();
    expect(bodies.length).toBeGreaterThan(0);
    expect(JSON.stringify(bodies)).not.toContain(PAN);
    expect(rows.some((x: any) => x.path === `/v1/sandbox/payment?note=${MASKED}`)).toBe(true);
  });
});
