/**
 * The merchant's overview: figures of a period (today, the last 7, 30 or 90 days, or a custom range of
 * days in the merchant's timezone) and of the period of the same length just before it, per currency.
 * Two GROUP BY statements, both periods at once, over the figures the database keeps per day (the day
 * rows, and the changes not folded into them yet: migrations/1060_overview_days.sql, `foldOverview`):
 * the merchant's orders by creation day, its transactions by day; the periods, days and percentages are
 * put together here.
 *
 * What each figure counts (orders of payment operatives only: AUTHORIZATION, PARTIAL_AUTHORIZATION,
 * DEFERRED; payouts and transfers are not payments):
 *  - orders: orders created in the period;
 *  - paid: of those, the orders paid now (`paid` of C2); conversion = paid / orders;
 *  - threeds: of those, each order with a 3-D Secure record by its outcome (FRICTIONLESS, CHALLENGE,
 *    EXTERNAL, WALLET: authenticated; EXEMPTED; PENDING; FAILED: not authenticated), and the paid orders
 *    without a record as NOT_ATTEMPTED;
 *  - volume, charges: the successful AUTHORIZATION and CONFIRMATION transactions created in the period
 *    (a DEFERRED hold counts when it is confirmed), their amount and count;
 *  - refunds: the successful REFUND transactions created in the period, count and amount;
 *  - declines: the REFUSED or ERROR payment attempts (AUTHORIZATION, DEFERRED transactions) created in
 *    the period, by their error;
 *  - methods: the successful payment attempts (AUTHORIZATION, DEFERRED) created in the period by the
 *    method of their source (a card by its brand, a wallet, an APM), count and amount;
 *  - disputes_lost: money out to lost disputes (LOST, ACCEPTED, EXPIRED) on the days they were lost,
 *    `amount`, and `orders`, the orders whose first loss it was (the change of each order's lost amount:
 *    migrations/1131_order_disputes.sql, booked as the pseudo-operative DISPUTE_LOST);
 *  - net: volume - refunds - disputes lost;
 *  - series: per day of the period, orders, paid, volume, refunds (amount), disputes lost (amount), net
 *    and declines.
 */
import { sql } from 'kysely';
import { badRequest } from '../../../platform/errors/errors.js';
import type { RequestContext } from '../../../platform/http/types.js';
import type { Executor } from '../../../platform/db/database.js';
import type { PaymentsCore } from '../core.js';

export const OVERVIEW_PERIODS = ['today', '7d', '30d', '90d', 'custom'] as const;
export type OverviewPeriod = (typeof OVERVIEW_PERIODS)[number];

/** A custom range is at most this many days. */
export const OVERVIEW_MAX_DAYS = 366;

export interface OverviewQuery {
  period: OverviewPeriod;
  /** first day of a custom range (YYYY-MM-DD, the merchant's timezone) */
  from?: string;
  /** last day of a custom range, included */
  to?: string;
}

export interface OverviewDay {
  date: string;
  orders: number;
  paid: number;
  volume: number;
  refunds: number;
  disputes_lost: number;
  net: number;
  declines: number;
}

export interface OverviewFigures {
  orders: number;
  paid: number;
  /** paid / orders, null without orders */
  conversion: number | null;
  volume: number;
  charges: number;
  refunds: { count: number; amount: number };
  /** money out to disputes lost in the period (a change of the lost amount books on the day of the change) */
  disputes_lost: { orders: number; amount: number };
  /** volume - refunds - disputes lost */
  net: number;
  declines: Array<{ reason: string; count: number }>;
  threeds: Array<{ outcome: string; count: number }>;
  methods: Array<{ method: string; kind: string; count: number; amount: number }>;
  series: OverviewDay[];
}

export interface Overview {
  period: OverviewPeriod;
  timezone: string;
  /** the period's first and last day (included) */
  from: string;
  to: string;
  previous: { from: string; to: string };
  days: number;
  currencies: Array<{ currency: string; current: OverviewFigures; previous: OverviewFigures }>;
}

const DAY_MS = 86_400_000;
/** The overview's pseudo-operative of a change of an order's lost dispute amount (migration 1131). */
export const DISPUTE_LOST = 'DISPUTE_LOST';
const DATE = /^\d{4}-\d\d-\d\d$/;

function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
}

/** The calendar day of an instant in a timezone (YYYY-MM-DD). */
export function dayIn(at: Date, timezone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

function validDay(name: string, v: string | undefined): string {
  if (!v || !DATE.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`)) || new Date(`${v}T00:00:00Z`).toISOString().slice(0, 10) !== v) {
    throw badRequest(`${name} must be a day (YYYY-MM-DD) for a custom period`);
  }
  return v;
}

/** The period's days (first, last included) on the merchant's clock. */
export function periodDays(q: OverviewQuery, today: string): { from: string; to: string } {
  switch (q.period) {
    case 'today':
      return { from: today, to: today };
    case '7d':
      return { from: addDays(today, -6), to: today };
    case '30d':
      return { from: addDays(today, -29), to: today };
    case '90d':
      return { from: addDays(today, -89), to: today };
    case 'custom': {
      const from = validDay('from', q.from);
      const to = validDay('to', q.to);
      if (to < from) throw badRequest('to must be the same day as from or later');
      if (daysBetween(from, to) + 1 > OVERVIEW_MAX_DAYS) throw badRequest(`a custom period is at most ${OVERVIEW_MAX_DAYS} days`);
      return { from, to };
    }
    default:
      throw badRequest(`period must be one of ${OVERVIEW_PERIODS.join(', ')}`);
  }
}

interface OrderRow { currency: string; day: string; tds: string | null; orders: number; paid: number }
interface TxRow { currency: string; day: string; operative: string; status: string; error: string; method: string | null; kind: string | null; n: number; amount: string | number }

function emptyFigures(from: string, days: number): OverviewFigures {
  return {
    orders: 0, paid: 0, conversion: null, volume: 0, charges: 0, refunds: { count: 0, amount: 0 }, disputes_lost: { orders: 0, amount: 0 }, net: 0,
    declines: [], threeds: [], methods: [],
    series: Array.from({ length: days }, (_, i) => ({ date: addDays(from, i), orders: 0, paid: 0, volume: 0, refunds: 0, disputes_lost: 0, net: 0, declines: 0 })),
  };
}

function bump<T extends { count: number }>(list: T[], match: (x: T) => boolean, make: () => T, n: number, extra?: (x: T) => void) {
  let e = list.find(match);
  if (!e) list.push((e = make()));
  e.count += n;
  extra?.(e);
}

export async function overview(core: PaymentsCore, ctx: RequestContext, q: OverviewQuery): Promise<Overview> {
  const tz = ctx.merchant.timezone;
  const today = dayIn(ctx.clock.now(), tz);
  const { from, to } = periodDays(q, today);
  const days = daysBetween(from, to) + 1;
  const prevFrom = addDays(from, -days);
  const prevTo = addDays(from, -1);
  const end = addDays(to, 1);
  const db = core.p.reads.db;
  const q2 = overviewStatements({ merchantId: ctx.merchant.id, env: ctx.env, timezone: tz, from: prevFrom, end });
  const [orderRows, txRows] = await Promise.all([q2.orders.execute(db), q2.transactions.execute(db)]);

  const byCurrency = new Map<string, { current: OverviewFigures; previous: OverviewFigures }>();
  const figuresOf = (currency: string, d: string) => {
    let c = byCurrency.get(currency);
    if (!c) byCurrency.set(currency, (c = { current: emptyFigures(from, days), previous: emptyFigures(prevFrom, days) }));
    const current = d >= from;
    const f = current ? c.current : c.previous;
    const point = f.series[daysBetween(current ? from : prevFrom, d)];
    return { f, point };
  };

  for (const r of orderRows.rows) {
    if (r.day < prevFrom || r.day > to) continue;
    const { f, point } = figuresOf(r.currency, r.day);
    f.orders += r.orders;
    f.paid += r.paid;
    point.orders += r.orders;
    point.paid += r.paid;
    if (r.tds) bump(f.threeds, (x) => x.outcome === r.tds, () => ({ outcome: r.tds as string, count: 0 }), r.orders);
  }
  for (const r of txRows.rows) {
    if (r.day < prevFrom || r.day > to) continue;
    const { f, point } = figuresOf(r.currency, r.day);
    const amount = Number(r.amount);
    if (r.status === 'SUCCESS') {
      if (r.operative === 'AUTHORIZATION' || r.operative === 'CONFIRMATION') {
        f.volume += amount;
        f.charges += r.n;
        point.volume += amount;
      }
      if (r.operative === 'REFUND') {
        f.refunds.count += r.n;
        f.refunds.amount += amount;
        point.refunds += amount;
      }
      if (r.operative === DISPUTE_LOST) {
        f.disputes_lost.orders += r.n;
        f.disputes_lost.amount += amount;
        point.disputes_lost += amount;
      }
      if (r.operative === 'AUTHORIZATION' || r.operative === 'DEFERRED') {
        const method = r.method ?? 'UNKNOWN';
        bump(f.methods, (x) => x.method === method, () => ({ method, kind: r.kind ?? 'OTHER', count: 0, amount: 0 }), r.n, (x) => {
          x.amount += amount;
        });
      }
    } else {
      bump(f.declines, (x) => x.reason === r.error, () => ({ reason: r.error, count: 0 }), r.n);
      point.declines += r.n;
    }
  }

  const byCount = <T extends { count: number }>(list: T[], key: (x: T) => string) =>
    list.sort((a, b) => b.count - a.count || key(a).localeCompare(key(b)));
  const currencies = [...byCurrency].map(([currency, c]) => {
    for (const f of [c.current, c.previous]) {
      f.conversion = f.orders === 0 ? null : f.paid / f.orders;
      f.net = f.volume - f.refunds.amount - f.disputes_lost.amount;
      for (const point of f.series) point.net = point.volume - point.refunds - point.disputes_lost;
      byCount(f.declines, (x) => x.reason);
      byCount(f.threeds, (x) => x.outcome);
      byCount(f.methods, (x) => x.method);
    }
    return { currency, ...c };
  });
  // the currency with the most volume first
  currencies.sort((a, b) => b.current.volume - a.current.volume || b.current.orders - a.current.orders || a.currency.localeCompare(b.currency));
  return { period: q.period, timezone: tz, from, to, previous: { from: prevFrom, to: prevTo }, days, currencies };
}

/**
 * The two statements of the overview over [from, end) (days in `timezone`): orders by currency, day and
 * 3-D Secure outcome; transactions that count (charges, refunds, declines, successful attempts) by
 * currency, day, operative, status, error and method. Each adds the period's day rows
 * (`overview_order_days`, `overview_tx_days`, read by their primary key) and the changes not folded into
 * them yet (`overview_*_changes`, by merchant and instant): see migrations/1060_overview_days.sql for
 * what each order and transaction counts for. Exported for the benchmark's EXPLAIN.
 */
export function overviewStatements(b: { merchantId: string; env: string; timezone: string; from: string; end: string }) {
  // the bounds as instants: midnight of those days in the merchant's timezone
  const start = sql`(${b.from}::date::timestamp at time zone ${b.timezone})`;
  const stop = sql`(${b.end}::date::timestamp at time zone ${b.timezone})`;
  const day = sql`((c.created_at at time zone ${b.timezone})::date)`;

  const orders = sql<OrderRow>`
    select x.currency, to_char(x.day, 'YYYY-MM-DD') as day, nullif(x.tds, '') as tds, sum(x.orders)::int as orders, sum(x.paid)::int as paid
    from (
      select d.currency, d.day, d.tds, d.orders, d.paid from overview_order_days d
      where d.merchant_id = ${b.merchantId} and d.env = ${b.env} and d.day >= ${b.from}::date and d.day < ${b.end}::date
      union all
      select c.currency, ${day}, c.tds, c.orders, c.paid from overview_order_changes c
      where c.merchant_id = ${b.merchantId} and c.env = ${b.env} and c.created_at >= ${start} and c.created_at < ${stop}
    ) x
    group by x.currency, x.day, x.tds
    having sum(x.orders) <> 0 or sum(x.paid) <> 0`;

  const transactions = sql<TxRow>`
    select x.currency, to_char(x.day, 'YYYY-MM-DD') as day, x.operative, x.status, x.error,
      nullif(x.method, '') as method, nullif(x.kind, '') as kind, sum(x.n)::int as n, sum(x.amount)::text as amount
    from (
      select d.currency, d.day, d.operative, d.status, d.error, d.method, d.kind, d.n, d.amount from overview_tx_days d
      where d.merchant_id = ${b.merchantId} and d.env = ${b.env} and d.day >= ${b.from}::date and d.day < ${b.end}::date
      union all
      select c.currency, ${day}, c.operative, c.status, c.error, c.method, c.kind, c.n, c.amount from overview_tx_changes c
      where c.merchant_id = ${b.merchantId} and c.env = ${b.env} and c.created_at >= ${start} and c.created_at < ${stop}
    ) x
    group by x.currency, x.day, x.operative, x.status, x.error, x.method, x.kind
    having sum(x.n) <> 0 or sum(x.amount) <> 0`;

  return { orders, transactions };
}

/**
 * Folds up to `batch` changes of each kind into the day rows (the merchant's calendar day): one statement
 * per table deletes the changes it adds, so a change is counted exactly once, whatever stops the process
 * and however many processes fold at once (each takes changes the others have not locked). Returns how
 * many changes it folded.
 */
export async function foldOverview(db: Executor, batch = 10_000): Promise<number> {
  const orders = await fold(db, batch, 'overview_order_changes', 'overview_order_days', ['currency', 'tds'], ['orders', 'paid']);
  const transactions = await fold(db, batch, 'overview_tx_changes', 'overview_tx_days', ['currency', 'operative', 'status', 'error', 'method', 'kind'], ['n', 'amount']);
  return orders + transactions;
}

/**
 * One table's fold: up to `batch` changes (those no other fold holds) deleted and added to their day rows
 * (merchant, environment, the merchant's day, then `keys`), in one statement; the day rows are written in
 * key order, so two folds at once never wait on each other in a cycle.
 */
async function fold(db: Executor, batch: number, changes: string, days: string, keys: string[], sums: string[]): Promise<number> {
  const cols = ['merchant_id', 'env', 'day', ...keys, ...sums].join(', ');
  const groups = Array.from({ length: 3 + keys.length }, (_, i) => i + 1).join(', ');
  const picked = keys.map((k) => `mv.${k}`).join(', ');
  const summed = sums.map((k) => `sum(mv.${k})`).join(', ');
  const added = sums.map((k) => `${k} = d.${k} + excluded.${k}`).join(', ');
  const { rows } = await sql<{ n: number }>`
    with moved as (
      delete from ${sql.table(changes)} c
      where c.ctid = any (array(select ctid from ${sql.table(changes)} limit ${batch} for update skip locked))
      returning c.*
    ),
    folded as (
      insert into ${sql.table(days)} as d (${sql.raw(cols)})
      select mv.merchant_id, mv.env, (mv.created_at at time zone coalesce(m.timezone, 'UTC'))::date, ${sql.raw(picked)}, ${sql.raw(summed)}
      from moved mv left join merchants m on m.id = mv.merchant_id
      group by ${sql.raw(groups)}
      order by ${sql.raw(groups)}
      on conflict (merchant_id, env, day, ${sql.raw(keys.join(', '))}) do update set ${sql.raw(added)}
      returning 1
    )
    select (select count(*) from moved)::int as n, (select count(*) from folded) as groups`.execute(db);
  return rows[0].n;
}
