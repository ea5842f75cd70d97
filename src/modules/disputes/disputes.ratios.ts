/** The dispute ratio by month and card scheme against the schemes' monitoring programmes (docs/disputes.md). */
import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { RequestContext } from '../../platform/http/types.js';
import { moneyMovementsSql } from '../payments/index.js';
import { SCHEMES, assessRatio, schemeOfBin } from './disputes.domain.js';

/**
 * GET /disputes/ratios: per month (UTC) and card scheme, the disputes received (CHARGEBACK stage or later
 * at their creation or since: retrievals are not counted) against the sales (successful payments) of the
 * month the programme compares them with: Visa's VDMP the same month, Mastercard's ECM the month before.
 */
export async function disputeRatios(db: Executor, ctx: RequestContext, q: { months?: number }) {
  const months = q.months ?? 6;
  const now = ctx.clock.now();
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (months - 1), 1));
  // the month before the first, for Mastercard's ratio
  const since = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() - 1, 1));
  const movements = moneyMovementsSql({ merchantId: ctx.merchant.id, env: ctx.env, since });
  const { rows: sales } = await sql<{ month: string; prefix: string | null; n: string | number }>`
    select to_char(m.created_at at time zone 'UTC', 'YYYY-MM') as month, left(m.card_bin, 4) as prefix, count(*) as n
    from (${movements}) m where m.type = 'PAYMENT' and m.status = 'SUCCESS' group by 1, 2`.execute(db);
  const { rows: disputes } = await sql<{ month: string; prefix: string | null; n: string | number }>`
    select to_char(d.created_at at time zone 'UTC', 'YYYY-MM') as month, left(m.card_bin, 4) as prefix, count(*) as n
    from disputes d join (${moneyMovementsSql({ merchantId: ctx.merchant.id, env: ctx.env })}) m on m.transaction_id = d.transaction_id
    where d.merchant_id = ${ctx.merchant.id} and d.env = ${ctx.env} and d.created_at >= ${first} and d.stage <> 'RETRIEVAL'
    group by 1, 2`.execute(db);
  const add = (into: Map<string, number>, rows: Array<{ month: string; prefix: string | null; n: string | number }>) => {
    for (const r of rows) {
      const key = `${r.month}|${schemeOfBin(r.prefix)}`;
      into.set(key, (into.get(key) ?? 0) + Number(r.n));
    }
  };
  const salesBy = new Map<string, number>();
  const disputesBy = new Map<string, number>();
  add(salesBy, sales);
  add(disputesBy, disputes);
  const out = [];
  for (let i = months - 1; i >= 0; i--) {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
    const month = d.toISOString().slice(0, 7);
    const previous = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
    for (const scheme of SCHEMES) {
      const salesMonth = scheme === 'MASTERCARD' ? previous : month;
      out.push({ ...assessRatio({ month, scheme, disputes: disputesBy.get(`${month}|${scheme}`) ?? 0, sales: salesBy.get(`${salesMonth}|${scheme}`) ?? 0 }), sales_month: salesMonth });
    }
  }
  return { ratios: out };
}
