/**
 * The registry of sealed columns: every column that holds a value sealed by the vault, with how to
 * name the record it belongs to (the associated data it was sealed with). Rotation re-wraps every
 * registered column; `paygate vault status` counts them per key. A module that seals a new column
 * registers it next to its table declaration (its repo file):
 *
 *   registerSealedColumn({ table: 'sources', idColumn: 'id', column: 'number_sealed', aad: (id) => `source:${id}` });
 */

export interface SealedColumn {
  table: string;
  /** Column whose value names the record in the associated data (usually the primary key). */
  idColumn: string;
  column: string;
  /** The associated data the value was sealed with, from the record's id. */
  aad(id: string): string;
  /**
   * False for values that must stay under the key that sealed them: each vault canary proves one key
   * (it is deleted when its key retires, never re-wrapped).
   */
  rewrap?: boolean;
}

const IDENT = /^[a-z_][a-z0-9_]*$/;

const registry: SealedColumn[] = [
  // the foundation's sealed columns
  { table: 'api_keys', idColumn: 'id', column: 'signature_sealed', aad: (id) => `signature:${id}` },
  { table: 'terminals', idColumn: 'id', column: 'credentials_sealed', aad: (id) => `terminal:${id}` },
  { table: 'mail_outbox', idColumn: 'id', column: 'body_sealed', aad: (id) => `mail:${id}` },
  { table: 'vault_canaries', idColumn: 'key_id', column: 'sealed', aad: () => 'canary', rewrap: false },
];

/** Adds a sealed column (idempotent: the same table and column are registered once). */
export function registerSealedColumn(c: SealedColumn): void {
  for (const name of [c.table, c.idColumn, c.column]) {
    if (!IDENT.test(name)) throw new Error(`sealed column registry: "${name}" is not a plain SQL identifier`);
  }
  if (registry.some((r) => r.table === c.table && r.column === c.column)) return;
  registry.push(c);
}

export function sealedColumns(): readonly SealedColumn[] {
  return registry;
}
