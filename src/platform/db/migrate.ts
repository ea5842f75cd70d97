/**
 * Forward-only migrations: plain SQL files in `migrations/`, applied in name order, each in its own
 * transaction, recorded in `schema_migrations`. An advisory lock keeps two processes starting at once
 * from applying the same file twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Database } from './database.js';

/** `migrations/` of the project: found upwards from this module (src/platform/db in the sources, dist/ in a build). */
export const MIGRATIONS_DIR = findUp(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

function findUp(from: string, name: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, name);
    if (fs.existsSync(path.join(candidate, '0001_foundation.sql'))) return candidate;
    if (path.dirname(dir) === dir) return path.resolve(from, '../../../', name);
  }
}

const LOCK_ID = 7_246_310_019; // arbitrary, constant: "paygate migrations"

export interface Migration {
  version: string;
  sql: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: f.replace(/\.sql$/, ''), sql: fs.readFileSync(path.join(dir, f), 'utf8') }));
}

/** Applies pending migrations; returns the versions applied. */
export async function migrate(database: Database, migrations = readMigrations()): Promise<string[]> {
  await sql`create table if not exists schema_migrations (
    version text primary key,
    applied_at timestamptz not null default now()
  )`.execute(database.db);
  // the common case, a start on an up-to-date database: one read, no lock, no transaction per file
  const present = new Set((await sql<{ version: string }>`select version from schema_migrations`.execute(database.db)).rows.map((r) => r.version));
  if (migrations.every((m) => present.has(m.version))) return [];
  const applied: string[] = [];
  for (const m of migrations) {
    const done = await database.transaction(async (trx) => {
      await sql`select pg_advisory_xact_lock(${LOCK_ID})`.execute(trx);
      const exists = await trx
        .selectFrom('schema_migrations')
        .select('version')
        .where('version', '=', m.version)
        .executeTakeFirst();
      if (exists) return false;
      await sql.raw(m.sql).execute(trx);
      await trx.insertInto('schema_migrations').values({ version: m.version }).execute();
      return true;
    });
    if (done) applied.push(m.version);
  }
  return applied;
}
