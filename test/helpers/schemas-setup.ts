/**
 * vitest globalSetup: names this run (PAYGATE_TEST_RUN, shared by every worker through the environment),
 * so the migrated PostgreSQL schemas the workers keep for reuse (test/helpers/db.ts) carry the run's name
 * and are dropped at its end, leaving another run's schemas alone; so is the run's migrated embedded
 * database (test/helpers/pgdata-template.ts). Embedded-database templates a killed run left behind over a
 * day ago are removed at the start.
 */
import { randomBytes } from 'node:crypto';
import { dropRunSchemas } from './db.js';
import { removeStaleTemplates, removeTemplate } from './pgdata-template.js';

export default function setup() {
  process.env.PAYGATE_TEST_RUN ??= randomBytes(5).toString('hex');
  removeStaleTemplates();
  return async () => {
    removeTemplate();
    await dropRunSchemas();
  };
}
