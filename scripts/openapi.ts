/** Builds the OpenAPI document from the route schemas (no network, no data). */
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config/config.js';
import { buildApp, buildModules } from '../src/app.js';
import { createPlatform } from '../src/platform/create.js';
import { createLogger } from '../src/platform/logging.js';
import { Vault } from '../src/platform/security/vault.js';
import type { Database } from '../src/platform/db/database.js';
import { dashboardOpenApi } from '../src/modules/dashboard/dashboard.openapi.js';

/** The document as served at /openapi.json, for the default public URL. */
export async function generateOpenApi(database: Database): Promise<unknown> {
  return (await generateDocuments(database)).api;
}

/** Both documents: the merchant API's, and the dashboard's internal API's (docs/dashboard-openapi.json). */
export async function generateDocuments(database: Database): Promise<{ api: unknown; dashboard: unknown }> {
  const config = loadConfig({ PAYGATE_LOG_LEVEL: 'silent', PAYGATE_WORKERS: 'false' });
  const p = await createPlatform(config, {
    database,
    logger: createLogger('silent'),
    vault: new Vault([{ id: 'doc', key: randomBytes(32) }], randomBytes(32)),
  });
  const app = await buildApp(p, buildModules(p));
  const doc = app.swagger();
  const dashboard = dashboardOpenApi(app, config.publicUrl);
  await app.close();
  return { api: doc, dashboard };
}

export function stableJson(doc: unknown): string {
  return JSON.stringify(doc, null, 2) + '\n';
}
