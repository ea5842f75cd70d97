/** SQL of the C3 list of transactions (GET /orders): filters, keyset position, entries built as JSON by the database. */
import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';

export interface TxListFilters {
  merchantIds: string[];
  start?: Date;
  end?: Date;
  updatedStart?: Date;
  updatedEnd?: Date;
  terminalCode?: string;
  limit: number;
  offset: number;
  /** Keyset paging: the page starts after this transaction (by created_at, id). */
  afterId?: string;
  /** The count stops here (at least the end of the requested page). */
  countCap: number;
}

/** The position of a transaction in the C3 order (created_at, id); undefined when unknown. */
export async function transactionPosition(db: Executor, id: string): Promise<{ created_at: Date } | undefined> {
  return db.selectFrom('transactions').select('created_at').where('id', '=', id).executeTakeFirst();
}

/** The filtered transactions of a C3 list (no order, no page). */
function listedTransactions(db: Executor, f: TxListFilters) {
  const ids = f.merchantIds;
  let q = db.selectFrom('transactions as t').where(ids.length === 1 ? sql<boolean>`t.merchant_id = ${ids[0]}` : sql<boolean>`t.merchant_id = any(${ids}::uuid[])`);
  if (f.start) q = q.where('t.created_at', '>=', f.start);
  if (f.end) q = q.where('t.created_at', '<', f.end);
  if (f.updatedStart) q = q.where('t.updated_at', '>=', f.updatedStart);
  if (f.updatedEnd) q = q.where('t.updated_at', '<', f.updatedEnd);
  if (f.terminalCode) {
    const code = f.terminalCode;
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('orders as o2')
          .innerJoin('services as s', 's.id', 'o2.service_id')
          .innerJoin('terminals as tm', 'tm.id', 's.terminal_id')
          .select('s.id')
          .whereRef('o2.id', '=', 't.order_id')
          .where('tm.code', '=', code),
      ),
    );
  }
  return q;
}

/** A count of what matches, stopping at `countCap` (counting a whole range reads every row of it). */
async function countListed(db: Executor, f: TxListFilters): Promise<{ count: number; capped: boolean }> {
  const c = await db
    .selectFrom(listedTransactions(db, f).select(sql<number>`1`.as('one')).limit(f.countCap + 1).as('x'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const n = Number(c.n);
  return { count: Math.min(n, f.countCap), capped: n > f.countCap };
}

/** `YYYY-MM-DDTHH:mm:ss+HHMM` of a timestamptz column in `tz`, in SQL (`formatContractDate`), with no subquery. */
function contractDateSql(col: string, tz: string) {
  const wall = sql`(${sql.ref(col)} at time zone ${tz})`;
  const off = sql`((extract(epoch from ${wall} - (${sql.ref(col)} at time zone 'UTC')) / 60)::int)`;
  return sql`(to_char(${wall}, 'YYYY-MM-DD"T"HH24:MI:SS') || case when ${off} < 0 then '-' else '+' end
    || to_char(abs(${off}) / 60, 'FM00') || to_char(abs(${off}) % 60, 'FM00'))`;
}

/** An entry of a C3 page as JSON text, and its metadata (presented by the caller: it may nest anything). */
export interface ListedTxJson {
  id: string;
  /** The entry without `metadata`: `{…,"updated":"…"}`, in plain JSON.stringify form. */
  j: string;
  metadata: unknown;
}

/**
 * C3: transactions of a set of merchants, oldest first (created_at, id). One page (`limit` rows, plus
 * one to know whether more follow), and a count of all that match that stops at `countCap`.
 *
 * Each entry is built as JSON by the database (`row_to_json` is compact, like JSON.stringify): a page of
 * 10,000 entries is then one query with no rows to parse into objects and no objects to serialize
 * again. It has the keys, order and values of `presentListedTransaction` (payments.domain.ts; a test
 * compares the two on both engines), except `metadata`, which the caller adds.
 */
export async function listTransactionsJson(db: Executor, f: TxListFilters, zones: { server: string; merchant: string }): Promise<{ rows: ListedTxJson[]; more: boolean; count: number; capped: boolean }> {
  let page = listedTransactions(db, f);
  if (f.afterId) page = page.where(sql<boolean>`(t.created_at, t.id) > (select created_at, id from transactions where id = ${f.afterId})`);
  // rows of the composite types of migrations 0861 and 0880: plain expressions, no subplan
  const nonEmptyObject = (col: string) => sql`(jsonb_typeof(${sql.ref(col)}) = 'object' and ${sql.ref(col)} <> '{}'::jsonb)`;
  // the card snapshot as stored (compact JSON written by the application), spliced in without a parse
  const entry = sql<string>`left(row_to_json(row(
      t.id,
      ${contractDateSql('t.created_at', zones.server)},
      ${contractDateSql('t.created_at', zones.merchant)},
      t.operative, t.amount, t.auth_code, t.processor_id, t.status, t.error
    )::c3_tx_head)::text, -1)
    || ',"source":' || case when t.source_json is null or t.source_json = '{}' then 'null' else t.source_json end
    || ',' || left(substr(row_to_json(row(
      case when jsonb_typeof(t.antifraud) = 'object' then row(
          coalesce(t.antifraud->>'evaluation', ''),
          coalesce(t.antifraud->'score', '0'), coalesce(t.antifraud->'risk_score', '0'), coalesce(t.antifraud->'fraud_score', '0'),
          case when t.antifraud->'triggered_rules' = '[]'::jsonb or jsonb_typeof(t.antifraud->'triggered_rules') is distinct from 'array' then '[]'::json
            else c3_string_array(t.antifraud->'triggered_rules') end
        )::c3_antifraud end,
      case when jsonb_typeof(t.device) = 'object' then row(coalesce(t.device->>'fingerprint', ''), coalesce(t.device->>'user_agent', ''))::c3_device end,
      t.error_details,
      case when jsonb_typeof(t.dcc) = 'object' then row(
          (t.dcc->'offered') is distinct from 'false'::jsonb, coalesce(t.dcc->'accepted' = 'true'::jsonb, false),
          coalesce(t.dcc->>'cardholder_currency', ''), coalesce(t.dcc->'cardholder_amount', '0'), coalesce(t.dcc->>'rate', ''),
          coalesce(t.dcc->>'markup', ''), coalesce(t.dcc->>'source', ''), coalesce(t.dcc->>'timestamp', '')
        )::c3_dcc end
    )::c3_tx_tail)::text, 2), -1)
    || case when ${nonEmptyObject('t.pos')} then ',"pos":' || row_to_json(row(
          coalesce(t.pos->>'device_id', ''), coalesce(t.pos->>'tid', ''), coalesce(t.pos->>'mid', ''), t.pos->>'stan', t.pos->>'rrn',
          t.pos->>'card_reading_method', t.pos->>'entry_mode'
        )::c3_pos)::text else '' end
    || case when ${nonEmptyObject('t.payment_data')} then ',"payment_data":' || row_to_json(row(t.payment_data->>'terminal_action')::c3_payment_data)::text else '' end
    || case when jsonb_typeof(t.routing) = 'object' then ',"routing":' || json_build_object(
          'service_uuid', coalesce(t.routing->>'service_uuid', ''), 'service', coalesce(t.routing->>'service', ''),
          'rule', case when jsonb_typeof(t.routing->'rule') = 'string' then t.routing->>'rule' end,
          'reason', coalesce(t.routing->>'reason', ''), 'attempt', coalesce((t.routing->>'attempt')::int, 1)
        )::text else '' end
    || ',' || substr(row_to_json(row(
      t.order_id, t.merchant_id, o.currency_number, coalesce(o.entry_service_type, o.service_type), coalesce(o.entry_service_id, o.service_id), o.reference, o.customer_ext_id, o.status,
      to_char(t.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    )::c3_order)::text, 2)`;
  const rowsQuery = page
    .innerJoin('orders as o', 'o.id', 't.order_id')
    .select(['t.id', entry.as('j'), 't.metadata'])
    .orderBy('t.created_at')
    .orderBy('t.id')
    .limit(f.limit + 1)
    .offset(f.offset)
    .execute();
  const [rows, c] = await Promise.all([rowsQuery, countListed(db, f)]);
  const more = rows.length > f.limit;
  if (more) rows.length = f.limit;
  return { rows: rows as ListedTxJson[], more, ...c };
}
