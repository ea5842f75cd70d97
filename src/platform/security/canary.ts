/**
 * Vault canaries: a small sealed value per key id, written the first time a key is active. At boot the
 * gateway opens every canary whose key is in the ring, so a wrong key (a fresh key file on a second
 * machine, a typo in PAYGATE_VAULT_KEYS) stops the process before it writes data nobody can read.
 */
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { Vault, VaultError } from './vault.js';

interface VaultCanariesTable {
  key_id: string;
  sealed: string;
  created_at: Date | undefined;
}

declare module '../db/schema.js' {
  interface DB {
    vault_canaries: VaultCanariesTable;
  }
}

const CANARY = 'paygate-vault-canary';

export async function checkVaultCanaries(database: Database, vault: Vault, logger: Logger): Promise<void> {
  const rows = await database.db.selectFrom('vault_canaries').select(['key_id', 'sealed']).execute();
  const known = new Set(vault.keyIds);
  for (const row of rows) {
    if (!known.has(row.key_id)) {
      logger.warn({ key_id: row.key_id }, 'vault key is no longer in the key ring; data sealed with it cannot be opened until it is rewrapped');
      continue;
    }
    let ok = false;
    try {
      ok = vault.open(row.sealed, 'canary').reveal() === CANARY;
    } catch {
      ok = false;
    }
    if (!ok) throw new VaultError(`vault key "${row.key_id}" does not match the key that sealed this database's data`);
  }
  if (!rows.some((r) => r.key_id === vault.activeKeyId)) {
    await database.db
      .insertInto('vault_canaries')
      .values({ key_id: vault.activeKeyId, sealed: vault.seal(CANARY, 'canary'), created_at: undefined })
      .onConflict((oc) => oc.column('key_id').doNothing())
      .execute();
  }
}
