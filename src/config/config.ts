/**
 * Every setting of the gateway, in one schema, parsed once at boot.
 *
 * Settings come from environment variables. `loadConfig` converts and checks all of them and throws a
 * ConfigError naming every bad variable at once, so a misconfigured process fails fast with a clear
 * message instead of half-starting.
 */
import path from 'node:path';
import { parseAllowEntry } from '../platform/net/outgoing.js';
import { CONNECTORS } from '../processors/connectors.js';

export interface Config {
  /** TCP port of the HTTP listener (PORT). */
  port: number;
  /** Interface to listen on (HOST). */
  host: string;
  /** postgres:// URL; when absent the embedded database (PGlite) in `dataDir` is used. */
  databaseUrl: string | null;
  /** Pool size for PostgreSQL connections. */
  dbPoolSize: number;
  /** How long to wait for a new PostgreSQL connection, in milliseconds; past it the request answers 503. */
  dbConnectTimeoutMs: number;
  /** PostgreSQL: named prepared statements for parameterized queries. */
  dbPrepare: boolean;
  /** Acknowledge no write unless a synchronous standby streams from the primary (PAYGATE_REQUIRE_SYNC_STANDBY). */
  requireSyncStandby: boolean;
  /** A standby (or a proxy of standbys) for reads that may be stale: lists, exports, analytics. */
  readDatabaseUrl: string | null;
  /** Reads go to the standby only while it is at most this far behind the primary, in milliseconds. */
  readMaxLagMs: number;
  /** PAYGATE_SIMULATOR_URL: the simulator runs as a service of its own, shared by every gateway process. */
  simulatorUrl: string | null;
  /** Directory for the embedded database and local key files. */
  dataDir: string;
  /** TLS certificate and key (PEM files). When both are set the listener speaks HTTPS. */
  tlsCertFile: string | null;
  tlsKeyFile: string | null;
  /** Proxies whose X-Forwarded-* headers are trusted: false, true, or a comma list of addresses/CIDRs. */
  trustProxy: boolean | string[];
  /** IANA timezone used for `current_time` and `created`. */
  timezone: string;
  /** Requests per second allowed per API key (0: no limit). */
  rateLimitProduction: number;
  rateLimitSandbox: number;
  /** Requests per second per client IP whose API key is missing or unknown (0: no limit). */
  rateLimitUnknownKey: number;
  /** How long a customer token (E1 `Customer.token`) opens the embedded card form, in seconds. */
  customerTokenTtlS: number;
  /** Key ring for the vault: `id:base64key[,id:base64key...]`, first is the active key. */
  vaultKeys: string | null;
  /** HMAC key of card fingerprints (base64, 32 bytes); required with vaultKeys. */
  vaultFingerprintKey: string | null;
  /** Base URL under which customers reach the gateway's pages (used in `urls`). */
  publicUrl: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `pretty` (human-readable), `json` (one object per line), or `auto`: pretty when stdout is a terminal. */
  logFormat: 'auto' | 'json' | 'pretty';
  /** Sandbox routes over plain HTTP on any address, not only loopback (a LAN or a container). */
  sandboxHttpAnyAddress: boolean;
  /** Largest accepted JSON body, in bytes. */
  bodyLimit: number;
  /** Run background workers in this process. */
  workers: boolean;
  /** Milliseconds between polls of the job table when idle. */
  jobPollMs: number;
  /** Most jobs claimed in one round trip. */
  jobBatchSize: number;
  /** Most jobs of the work lane (charges, batch lines, campaigns, sweeps) running at once per process. */
  jobConcurrency: number;
  /** Most deliveries (notifications, mail) running at once per process. */
  deliveryConcurrency: number;
  /** Lease of a claimed job: a job whose worker died runs again after this long. */
  jobLeaseMs: number;
  /** Outgoing e-mail: smtp(s)://user:pass@host:port; null keeps mail in the outbox as undeliverable. */
  smtpUrl: string | null;
  mailFrom: string;
  /** Outgoing requests (notifications): addresses, CIDRs and host names reachable despite being internal. */
  outgoingAllow: string[];
  /** Sandbox merchants may reach loopback addresses (default: on when HOST is a loopback address). */
  outgoingSandboxLoopback: boolean;
  /** Timeout of one merchant notification, in milliseconds. */
  notificationTimeoutMs: number;
  /** Print and store sandbox credentials on first start. */
  bootstrapSandbox: boolean;
  /** Deadline of one processor call, in milliseconds; past it the operation is UNKNOWN (reconciled later). */
  processorTimeoutMs: number;
  /** How long an Idempotency-Key stays held by a request in flight before a retry may take it over. */
  idempotencyLockMs: number;
  /** Latency the sandbox processor adds to every answer, in milliseconds. */
  simulatorLatencyMs: number;
  /** Production services use the simulator instead of their connector (for staging setups only). */
  productionSimulator: boolean;
  /**
   * Base URL of each production connector's provider, by connector name (src/processors/connectors.ts):
   * its `PAYGATE_<NAME>_URL`, else the provider's production URL.
   */
  connectorUrls: Record<string, string>;
  /** A transaction PENDING longer than this (milliseconds) is settled by the reconciler. */
  reconcileAfterMs: number;
  /** How often the reconciler and the order-expiry sweep run, in milliseconds. */
  sweepEveryMs: number;
  /** Time to live of the in-process caches of keys, merchants and services, in milliseconds. */
  cacheTtlMs: number;
  /** Listen for changes made by other processes (LISTEN/NOTIFY) and drop the caches at once. */
  cacheInvalidation: boolean;
  /** Redis for state shared by every process (rate limits); null keeps it in each process. */
  redisUrl: string | null;
  /** Listen (LISTEN/NOTIFY) for operations queued for the devices whose sockets this process holds. */
  deviceListen: boolean;
  /** How often a process looks for queued operations of the devices whose sockets it holds, in milliseconds. */
  devicePollMs: number;
  /**
   * Worker processes `npm start` runs next to the API on PostgreSQL (background work off the API's event
   * loop); 0 runs background work in the API process. The embedded database always runs it in-process.
   */
  workerProcesses: number;
  /**
   * Wallets (B14): the roots wallet tokens must chain to. Each is a file path or the content itself.
   * Google Pay: root signing keys in Google's keys.json format; Apple Pay: root CA certificates (PEM).
   * Production trusts only these (no wallet without them); the sandbox trusts its own generated roots
   * plus the `Sandbox` ones (e.g. Google's test-environment keys).
   */
  googlePayRootKeys: string | null;
  googlePaySandboxRootKeys: string | null;
  applePayRootCa: string | null;
  applePaySandboxRootCa: string | null;
  /** How old the signing time of an Apple Pay token may be, in seconds. */
  applePayMaxTokenAgeS: number;
  /** How often an open event stream (GET /events/stream) looks for new events when nothing woke it, in ms. */
  eventStreamPollMs: number;
  /** Event streams one merchant may hold open at once (per process). */
  eventStreamsPerMerchant: number;
  /** Dashboard: a session unused this long ends, in minutes. */
  dashboardIdleMinutes: number;
  /** Dashboard: a session ends this long after its sign-in whatever its use, in minutes. */
  dashboardSessionMinutes: number;
  /** Dashboard: failed sign-ins of one user (or one name typed) before it is locked. */
  dashboardLockoutFailures: number;
  /** Dashboard: failed sign-ins from one address before it is locked. */
  dashboardLockoutFailuresPerAddress: number;
  /** Dashboard: how long a lockout lasts (and the window failures are counted in), in minutes. */
  dashboardLockoutMinutes: number;
  /** Keep a log of every API request (redacted bodies) for the dashboard's developers section. */
  requestLog: boolean;
  /** Days the API request log is kept before the pruning job deletes it. */
  requestLogDays: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function isValidTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Reads and validates the whole configuration. Throws ConfigError listing every problem. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const str = (name: string, def: string | null): string | null => {
    const v = env[name];
    return v === undefined || v === '' ? def : v;
  };
  const int = (name: string, def: number, min: number, max: number): number => {
    const raw = str(name, null);
    if (raw === null) return def;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return def;
    }
    return Number(raw);
  };
  const bool = (name: string, def: boolean): boolean => {
    const raw = str(name, null);
    if (raw === null) return def;
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return def;
  };

  const port = int('PORT', 8080, 0, 65535);
  const host = str('HOST', '127.0.0.1')!;

  const databaseUrl = str('DATABASE_URL', null);
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }

  const readDatabaseUrl = str('PAYGATE_READ_DATABASE_URL', null);
  if (readDatabaseUrl !== null && !/^postgres(ql)?:\/\//.test(readDatabaseUrl)) {
    problems.push('PAYGATE_READ_DATABASE_URL must start with postgres:// or postgresql://');
  }
  if (readDatabaseUrl !== null && databaseUrl === null) problems.push('PAYGATE_READ_DATABASE_URL needs DATABASE_URL (the embedded database has no standby)');
  if (databaseUrl === null && /^(1|true|yes|on)$/i.test(env.PAYGATE_REQUIRE_SYNC_STANDBY ?? '')) problems.push('PAYGATE_REQUIRE_SYNC_STANDBY needs DATABASE_URL (the embedded database has no standby)');
  const simulatorUrl = str('PAYGATE_SIMULATOR_URL', null);
  if (simulatorUrl !== null && !/^https?:\/\/[^/]+/.test(simulatorUrl)) problems.push('PAYGATE_SIMULATOR_URL must be an http(s) URL');

  const dataDir = path.resolve(str('PAYGATE_DATA_DIR', './data')!);
  const tlsCertFile = str('PAYGATE_TLS_CERT', null);
  const tlsKeyFile = str('PAYGATE_TLS_KEY', null);
  if ((tlsCertFile === null) !== (tlsKeyFile === null)) {
    problems.push('PAYGATE_TLS_CERT and PAYGATE_TLS_KEY must be set together');
  }

  const trustRaw = str('PAYGATE_TRUST_PROXY', 'false')!;
  let trustProxy: boolean | string[];
  if (/^(false|0|no|off)$/i.test(trustRaw)) trustProxy = false;
  else if (/^(true|1|yes|on)$/i.test(trustRaw)) trustProxy = true;
  else trustProxy = trustRaw.split(',').map((s) => s.trim()).filter(Boolean);

  const timezone = str('PAYGATE_TIMEZONE', 'Europe/Madrid')!;
  if (!isValidTimezone(timezone)) problems.push(`PAYGATE_TIMEZONE must be an IANA timezone (got "${timezone}")`);

  const vaultKeys = str('PAYGATE_VAULT_KEYS', null);
  if (vaultKeys !== null && !/^[A-Za-z0-9_-]+:[A-Za-z0-9+/=]+(,[A-Za-z0-9_-]+:[A-Za-z0-9+/=]+)*$/.test(vaultKeys)) {
    problems.push('PAYGATE_VAULT_KEYS must be id:base64key[,id:base64key...]');
  }

  const vaultFingerprintKey = str('PAYGATE_VAULT_FINGERPRINT_KEY', null);
  if (vaultKeys !== null && vaultFingerprintKey === null) {
    problems.push('PAYGATE_VAULT_FINGERPRINT_KEY must be set when PAYGATE_VAULT_KEYS is set');
  }
  if (vaultFingerprintKey !== null && Buffer.from(vaultFingerprintKey, 'base64').length < 32) {
    problems.push('PAYGATE_VAULT_FINGERPRINT_KEY must be at least 32 bytes, base64');
  }

  const logFormat = str('PAYGATE_LOG_FORMAT', 'auto')!;
  if (!['auto', 'json', 'pretty'].includes(logFormat)) problems.push('PAYGATE_LOG_FORMAT must be one of auto, json, pretty');
  const logLevel = str('PAYGATE_LOG_LEVEL', 'info')!;
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    problems.push(`PAYGATE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }

  const publicUrlRaw = str('PAYGATE_PUBLIC_URL', null);
  let publicUrl = publicUrlRaw ?? `${tlsCertFile ? 'https' : 'http'}://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  try {
    const u = new URL(publicUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
    publicUrl = publicUrl.replace(/\/+$/, '');
  } catch {
    problems.push(`PAYGATE_PUBLIC_URL must be an http(s) URL (got "${publicUrl}")`);
  }

  const outgoingAllow = (str('PAYGATE_OUTGOING_ALLOW', '') ?? '').split(',').map((x) => x.trim()).filter(Boolean);
  for (const entry of outgoingAllow) {
    if (!parseAllowEntry(entry)) problems.push(`PAYGATE_OUTGOING_ALLOW entries must be CIDRs, addresses or host names (got "${entry}")`);
  }
  const hostIsLoopback = host === 'localhost' || /^127\./.test(host) || host === '::1';

  const redisUrl = str('PAYGATE_REDIS_URL', null);
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) problems.push('PAYGATE_REDIS_URL must start with redis:// or rediss://');

  const smtpUrl = str('PAYGATE_SMTP_URL', null);
  if (smtpUrl !== null && !/^smtps?:\/\//.test(smtpUrl)) problems.push('PAYGATE_SMTP_URL must start with smtp:// or smtps://');

  const baseUrl = (name: string, fallback: string): string => {
    const raw = str(name, fallback)!;
    try {
      const u = new URL(raw);
      if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password || u.search || u.hash) throw new Error('url');
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be an http(s) base URL without credentials or query (got "${raw}")`);
      return raw;
    }
  };
  const connectorUrls = Object.fromEntries(CONNECTORS.map((c) => [c.name, baseUrl(c.url.env, c.url.production)]));

  const config: Config = {
    port,
    host,
    databaseUrl,
    dbPoolSize: int('PAYGATE_DB_POOL_SIZE', 20, 1, 500),
    dbConnectTimeoutMs: int('PAYGATE_DB_CONNECT_TIMEOUT_MS', 5000, 100, 120_000),
    dbPrepare: bool('PAYGATE_DB_PREPARE', true),
    requireSyncStandby: bool('PAYGATE_REQUIRE_SYNC_STANDBY', false),
    readDatabaseUrl,
    readMaxLagMs: int('PAYGATE_READ_MAX_LAG_MS', 5000, 100, 3_600_000),
    simulatorUrl: simulatorUrl?.replace(/\/+$/, '') ?? null,
    dataDir,
    tlsCertFile,
    tlsKeyFile,
    trustProxy,
    timezone,
    rateLimitProduction: int('PAYGATE_RATE_LIMIT_PRODUCTION', 1000, 0, 1_000_000),
    rateLimitSandbox: int('PAYGATE_RATE_LIMIT_SANDBOX', 1000, 0, 1_000_000),
    rateLimitUnknownKey: int('PAYGATE_RATE_LIMIT_UNKNOWN_KEY', 20, 0, 1_000_000),
    customerTokenTtlS: int('PAYGATE_CUSTOMER_TOKEN_TTL_S', 3600, 60, 30 * 86400),
    vaultKeys,
    vaultFingerprintKey,
    publicUrl,
    logLevel: logLevel as Config['logLevel'],
    logFormat: logFormat as Config['logFormat'],
    sandboxHttpAnyAddress: bool('PAYGATE_SANDBOX_HTTP_ANY_ADDRESS', false),
    bodyLimit: int('PAYGATE_BODY_LIMIT', 1024 * 1024, 1024, 64 * 1024 * 1024),
    workers: bool('PAYGATE_WORKERS', true),
    jobPollMs: int('PAYGATE_JOB_POLL_MS', 500, 10, 60_000),
    jobBatchSize: int('PAYGATE_JOB_BATCH', 20, 1, 1000),
    // the embedded database has one connection shared with the API: a few jobs at once leave it room
    jobConcurrency: int('PAYGATE_JOB_CONCURRENCY', databaseUrl ? 32 : 4, 1, 1000),
    deliveryConcurrency: int('PAYGATE_DELIVERY_CONCURRENCY', databaseUrl ? 16 : 4, 1, 1000),
    jobLeaseMs: int('PAYGATE_JOB_LEASE_MS', 60_000, 1000, 86_400_000),
    smtpUrl,
    mailFrom: str('PAYGATE_MAIL_FROM', 'paygate <no-reply@paygate.local>')!,
    outgoingAllow,
    outgoingSandboxLoopback: bool('PAYGATE_OUTGOING_SANDBOX_LOOPBACK', hostIsLoopback),
    notificationTimeoutMs: int('PAYGATE_NOTIFICATION_TIMEOUT_MS', 10_000, 100, 120_000),
    bootstrapSandbox: bool('PAYGATE_BOOTSTRAP_SANDBOX', true),
    processorTimeoutMs: int('PAYGATE_PROCESSOR_TIMEOUT_MS', 30_000, 10, 600_000),
    idempotencyLockMs: int('PAYGATE_IDEMPOTENCY_LOCK_MS', 60_000, 1_000, 3_600_000),
    simulatorLatencyMs: int('PAYGATE_SIMULATOR_LATENCY_MS', 0, 0, 600_000),
    productionSimulator: bool('PAYGATE_PRODUCTION_SIMULATOR', false),
    connectorUrls,
    reconcileAfterMs: int('PAYGATE_RECONCILE_AFTER_MS', 120_000, 100, 86_400_000),
    sweepEveryMs: int('PAYGATE_SWEEP_EVERY_MS', 10_000, 100, 3_600_000),
    cacheTtlMs: int('PAYGATE_CACHE_TTL_MS', 2000, 0, 3_600_000),
    cacheInvalidation: bool('PAYGATE_CACHE_INVALIDATION', true),
    redisUrl,
    deviceListen: bool('PAYGATE_DEVICE_LISTEN', true),
    devicePollMs: int('PAYGATE_DEVICE_POLL_MS', 5000, 50, 3_600_000),
    workerProcesses: int('PAYGATE_WORKER_PROCESSES', 1, 0, 64),
    googlePayRootKeys: str('PAYGATE_GOOGLE_PAY_ROOT_KEYS', null),
    googlePaySandboxRootKeys: str('PAYGATE_GOOGLE_PAY_SANDBOX_ROOT_KEYS', null),
    applePayRootCa: str('PAYGATE_APPLE_PAY_ROOT_CA', null),
    applePaySandboxRootCa: str('PAYGATE_APPLE_PAY_SANDBOX_ROOT_CA', null),
    applePayMaxTokenAgeS: int('PAYGATE_APPLE_PAY_MAX_TOKEN_AGE_S', 300, 10, 86_400),
    eventStreamPollMs: int('PAYGATE_EVENTS_STREAM_POLL_MS', 5000, 50, 600_000),
    eventStreamsPerMerchant: int('PAYGATE_EVENTS_STREAMS_PER_MERCHANT', 10, 1, 1000),
    dashboardIdleMinutes: int('PAYGATE_DASHBOARD_IDLE_MINUTES', 30, 1, 7 * 1440),
    dashboardSessionMinutes: int('PAYGATE_DASHBOARD_SESSION_MINUTES', 720, 5, 30 * 1440),
    dashboardLockoutFailures: int('PAYGATE_DASHBOARD_LOCKOUT_FAILURES', 5, 1, 1000),
    dashboardLockoutFailuresPerAddress: int('PAYGATE_DASHBOARD_LOCKOUT_FAILURES_PER_ADDRESS', 30, 1, 100_000),
    dashboardLockoutMinutes: int('PAYGATE_DASHBOARD_LOCKOUT_MINUTES', 15, 1, 1440),
    requestLog: bool('PAYGATE_REQUEST_LOG', true),
    requestLogDays: int('PAYGATE_REQUEST_LOG_DAYS', 7, 1, 365),
  };
  if (config.jobLeaseMs <= config.notificationTimeoutMs) {
    problems.push('PAYGATE_JOB_LEASE_MS must be greater than PAYGATE_NOTIFICATION_TIMEOUT_MS (a delivery in progress must not be claimed again)');
  }
  if (config.reconcileAfterMs <= config.processorTimeoutMs) {
    problems.push('PAYGATE_RECONCILE_AFTER_MS must be greater than PAYGATE_PROCESSOR_TIMEOUT_MS (a call in flight must not be reconciled)');
  }
  if (config.idempotencyLockMs <= config.processorTimeoutMs) {
    problems.push('PAYGATE_IDEMPOTENCY_LOCK_MS must be greater than PAYGATE_PROCESSOR_TIMEOUT_MS (a request still calling its processor must keep its key)');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * Settings that are valid but risky, as warnings logged at start (the process still runs).
 */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  if (config.trustProxy === true) {
    warnings.push(
      'PAYGATE_TRUST_PROXY=true trusts X-Forwarded-* headers from every hop: any client can then claim its own IP address ' +
        '(rate limits per IP, customer_ip) and HTTPS. List your proxies instead (PAYGATE_TRUST_PROXY=10.0.0.5 or a CIDR).',
    );
  }
  if (config.outgoingSandboxLoopback && !/^(127\.|::1$|localhost$)/.test(config.host)) {
    warnings.push('PAYGATE_OUTGOING_SANDBOX_LOOPBACK is on while the gateway listens beyond loopback: sandbox merchants can reach services on this host.');
  }
  return warnings;
}

/** Every environment variable the gateway reads, for documentation and `--help`. */
export const CONFIG_VARIABLES: Array<[string, string]> = [
  ['PORT', 'listen port (8080)'],
  ['HOST', 'listen address (127.0.0.1)'],
  ['DATABASE_URL', 'postgres://... to use PostgreSQL; unset uses the embedded database'],
  ['PAYGATE_DB_POOL_SIZE', 'PostgreSQL connections per process (20)'],
  ['PAYGATE_DB_CONNECT_TIMEOUT_MS', 'wait for a new PostgreSQL connection; past it requests answer 503 (5000)'],
  ['PAYGATE_DB_PREPARE', 'PostgreSQL and the embedded database: send parameterized statements as named prepared statements (true)'],
  ['PAYGATE_READ_DATABASE_URL', 'postgres://... of a standby for reads that may be stale (order lists, exports); unset: the primary'],
  ['PAYGATE_REQUIRE_SYNC_STANDBY', 'acknowledge no write, call no processor and run no background job unless a synchronous standby streams from the primary: /readyz answers 503 meanwhile (false: availability first)'],
  ['PAYGATE_READ_MAX_LAG_MS', 'reads use the standby only while it is at most this far behind the primary (5000)'],
  ['PAYGATE_SIMULATOR_URL', 'http://... of a shared processor simulator (paygate simulator); unset: each process simulates in memory'],
  ['PAYGATE_DATA_DIR', 'embedded database and local key files (./data)'],
  ['PAYGATE_TLS_CERT / PAYGATE_TLS_KEY', 'PEM files; when set the listener speaks HTTPS'],
  ['PAYGATE_TRUST_PROXY', 'false | true | comma list of proxy addresses/CIDRs (false)'],
  ['PAYGATE_TIMEZONE', 'timezone of current_time and created (Europe/Madrid)'],
  ['PAYGATE_RATE_LIMIT_PRODUCTION', 'requests per second per production key; 0 disables (1000)'],
  ['PAYGATE_RATE_LIMIT_SANDBOX', 'requests per second per sandbox key; 0 disables (1000)'],
  ['PAYGATE_RATE_LIMIT_UNKNOWN_KEY', 'requests per second per client IP with a missing or unknown API key; 0 disables (20)'],
  ['PAYGATE_CUSTOMER_TOKEN_TTL_S', 'seconds a customer token from POST /customer opens the embedded card form (3600)'],
  ['PAYGATE_VAULT_KEYS', 'vault key ring id:base64(32 bytes)[,...]; first is active (a key file in the data dir when unset)'],
  ['PAYGATE_VAULT_FINGERPRINT_KEY', 'base64 key (32 bytes) of card fingerprints; required with PAYGATE_VAULT_KEYS'],
  ['PAYGATE_PUBLIC_URL', 'base URL customers use to reach the pages (http://HOST:PORT)'],
  ['PAYGATE_LOG_LEVEL', 'fatal|error|warn|info|debug|trace|silent (info)'],
  ['PAYGATE_LOG_FORMAT', 'auto|json|pretty: auto is human-readable on a terminal, JSON otherwise (auto)'],
  ['PAYGATE_SANDBOX_HTTP_ANY_ADDRESS', 'true: sandbox over plain HTTP on any address, not only loopback; warned at start (false)'],
  ['PAYGATE_BODY_LIMIT', 'largest JSON body in bytes (1048576)'],
  ['PAYGATE_WORKERS', 'run background workers in this process (true)'],
  ['PAYGATE_JOB_POLL_MS', 'job poll interval when idle (500)'],
  ['PAYGATE_JOB_BATCH', 'most jobs claimed in one round trip (20)'],
  ['PAYGATE_JOB_CONCURRENCY', 'most background jobs (charges, batch lines, campaign messages, sweeps) running at once per process (32 on PostgreSQL, 4 on the embedded database)'],
  ['PAYGATE_DELIVERY_CONCURRENCY', 'most notification and e-mail deliveries running at once per process, apart from the other jobs (16 on PostgreSQL, 4 on the embedded database)'],
  ['PAYGATE_JOB_LEASE_MS', 'lease of a claimed job: a job whose worker died runs again after this long; running jobs renew it (60000)'],
  ['PAYGATE_SMTP_URL', 'smtp(s)://user:pass@host:port for outgoing e-mail'],
  ['PAYGATE_MAIL_FROM', 'sender of outgoing e-mail'],
  ['PAYGATE_OUTGOING_ALLOW', 'comma list of CIDRs, addresses or host names notifications may reach although internal (none)'],
  ['PAYGATE_OUTGOING_SANDBOX_LOOPBACK', 'sandbox notifications may reach loopback addresses (true when HOST is a loopback address)'],
  ['PAYGATE_NOTIFICATION_TIMEOUT_MS', 'timeout of one merchant notification (10000)'],
  ['PAYGATE_BOOTSTRAP_SANDBOX', 'create and print a sandbox merchant on first start (true)'],
  ['PAYGATE_PROCESSOR_TIMEOUT_MS', 'deadline of one processor call; past it the operation is reconciled later (30000)'],
  ['PAYGATE_SIMULATOR_LATENCY_MS', 'latency of the sandbox processor (0)'],
  ['PAYGATE_PRODUCTION_SIMULATOR', 'production services use the simulator instead of their connector: staging only, no real money moves (false)'],
  // each production connector's base URL (src/processors/connectors.ts)
  ...CONNECTORS.map((c): [string, string] => [c.url.env, `${c.url.help} ${c.url.test} (${c.url.production})`]),
  ['PAYGATE_IDEMPOTENCY_LOCK_MS', 'how long an Idempotency-Key stays held by a request in flight; a retry meanwhile is 409, and after it takes the key over if the request died without committing anything; above PAYGATE_PROCESSOR_TIMEOUT_MS (60000)'],
  ['PAYGATE_RECONCILE_AFTER_MS', 'a transaction PENDING this long is settled by the reconciler (120000)'],
  ['PAYGATE_SWEEP_EVERY_MS', 'interval of the reconciler and order-expiry sweeps (10000)'],
  ['PAYGATE_CACHE_TTL_MS', 'time to live of the in-process caches of keys, merchants and services; changes from any process drop them at once (2000)'],
  ['PAYGATE_CACHE_INVALIDATION', 'listen for changes made by other processes (LISTEN/NOTIFY) and drop the caches at once (true)'],
  ['PAYGATE_REDIS_URL', 'redis://host:port: rate limits shared by every process; unset keeps them per process'],
  ['PAYGATE_DEVICE_LISTEN', 'hear at once (LISTEN/NOTIFY) of operations for the device sockets this process holds; false relies on PAYGATE_DEVICE_POLL_MS, e.g. behind a pooler without LISTEN (true)'],
  ['PAYGATE_DEVICE_POLL_MS', 'how often a process looks for queued operations of the device sockets it holds (5000)'],
  ['PAYGATE_DASHBOARD_IDLE_MINUTES', 'a dashboard session unused this long ends (30)'],
  ['PAYGATE_DASHBOARD_SESSION_MINUTES', 'a dashboard session ends this long after its sign-in, used or not (720)'],
  ['PAYGATE_DASHBOARD_LOCKOUT_FAILURES', 'failed dashboard sign-ins of one user before it is locked for PAYGATE_DASHBOARD_LOCKOUT_MINUTES (5)'],
  ['PAYGATE_DASHBOARD_LOCKOUT_FAILURES_PER_ADDRESS', 'failed dashboard sign-ins from one client address before it is locked (30)'],
  ['PAYGATE_DASHBOARD_LOCKOUT_MINUTES', 'how long a dashboard lockout lasts, and the window failures are counted in (15)'],
  ['PAYGATE_REQUEST_LOG', 'keep a log of every API request, bodies redacted, for the dashboard\'s developers section (true)'],
  ['PAYGATE_REQUEST_LOG_DAYS', 'days the API request log is kept; older entries are pruned hourly (7)'],
  ['PAYGATE_EVENTS_STREAM_POLL_MS', 'an open event stream (GET /events/stream, paygate listen) looks for new events this often when no notification woke it (5000)'],
  ['PAYGATE_EVENTS_STREAMS_PER_MERCHANT', 'event streams one merchant may hold open at once, per gateway process; more are 429 (10)'],
  ['PAYGATE_WORKER_PROCESSES', 'worker processes npm start runs next to the API on PostgreSQL; 0 runs background work in the API process (1)'],
  ['PAYGATE_GOOGLE_PAY_ROOT_KEYS', "Google Pay root signing keys for production (Google's keys.json: a file path or the JSON); unset: no Google Pay in production"],
  ['PAYGATE_GOOGLE_PAY_SANDBOX_ROOT_KEYS', "extra Google Pay root signing keys trusted in the sandbox besides the gateway's own (Google's test keys.json)"],
  ['PAYGATE_APPLE_PAY_ROOT_CA', 'Apple Pay root CA for production (Apple Root CA - G3: a PEM file path or the PEM); unset: no Apple Pay in production'],
  ['PAYGATE_APPLE_PAY_SANDBOX_ROOT_CA', "extra Apple Pay root CAs trusted in the sandbox besides the gateway's own"],
  ['PAYGATE_APPLE_PAY_MAX_TOKEN_AGE_S', 'how old the signing time of an Apple Pay token may be, in seconds (300)'],
];
