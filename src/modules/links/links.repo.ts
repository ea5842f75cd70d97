/** SQL of payment links (B2): one row per link sent. */
import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';

export interface PaymentLinksTable {
  id: string;
  merchant_id: string;
  env: Env;
  order_id: string;
  channel: 'EMAIL' | 'SMS';
  destination: string;
  language: string;
  subject: string;
  template_id: string | null;
  delivered: boolean;
  provider: string;
  provider_id: string | null;
  error: string | null;
  created_at: Date;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    payment_links: PaymentLinksTable;
  }
}

export async function insertLink(db: Executor, row: PaymentLinksTable): Promise<void> {
  await db.insertInto('payment_links').values(row).execute();
}

export async function linksOfOrder(db: Executor, orderId: string): Promise<PaymentLinksTable[]> {
  return db.selectFrom('payment_links').selectAll().where('order_id', '=', orderId).orderBy('created_at').orderBy(sql`seq`).execute();
}
