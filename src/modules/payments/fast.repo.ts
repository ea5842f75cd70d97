/**
 * The money path's fast statements: each step of a payment, refund, confirmation or cancellation as ONE
 * statement (a single-statement transaction: no BEGIN, no COMMIT round trips). A statement locks the
 * order (FOR UPDATE), checks that it is still the version the caller read (its `xmin`: any write since
 * makes a new row version), and only then inserts or settles the transaction and updates the order.
 * When the version changed (another request got there first) nothing is written and the caller falls
 * back to the ordinary path, which locks and decides again.
 */
import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { markPaidCte, sourceJsonSql } from '../sources/index.js';
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
    device_wait_until: j.device_wait_until == null ? null : new Date(j.device_wait_until as string),
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
  /** The request's Idempotency-Key (none: null): marked `committed` with the PENDING transaction. */
  idempotencyKey?: string | null;
  /** The request's own mark on the key's row (null: any: a row of the previous release). */
  idempotencyAttempt?: string | null;
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
const startCtes = (returning: string) => `with o as (
    select id from orders where id = $1 and xmin::text = $3 for update
  ), t as (
    insert into transactions (id, order_id, merchant_id, operative, processor_operation, amount, status, error, auth_code,
      processor_id, source_id, source_json, antifraud, device, error_details, customer_ip, awaiting_3ds, metadata,
      created_at, updated_at, started_at)
    select $4::uuid, o.id, $2::uuid, $5::text, $6::text, $7::bigint, 'PENDING', 'NONE', '', null, $8::uuid, $9::text, $22::jsonb, null,
      null, $10::text, false, $11::jsonb, $12::timestamptz, $12::timestamptz, $13::timestamptz from o
    returning ${returning}
  ), u as (
    update orders set status = $14::text, paid = $15::boolean, source_id = $16::uuid, ip = $17::text,
      threeds_data = case when $18::boolean then $19::jsonb else threeds_data end,
      refund_reserved = refund_reserved + $20::bigint,
      busy_tx_id = case when $21::boolean then $4::uuid else busy_tx_id end,
      updated_at = $12::timestamptz
    where id = (select order_id from t)
    returning xmin::text as version
  ), k as (
    update idempotency_keys set status = 'committed', order_id = $1::uuid
    where $23::text is not null and merchant_id = $2::uuid and key = $23::text and status = 'in_flight'
      and ($24::uuid is null or attempt = $24::uuid) and exists (select 1 from t)
  )`;

const START_SQL = `${startCtes('order_id')}
  select version from u`;

// the same, with the order's transactions as they are after it (the new one included, oldest first) and
// the row versions of the others, in id order: what a settle that notifies predicts its answer from
const START_TXS_SQL = `${startCtes('*')}
  select u.version,
    (select coalesce(string_agg(x.xmin::text, ',' order by x.id), '') from transactions x where x.order_id = $1) as others,
    (select json_agg(r order by r.created_at, r.id) from (select * from t union all select * from transactions x where x.order_id = $1) r) as txs
  from u`;

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

const startParams = (orderId: string, version: string, tx: StartTx, o: StartOrder) => [
  orderId, tx.merchantId, version, tx.id, tx.operative, tx.processorOperation, tx.amount, tx.sourceId, tx.sourceJson, tx.customerIp,
  json(tx.metadata), tx.now, tx.realNow, o.status, o.paid, o.sourceId, o.ip, o.threedsData !== undefined, json(o.threedsData),
  o.reserve, o.busy, json(tx.antifraud), tx.idempotencyKey ?? null, tx.idempotencyAttempt ?? null,
];

/**
 * Step 1 in one statement: the PENDING transaction and the order's next state, if the order is still
 * at `version`. Returns the order's new version, or null when nothing was written.
 */
export async function startStep(db: Executor, orderId: string, version: string, tx: StartTx, o: StartOrder): Promise<string | null> {
  const { rows } = await db.executeQuery<{ version: string }>(CompiledQuery.raw(START_SQL, startParams(orderId, version, tx, o)));
  return rows[0]?.version ?? null;
}

/** What step 1 read back for a settle that notifies (settleApprovedNotifying). */
export interface Started {
  version: string;
  /** The order's transactions after step 1, the new PENDING one included, oldest first. */
  txs: TxRow[];
  /** The row versions of the order's other transactions, in id order (the settle's guard). */
  others: string;
}

/** startStep, also reading back the order's transactions (in the same statement). */
export async function startStepWithTxs(db: Executor, orderId: string, version: string, tx: StartTx, o: StartOrder): Promise<Started | null> {
  const { rows } = await db.executeQuery<{ version: string; others: string; txs: Array<Record<string, unknown>> }>(
    CompiledQuery.raw(START_TXS_SQL, startParams(orderId, version, tx, o)),
  );
  const r = rows[0];
  return r ? { version: r.version, others: r.others, txs: r.txs.map(txFromJson) } : null;
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
  /** A stored credential's network transaction id the processor gave (the order's cof_txnid), or null. */
  cofTxnid?: string | null;
  now: Date;
}

/**
 * Step 3 of an approved operation as one statement, if the order is still at `version` and the
 * transaction still PENDING (and, with `others`, the order's other transactions still at those row
 * versions): the transaction, the order, the stored card's use, the kept 3DS card gone, and `also`
 * (statements of other modules, guarded by the `when` they are given), then `tail`. Without `others`
 * the settled transaction's whole row is kept for `tail` (as `t`); with it, only its order.
 */
function settleSql<R>(
  orderId: string,
  version: string,
  txId: string,
  s: ApprovedSettle,
  others: string | null,
  also: (when: RawBuilder<unknown>) => RawBuilder<unknown>[],
  tail: RawBuilder<unknown>,
): RawBuilder<R> {
  const when = sql`exists (select 1 from u)`;
  const guard = others === null
    ? sql``
    : sql`and (select coalesce(string_agg(x.xmin::text, ',' order by x.id), '') from transactions x where x.order_id = ${orderId}::uuid and x.id <> ${txId}::uuid) = ${others}::text`;
  const extra = also(when).map((q, i) => sql`, ${sql.raw(`x${i}`)} as (${q})`);
  return sql<R>`with o as (
      select id from orders where id = ${orderId}::uuid and xmin::text = ${version}::text ${guard} for update
    ), t as (
      update transactions set status = ${s.txStatus}::text, auth_code = ${s.authCode}::text, processor_id = ${s.processorId}::text,
        amount = coalesce(${s.txAmount}::bigint, amount), awaiting_3ds = false, updated_at = ${s.now}::timestamptz
      where id = ${txId}::uuid and exists (select 1 from o)
        -- the guards as one expression the planner cannot match to the partial index of PENDING
        -- transactions: the row is found by its key, whatever the statistics (see the top of this file)
        and case when order_id = ${orderId}::uuid and status = 'PENDING' and not awaiting_3ds then true else false end
      returning ${sql.raw(others === null ? '*' : 'order_id')}
    ), u as (
      update orders set status = ${s.orderStatus}::text, paid = ${s.paid}::boolean, authorized = coalesce(${s.authorized}::bigint, authorized),
        captured = coalesce(${s.captured}::bigint, captured), safe = coalesce(${s.safe}::boolean, safe), refunded = coalesce(${s.refunded}::bigint, refunded),
        refund_reserved = refund_reserved - ${s.release}::bigint, busy_tx_id = case when ${s.clearBusy}::boolean then null else busy_tx_id end,
        cof_txnid = coalesce(${s.cofTxnid ?? null}::text, cof_txnid), updated_at = ${s.now}::timestamptz
      where id = (select order_id from t)
      returning id
    ), s as (
      ${markPaidCte({ id: s.sourceId, at: s.now, serviceId: s.serviceId, when })}
    ), k as (
      delete from threeds_card_sessions where transaction_id = ${txId}::uuid and ${when}
    )${sql.join(extra, sql``)}
    ${tail}`;
}

/**
 * Step 3 of an approved operation in one statement (settleSql). Returns the order's transactions as they
 * are now, or null when nothing was written.
 */
export async function settleApproved(db: Executor, orderId: string, version: string, txId: string, s: ApprovedSettle): Promise<TxRow[] | null> {
  const tail = sql`select * from t where exists (select 1 from u)
    union all
    select * from transactions where order_id = ${orderId}::uuid and id <> ${txId}::uuid and exists (select 1 from u)
    order by created_at, id`;
  const { rows } = await settleSql<TxRow>(orderId, version, txId, s, null, () => [], tail).execute(db);
  return rows.length > 0 ? rows.map((r) => ({ ...r, amount: Number(r.amount) })) : null;
}

/**
 * Step 3 of an approved operation that sends a notification, in one statement with it: the settle of
 * settleApproved and `notification` (the events module's statements, given the condition they must
 * hold to), written only if the order's other transactions are still at the row versions `others` that
 * step 1 read back, so that the answer and the notification predicted from step 1's transactions
 * (`predictSettled`) are what the database now holds. True when it was written.
 */
export async function settleApprovedNotifying(
  db: Executor,
  orderId: string,
  version: string,
  txId: string,
  others: string,
  s: ApprovedSettle,
  notification: (when: RawBuilder<unknown>) => RawBuilder<unknown>[],
): Promise<boolean> {
  const { rows } = await settleSql<{ n: number }>(orderId, version, txId, s, others, notification, sql`select count(*)::int as n from u`).execute(db);
  return rows[0]?.n === 1;
}

/** The order's transactions once `txId` (PENDING in `txs`) is settled as `s` writes it. */
export function predictSettled(txs: TxRow[], txId: string, s: ApprovedSettle): TxRow[] {
  return txs.map((t) =>
    t.id === txId
      ? { ...t, status: s.txStatus as TxRow['status'], auth_code: s.authCode, processor_id: s.processorId, amount: s.txAmount ?? t.amount, awaiting_3ds: false, updated_at: s.now }
      : t,
  );
}
