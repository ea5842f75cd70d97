/**
 * The merchant's card payment history, as the routing module's replay reads it (docs/routing.md
 * "Replay"): the first payment attempt of each order whose named service is `entryServiceId`, made in
 * [from, to) on the merchant's clock and decided (SUCCESS, REFUSED or ERROR), one page at a time in
 * (created_at, id) order. Card payments only: the connector's card operations, not a card read by a
 * device (CARD_PRESENT is never routed), not an alternative payment method.
 *
 * A row carries what routing decides on and what happened: the order (its uuid picks a split's bucket),
 * amount, currency and metadata; the card's BIN (6 digits) and brand from the transaction's stored source
 * (null for a card paid without being kept); the channel as recorded (MIT when the order carries the
 * merchant-initiated exemption, MOTO when the card was keyed by MOTO, ECOMMERCE otherwise); the service
 * that processed the attempt, its status and error.
 *
 * A cascade's fallback attempts are not rows: the replay compares where each payment went first.
 *
 * The read walks the (merchant_id, created_at, id) index of transactions; each row's "first of its
 * order" is one probe of the (order_id, created_at) index.
 */
import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';

export interface PaymentHistoryFilter {
  merchantId: string;
  env: Env;
  /** The service the orders named (the routing profile's entry service). */
  entryServiceId: string;
  /** Attempts made at or after this instant (merchant clock). */
  from: Date;
  /** Attempts made before this instant (merchant clock). */
  to: Date;
  /** The last row of the previous page: the page starts after it. */
  after?: { created_at: Date; id: string } | null;
  /** Rows per page (1 to 5000; default 1000). */
  limit?: number;
}

export interface PaymentHistoryRow {
  /** the transaction */
  id: string;
  order_id: string;
  created_at: Date;
  amount: number;
  currency: string;
  /** the service that processed the attempt */
  service_id: string;
  status: 'SUCCESS' | 'REFUSED' | 'ERROR';
  error: string;
  /** the card's first 6 digits, from its stored source (null: not known) */
  bin: string | null;
  brand: string | null;
  channel: 'ECOMMERCE' | 'MOTO' | 'MIT';
  /** the order's extra_data (null: none or not an object) */
  metadata: Record<string, unknown> | null;
}

interface RawRow {
  id: string;
  order_id: string;
  created_at: Date;
  amount: number | string;
  currency: string;
  service_id: string;
  status: PaymentHistoryRow['status'];
  error: string;
  bin: string | number | null;
  brand: string | null;
  mit: boolean;
  origin: string | null;
  metadata: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** One page of the history (see the file's comment); an empty page is the end. */
export async function paymentHistory(db: Executor, f: PaymentHistoryFilter): Promise<PaymentHistoryRow[]> {
  const limit = Math.max(1, Math.min(f.limit ?? 1000, 5000));
  const after = f.after ? sql` and (t.created_at, t.id) > (${f.after.created_at}, ${f.after.id})` : sql``;
  const r = await sql<RawRow>`select t.id, t.order_id, t.created_at, t.amount, o.currency,
      coalesce(t.service_id, o.entry_service_id, o.service_id) as service_id, t.status, t.error,
      case when t.source_json is null then null else t.source_json::jsonb ->> 'bin' end as bin,
      case when t.source_json is null then null else nullif(t.source_json::jsonb ->> 'brand', '') end as brand,
      coalesce(o.threeds_data ->> 'exemption' = 'MERCHANT_INITIATED', false) as mit,
      case when t.source_json is null then null else t.source_json::jsonb ->> 'origin' end as origin,
      o.extra_data as metadata
    from transactions t join orders o on o.id = t.order_id
    where t.merchant_id = ${f.merchantId} and o.env = ${f.env}
      and t.created_at >= ${f.from} and t.created_at < ${f.to}${after}
      and t.operative in ('AUTHORIZATION', 'DEFERRED')
      and t.processor_operation in ('authorize', 'partialAuthorize', 'preauthorize')
      and t.pos is null and coalesce((t.routing ->> 'attempt')::int, 1) = 1
      and t.status in ('SUCCESS', 'REFUSED', 'ERROR')
      and coalesce(o.entry_service_id, o.service_id) = ${f.entryServiceId}
      and not exists (select 1 from transactions p where p.order_id = t.order_id
        and p.operative in ('AUTHORIZATION', 'DEFERRED') and (p.created_at, p.id) < (t.created_at, t.id))
    order by t.created_at, t.id
    limit ${limit}`.execute(db);
  return r.rows.map((x) => {
    const bin = x.bin === null ? null : String(x.bin);
    return {
      id: x.id,
      order_id: x.order_id,
      created_at: x.created_at,
      amount: Number(x.amount),
      currency: x.currency,
      service_id: x.service_id,
      status: x.status,
      error: x.error,
      bin: bin && /^[0-9]{6,8}$/.test(bin) ? bin.slice(0, 6) : null,
      brand: x.brand,
      channel: x.mit ? 'MIT' : x.origin === 'MOTO' ? 'MOTO' : 'ECOMMERCE',
      metadata: isObject(x.metadata) ? x.metadata : typeof x.metadata === 'string' && x.metadata.startsWith('{') ? (JSON.parse(x.metadata) as Record<string, unknown>) : null,
    };
  });
}
