/**
 * The money movements of a merchant as a set, for the reconciliation module to join in its own
 * statements (set-based matching of settlement lines): one row per transaction that moves money at the
 * acquirer, whatever its status, with what an acquirer's settlement line is compared with.
 *
 *  - `type`: PAYMENT (a sale, or the confirmation of a pre-authorization), REFUND, PAYOUT (a payout or
 *    a transfer to a card or account); holds and cancellations move no money and are left out;
 *  - `amount`, `currency`: the transaction's amount in minor units of the order's currency (what the
 *    merchant is credited: a dynamic currency conversion's card amount is not it);
 *  - `created_at`: when the transaction was made (the merchant's clock), `status` its status;
 *  - `card_bin`: the BIN of the card it was made with, as its Transaction record shows it (null without one).
 *
 * The fragment is a subquery (`select ...`): put it in a FROM clause with an alias. Filters are applied
 * inside it, so PostgreSQL reads the merchant's transactions by its (merchant_id, created_at) index and
 * one transaction by its primary key.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Env } from '../../platform/db/schema.js';

export interface MoneyMovementFilter {
  merchantId: string;
  env: Env;
  /** Only transactions made at or after this instant. */
  since?: Date | null;
  /** Only transactions made before this instant. */
  until?: Date | null;
  /** Only the orders of this service. */
  serviceId?: string | null;
}

/** The columns of a money movement row (see the module comment). */
export interface MoneyMovementRow {
  transaction_id: string;
  order_id: string;
  processor_id: string | null;
  type: 'PAYMENT' | 'REFUND' | 'PAYOUT';
  status: string;
  amount: number;
  currency: string;
  created_at: Date;
  service_id: string;
  card_bin: string | null;
}

export function moneyMovementsSql(f: MoneyMovementFilter): RawBuilder<MoneyMovementRow> {
  const since = f.since ? sql` and t.created_at >= ${f.since}` : sql``;
  const until = f.until ? sql` and t.created_at < ${f.until}` : sql``;
  const service = f.serviceId ? sql` and o.service_id = ${f.serviceId}` : sql``;
  return sql<MoneyMovementRow>`select t.id as transaction_id, t.order_id, t.processor_id,
      case when t.operative in ('AUTHORIZATION', 'CONFIRMATION') then 'PAYMENT' when t.operative = 'REFUND' then 'REFUND' else 'PAYOUT' end as type,
      t.status, t.amount, o.currency, t.created_at, o.service_id, t.source_json::json ->> 'bin' as card_bin
    from transactions t join orders o on o.id = t.order_id
    where t.merchant_id = ${f.merchantId} and o.env = ${f.env}
      and t.operative in ('AUTHORIZATION', 'CONFIRMATION', 'REFUND', 'PAYOUT', 'TRANSFER')${since}${until}${service}`;
}
