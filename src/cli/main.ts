/**
 * `paygate`: the operator command. It reads the same configuration as the server (DATABASE_URL,
 * PAYGATE_DATA_DIR, ...). With `--json` every command prints one JSON object on stdout.
 */
import { Command, Option } from 'commander';
import { loadConfig, ConfigError, CONFIG_VARIABLES } from '../config/config.js';
import { buildModules, registerJobs } from '../app.js';
import { createMerchantWithService } from '../bootstrap.js';
import { migrate } from '../platform/db/migrate.js';
import { createPlatform, verifyVault } from '../platform/create.js';
import { createLogger } from '../platform/logging.js';
import type { Platform } from '../platform/index.js';
import type { Env } from '../platform/db/schema.js';
import { ApiError } from '../platform/errors/errors.js';
import { parseProfiles } from '../modules/merchants/index.js';
import { SERVICE_TYPES } from '../modules/services/index.js';
import { CHECKOUT_METHODS, presentCheckout } from '../modules/checkouts/index.js';
import { CONNECTORS } from '../processors/connectors.js';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { SCENARIOS, runScenario, type Scenario } from './trigger.js';
import { ListenError, listen } from './listen.js';
import { DataDirLockedError, LOCK_FILE, lockHolder } from '../platform/db/lock.js';
import fs from 'node:fs';
import { verifyCertificate } from '../modules/campaigns/index.js';
import { parseCursor } from '../modules/events/index.js';
import { addKeyToRingFile, keySourceOf, newKeyId, removeKeyFromRingFile } from '../platform/security/vault.js';
import { dropCanary, keyUsage, rewrapAll, valuesUnderKey } from '../platform/security/rotation.js';

type Out = Record<string, unknown>;

async function withPlatform<T>(fn: (p: Platform, m: ReturnType<typeof buildModules>) => Promise<T>): Promise<T> {
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

function print(json: boolean, out: Out, human: () => string): void {
  process.stdout.write(json ? JSON.stringify(out) + '\n' : human() + '\n');
}

function envOption() {
  return new Option('--env <env>', 'sandbox or production').choices(['sandbox', 'production']).default('sandbox');
}

async function loadMerchantOrFail(p: Platform, m: ReturnType<typeof buildModules>, id: string) {
  const merchant = await m.merchants.findMerchant(p.database.db, id);
  if (!merchant) throw new ApiError(404, `merchant ${id} not found`);
  return merchant;
}

export function buildCli(): Command {
  const program = new Command('paygate')
    .description('paygate operator command')
    .showHelpAfterError('(run paygate --help for the commands)')
    .addHelpText('after', `\nSettings (environment variables):\n${CONFIG_VARIABLES.map(([k, v]) => `  ${k.padEnd(36)} ${v}`).join('\n')}\n`);

  program
    .command('migrate')
    .description('apply pending database migrations')
    .option('--json', 'JSON output')
    .action(async (o: { json?: boolean }) => {
      const config = loadConfig();
      const p = await createPlatform({ ...config, workers: false, cacheInvalidation: false }, { logger: createLogger('warn', process.stderr as any) });
      try {
        const applied = await migrate(p.database);
        print(!!o.json, { applied, database: p.database.kind }, () =>
          applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date',
        );
      } finally {
        await p.database.close();
      }
    });

  program
    .command('serve')
    .description('run the gateway (same as npm start)')
    .action(async () => {
      const { main } = await import('../server.js');
      await main();
    });

  program
    .command('worker')
    .description('run background work only (notifications, sweeps, job queues), no HTTP; needs PostgreSQL (DATABASE_URL)')
    .action(async () => {
      const { runWorker } = await import('../worker.js');
      await runWorker();
    });

  program
    .command('simulator')
    .description('run the processor simulator as a service of its own, shared by several gateway processes (PAYGATE_SIMULATOR_URL); staging and tests only')
    .option('--host <host>', 'listen address', '127.0.0.1')
    .option('--port <port>', 'listen port', '8090')
    .option('--latency-ms <ms>', 'delay of every answer', '0')
    .action(async (o: { host: string; port: string; latencyMs: string }) => {
      const { startSimulatorService } = await import('../processors/simulator-service.js');
      const svc = await startSimulatorService({ host: o.host, port: Number(o.port), latencyMs: Number(o.latencyMs) });
      process.stdout.write(`processor simulator listening on ${svc.url} (PAYGATE_SIMULATOR_URL=${svc.url})\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await svc.close();
    });

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

  // ---- checkout configurations ------------------------------------------------------------------------
  const checkout = program.command('checkout').description('checkout configurations of a merchant');
  checkout
    .command('create')
    .description('create a checkout configuration (orders use it with extra_data.checkout.uuid)')
    .requiredOption('--merchant <uuid>', 'merchant uuid')
    .requiredOption('--name <name>', 'name of the configuration')
    .option('--methods <list>', `comma-separated payment methods: ${CHECKOUT_METHODS.join(', ')}`, 'PAYMENT_CARD')
    .option('--default <method>', 'the suggested method (one of --methods)')
    .option('--theme <type>', 'light or dark')
    .option('--font <name>', 'font name (e.g. Georgia)')
    .option('--description <text>', 'description shown on the pages')
    .option('--order-number <text>', 'order number shown on the pages')
    .option('--json', 'JSON output')
    .action(async (o) => {
      await withPlatform(async (p, m) => {
        const owner = await loadMerchantOrFail(p, m, o.merchant);
        const c = await m.checkouts.createFor(p.database.db, { merchantId: owner.id, env: owner.env }, {
          name: o.name,
          payment_methods: String(o.methods).split(',').map((x) => x.trim()).filter(Boolean),
          default_payment_method: o.default ?? null,
          customization: { theme_type: o.theme ?? null, font: o.font ?? null, description: o.description ?? null, payment_details: { order_number: o.orderNumber ?? null } },
        }, p.clock.now());
        const out = { ...presentCheckout(c, p.config.timezone), client_uuid: owner.id, env: owner.env };
        print(!!o.json, out, () => `checkout ${c.id} (${c.name}): ${c.payment_methods.join(', ') || 'every method the service can take'}`);
      });
    });
  checkout
    .command('list')
    .description("list a merchant's checkout configurations, oldest first")
    .requiredOption('--merchant <uuid>', 'merchant uuid')
    .option('--json', 'JSON output')
    .action(async (o) => {
      await withPlatform(async (p, m) => {
        const owner = await loadMerchantOrFail(p, m, o.merchant);
        const list = (await m.checkouts.listFor(p.database.db, { merchantId: owner.id, env: owner.env })).map((c) => presentCheckout(c, p.config.timezone));
        print(!!o.json, { client_uuid: owner.id, env: owner.env, checkouts: list }, () =>
          list.length === 0 ? 'no checkouts' : list.map((c) => `${c.uuid}  ${c.name}  ${c.payment_methods.join(',')}${c.default_payment_method ? ` (default ${c.default_payment_method})` : ''}`).join('\n'),
        );
      });
    });

  // ---- physical devices --------------------------------------------------------------------------------
  const devices = program.command('device').description('physical devices (payment terminals), docs/devices.md');
  devices
    .command('register')
    .description('register a device for a service; prints its bearer token once')
    .requiredOption('--key <key id>', 'the API key (id) the device acts for (key create prints it)')
    .requiredOption('--service <uuid>', "a service of the key's merchant")
    .requiredOption('--identifier <text>', "the merchant's name for the device (its serial number, usually)")
    .addOption(new Option('--communication <type>', 'SOCKET, or SIMULATION (sandbox only)').choices(['SOCKET', 'SIMULATION']).default('SOCKET'))
    .option('--name <text>', 'display name')
    .option('--model <text>', 'model')
    .option('--json', 'JSON output')
    .action(async (o) => {
      await withPlatform(async (p, m) => {
        const ctx = await m.merchants.contextForKey(o.key);
        const r = await m.devices.register(ctx, { service: o.service, identifier: o.identifier, communication_type: o.communication, properties: { name: o.name, model: o.model } });
        print(!!o.json, { ...r, env: ctx.env }, () => `device ${r.device.id} (TID ${r.device.terminal_id}, MID ${r.device.mid}, ${r.device.communication.type})\ntoken  ${r.token}`);
      });
    });
  devices
    .command('list')
    .description("list the devices of the key's merchant")
    .requiredOption('--key <key id>', 'an API key (id) of the merchant')
    .option('--json', 'JSON output')
    .action(async (o) => {
      await withPlatform(async (p, m) => {
        const ctx = await m.merchants.contextForKey(o.key);
        const list = await m.devices.list(ctx, {});
        print(!!o.json, { client_uuid: ctx.merchant.id, env: ctx.env, devices: list }, () =>
          list.length === 0 ? 'no devices' : list.map((d) => `${d.id}  ${d.identifier}  TID ${d.terminal_id}  ${d.communication.type} ${d.communication.status}${d.active ? '' : ' (disabled)'}`).join('\n'),
        );
      });
    });

  devices
    .command('revoke-token')
    .description("end a device's bearer token at once (its socket closes); the merchant gives it a new one by rotating it")
    .argument('<device>', 'device id')
    .option('--json', 'JSON output')
    .action(async (id: string, o) => {
      await withPlatform(async (_p, m) => {
        if (!(await m.devices.revokeToken(id))) throw new ApiError(404, `device ${id} not found`);
        print(!!o.json, { device: id.toLowerCase(), token_revoked: true }, () => `token of device ${id.toLowerCase()} revoked`);
      });
    });

  // ---- vault keys --------------------------------------------------------------------------------------
  const connector = program.command('connector').description('production connectors');
  connector
    .command('certify')
    .description("run the provider's test cards and flows against its test environment with a terminal's test credentials (approval, query, refund, decline, capture, void, stored credential, 3-D Secure): what passed, what the provider answered, what to fix")
    .requiredOption('--terminal <uuid>', 'the terminal (its type names the connector, its credentials the test account)')
    .option('--url <url>', "the provider's base URL (default: its test environment)")
    .option('--json', 'JSON output')
    .action(async (o: { terminal: string; url?: string; json?: boolean }) => {
      const { certifyTerminal, certifyReport } = await import('./certify.js');
      const r = await withPlatform((p, m) => certifyTerminal(p, m.services, { terminal: o.terminal, url: o.url ?? null }));
      print(!!o.json, r as unknown as Out, () => certifyReport(r));
      if (!r.passed) process.exitCode = 1;
    });

  const vault = program.command('vault').description('vault keys: status, rotation, retirement (docs/vault.md)');

  vault
    .command('status')
    .description('the key ring (active key first) and how many sealed values each key wraps')
    .option('--json', 'JSON output')
    .action(async (o: { json?: boolean }) => {
      await withPlatform(async (p) => {
        const usage = await keyUsage(p.database);
        const keys = p.vault.keyIds.map((id) => ({
          id,
          active: id === p.vault.activeKeyId,
          values: usage.filter((u) => u.keyId === id && !u.canary).reduce((n, u) => n + u.count, 0),
        }));
        const unknown = [...new Set(usage.filter((u) => !p.vault.keyIds.includes(u.keyId)).map((u) => u.keyId))];
        const out = { source: keySourceOf(p.config), active_key: p.vault.activeKeyId, keys, unknown_keys: unknown, usage };
        print(!!o.json, out, () =>
          [
            `key source: ${out.source === 'env' ? 'PAYGATE_VAULT_KEYS' : 'key file in the data directory'}`,
            ...keys.map((k) => `${k.active ? '* ' : '  '}${k.id.padEnd(24)} ${String(k.values).padStart(9)} sealed values`),
            ...unknown.map((k) => `! ${k} is used by sealed values but is NOT in the key ring`),
            '',
            ...usage.map((u) => `  ${`${u.table}.${u.column}`.padEnd(48)} ${u.keyId.padEnd(24)} ${u.count}${u.canary ? ' (canary)' : ''}`),
          ].join('\n'),
        );
      });
    });

  vault
    .command('new-key')
    .description('print a fresh key entry id:base64 for PAYGATE_VAULT_KEYS (nothing is changed)')
    .option('--json', 'JSON output')
    .action(async (o: { json?: boolean }) => {
      const id = newKeyId();
      const entry = `${id}:${randomBytes(32).toString('base64')}`;
      print(!!o.json, { id, entry }, () => entry);
    });

  vault
    .command('rotate')
    .description('make a new key active and re-wrap every sealed value under it, in batches (safe while the gateway runs)')
    .option('--key-only', 'key file: only add the new active key (a running gateway re-wraps in the background)')
    .option('--rewrap-only', 'only re-wrap under the current active key (with PAYGATE_VAULT_KEYS: put the new key first, then run this)')
    .option('--batch <n>', 'values per batch', '500')
    .option('--json', 'JSON output')
    .action(async (o: { keyOnly?: boolean; rewrapOnly?: boolean; batch: string; json?: boolean }) => {
      const config = loadConfig();
      const source = keySourceOf(config);
      // a full rotation opens the database: on the embedded one, refuse before touching the key file
      if (!o.keyOnly && !config.databaseUrl) {
        const holder = lockHolder(config.dataDir);
        if (holder) throw new DataDirLockedError(config.dataDir, path.join(config.dataDir, LOCK_FILE), holder);
      }
      let added: string | null = null;
      if (source === 'file' && !o.rewrapOnly) added = addKeyToRingFile(config.dataDir);
      if (source === 'env' && o.keyOnly) {
        throw new ApiError(400, 'with PAYGATE_VAULT_KEYS the operator adds keys: run `paygate vault new-key`, put the entry first in PAYGATE_VAULT_KEYS, restart, then run `paygate vault rotate`');
      }
      if (o.keyOnly) {
        print(!!o.json, { source, new_key: added, rewrapped: 0 }, () => `new active key ${added}; a running gateway re-wraps sealed values in the background`);
        return;
      }
      await withPlatform(async (p) => {
        const batchSize = Math.max(1, Math.min(10_000, Number(o.batch) || 500));
        const report = await rewrapAll(p.database, p.vault, { batchSize });
        const left = await keyUsage(p.database);
        const others = left.filter((u) => !u.canary && u.keyId !== p.vault.activeKeyId).reduce((n, u) => n + u.count, 0);
        const out = { source, new_key: added, active_key: report.activeKeyId, rewrapped: report.total, by_column: report.rewrapped, failed: report.failed, values_under_other_keys: others };
        print(!!o.json, out, () =>
          [
            added ? `new active key ${added}` : `active key ${report.activeKeyId}`,
            `re-wrapped ${report.total} sealed values`,
            ...Object.entries(report.rewrapped).map(([k, v]) => `  ${k.padEnd(48)} ${v}`),
            ...Object.entries(report.failed).map(([k, v]) => `  FAILED ${k}: ${v} (their key is not in the ring?)`),
            others === 0 ? 'every sealed value is under the active key; older keys can be retired' : `${others} values are still under other keys (written meanwhile?): run rotate again`,
          ].join('\n'),
        );
      });
    });

  vault
    .command('retire')
    .description('remove a key from the ring once no sealed value uses it')
    .argument('<key-id>', 'the key to retire')
    .option('--json', 'JSON output')
    .action(async (keyId: string, o: { json?: boolean }) => {
      await withPlatform(async (p) => {
        if (keyId === p.vault.activeKeyId) throw new ApiError(400, `${keyId} is the active key: rotate first`);
        const inUse = await valuesUnderKey(p.database, keyId);
        if (inUse > 0) throw new ApiError(409, `${inUse} sealed values are still wrapped under ${keyId}: run \`paygate vault rotate --rewrap-only\` first`);
        const source = keySourceOf(p.config);
        const canary = await p.database.db.selectFrom('vault_canaries').select('key_id').where('key_id', '=', keyId).executeTakeFirst();
        if (!p.vault.keyIds.includes(keyId) && !canary) throw new ApiError(404, `${keyId} is not a vault key of this gateway`);
        if (source === 'file') {
          if (p.vault.keyIds.includes(keyId)) removeKeyFromRingFile(p.config.dataDir, keyId);
        } else if (!p.vault.keyIds.includes(keyId)) {
          throw new ApiError(404, `${keyId} is not in PAYGATE_VAULT_KEYS`);
        }
        await dropCanary(p.database, keyId);
        const out = { source, retired: keyId, next_step: source === 'env' ? `remove ${keyId} from PAYGATE_VAULT_KEYS on every instance and restart` : null };
        print(!!o.json, out, () => (source === 'env' ? `${keyId} is unused. Now remove it from PAYGATE_VAULT_KEYS on every instance and restart.` : `retired ${keyId} (removed from the key file)`));
      });
    });

  program
    .command('reconcile')
    .description('reconciliation (docs/reconciliation.md)')
    .command('import')
    .description("import an acquirer's settlement file (the CSV layout of docs/reconciliation.md) or a bank statement (camt.053, Norma 43) for a merchant, and match it; the file is streamed from disk, so it may be far larger than an upload")
    .argument('<file>', 'the file')
    .requiredOption('--key <key id>', 'an API key (id) of the merchant: its merchant and environment')
    .addOption(new Option('--format <format>', 'the file\'s format (default: camt053 for XML, norma43 for a file starting with record 11, csv otherwise)').choices(['csv', 'camt053', 'norma43']))
    .option('--acquirer <name>', 'settlement files: who settled it (CHECKOUT, PAYPAL, REDSYS, ...)', 'OTHER')
    .option('--service <uuid>', 'settlement files: the service the report covers (its successful transactions no line settles are ONLY_AT_PAYGATE)')
    .option('--settlement-days <n>', 'settlement files: a line settled more days than this after its transaction is SETTLED_LATE', '2')
    .option('--period-from <date>', 'settlement files: the first day it covers (default: the earliest TRANSACTION_DATE)')
    .option('--period-to <date>', 'settlement files: the last day it covers (default: the latest TRANSACTION_DATE)')
    .option('--json', 'JSON output')
    .action(async (file: string, o: { key: string; format?: string; acquirer: string; service?: string; settlementDays: string; periodFrom?: string; periodTo?: string; json?: boolean }) => {
      const { CLI_MAX_BYTES, CLI_MAX_LINES } = await import('../modules/reconciliation/index.js');
      if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new ApiError(400, `${file} is not a file`);
      const first = Buffer.alloc(64);
      const fd = fs.openSync(file, 'r');
      const got = fs.readSync(fd, first, 0, 64, 0);
      fs.closeSync(fd);
      const head = first.subarray(0, got).toString('latin1').replace(/^\xEF\xBB\xBF/, '').trimStart();
      const format = o.format ?? (head.startsWith('<') ? 'camt053' : /^11\d/.test(head) ? 'norma43' : 'csv');
      const days = Number(o.settlementDays);
      if (!Number.isInteger(days) || days < 0 || days > 60) throw new ApiError(400, '--settlement-days must be a whole number of days from 0 to 60');
      await withPlatform(async (_p, m) => {
        const ctx = await m.merchants.contextForKey(o.key);
        try {
          if (format === 'csv') {
            const r = await m.reconciliation.importSettlement(ctx, { filename: path.basename(file), acquirer: o.acquirer, service: o.service ?? null, settlement_days: days, period_from: o.periodFrom ?? null, period_to: o.periodTo ?? null },
              () => fs.createReadStream(file, { highWaterMark: 1024 * 1024 }), { source: 'CLI', maxBytes: CLI_MAX_BYTES, maxLines: CLI_MAX_LINES });
            print(!!o.json, r, () => `report ${r.report.uuid}: ${r.report.lines} lines of ${r.report.period_from}..${r.report.period_to}\n${Object.entries(r.report.counts).map(([k, v]) => `  ${k.padEnd(17)} ${v}`).join('\n')}`);
          } else {
            const r = await m.reconciliation.importStatement(ctx, { filename: path.basename(file), format: format === 'camt053' ? 'CAMT053' : 'NORMA43' }, fs.readFileSync(file), 'CLI');
            print(!!o.json, r, () => `${r.statements.map((s) => `statement ${s.uuid}: ${s.account} ${s.period_from}..${s.period_to}, ${s.entries} entries, ${s.payouts_found} payouts found`).join('\n')}\npayouts: ${Object.entries(r.payouts).map(([k, v]) => `${k} ${v}`).join(', ')}`);
          }
        } catch (err) {
          const lines = err instanceof ApiError && Array.isArray(err.extra?.errors) ? (err.extra.errors as Array<{ line: number; msg: string }>) : [];
          for (const l of lines.slice(0, 50)) process.stderr.write(`line ${l.line}: ${l.msg}\n`);
          throw err;
        }
      });
    });

  program
    .command('certificate')
    .description('MoTo certificates (G3, G4)')
    .command('verify')
    .description('check a certificate PDF: its embedded evidence against the gateway\'s signature')
    .argument('<file>', 'the PDF (or a file holding its base64, as the API returns it)')
    .option('--public-key <pem file>', 'verify with this public key (from GET /certificates/public-key) instead of the gateway database\'s keys')
    .option('--json', 'JSON output')
    .action(async (file: string, o) => {
      let bytes: Buffer = fs.readFileSync(file);
      if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') bytes = Buffer.from(bytes.toString('latin1').trim(), 'base64');
      const r = o.publicKey
        ? await verifyCertificate(bytes, fs.readFileSync(o.publicKey, 'utf8'))
        : await withPlatform((_p, m) => m.campaigns.verify(bytes));
      const out = { valid: r.valid, reason: r.reason, key_id: r.keyId, evidence: r.evidence };
      print(!!o.json, out, () => (r.valid ? `valid: signed by ${r.keyId}\n${JSON.stringify(r.evidence, null, 2)}` : `NOT valid: ${r.reason}`));
      if (!r.valid) process.exitCode = 2;
    });

  program
    .command('jobs')
    .description('background jobs')
    .command('run')
    .description('run every due job once and exit')
    .option('--json', 'JSON output')
    .action(async (o) => {
      await withPlatform(async (p, m) => {
        registerJobs(p, m);
        const n = await p.jobs.drain();
        print(!!o.json, { jobs_run: n }, () => `${n} jobs run`);
      });
    });

  program
    .command('trigger')
    .description(`run a sandbox scenario against a gateway and print what happened: ${Object.keys(SCENARIOS).join(', ')}`)
    .argument('<scenario>', Object.entries(SCENARIOS).map(([k, v]) => `${k} (${v})`).join('; '))
    .option('--url <url>', 'the gateway (default: $PAYGATE_URL, else http://127.0.0.1:8080)')
    .option('--api-key <key>', 'a sandbox API key (default: $PAYGATE_API_KEY)')
    .option('--signature <signature>', 'its signature (default: $PAYGATE_SIGNATURE)')
    .option('--service <uuid>', 'the service to charge (default: $PAYGATE_SERVICE, else the first EUR service)')
    .option('--url-post <url>', "the orders' url_post: the gateway notifies it (and paygate listen streams the notifications); default $PAYGATE_URL_POST, else none")
    .option('--order <uuid>', 'dispute: the paid order to dispute (default: a new approved order)')
    .addOption(new Option('--outcome <outcome>', 'dispute: how the sandbox decides it once its evidence is submitted').choices(['won', 'lost']).default('won'))
    .option('--json', 'JSON output')
    .action(async (scenario: string, o: { url?: string; apiKey?: string; signature?: string; service?: string; urlPost?: string; order?: string; outcome: string; json?: boolean }) => {
      if (!(scenario in SCENARIOS)) throw new ApiError(400, `unknown scenario ${scenario}: one of ${Object.keys(SCENARIOS).join(', ')}`);
      const target = {
        url: o.url ?? process.env.PAYGATE_URL ?? 'http://127.0.0.1:8080',
        apiKey: o.apiKey ?? process.env.PAYGATE_API_KEY ?? '',
        signature: o.signature ?? process.env.PAYGATE_SIGNATURE ?? '',
        service: o.service ?? process.env.PAYGATE_SERVICE ?? null,
        urlPost: o.urlPost ?? process.env.PAYGATE_URL_POST ?? null,
        order: o.order ?? null,
        outcome: o.outcome === 'lost' ? 'LOST' as const : 'WON' as const,
      };
      if (!target.apiKey || !target.signature) throw new ApiError(400, 'an API key and its signature are needed: --api-key and --signature, or PAYGATE_API_KEY and PAYGATE_SIGNATURE (npm start prints them)');
      const steps = await runScenario(target, scenario as Scenario, (s) => {
        if (!o.json) process.stdout.write(`${s.call} -> ${s.status} ${s.summary}\n`);
      });
      const dispute = steps[steps.length - 1].body?.dispute ?? null;
      const last = steps[steps.length - 1].body?.order ?? [...steps].reverse().find((s) => s.body?.order)?.body.order ?? null;
      if (o.json) print(true, { scenario, steps: steps.map((s) => ({ call: s.call, status: s.status, summary: s.summary })), order: last, ...(dispute ? { dispute } : {}) }, () => '');
      else if (dispute) process.stdout.write(`${scenario}: dispute ${dispute.uuid} of order ${dispute.order_uuid} ${dispute.status}, evidence due ${dispute.evidence_due_at}; add evidence and submit it (POST /v1/sandbox/disputes/${dispute.uuid}/evidence, /submit), then move the test clock 2 days\n`);
      else {
        const challenge = steps[steps.length - 1].body?.code === 303 ? steps[steps.length - 1].body?.url : null;
        process.stdout.write(`${scenario}: order ${last?.uuid} is ${last?.status}${challenge ? `; open the challenge page to approve or fail it: ${challenge}` : ''}\n`);
      }
    });

  // a `<name>-simulator` command for every production connector (src/processors/connectors.ts)
  for (const decl of CONNECTORS) {
    const cmd = program
      .command(`${decl.name}-simulator`)
      .description(decl.simulator.description)
      .option('--port <n>', 'port to listen on', String(decl.simulator.port))
      .option('--host <addr>', 'address to listen on', '127.0.0.1');
    for (const opt of decl.simulator.options ?? []) cmd.option(opt.flags, opt.description, opt.default);
    if (decl.notifications?.via === 'webhook') cmd.option('--webhook-url <url>', `where its webhooks go: the gateway's /v1/processor/${decl.name}/webhook (none: not sent)`);
    cmd.option('--latency-ms <n>', 'delay before every answer', '0').action(async (o: Record<string, string | undefined>) => {
      if (o.webhookUrl !== undefined && !/^https?:\/\/\S+$/.test(o.webhookUrl)) throw new ApiError(400, '--webhook-url must be an http(s) URL');
      const sims = await decl.simulator.load();
      let terminal;
      try {
        terminal = sims.demoTerminal(o);
      } catch (err) {
        throw new ApiError(400, (err as Error).message);
      }
      const sim = sims.create({ terminal, latencyMs: Number(o.latencyMs) || 0, webhookUrl: o.webhookUrl ?? null });
      const url = await sim.listen(Number(o.port), o.host);
      const type = decl.serviceTypes[0];
      process.stdout.write(`${decl.label} simulator at ${url}\n  ${decl.url.env}=${url}\n  ${type} terminal ${terminal.code ? `code ${terminal.code}, ` : ''}credentials ${JSON.stringify(terminal.credentials)}\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await sim.close();
    });
  }

  program
    .command('listen')
    .description("stream a merchant's notifications from a gateway as they are made, print each one, and forward it (same body and signature headers) to a local URL")
    .option('--url <url>', 'the gateway (default: $PAYGATE_URL, else http://127.0.0.1:8080)')
    .option('--api-key <key>', 'an API key of the merchant, profile all, payment or readonly (default: $PAYGATE_API_KEY)')
    .option('--forward-to <url>', 'POST each notification here, with the body and headers the gateway sends (e.g. http://localhost:3000/paygate/notify)')
    .option('--events <types>', 'only these event types, comma-separated (ORDER_NOTIFICATION, SUBSCRIPTION_PAYMENT); all by default')
    .option('--after <id>', 'resume after this event id (the id of a --json line); default: from now')
    .addOption(envOption())
    .option('--json', 'one JSON object per line: each event with its forward result')
    .action(async (o: { url?: string; apiKey?: string; forwardTo?: string; events?: string; after?: string; env: Env; json?: boolean }) => {
      const apiKey = o.apiKey ?? process.env.PAYGATE_API_KEY ?? '';
      if (!apiKey) throw new ApiError(400, 'an API key is needed: --api-key, or PAYGATE_API_KEY (npm start prints it)');
      const url = o.url ?? process.env.PAYGATE_URL ?? 'http://127.0.0.1:8080';
      for (const [name, value] of [['--url', url], ['--forward-to', o.forwardTo]] as const) {
        if (value === undefined) continue;
        let ok = false;
        try {
          ok = ['http:', 'https:'].includes(new URL(value).protocol);
        } catch {
          ok = false;
        }
        if (!ok) throw new ApiError(400, `${name} must be an http(s) URL, got "${value}"`);
      }
      if (o.after !== undefined && !parseCursor(o.after)) throw new ApiError(400, `--after must be an event id (TXID-SEQ), got "${o.after}"`);
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        await listen({
          url,
          apiKey,
          env: o.env,
          forwardTo: o.forwardTo ?? null,
          types: (o.events ?? '').split(',').map((x) => x.trim().toUpperCase()).filter(Boolean),
          after: o.after,
          json: !!o.json,
          out: (line) => process.stdout.write(`${line}\n`),
          note: (line) => process.stderr.write(`${line}\n`),
          signal: stop.signal,
        });
      } catch (err) {
        if (err instanceof ListenError) throw new ApiError(400, err.message);
        throw err;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });

  return program;
}

/** Edit distance of two words (the nearest command to a mistyped one). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  }
  return d[a.length][b.length];
}

/**
 * The first word of `argv` that names no command where a command is expected (`paygate nosuch`,
 * `paygate vault nosuch`, `paygate help nosuch`, also with `--help`, which would otherwise print the
 * whole help and succeed), with the nearest command, or null when every command word is known.
 */
export function unknownCommand(program: Command, argv: string[]): { word: string; path: string; nearest: string | null } | null {
  let cmd = program;
  let path = 'paygate';
  const words = argv.filter((a) => !a.startsWith('-'));
  if (words[0] === 'help') words.shift();
  for (const w of words) {
    if (cmd.commands.length === 0) return null;
    const next = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (!next) {
      const names = cmd.commands.map((c) => c.name()).filter((n) => n !== 'help');
      const scored = names.map((n) => ({ n, d: distance(w, n) })).sort((x, y) => x.d - y.d);
      const best = scored[0];
      return { word: w, path, nearest: best && best.d <= Math.max(2, Math.floor(w.length / 3)) ? best.n : null };
    }
    cmd = next;
    path += ` ${w}`;
  }
  return null;
}

export async function runCli(argv: string[]): Promise<number> {
  try {
    const program = buildCli();
    const unknown = unknownCommand(program, argv);
    if (unknown) {
      process.stderr.write(`error: unknown command '${unknown.word}'${unknown.nearest ? ` (did you mean ${unknown.path} ${unknown.nearest}?)` : ''}
(run ${unknown.path} --help for the commands)
`);
      return 1;
    }
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
    else if (err instanceof ApiError) process.stderr.write(`error: ${err.details}\n`);
    else process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

const entry = process.argv[1] ?? '';
if (entry.endsWith('cli/main.ts')) {
  runCli(process.argv.slice(2)).then((code) => {
    if (code !== 0) process.exit(code);
  });
}
