/**
 * The payments list and an order for the staff: the search (with the customer's e-mail), the CSV export,
 * an order in full, the actions on it (each the API's own service, audited), the bridge to the merchant
 * API, the live updates of the list, and the user's saved views.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { sql } from 'kysely';
import { ApiError, badRequest, forbidden, notFound } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import { issueTicket } from '../../platform/http/internal-call.js';
import type { OrderFilters } from '../payments/index.js';
import { externalIdsByEmail } from '../customers/index.js';
import { API_OPERATIONS } from './dashboard.domain.js';
import type { Caller, DashboardCore, DashFilters, DashSession } from './dashboard.core.js';
import type { DashboardSessions } from './dashboard.sessions.js';
import * as repo from './dashboard.repo.js';

export class DashboardOrders {
  constructor(private readonly c: DashboardCore, private readonly sessions: DashboardSessions) {}

  private get p() {
    return this.c.p;
  }

  private get deps() {
    return this.c.deps;
  }

  get #db() {
    return this.c.db;
  }

  async #filters(s: DashSession, f: DashFilters): Promise<OrderFilters> {
    const { email, ...rest } = f;
    if (!email) return rest;
    return { ...rest, customers_in: await externalIdsByEmail(this.#db, s.merchantId, email) };
  }

  async listOrders(s: DashSession, f: DashFilters, page: { limit: number; cursor?: string }) {
    const ctx = await this.c.ctx(s);
    return { ctx, ...(await this.deps.payments.searchOrders(ctx, await this.#filters(s, f), page)) };
  }

  async eachOrder(s: DashSession, f: DashFilters) {
    const ctx = await this.c.ctx(s);
    await this.c.writeAudit(s.user, s.merchantId, 'payments.export', null, { filters: f }, s.ip);
    return { ctx, pages: this.deps.payments.eachOrder(ctx, await this.#filters(s, f)) };
  }

  async order(s: DashSession, orderId: string) {
    const ctx = await this.c.ctx(s);
    const r = await this.deps.payments.getOrder(ctx, orderId);
    const events = await this.deps.events.list(ctx, { order_uuid: r.order.uuid, limit: 50 });
    const notifications = [];
    for (const e of events.events) notifications.push(await this.deps.events.get(ctx, e.uuid));
    // what the API's presentation of an order has no place for: its description, expiry, metadata
    const extras = await repo.orderExtras(this.#db, ctx.merchant.id, r.order.uuid);
    return { ctx, order: r.order, notifications, description: extras.order?.description ?? '', expires_at: extras.order?.expires_at ?? null, metadata: extras.metadata };
  }

  /** An action on an order: the API's service, audited whatever its outcome. */
  async act<T>(s: DashSession, action: string, target: string, details: Record<string, unknown> | null, run: (ctx: RequestContext) => Promise<T>): Promise<T> {
    const ctx = await this.c.ctx(s);
    try {
      const out = await run(ctx);
      await this.c.writeAudit(s.user, s.merchantId, action, target, details, s.ip);
      return out;
    } catch (err) {
      if (err instanceof ApiError) await this.c.writeAudit(s.user, s.merchantId, `${action}.refused`, target, { ...(details ?? {}), status: err.status, details: err.details }, s.ip);
      throw err;
    }
  }

  refund(s: DashSession, orderId: string, amount: number | null) {
    return this.act(s, 'order.refund', orderId, { amount }, (ctx) => this.deps.payments.refund(ctx, { order_uuid: orderId, amount }));
  }

  confirm(s: DashSession, orderId: string, amount: number | null) {
    return this.act(s, 'order.confirm', orderId, { amount }, (ctx) => this.deps.payments.confirm(ctx, { order_uuid: orderId, amount }));
  }

  cancel(s: DashSession, orderId: string) {
    return this.act(s, 'order.cancel', orderId, null, (ctx) => this.deps.payments.cancel(ctx, { order_uuid: orderId }));
  }

  expire(s: DashSession, orderId: string) {
    return this.act(s, 'order.expire', orderId, null, (ctx) => this.deps.payments.expireOrder(ctx, orderId));
  }

  metadata(s: DashSession, txId: string, metadata: Record<string, string>) {
    return this.act(s, 'transaction.metadata', txId, { keys: Object.keys(metadata) }, (ctx) => this.deps.payments.attachMetadata(ctx, txId, metadata));
  }

  /**
   * A call of the merchant API for the user (the bridge): `send` makes the request with the ticket it is
   * given, through the very route a key reaches. The ticket lets the route's operation run only when
   * API_OPERATIONS allows it to the user's group. A change is audited with its outcome.
   */
  async callApi<R extends { statusCode: number; body: string }>(s: DashSession, method: string, path: string, send: (ticket: string, signature: string) => Promise<R>): Promise<{ res: R; operationId: string | null }> {
    const ctx = await this.c.ctx(s);
    let operationId: string | null = null;
    const ticket = issueTicket({
      ctx,
      authorize: (op) => {
        const permission = op ? API_OPERATIONS[op] : undefined;
        if (!op || !permission) throw forbidden(`${op ?? 'This operation'} is not available from the dashboard`);
        operationId = op;
        this.c.authorize(s, permission);
      },
    });
    const res = await send(ticket, ctx.signature().reveal());
    if (operationId && method !== 'GET') {
      let details: unknown = null;
      if (res.statusCode >= 400) {
        try {
          details = (JSON.parse(res.body) as { details?: unknown }).details ?? null;
        } catch {
          details = null;
        }
      }
      const action = `api.${operationId}${res.statusCode >= 400 ? '.refused' : ''}`;
      await this.c.writeAudit(s.user, s.merchantId, action, `${method} ${path}`, { status: res.statusCode, ...(details ? { details } : {}) }, s.ip);
    }
    return { res, operationId };
  }

  resendNotification(s: DashSession, eventId: string) {
    return this.act(s, 'notification.resend', eventId, null, (ctx) => this.deps.events.resend(ctx, eventId));
  }

  /**
   * Live updates of the payments list, as Server-Sent Events: `change` whenever the merchant's event
   * stream (the API's `GET /events/stream` machinery: woken by the database when a notification is
   * made) has something, or a new order appeared (looked for every `pollMs`). Only the word `change`
   * goes out: the page reads the list again through its own route and role. The stream ends with the
   * session.
   */
  async live(s: DashSession, token: string, caller: Caller, pollMs: number): Promise<PassThrough> {
    const ctx = await this.c.ctx(s);
    const out = new PassThrough();
    let closed = false;
    let upstream: PassThrough | null = null;
    let last = await this.#newestOrder(s.merchantId);
    const send = (event: string) => {
      if (!closed) out.write(`event: ${event}\ndata: {}\n\n`);
    };
    const stop = () => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      upstream?.destroy();
      out.end();
    };
    try {
      upstream = await this.deps.events.streams.openStream(ctx, {});
      upstream.on('data', (chunk: Buffer) => {
        // anything but the stream's own `ready` message and keep-alive comments is a notification
        if (/^event: (?!ready)/m.test(chunk.toString('utf8'))) send('change');
      });
      upstream.on('error', () => undefined);
      // the gateway is closing its streams: this one ends too (the page reconnects)
      upstream.on('close', stop);
    } catch {
      // too many streams open for this merchant: new orders are still found by polling
      upstream = null;
    }
    const timer = setInterval(async () => {
      try {
        // a check, not a use: an open page alone never keeps the session from idling out
        await this.sessions.resolve(token, caller, { use: false });
        const newest = await this.#newestOrder(s.merchantId);
        if (newest !== last) {
          last = newest;
          send('change');
        } else if (!closed) out.write(': keep-alive\n\n');
      } catch {
        stop();
      }
    }, pollMs);
    timer.unref();
    out.on('close', stop);
    out.write('retry: 3000\n');
    send('ready');
    return out;
  }

  async #newestOrder(merchantId: string): Promise<string> {
    const { rows } = await sql<{ at: Date | null }>`select max(created_at) as at from orders where merchant_id = ${merchantId}`.execute(this.#db);
    return rows[0]?.at ? new Date(rows[0].at).toISOString() : '';
  }

  // ---- saved views ----------------------------------------------------------------------------------------

  listViews(s: DashSession) {
    return repo.listViews(this.#db, s.user.id);
  }

  async saveView(s: DashSession, name: string, filters: DashFilters) {
    if ((await repo.countViews(this.#db, s.user.id)) >= 50) throw badRequest('At most 50 saved views per user');
    return repo.upsertView(this.#db, { id: randomUUID(), user_id: s.user.id, name, filters, created_at: this.p.clock.now() });
  }

  async deleteView(s: DashSession, id: string) {
    if (!(await repo.deleteView(this.#db, s.user.id, id))) throw notFound(`The view ${id} was not found`);
  }
}
