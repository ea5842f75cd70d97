/**
 * In-process gateway for HTTP tests: the real app on a real database (PGlite or PostgreSQL), driven
 * with `app.inject`. Workers do not run in the background; tests drain the job queue when they want
 * jobs to run, so outcomes are deterministic.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../../src/config/config.js';
import { buildApp, buildModules, registerJobs, type Modules } from '../../src/app.js';
import { createMerchantWithService, type CreateMerchantOptions, type CreatedMerchant } from '../../src/bootstrap.js';
import { createPlatform } from '../../src/platform/create.js';
import { createLogger } from '../../src/platform/logging.js';
import type { Platform } from '../../src/platform/index.js';
import { Vault } from '../../src/platform/security/vault.js';
import type { Env } from '../../src/platform/db/schema.js';
import { installResponseValidation } from './contract.js';
import { createTestDatabase, type TestDatabase } from './db.js';

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

export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const config: Config = loadConfig({
    PAYGATE_LOG_LEVEL: 'silent',
    PAYGATE_TRUST_PROXY: 'true',
    PAYGATE_RATE_LIMIT_SANDBOX: '100000',
    PAYGATE_RATE_LIMIT_PRODUCTION: '100000',
    PAYGATE_DATA_DIR: '/nonexistent-test-data-dir',
    PAYGATE_WORKERS: 'false',
    ...env,
  });
  const p = await createPlatform(config, {
    database: db.database,
    vault: testVault(),
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
  });
  const m = buildModules(p);
  registerJobs(p, m);
  const app = await buildApp(p, m, { instrument: installResponseValidation });
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
      await db.drop();
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
