/** `paygate vault`: vault keys: status, rotation, retirement (docs/vault.md). */
import { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import { ApiError } from '../../platform/errors/errors.js';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DataDirLockedError, LOCK_FILE, lockHolder } from '../../platform/db/lock.js';
import { addKeyToRingFile, keySourceOf, newKeyId, removeKeyFromRingFile } from '../../platform/security/vault.js';
import { dropCanary, keyUsage, rewrapAll, valuesUnderKey } from '../../platform/security/rotation.js';
import { print, withPlatform } from './shared.js';

export function vaultCommands(program: Command): void {
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
}
