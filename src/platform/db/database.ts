/**
 * The database: PGlite (embedded, default) or PostgreSQL (DATABASE_URL), both behind one Kysely instance
 * speaking one SQL dialect. Business code receives a `Database` and runs money-moving work inside
 * `database.transaction(...)`, passing the transaction down to repositories.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { PGliteDialect, transactionScope } from './pglite-dialect.js';
import { preparedName } from './prepared.js';
import type { DB } from './schema.js';
import { acquireDataDirLock, type DataDirLock } from './lock.js';
import { PG_DEADLOCK, PG_SERIALIZATION_FAILURE, pgCode } from '../errors/errors.js';

export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;
/** Either the root database or a transaction: what repositories take. */
export type Executor = Kysely<DB>;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  /** The embedded database's directory lock (PGlite on disk only). */
  readonly lock?: DataDirLock;
  /**
   * Statements sent to the database by this process (every round trip: queries, BEGIN, COMMIT). What
   * bench/roundtrips.ts and the round-trip test count.
   */
  readonly stats: DbStats;
  /** Runs `fn` in a transaction; retries on serialization failures and deadlocks. */
  transaction<T>(fn: (trx: Tx) => Promise<T>): Promise<T>;
  /**
   * Listens to NOTIFY on `channel` (a connection of its own on PostgreSQL, reconnected when lost).
   * `onMessage` is also called after a reconnection, with null: notifications may have been missed.
   * Returns the function that stops listening.
   */
  listen?(channel: string, onMessage: (payload: string | null) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

// int8 as JavaScript numbers (money and counters stay far below 2^53), the same as PGlite returns them.
pg.types.setTypeParser(20, (v: string) => Number(v));

export interface DbStats {
  roundTrips: number;
  /** When set, the text of every parameterized statement sent is added (tests look at their plans). */
  statements?: Set<string>;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir?: string;
  /** `memory://` PGlite for tests when true. */
  inMemory?: boolean;
  poolSize?: number;
  /** How long to wait for a new PostgreSQL connection before failing (ms); a request then answers 503. */
  connectTimeoutMs?: number;
  /** Told about connection errors the pool absorbed (logging). */
  onConnectionError?: (err: Error) => void;
  /** PostgreSQL schema to use (tests isolate themselves in their own schema). */
  schema?: string;
  /** Who takes the embedded database's lock (shown to a process that is refused): `gateway` or `cli`. */
  lockHolder?: string;
  /** An already open PGlite client to use (and leave open). */
  pglite?: import('@electric-sql/pglite').PGlite;
  /**
   * Send every parameterized statement as a named prepared statement (parsed and planned once per
   * connection, then only bound and executed), on PostgreSQL and on PGlite. On by default
   * (PAYGATE_DB_PREPARE).
   */
  prepare?: boolean;
  /**
   * Do not check the connection at open (a standby for reads: the process starts while it is away,
   * and reads use the primary until it answers).
   */
  lazy?: boolean;
}

export { preparedName } from './prepared.js';

type PgQuery = (...args: unknown[]) => unknown;

/**
 * Counts every statement a pool client sends and, with `prepare`, turns `query(text, values)` with
 * values (what Kysely sends for compiled queries) into `query({ name, text, values })`. Statements
 * without values (BEGIN, COMMIT, migrations of several statements) go as they are.
 */
function instrumentClient(client: pg.PoolClient, stats: DbStats, prepare: boolean): void {
  const marked = client as pg.PoolClient & { __paygate?: true };
  if (marked.__paygate) return;
  marked.__paygate = true;
  const original = client.query.bind(client) as PgQuery;
  const send = (...args: unknown[]) => {
    const [text, values] = args;
    if (prepare && typeof text === 'string' && Array.isArray(values) && values.length > 0 && args.length === 2) {
      const name = preparedName(text);
      if (name) return original({ name, text, values });
    }
    return original(...args);
  };
  (client as unknown as { query: PgQuery }).query = (...args: unknown[]) => {
    stats.roundTrips++;
    const [text, values] = args;
    if (stats.statements && typeof text === 'string' && Array.isArray(values) && values.length > 0) stats.statements.add(text);
    const result = send(...args);
    // A connection that reached a server which cannot take writes (a standby, a primary being demoted)
    // is of no further use: it is marked, and closed when it goes back to the pool (after its
    // transaction's rollback), so the next request opens a new connection, which the proxy sends to
    // the current primary.
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      (result as Promise<unknown>).then(undefined, (err) => {
        if (isWrongServer(err)) (client as WrongServerMark).__paygateWrongServer = true;
      });
    }
    return result;
  };
}

type WrongServerMark = { __paygateWrongServer?: boolean };

/** Closes a marked connection as it is released: the pool then drops it instead of keeping it idle. */
function dropWrongServer(client: pg.PoolClient): void {
  if ((client as WrongServerMark).__paygateWrongServer) void client.end().catch(() => {});
}

/** The server answered but cannot serve this connection's writes: it is (or is becoming) a standby. */
export function isWrongServer(err: unknown): boolean {
  const code = pgCode(err);
  return code === PG_READ_ONLY_TRANSACTION || code === PG_CANNOT_CONNECT_NOW;
}

const PG_READ_ONLY_TRANSACTION = '25006';
const PG_CANNOT_CONNECT_NOW = '57P03';

/**
 * TCP keepalive on every PostgreSQL connection, so a connection whose server vanished without closing
 * it (a machine lost, a network cut) is found dead by the operating system instead of waiting forever.
 */
const KEEPALIVE = { keepAlive: true, keepAliveInitialDelayMillis: 10_000 } as const;

function wrap(kind: Database['kind'], db: Db, stats: DbStats, onClose: () => Promise<void>, listen?: Database['listen'], lock?: DataDirLock): Database {
  return {
    kind,
    db,
    stats,
    listen,
    lock,
    async transaction<T>(fn: (trx: Tx) => Promise<T>): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        try {
          // The scope only guards PGlite's single connection against use of the root db inside a
          // transaction; on PostgreSQL it would enable async hooks (a cost on every promise) for nothing.
          return await db.transaction().execute((trx) => (kind === 'pglite' ? transactionScope.run(true, () => fn(trx)) : fn(trx)));
        } catch (err) {
          const code = pgCode(err);
          if ((code === PG_SERIALIZATION_FAILURE || code === PG_DEADLOCK) && attempt < 5) {
            await new Promise((r) => setTimeout(r, 5 * attempt + Math.random() * 10));
            continue;
          }
          throw err;
        }
      }
    },
    close: onClose,
  };
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const stats: DbStats = { roundTrips: 0 };
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 20,
      options: opts.schema ? `-c search_path=${opts.schema}` : undefined,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
      ...KEEPALIVE,
    });
    // A dropped connection must never crash the process. pg emits 'error' on the client whose socket
    // died: the pool listens only while a client is idle, so a client checked out by a request or a
    // transaction (between two queries) had no listener and the event killed the process. Every client
    // gets a listener for its whole life; the query in flight fails on its own (the request answers 503,
    // its transaction is rolled back by the server) and the pool discards the broken client on release.
    const report = (err: Error) => opts.onConnectionError?.(err);
    pool.on('error', report);
    pool.on('connect', (client) => {
      client.on('error', report);
    });
    const prepare = opts.prepare ?? true;
    pool.on('connect', (client) => instrumentClient(client, stats, prepare));
    // 'release' is emitted before the pool decides to keep the client: an ended client is dropped
    pool.on('release', (_err: Error | undefined, client: pg.PoolClient) => dropWrongServer(client));
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    if (!opts.lazy) await sql`select 1`.execute(db);
    const listeners = new Set<() => Promise<void>>();
    const listen = async (channel: string, onMessage: (payload: string | null) => void) => {
      const stop = await listenPostgres(opts.databaseUrl!, channel, onMessage);
      listeners.add(stop);
      return async () => {
        listeners.delete(stop);
        await stop();
      };
    };
    return wrap('postgres', db, stats, async () => {
      await Promise.allSettled([...listeners].map((s) => s()));
      await db.destroy();
    }, listen);
  }
  if (opts.pglite) {
    // A client owned by the caller (tests share one per worker): not closed with this database.
    const db = new Kysely<DB>({ dialect: new PGliteDialect(opts.pglite, stats, opts.prepare ?? true) });
    const l = pgliteListen(opts.pglite);
    return wrap('pglite', db, stats, l.closeAll, l.listen);
  }
  const { PGlite } = await import('@electric-sql/pglite');
  let dir: string | undefined;
  let lock: DataDirLock | undefined;
  if (!opts.inMemory) {
    const dataDir = opts.dataDir ?? './data';
    // one process at a time: a second one would work on files the first does not see
    lock = acquireDataDirLock(dataDir, opts.lockHolder ?? 'cli');
    dir = path.join(dataDir, 'pgdata');
    fs.mkdirSync(dir, { recursive: true });
  }
  try {
    const client = dir ? new PGlite(dir) : new PGlite();
    await client.waitReady;
    const db = new Kysely<DB>({ dialect: new PGliteDialect(client, stats, opts.prepare ?? true) });
    const l = pgliteListen(client);
    return wrap(
      'pglite',
      db,
      stats,
      async () => {
        try {
          await l.closeAll();
          await db.destroy();
        } finally {
          lock?.release();
        }
      },
      l.listen,
      lock,
    );
  } catch (err) {
    lock?.release();
    throw err;
  }
}

/** PGlite runs in this process: its own listen (notifications are delivered after commit). */
function pgliteListen(client: import('@electric-sql/pglite').PGlite) {
  const open = new Set<() => Promise<void>>();
  const listen: NonNullable<Database['listen']> = async (channel, onMessage) => {
    const unsubscribe = await client.listen(channel, (payload: string) => onMessage(payload));
    const stop = async () => {
      if (!open.delete(stop)) return;
      await unsubscribe().catch(() => {});
    };
    open.add(stop);
    return stop;
  };
  return { listen, closeAll: async () => void (await Promise.allSettled([...open].map((s) => s()))) };
}

/**
 * A dedicated PostgreSQL connection that LISTENs on `channel`. When the connection drops it reconnects
 * (backing off up to 5 s) and reports null, since notifications sent meanwhile were lost.
 */
async function listenPostgres(connectionString: string, channel: string, onMessage: (payload: string | null) => void): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let delay = 100;
  const ident = '"' + channel.replace(/"/g, '""') + '"';
  const connect = async (first: boolean): Promise<void> => {
    const c = new pg.Client({ connectionString, ...KEEPALIVE });
    c.on('notification', (n) => {
      if (n.channel === channel) onMessage(n.payload ?? '');
    });
    c.on('error', () => reconnect(c));
    c.on('end', () => reconnect(c));
    try {
      await c.connect();
      await c.query(`listen ${ident}`);
    } catch (err) {
      c.removeAllListeners('end');
      await c.end().catch(() => {});
      if (first) throw err;
      schedule();
      return;
    }
    if (stopped) {
      await c.end().catch(() => {});
      return;
    }
    client = c;
    delay = 100;
    if (!first) onMessage(null);
  };
  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void connect(false);
    }, delay);
    retry.unref();
    delay = Math.min(5000, delay * 2);
  };
  const reconnect = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    c.removeAllListeners('end');
    c.end().catch(() => {});
    schedule();
  };
  await connect(true);
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const c = client;
    client = null;
    if (c) {
      c.removeAllListeners('end');
      await c.end().catch(() => {});
    }
  };
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED',
  '57P01', // admin_shutdown (pg_terminate_backend, fast shutdown)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, in recovery)
  '57P04', // database_dropped
  '53300', // too_many_connections
  '53400', // configuration_limit_exceeded (connection limit of the role or database)
  '25006', // read_only_sql_transaction (a standby after failover)
]);
/**
 * SQLSTATE 55000 (object_not_in_prerequisite_state) is a connection refusal only with this message
 * (`database "x" is not currently accepting connections`: ALTER DATABASE ... ALLOW_CONNECTIONS false);
 * raised by a statement it is a problem of the statement.
 */
const NOT_ACCEPTING = /not (currently|yet) accepting connections/i;
const CONNECTION_ERROR_MESSAGES = /Connection terminated|not (currently|yet) accepting connections|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|terminating connection|the database system is (starting up|shutting down|in recovery)|Connection ended unexpectedly|connect ECONNREFUSED/i;

/**
 * True when `err` says the database could not be reached or the connection died (not a problem of the
 * statement): the request fails with 503 and may be retried; nothing of its transaction was committed.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = pgCode(err);
  if (code && (CONNECTION_ERROR_CODES.has(code) || code.startsWith('08'))) return true;
  const message = (err as { message?: unknown }).message;
  if (code === '55000') return typeof message === 'string' && NOT_ACCEPTING.test(message);
  if (typeof message === 'string' && CONNECTION_ERROR_MESSAGES.test(message)) return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err ? isDatabaseUnavailable(cause) : false;
}

/** Answers whether the database answers a query within `timeoutMs` (readiness). */
export async function databaseAnswers(database: Database, timeoutMs: number): Promise<boolean> {
  return (await databaseState(database, timeoutMs)).ready;
}

export interface DatabaseState {
  /** True when the database takes writes now. */
  ready: boolean;
  /** Why not, when not: `database unavailable`, `database is a standby`, `database is read-only`, `no synchronous standby`. */
  status: string;
}

/**
 * What readiness reports. On PostgreSQL, besides answering within `timeoutMs`, the server must take
 * writes: not a standby (a proxy that has not yet noticed a failover), and, when it requires
 * synchronous standbys (`synchronous_standby_names`), with enough of them connected, since otherwise
 * every commit waits for one to come back. Standbys the connection's role may not see (without
 * `pg_monitor`) are not counted against it.
 */
export async function databaseState(database: Database, timeoutMs: number): Promise<DatabaseState> {
  let timer: NodeJS.Timeout | undefined;
  const unavailable: DatabaseState = { ready: false, status: 'database unavailable' };
  try {
    const timeout = new Promise<DatabaseState>((resolve) => {
      timer = setTimeout(() => resolve(unavailable), timeoutMs);
    });
    const probe: Promise<DatabaseState> =
      database.kind === 'pglite'
        ? sql`select 1`.execute(database.db).then(
            () => ({ ready: true, status: 'ready' }),
            () => unavailable,
          )
        : sql<{ standby: boolean; readonly: boolean; names: string; synced: number; hidden: number }>`
            select pg_is_in_recovery() as standby, current_setting('default_transaction_read_only')::bool as readonly,
              current_setting('synchronous_standby_names') as names,
              (select count(*) from pg_stat_replication where sync_state in ('sync', 'quorum'))::int as synced,
              (select count(*) from pg_stat_replication where sync_state is null)::int as hidden`
            .execute(database.db)
            .then(({ rows: [r] }) => {
              if (r.standby) return { ready: false, status: 'database is a standby (read-only)' };
              if (r.readonly) return { ready: false, status: 'database is read-only (being promoted or demoted)' };
              const needed = synchronousStandbysNeeded(r.names);
              if (needed > 0 && r.hidden === 0 && r.synced < needed) return { ready: false, status: 'no synchronous standby: writes wait' };
              return { ready: true, status: 'ready' };
            }, () => unavailable);
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** How many synchronous standbys a commit waits for, from `synchronous_standby_names` (0: none). */
export function synchronousStandbysNeeded(names: string): number {
  const s = names.trim();
  if (s === '') return 0;
  const m = /^(?:(?:ANY|FIRST)\s+)?(\d+)\s*\(/i.exec(s);
  return m ? Number(m[1]) : 1;
}

/** True when `err` is a unique violation on the named constraint (or any, when none is named). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (pgCode(err) !== '23505') return false;
  if (!constraint) return true;
  return (err as { constraint?: string }).constraint === constraint;
}
