/**
 * The dashboard API routes of the payments list and an order: the search, the CSV export, an order in
 * full, its actions (the API's own services, audited), a notification sent again, and the live updates
 * of the list (Server-Sent Events).
 */
import { Readable } from 'node:stream';
import { currencyByNumber } from '../../../platform/money/currency.js';
import { responses } from '../../../platform/http/schemas.js';
import { PAYABLE, orderUrls, type OrderSearchRow } from '../../payments/index.js';
import type { DashFilters } from '../dashboard.core.js';
import * as S from '../dashboard.schemas.js';
import type { Area } from '../areas/kit.js';
import { caller } from './http.js';

function presentRow(r: OrderSearchRow) {
  let src: Record<string, unknown> | null = null;
  try {
    src = r.pay_source ? (JSON.parse(r.pay_source) as Record<string, unknown>) : null;
  } catch {
    src = null;
  }
  const last4 = src && typeof src.last4 === 'string' ? src.last4 : null;
  return {
    uuid: r.id,
    created_at: r.created_at.toISOString(),
    status: r.status,
    operative: r.operative,
    amount: Number(r.amount),
    currency: r.currency,
    refunded: Number(r.refunded),
    captured: Number(r.captured),
    reference: r.reference,
    customer: r.customer_ext_id,
    description: r.description,
    service_uuid: r.service_id,
    method: src && typeof src.object === 'string' ? src.object : null,
    card: last4 ? { bin: src!.bin === null || src!.bin === undefined ? null : String(src!.bin), last4, brand: typeof src!.brand === 'string' ? src!.brand : '' } : null,
  };
}

/**
 * One CSV line (RFC 4180): fields with a comma, quote or line break are quoted. A text that a spreadsheet
 * would run as a formula (=, +, -, @ first, unless it is a number) gets a leading apostrophe.
 */
export function csvLine(fields: string[]): string {
  return fields
    .map((f) => {
      const v = /^[=+\-@\t\r]/.test(f) && !/^[+-]?\d+(\.\d+)?$/.test(f) ? `'${f}` : f;
      return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
    })
    .join(',');
}

/** The columns of the CSV export: what a reconciliation needs, one line per order. */
export const CSV_COLUMNS = [
  'uuid', 'created_at', 'updated_at', 'status', 'operative', 'amount', 'currency', 'authorized', 'captured', 'refunded', 'paid', 'secure',
  'reference', 'customer', 'description', 'service_uuid', 'method', 'card_bin', 'card_last4', 'card_brand', 'authorization', 'processor_id',
  'last_payment_status', 'last_payment_error', 'transactions', 'disputed', 'dispute_lost', 'dispute_won',
  'last_payment_service_uuid', 'routing_rule',
] as const;

/** A dispute amount of an order for the CSV: empty when the order never had a dispute. */
const disputeCell = (v: number | string | null) => (v === null ? '' : String(Number(v)));

function csvRow(r: OrderSearchRow): string {
  const p = presentRow(r);
  return csvLine([
    r.id, r.created_at.toISOString(), r.updated_at.toISOString(), r.status, r.operative, String(Number(r.amount)), r.currency,
    String(Number(r.authorized)), String(Number(r.captured)), String(Number(r.refunded)), String(r.paid), String(r.secure),
    r.reference ?? '', r.customer_ext_id ?? '', r.description, r.service_id, p.method ?? '', p.card?.bin ?? '', p.card?.last4 ?? '', p.card?.brand ?? '',
    r.pay_auth_code ?? '', r.pay_processor_id ?? '', r.pay_status ?? '', r.pay_error ?? '', String(r.tx_count),
    disputeCell(r.dispute_disputed), disputeCell(r.dispute_lost), disputeCell(r.dispute_won),
    r.pay_service_id, r.pay_routing_rule ?? '',
  ]);
}

function filtersOf(q: Record<string, unknown>): DashFilters {
  const f: DashFilters = {};
  for (const k of ['status', 'operative'] as const) if (Array.isArray(q[k]) && (q[k] as string[]).length > 0) f[k] = q[k] as string[];
  for (const k of ['from', 'to', 'service', 'customer', 'email', 'reference', 'last4', 'method', 'q'] as const) if (typeof q[k] === 'string' && q[k] !== '') f[k] = q[k] as string;
  for (const k of ['amount_min', 'amount_max'] as const) if (typeof q[k] === 'number') f[k] = q[k] as number;
  return f;
}

export const area: Area = {
  routes({ app, service, done, dash, opts }) {
    app.get('/orders', {
      config: { dashboard: { permission: 'payments.read' } },
      schema: { querystring: S.OrdersQuery, response: responses(S.OrdersResponse) },
    }, async (req) => {
      const { limit, cursor, ...rest } = req.query;
      const r = await service.orders.listOrders(dash(req), filtersOf(rest), { limit: limit ?? 50, cursor });
      return done({ orders: r.rows.map(presentRow), next_cursor: r.next_cursor });
    });

    app.get('/orders/export.csv', {
      config: { dashboard: { permission: 'payments.read' } },
      schema: { querystring: S.OrdersQuery },
    }, async (req, reply) => {
      const { limit: _l, cursor: _c, ...rest } = req.query;
      const { pages } = await service.orders.eachOrder(dash(req), filtersOf(rest));
      // the first page is read before the answer starts, so a filter the search refuses is a 400
      const first = await pages.next();
      async function* lines() {
        yield `${csvLine([...CSV_COLUMNS])}\r\n`;
        if (first.done) return;
        yield first.value.map((r) => `${csvRow(r)}\r\n`).join('');
        for await (const page of pages) yield page.map((r) => `${csvRow(r)}\r\n`).join('');
      }
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="payments-${opts.now().toISOString().slice(0, 10)}.csv"`)
        .send(Readable.from(lines()));
    });

    app.get('/orders/:uuid', {
      config: { dashboard: { permission: 'payments.read' } },
      schema: { params: S.OrderParams, response: responses(S.OrderDetailResponse) },
    }, async (req) => {
      const s = dash(req);
      const r = await service.orders.order(s, req.params.uuid);
      const payable = (PAYABLE as readonly string[]).includes(r.order.status) && r.order.token;
      const requests = (await service.developers.requests(s, { orderId: r.order.uuid, limit: 50 })).map((x) => ({ uuid: x.id, method: x.method, path: x.path, status: x.status, request_id: x.request_id, created_at: x.created_at.toISOString() }));
      return done({
        order: r.order, currency: currencyByNumber(r.order.currency)?.code ?? r.order.currency, notifications: r.notifications, payment_url: payable ? orderUrls(opts.publicUrl, s.env, r.order.token!).payment_card : null, requests,
        description: r.description, expires_at: r.expires_at ? r.expires_at.toISOString() : null, metadata: r.metadata,
      });
    });

    app.post('/orders/:uuid/refund', {
      config: { dashboard: { permission: 'payments.refund' } },
      schema: { params: S.OrderParams, body: S.AmountBody, response: responses(S.OrderActionResponse) },
    }, async (req) => done({ order: (await service.orders.refund(dash(req), req.params.uuid, req.body.amount ?? null)).order }));

    app.post('/orders/:uuid/confirm', {
      config: { dashboard: { permission: 'payments.capture' } },
      schema: { params: S.OrderParams, body: S.AmountBody, response: responses(S.OrderActionResponse) },
    }, async (req) => done({ order: (await service.orders.confirm(dash(req), req.params.uuid, req.body.amount ?? null)).order }));

    app.post('/orders/:uuid/cancel', {
      config: { dashboard: { permission: 'payments.capture' } },
      schema: { params: S.OrderParams, response: responses(S.OrderActionResponse) },
    }, async (req) => done({ order: (await service.orders.cancel(dash(req), req.params.uuid)).order }));

    app.post('/orders/:uuid/expire', {
      config: { dashboard: { permission: 'payments.expire' } },
      schema: { params: S.OrderParams, response: responses(S.OrderActionResponse) },
    }, async (req) => done({ order: (await service.orders.expire(dash(req), req.params.uuid)).order }));

    app.put('/transactions/:uuid/metadata', {
      config: { dashboard: { permission: 'payments.metadata' } },
      schema: { params: S.OrderParams, body: S.MetadataBody, response: responses(S.MetadataResponse) },
    }, async (req) => done(await service.orders.metadata(dash(req), req.params.uuid, req.body.metadata)));

    app.post('/notifications/:uuid/resend', {
      config: { dashboard: { permission: 'notifications.resend' } },
      schema: { params: S.OrderParams, response: responses(S.NotificationResponse) },
    }, async (req) => done({ notification: await service.orders.resendNotification(dash(req), req.params.uuid) }));

    app.get('/live', {
      config: { dashboard: { permission: 'payments.read', passive: true }, stream: true },
      exposeHeadRoute: false,
      schema: {},
    }, async (req, reply) => {
      const body = await service.orders.live(dash(req), req.dashToken!, caller(req), opts.livePollMs);
      return reply
        .header('Content-Type', 'text/event-stream; charset=utf-8')
        .header('Cache-Control', 'no-store')
        .header('X-Accel-Buffering', 'no')
        .header('Connection', 'close')
        .send(body as never);
    });
  },
  docs: {
    'GET /orders': { operationId: 'listOrders', tag: 'payments', summary: 'List orders', description: 'The orders of the merchant looked at, newest first, by filters and search, paged by `next_cursor`.' },
    'GET /orders/export.csv': { operationId: 'exportOrders', tag: 'payments', summary: 'Export orders as CSV', description: 'Every order the filters find, one line each, streamed (text/csv).' },
    'GET /orders/:uuid': { operationId: 'getOrderDetail', tag: 'payments', summary: 'An order in full', description: 'The order (as C2 presents it), its currency, description, expiry and transactions\' metadata, its notifications with every attempt, its payment link while it can be paid, and the API requests that touched it.' },
    'POST /orders/:uuid/refund': { operationId: 'refundOrder', tag: 'payments', summary: 'Refund (B12)', description: 'Full (no amount) or partial refund: the API\'s own operation, with its rules and notification. Audited.' },
    'POST /orders/:uuid/confirm': { operationId: 'confirmOrder', tag: 'payments', summary: 'Confirm a DEFERRED order (B9)', description: 'Captures the held amount, or part of it. Audited.' },
    'POST /orders/:uuid/cancel': { operationId: 'cancelOrder', tag: 'payments', summary: 'Cancel a DEFERRED order (B8)', description: 'Releases the held amount. Audited.' },
    'POST /orders/:uuid/expire': { operationId: 'expireOrderFromDashboard', tag: 'payments', summary: 'Expire an order (C1)', description: 'The payment link stops working. Audited.' },
    'PUT /transactions/:uuid/metadata': { operationId: 'setTransactionMetadata', tag: 'payments', summary: 'Metadata of a transaction (C4)', description: 'Replaces the key-value metadata of a transaction (at most 20 pairs). Audited.' },
    'POST /notifications/:uuid/resend': { operationId: 'resendNotification', tag: 'payments', summary: 'Resend a notification', description: 'Sends a notification to url_post again now. Audited.' },
    'GET /live': { operationId: 'livePayments', tag: 'payments', summary: 'Live updates of the payments list', description: 'Server-Sent Events: `ready`, then `change` whenever the merchant\'s payments changed; the page reads the list again. The stream is no use of the session: an open page alone lets it idle out.' },
  },
  tag: { name: 'payments', description: 'The payments list, an order, and the actions on it' },
};
