/** SQL of events (notifications) and their delivery attempts. */
import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env, Generated } from '../../platform/db/schema.js';

export interface EventsTable {
  id: string;
  merchant_id: string;
  env: Env;
  type: string;
  order_id: string | null;
  key_id: string | null;
  url: string;
  payload: string;
  status: 'PENDING' | 'DELIVERED' | 'FAILED';
  retries: boolean;
  attempts: Generated<number>;
  first_attempt_at: Date | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
}

export interface EventAttemptsTable {
  id: Generated<number>;
  event_id: string;
  attempted_at: Date;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    events: EventsTable;
    event_attempts: EventAttemptsTable;
  }
}

export type EventRow = Omit<EventsTable, 'attempts'> & { attempts: number };
export type EventAttemptRow = Omit<EventAttemptsTable, 'id'> & { id: number };

export async function insertEvent(db: Executor, row: Omit<EventRow, 'attempts'>): Promise<void> {
  await db.insertInto('events').values(row).execute();
}

export async function findEvent(db: Executor, id: string): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findEventForUpdate(db: Executor, id: string): Promise<EventRow | undefined> {
  return db.selectFrom('events').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function listEvents(
  db: Executor,
  merchantId: string,
  f: { orderId?: string; status?: string; limit: number; offset: number },
): Promise<{ rows: EventRow[]; count: number; capped: boolean }> {
  let q = db.selectFrom('events').where('merchant_id', '=', merchantId);
  if (f.orderId) q = q.where('order_id', '=', f.orderId);
  if (f.status) q = q.where('status', '=', f.status as EventRow['status']);
  // the count stops at the cap (or the end of the page): counting every event of a merchant reads them all
  const cap = Math.max(EVENTS_COUNT_CAP, f.offset + f.limit);
  const [rows, total] = await Promise.all([
    q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(f.limit).offset(f.offset).execute(),
    db.selectFrom(q.select(sql<number>`1`.as('one')).limit(cap + 1).as('x')).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const n = Number(total.n);
  return { rows, count: Math.min(n, cap), capped: n > cap };
}

/** GET /events counts at most this many events (`count_capped` says when more match). */
export const EVENTS_COUNT_CAP = 10_000;

export async function listAttempts(db: Executor, eventId: string): Promise<EventAttemptRow[]> {
  return db.selectFrom('event_attempts').selectAll().where('event_id', '=', eventId).orderBy('id').execute();
}

export async function insertAttempt(db: Executor, row: Omit<EventAttemptRow, 'id'>): Promise<void> {
  await db.insertInto('event_attempts').values(row).execute();
}

export async function updateEvent(db: Executor, id: string, set: Partial<EventRow>): Promise<void> {
  await db.updateTable('events').set(set).where('id', '=', id).execute();
}

/** An event with its merchant's test-clock offset (one read at the start of a delivery). */
export async function findEventForDelivery(db: Executor, id: string): Promise<(EventRow & { m_offset: number }) | undefined> {
  return db
    .selectFrom('events as e')
    .innerJoin('merchants as m', 'm.id', 'e.merchant_id')
    .selectAll('e')
    .select('m.clock_offset_ms as m_offset')
    .where('e.id', '=', id)
    .executeTakeFirst() as Promise<(EventRow & { m_offset: number }) | undefined>;
}

/** Finishes a delivery attempt in one statement: the attempt is stored and the event updated together. */
export async function finishAttempt(
  db: Executor,
  attempt: Omit<EventAttemptRow, 'id'>,
  set: Pick<EventRow, 'attempts' | 'first_attempt_at' | 'status' | 'delivered_at' | 'next_attempt_at'>,
): Promise<void> {
  await sql`with attempt as (
      insert into event_attempts (event_id, attempted_at, http_status, error, duration_ms)
      values (${attempt.event_id}, ${attempt.attempted_at}, ${attempt.http_status}, ${attempt.error}, ${attempt.duration_ms})
    )
    update events set attempts = ${set.attempts}, first_attempt_at = ${set.first_attempt_at}, status = ${set.status},
      delivered_at = ${set.delivered_at}, next_attempt_at = ${set.next_attempt_at}
    where id = ${attempt.event_id}`.execute(db);
}
