/**
 * Test databases. PAYGATE_TEST_DB selects the engine: `pglite` (default) or `postgres`
 * (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test). Each test file works in a
 * fresh schema of its own, so files never see each other's data. PGlite takes seconds to boot, so one
 * instance is shared by the files a worker runs (one after another) and each file switches it to its
 * own schema.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { migrate } from '../../src/platform/db/migrate.js';

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

/** A migrated database in a schema of its own. */
export async function createTestDatabase(opts: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const kind = testDbKind();
  let database: Database;
  let drop: () => Promise<void>;
  if (kind === 'postgres') {
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    database = await openDatabase({ databaseUrl: testDatabaseUrl(), schema, poolSize: 20 });
    drop = async () => {
      await database.close();
      const c = new pg.Client({ connectionString: testDatabaseUrl() });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    };
  } else {
    const client = await sharedPglite();
    await client.exec(`create schema ${schema}; set search_path to ${schema}`);
    database = await openDatabase({ databaseUrl: null, pglite: client });
    drop = async () => {
      await database.close();
      await client.exec(`set search_path to public; drop schema if exists ${schema} cascade`);
    };
  }
  if (opts.migrate !== false) await migrate(database);
  return { database, kind, schema, url: kind === 'postgres' ? testDatabaseUrl() : null, drop };
}
