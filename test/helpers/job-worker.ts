/**
 * A separate process running the durable job queue against PostgreSQL, for the multi-process test.
 * Every job of queue `test.count` records one row in `job_runs` (job id, worker id). Exits once the
 * queue has had nothing to do for a while.
 */
import { sql } from 'kysely';
import { openDatabase } from '../../src/platform/db/database.js';
import { JobQueue } from '../../src/platform/jobs/queue.js';
import { createLogger } from '../../src/platform/logging.js';
import { systemClock } from '../../src/platform/time/clock.js';

const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL!, schema: process.env.TEST_SCHEMA, poolSize: 4 });
const jobs = new JobQueue({ database, clock: systemClock, logger: createLogger('error'), pollMs: 20, batchSize: 10 });
jobs.register<{ n: number }>('test.count', async (job) => {
  await sql`insert into job_runs (job_id, worker) values (${job.id}, ${jobs.workerId})`.execute(database.db);
});
jobs.start();
let idleSince = Date.now();
for (;;) {
  await new Promise((r) => setTimeout(r, 100));
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from jobs where queue = 'test.count' and status in ('pending', 'running')`.execute(database.db);
  if (rows[0].n > 0) idleSince = Date.now();
  else if (Date.now() - idleSince > 1000) break;
}
await jobs.stop();
await database.close();
process.stdout.write(`${jobs.workerId}\n`);
