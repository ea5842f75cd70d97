/**
 * The event stream (`GET /events/stream`, used by `paygate listen`): a merchant's notifications as they
 * are made, as Server-Sent Events, each with the exact body and headers its delivery sends.
 *
 * Events are rows, so a stream reads them from the database after its cursor (events.repo.ts
 * `eventsAfter`): any process may have written them, and a client that reconnects with the last id it
 * received (`Last-Event-ID`, or `after`) misses nothing and gets nothing twice. A stream looks when it is
 * woken (a trigger NOTIFYs `paygate_events` with the merchant at commit, on PostgreSQL and on the
 * embedded database alike; one listening connection per process serves every stream) and, as a safety
 * net, every `PAYGATE_EVENTS_STREAM_POLL_MS`. An idle stream costs one indexed query per poll and a
 * comment line every 15 seconds that keeps proxies from closing it.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { sql } from 'kysely';
import type { Env } from '../../platform/db/schema.js';
import { badRequest, tooManyRequests } from '../../platform/errors/errors.js';
import { toWireJson } from '../../platform/http/json.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import { formatCursor, parseCursor, parseTypes, presentStreamedEvent, sseMessage, type StreamCursor } from './events.domain.js';
import * as repo from './events.repo.js';
import type { EventsService } from './events.service.js';
import type { MerchantsService } from '../merchants/index.js';

export const EVENTS_CHANNEL = 'paygate_events';
/** A comment line this often keeps idle connections open through proxies. */
const HEARTBEAT_MS = 15_000;
/** Events read per query. */
const PAGE = 100;
/** What a client waits before reconnecting (the `retry` field). */
const RETRY_MS = 2_000;
/** A process's registration as a listener for a merchant lapses this long after its last renewal. */
const LISTENER_TTL_S = 60;

export interface StreamRequest {
  /** `Last-Event-ID` header. */
  lastEventId?: string;
  /** `after` query parameter (wins over the header). */
  after?: string;
  /** `types` query parameter: comma-separated event types. */
  types?: string;
}

interface Stream {
  merchantId: string;
  /** The key the stream was opened with: revoked, the stream ends. */
  keyId: string;
  env: Env;
  out: PassThrough;
  cursor: StreamCursor;
  /**
   * Opened without a cursor: the snapshot taken then. The cursor starts at its oldest running
   * transaction, and the events of transactions visible in it (committed before the stream opened) are
   * not sent: the stream starts now.
   */
  opened: string | null;
  types: string[];
  busy: boolean;
  again: boolean;
  closed: boolean;
  /** A quick look again while events of running transactions are not final yet. */
  recheck: NodeJS.Timeout | null;
  recheckMs: number;
  timers: NodeJS.Timeout[];
}

export class EventStreams {
  readonly #byMerchant = new Map<string, Set<Stream>>();
  #listening: Promise<(() => Promise<void>) | null> | null = null;
  #stopped = false;
  /** This process in event_stream_listeners. */
  readonly #listenerId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  #renewal: NodeJS.Timeout | null = null;

  constructor(
    private readonly p: Platform,
    private readonly events: EventsService,
    private readonly merchants: MerchantsService,
  ) {}

  /** Open streams now (all merchants). */
  get open(): number {
    let n = 0;
    for (const set of this.#byMerchant.values()) n += set.size;
    return n;
  }

  /**
   * Opens a stream for the caller's merchant and environment: validates the request (400, 429), then
   * returns the body to send. It starts with a `ready` event whose id is the cursor the stream starts
   * from, so a client that reconnects before any event came loses nothing either.
   */
  async openStream(ctx: RequestContext, req: StreamRequest): Promise<PassThrough> {
    const given = req.after ?? req.lastEventId;
    let cursor: StreamCursor | null = null;
    if (given !== undefined && given !== '') {
      cursor = parseCursor(given);
      if (!cursor) {
        throw badRequest(`${req.after !== undefined ? 'after' : 'Last-Event-ID'} must be the id of an event of this stream (TXID-SEQ, e.g. 7421-118), got "${given.slice(0, 40)}"`, {
          errors: [{ field: req.after !== undefined ? 'after' : 'Last-Event-ID', problem: 'must be an event id of the stream (TXID-SEQ)' }],
        });
      }
    }
    this.#admit(ctx.merchant.id);
    let opened: string | null = null;
    if (!cursor) {
      const head = await repo.streamHead(this.p.database.db);
      cursor = { txid: head.txid, seq: head.seq };
      opened = head.snapshot;
    }
    await this.#listen();
    // again after the waits: streams opened meanwhile count, and a gateway closing meanwhile adds none
    this.#admit(ctx.merchant.id);

    const out = new PassThrough();
    const s: Stream = {
      merchantId: ctx.merchant.id,
      keyId: ctx.keyId,
      env: ctx.env,
      out,
      cursor,
      opened,
      types: parseTypes(req.types),
      busy: false,
      again: false,
      closed: false,
      recheck: null,
      recheckMs: 25,
      timers: [],
    };
    // the merchant's first stream in this process: from now on its events wake this process
    if (this.#add(s)) await this.#register([s.merchantId]);
    out.on('close', () => this.#remove(s));
    out.on('error', () => this.#remove(s));
    const heartbeat = setInterval(() => void this.#heartbeat(s), HEARTBEAT_MS);
    const poll = setInterval(() => void this.#pump(s), this.p.config.eventStreamPollMs);
    heartbeat.unref();
    poll.unref();
    s.timers.push(heartbeat, poll);
    this.#write(
      s,
      sseMessage({
        retryMs: RETRY_MS,
        id: formatCursor(cursor),
        event: 'ready',
        data: toWireJson({ client_uuid: ctx.merchant.id, env: ctx.env, cursor: formatCursor(cursor), types: s.types }),
      }),
    );
    void this.#pump(s);
    return out;
  }

  /** Ends every stream (the gateway is closing) and stops listening. Clients reconnect elsewhere or later. */
  async closeAll(): Promise<void> {
    this.#stopped = true;
    for (const set of [...this.#byMerchant.values()]) for (const s of [...set]) this.#end(s);
    if (this.#renewal) clearInterval(this.#renewal);
    this.#renewal = null;
    await sql`delete from event_stream_listeners where listener = ${this.#listenerId}`.execute(this.p.database.db).catch(() => {});
    const stop = await this.#listening?.catch(() => null);
    this.#listening = null;
    await stop?.().catch(() => {});
  }

  /** Wakes the streams of a merchant (null: every stream, after a lost notification connection). */
  wake(merchantId: string | null): void {
    if (merchantId === null) {
      for (const set of this.#byMerchant.values()) for (const s of set) void this.#pump(s);
      return;
    }
    for (const s of this.#byMerchant.get(merchantId) ?? []) void this.#pump(s);
  }

  // ---- internals ----------------------------------------------------------------------------------------

  /** Throws 429 when the gateway is closing or the merchant has its most streams open in this process. */
  #admit(merchantId: string): void {
    if (this.#stopped) throw tooManyRequests('The gateway is shutting down; reconnect in a moment', 2);
    const limit = this.p.config.eventStreamsPerMerchant;
    if ((this.#byMerchant.get(merchantId)?.size ?? 0) >= limit) {
      throw tooManyRequests(`This merchant already has ${limit} event streams open (PAYGATE_EVENTS_STREAMS_PER_MERCHANT); close one or retry later`, 5);
    }
  }

  /** One listening connection per process, opened with the first stream. */
  async #listen(): Promise<void> {
    const db = this.p.database;
    if (!db.listen) return;
    this.#listening ??= db
      .listen(EVENTS_CHANNEL, (payload) => this.wake(payload === null || payload === '' ? null : payload))
      .catch((err) => {
        // streams still poll; the next stream tries again
        this.p.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'event stream: cannot listen for new events; polling only');
        this.#listening = null;
        return null;
      });
    await this.#listening;
  }

  /**
   * Registers this process as listening for `merchantIds` (the events trigger NOTIFYs only for merchants
   * someone listens for), and keeps renewing the registrations while streams are open; expired rows of
   * any process are removed on the way. A failure is only logged: the streams still poll.
   */
  async #register(merchantIds: string[]): Promise<void> {
    if (merchantIds.length === 0) return;
    try {
      await sql`delete from event_stream_listeners where expires_at < now()`.execute(this.p.database.db);
      await sql`insert into event_stream_listeners (merchant_id, listener, expires_at)
        select m, ${this.#listenerId}, now() + make_interval(secs => ${LISTENER_TTL_S}) from unnest(${merchantIds}::uuid[]) as m
        on conflict (merchant_id, listener) do update set expires_at = excluded.expires_at`.execute(this.p.database.db);
    } catch (err) {
      this.p.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'event stream: cannot register for new events; polling only');
    }
    if (!this.#renewal && !this.#stopped) {
      this.#renewal = setInterval(() => void this.#register([...this.#byMerchant.keys()]), (LISTENER_TTL_S * 1000) / 3);
      this.#renewal.unref();
    }
  }

  /** Adds a stream; true when it is its merchant's first here. */
  #add(s: Stream): boolean {
    let set = this.#byMerchant.get(s.merchantId);
    const first = !set;
    if (!set) this.#byMerchant.set(s.merchantId, (set = new Set()));
    set.add(s);
    return first;
  }

  #remove(s: Stream): void {
    if (s.closed) return;
    s.closed = true;
    for (const t of s.timers) clearInterval(t);
    if (s.recheck) clearTimeout(s.recheck);
    const set = this.#byMerchant.get(s.merchantId);
    set?.delete(s);
    if (set && set.size === 0) {
      this.#byMerchant.delete(s.merchantId);
      // the merchant's last stream here: no more wake-ups for it (a stream opening meanwhile registers
      // again; the renewal puts back any merchant that still has streams)
      void sql`delete from event_stream_listeners where merchant_id = ${s.merchantId} and listener = ${this.#listenerId}`
        .execute(this.p.database.db)
        .catch(() => {});
    }
    if (this.#byMerchant.size === 0 && this.#renewal) {
      clearInterval(this.#renewal);
      this.#renewal = null;
    }
  }

  #end(s: Stream): void {
    this.#remove(s);
    s.out.end();
  }

  async #heartbeat(s: Stream): Promise<void> {
    if (!(await this.#keyStillValid(s))) return;
    this.#write(s, ': keep-alive\n\n');
  }

  /** A revoked key's stream ends (its client's reconnection is then refused with 401). */
  async #keyStillValid(s: Stream): Promise<boolean> {
    let active = true;
    try {
      active = await this.merchants.keyActive(this.p.database.db, s.keyId);
    } catch {
      return true; // the database is away: the next look decides
    }
    if (!active) {
      this.#write(s, ': the API key was revoked\n\n');
      this.#end(s);
    }
    return active;
  }

  /** Writes to the client; false when the stream is gone or its buffer is full. */
  #write(s: Stream, text: string): boolean {
    if (s.closed || s.out.destroyed || s.out.writableEnded) return false;
    return s.out.write(text);
  }

  /** Sends every final event after the stream's cursor; runs once at a time per stream. */
  async #pump(s: Stream): Promise<void> {
    if (s.closed) return;
    if (s.busy) {
      s.again = true;
      return;
    }
    s.busy = true;
    try {
      do {
        s.again = false;
        await this.#sendReady(s);
      } while (s.again && !s.closed);
    } catch (err) {
      // the database is away: the stream stays open and the next wake or poll tries again
      this.p.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'event stream: reading events failed');
    } finally {
      s.busy = false;
    }
  }

  async #sendReady(s: Stream): Promise<void> {
    for (;;) {
      if (s.closed) return;
      const rows = await repo.eventsAfter(this.p.database.db, s.merchantId, s.env, s.cursor, PAGE, s.opened);
      if (rows.some((r) => r.ready) && !(await this.#keyStillValid(s))) return;
      let sent = 0;
      let pending = false;
      for (const row of rows) {
        if (!row.ready) {
          pending = true;
          break;
        }
        if (s.types.length === 0 || s.types.includes(row.type)) {
          const rendered = await this.events.render(row, Number(row.m_offset), this.p.clock.now());
          const id = formatCursor({ txid: row.txid, seq: row.seq });
          const full = !this.#write(s, sseMessage({ id, event: row.type, data: toWireJson(presentStreamedEvent(row, this.p.config.timezone, rendered)) }));
          if (full) await this.#drained(s);
        }
        s.cursor = { txid: row.txid, seq: row.seq };
        sent++;
      }
      if (pending) {
        // events of transactions that are still running or that an older running transaction may
        // precede: look again shortly (backing off up to a second), without skipping past them
        this.#scheduleRecheck(s);
        return;
      }
      s.recheckMs = 25;
      if (sent < PAGE) return;
    }
  }

  #scheduleRecheck(s: Stream): void {
    if (s.recheck || s.closed) return;
    const delay = s.recheckMs;
    s.recheckMs = Math.min(1000, s.recheckMs * 2);
    s.recheck = setTimeout(() => {
      s.recheck = null;
      void this.#pump(s);
    }, delay);
    s.recheck.unref();
  }

  /** Waits until the client has read what was written (or has gone). */
  #drained(s: Stream): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        s.out.off('drain', done);
        s.out.off('close', done);
        resolve();
      };
      s.out.once('drain', done);
      s.out.once('close', done);
    });
  }
}
