/**
 * The money path's fast statements: each step of a payment, refund, confirmation or cancellation as ONE
 * statement (a single-statement transaction: no BEGIN, no COMMIT round trips). A statement locks the
 * order (FOR UPDATE), checks that it is still the version the caller read (its `xmin`: any write since
 * makes a new row version), and only then inserts or settles the transaction and updates the order.
 * When the version changed (another request got there first) nothing is written and the caller falls
 * back to the ordinary path, which locks and decides again.
 */
import { CompiledQuery } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { markPaidCteSql, sourceJsonSql } from '../sources/index.js';
import type { FollowUpOrder, LockedOrder, TxRow } from './payments.repo.js';

/** An order as read by the fast path, with its row version. */
export type VersionedOrder = LockedOrder & { version: string };

const ORDER_WITH_MERCHANT = `o.*, o.xmin::text as version, m.clock_offset_ms as m_offset, m.timezone as m_timezone,
  m.resend_failed_notifications as m_resend, m.autorecover_transactions as m_autorecover`;

/** A read of an order and all its transactions in one round trip (C2). */
export async function orderWithTransactions(db: Executor, id: string): Promise<{ order: LockedOrder; txs: TxRow[] } | undefined> {
  const { rows } = await db.executeQuery<LockedOrder & { version: string; txs: Array<Record<string, unknown>> }>(
    CompiledQuery.raw(
      `select ${ORDER_WITH_MERCHANT},
        coalesce((select json_agg(t order by t.created_at, t.id) from transactions t where t.order_id = o.id), '[]'::json) as txs
      from orders o join merchants m on m.id = o.merchant_id where o.id = $1`,
      [id],
    ),
  );
  const r = rows[0];
  if (!r) return undefined;
  const { txs, version: _v, ...order } = r;
  return { order: order as LockedOrder, txs: txs.map(txFromJson) };
}

/** A transaction row from its JSON form (timestamps back to Dates). */
function txFromJson(j: Record<string, unknown>): TxRow {
  return {
    ...(j as unknown as TxRow),
    amount: Number(j.amount),
    created_at: new Date(j.created_at as string),
    updated_at: new Date(j.updated_at as string),
    started_at: new Date(j.started_at as string),
  };
}

/*
 * These statements run as named prepared statements, whose generic plan PostgreSQL may fix while the
 * tables are still small (a new database warming up). They look an order up by its primary key alone
 * and check its merchant here: with `and o.merchant_id = $2` in the SQL, a generic plan made on small
 * tables used the (merchant_id, created_at) index and filtered by id, reading all of a merchant's orders
 * for each payment until the next ANALYZE (seen: 5,000 rows read per lookup, three times the database
 * work of a payment). test/db/prepared-statements.test.ts holds their generic plans to the key.
 */

/**
 * An order of a merchant with its version, not locked, and in the same round trip the stored card a
 * payment of it would use: `cardId` when given (a uuid), else the order's own source. The card comes
 * as sourceJsonSql's JSON (checked against its owner by the caller, with sourceFromJson), or null.
 */
export async function readOrder(
  db: Executor,
  id: string,
  merchantId: string,
  cardId: string | null = null,
): Promise<(VersionedOrder & { card: Record<string, unknown> | null }) | undefined> {
  const { rows } = await db.executeQuery<VersionedOrder & { card: Record<string, unknown> | null }>(
    CompiledQuery.raw(
      `select ${ORDER_WITH_MERCHANT}, ${sourceJsonSql('coalesce($2::uuid, o.source_id)')} as card
      from orders o join merchants m on m.id = o.merchant_id where o.id = $1`,
      [id, cardId],
    ),
  );
  return rows[0]?.merchant_id === merchantId ? rows[0] : undefined;
}

/** lockOrderForFollowUp's read without the lock, with the order's version. */
export async function readOrderForFollowUp(db: Executor, id: string, merchantId: string, operation: string): Promise<(FollowUpOrder & { version: string }) | undefined> {
  const { rows } = await db.executeQuery<Record<string, unknown>>(
    CompiledQuery.raw(
      `select ${ORDER_WITH_MERCHANT},
        r.failures as r_failures, r.last_failure_at as r_last_failure_at, r.last_success_at as r_last_success_at,
        p.id as p_id, p.processor_id as p_processor_id, p.auth_code as p_auth_code, p.source_id as p_source_id, p.source_json as p_source_json
      from orders o
      join merchants m on m.id = o.merchant_id
      left join order_operation_retries r on r.order_id = o.id and r.operation = $2
      left join lateral (
        select t.id, t.processor_id, t.auth_code, t.source_id, t.source_json from transactions t
        where t.order_id = o.id and t.operative in ('AUTHORIZATION', 'DEFERRED') and t.status = 'SUCCESS'
        order by t.created_at limit 1
      ) p on true
      where o.id = $1`,
      [id, operation],
    ),
  );
  const r = rows[0];
  if (!r || r.merchant_id !== merchantId) return undefined;
  const { r_failures, r_last_failure_at, r_last_success_at, p_id, p_processor_id, p_auth_code, p_source_id, p_source_json, ...order } = r;
  return {
    ...(order as unknown as LockedOrder & { version: string }),
    retry: { failures: Number(r_failures ?? 0), lastFailureAt: (r_last_failure_at as Date | null) ?? null, lastSuccessAt: (r_last_success_at as Date | null) ?? null },
    payment: p_id
      ? { id: p_id as string, processor_id: p_processor_id as string | null, auth_code: p_auth_code as string, source_id: p_source_id as string | null, source_json: p_source_json as string | null }
      : null,
  };
}

/** The new PENDING transaction of a step 1. */
export interface StartTx {
  id: string;
  merchantId: string;
  operative: string;
  processorOperation: string;
  amount: number;
  sourceId: string | null;
  sourceJson: string | null;
  customerIp: string | null;
  antifraud: unknown;
  metadata: unknown;
  now: Date;
  realNow: Date;
}

/** What step 1 writes on the order besides the transaction. */
export interface StartOrder {
  status: string;
  paid: boolean;
  sourceId: string | null;
  ip: string | null;
  /** undefined: left as it is. */
  threedsData?: unknown;
  /** Added to refund_reserved (refunds). */
  reserve: number;
  /** busy_tx_id := the new transaction (confirmations, cancellations). */
  busy: boolean;
}

// (the order's merchant was checked when its version was read: the version guard keeps it the same row)
const START_SQL = `with o as (
    select id from orders where id = $1 and xmin::text = $3 for update
  ), t as (
    insert into transactions (id, order_id, merchant_id, operative, processor_operation, amount, status, error, auth_code,
      processor_id, source_id, source_json, antifraud, device, error_details, customer_ip, awaiting_3ds, metadata,
      created_at, updated_at, started_at)
    select $4::uuid, o.id, $2::uuid, $5::text, $6::text, $7::bigint, 'PENDING', 'NONE', '', null, $8::uuid, $9::text, $22::jsonb, null,
      null, $10::text, false, $11::jsonb, $12::timestamptz, $12::timestamptz, $13::timestamptz from o
    returning order_id
  ), u as (
    update orders set status = $14::text, paid = $15::boolean, source_id = $16::uuid, ip = $17::text,
      threeds_data = case when $18::boolean then $19::jsonb else threeds_data end,
      refund_reserved = refund_reserved + $20::bigint,
      busy_tx_id = case when $21::boolean then $4::uuid else busy_tx_id end,
      updated_at = $12::timestamptz
    where id = (select order_id from t)
    returning xmin::text as version
  )
  select version from u`;

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/**
 * Step 1 in one statement: the PENDING transaction and the order's next state, if the order is still
 * at `version`. Returns the order's new version, or null when nothing was written.
 */
export async function startStep(db: Executor, orderId: string, version: string, tx: StartTx, o: StartOrder): Promise<string | null> {
  const { rows } = await db.executeQuery<{ version: string }>(
    CompiledQuery.raw(START_SQL, [
      orderId, tx.merchantId, version, tx.id, tx.operative, tx.processorOperation, tx.amount, tx.sourceId, tx.sourceJson, tx.customerIp,
      json(tx.metadata), tx.now, tx.realNow, o.status, o.paid, o.sourceId, o.ip, o.threedsData !== undefined, json(o.threedsData),
      o.reserve, o.busy, json(tx.antifraud),
    ]),
  );
  return rows[0]?.version ?? null;
}

/** What an approved step 3 writes. null: the column is left as it is. */
export interface ApprovedSettle {
  txStatus: string;
  authCode: string;
  processorId: string | null;
  /** The approved amount (payments). */
  txAmount: number | null;
  orderStatus: string;
  paid: boolean;
  authorized: number | null;
  captured: number | null;
  safe: boolean | null;
  refunded: number | null;
  /** Subtracted from refund_reserved. */
  release: number;
  clearBusy: boolean;
  /** The stored card the payment used: marked paid (sources) when set. */
  sourceId: string | null;
  serviceId: string | null;
  now: Date;
}

const SETTLE_SQL = `with o as (
    select id from orders where id = $1 and xmin::text = $2 for update
  ), t as (
    update transactions set status = $4::text, auth_code = $5::text, processor_id = $6::text, amount = coalesce($7::bigint, amount),
      awaiting_3ds = false, updated_at = $8::timestamptz
    where id = $3::uuid and exists (select 1 from o)
      -- the guards as one expression the planner cannot match to the partial index of PENDING
      -- transactions: the row is found by its key, whatever the statistics (see the top of this file)
      and case when order_id = $1 and status = 'PENDING' and not awaiting_3ds then true else false end
    returning *
  ), u as (
    update orders set status = $9::text, paid = $10::boolean, authorized = coalesce($11::bigint, authorized),
      captured = coalesce($12::bigint, captured), safe = coalesce($13::boolean, safe), refunded = coalesce($14::bigint, refunded),
      refund_reserved = refund_reserved - $15::bigint, busy_tx_id = case when $16::boolean then null else busy_tx_id end,
      updated_at = $8::timestamptz
    where id = (select order_id from t)
    returning id
  ), s as (
    ${markPaidCteSql({ id: '$17::uuid', at: '$8::timestamptz', serviceId: '$18::uuid', when: 'exists (select 1 from u)' })}
  ), k as (
    delete from threeds_card_sessions where transaction_id = $3::uuid and exists (select 1 from u)
  )
  select * from t where exists (select 1 from u)
  union all
  select * from transactions where order_id = $1 and id <> $3::uuid and exists (select 1 from u)
  order by created_at, id`;

/**
 * Step 3 of an approved operation in one statement, if the order is still at `version` and the
 * transaction still PENDING: the transaction, the order, the stored card's use, the kept 3DS card gone.
 * Returns the order's transactions as they are now, or null when nothing was written.
 */
export async function settleApproved(db: Executor, orderId: string, version: string, txId: string, s: ApprovedSettle): Promise<TxRow[] | null> {
  const { rows } = await db.executeQuery<TxRow>(
    CompiledQuery.raw(SETTLE_SQL, [
      orderId, version, txId, s.txStatus, s.authCode, s.processorId, s.txAmount, s.now, s.orderStatus, s.paid, s.authorized, s.captured,
      s.safe, s.refunded, s.release, s.clearBusy, s.sourceId, s.serviceId,
    ]),
  );
  return rows.length > 0 ? rows.map((r) => ({ ...r, amount: Number(r.amount) })) : null;
}

