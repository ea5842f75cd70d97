import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrate } from '../../src/platform/db/migrate.js';
import { JobQueue, PermanentJobError } from '../../src/platform/jobs/queue.js';
import { createLogger } from '../../src/platform/logging.js';
import type { Clock } from '../../src/platform/time/clock.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../helpers/db.js';

const run = promisify(execFile);
let tdb: TestDatabase;
let now = new Date('2026-06-01T10:00:00Z');
const clock: Clock = { now: () => now };
const logger = createLogger('silent');

function queue(database = tdb.database) {
  return new JobQueue({ database, clock, logger, pollMs: 20, batchSize: 10 });
}

beforeAll(async () => {
  tdb = await createTestDatabase();
});
afterAll(async () => tdb?.drop());

const status = async (queueName: string) =>
  tdb.database.db.selectFrom('jobs').select(['status', 'attempts', 'run_at', 'last_error']).where('queue', '=', queueName).execute();

describe('durable jobs', () => {
  it('a job exists only if the transaction that enqueued it committed', async () => {
    const q = queue();
    const seen: number[] = [];
    q.register<{ n: number }>('t.commit', async (j) => void seen.push(j.payload.n));
    await tdb.database.transaction(async (trx) => q.enqueue(trx, { queue: 't.commit', payload: { n: 1 } }));
    await tdb.database
      .transaction(async (trx) => {
        await q.enqueue(trx, { queue: 't.commit', payload: { n: 2 } });
        throw new Error('business rule failed');
      })
      .catch(() => {});
    expect(await q.drain()).toBe(1);
    expect(seen).toEqual([1]);
    expect((await status('t.commit')).map((r) => r.status)).toEqual(['done']);
  });

  it('retries failures with backoff, then fails for good; permanent errors stop at once', async () => {
    const q = queue();
    let calls = 0;
    q.register('t.flaky', async () => {
      calls++;
      throw new Error('receiver down');
    });
    q.register('t.permanent', async () => {
      throw new PermanentJobError('bad payload');
    });
    await q.enqueue(tdb.database.db, { queue: 't.flaky', maxAttempts: 3 });
    await q.enqueue(tdb.database.db, { queue: 't.permanent', maxAttempts: 5 });
    await q.drain();
    expect(calls).toBe(1);
    let [row] = await status('t.flaky');
    expect(row.status).toBe('pending');
    expect(row.run_at.getTime()).toBe(now.getTime() + 2000); // backoff after attempt 1
    expect((await status('t.permanent'))[0]).toMatchObject({ status: 'failed', attempts: 1, last_error: 'bad payload' });
    // not due yet: nothing runs
    await q.drain();
    expect(calls).toBe(1);
    now = new Date(now.getTime() + 2000);
    await q.drain();
    expect(calls).toBe(2);
    now = new Date(now.getTime() + 3600_000);
    await q.drain();
    expect(calls).toBe(3);
    [row] = await status('t.flaky');
    expect(row).toMatchObject({ status: 'failed', attempts: 3, last_error: 'receiver down' });
  });

  it('a handler can reschedule itself; a sandbox merchant\'s jobs move with its clock', async () => {
    const q = queue();
    let runs = 0;
    q.register('t.later', async () => {
      runs++;
      if (runs === 1) return { retryAt: new Date(now.getTime() + 3600_000) };
    });
    const merchantId = '11111111-1111-4111-8111-111111111111';
    await q.enqueue(tdb.database.db, { queue: 't.later', merchantId });
    await q.drain();
    expect(runs).toBe(1);
    await q.drain();
    expect(runs).toBe(1);
    await q.shiftMerchantJobs(tdb.database.db, merchantId, 3600_000);
    await q.drain();
    expect(runs).toBe(2);
    expect((await status('t.later'))[0].status).toBe('done');
  });

  it('a handler finishes its job in its own statement (finishSql), only while it still holds the job', async () => {
    const q = queue();
    const runs: number[] = [];
    q.register<{ n: number }>('t.finish', async (j) => {
      runs.push(j.payload.n);
      if (j.payload.n === 3) {
        // the lease was lost meanwhile: another process holds the job now, so this finish writes nothing
        await tdb.database.db.updateTable('jobs').set({ locked_by: 'another' }).where('id', '=', j.id).execute();
      }
      const retryAt = j.payload.n === 2 && runs.filter((n) => n === 2).length === 1 ? new Date(now.getTime() + 60_000) : null;
      await sql`with j as (${q.finishSql(j, retryAt)}) select 1`.execute(tdb.database.db);
      return { finished: retryAt ? 'retry' : 'done' };
    });
    for (const n of [1, 2, 3]) await q.enqueue(tdb.database.db, { queue: 't.finish', payload: { n } });
    await q.drain();
    const rows = async () =>
      (await tdb.database.db.selectFrom('jobs').select(['payload', 'status', 'run_at', 'locked_by', 'finished_at']).where('queue', '=', 't.finish').execute())
        .map((r) => ({ ...r, n: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload).n as number }))
        .sort((a, b) => a.n - b.n);
    let [one, two, three] = await rows();
    expect(one).toMatchObject({ status: 'done', locked_by: expect.anything() });
    expect(one.finished_at).not.toBeNull();
    expect(two).toMatchObject({ status: 'pending', locked_by: null });
    expect(new Date(two.run_at).getTime()).toBe(now.getTime() + 60_000);
    expect(three).toMatchObject({ status: 'running', locked_by: 'another', finished_at: null });
    now = new Date(now.getTime() + 61_000);
    await q.drain();
    [, two] = await rows();
    expect(two.status).toBe('done');
    // the third ran again too: its lease had run out with it unfinished
    expect(runs.sort()).toEqual([1, 2, 2, 3, 3]);
  });

  it('a job claimed by a worker that died is claimed again when its lease runs out', async () => {
    const q = queue();
    let runs = 0;
    q.register('t.lease', async () => void runs++);
    await q.enqueue(tdb.database.db, { queue: 't.lease' });
    // a worker claimed it and died: running, lease in the future
    await tdb.database.db.updateTable('jobs').set({ status: 'running', locked_by: 'dead', locked_until: new Date(now.getTime() + 60_000) }).where('queue', '=', 't.lease').execute();
    await q.drain();
    expect(runs).toBe(0);
    now = new Date(now.getTime() + 61_000);
    await q.drain();
    expect(runs).toBe(1);
    expect((await status('t.lease'))[0]).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('a queue\'s own lease: a dead worker\'s job of that queue runs again after it, not after the default', async () => {
    // worker 1 claims and hangs (it "died"); its clock stands still, so its lease renewals never move
    // the lease past worker 2's time
    const t0 = now;
    const frozen: Clock = { now: () => t0 };
    const w1 = new JobQueue({ database: tdb.database, clock: frozen, logger, pollMs: 20, batchSize: 10, leaseMs: 60_000 });
    let release!: () => void;
    const hung = new Promise<void>((r) => (release = r));
    let claimedBy1 = false;
    w1.register('t.short', async () => {
      claimedBy1 = true;
      await hung;
    }, { leaseMs: 2_000 });
    await w1.enqueue(tdb.database.db, { queue: 't.short' });
    const first = w1.drain({ queues: ['t.short'], maxRounds: 1 });
    while (!claimedBy1) await new Promise((r) => setTimeout(r, 5));
    const row = await tdb.database.db.selectFrom('jobs').select(['locked_until', 'status']).where('queue', '=', 't.short').executeTakeFirstOrThrow();
    expect(row.status).toBe('running');
    expect(new Date(row.locked_until!).getTime() - t0.getTime()).toBe(2_000);

    let later = new Date(t0.getTime() + 1_999);
    const w2 = new JobQueue({ database: tdb.database, clock: { now: () => later }, logger, pollMs: 20, batchSize: 10, leaseMs: 60_000 });
    let runs2 = 0;
    w2.register('t.short', async () => void runs2++, { leaseMs: 2_000 });
    await w2.drain({ queues: ['t.short'] });
    expect(runs2).toBe(0);
    later = new Date(t0.getTime() + 2_001);
    await w2.drain({ queues: ['t.short'] });
    expect(runs2).toBe(1);
    expect((await status('t.short'))[0]).toMatchObject({ status: 'done', attempts: 2 });
    // the first worker wakes up: its bookkeeping does not touch a job it no longer owns
    release();
    await first;
    expect((await status('t.short'))[0]).toMatchObject({ status: 'done', attempts: 2 });
  });

  it('at most one pending job per dedupe key (schedules across processes)', async () => {
    const q = queue();
    for (let i = 0; i < 3; i++) await q.enqueue(tdb.database.db, { queue: 't.dedupe', dedupeKey: 'schedule' });
    expect((await status('t.dedupe')).length).toBe(1);
  });
});

describe.runIf(testDbKind() === 'pglite')('jobs on the embedded database', () => {
  it('survive a restart of the process that owns the data directory', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-jobs-'));
    try {
      let database = await openDatabase({ databaseUrl: null, dataDir: dir });
      await migrate(database);
      await queue(database).enqueue(database.db, { queue: 't.restart', payload: { x: 1 } });
      await database.close();
      database = await openDatabase({ databaseUrl: null, dataDir: dir });
      const q = queue(database);
      const seen: unknown[] = [];
      q.register('t.restart', async (j) => void seen.push(j.payload));
      expect(await q.drain()).toBe(1);
      expect(seen).toEqual([{ x: 1 }]);
      await database.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.runIf(testDbKind() === 'postgres')('two gateway processes on one PostgreSQL', () => {
  it('share a queue of 1,000 jobs: each runs exactly once', async () => {
    await sql`create table job_runs (job_id bigint not null, worker text not null)`.execute(tdb.database.db);
    await tdb.database.db
      .insertInto('jobs')
      .values(Array.from({ length: 1000 }, (_, n) => ({ queue: 'test.count', payload: JSON.stringify({ n }), run_at: new Date(Date.now() - 1000), merchant_id: null, dedupe_key: null, locked_by: null, locked_until: null, last_error: null, finished_at: null })))
      .execute();
    const env = { ...process.env, DATABASE_URL: tdb.url!, TEST_SCHEMA: tdb.schema };
    const worker = path.resolve('test/helpers/job-worker.ts');
    const [w1, w2] = await Promise.all([
      run('npx', ['tsx', worker], { env, timeout: 120_000 }),
      run('npx', ['tsx', worker], { env, timeout: 120_000 }),
    ]);
    const ids = [w1.stdout.trim(), w2.stdout.trim()];
    const { rows } = await sql<{ total: number; distinct_jobs: number }>`select count(*)::int as total, count(distinct job_id)::int as distinct_jobs from job_runs`.execute(tdb.database.db);
    expect(rows[0]).toEqual({ total: 1000, distinct_jobs: 1000 });
    const per = await sql<{ worker: string; n: number }>`select worker, count(*)::int as n from job_runs group by worker`.execute(tdb.database.db);
    // both processes did work
    expect(per.rows.map((r) => r.worker).sort()).toEqual([...ids].sort());
    const left = await sql<{ n: number }>`select count(*)::int as n from jobs where queue = 'test.count' and status <> 'done'`.execute(tdb.database.db);
    expect(left.rows[0].n).toBe(0);
  });
});

describe.runIf(testDbKind() === 'postgres')('the worker loop when PostgreSQL goes away', () => {
  it('keeps running through the outage and runs the interrupted job again once its lease lapses', async () => {
    const { startTcpProxy } = await import('../helpers/tcp-proxy.js');
    const { testDatabaseUrl } = await import('../helpers/db.js');
    const target = new URL(testDatabaseUrl());
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const via = new URL(testDatabaseUrl());
    via.port = String(proxy.port);
    const database = await openDatabase({ databaseUrl: via.toString(), schema: tdb.schema, poolSize: 4, connectTimeoutMs: 500 });
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    const q = new JobQueue({ database, clock, logger, pollMs: 20, batchSize: 10, leaseMs: 1_000 });
    try {
      let runs = 0;
      q.register('t.outage', async () => {
        runs++;
        // the database goes away while the job runs: its bookkeeping cannot be written
        if (runs === 1) proxy.cut();
      });
      await q.enqueue(database.db, { queue: 't.outage' });
      q.start();
      while (runs < 1) await new Promise((r) => setTimeout(r, 10));
      // the loop polls through the outage (claims fail, nothing crashes)
      await new Promise((r) => setTimeout(r, 200));
      expect((await status('t.outage'))[0].status).toBe('running');
      proxy.restore();
      now = new Date(now.getTime() + 1_001);
      const deadline = Date.now() + 20_000;
      while ((await status('t.outage'))[0].status !== 'done' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(runs).toBe(2);
      expect((await status('t.outage'))[0]).toMatchObject({ status: 'done', attempts: 2 });
      expect(unhandled).toEqual([]);
    } finally {
      await q.stop();
      process.off('unhandledRejection', onUnhandled);
      await database.close();
      await proxy.close();
    }
  });
});
