/**
 * The card a customer typed on the hosted payment page, kept only while its payment waits for the 3DS
 * challenge, when the order has no customer to store the card under as a source (migration 0300).
 *
 * The PAN, expiry and holder are sealed together by the vault (associated data names the transaction);
 * the CVV is never kept. A row lives until its transaction settles (any outcome) or the challenge times
 * out, whichever comes first.
 */
import type { Executor } from '../../platform/db/database.js';
import { registerSealedColumn } from '../../platform/security/sealed-columns.js';
import { Secret } from '../../platform/security/secret.js';
import type { Vault } from '../../platform/security/vault.js';

export interface ThreedsCardSessionsTable {
  transaction_id: string;
  order_id: string;
  card_sealed: string;
  expires_at: Date;
  created_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    threeds_card_sessions: ThreedsCardSessionsTable;
  }
}

/** How long a typed card is kept for the cardholder to finish the challenge (real time). */
export const THREEDS_CARD_TTL_MS = 15 * 60_000;

export interface KeptCard {
  pan: Secret<string>;
  expMonth: number;
  expYear: number;
  holder: string;
}

const aad = (txId: string) => `3ds-card:${txId}`;

// key rotation re-wraps these too (they live minutes, but a rotation may run meanwhile)
registerSealedColumn({ table: 'threeds_card_sessions', idColumn: 'transaction_id', column: 'card_sealed', aad });

export async function keepCard(trx: Executor, vault: Vault, s: { txId: string; orderId: string; card: KeptCard; realNow: Date }): Promise<void> {
  const sealed = vault.seal(JSON.stringify({ pan: s.card.pan.reveal(), m: s.card.expMonth, y: s.card.expYear, h: s.card.holder }), aad(s.txId));
  await trx
    .insertInto('threeds_card_sessions')
    .values({ transaction_id: s.txId, order_id: s.orderId, card_sealed: sealed, expires_at: new Date(s.realNow.getTime() + THREEDS_CARD_TTL_MS), created_at: s.realNow })
    .execute();
}

/** The kept card of a transaction, or null when there is none (never kept, settled, or timed out). */
export async function keptCard(db: Executor, vault: Vault, txId: string): Promise<KeptCard | null> {
  const row = await db.selectFrom('threeds_card_sessions').select('card_sealed').where('transaction_id', '=', txId).executeTakeFirst();
  if (!row) return null;
  const c = JSON.parse(vault.open(row.card_sealed, aad(txId)).reveal()) as { pan: string; m: number; y: number; h: string };
  return { pan: new Secret(c.pan), expMonth: c.m, expYear: c.y, holder: c.h };
}

export async function dropCard(trx: Executor, txId: string): Promise<void> {
  await trx.deleteFrom('threeds_card_sessions').where('transaction_id', '=', txId).execute();
}

/** Sessions whose challenge has timed out (real time). */
export async function expiredSessions(db: Executor, realNow: Date, limit: number): Promise<Array<{ transaction_id: string; order_id: string }>> {
  return db
    .selectFrom('threeds_card_sessions')
    .select(['transaction_id', 'order_id'])
    .where('expires_at', '<=', realNow)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}
