/** SQL of events (notifications) and their delivery attempts. */
import { sql, type RawBuilder, type Selectable } from 'kysely';
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
  /** NOT_SENT: on the event log and the stream only, with no URL to deliver it to. */
  status: 'PENDING' | 'DELIVERED' | 'FAILED' | 'NOT_SENT';
  retries: boolean;
  attempts: Generated<number>;
  first_attempt_at: Date | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
  /** The transaction that wrote the event (xid8, as text) and its sequence: the stream's order. */
  txid: Generated<string>;
  seq: Generated<string>;
}

export interface EventAttemptsTable {
  id: Generated<number>;
  event_id: string;
  attempted_at: Date;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
  /** False while the attempt is being sent (recorded before the send). */
  finished: Generated<boolean>;
}

declare module '../../platform/db/schema.js' {
  interface DB {
    events: EventsTable;
    event_attempts: EventAttemptsTable;
  }
}

/** An event as the module reads it: its commit's `txid` and `seq` only in the stream's reads (StreamRow). */
export type EventRow = Omit<Selectable<EventsTable>, 'txid' | 'seq'>;
export type EventAttemptRow = Selectable<EventAttemptsTable>;

/** Every column of an event but its stream position. */
const EVENT_COLUMNS = ['id', 'merchant_id', 'env', 'type', 'order_id', 'key_id', 'url', 'payload', 'status', 'retries', 'attempts', 'first_attempt_at', 'next_attempt_at', 'delivered_at', 'created_at'] as const;

export async function findEvent(db: Executor, id: string): Promise<EventRow | undefined> {
  return db.selectFrom('events').select(EVENT_COLUMNS).where('id', '=', id).executeTakeFirst();
}

export async function findEventForUpdate(db: Executor, id: string): Promise<EventRow | undefined> {
  return db.selectFrom('events').select(EVENT_COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst();
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
    // ties on created_at (one instant, a frozen test clock) in the order the events were written; events
    // older than the event stream have no seq and tie on their id
    q.select(EVENT_COLUMNS).orderBy('created_at', 'desc').orderBy('seq', 'desc').orderBy('id').limit(f.limit).offset(f.offset).execute(),
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

export async function updateEvent(db: Executor, id: string, set: Partial<EventRow>): Promise<void> {
  await db.updateTable('events').set(set).where('id', '=', id).execute();
}

/** A PENDING event being delivered: the attempt recorded for it, and the event's count after it. */
export type BegunDelivery = EventRow & { m_offset: number; attempt_id: number; attempted_at: Date };

/**
 * Starts delivery attempts in one statement (one round trip, one commit, however many events): locks
 * each event that is still PENDING (in id order), records its attempt (as interrupted, until the send
 * ends) and counts it on the event. An attempt's time is `realNow` on its merchant's clock. The result
 * has one entry per id, undefined for an event that is not PENDING.
 */
export async function beginDeliveries(db: Executor, ids: string[], realNow: Date, interrupted: string): Promise<Array<BegunDelivery | undefined>> {
  const { rows } = await sql<BegunDelivery>`
    with e as (
      select e.id, m.clock_offset_ms as m_offset, ${realNow}::timestamptz + m.clock_offset_ms * interval '1 millisecond' as at
      from events e join merchants m on m.id = e.merchant_id
      where e.id = any(${ids}::uuid[]) and e.status = 'PENDING'
      order by e.id
      for update of e
    ), a as (
      insert into event_attempts (event_id, attempted_at, http_status, error, duration_ms, finished)
      select e.id, e.at, null, ${interrupted}, 0, false from e
      returning id, event_id, attempted_at
    )
    update events set attempts = events.attempts + 1, first_attempt_at = coalesce(events.first_attempt_at, e.at)
    from e join a on a.event_id = e.id
    where events.id = e.id
    returning events.*, e.m_offset, a.id as attempt_id, a.attempted_at`.execute(db);
  const byId = new Map(rows.map((r) => [r.id, { ...r, attempt_id: Number(r.attempt_id), m_offset: Number(r.m_offset) }]));
  return ids.map((id) => byId.get(id));
}

/** The end of one delivery attempt: its outcome and the event's new state. */
export interface FinishedDelivery {
  attemptId: number;
  outcome: { http_status: number | null; error: string | null; duration_ms: number };
  eventId: string;
  set: Pick<EventRow, 'status' | 'delivered_at' | 'next_attempt_at'>;
}

/**
 * Finishes delivery attempts in one statement (one round trip, one commit): each attempt recorded before
 * its send gets its outcome and its event the new state, together with `jobs` (the delivery jobs' own
 * completion, `JobQueue.finishManySql`).
 */
export async function finishDeliveries(db: Executor, done: FinishedDelivery[], jobs: RawBuilder<unknown>): Promise<void> {
  const rows = JSON.stringify(
    done.map((d) => ({
      attempt_id: d.attemptId,
      http_status: d.outcome.http_status,
      error: d.outcome.error,
      duration_ms: d.outcome.duration_ms,
      event_id: d.eventId,
      status: d.set.status,
      delivered_at: d.set.delivered_at,
      next_attempt_at: d.set.next_attempt_at,
    })),
  );
  // the keys as arrays too: a plan made for any number of rows still finds them by primary key
  await sql`with f as (
      select * from jsonb_to_recordset(${rows}::jsonb) as f(attempt_id bigint, http_status int, error text, duration_ms int,
        event_id uuid, status text, delivered_at timestamptz, next_attempt_at timestamptz)
    ), attempt as (
      update event_attempts set http_status = f.http_status, error = f.error, duration_ms = f.duration_ms, finished = true
      from f where event_attempts.id = any(${done.map((d) => d.attemptId)}::bigint[]) and event_attempts.id = f.attempt_id
    ), job as (${jobs})
    update events set status = f.status, delivered_at = f.delivered_at, next_attempt_at = f.next_attempt_at
    from f where events.id = any(${done.map((d) => d.eventId)}::uuid[]) and events.id = f.event_id`.execute(db);
}

// ---- the event stream --------------------------------------------------------------------------------

/** An event in stream order, with its position, whether it is final yet, and its merchant's clock. */
export type StreamRow = EventRow & { txid: string; seq: string; ready: boolean; m_offset: number };

/**
 * A merchant's events after `after`, in stream order (txid, seq), at most `limit`. `ready` is true for
 * events written by transactions older than every transaction still running: no event can ever appear
 * before them any more. The ready ones come first; a stream sends those only and looks again for the
 * rest (decisions of migrations/0840_event_stream.sql).
 */
/**
 * `merchantId`'s final events of `env` after `after`, in stream order. `skipVisibleIn`: the snapshot a
 * stream opened without a cursor took (streamHead): events of transactions that had committed by then
 * came before the stream and are left out.
 */
export async function eventsAfter(db: Executor, merchantId: string, env: string, after: { txid: string; seq: string }, limit: number, skipVisibleIn: string | null = null): Promise<StreamRow[]> {
  const { rows } = await sql<StreamRow>`
    select ${sql.raw(EVENT_COLUMNS.map((c) => `e.${c}`).join(', '))},
      e.txid::text as txid, e.seq::text as seq,
      e.txid < pg_snapshot_xmin(pg_current_snapshot()) as ready,
      m.clock_offset_ms as m_offset
    from events e join merchants m on m.id = e.merchant_id
    where e.merchant_id = ${merchantId} and e.env = ${env}
      and (e.txid, e.seq) > (${after.txid}::xid8, ${after.seq}::bigint) and e.seq is not null
      ${skipVisibleIn === null ? sql`` : sql`and not pg_visible_in_snapshot(e.txid, ${skipVisibleIn}::pg_snapshot)`}
    order by e.txid, e.seq
    limit ${limit}`.execute(db);
  return rows;
}

/**
 * The head of every stream now: the oldest transaction still running (or the next one). Every event
 * before it is already written; from it on, the events of transactions that had committed by now (those
 * visible in `snapshot`) are written too, and the others are still to come.
 */
export async function streamHead(db: Executor): Promise<{ txid: string; seq: string; snapshot: string }> {
  const { rows } = await sql<{ snapshot: string }>`select pg_current_snapshot()::text as snapshot`.execute(db);
  const snapshot = rows[0].snapshot;
  return { txid: snapshot.split(':')[0]!, seq: '0', snapshot };
}
