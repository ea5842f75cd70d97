/**
 * Named prepared statements, on PostgreSQL and on PGlite: a parameterized query is parsed and planned
 * once per connection under a name derived from its text, then only bound and executed. Shown by the
 * server's own list of the connection's prepared statements (pg_prepared_statements).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, preparedName, type Database } from '../../src/platform/db/database.js';
import { createTestDatabase, testDatabaseUrl, testDbKind, type TestDatabase } from '../helpers/db.js';

describe(`prepared statements (${testDbKind()})`, () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(async () => t?.drop());

  async function preparedOnConnection(database: Database, query: (trx: any) => Promise<unknown>) {
    // one transaction: one connection, so the list is the one of the connection that ran the query
    return database.transaction(async (trx) => {
      await query(trx);
      await query(trx);
      const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(trx);
      return rows;
    });
  }

  it('a parameterized query runs as a named prepared statement, named by its text, and answers as before', async () => {
    const q = (db: any) => db.selectFrom('merchants').select(['id', 'name']).where('id', '=', '00000000-0000-0000-0000-000000000000').execute();
    const compiled = t.database.db.selectFrom('merchants').select(['id', 'name']).where('id', '=', '00000000-0000-0000-0000-000000000000').compile();
    const rows = await preparedOnConnection(t.database, q);
    const name = preparedName(compiled.sql);
    expect(name).toMatch(/^pg_/);
    const mine = rows.filter((r) => r.name === name);
    expect(mine).toHaveLength(1);
    expect(mine[0].statement).toBe(compiled.sql);
    // the same text always gets the same name (every connection and process agrees)
    expect(preparedName(compiled.sql)).toBe(name);
    // typed parameters and results go through the prepared form unchanged
    const r = await sql<{ n: number; d: Date; j: unknown; s: string | null; b: boolean }>`select ${41}::int + 1 as n, ${new Date('2026-01-02T03:04:05.678Z')}::timestamptz as d,
      ${JSON.stringify({ a: [1, 'é/'] })}::jsonb as j, ${null}::text as s, ${true}::boolean as b`.execute(t.database.db);
    expect(r.rows).toEqual([{ n: 42, d: new Date('2026-01-02T03:04:05.678Z'), j: { a: [1, 'é/'] }, s: null, b: true }]);
    // an error in a prepared statement is the database's error, and the statement keeps working
    await expect(sql`select 1 / ${0}::int as boom`.execute(t.database.db)).rejects.toMatchObject({ code: '22012' });
    await expect(sql`select 1 / ${0}::int as boom`.execute(t.database.db)).rejects.toMatchObject({ code: '22012' });
    expect((await sql<{ boom: number }>`select 1 / ${1}::int as boom`.execute(t.database.db)).rows).toEqual([{ boom: 1 }]);
  });

  it('with prepare off nothing is prepared', async () => {
    const plain = testDbKind() === 'postgres'
      ? await openDatabase({ databaseUrl: testDatabaseUrl(), schema: t.schema, poolSize: 2, prepare: false })
      : await openDatabase({ databaseUrl: null, inMemory: true, prepare: false });
    try {
      const rows = await preparedOnConnection(plain, (db) => sql`select ${'nobody'}::text as not_prepared`.execute(db));
      expect(rows).toEqual([]);
    } finally {
      await plain.close();
    }
  });

  it('counts every round trip, BEGIN and COMMIT included', async () => {
    const before = t.database.stats.roundTrips;
    await t.database.transaction(async (trx) => {
      await trx.selectFrom('merchants').select('id').where('name', '=', 'x').execute();
    });
    expect(t.database.stats.roundTrips - before).toBe(3);
  });
});
