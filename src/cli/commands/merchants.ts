/** `paygate merchant`, `key`, `terminal` and `service`: merchants, their API keys, terminals and services. */
import { Command, Option } from 'commander';
import { createMerchantWithService } from '../../bootstrap.js';
import type { Env } from '../../platform/db/schema.js';
import { ApiError } from '../../platform/errors/errors.js';
import { parseProfiles } from '../../modules/merchants/index.js';
import { SERVICE_TYPES } from '../../modules/services/index.js';
import { envOption, loadMerchantOrFail, print, withPlatform, type Out } from './shared.js';

export function merchantCommands(program: Command): void {
  const merchant = program.command('merchant').description('merchants (clients)');
  merchant
    .command('create')
    .description('create a merchant with an API key of profile all, its signature, a terminal and a service')
    .option('--name <name>', 'merchant name', 'Sandbox merchant')
    .option('--email <email>', 'merchant e-mail', 'merchant@example.com')
    .option('--timezone <tz>', 'IANA timezone', 'Europe/Madrid')
    .option('--currency <code>', 'currency of the terminal', 'EUR')
    .addOption(new Option('--service-type <type>', 'type of the service and terminal').choices([...SERVICE_TYPES]).default('REDSYSPSD2'))
    .option('--pci', 'the merchant is PCI compliant (may send card data)', false)
    .option('--parent <uuid>', 'parent merchant')
    .option('--no-service', 'do not create a terminal and service')
    .addOption(envOption())
    .option('--json', 'JSON output')
    .action(async (o) => {
      await withPlatform(async (p, m) => {
        if (o.parent) await loadMerchantOrFail(p, m, o.parent);
        const created = await createMerchantWithService(p, m, {
          env: o.env as Env,
          name: o.name,
          email: o.email,
          timezone: o.timezone,
          currency: String(o.currency).toUpperCase(),
          isPci: !!o.pci,
          parentId: o.parent ?? null,
          withService: o.service !== false,
          serviceType: o.serviceType,
        });
        print(!!o.json, created as unknown as Out, () =>
          [
            `merchant   ${created.client_uuid} (${created.env})`,
            `api key    ${created.api_key}`,
            `signature  ${created.signature}`,
            `service    ${created.service_uuid ?? '-'}`,
          ].join('\n'),
        );
      });
    });

  const key = program.command('key').description('API keys');
  key
    .command('create')
    .description('issue an API key and signature for a merchant')
    .requiredOption('--merchant <uuid>', 'merchant uuid')
    .option('--profile <list>', 'comma-separated profiles (all, payment, refund, readonly, card, tokenize, moto, batch_authorization, batch_refund, keyentry)', 'all')
    .option('--description <text>', 'what the key is for')
    .option('--json', 'JSON output')
    .action(async (o) => {
      await withPlatform(async (p, m) => {
        const merchantRow = await loadMerchantOrFail(p, m, o.merchant);
        const profiles = parseProfiles(o.profile);
        const at = new Date(p.clock.now().getTime() + Number(merchantRow.clock_offset_ms)); // the merchant's clock
        const issued = await p.database.transaction((trx) => m.merchants.issueKey(trx, merchantRow.id, merchantRow.env, profiles, o.description, at));
        const out = { key_id: issued.keyId, client_uuid: merchantRow.id, env: merchantRow.env, api_key: issued.apiKey, signature: issued.signature, profiles: issued.profiles };
        print(!!o.json, out, () => `key ${issued.keyId}\napi key    ${issued.apiKey}\nsignature  ${issued.signature}\nprofiles   ${issued.profiles.join(',')}`);
      });
    });
  key
    .command('revoke')
    .description('revoke an API key (by key id or by the key itself)')
    .argument('<key>', 'key id or API key')
    .option('--json', 'JSON output')
    .action(async (k: string, o) => {
      await withPlatform(async (_p, m) => {
        const id = await m.merchants.revokeKey(k);
        print(!!o.json, { key_id: id, revoked: true }, () => `revoked ${id}`);
      });
    });

  program
    .command('terminal')
    .description('terminals')
    .command('create')
    .description('create a terminal')
    .requiredOption('--merchant <uuid>', 'merchant uuid')
    .addOption(new Option('--type <type>', 'terminal type').choices([...SERVICE_TYPES]).makeOptionMandatory())
    .option('--currency <code>', 'ISO 4217 alpha-3', 'EUR')
    .option('--description <text>', 'description', 'terminal')
    .option('--code <digits>', 'terminal code (REDSYS family)')
    .option('--credentials <json>', 'credentials object as JSON')
    .option('--json', 'JSON output')
    .action(async (o) => {
      await withPlatform(async (p, m) => {
        const owner = await loadMerchantOrFail(p, m, o.merchant);
        let credentials: unknown = null;
        if (o.credentials) {
          try {
            credentials = JSON.parse(o.credentials);
          } catch {
            throw new ApiError(400, '--credentials must be JSON');
          }
        }
        const t = await p.database.transaction((trx) =>
          m.services.createTerminalFor(trx, owner, { type: o.type, currency_code: o.currency, description: o.description, code: o.code ?? null, credentials }),
        );
        print(!!o.json, { terminal_uuid: t.id, client_uuid: owner.id, type: t.type, currency_code: t.currency_code, credentials: t.credentials_masked }, () => `terminal ${t.id}`);
      });
    });

  program
    .command('service')
    .description('services')
    .command('create')
    .description('create a service (pending until it has a terminal)')
    .requiredOption('--merchant <uuid>', 'merchant uuid')
    .addOption(new Option('--type <type>', 'service type').choices([...SERVICE_TYPES]).makeOptionMandatory())
    .option('--name <name>', 'service name', 'service')
    .option('--terminal <uuid>', 'terminal to link (same type and merchant)')
    .option('--json', 'JSON output')
    .action(async (o) => {
      await withPlatform(async (p, m) => {
        const owner = await loadMerchantOrFail(p, m, o.merchant);
        const s = await p.database.transaction((trx) =>
          m.services.createServiceFor(trx, owner, { name: o.name, type: o.type, terminal_uuid: o.terminal ?? null }),
        );
        print(!!o.json, { service_uuid: s.id, client_uuid: owner.id, type: s.type, enabled: s.enabled, terminal_uuid: s.terminal_id }, () =>
          `service ${s.id} (${s.enabled ? 'enabled' : 'pending: no terminal'})`,
        );
      });
    });
}
