/**
 * A migrated embedded database (a PGlite data directory), made once per test run and copied into the
 * data directory of an end-to-end gateway, so that its start spends neither PGlite's initdb nor every
 * migration (about 5 s). Only for tests that do not test a first start: `npm start` on a new checkout,
 * the quick start and the operator's `paygate migrate` keep an empty data directory.
 *
 * The workers of a run share it: the first to need it builds it under a name of its own and renames it
 * into place (a rename is atomic: another worker sees it whole or not at all); the run's global teardown
 * removes it (test/helpers/schemas-setup.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrate } from '../../src/platform/db/migrate.js';

const PREFIX = 'paygate-pgdata-';

/** The run's template directory (PAYGATE_TEST_RUN: set by the global set-up for every worker). */
function templateDir(): string {
  return path.join(os.tmpdir(), `${PREFIX}${process.env.PAYGATE_TEST_RUN ?? 'local'}`);
}

let made: Promise<string> | null = null;

/** Copies the run's migrated embedded database into `dataDir` (as `pgdata`, where the gateway opens it). */
export async function seedEmbeddedDatabase(dataDir: string): Promise<void> {
  const template = await (made ??= makeTemplate());
  fs.cpSync(template, path.join(dataDir, 'pgdata'), { recursive: true });
}

async function makeTemplate(): Promise<string> {
  const final = templateDir();
  if (fs.existsSync(path.join(final, 'PG_VERSION'))) return final;
  const work = fs.mkdtempSync(`${final}.partial-`);
  try {
    const database = await openDatabase({ databaseUrl: null, dataDir: work, lockHolder: 'test template' });
    try {
      await migrate(database);
    } finally {
      await database.close();
    }
    try {
      fs.renameSync(path.join(work, 'pgdata'), final);
    } catch (err) {
      // another worker renamed its own first: that one is used
      if (!fs.existsSync(path.join(final, 'PG_VERSION'))) throw err;
    }
    return final;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Removes the run's template (global teardown). */
export function removeTemplate(): void {
  const base = path.basename(templateDir());
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (name === base || name.startsWith(`${base}.partial-`)) fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
  }
}
