/** SQL of the wallets module (migration 0810): sandbox roots, merchants' wallet keys, used tokens, service wallets. */
import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import { registerSealedColumn } from '../../platform/security/sealed-columns.js';
import type { Wallet } from './wallets.domain.js';

export interface WalletSandboxRootsTable {
  wallet: Wallet;
  material_sealed: string;
  public_json: string;
  created_at: Date;
}

export interface WalletKeysTable {
  id: string;
  merchant_id: string;
  env: Env;
  wallet: Wallet;
  identifier: string;
  private_key_sealed: string;
  public_key: string;
  certificate_pem: string | null;
  generated: boolean;
  created_at: Date;
}

export interface WalletTokenUsesTable {
  merchant_id: string;
  env: Env;
  wallet: Wallet;
  token_id: string;
  order_id: string;
  used_at: Date;
}

export interface ServiceWalletsTable {
  service_id: string;
  wallet: Wallet;
  created_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    wallet_sandbox_roots: WalletSandboxRootsTable;
    wallet_keys: WalletKeysTable;
    wallet_token_uses: WalletTokenUsesTable;
    service_wallets: ServiceWalletsTable;
  }
}

export type WalletKeyRow = Selectable<WalletKeysTable>;

export const rootAad = (wallet: string) => `wallet-root:${wallet}`;
export const keyAad = (id: string) => `wallet-key:${id}`;

// key rotation re-wraps these; `paygate vault status` counts them
registerSealedColumn({ table: 'wallet_sandbox_roots', idColumn: 'wallet', column: 'material_sealed', aad: rootAad });
registerSealedColumn({ table: 'wallet_keys', idColumn: 'id', column: 'private_key_sealed', aad: keyAad });

export async function findRoot(db: Executor, wallet: Wallet): Promise<WalletSandboxRootsTable | undefined> {
  return db.selectFrom('wallet_sandbox_roots').selectAll().where('wallet', '=', wallet).executeTakeFirst();
}

/** Inserts a root unless another process made one first; the caller reads back whichever won. */
export async function insertRootIfAbsent(db: Executor, row: WalletSandboxRootsTable): Promise<void> {
  await db.insertInto('wallet_sandbox_roots').values(row).onConflict((oc) => oc.column('wallet').doNothing()).execute();
}

/** A merchant's keys of a wallet, newest first. */
export async function keysOf(db: Executor, owner: { merchantId: string; env: Env }, wallet: Wallet): Promise<WalletKeyRow[]> {
  return db
    .selectFrom('wallet_keys')
    .selectAll()
    .where('merchant_id', '=', owner.merchantId)
    .where('env', '=', owner.env)
    .where('wallet', '=', wallet)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

export async function allKeysOf(db: Executor, owner: { merchantId: string; env: Env }): Promise<WalletKeyRow[]> {
  return db.selectFrom('wallet_keys').selectAll().where('merchant_id', '=', owner.merchantId).where('env', '=', owner.env).orderBy('created_at', 'desc').orderBy('id').execute();
}

export async function insertKey(db: Executor, row: WalletKeyRow): Promise<void> {
  await db.insertInto('wallet_keys').values(row).execute();
}

/**
 * Records the use of a token (in the transaction that starts its payment). False when the token was
 * used before (the row exists): the caller refuses it and the transaction rolls back.
 */
export async function claimToken(trx: Executor, use: WalletTokenUsesTable): Promise<boolean> {
  const r = await trx
    .insertInto('wallet_token_uses')
    .values(use)
    .onConflict((oc) => oc.columns(['merchant_id', 'env', 'wallet', 'token_id']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function tokenUsed(db: Executor, k: { merchantId: string; env: Env; wallet: Wallet; tokenId: string }): Promise<boolean> {
  const r = await db
    .selectFrom('wallet_token_uses')
    .select('order_id')
    .where('merchant_id', '=', k.merchantId)
    .where('env', '=', k.env)
    .where('wallet', '=', k.wallet)
    .where('token_id', '=', k.tokenId)
    .executeTakeFirst();
  return !!r;
}

/** Forgets used tokens older than `before` (real time): they expired long before. */
export async function purgeUses(db: Executor, before: Date): Promise<void> {
  await sql`delete from wallet_token_uses where used_at < ${before}`.execute(db);
}

/** The wallets a service offers, in the catalogue's order. */
export async function serviceWallets(db: Executor, serviceId: string): Promise<Wallet[]> {
  const rows = await db.selectFrom('service_wallets').select('wallet').where('service_id', '=', serviceId).execute();
  const set = new Set(rows.map((r) => r.wallet));
  return (['GOOGLE_PAY', 'APPLE_PAY'] as const).filter((w) => set.has(w));
}

/** The wallets offered by any enabled service of a merchant. */
export async function walletsOfEnabledServices(db: Executor, owner: { merchantId: string; env: Env }): Promise<Wallet[]> {
  const rows = await db
    .selectFrom('service_wallets')
    .innerJoin('services', 'services.id', 'service_wallets.service_id')
    .select('service_wallets.wallet')
    .distinct()
    .where('services.merchant_id', '=', owner.merchantId)
    .where('services.env', '=', owner.env)
    .where('services.enabled', '=', true)
    .execute();
  return rows.map((r) => r.wallet);
}

export async function replaceServiceWallets(trx: Executor, serviceId: string, wallets: Wallet[], at: Date): Promise<void> {
  await trx.deleteFrom('service_wallets').where('service_id', '=', serviceId).execute();
  if (wallets.length === 0) return;
  await trx.insertInto('service_wallets').values(wallets.map((wallet) => ({ service_id: serviceId, wallet, created_at: at }))).execute();
}

