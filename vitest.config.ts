/**
 * Test projects:
 *  - unit: pure code, no database;
 *  - pglite: HTTP and end-to-end tests on the embedded database;
 *  - postgres: the same tests on the local PostgreSQL. When PostgreSQL is not reachable the project is
 *    skipped with a visible message, except in CI (CI=true), where that is an error;
 *  - random and property-based tests share one seed per run, printed at the start (test/helpers/seed.ts);
 *  - files run in PAYGATE_TEST_WORKERS workers (default: the number of cores, at least 2): most of a
 *    file's time is spent waiting on PostgreSQL, a child process or Chromium, so two workers keep two
 *    cores busy where vitest's default (cores - 1) would leave one idle on a two-core machine;
 *  - scan: runs after all the others (sequence.groupOrder) and checks that no card number or CVV
 *    reached any table, log or response they captured (test/scan/pan-scan.test.ts).
 */
import os from 'node:os';
import pg from 'pg';
import { defineConfig } from 'vitest/config';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function postgresReachable(): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

export default defineConfig(async () => {
  // One seed for every random and property-based test of the run (test/helpers/seed.ts), printed here
  // and by each file that uses it: PAYGATE_TEST_SEED=<seed> replays a run.
  if (!process.env.PAYGATE_TEST_SEED) {
    process.env.PAYGATE_TEST_SEED = String((Date.now() ^ (process.pid << 10)) >>> 0);
    process.stdout.write(`random tests seed ${process.env.PAYGATE_TEST_SEED} (PAYGATE_TEST_SEED=${process.env.PAYGATE_TEST_SEED} to replay)\n`);
  }
  const wanted = (process.env.PAYGATE_TEST_DBS ?? 'pglite,postgres').split(',');
  let withPostgres = wanted.includes('postgres');
  if (withPostgres && !(await postgresReachable())) {
    if (process.env.CI) throw new Error(`PostgreSQL is not reachable at ${url}: CI must run the suite against it`);
    process.stderr.write(`\n  !! PostgreSQL is not reachable at ${url}: SKIPPING the PostgreSQL run of the suite.\n\n`);
    withPostgres = false;
  }
  // staff passwords hashed at scrypt N=2^14 instead of 2^17 (every sign-in of a test hashes several
  // times); the unit tests hold the default (test/unit/hashing.test.ts)
  const FAST_PASSWORDS = { PAYGATE_PASSWORD_SCRYPT_N: '16384' };
  const dbTests = ['test/db/**/*.test.ts', 'test/http/**/*.test.ts', 'test/e2e/**/*.test.ts'];
  const projects: any[] = [{ extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } }];
  if (wanted.includes('pglite')) {
    // browser tests (test/browser) drive Chromium against an in-process gateway; they run once, on the
    // embedded database (the HTTP tests cover the pages on both engines)
    projects.push({ extends: true, test: { name: 'pglite', include: [...dbTests, 'test/browser/**/*.test.ts'], isolate: false, env: { PAYGATE_TEST_DB: 'pglite', ...FAST_PASSWORDS } } });
  }
  if (withPostgres) {
    projects.push({ extends: true, test: { name: 'postgres', include: dbTests, isolate: false, env: { PAYGATE_TEST_DB: 'postgres', TEST_DATABASE_URL: url, ...FAST_PASSWORDS } } });
  }
  // Last: the card-data scan over what every other project captured (test/helpers/capture.ts).
  projects.push({ extends: true, test: { name: 'scan', include: ['test/scan/**/*.test.ts'], sequence: { groupOrder: 1 } } });
  return {
    test: {
      globalSetup: ['test/scan/global-setup.ts', 'test/helpers/dashboard-build.ts', 'test/helpers/schemas-setup.ts'],
      maxWorkers: Number(process.env.PAYGATE_TEST_WORKERS) || Math.max(2, os.availableParallelism()),
      testTimeout: 60_000,
      hookTimeout: 120_000,
      // a page refreshes itself every few seconds: polls wait that long (a failing poll fails after it)
      expect: { poll: { timeout: 10_000 } },
      projects,
    },
  };
});
