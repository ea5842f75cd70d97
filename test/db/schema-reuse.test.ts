/**
 * The test databases' reuse (test/helpers/db.ts): a schema a file leaves is given to the next file of
 * the worker only empty (no row in any table, every sequence back at its start, the migrations still
 * recorded), and never when the file changed its catalog.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/db.js';

const jobId = async (db: Awaited<ReturnType<typeof createTestDatabase>>) =>
  (await sql<{ id: string }>`insert into jobs (queue, run_at) values ('reuse', now()) returning id::text as id`.execute(db.database.db)).rows[0].id;

describe('a test schema reused by the next file', () => {
  it('is empty, its sequences restarted and its migrations kept; one whose catalog changed is dropped', async () => {
    const first = await createTestDatabase();
    const firstId = await jobId(first);
    await jobId(first);
    await sql`insert into mail_outbox (id, recipient, subject, body_sealed) values (gen_random_uuid(), 'a@example.com', 's', 'x')`.execute(first.database.db);
    const migrations = (await sql<{ n: number }>`select count(*)::int as n from schema_migrations`.execute(first.database.db)).rows[0].n;
    expect(migrations).toBeGreaterThan(0);
    await first.drop();

    const second = await createTestDatabase();
    expect(second.schema).toBe(first.schema);
    const counts = await sql<{ t: string; n: number }>`
      select 'jobs' as t, count(*)::int as n from jobs
      union all select 'mail_outbox', count(*)::int from mail_outbox
      union all select 'schema_migrations', count(*)::int from schema_migrations`.execute(second.database.db);
    expect(Object.fromEntries(counts.rows.map((r) => [r.t, r.n]))).toEqual({ jobs: 0, mail_outbox: 0, schema_migrations: migrations });
    expect(await jobId(second)).toBe(firstId);
    // a file that changes the catalog (here: a table of its own) does not hand its schema on
    await sql`create table reuse_extra (x int)`.execute(second.database.db);
    await second.drop();

    const third = await createTestDatabase();
    expect(third.schema).not.toBe(first.schema);
    expect((await sql<{ n: number }>`select count(*)::int as n from pg_tables where tablename = 'reuse_extra'`.execute(third.database.db)).rows[0].n).toBe(0);
    await third.drop();
  });
});
