/**
 * Orders of one merchant found by filters and a search, newest first, paged by a keyset cursor (the
 * dashboard's payments list and its CSV export). Reads only; the rules of what an order is stay in the
 * presentation of C2.
 */
import { sql, type RawBuilder } from 'kysely';
import { badRequest } from '../../../platform/errors/errors.js';
import type { RequestContext } from '../../../platform/http/types.js';
import type { PaymentsCore } from '../core.js';

export interface OrderFilters {
  status?: string[];
  operative?: string[];
  /** created at or after (ISO 8601) */
  from?: string;
  /** created before (ISO 8601) */
  to?: string;
  amount_min?: number;
  amount_max?: number;
  service?: string;
  customer?: string;
  /** any of these customers (the dashboard's e-mail filter: the customers whose profile has it) */
  customers_in?: string[];
  reference?: string;
  last4?: string;
  /** the `object` of a transaction's source: CARD, BANK_ACCOUNT, PAYPAL, BIZUM, ... */
  method?: string;
  /** one box: an order or transaction uuid, a reference, a customer id, or the last 4 digits of a card */
  q?: string;
}

export interface OrderSearchRow {
  id: string;
  created_at: Date;
  updated_at: Date;
  status: string;
  operative: string;
  amount: number;
  currency: string;
  authorized: number;
  captured: number;
  refunded: number;
  paid: boolean;
  secure: boolean;
  reference: string | null;
  customer_ext_id: string | null;
  description: string;
  service_id: string;
  service_type: string;
  /** the order's last payment attempt: its card (BIN, last 4, brand) or APM, its codes */
  pay_source: string | null;
  pay_auth_code: string | null;
  pay_processor_id: string | null;
  pay_status: string | null;
  pay_error: string | null;
  /** the service that processed the last payment attempt (routing may have chosen another than the named one), and the rule */
  pay_service_id: string;
  pay_routing_rule: string | null;
  tx_count: number;
  /** what the order's disputes mean for it (null: never disputed): Payments.recordDisputeMoney */
  dispute_disputed: number | string | null;
  dispute_lost: number | string | null;
  dispute_won: number | string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function encodeOrderCursor(r: { created_at: Date; id: string }): string {
  return Buffer.from(`o1:${r.created_at.toISOString()}:${r.id}`).toString('base64url');
}

export function decodeOrderCursor(cursor: string): { at: Date; id: string } | null {
  const m = /^o1:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z):([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m || !UUID.test(m[2])) return null;
  const at = new Date(m[1]);
  return Number.isNaN(at.getTime()) ? null : { at, id: m[2] };
}

function isoDate(name: string, v: string | undefined): Date | undefined {
  if (v === undefined || v === '') return undefined;
  const d = new Date(v);
  // PostgreSQL has no year 0: a date before year 1 (0000-01-01, or 0001-01-01 at a positive offset) is refused here
  const year = d.getUTCFullYear();
  if (!/^\d{4}-\d\d-\d\d(T[\d:.]+(Z|[+-]\d\d:?\d\d)?)?$/.test(v) || Number.isNaN(d.getTime()) || year < 1) throw badRequest(`${name} must be a date (YYYY-MM-DD or ISO 8601) from year 1, got "${v.slice(0, 40)}"`);
  return d;
}

/** The WHERE conditions of the filters (the merchant's own orders only). */
function conditions(ctx: RequestContext, f: OrderFilters, dense: Set<string>): RawBuilder<unknown>[] {
  const c: RawBuilder<unknown>[] = [sql`o.merchant_id = ${ctx.merchant.id}`, sql`o.env = ${ctx.env}`];
  if (f.status && f.status.length > 0) c.push(sql`o.status in (${sql.join(f.status)})`);
  if (f.operative && f.operative.length > 0) c.push(sql`o.operative in (${sql.join(f.operative)})`);
  const from = isoDate('from', f.from);
  const to = isoDate('to', f.to);
  if (from) c.push(sql`o.created_at >= ${from}`);
  if (to) c.push(sql`o.created_at < ${to}`);
  if (f.amount_min !== undefined) c.push(sql`o.amount >= ${f.amount_min}`);
  if (f.amount_max !== undefined) c.push(sql`o.amount <= ${f.amount_max}`);
  if (f.service) {
    if (!UUID.test(f.service)) throw badRequest('service must be a service uuid');
    // the service the order named (routing may have sent its payment to another)
    c.push(sql`coalesce(o.entry_service_id, o.service_id) = ${f.service}`);
  }
  if (f.customer) c.push(sql`o.customer_ext_id = ${f.customer}`);
  if (f.customers_in) c.push(f.customers_in.length === 0 ? sql`false` : sql`o.customer_ext_id in (${sql.join(f.customers_in)})`);
  if (f.reference) c.push(sql`o.reference = ${f.reference}`);
  if (f.last4) {
    if (!/^\d{4}$/.test(f.last4)) throw badRequest('last4 must be 4 digits');
    c.push(lastFour(ctx, f.last4, dense.has(f.last4)));
  }
  if (f.method) {
    // the `object` of the transaction's source: CARD, BANK_ACCOUNT, PAYPAL, BIZUM, ...
    c.push(sql`exists (select 1 from transactions t where t.order_id = o.id and t.source_json is not null and upper(t.source_json::jsonb->>'object') = ${f.method.toUpperCase()})`);
  }
  const q = f.q?.trim();
  if (q) {
    if (UUID.test(q)) {
      // the order, or the order of the transaction: a two-row list looked up by primary key
      c.push(sql`o.id in (select ${q.toLowerCase()}::uuid union all select t.order_id from transactions t where t.id = ${q.toLowerCase()} and t.merchant_id = ${ctx.merchant.id})`);
    } else if (/^\d{4}$/.test(q)) {
      c.push(dense.has(q)
        ? sql`(${lastFour(ctx, q, true)} or o.reference = ${q} or o.customer_ext_id = ${q})`
        : sql`o.id in (select t.order_id from transactions t where t.merchant_id = ${ctx.merchant.id} and t.source_json is not null and (t.source_json::jsonb->>'last4') = ${q}
            union select x.id from orders x where x.merchant_id = ${ctx.merchant.id} and (x.reference = ${q} or x.customer_ext_id = ${q}))`);
    } else {
      c.push(sql`o.id in (select x.id from orders x where x.merchant_id = ${ctx.merchant.id} and x.reference = ${q} union all select x.id from orders x where x.merchant_id = ${ctx.merchant.id} and x.customer_ext_id = ${q})`);
    }
  }
  return c;
}

/**
 * Orders with a transaction on a card ending in `last4`. Few such transactions (index
 * transactions_merchant_last4): their orders, gathered first. Many (a card the merchant sees all day): the
 * orders are walked newest first and each one's transactions looked at (a subquery per row, which the
 * planner does not flatten), so a page stops after its last match instead of gathering every match.
 */
function lastFour(ctx: RequestContext, last4: string, dense: boolean): RawBuilder<unknown> {
  if (dense) return sql`(select true from transactions t where t.order_id = o.id and t.source_json is not null and (t.source_json::jsonb->>'last4') = ${last4} limit 1)`;
  return sql`o.id in (select t.order_id from transactions t where t.merchant_id = ${ctx.merchant.id} and t.source_json is not null and (t.source_json::jsonb->>'last4') = ${last4})`;
}

/** Past this many transactions on one last 4, a search by it walks the orders instead (see lastFour). */
const DENSE_LAST4 = 2000;

/** The last-4 values of a search that many transactions of the merchant share. */
async function denseLast4(core: PaymentsCore, ctx: RequestContext, f: OrderFilters): Promise<Set<string>> {
  const values = [f.last4, f.q?.trim()].filter((v): v is string => !!v && /^\d{4}$/.test(v));
  const out = new Set<string>();
  for (const v of new Set(values)) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from (select 1 from transactions t where t.merchant_id = ${ctx.merchant.id} and t.source_json is not null
        and (t.source_json::jsonb->>'last4') = ${v} limit ${DENSE_LAST4}) x`.execute(core.db.db);
    if ((rows[0]?.n ?? 0) >= DENSE_LAST4) out.add(v);
  }
  return out;
}

function selectRows(where: RawBuilder<unknown>, limit: number) {
  return sql<OrderSearchRow>`
    select o.id, o.created_at, o.updated_at, o.status, o.operative, o.amount, o.currency, o.authorized, o.captured, o.refunded,
      o.paid, o.secure, o.reference, o.customer_ext_id, o.description,
      coalesce(o.entry_service_id, o.service_id) as service_id, coalesce(o.entry_service_type, o.service_type) as service_type,
      o.dispute_disputed, o.dispute_lost, o.dispute_won,
      p.source_json as pay_source, p.auth_code as pay_auth_code, p.processor_id as pay_processor_id, p.status as pay_status, p.error as pay_error,
      coalesce(p.service_id, o.service_id) as pay_service_id, p.routing->>'rule' as pay_routing_rule,
      (select count(*)::int from transactions x where x.order_id = o.id) as tx_count
    from orders o
    left join lateral (
      select t.source_json, t.auth_code, t.processor_id, t.status, t.error, t.service_id, t.routing from transactions t
      where t.order_id = o.id and t.operative in ('AUTHORIZATION', 'DEFERRED', 'PAYOUT')
      order by t.created_at desc, t.id desc limit 1
    ) p on true
    where ${where}
    order by o.created_at desc, o.id desc
    limit ${limit}`;
}

export const SEARCH_LIMIT_MAX = 200;

/** One page of orders matching `f`, newest first; `next_cursor` continues it. */
export async function searchOrders(core: PaymentsCore, ctx: RequestContext, f: OrderFilters, page: { limit: number; cursor?: string }) {
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > SEARCH_LIMIT_MAX) throw badRequest(`limit must be from 1 to ${SEARCH_LIMIT_MAX}`);
  const c = conditions(ctx, f, await denseLast4(core, ctx, f));
  if (page.cursor) {
    const after = decodeOrderCursor(page.cursor);
    if (!after) throw badRequest('cursor is not valid: pass the next_cursor of the previous page unchanged');
    c.push(sql`(o.created_at, o.id) < (${after.at}, ${after.id})`);
  }
  const { rows } = await selectRows(sql.join(c, sql` and `), page.limit + 1).execute(core.db.db);
  const more = rows.length > page.limit;
  const list = more ? rows.slice(0, page.limit) : rows;
  return { rows: list, next_cursor: more ? encodeOrderCursor(list[list.length - 1]) : null };
}

/** Every order matching `f`, newest first, read in pages of `batch` (the CSV export streams them). */
export async function* eachOrder(core: PaymentsCore, ctx: RequestContext, f: OrderFilters, batch = 500): AsyncGenerator<OrderSearchRow[]> {
  let cursor: string | undefined;
  for (;;) {
    const page = await searchOrders(core, ctx, f, { limit: Math.min(batch, SEARCH_LIMIT_MAX), cursor });
    if (page.rows.length > 0) yield page.rows;
    if (!page.next_cursor) return;
    cursor = page.next_cursor;
  }
}
