/** SQL of DCC offers waiting for the cardholder's choice (migration 0820). */
import type { Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import { registerSealedColumn } from '../../platform/security/sealed-columns.js';

export interface DccOffersTable {
  id: string;
  order_id: string;
  merchant_id: string;
  env: Env;
  card_sealed: string;
  card_last4: string;
  amount: number;
  currency: string;
  cardholder_currency: string;
  cardholder_amount: number;
  rate: string;
  reference_rate: string;
  markup: string;
  source: string;
  mode: 'DYNAMIC' | 'FOREIGN';
  quoted_at: Date;
  expires_at: Date;
  purge_at: Date;
  created_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    dcc_offers: DccOffersTable;
  }
}

export type OfferRow = Selectable<DccOffersTable>;
/** An offer without its sealed card (what the offer screen shows). */
export type OfferView = Omit<OfferRow, 'card_sealed'>;

export const offerAad = (id: string) => `dcc-offer:${id}`;

// key rotation re-wraps these too (they live minutes, but a rotation may run meanwhile)
registerSealedColumn({ table: 'dcc_offers', idColumn: 'id', column: 'card_sealed', aad: offerAad });

const VIEW_COLUMNS = [
  'id', 'order_id', 'merchant_id', 'env', 'card_last4', 'amount', 'currency', 'cardholder_currency', 'cardholder_amount', 'rate',
  'reference_rate', 'markup', 'source', 'mode', 'quoted_at', 'expires_at', 'purge_at', 'created_at',
] as const;

export async function insertOffer(db: Executor, row: OfferRow): Promise<void> {
  await db.insertInto('dcc_offers').values(row).execute();
}

export async function findOffer(db: Executor, id: string, orderId: string): Promise<OfferView | undefined> {
  const r = await db.selectFrom('dcc_offers').select(VIEW_COLUMNS).where('id', '=', id).where('order_id', '=', orderId).executeTakeFirst();
  return r ? { ...r, amount: Number(r.amount), cardholder_amount: Number(r.cardholder_amount) } : undefined;
}

/** Takes an offer of an order: deletes it and returns it (with its sealed card), once. */
export async function takeOffer(db: Executor, id: string, orderId: string): Promise<OfferRow | undefined> {
  const r = await db.deleteFrom('dcc_offers').where('id', '=', id).where('order_id', '=', orderId).returningAll().executeTakeFirst();
  return r ? { ...r, amount: Number(r.amount), cardholder_amount: Number(r.cardholder_amount) } : undefined;
}

/** Deletes offers whose time is over (real time); returns how many. */
export async function purgeOffers(db: Executor, realNow: Date): Promise<number> {
  const r = await db.deleteFrom('dcc_offers').where('purge_at', '<=', realNow).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
}
