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
  /** Runs `fn` in a transaction; retries on serialization failures and deadlocks. */
  transaction<T>(fn: (trx: Tx) => Promise<T>): Promise<T>;
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
  /** Who takes the embedded database's lock (shown to a process that is refused): `gateway` or `cli`. */
  lockHolder?: string;
  /** An already open PGlite client to use (and leave open). */
  pglite?: import('@electric-sql/pglite').PGlite;
}

function wrap(kind: Database['kind'], db: Db, onClose: () => Promise<void>, lock?: DataDirLock): Database {
  return {
    kind,
    db,
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
    return wrap('postgres', db, () => db.destroy());
  }
  if (opts.pglite) {
    // A client owned by the caller (tests share one per worker): not closed with this database.
    const db = new Kysely<DB>({ dialect: new PGliteDialect(opts.pglite) });
    return wrap('pglite', db, async () => {});
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
    const db = new Kysely<DB>({ dialect: new PGliteDialect(client) });
    return wrap(
      'pglite',
      db,
      async () => {
        try {
          await db.destroy();
        } finally {
          lock?.release();
        }
      },
      lock,
    );
  } catch (err) {
    lock?.release();
    throw err;
  }
}

/** True when `err` is a unique violation on the named constraint (or any, when none is named). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (pgCode(err) !== '23505') return false;
  if (!constraint) return true;
  return (err as { constraint?: string }).constraint === constraint;
}
