/**
 * Test databases. PAYGATE_TEST_DB selects the engine: `pglite` (default) or `postgres`
 * (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test). Each test file works in an
 * empty schema of its own (fresh, or one an earlier file of the worker left and that was emptied), so
 * files never see each other's data. PGlite takes seconds to boot, so one
 * instance is shared by the files a worker runs (one after another) and each file switches it to its
 * own schema.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { migrate } from '../../src/platform/db/migrate.js';
import { sql } from 'kysely';

export type TestDbKind = 'pglite' | 'postgres';

export const testDbKind = (): TestDbKind => (process.env.PAYGATE_TEST_DB === 'postgres' ? 'postgres' : 'pglite');
export const testDatabaseUrl = () => process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const g = globalThis as unknown as { __paygatePglite?: Promise<PGlite> };

async function sharedPglite(): Promise<PGlite> {
  if (!g.__paygatePglite) {
    g.__paygatePglite = (async () => {
      const { PGlite } = await import('@electric-sql/pglite');
      const client = new PGlite();
      await client.waitReady;
      return client;
    })();
  }
  return g.__paygatePglite;
}

export interface TestDatabase {
  database: Database;
  kind: TestDbKind;
  schema: string;
  /** Connection string of the schema (postgres only), for processes started by the test. */
  url: string | null;
  drop(): Promise<void>;
}

/**
 * Migrated schemas that a finished file left empty, ready for the next file of this worker: migrating a
 * fresh schema costs about 0.6 s of DDL per file, emptying one a fraction of that. A schema is reused
 * only when its catalog is exactly what the migrations made (a file that added, dropped or disabled
 * anything has its schema dropped instead), and it is emptied completely: every table but
 * `schema_migrations` truncated and every sequence set back to its start.
 */
interface Pooled {
  schema: string;
  fingerprint: string;
}
const pools = globalThis as unknown as { __paygateSchemaPools?: Record<TestDbKind, Pooled[]> };
const pool = (): Pooled[] => (pools.__paygateSchemaPools ??= { pglite: [], postgres: [] })[testDbKind()];

/** PostgreSQL schemas kept for reuse are named after the run, so the run's teardown drops them (dropRunSchemas). */
const RUN_PREFIX = () => `t_${(process.env.PAYGATE_TEST_RUN ?? 'local').replace(/[^a-z0-9]/g, '').slice(0, 12)}_`;

const FINGERPRINT = sql<{ f: string }>`
  select md5(string_agg(x, '|' order by x)) as f from (
    select 'c:' || relname || ':' || relkind::text from pg_class where relnamespace = current_schema()::regnamespace
    union all
    select 'a:' || c.relname || '.' || a.attname || ':' || a.atttypid || ':' || a.attnotnull || ':' || a.attisdropped
      from pg_attribute a join pg_class c on c.oid = a.attrelid
      where c.relnamespace = current_schema()::regnamespace and a.attnum > 0
    union all
    select 'd:' || c.relname || ':' || pg_get_expr(d.adbin, d.adrelid)
      from pg_attrdef d join pg_class c on c.oid = d.adrelid where c.relnamespace = current_schema()::regnamespace
    union all
    select 't:' || t.tgname || ':' || t.tgenabled::text
      from pg_trigger t join pg_class c on c.oid = t.tgrelid where c.relnamespace = current_schema()::regnamespace
    union all
    select 'p:' || proname || ':' || md5(prosrc) from pg_proc where pronamespace = current_schema()::regnamespace
    union all
    select 'k:' || conname || ':' || convalidated from pg_constraint where connamespace = current_schema()::regnamespace
    union all
    select 'm:' || string_agg(version, ',' order by version) from schema_migrations
  ) s(x)`;

const EMPTY = sql`
  do $$
  declare
    tables text;
    s record;
  begin
    select string_agg(format('%I.%I', schemaname, tablename), ', ') into tables
      from pg_tables where schemaname = current_schema() and tablename <> 'schema_migrations';
    if tables is not null then execute 'truncate ' || tables || ' restart identity cascade'; end if;
    for s in select schemaname, sequencename, start_value from pg_sequences where schemaname = current_schema() loop
      perform setval(format('%I.%I', s.schemaname, s.sequencename), s.start_value, false);
    end loop;
  end $$`;

async function fingerprint(database: Database): Promise<string> {
  return (await FINGERPRINT.execute(database.db)).rows[0].f;
}

/** Empties `database`'s schema for the next file; false when its catalog is no longer the migrated one. */
async function emptyForReuse(database: Database, expected: string): Promise<boolean> {
  try {
    if ((await fingerprint(database)) !== expected) return false;
    await EMPTY.execute(database.db);
    return true;
  } catch {
    return false;
  }
}

/** Drops the schemas this run kept for reuse (the run's global teardown). */
export async function dropRunSchemas(): Promise<void> {
  const c = new pg.Client({ connectionString: testDatabaseUrl() });
  try {
    await c.connect();
    const { rows } = await c.query<{ nspname: string }>('select nspname from pg_namespace where nspname like $1', [`${RUN_PREFIX()}%`]);
    for (const r of rows) await c.query(`drop schema if exists ${r.nspname} cascade`);
  } catch {
    // PostgreSQL is not there (an embedded-only run): nothing was kept in it
  } finally {
    await c.end().catch(() => {});
  }
}

/** A migrated database in a schema of its own (a reused one, emptied, when this worker has one). */
export async function createTestDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const kind = testDbKind();
  const migrated = opts.migrate !== false;
  const reused = migrated ? pool().pop() : undefined;
  const schema = reused?.schema ?? `${migrated ? RUN_PREFIX() : 't_'}${randomBytes(6).toString('hex')}`;
  let database: Database;
  let dropSchema: () => Promise<void>;
  if (kind === 'postgres') {
    if (!reused) {
      const admin = new pg.Client({ connectionString: testDatabaseUrl() });
      await admin.connect();
      await admin.query(`create schema ${schema}`);
      await admin.end();
    }
    database = await openDatabase({ databaseUrl: testDatabaseUrl(), schema, poolSize: 20 });
    dropSchema = async () => {
      const c = new pg.Client({ connectionString: testDatabaseUrl() });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    };
  } else {
    const client = await sharedPglite();
    await client.exec(`${reused ? '' : `create schema ${schema}; `}set search_path to ${schema}`);
    database = await openDatabase({ databaseUrl: null, pglite: client });
    dropSchema = async () => {
      await client.exec(`set search_path to public; drop schema if exists ${schema} cascade`);
    };
  }
  let expected = reused?.fingerprint ?? null;
  if (migrated && !reused) {
    await migrate(database);
    expected = await fingerprint(database);
  }
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    const reusable = expected !== null && (await emptyForReuse(database, expected));
    await database.close();
    if (reusable) pool().push({ schema, fingerprint: expected! });
    else await dropSchema();
  };
  return { database, kind, schema, url: kind === 'postgres' ? testDatabaseUrl() : null, drop };
}
