/**
 * Issue 31 item 6 on a real PostgreSQL: the database stops accepting connections (ALTER DATABASE ...
 * ALLOW_CONNECTIONS false, SQLSTATE 55000, the state the audit found answered 500 with a stack trace per
 * request). Every request answers 503 with Retry-After in the error envelope, the outage is logged once
 * (not once per request) with no stack trace, and when the database takes connections again the gateway
 * answers 200 and logs the end of the outage once. A database of its own, so nothing else is touched.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp, buildModules, registerJobs } from '../../src/app.js';
import { createMerchantWithService, type CreatedMerchant } from '../../src/bootstrap.js';
import { loadConfig } from '../../src/config/config.js';
import { createPlatform } from '../../src/platform/create.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { migrate } from '../../src/platform/db/migrate.js';
import type { Platform } from '../../src/platform/index.js';
import { createLogger } from '../../src/platform/logging.js';
import { testVault } from '../helpers/app.js';
import { testDatabaseUrl, testDbKind } from '../helpers/db.js';

const name = `paygate_refuse_${randomBytes(4).toString('hex')}`;
let admin: pg.Client;
let database: Database;
let p: Platform;
let app: FastifyInstance;
let merchant: CreatedMerchant;
let log = '';

const postgres = testDbKind() === 'postgres';

beforeAll(async () => {
  if (!postgres) return;
  admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  database = await openDatabase({ databaseUrl: url.toString(), poolSize: 4, connectTimeoutMs: 1000 });
  await migrate(database);
  const sink = new Writable({
    write(chunk, _enc, cb) {
      log += chunk.toString();
      cb();
    },
  });
  p = await createPlatform(loadConfig({ PAYGATE_LOG_LEVEL: 'info', PAYGATE_WORKERS: 'false', PAYGATE_DATA_DIR: '/nonexistent', PAYGATE_CACHE_TTL_MS: '0' }), { database, vault: testVault(), logger: createLogger('info', sink) });
  const m = buildModules(p);
  registerJobs(p, m);
  app = await buildApp(p, m);
  merchant = await createMerchantWithService(p, m);
});

afterAll(async () => {
  if (!postgres) return;
  await admin.query(`alter database ${name} allow_connections true`).catch(() => {});
  await app?.close();
  await p?.jobs.stop();
  await database?.close();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
});

const get = () => app.inject({ method: 'GET', url: '/v1/sandbox/orders', headers: { authorization: `Basic ${Buffer.from(`${merchant.api_key}:`).toString('base64')}`, 'x-forwarded-proto': 'https' } });

async function until(what: string, fn: () => Promise<boolean> | boolean, ms = 20_000) {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!postgres)('PostgreSQL not accepting connections (SQLSTATE 55000)', () => {
  it('is 503 with Retry-After on every request, logged once, and 200 again when it is back', async () => {
    expect((await get()).statusCode).toBe(200);
    await admin.query(`alter database ${name} allow_connections false`);
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);

    for (let i = 0; i < 6; i++) {
      const r = await get();
      expect(r.statusCode, r.body).toBe(503);
      expect(r.headers['retry-after']).toBe('1');
      expect(r.json()).toMatchObject({ code: 503, message: 'Service Unavailable' });
      expect(r.json().details).toMatch(/temporarily unavailable/);
    }
    const lines = log.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(lines.filter((l) => /^database unavailable/.test(l.msg))).toHaveLength(1);
    expect(lines.filter((l) => /^database unavailable/.test(l.msg))[0].code).toMatch(/^(55000|57P01)$/);
    expect(lines.filter((l) => l.level >= 50), 'no error lines, no stack traces').toEqual([]);

    await admin.query(`alter database ${name} allow_connections true`);
    await until('a request answered 200 again', async () => (await get()).statusCode === 200);
    await until('the end of the outage logged', () => log.includes('"msg":"database available again"'));
    expect(log.split('\n').filter((l) => l.includes('"msg":"database available again"'))).toHaveLength(1);
  });
});
