/**
 * A migrated embedded database (a PGlite data directory), made once per test run and copied into the
 * data directory of an end-to-end gateway, so that its start spends neither PGlite's initdb nor every
 * migration (about 5 s). Only for tests that do not test a first start: `npm start` on a new checkout,
 * the quick start and the operator's `paygate migrate` keep an empty data directory.
 *
 * The workers of a run share it: the first to need it builds it under a name of its own and renames it
 * into place (a rename is atomic: another worker sees it whole or not at all); the run's global teardown
 * removes it (test/helpers/schemas-setup.ts). A run that was killed before its teardown leaves its own
 * behind: the next run's set-up removes those older than a day (no run lasts that long, so a template
 * still in use by another run on the machine is never one of them).
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

/** A day: older templates belong to runs that were killed before their teardown. */
export const STALE_AFTER_MS = 24 * 3600_000;

/** Removes the templates (and half-made ones) of earlier runs last changed more than `staleAfterMs` ago. */
export function removeStaleTemplates(now = Date.now(), staleAfterMs = STALE_AFTER_MS, dir = os.tmpdir()): string[] {
  const removed: string[] = [];
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith(PREFIX)) continue;
    const full = path.join(dir, name);
    let changed: number;
    try {
      changed = fs.statSync(full).mtimeMs;
    } catch {
      continue; // removed meanwhile
    }
    if (now - changed < staleAfterMs) continue;
    fs.rmSync(full, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
