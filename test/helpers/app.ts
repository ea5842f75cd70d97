/**
 * In-process gateway for HTTP tests: the real app on a real database (PGlite or PostgreSQL), driven
 * with `app.inject`. Workers do not run in the background; tests drain the job queue when they want
 * jobs to run, so outcomes are deterministic.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { sql } from 'kysely';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../../src/config/config.js';
import { buildApp, buildModules, registerJobs, type Modules } from '../../src/app.js';
import { createMerchantWithService, type CreateMerchantOptions, type CreatedMerchant } from '../../src/bootstrap.js';
import { createPlatform } from '../../src/platform/create.js';
import { createLogger } from '../../src/platform/logging.js';
import type { Platform } from '../../src/platform/index.js';
import { Vault } from '../../src/platform/security/vault.js';
import type { Env } from '../../src/platform/db/schema.js';
import type { Clock } from '../../src/platform/time/clock.js';
import { installResponseValidation } from './contract.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { appendCapture, captureFile, decodedUrl, pansAnywhere, pansInRequest, recordKnownPans } from './capture.js';

export function testVault(): Vault {
  return new Vault([{ id: 'test1', key: randomBytes(32) }], randomBytes(32));
}

export interface TestApp {
  app: FastifyInstance;
  p: Platform;
  m: Modules;
  db: TestDatabase;
  /** A merchant with an `all` key and an enabled sandbox service. */
  merchant(opts?: CreateMerchantOptions): Promise<TestMerchant>;
  close(): Promise<void>;
}

export interface TestMerchant extends CreatedMerchant {
  api: ApiClient;
}

/**
 * The logger of a test app: everything (trace) goes to the capture file for the card-data scan, and to
 * stdout at TEST_LOG_LEVEL when that is set.
 */
function testLogger() {
  const file = captureFile('log');
  const streams: pino.StreamEntry[] = [];
  if (file) streams.push({ level: 'trace', stream: pino.destination({ dest: file, sync: true, append: true }) });
  if (process.env.TEST_LOG_LEVEL && process.env.TEST_LOG_LEVEL !== 'silent') streams.push({ level: process.env.TEST_LOG_LEVEL as pino.Level, stream: process.stdout });
  if (streams.length === 0) return createLogger('silent');
  return createLogger('trace', pino.multistream(streams));
}

/** Records every response body (and the card numbers requests carried) for the card-data scan. */
function captureInject(app: FastifyInstance): void {
  if (!captureFile('response')) return;
  const original = app.inject.bind(app) as (...args: unknown[]) => unknown;
  (app as unknown as { inject: unknown }).inject = (...args: unknown[]) => {
    const opts = args[0] as { payload?: unknown; body?: unknown; method?: string; url?: string; query?: unknown; headers?: Record<string, unknown>; payloadAsStream?: boolean } | undefined;
    if (args.length !== 1 || !opts || typeof opts !== 'object') return original(...args);
    recordKnownPans(pansInRequest(opts.payload ?? opts.body));
    // any card number the request carried, in any field (the scan then looks for it everywhere)
    recordKnownPans(pansAnywhere(opts.payload ?? opts.body, opts.query, decodedUrl(String(opts.url ?? '')), opts.headers?.['idempotency-key']));
    // a streamed answer (the event stream) has no body to record here: its reader captures what it reads
    if (opts.payloadAsStream) return original(opts);
    return (original(opts) as Promise<LightMyRequestResponse>).then((res) => {
      // the API reference (its examples show the sandbox test cards on purpose) is not card data
      if (/^\/(openapi\.json|docs)(\/|$|\?)/.test(String(opts.url ?? ''))) return res;
      appendCapture('response', { method: opts.method ?? 'GET', url: String(opts.url ?? '').split('?')[0], status: res.statusCode, body: res.body });
      return res;
    });
  };
}

/**
 * Dumps every row of every table of the test database into the capture (before it is dropped), and
 * records the card numbers stored in it, opened with the test vault, so the scan knows what to look for.
 */
async function dumpDatabase(p: Platform): Promise<void> {
  if (!captureFile('dump')) return;
  const db = p.database.db;
  const { rows: tables } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1`.execute(db);
  for (const { table_name } of tables) {
    const { rows } = await sql<{ j: string }>`select row_to_json(x)::text as j from ${sql.table(table_name)} x`.execute(db);
    appendCapture('dump', { table: table_name, rows: rows.map((r) => r.j) });
  }
  const names = new Set(tables.map((t) => t.table_name));
  const pans: string[] = [];
  if (names.has('sources')) {
    const { rows } = await sql<{ id: string; sealed: string }>`select id::text as id, number_sealed as sealed from sources where type = 'card'`.execute(db);
    for (const r of rows) {
      try {
        pans.push(p.vault.open(r.sealed, `source:${r.id}`).reveal());
      } catch {
        // sealed under a key this vault no longer has: nothing to learn
      }
    }
  }
  if (names.has('customer_accounts')) {
    const { rows } = await sql<{ id: string; sealed: string }>`select id::text as id, account_number_sealed as sealed from customer_accounts where account_type = 'CARD_NUMBER'`.execute(db);
    for (const r of rows) {
      try {
        pans.push(p.vault.open(r.sealed, `account:${r.id}`).reveal());
      } catch {
        // as above
      }
    }
  }
  recordKnownPans(pans);
}

export interface TestAppOptions {
  /** The vault to use (tests of key rotation keep its keys); a fresh random one by default. */
  vault?: Vault;
  /** The gateway's real-time clock (sessions, lockouts, jobs): a test moves it instead of waiting. */
  clock?: Clock;
}

function testConfig(env: Record<string, string>): Config {
  return loadConfig({
    PAYGATE_LOG_LEVEL: 'silent',
    PAYGATE_TRUST_PROXY: 'true',
    PAYGATE_RATE_LIMIT_SANDBOX: '100000',
    PAYGATE_RATE_LIMIT_PRODUCTION: '100000',
    PAYGATE_RATE_LIMIT_UNKNOWN_KEY: '0',
    PAYGATE_DATA_DIR: '/nonexistent-test-data-dir',
    PAYGATE_WORKERS: 'false',
    // the tests' notification receivers listen on loopback, for production merchants too: allowed by
    // the operator setting (test/unit/outgoing.test.ts and test/http/outgoing.test.ts test it off)
    PAYGATE_OUTGOING_ALLOW: '127.0.0.1,::1',
    ...env,
  });
}

export async function createTestApp(env: Record<string, string> = {}, opts: TestAppOptions = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const config = testConfig(env);
  const p = await createPlatform(config, {
    database: db.database,
    vault: opts.vault ?? testVault(),
    logger: testLogger(),
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  const m = buildModules(p);
  registerJobs(p, m);
  const app = await buildApp(p, m, { instrument: installResponseValidation });
  captureInject(app);
  return {
    app,
    p,
    m,
    db,
    async merchant(opts = {}) {
      const created = await createMerchantWithService(p, m, opts);
      return { ...created, api: new ApiClient(app, created, created.env) };
    },
    async close() {
      await app.close();
      await p.jobs.stop();
      p.mailer.close();
      await dumpDatabase(p);
      await db.drop();
    },
  };
}

/**
 * A second gateway instance on the database of `t` (as a second process would be: its own platform,
 * caches, rate limiter and, on PostgreSQL, its own connection pool and listening connection), sharing
 * the vault. Closing it leaves the database to `t`.
 */
export async function createPeerApp(t: TestApp, env: Record<string, string> = {}): Promise<Omit<TestApp, 'db' | 'merchant'> & { api(m: CreatedMerchant): ApiClient }> {
  const { openDatabase } = await import('../../src/platform/db/database.js');
  const database = t.db.kind === 'postgres' ? await openDatabase({ databaseUrl: t.db.url, schema: t.db.schema, poolSize: 5 }) : t.db.database;
  const p = await createPlatform(testConfig(env), { database, vault: t.p.vault, logger: testLogger() });
  const m = buildModules(p);
  registerJobs(p, m);
  const app = await buildApp(p, m, { instrument: installResponseValidation });
  return {
    app,
    p,
    m,
    api: (created) => new ApiClient(app, created, created.env),
    async close() {
      await app.close();
      await p.jobs.stop();
      p.mailer.close();
      await p.invalidation.stop();
      await p.reads.stop();
      if (database !== t.db.database) await database.close();
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  raw: string;
  headers: Record<string, string | string[] | undefined>;
}

type Credentials = { api_key: string; signature: string };

/** Calls the API as one key: adds Authorization, the environment prefix and the body signature. */
export class ApiClient {
  constructor(
    readonly app: FastifyInstance,
    readonly creds: Credentials,
    readonly env: Env = 'sandbox',
  ) {}

  get prefix(): string {
    return this.env === 'sandbox' ? '/v1/sandbox' : '/v1';
  }

  withEnv(env: Env): ApiClient {
    return new ApiClient(this.app, this.creds, env);
  }

  withCreds(creds: Credentials): ApiClient {
    return new ApiClient(this.app, creds, this.env);
  }

  async request(method: string, path: string, opts: { body?: unknown; query?: Record<string, string>; headers?: Record<string, string>; sign?: boolean } = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = {
      authorization: `Basic ${Buffer.from(`${this.creds.api_key}:`).toString('base64')}`,
      'x-forwarded-proto': 'https',
      ...(opts.headers ?? {}),
    };
    let payload: string | undefined;
    if (opts.body !== undefined) {
      const body = opts.sign === false || typeof opts.body !== 'object' || opts.body === null || Array.isArray(opts.body)
        ? opts.body
        : { signature: this.creds.signature, ...(opts.body as object) };
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const res: LightMyRequestResponse = await this.app.inject({
      method: method as any,
      url: `${this.prefix}${path}`,
      query: opts.query,
      headers,
      payload,
    });
    return toApiResponse(res);
  }

  get(path: string, query?: Record<string, string>) {
    return this.request('GET', path, { query });
  }
  post(path: string, body: unknown = {}, headers?: Record<string, string>) {
    return this.request('POST', path, { body, headers });
  }
  put(path: string, body: unknown = {}) {
    return this.request('PUT', path, { body });
  }
  delete(path: string, body: unknown = {}) {
    return this.request('DELETE', path, { body });
  }
}

export function toApiResponse(res: LightMyRequestResponse): ApiResponse {
  let body: unknown = undefined;
  try {
    body = res.body ? JSON.parse(res.body) : undefined;
  } catch {
    body = res.body;
  }
  return { status: res.statusCode, body, raw: res.body, headers: res.headers as ApiResponse['headers'] };
}
