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
import type { DB } from './schema.js';
import { PG_DEADLOCK, PG_SERIALIZATION_FAILURE, pgCode } from '../errors/errors.js';

export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;
/** Either the root database or a transaction: what repositories take. */
export type Executor = Kysely<DB>;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
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

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir?: string;
  /** `memory://` PGlite for tests when true. */
  inMemory?: boolean;
  poolSize?: number;
  /** PostgreSQL schema to use (tests isolate themselves in their own schema). */
  schema?: string;
  /** An already open PGlite client to use (and leave open). */
  pglite?: import('@electric-sql/pglite').PGlite;
}

function wrap(kind: Database['kind'], db: Db, onClose: () => Promise<void>, listen?: Database['listen']): Database {
  return {
    kind,
    db,
    listen,
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
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 20,
      options: opts.schema ? `-c search_path=${opts.schema}` : undefined,
    });
    // A dropped idle connection must not crash the process.
    pool.on('error', () => {});
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    await sql`select 1`.execute(db);
    const listeners = new Set<() => Promise<void>>();
    const listen = async (channel: string, onMessage: (payload: string | null) => void) => {
      const stop = await listenPostgres(opts.databaseUrl!, channel, onMessage);
      listeners.add(stop);
      return async () => {
        listeners.delete(stop);
        await stop();
      };
    };
    return wrap('postgres', db, async () => {
      await Promise.allSettled([...listeners].map((s) => s()));
      await db.destroy();
    }, listen);
  }
  if (opts.pglite) {
    // A client owned by the caller (tests share one per worker): not closed with this database.
    const db = new Kysely<DB>({ dialect: new PGliteDialect(opts.pglite) });
    const l = pgliteListen(opts.pglite);
    return wrap('pglite', db, l.closeAll, l.listen);
  }
  const { PGlite } = await import('@electric-sql/pglite');
  let dir: string | undefined;
  if (!opts.inMemory) {
    dir = path.join(opts.dataDir ?? './data', 'pgdata');
    fs.mkdirSync(dir, { recursive: true });
  }
  const client = dir ? new PGlite(dir) : new PGlite();
  await client.waitReady;
  const db = new Kysely<DB>({ dialect: new PGliteDialect(client) });
  const l = pgliteListen(client);
  return wrap('pglite', db, async () => {
    await l.closeAll();
    await db.destroy();
  }, l.listen);
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
    const c = new pg.Client({ connectionString });
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

/** True when `err` is a unique violation on the named constraint (or any, when none is named). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (pgCode(err) !== '23505') return false;
  if (!constraint) return true;
  return (err as { constraint?: string }).constraint === constraint;
}
