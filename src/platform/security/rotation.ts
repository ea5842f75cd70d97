/**
 * Key rotation over the database: re-wraps every sealed value of every registered column under the
 * vault's active key, in batches, and counts what each key wraps.
 *
 * - Only data keys are re-wrapped (Vault.rewrap): payloads are never decrypted, and nothing is logged
 *   or written but the new sealed form.
 * - Each batch is one UPDATE that changes a row only if it still holds the value that was read
 *   (compare-and-set), so a concurrent write by a running gateway is never overwritten; such a row is
 *   simply picked up by the next pass (or was sealed under the active key anyway).
 * - Safe to run while gateways serve traffic, and safe to run again (idempotent; a crash loses nothing).
 */
import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import { sealedColumns, type SealedColumn } from './sealed-columns.js';
import type { Vault } from './vault.js';

export interface RewrapReport {
  activeKeyId: string;
  /** Values re-wrapped, per `table.column`. */
  rewrapped: Record<string, number>;
  total: number;
  /** Values that could not be re-wrapped (key missing from the ring, or damaged), per `table.column`. */
  failed: Record<string, number>;
}

export interface KeyUsage {
  table: string;
  column: string;
  keyId: string;
  count: number;
  /** Canaries stay under their own key and do not keep a key in use. */
  canary: boolean;
}

const name = (c: SealedColumn) => `${c.table}.${c.column}`;

/** Re-wraps every sealed value not under the active key. */
export async function rewrapAll(
  database: Database,
  vault: Vault,
  opts: {
    batchSize?: number;
    onBatch?: (column: string, done: number) => void;
    /** Runs between reading a batch and writing it (tests use it to write concurrently). */
    afterRead?: (column: string) => Promise<void>;
  } = {},
): Promise<RewrapReport> {
  const batchSize = opts.batchSize ?? 500;
  const report: RewrapReport = { activeKeyId: vault.activeKeyId, rewrapped: {}, total: 0, failed: {} };
  for (const c of sealedColumns()) {
    if (c.rewrap === false) continue;
    let after = '';
    let done = 0;
    let failed = 0;
    const table = sql.table(c.table);
    const id = sql.ref(c.idColumn);
    const col = sql.ref(c.column);
    for (;;) {
      const active = vault.activeKeyId;
      const { rows } = await sql<{ id: string; sealed: string }>`
        select ${id}::text as id, ${col} as sealed from ${table}
        where ${col} is not null and split_part(${col}, '.', 2) <> ${active} and ${id}::text > ${after}
        order by ${id}::text limit ${batchSize}`.execute(database.db);
      if (rows.length === 0) break;
      after = rows[rows.length - 1].id;
      const changes: Array<{ id: string; old: string; next: string }> = [];
      for (const r of rows) {
        try {
          changes.push({ id: r.id, old: r.sealed, next: vault.rewrap(r.sealed, c.aad(r.id)) });
        } catch {
          failed++;
        }
      }
      await opts.afterRead?.(name(c));
      if (changes.length > 0) {
        const values = sql.join(changes.map((ch) => sql`(${ch.id}, ${ch.old}, ${ch.next})`));
        const res = await sql`
          update ${table} as t set ${col} = v.next
          from (values ${values}) as v(id, old, next)
          where t.${id}::text = v.id and t.${col} = v.old`.execute(database.db);
        done += Number(res.numAffectedRows ?? 0);
      }
      opts.onBatch?.(name(c), done);
    }
    if (done > 0) report.rewrapped[name(c)] = done;
    if (failed > 0) report.failed[name(c)] = failed;
    report.total += done;
  }
  return report;
}

/** How many values each key wraps, per column. */
export async function keyUsage(database: Database): Promise<KeyUsage[]> {
  const out: KeyUsage[] = [];
  for (const c of sealedColumns()) {
    const col = sql.ref(c.column);
    const { rows } = await sql<{ key_id: string; n: number }>`
      select split_part(${col}, '.', 2) as key_id, count(*)::int as n from ${sql.table(c.table)}
      where ${col} is not null group by 1 order by 1`.execute(database.db);
    for (const r of rows) out.push({ table: c.table, column: c.column, keyId: r.key_id, count: Number(r.n), canary: c.rewrap === false });
  }
  return out;
}

/** Values (canaries aside) still wrapped under `keyId`. */
export async function valuesUnderKey(database: Database, keyId: string): Promise<number> {
  return (await keyUsage(database)).filter((u) => u.keyId === keyId && !u.canary).reduce((n, u) => n + u.count, 0);
}

/** Forgets a retired key's canary (the key is gone; nothing is left for it to prove). */
export async function dropCanary(database: Database, keyId: string): Promise<void> {
  await database.db.deleteFrom('vault_canaries').where('key_id', '=', keyId).execute();
}
