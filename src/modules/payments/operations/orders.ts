/** C1 expire, C2 read, C3 list transactions, C4 metadata. */
import { sql } from 'kysely';
import type { Executor } from '../../../platform/db/database.js';
import { badRequest, notFound } from '../../../platform/errors/errors.js';
import type { RequestContext } from '../../../platform/http/types.js';
import { parseFilterDate } from '../../../platform/time/format.js';
import { canOrder } from '../order-states.js';
import { LIST_LIMIT_MAX, METADATA_MAX_PAIRS, nullIfEmpty } from '../payments.domain.js';
import * as fast from '../fast.repo.js';
import * as repo from '../payments.repo.js';
import * as list from '../list.repo.js';
import type { OrderResult, PaymentsCore } from '../core.js';

/** C2: an order of the caller (expired on the spot when its time has come). */
export async function getOrder(core: PaymentsCore, ctx: RequestContext, orderId: string): Promise<OrderResult> {
  const found = await fast.orderWithTransactions(core.db.db, orderId);
  if (!found || found.order.merchant_id !== ctx.merchant.id || found.order.env !== ctx.env) throw notFound(`The order ${orderId} was not found`);
  const o = found.order;
  if (core.isDue(o, core.now(o))) {
    const expired = await core.db.transaction(async (trx) => {
      const locked = await core.lockOwned(trx, ctx, orderId);
      const now = core.now(locked);
      return core.isDue(locked, now) ? (await core.expire(trx, locked, now)).presented : null;
    });
    if (expired) return { order: expired, merchantId: o.merchant_id, redirect: null, failed: null };
  }
  return { order: core.present(o, found.txs), merchantId: o.merchant_id, redirect: null, failed: null };
}

/** What the disputes of an order mean for it (minor units of the order's currency): `Payments.recordDisputeMoney`. */
export interface DisputeMoney {
  merchantId: string;
  orderId: string;
  disputed: number;
  lost: number;
  won: number;
  /** the change's instant on the merchant's clock */
  at: Date;
}

/**
 * Keeps what the disputes of an order mean for it on the order (migrations/1131_order_disputes.sql), in
 * the caller's transaction; the overview's trigger books a change of the lost amount as money out. One
 * statement; returns the key that created the order, or null when the order is not the merchant's.
 */
export async function recordDisputeMoney(trx: Executor, r: DisputeMoney): Promise<{ keyId: string | null } | null> {
  const { rows } = await sql<{ key_id: string | null }>`
    update orders set dispute_disputed = ${r.disputed}, dispute_lost = ${r.lost}, dispute_won = ${r.won}, dispute_changed_at = ${r.at}
    where id = ${r.orderId} and merchant_id = ${r.merchantId}
    returning key_id`.execute(trx);
  return rows[0] ? { keyId: rows[0].key_id } : null;
}

/** C1: the payment link stops working. */
export async function expireOrder(core: PaymentsCore, ctx: RequestContext, orderId: string): Promise<OrderResult> {
  const presented = await core.db.transaction(async (trx) => {
    const o = await core.lockOwned(trx, ctx, orderId);
    if (!canOrder(o.status, 'EXPIRED')) throw badRequest(`The order is ${o.status} and cannot be expired`);
    return (await core.expire(trx, o, core.now(o))).presented;
  });
  return { order: presented, merchantId: ctx.merchant.id, redirect: null, failed: null };
}

export interface ListQuery {
  start?: string;
  end?: string;
  updated_at_start?: string;
  updated_at_end?: string;
  terminal?: number | string;
  limit?: number;
  offset?: number;
  cursor?: string;
}

/**
 * The count of C3 stops at this many transactions (or at the end of the requested page, when further):
 * counting a whole window reads all of it. `count_capped` says when more match.
 */
export const LIST_COUNT_CAP = 100_000;

/** `next_cursor` of C3: opaque to clients (the last transaction of the page). */
export function encodeCursor(txId: string): string {
  return Buffer.from(`t1:${txId}`).toString('base64url');
}

export function decodeCursor(cursor: string): string | null {
  const m = /^t1:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? m[1] : null;
}

/** C3: transactions of the merchant and its children. */
export async function listTransactions(core: PaymentsCore, ctx: RequestContext, q: ListQuery) {
  const tz = ctx.merchant.timezone;
  const date = (name: string, v: string | undefined) => {
    if (v === undefined || v === '') return undefined;
    const d = parseFilterDate(String(v), tz);
    if (!d) throw badRequest(`${name} must be a date in the format YYYYMMDDHHmm`);
    return d;
  };
  const limit = q.limit ?? LIST_LIMIT_MAX;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT_MAX) throw badRequest(`limit must be from 1 to ${LIST_LIMIT_MAX}`);
  const offset = q.offset ?? 0;
  let afterId: string | undefined;
  if (q.cursor !== undefined && q.cursor !== '') {
    if (offset > 0) throw badRequest('cursor and offset cannot be used together: page with one of them');
    const id = decodeCursor(q.cursor);
    if (!id) throw badRequest('cursor is not valid: pass the next_cursor of the previous page unchanged');
    afterId = id;
  }
  // a list may be a little stale: a fresh standby serves it when one is configured (PAYGATE_READ_DATABASE_URL)
  const db = core.p.reads.db;
  if (afterId && !(await list.transactionPosition(db, afterId))) throw badRequest('cursor is not valid: pass the next_cursor of the previous page unchanged');
  const ids = await core.deps.merchants.selfAndDescendantIds(db, ctx.merchant.id);
  const zones = { server: ctx.timezone, merchant: tz };
  const { rows, more, count, capped } = await list.listTransactionsJson(db, {
    merchantIds: ids,
    start: date('start', q.start),
    end: date('end', q.end),
    updatedStart: date('updated_at_start', q.updated_at_start),
    updatedEnd: date('updated_at_end', q.updated_at_end),
    terminalCode: q.terminal === undefined ? undefined : String(q.terminal),
    limit,
    offset,
    afterId,
    countCap: Math.max(LIST_COUNT_CAP, offset + limit),
  }, zones);
  return {
    count,
    count_capped: capped,
    /** The page's entries as JSON text (`listedTransactionJson`), for the route to splice into its answer. */
    transactionsJson: rows.map((t) => `${t.j.slice(0, -1)},"metadata":${metadataJson(t.metadata)}}`).join(','),
    // offset paging goes on as before; with a cursor, paging goes on with next_cursor only
    next_offset: more && !afterId ? offset + rows.length : null,
    next_cursor: more ? encodeCursor(rows[rows.length - 1].id) : null,
  };
}

const metadataJson = (m: unknown): string => {
  const v = nullIfEmpty(m);
  return v === null ? 'null' : JSON.stringify(v);
};

/** C4: key-value metadata on a transaction (at most 20 pairs; replaces earlier metadata). */
export async function attachMetadata(core: PaymentsCore, ctx: RequestContext, txId: string, metadata: Record<string, unknown>) {
  const pairs = Object.entries(metadata);
  if (pairs.length === 0) throw badRequest('metadata must have at least one pair');
  if (pairs.length > METADATA_MAX_PAIRS) throw badRequest(`metadata may have at most ${METADATA_MAX_PAIRS} pairs (got ${pairs.length})`);
  const clean: Record<string, string> = {};
  for (const [k, v] of pairs) {
    if (k.length === 0 || k.length > 64) throw badRequest('metadata keys must be 1 to 64 characters');
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw badRequest(`metadata.${k} must be a string, number or boolean`);
    const s = String(v);
    if (s.length > 500) throw badRequest(`metadata.${k} must be at most 500 characters`);
    clean[k] = s;
  }
  const db = core.db.db;
  const tx = await repo.findTransaction(db, txId);
  if (!tx || tx.merchant_id !== ctx.merchant.id) throw notFound(`The transaction ${txId} was not found`);
  await repo.setTransactionMetadata(db, txId, clean);
  return { transaction_uuid: txId, metadata: clean };
}
