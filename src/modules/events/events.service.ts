/**
 * Notifications to the merchant (decisions §7) and the events API (decisions §9).
 *
 * A notification is an event row written in the same database transaction as the state change that
 * causes it, with a durable job that delivers it: POST to url_post with a timeout, any 2xx delivered,
 * every attempt stored. With resend_failed_notifications the job reschedules itself on the retry
 * schedule; otherwise one try. The schedule runs on the merchant's clock (sandbox jobs carry the
 * merchant, so moving its test clock moves them).
 */
import { randomUUID } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Env } from '../../platform/db/schema.js';
import { conflict, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import type { Finished, Job } from '../../platform/jobs/queue.js';
import { OutgoingError, isAbsoluteHttpUrl } from '../../platform/net/outgoing.js';
import { Coalescer } from '../../platform/db/coalesce.js';
import { formatContractDate } from '../../platform/time/format.js';
import type { MerchantsService } from '../merchants/index.js';
import { delivered, nextAttemptAt, presentEvent, renderNotification, type RenderedNotification } from './events.domain.js';
import * as repo from './events.repo.js';
import { EventStreams } from './events.stream.js';

export const DELIVER_QUEUE = 'events.deliver';
export const ORDER_NOTIFICATION = 'ORDER_NOTIFICATION';
/** The error of an attempt recorded before its send, until the send ends (stays if the process died). */
export const INTERRUPTED = 'interrupted: the gateway stopped while sending; the notification is sent again';

export interface NewNotification {
  merchantId: string;
  env: Env;
  /** The order the notification is about (null for events that concern no single order). */
  orderId: string | null;
  /** The event type; ORDER_NOTIFICATION when omitted. */
  type?: string;
  /** The key whose signature signs it (the key that created the order). */
  keyId: string;
  /**
   * Where the gateway delivers it; null: the event goes on the event log and the event stream only,
   * `NOT_SENT`, with no delivery (dispute events of a merchant that did not give a URL for them).
   */
  url: string | null;
  /** Serialized `{"order":…,"client":…}` (or the fields of another event type, as a JSON object). */
  payload: string;
  /** The merchant's resend_failed_notifications. */
  retries: boolean;
  /** Now on the merchant clock. */
  at: Date;
}

interface DeliverPayload {
  eventId: string;
  manual?: boolean;
}

export class EventsService {
  /** Open event streams (GET /events/stream) of this process. */
  readonly streams: EventStreams;

  constructor(
    private readonly p: Platform,
    private readonly merchants: MerchantsService,
  ) {
    this.streams = new EventStreams(p, this, merchants);
  }

  /** Writes a notification event and its delivery job with `trx` (the business transaction). */
  async enqueueNotification(trx: Executor, n: NewNotification): Promise<string> {
    // the event and its delivery job in one statement (one round trip inside the caller's transaction)
    const [event, job] = this.notificationSql(n, sql`true`);
    const { rows } = await sql<{ id: string }>`with e as (${event} returning id)${job ? sql`, j as (${job})` : sql``} select id from e`.execute(trx);
    if (job) this.p.jobs.poke();
    return rows[0].id;
  }

  /**
   * A notification (its event and its delivery job) as SQL statements to run inside a caller's statement
   * (data-modifying CTEs), guarded by `when`: a state change and its notification in one round trip. Call
   * `p.jobs.poke()` after the statement ran. Without a URL, the event alone (NOT_SENT, no job).
   */
  notificationSql(n: NewNotification, when: RawBuilder<unknown>): RawBuilder<unknown>[] {
    const id = randomUUID();
    const event = sql`insert into events (id, merchant_id, env, type, order_id, key_id, url, payload, status, retries, first_attempt_at, next_attempt_at, delivered_at, created_at)
        select ${id}::uuid, ${n.merchantId}::uuid, ${n.env}, ${n.type ?? ORDER_NOTIFICATION}, ${n.orderId}::uuid, ${n.keyId}::uuid, ${n.url ?? ''}, ${n.payload},
          ${n.url === null ? 'NOT_SENT' : 'PENDING'}, ${n.retries}::boolean, null, ${n.url === null ? null : n.at}::timestamptz, null, ${n.at}::timestamptz
        where ${when}`;
    if (n.url === null) return [event];
    return [
      event,
      this.p.jobs.insertSql(
        { queue: DELIVER_QUEUE, payload: { eventId: id } satisfies DeliverPayload, merchantId: n.merchantId, maxAttempts: 20, dedupeKey: `event:${id}` },
        when,
      ),
    ];
  }

  /**
   * The beginnings and ends of the deliveries in flight, each group of one turn of the event loop in one
   * statement: with many notifications going out, a delivery costs the database a share of two round
   * trips and two commits instead of two of each.
   */
  readonly #begin = new Coalescer<string, { e: repo.BegunDelivery | undefined; realNow: Date }>(async (ids) => {
    const realNow = this.p.clock.now();
    const out: Array<{ e: repo.BegunDelivery | undefined; realNow: Date }> = [];
    // an id twice (a job taken over while its first run still goes on) gets an attempt of its own, after
    for (const round of rounds(ids)) {
      const begun = await repo.beginDeliveries(this.p.database.db, round.map((r) => ids[r]), realNow, INTERRUPTED);
      round.forEach((r, k) => (out[r] = { e: begun[k], realNow }));
    }
    return out;
  });

  readonly #finish = new Coalescer<repo.FinishedDelivery & { job: Job; retryAt: Date | null }, void>(async (items) => {
    for (const round of rounds(items.map((i) => i.eventId))) {
      const group = round.map((r) => items[r]);
      await repo.finishDeliveries(this.p.database.db, group, this.p.jobs.finishManySql(group));
    }
    return items.map(() => undefined);
  });

  registerJobs(): void {
    // a delivery cannot outlive its timeout: a lease just above it frees a dead worker's delivery quickly
    this.p.jobs.register<DeliverPayload>(DELIVER_QUEUE, (job) => this.#deliverJob(job), { leaseMs: this.p.config.notificationTimeoutMs + 5_000, lane: 'delivery' });
  }

  /** One delivery attempt; reschedules itself while retries are left. */
  async #deliverJob(job: Job<DeliverPayload>): Promise<void | Finished> {
    // The attempt is recorded before the request leaves (one statement, shared with the deliveries
    // beginning with it: the event locked if still PENDING, the attempt inserted as interrupted, the
    // event's count moved): a process that dies mid-send leaves it visible and the job, whose lease is
    // just above the timeout, sends again (at least once: receivers deduplicate by Paygate-Event).
    const { e, realNow } = await this.#begin.add(job.payload.eventId);
    if (!e) return;
    // the attempt's time on the merchant's clock
    const now = new Date(e.attempted_at);
    const { body, headers } = await this.render(e, now.getTime() - realNow.getTime(), realNow);
    const attemptId = e.attempt_id;
    const attempts = e.attempts;
    const first = new Date(e.first_attempt_at ?? now);

    const started = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    // a url_post that is not an absolute http(s) URL (a relative path a shop sent) is never sent: the
    // attempt fails at once with the reason, and no retry would change it
    const unusable = !isAbsoluteHttpUrl(e.url);
    if (unusable) error = 'not sent: url_post is not an absolute http(s) URL (a relative URL is stored as sent but cannot be called)';
    else try {
      const res = await this.p.outgoing.send(e.url, {
        method: 'POST',
        body,
        env: e.env,
        headers,
        timeoutMs: this.p.config.notificationTimeoutMs,
      });
      status = res.status;
      if (!delivered(status)) error = status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
    } catch (err) {
      // the class of failure only: never the addresses behind the URL
      error = err instanceof OutgoingError ? err.message : 'the request failed';
    }
    const duration = Date.now() - started;

    const ok = delivered(status);
    // A manual resend of an event whose schedule is over does not restart the schedule.
    const next = ok || unusable ? null : job.payload.manual && !e.next_attempt_at ? null : nextAttemptAt(first, attempts, e.retries);
    const retryAt = next ? new Date(realNow.getTime() + (next.getTime() - now.getTime())) : null;
    // one statement (one round trip, one commit, shared with the deliveries ending with it): the
    // attempt's outcome, the event's new state and the delivery job done (or due again) together
    await this.#finish.add({
      attemptId,
      outcome: { http_status: status, error, duration_ms: duration },
      eventId: e.id,
      set: { status: ok ? 'DELIVERED' : next ? 'PENDING' : 'FAILED', delivered_at: ok ? now : null, next_attempt_at: next },
      job,
      retryAt,
    });
    this.p.logger.info({ event: e.id, status, attempt: attempts, delivered: ok }, 'notification attempt');
    return { finished: retryAt ? 'retry' : 'done' };
  }

  /**
   * The request an event's notification makes now: its body (with `current_time` on the merchant's clock,
   * `offsetMs` ahead of the real one, and validation_hash) and headers (`Paygate-Signature` at `realNow`),
   * signed with the signature of the key that made it. The delivery job and the event stream send these.
   */
  async render(e: Pick<repo.EventRow, 'id' | 'payload' | 'key_id'>, offsetMs: number, realNow: Date): Promise<RenderedNotification> {
    const signature = e.key_id ? await this.merchants.keySignature(this.p.database.db, e.key_id) : null;
    const merchantNow = new Date(realNow.getTime() + offsetMs);
    return renderNotification(e, signature?.reveal() ?? '', formatContractDate(merchantNow, this.p.config.timezone), realNow);
  }

  // ---- API (decisions §9) --------------------------------------------------------------------------

  async list(ctx: RequestContext, q: { order_uuid?: string; status?: string; limit?: number; offset?: number }) {
    const limit = q.limit ?? 100;
    const offset = q.offset ?? 0;
    const { rows, count, capped } = await repo.listEvents(this.p.reads.db, ctx.merchant.id, { orderId: q.order_uuid, status: q.status, limit, offset });
    return {
      count,
      count_capped: capped,
      events: rows.map((e) => presentEvent(e, ctx.timezone)),
      next_offset: offset + rows.length < count || (capped && rows.length === limit) ? offset + rows.length : null,
    };
  }

  async get(ctx: RequestContext, id: string) {
    const db = this.p.database.db;
    const e = await repo.findEvent(db, id);
    if (!e || e.merchant_id !== ctx.merchant.id) throw notFound(`The event ${id} was not found`);
    return presentEvent(e, ctx.timezone, await repo.listAttempts(db, id));
  }

  /** Sends an event again now (one attempt; a running schedule goes on). */
  async resend(ctx: RequestContext, id: string) {
    await this.p.database.transaction(async (trx) => {
      const e = await repo.findEventForUpdate(trx, id);
      if (!e || e.merchant_id !== ctx.merchant.id) throw notFound(`The event ${id} was not found`);
      if (e.status === 'NOT_SENT') throw conflict(`The event ${id} is on the event log and the event stream only (NOT_SENT): it has no URL to send it to`);
      if (e.status === 'PENDING') {
        // move the scheduled attempt to now
        const moved = await trx
          .updateTable('jobs')
          .set({ run_at: this.p.clock.now() })
          .where('queue', '=', DELIVER_QUEUE)
          .where('dedupe_key', '=', `event:${id}`)
          .where('status', '=', 'pending')
          .executeTakeFirst();
        if (Number(moved.numUpdatedRows ?? 0) > 0) return;
      } else {
        await repo.updateEvent(trx, id, { status: 'PENDING', next_attempt_at: null });
      }
      await this.p.jobs.enqueue(trx, {
        queue: DELIVER_QUEUE,
        payload: { eventId: id, manual: true } satisfies DeliverPayload,
        merchantId: e.merchant_id,
        maxAttempts: 5,
        dedupeKey: `event:${id}`,
        runAt: this.p.clock.now(),
      });
    });
    this.p.jobs.poke();
    return this.get(ctx, id);
  }
}

/** Positions of `ids` in groups without a repeated id, in order: each repeat goes to a later group. */
function rounds(ids: string[]): number[][] {
  const out: number[][] = [];
  const seen: Array<Set<string>> = [];
  ids.forEach((id, i) => {
    let k = 0;
    while (seen[k]?.has(id)) k++;
    (seen[k] ??= new Set()).add(id);
    (out[k] ??= []).push(i);
  });
  return out;
}
