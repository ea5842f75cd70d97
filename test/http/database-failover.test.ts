/**
 * What the database layer does around a failover (PostgreSQL; the embedded database has no standby):
 * a connection that reached a server which cannot take writes is dropped, so the next request opens a
 * new one (through the proxy, to the new primary) instead of failing on the same standby again; and
 * readiness reads how many synchronous standbys a commit waits for.
 */
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, isWrongServer, openDatabase, synchronousStandbysNeeded, databaseState, type Database } from '../../src/platform/db/database.js';
import { testDatabaseUrl, testDbKind } from '../helpers/db.js';

let database: Database | null = null;
afterAll(async () => {
  await database?.close();
});

describe('synchronous standbys a commit waits for', () => {
  it('reads synchronous_standby_names as PostgreSQL does', () => {
    expect(synchronousStandbysNeeded('')).toBe(0);
    expect(synchronousStandbysNeeded('  ')).toBe(0);
    expect(synchronousStandbysNeeded("ANY 1 (pgautofailover_standby_2, pgautofailover_standby_3)")).toBe(1);
    expect(synchronousStandbysNeeded('FIRST 2 (a, b, c)')).toBe(2);
    expect(synchronousStandbysNeeded('3 (a, b, c)')).toBe(3);
    expect(synchronousStandbysNeeded('a, b')).toBe(1);
    expect(synchronousStandbysNeeded('*')).toBe(1);
  });
});

describe.skipIf(testDbKind() !== 'postgres')('a connection on a server that cannot take writes', () => {
  it('is dropped after the error, and the next statement runs on a new connection', async () => {
    database = await openDatabase({ databaseUrl: testDatabaseUrl(), poolSize: 1 });
    const pid = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(database!.db)).rows[0].pid;
    const first = await pid();
    expect(await pid()).toBe(first); // one connection, reused

    // a write on a read-only server: what a standby answers (25006), here forced on this connection
    const err = await database
      .transaction(async (trx) => {
        await sql`set transaction read only`.execute(trx);
        await sql`create temporary table paygate_should_fail (x int)`.execute(trx);
      })
      .then(() => null, (e: unknown) => e);
    expect(err).not.toBeNull();
    expect(isWrongServer(err)).toBe(true);
    expect(isDatabaseUnavailable(err)).toBe(true); // the request answers 503 and may be retried

    const next = await pid();
    expect(next).not.toBe(first);
    expect(await pid()).toBe(next);

    // an ordinary error (a bad statement) keeps the connection
    await sql`select * from paygate_no_such_table`.execute(database.db).catch(() => {});
    expect(await pid()).toBe(next);
  });

  it('readiness: a primary without synchronous standbys to wait for is ready', async () => {
    database ??= await openDatabase({ databaseUrl: testDatabaseUrl(), poolSize: 1 });
    const { rows } = await sql<{ names: string; standby: boolean }>`select current_setting('synchronous_standby_names') as names, pg_is_in_recovery() as standby`.execute(database.db);
    expect(rows[0].standby).toBe(false);
    const state = await databaseState(database, 2000);
    if (synchronousStandbysNeeded(rows[0].names) === 0) expect(state).toEqual({ ready: true, status: 'ready' });
  });
});
