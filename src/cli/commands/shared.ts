/** What the commands of the `paygate` operator command share: the platform of a command, output, options. */
import { Option } from 'commander';
import { loadConfig } from '../../config/config.js';
import { buildModules } from '../../app.js';
import { migrate } from '../../platform/db/migrate.js';
import { createPlatform, verifyVault } from '../../platform/create.js';
import { createLogger } from '../../platform/logging.js';
import type { Platform } from '../../platform/index.js';
import { ApiError } from '../../platform/errors/errors.js';

export type Out = Record<string, unknown>;

export async function withPlatform<T>(fn: (p: Platform, m: ReturnType<typeof buildModules>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // The CLI logs only warnings and errors, to stderr, so --json output stays clean.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr as any);
  const p = await createPlatform({ ...config, workers: false, cacheInvalidation: false }, { logger });
  try {
    await migrate(p.database);
    await verifyVault(p);
    const m = buildModules(p);
    return await fn(p, m);
  } finally {
    await p.database.close();
  }
}

export function print(json: boolean, out: Out, human: () => string): void {
  process.stdout.write(json ? JSON.stringify(out) + '\n' : human() + '\n');
}

export function envOption() {
  return new Option('--env <env>', 'sandbox or production').choices(['sandbox', 'production']).default('sandbox');
}

export async function loadMerchantOrFail(p: Platform, m: ReturnType<typeof buildModules>, id: string) {
  const merchant = await m.merchants.findMerchant(p.database.db, id);
  if (!merchant) throw new ApiError(404, `merchant ${id} not found`);
  return merchant;
}
