/** SQL of the background sweeps: the reconciler's PENDING transactions and the expiry of due orders. */
import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { OrderStatus } from './order-states.js';

/** PENDING transactions whose processor call started before `before` (real time). */
export async function stalePendingTransactions(db: Executor, before: Date, realNow: Date, limit: number): Promise<Array<{ id: string; order_id: string }>> {
  return db
    .selectFrom('transactions')
    .select(['id', 'order_id'])
    .where('status', '=', 'PENDING')
    .where('awaiting_3ds', '=', false)
    // waiting for a device: no processor has it yet (the device's deadline, or overdueDeviceWaits, closes it)
    .where('device_wait_until', 'is', null)
    .where('started_at', '<', before)
    // its processor could not be asked lately: later
    .where((eb) => eb.or([eb('reconcile_after', 'is', null), eb('reconcile_after', '<', realNow)]))
    .orderBy('started_at')
    .limit(limit)
    .execute();
}

/** A PENDING transaction whose processor is about to be asked: the reconciler may settle it from `realNow` on. */
export async function reconcileNow(db: Executor, id: string, realNow: Date): Promise<void> {
  await db.updateTable('transactions').set({ reconcile_after: null, started_at: realNow }).where('id', '=', id).where('status', '=', 'PENDING').execute();
}

/** The processor of a PENDING transaction could not be asked: the reconciler asks again after `after`. */
export async function reconcileLater(db: Executor, id: string, after: Date): Promise<void> {
  await db.updateTable('transactions').set({ reconcile_after: after }).where('id', '=', id).where('status', '=', 'PENDING').execute();
}

/**
 * Open orders whose expiry has passed (`open_due_at`: the expiry on the real clock, kept in step with the
 * merchant's test clock, while the order is open), locked with SKIP LOCKED so several workers share the
 * sweep. Indexable: a range scan of the partial index of open orders (migration 0870).
 */
export async function lockDueOrders(trx: Executor, statuses: OrderStatus[], realNow: Date, limit: number): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select o.id from orders o
    where o.open_due_at <= ${realNow} and o.status = any(${statuses}::text[])
    order by o.open_due_at
    limit ${limit}
    for update of o skip locked`.execute(trx);
  return rows.map((r) => r.id);
}

/**
 * The set-based part of the expiry sweep: in one statement, expires up to `limit` due open orders that
 * need nothing else (no notification to send, no 3DS wait to void), with their merchant's time as
 * `updated_at`. Returns how many it expired. The others go through the one-by-one path.
 */
export async function expireDueQuietly(db: Executor, statuses: OrderStatus[], realNow: Date, limit: number): Promise<number> {
  const { rows } = await sql<{ id: string }>`
    with due as (
      select o.id from orders o
      where o.open_due_at <= ${realNow} and o.status = any(${statuses}::text[]) and o.url_post is null
        and not exists (select 1 from transactions t where t.order_id = o.id and t.status = 'PENDING' and t.awaiting_3ds)
      order by o.open_due_at
      limit ${limit}
      for update of o skip locked
    )
    update orders o
    set status = 'EXPIRED', paid = false,
        updated_at = ${realNow}::timestamptz + make_interval(secs => (case when o.env = 'sandbox' then m.clock_offset_ms else 0 end) / 1000.0)
    from due, merchants m
    where o.id = due.id and m.id = o.merchant_id and o.status = any(${statuses}::text[])
    returning o.id`.execute(db);
  return rows.length;
}
