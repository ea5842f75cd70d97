/**
 * A ready-to-use sandbox merchant: merchant, `all` key and signature, a simulator terminal and an
 * enabled service. `npm start` creates one on first start; `paygate merchant create` creates more.
 */
import { randomBytes, randomInt } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Modules } from './app.js';
import type { Platform } from './platform/index.js';
import type { Env } from './platform/db/schema.js';
import { randomToken } from './platform/security/hashing.js';
import type { Profile } from './platform/http/types.js';

export interface CreatedMerchant {
  client_uuid: string;
  env: Env;
  api_key: string;
  signature: string;
  key_id: string;
  profiles: Profile[];
  service_uuid: string | null;
  terminal_uuid: string | null;
}

export interface CreateMerchantOptions {
  env?: Env;
  name?: string;
  email?: string;
  timezone?: string;
  isPci?: boolean;
  parentId?: string | null;
  currency?: string;
  /** Create a terminal and an enabled service (default true). */
  withService?: boolean;
  serviceType?: string;
  /** The terminal's code and credentials (e.g. a Redsys merchant code and keys); generated when absent. */
  terminal?: { code: string | null; credentials: Record<string, string> | null };
}

export async function createMerchantWithService(p: Platform, m: Modules, o: CreateMerchantOptions = {}): Promise<CreatedMerchant> {
  const env = o.env ?? 'sandbox';
  return p.database.transaction(async (trx) => {
    const { merchant, key } = await m.merchants.createMerchant(trx, env, {
      name: o.name ?? 'Sandbox merchant',
      email: o.email ?? 'merchant@example.com',
      timezone: o.timezone ?? 'Europe/Madrid',
      is_pci: o.isPci ?? false,
      parent_id: o.parentId ?? null,
    });
    let serviceId: string | null = null;
    let terminalId: string | null = null;
    if (o.withService !== false) {
      const type = o.serviceType ?? 'REDSYSPSD2';
      const terminal = await m.services.createTerminalFor(trx, merchant, {
        type,
        currency_code: o.currency ?? 'EUR',
        description: `${env} terminal (simulated processor)`,
        // production REDSYSPSD2 terminals carry values of Redsys's formats (a merchant code of 9 digits,
        // keys of 24 bytes in base64), as their validation asks; they are placeholders until the
        // merchant's own are set
        code: o.terminal ? o.terminal.code : type === 'REDSYSPSD2' ? (env === 'production' ? String(randomInt(100_000_000, 999_999_999)) : '1') : null,
        credentials: o.terminal
          ? o.terminal.credentials
          : type === 'REDSYSPSD2'
            ? env === 'production'
              ? { key_secure: randomBytes(24).toString('base64'), key_not_secure: randomBytes(24).toString('base64'), terminal_secure: '001', terminal_not_secure: '002' }
              : { key_secure: randomToken(), key_not_secure: randomToken(), terminal_secure: '1', terminal_not_secure: '2' }
            : type === 'CREDORAX'
              ? { merchant_id: randomToken(4), signing_api_key: randomToken() }
              : null,
      });
      const service = await m.services.createServiceFor(trx, merchant, {
        name: `${env === 'sandbox' ? 'Sandbox' : 'Production'} ${o.currency ?? 'EUR'} service`,
        type,
        terminal_uuid: terminal.id,
      });
      serviceId = service.id;
      terminalId = terminal.id;
    }
    return {
      client_uuid: merchant.id,
      env,
      api_key: key.apiKey,
      signature: key.signature,
      key_id: key.keyId,
      profiles: key.profiles,
      service_uuid: serviceId,
      terminal_uuid: terminalId,
    };
  });
}

const credentialsFile = (dataDir: string) => path.join(dataDir, 'sandbox-credentials.json');

/**
 * First start: when the database has no merchant yet, creates the sandbox merchant and keeps its
 * credentials (sandbox only) in the data directory so later starts can print them again.
 */
export async function ensureSandboxMerchant(p: Platform, m: Modules): Promise<CreatedMerchant | null> {
  const file = credentialsFile(p.config.dataDir);
  if (fs.existsSync(file)) {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as CreatedMerchant;
    const exists = await m.merchants.findMerchant(p.database.db, saved.client_uuid);
    if (exists) return saved;
  }
  const any = await p.database.db.selectFrom('merchants').select('id').limit(1).executeTakeFirst();
  if (any) return null;
  const created = await createMerchantWithService(p, m, { env: 'sandbox' });
  fs.mkdirSync(p.config.dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(created, null, 2) + '\n', { mode: 0o600 });
  return created;
}

export function credentialsBanner(c: CreatedMerchant, baseUrl: string): string {
  return [
    '',
    '  paygate sandbox credentials (sandbox only: no real money moves)',
    '',
    `  merchant (client) uuid  ${c.client_uuid}`,
    `  API key                 ${c.api_key}`,
    `  signature               ${c.signature}`,
    `  sandbox service uuid    ${c.service_uuid}`,
    '',
    '  Paste into your shell to try the API:',
    '',
    `export PAYGATE_URL=${baseUrl}`,
    `export PAYGATE_API_KEY=${c.api_key}`,
    `export PAYGATE_SIGNATURE=${c.signature}`,
    `export PAYGATE_SERVICE=${c.service_uuid}`,
    '',
  ].join('\n');
}
