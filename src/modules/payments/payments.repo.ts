/** SQL of orders, transactions and the retry state of operations. Every function takes the executor. */
import { CompiledQuery, sql, type ColumnType } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import { REFERENCE_HOLDING, type OrderStatus, type TxStatus } from './order-states.js';
import type { Operative, RetryOperation, RetryState, TxOperative } from './payments.domain.js';

type Json = ColumnType<unknown, string | null, string | null>;
/** A JSON column a new row may leave out (null). */
type OptionalJson = ColumnType<unknown, string | null | undefined, string | null>;

export interface OrdersTable {
  id: string;
  merchant_id: string;
  env: Env;
  key_id: string;
  service_id: string;
  service_type: string;
  operative: Operative;
  amount: number;
  currency: string;
  currency_number: string;
  secure: boolean;
  status: OrderStatus;
  paid: boolean;
  safe: boolean;
  authorized: number;
  captured: number;
  refunded: number;
  refund_reserved: number;
  busy_tx_id: string | null;
  description: string;
  additional: string | null;
  customer_ext_id: string | null;
  cof_txnid: string | null;
  token: string;
  ip: string | null;
  reference: string | null;
  dynamic_descriptor: string | null;
  threeds_data: Json;
  url_post: string | null;
  url_ok: string | null;
  url_ko: string | null;
  template_uuid: string | null;
  dcc_template_uuid: string | null;
  source_id: string | null;
  save_card: boolean;
  extra_data: Json;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  /** The service the order named, when routing sent a payment attempt to another one (migration 1141). */
  entry_service_id: ColumnType<string | null, string | null | undefined, string | null>;
  entry_service_type: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface TransactionsTable {
  id: string;
  order_id: string;
  merchant_id: string;
  operative: TxOperative;
  processor_operation: string;
  amount: number;
  status: TxStatus;
  error: string;
  auth_code: string;
  processor_id: string | null;
  source_id: string | null;
  source_json: string | null;
  antifraud: Json;
  device: Json;
  error_details: string | null;
  customer_ip: string | null;
  awaiting_3ds: boolean;
  metadata: Json;
  /** The dynamic currency conversion offered with a payment (migration 0820). */
  dcc: Json;
  created_at: Date;
  updated_at: Date;
  started_at: Date;
  /** Card-present: where the card was read (device, TID, MID, STAN, RRN, reading method). */
  pos: OptionalJson;
  /** Card-present: `{terminal_action}` when the issuer asked for SCA on the terminal. */
  payment_data: OptionalJson;
  /** A payment sent to a device: PENDING, waiting for the device to read a card until then (merchant clock). */
  device_wait_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** PENDING, its processor could not be asked: the reconciler asks again after this (real clock). */
  reconcile_after: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Routing (migration 1141): the service that processed the attempt, how routing chose it, the fallbacks left. */
  service_id: ColumnType<string | null, string | null | undefined, string | null>;
  routing: OptionalJson;
  routing_next: OptionalJson;
}

export interface OrderOperationRetriesTable {
  order_id: string;
  operation: RetryOperation;
  failures: number;
  last_failure_at: Date | null;
  last_success_at: Date | null;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    orders: OrdersTable;
    transactions: TransactionsTable;
    order_operation_retries: OrderOperationRetriesTable;
  }
}

export type OrderRow = Omit<OrdersTable, 'threeds_data' | 'extra_data' | 'entry_service_id' | 'entry_service_type'> & {
  threeds_data: unknown;
  extra_data: unknown;
  entry_service_id?: string | null;
  entry_service_type?: string | null;
};
export type TxRow = Omit<TransactionsTable, 'antifraud' | 'device' | 'metadata' | 'dcc' | 'pos' | 'payment_data' | 'device_wait_until' | 'reconcile_after' | 'service_id' | 'routing' | 'routing_next'> & {
  service_id?: string | null;
  routing?: unknown;
  routing_next?: unknown;
  antifraud: unknown;
  device: unknown;
  metadata: unknown;
  dcc?: unknown;
  pos?: unknown;
  payment_data?: unknown;
  device_wait_until?: Date | null;
  reconcile_after?: Date | null;
};

/** An order with the merchant settings the money paths need (one round trip). */
export type LockedOrder = OrderRow & {
  m_offset: number;
  m_timezone: string;
  m_resend: boolean;
  m_autorecover: boolean;
};

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/** Columns of a new order; the others start at their defaults (not paid, nothing captured or refunded). */
const NEW_ORDER_COLUMNS = [
  'id', 'merchant_id', 'env', 'key_id', 'service_id', 'service_type', 'operative', 'amount', 'currency', 'currency_number',
  'secure', 'status', 'description', 'additional', 'customer_ext_id', 'token', 'ip', 'reference', 'dynamic_descriptor',
  'url_post', 'url_ok', 'url_ko', 'template_uuid', 'dcc_template_uuid', 'source_id', 'save_card', 'extra_data',
  'expires_at', 'created_at', 'updated_at',
] as const;
const INSERT_ORDER_SQL = `insert into orders (${NEW_ORDER_COLUMNS.join(', ')}) values (${NEW_ORDER_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

function newOrderParams(row: OrderRow): unknown[] {
  if (row.status !== 'CREATED' || row.paid || row.authorized || row.captured || row.refunded || row.refund_reserved || row.busy_tx_id || row.threeds_data || row.cof_txnid) {
    throw new Error('insertOrder takes a new order');
  }
  return [
    row.id, row.merchant_id, row.env, row.key_id, row.service_id, row.service_type, row.operative, row.amount, row.currency, row.currency_number,
    row.secure, row.status, row.description, row.additional, row.customer_ext_id, row.token, row.ip, row.reference, row.dynamic_descriptor,
    row.url_post, row.url_ok, row.url_ko, row.template_uuid, row.dcc_template_uuid, row.source_id, row.save_card, json(row.extra_data),
    row.expires_at, row.created_at, row.updated_at,
  ];
}

/**
 * Inserts a new order. On the hottest path of the gateway, so the statement is written once, not built
 * per request.
 */
/** An order of the merchant and environment that holds `reference` (paid, being paid or held), if any. */
export async function orderHoldingReference(db: Executor, merchantId: string, env: Env, reference: string): Promise<{ id: string; status: string } | undefined> {
  return db
    .selectFrom('orders')
    .select(['id', 'status'])
    .where('merchant_id', '=', merchantId)
    .where('env', '=', env)
    .where('reference', '=', reference)
    .where('status', 'in', [...REFERENCE_HOLDING])
    .limit(1)
    .executeTakeFirst();
}

export async function insertOrder(db: Executor, row: OrderRow): Promise<void> {
  await db.executeQuery(CompiledQuery.raw(INSERT_ORDER_SQL, newOrderParams(row)));
}

const batchSql = new Map<number, string>();

/** Inserts several new orders in one statement (all or none). */
export async function insertOrders(db: Executor, rows: OrderRow[]): Promise<void> {
  if (rows.length === 1) return insertOrder(db, rows[0]);
  let text = batchSql.get(rows.length);
  if (!text) {
    const w = NEW_ORDER_COLUMNS.length;
    const tuples = rows.map((_, r) => `(${NEW_ORDER_COLUMNS.map((__, c) => `$${r * w + c + 1}`).join(', ')})`);
    text = `insert into orders (${NEW_ORDER_COLUMNS.join(', ')}) values ${tuples.join(', ')}`;
    if (batchSql.size < 256) batchSql.set(rows.length, text);
  }
  await db.executeQuery(CompiledQuery.raw(text, rows.flatMap(newOrderParams)));
}

/**
 * Group commit of new orders: inserts requested in the same turn of the event loop go to the database
 * in one statement (one round trip, one commit). Each caller is answered only after its row is
 * committed. When a batch fails (a duplicate reference, say), its rows are inserted one by one so each
 * caller gets its own outcome.
 */
export class OrderInsertBatcher {
  #queue: Array<{ row: OrderRow; resolve: () => void; reject: (e: unknown) => void }> = [];
  #scheduled = false;

  constructor(
    private readonly db: () => Executor,
    private readonly maxBatch = 200,
  ) {}

  insert(row: OrderRow): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ row, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.maxBatch);
      try {
        await insertOrders(this.db(), batch.map((b) => b.row));
        for (const b of batch) b.resolve();
      } catch (err) {
        if (batch.length === 1) {
          batch[0].reject(err);
          continue;
        }
        await Promise.all(
          batch.map((b) => insertOrder(this.db(), b.row).then(b.resolve, b.reject)),
        );
      }
    }
  }
}

function orderWithMerchant(db: Executor) {
  return db
    .selectFrom('orders as o')
    .innerJoin('merchants as m', 'm.id', 'o.merchant_id')
    .selectAll('o')
    .select(['m.clock_offset_ms as m_offset', 'm.timezone as m_timezone', 'm.resend_failed_notifications as m_resend', 'm.autorecover_transactions as m_autorecover']);
}

/** Locks an order of a merchant (row lock until the transaction ends). */
export async function lockOrder(trx: Executor, id: string, merchantId?: string): Promise<LockedOrder | undefined> {
  let q = orderWithMerchant(trx).where('o.id', '=', id);
  if (merchantId) q = q.where('o.merchant_id', '=', merchantId);
  return q.forUpdate('o').executeTakeFirst() as Promise<LockedOrder | undefined>;
}

/** A locked order with what a confirmation, cancellation or refund needs, in one round trip. */
export type FollowUpOrder = LockedOrder & {
  retry: RetryState;
  /** The approved payment (AUTHORIZATION or DEFERRED) the operation refers to. */
  payment: { id: string; processor_id: string | null; auth_code: string; source_id: string | null; source_json: string | null } | null;
};

export async function lockOrderForFollowUp(trx: Executor, id: string, merchantId: string, operation: RetryOperation): Promise<FollowUpOrder | undefined> {
  const { rows } = await sql<LockedOrder & Record<string, unknown>>`
    select o.*, m.clock_offset_ms as m_offset, m.timezone as m_timezone, m.resend_failed_notifications as m_resend,
      m.autorecover_transactions as m_autorecover,
      r.failures as r_failures, r.last_failure_at as r_last_failure_at, r.last_success_at as r_last_success_at,
      p.id as p_id, p.processor_id as p_processor_id, p.auth_code as p_auth_code, p.source_id as p_source_id, p.source_json as p_source_json
    from orders o
    join merchants m on m.id = o.merchant_id
    left join order_operation_retries r on r.order_id = o.id and r.operation = ${operation}
    left join lateral (
      select t.id, t.processor_id, t.auth_code, t.source_id, t.source_json from transactions t
      where t.order_id = o.id and t.operative in ('AUTHORIZATION', 'DEFERRED') and t.status = 'SUCCESS'
      order by t.created_at, t.seq limit 1
    ) p on true
    where o.id = ${id} and o.merchant_id = ${merchantId}
    for update of o`.execute(trx);
  const r = rows[0];
  if (!r) return undefined;
  const { r_failures, r_last_failure_at, r_last_success_at, p_id, p_processor_id, p_auth_code, p_source_id, p_source_json, ...order } = r;
  return {
    ...(order as unknown as LockedOrder),
    retry: { failures: Number(r_failures ?? 0), lastFailureAt: (r_last_failure_at as Date | null) ?? null, lastSuccessAt: (r_last_success_at as Date | null) ?? null },
    payment: p_id
      ? { id: p_id as string, processor_id: p_processor_id as string | null, auth_code: p_auth_code as string, source_id: p_source_id as string | null, source_json: p_source_json as string | null }
      : null,
  };
}

/** What settling needs of a transaction. */
export type SettlingTx = Pick<TxRow, 'id' | 'status' | 'awaiting_3ds' | 'operative' | 'amount' | 'source_id'> & {
  /** Routing: the fallbacks left after this attempt (null or absent: none). */
  routing_next?: unknown;
};

/** Locks an order and one of its transactions in one round trip. */
export async function lockOrderWithTx(trx: Executor, orderId: string, txId: string): Promise<{ order: LockedOrder; tx: SettlingTx; retry: RetryState } | undefined> {
  const row = await orderWithMerchant(trx)
    .innerJoin('transactions as t', 't.order_id', 'o.id')
    // the retry state of the operation (confirmation, cancellation, refund: named like the operative)
    .leftJoin('order_operation_retries as r', (j) => j.onRef('r.order_id', '=', 'o.id').onRef('r.operation', '=', 't.operative'))
    .select(['t.id as t_id', 't.status as t_status', 't.awaiting_3ds as t_awaiting_3ds', 't.operative as t_operative', 't.amount as t_amount', 't.source_id as t_source_id', 't.routing_next as t_routing_next'])
    .select(['r.failures as r_failures', 'r.last_failure_at as r_last_failure_at', 'r.last_success_at as r_last_success_at'])
    .where('o.id', '=', orderId)
    .where('t.id', '=', txId)
    .forUpdate(['o', 't'])
    .executeTakeFirst();
  if (!row) return undefined;
  const { t_id, t_status, t_awaiting_3ds, t_operative, t_amount, t_source_id, t_routing_next, r_failures, r_last_failure_at, r_last_success_at, ...order } = row;
  return {
    order: order as unknown as LockedOrder,
    retry: { failures: Number(r_failures ?? 0), lastFailureAt: r_last_failure_at ?? null, lastSuccessAt: r_last_success_at ?? null },
    tx: { id: t_id, status: t_status, awaiting_3ds: t_awaiting_3ds, operative: t_operative, amount: Number(t_amount), source_id: t_source_id, routing_next: t_routing_next ?? null },
  };
}

export async function lockOrderByToken(trx: Executor, token: string): Promise<LockedOrder | undefined> {
  return orderWithMerchant(trx).where('o.token', '=', token).forUpdate('o').executeTakeFirst() as Promise<LockedOrder | undefined>;
}

export async function findOrder(db: Executor, id: string): Promise<LockedOrder | undefined> {
  return orderWithMerchant(db).where('o.id', '=', id).executeTakeFirst() as Promise<LockedOrder | undefined>;
}

export async function findOrderByToken(db: Executor, token: string): Promise<LockedOrder | undefined> {
  return orderWithMerchant(db).where('o.token', '=', token).executeTakeFirst() as Promise<LockedOrder | undefined>;
}


/**
 * Writes an order's status (and other columns) only if it is still in the status it was read in.
 * The status always comes from the transition table (order-states.ts).
 */
export async function updateOrder(trx: Executor, id: string, expected: OrderStatus, set: Partial<Omit<OrderRow, 'id' | 'threeds_data' | 'extra_data'>> & { threeds_data?: unknown }): Promise<void> {
  const { threeds_data, ...rest } = set;
  const values: Record<string, unknown> = { ...rest };
  if (threeds_data !== undefined) values.threeds_data = json(threeds_data);
  const res = await trx.updateTable('orders').set(values).where('id', '=', id).where('status', '=', expected).executeTakeFirst();
  if (Number(res.numUpdatedRows ?? 0) !== 1) throw new Error(`order ${id} was not in status ${expected}`);
}

export async function insertTransaction(trx: Executor, row: TxRow): Promise<void> {
  await trx
    .insertInto('transactions')
    .values({
      ...row, antifraud: json(row.antifraud), device: json(row.device), metadata: json(row.metadata), dcc: json(row.dcc), pos: json(row.pos), payment_data: json(row.payment_data),
      routing: json(row.routing),
      routing_next: json(row.routing_next),
    })
    .execute();
}

/** The PENDING transaction of an order that waits for a physical device to read a card, locked. */
export async function deviceWaitTransaction(trx: Executor, orderId: string): Promise<TxRow | undefined> {
  return trx
    .selectFrom('transactions')
    .selectAll()
    .where('order_id', '=', orderId)
    .where('status', '=', 'PENDING')
    .where('device_wait_until', 'is not', null)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * The device read a card for a transaction that waited for it: the transaction becomes the processor call
 * (its card, risk evaluation, operation and start time), no longer waiting.
 */
export async function startDeviceWaitTransaction(
  trx: Executor,
  id: string,
  set: { processor_operation: string; source_id: string | null; source_json: string | null; antifraud: unknown; pos: unknown; customer_ip: string | null; updated_at: Date; started_at: Date },
): Promise<void> {
  const res = await trx
    .updateTable('transactions')
    .set({ ...set, antifraud: json(set.antifraud), pos: json(set.pos), device_wait_until: null })
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .where('device_wait_until', 'is not', null)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows ?? 0) !== 1) throw new Error(`transaction ${id} was not waiting for a device`);
}

/**
 * Transactions still waiting for a device `graceMs` after their deadline (each on its merchant's clock):
 * the device's own deadline did not close them. The reconciler's backstop.
 */
export async function overdueDeviceWaits(db: Executor, realNow: Date, graceMs: number, limit: number): Promise<Array<{ id: string; order_id: string }>> {
  const { rows } = await sql<{ id: string; order_id: string }>`
    select t.id, t.order_id from transactions t
    join orders o on o.id = t.order_id
    join merchants m on m.id = o.merchant_id
    where t.status = 'PENDING' and t.device_wait_until is not null
      and t.device_wait_until + make_interval(secs => ${graceMs}::double precision / 1000.0)
        <= ${realNow}::timestamptz + make_interval(secs => (case when o.env = 'sandbox' then m.clock_offset_ms else 0 end) / 1000.0)
    order by t.device_wait_until
    limit ${limit}`.execute(db);
  return rows;
}


/** Writes a transaction's status only if it is still PENDING (a transaction settles once). */
export async function settleTransaction(trx: Executor, id: string, set: Partial<Omit<TxRow, 'id' | 'antifraud' | 'device' | 'metadata' | 'dcc' | 'pos' | 'payment_data' | 'routing' | 'routing_next'>> & { payment_data?: string | null }): Promise<void> {
  const res = await trx.updateTable('transactions').set(set).where('id', '=', id).where('status', '=', 'PENDING').executeTakeFirst();
  if (Number(res.numUpdatedRows ?? 0) !== 1) throw new Error(`transaction ${id} was not PENDING`);
}

export async function updateTransaction(trx: Executor, id: string, set: Partial<Pick<TxRow, 'awaiting_3ds' | 'started_at' | 'updated_at' | 'processor_id'>>): Promise<void> {
  await trx.updateTable('transactions').set(set).where('id', '=', id).execute();
}

/** A started APM payment: what the provider answered (its id, the voucher, the redirect, the expiry). */
export async function updatePendingApm(trx: Executor, id: string, set: { processor_id: string | null; source_json: string; updated_at: Date }): Promise<void> {
  await trx.updateTable('transactions').set(set).where('id', '=', id).where('status', '=', 'PENDING').execute();
}

export async function awaiting3dsTransaction(trx: Executor, orderId: string): Promise<TxRow | undefined> {
  return trx
    .selectFrom('transactions')
    .selectAll()
    .where('order_id', '=', orderId)
    .where('status', '=', 'PENDING')
    .where('awaiting_3ds', '=', true)
    .forUpdate()
    .executeTakeFirst();
}

export async function transactionsOf(db: Executor, orderId: string): Promise<TxRow[]> {
  return db.selectFrom('transactions').selectAll().where('order_id', '=', orderId).orderBy('created_at').orderBy(sql`seq`).execute();
}

export async function findTransaction(db: Executor, id: string): Promise<TxRow | undefined> {
  return db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function setTransactionMetadata(db: Executor, id: string, metadata: Record<string, string>): Promise<void> {
  await db.updateTable('transactions').set({ metadata: JSON.stringify(metadata) }).where('id', '=', id).execute();
}

// ---- retry state ----------------------------------------------------------------------------------------


export async function saveRetryState(trx: Executor, orderId: string, operation: RetryOperation, s: RetryState): Promise<void> {
  await trx
    .insertInto('order_operation_retries')
    .values({ order_id: orderId, operation, failures: s.failures, last_failure_at: s.lastFailureAt, last_success_at: s.lastSuccessAt })
    .onConflict((oc) =>
      oc.columns(['order_id', 'operation']).doUpdateSet({ failures: s.failures, last_failure_at: s.lastFailureAt, last_success_at: s.lastSuccessAt }),
    )
    .execute();
}
