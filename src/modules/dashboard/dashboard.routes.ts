/**
 * HTTP of the dashboard's JSON API, under /dashboard/api. Every route names what it needs in
 * `config.dashboard`: `public` (the sign-in), the sign-in `stages` it serves (ACTIVE by default) and the
 * `permission` of the role table the user's group must hold. One hook checks all of it on every request,
 * with the session cookie and, on every change, the CSRF token. Thin routes: one service call each.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import cookie from '@fastify/cookie';
import { badRequest, forbidden, notFound } from '../../platform/errors/errors.js';
import { okEnvelope } from '../../platform/http/envelope.js';
import { refuseCardNumbers } from '../../platform/http/pan-guard.js';
import { refuseNul } from '../../platform/http/nul-guard.js';
import { redactCardNumbersInUrl } from '../../platform/logging.js';
import { currencyByNumber } from '../../platform/money/currency.js';
import { plainHttpAllowed } from '../../platform/http/platform.js';
import { INTERNAL_TICKET_HEADER } from '../../platform/http/internal-call.js';
import { responses } from '../../platform/http/schemas.js';
import { PAYABLE, orderUrls, type OrderSearchRow } from '../payments/index.js';
import type { Permission, Stage } from './dashboard.domain.js';
import type { DashFilters, DashSession, DashboardService } from './dashboard.service.js';
import * as S from './dashboard.schemas.js';
import { AREAS } from './areas/index.js';

export interface DashboardRoute {
  /** no session needed (the sign-in) */
  public?: boolean;
  /** the sign-in stages the route serves (default: ACTIVE only) */
  stages?: Stage[];
  /** what the user's group must be allowed (ROLES); none: any signed-in user */
  permission?: Permission;
  /** the bridge to the merchant API: the permission is the called operation's (API_OPERATIONS) */
  bridge?: boolean;
  /**
   * a request of the route is never a person's use of the session (the live stream, opened and
   * reopened by the page itself): it does not keep the session from idling out
   */
  passive?: boolean;
}

/**
 * The header the web app puts on the requests no person asked for (a page's own refresh, the list read
 * again after a live change): like a passive route's, they do not keep the session from idling out.
 */
export const BACKGROUND_HEADER = 'x-dashboard-background';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on every route of the dashboard's JSON API. */
    dashboard?: DashboardRoute;
  }
  interface FastifyRequest {
    dash: DashSession | null;
    dashToken: string | null;
  }
}

export const DASHBOARD_API_PREFIX = '/dashboard/api';
const COOKIE = 'paygate_dashboard';
const SECURE_COOKIE = '__Host-paygate_dashboard';
const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface DashboardRouteInfo {
  method: string;
  url: string;
  hasBody: boolean;
  dashboard: DashboardRoute;
  csv?: boolean;
  stream?: boolean;
  /** the route's schemas (its OpenAPI operation is built from them) */
  schema: { body?: unknown; querystring?: unknown; params?: unknown; response?: Record<string, unknown> };
}
const registered = new WeakMap<object, DashboardRouteInfo[]>();

/** Every route of the dashboard API registered on an app (tests walk them: roles, fuzz, schemas). */
export function listDashboardRoutes(app: FastifyInstance): DashboardRouteInfo[] {
  return registered.get(app) ?? [];
}

function tokenOf(req: FastifyRequest): string | undefined {
  return req.cookies?.[SECURE_COOKIE] ?? req.cookies?.[COOKIE];
}

/** The session cookie: HttpOnly, SameSite=Strict, Secure over HTTPS (`__Host-` then), scoped to /dashboard. */
function setSessionCookie(req: FastifyRequest, reply: FastifyReply, token: string | null) {
  const secure = req.protocol === 'https';
  const name = secure ? SECURE_COOKIE : COOKIE;
  // __Host- cookies must have Path=/ (and no Domain); the plain one is kept to /dashboard
  const base = { httpOnly: true, sameSite: 'strict' as const, secure, path: secure ? '/' : '/dashboard' };
  if (token === null) {
    reply.clearCookie(name, base);
    return;
  }
  reply.setCookie(name, token, base);
}

function caller(req: FastifyRequest) {
  const ua = req.headers['user-agent'];
  return { ip: req.ip ?? null, userAgent: typeof ua === 'string' ? ua : null };
}

function dash(req: FastifyRequest): DashSession {
  if (!req.dash) throw new Error('dashboard route without a session');
  return req.dash;
}

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
  'last_payment_status', 'last_payment_error', 'transactions',
] as const;

function csvRow(r: OrderSearchRow): string {
  const p = presentRow(r);
  return csvLine([
    r.id, r.created_at.toISOString(), r.updated_at.toISOString(), r.status, r.operative, String(Number(r.amount)), r.currency,
    String(Number(r.authorized)), String(Number(r.captured)), String(Number(r.refunded)), String(r.paid), String(r.secure),
    r.reference ?? '', r.customer_ext_id ?? '', r.description, r.service_id, p.method ?? '', p.card?.bin ?? '', p.card?.last4 ?? '', p.card?.brand ?? '',
    r.pay_auth_code ?? '', r.pay_processor_id ?? '', r.pay_status ?? '', r.pay_error ?? '', String(r.tx_count),
  ]);
}

function filtersOf(q: Record<string, unknown>): DashFilters {
  const f: DashFilters = {};
  for (const k of ['status', 'operative'] as const) if (Array.isArray(q[k]) && (q[k] as string[]).length > 0) f[k] = q[k] as string[];
  for (const k of ['from', 'to', 'service', 'customer', 'email', 'reference', 'last4', 'method', 'q'] as const) if (typeof q[k] === 'string' && q[k] !== '') f[k] = q[k] as string;
  for (const k of ['amount_min', 'amount_max'] as const) if (typeof q[k] === 'number') f[k] = q[k] as number;
  return f;
}

export interface DashboardRouteOptions {
  timezone: string;
  publicUrl: string;
  sandboxHttpAnyAddress: boolean;
  now: () => Date;
  /** how often the live stream looks for new orders and checks the session, in ms */
  livePollMs: number;
  /** days the API request log is kept */
  requestLogDays: number;
}

/** Registers the dashboard's JSON API under /dashboard/api on `app`. */
export async function installDashboardApi(app: FastifyInstance, service: DashboardService, opts: DashboardRouteOptions): Promise<void> {
  const list: DashboardRouteInfo[] = [];
  registered.set(app, list);
  await app.register(dashboardRoutes(service, opts, list), { prefix: DASHBOARD_API_PREFIX });
}

function dashboardRoutes(service: DashboardService, opts: DashboardRouteOptions, list: DashboardRouteInfo[]) {
  const time = () => ({ now: opts.now(), timezone: opts.timezone });
  const done = <T extends Record<string, unknown>>(fields: T) => okEnvelope(time(), fields);

  return async (scope: FastifyInstance) => {
    await scope.register(cookie);
    scope.decorateRequest('dash', null);
    scope.decorateRequest('dashToken', null);
    scope.addHook('onRoute', (route) => {
      const d = route.config?.dashboard;
      if (!d) throw new Error(`dashboard route ${route.method} ${route.url} must declare config.dashboard`);
      for (const method of [route.method].flat()) {
        if (method === 'HEAD') continue;
        list.push({ method, url: route.url, hasBody: !!(route.schema as { body?: unknown } | undefined)?.body, dashboard: d, ...(route.url.endsWith('.csv') ? { csv: true } : {}), ...(route.config?.stream ? { stream: true } : {}), schema: (route.schema ?? {}) as DashboardRouteInfo['schema'] });
      }
    });

    // HTTPS outside loopback, the session, the stage, the role, and the CSRF token of every change
    scope.addHook('onRequest', async (req, reply) => {
      reply.header('Cache-Control', 'no-store');
      if (req.protocol !== 'https' && !plainHttpAllowed('sandbox', req.socket?.localAddress, opts.sandboxHttpAnyAddress)) {
        throw forbidden('HTTPS is required');
      }
      const d = req.routeOptions.config?.dashboard;
      if (!d) return;
      if (WRITE.has(req.method)) {
        // a change from another site: refused whatever it carries (SameSite cookies and the CSRF token too)
        const origin = req.headers.origin;
        if (origin && origin !== 'null') {
          let host = '';
          try {
            host = new URL(origin).host;
          } catch {
            host = '';
          }
          if (host !== req.host) throw forbidden('Changes to the dashboard are accepted from the dashboard\'s own pages only');
        } else if (origin === 'null') {
          throw forbidden('Changes to the dashboard are accepted from the dashboard\'s own pages only');
        }
      }
      if (d.public) return;
      const token = tokenOf(req);
      const s = await service.sessions.resolve(token, caller(req), { use: !d.passive && req.headers[BACKGROUND_HEADER] === undefined });
      const stages = d.stages ?? ['ACTIVE'];
      if (!stages.includes(s.session.stage)) {
        throw forbidden(s.session.stage === 'PASSWORD_CHANGE' ? 'Change your password first' : s.session.stage === 'TOTP' ? 'Enter the code of your authenticator app first' : 'Not available once signed in');
      }
      if (WRITE.has(req.method)) {
        const given = req.headers['x-csrf-token'];
        service.checkCsrf(token!, Array.isArray(given) ? given[0] : given);
      }
      if (d.permission) service.authorize(s, d.permission);
      req.dash = s;
      req.dashToken = token!;
    });

    // a card number never reaches the dashboard's tables: any string of a change that carries one is 400
    // (the API's guard, over every field: names, metadata, saved filters, passwords; the dashboard has no
    // card fields). A search by a card number is read (it finds nothing) and kept out of the logs.
    scope.addHook('preValidation', async (req) => {
      // PostgreSQL text cannot hold U+0000: a search or an id carrying one is 400 naming it, as on the API
      refuseNul(req);
      if (!WRITE.has(req.method)) return;
      refuseCardNumbers(req, { query: false, cardFields: false });
    });

    const app = scope.withTypeProvider<TypeBoxTypeProvider>();
    const ANY_STAGE: Stage[] = ['PASSWORD_CHANGE', 'TOTP', 'ACTIVE'];

    // ---- sessions ------------------------------------------------------------------------------------

    app.post('/session', {
      config: { dashboard: { public: true } },
      schema: { body: S.SignInBody, response: responses(S.SessionResponse) },
    }, async (req, reply) => {
      const c = caller(req);
      const { token } = await service.sessions.signIn(req.body, c);
      setSessionCookie(req, reply, token);
      const s = await service.sessions.resolve(token, c);
      return done(await service.sessions.me(s, token));
    });

    app.get('/session', {
      config: { dashboard: { stages: ANY_STAGE } },
      schema: { response: responses(S.SessionResponse) },
    }, async (req) => done(await service.sessions.me(dash(req), req.dashToken!)));

    app.delete('/session', {
      config: { dashboard: { stages: ANY_STAGE } },
      schema: { response: responses(S.EmptyResponse) },
    }, async (req, reply) => {
      await service.sessions.signOut(dash(req));
      setSessionCookie(req, reply, null);
      return done({});
    });

    app.post('/session/everywhere', {
      config: { dashboard: {} },
      schema: { response: responses(S.SignedOutResponse) },
    }, async (req, reply) => {
      const n = await service.sessions.signOutEverywhere(dash(req));
      setSessionCookie(req, reply, null);
      return done({ sessions_ended: n });
    });

    app.post('/session/password', {
      config: { dashboard: { stages: ['PASSWORD_CHANGE', 'ACTIVE'] } },
      schema: { body: S.ChangePasswordBody, response: responses(S.SessionResponse) },
    }, async (req, reply) => {
      const c = caller(req);
      const { token } = await service.sessions.changePassword(dash(req), req.body, c);
      setSessionCookie(req, reply, token);
      return done(await service.sessions.me(await service.sessions.resolve(token, c), token));
    });

    app.post('/session/totp', {
      config: { dashboard: { stages: ['TOTP'] } },
      schema: { body: S.TotpSignInBody, response: responses(S.SessionResponse) },
    }, async (req, reply) => {
      const c = caller(req);
      const { token } = await service.sessions.signInTotp(dash(req), req.body, c);
      setSessionCookie(req, reply, token);
      return done(await service.sessions.me(await service.sessions.resolve(token, c), token));
    });

    app.post('/account/totp/setup', {
      config: { dashboard: {} },
      schema: { response: responses(S.TotpSetupResponse) },
    }, async (req) => done(await service.twoFactor.totpSetup(dash(req))));

    app.post('/account/totp/enable', {
      config: { dashboard: {} },
      schema: { body: S.TotpEnableBody, response: responses(S.RecoveryCodesResponse) },
    }, async (req) => done({ recovery_codes: await service.twoFactor.totpEnable(dash(req), req.body.code) }));

    app.post('/account/totp/disable', {
      config: { dashboard: {} },
      schema: { body: S.TotpDisableBody, response: responses(S.EmptyResponse) },
    }, async (req) => {
      await service.twoFactor.totpDisable(dash(req), req.body);
      return done({});
    });

    app.post('/password-reset', {
      config: { dashboard: { public: true } },
      schema: { body: S.ResetRequestBody, response: responses(S.EmptyResponse) },
    }, async (req) => {
      await service.sessions.requestReset(req.body.login, caller(req));
      return done({});
    });

    app.post('/password-reset/confirm', {
      config: { dashboard: { public: true } },
      schema: { body: S.ResetConfirmBody, response: responses(S.EmptyResponse) },
    }, async (req) => {
      await service.sessions.confirmReset(req.body, caller(req));
      return done({});
    });

    app.put('/session/env', {
      config: { dashboard: {} },
      schema: { body: S.EnvBody, response: responses(S.SessionResponse) },
    }, async (req) => {
      await service.sessions.switchEnv(dash(req), req.body.env);
      return done(await service.sessions.me(await service.sessions.resolve(req.dashToken!, caller(req)), req.dashToken!));
    });

    app.put('/session/merchant', {
      config: { dashboard: {} },
      schema: { body: S.MerchantBody, response: responses(S.SessionResponse) },
    }, async (req) => {
      await service.sessions.switchMerchant(dash(req), req.body.merchant_uuid);
      return done(await service.sessions.me(await service.sessions.resolve(req.dashToken!, caller(req)), req.dashToken!));
    });

    app.put('/session/language', {
      config: { dashboard: { stages: ANY_STAGE } },
      schema: { body: S.LanguageBody, response: responses(S.SessionResponse) },
    }, async (req) => {
      await service.sessions.setLanguage(dash(req), req.body.language);
      return done(await service.sessions.me(await service.sessions.resolve(req.dashToken!, caller(req)), req.dashToken!));
    });

    // ---- payments ------------------------------------------------------------------------------------

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

    // ---- developers ------------------------------------------------------------------------------------

    app.get('/developers/keys', {
      config: { dashboard: { permission: 'developers.read' } },
      schema: { response: responses(S.KeysResponse) },
    }, async (req) => done({ keys: await service.developers.keys(dash(req)) }));

    app.post('/developers/keys', {
      config: { dashboard: { permission: 'developers.keys' } },
      schema: { body: S.CreateKeyBody, response: responses(S.CreatedKeyResponse) },
    }, async (req) => done(await service.developers.createKey(dash(req), req.body)));

    app.post('/developers/keys/:uuid/revoke', {
      config: { dashboard: { permission: 'developers.keys' } },
      schema: { params: S.OrderParams, response: responses(S.EmptyResponse) },
    }, async (req) => {
      await service.developers.revokeKey(dash(req), req.params.uuid);
      return done({});
    });

    app.get('/developers/deliveries', {
      config: { dashboard: { permission: 'developers.read' } },
      schema: { querystring: S.DeliveriesQuery, response: responses(S.DeliveriesResponse) },
    }, async (req) => done(await service.developers.deliveries(dash(req), { ...req.query, limit: req.query.limit ?? 50 })));

    const presentRequest = (x: { id: string; key_id: string | null; method: string; path: string; status: number; duration_ms: number; idempotency_key: string | null; request_id: string; order_id: string | null; created_at: Date }) => ({
      uuid: x.id, key_uuid: x.key_id, method: x.method, path: x.path, status: x.status, duration_ms: x.duration_ms, idempotency_key: x.idempotency_key,
      request_id: x.request_id, order_uuid: x.order_id, created_at: x.created_at.toISOString(),
    });

    app.get('/developers/requests', {
      config: { dashboard: { permission: 'developers.read' } },
      schema: { querystring: S.RequestsQuery, response: responses(S.RequestsResponse) },
    }, async (req) => {
      const q = req.query;
      const limit = q.limit ?? 50;
      let before: { at: Date; id: string } | undefined;
      if (q.cursor) {
        const m = /^r1:(\d{4}-\d\d-\d\dT[\d:.]+Z):([0-9a-f-]{36})$/.exec(Buffer.from(q.cursor, 'base64url').toString('utf8'));
        if (!m) throw badRequest('cursor is not valid: pass the next_cursor of the previous page unchanged');
        before = { at: new Date(m[1]), id: m[2] };
      }
      const rows = await service.developers.requests(dash(req), { requestId: q.request_id, orderId: q.order_uuid, status: q.status, method: q.method, before, limit: limit + 1 });
      const more = rows.length > limit;
      const page = more ? rows.slice(0, limit) : rows;
      const last = page[page.length - 1];
      return done({
        requests: page.map(presentRequest),
        next_cursor: more ? Buffer.from(`r1:${last.created_at.toISOString()}:${last.id}`).toString('base64url') : null,
        retention_days: opts.requestLogDays,
      });
    });

    app.get('/developers/requests/:uuid', {
      config: { dashboard: { permission: 'developers.read' } },
      schema: { params: S.RequestParams, response: responses(S.RequestResponse) },
    }, async (req) => {
      const x = await service.developers.request(dash(req), req.params.uuid);
      return done({ request: { ...presentRequest(x), request_body: x.request_body, response_body: x.response_body } });
    });

    // ---- users and audit ---------------------------------------------------------------------------------

    app.get('/users', {
      config: { dashboard: { permission: 'users.manage' } },
      schema: { response: responses(S.UsersResponse) },
    }, async (req) => done({ users: await service.team.users(dash(req)) }));

    app.post('/users', {
      config: { dashboard: { permission: 'users.manage' } },
      schema: { body: S.InviteBody, response: responses(S.InvitedResponse) },
    }, async (req) => done(await service.team.invite(dash(req), req.body)));

    app.post('/users/:uuid/credentials', {
      config: { dashboard: { permission: 'users.manage' } },
      schema: { params: S.OrderParams, response: responses(S.CredentialsResponse) },
    }, async (req) => done(await service.team.resendCredentials(dash(req), req.params.uuid)));

    app.post('/users/:uuid/unlock', {
      config: { dashboard: { permission: 'users.manage' } },
      schema: { params: S.OrderParams, response: responses(S.EmptyResponse) },
    }, async (req) => {
      await service.team.unlockUser(dash(req), req.params.uuid);
      return done({});
    });

    app.put('/users/:uuid', {
      config: { dashboard: { permission: 'users.manage' } },
      schema: { params: S.OrderParams, body: S.UpdateUserBody, response: responses(S.EmptyResponse) },
    }, async (req) => {
      await service.team.updateUser(dash(req), req.params.uuid, req.body);
      return done({});
    });

    const presentAudit = (a: { id: string; created_at: Date; user_id: string | null; username: string | null; action: string; target: string | null; details: unknown; ip: string | null; merchant_id: string | null }) => ({
      id: String(a.id), created_at: a.created_at.toISOString(), user_uuid: a.user_id, username: a.username, action: a.action, target: a.target, details: a.details ?? null, ip: a.ip, merchant_uuid: a.merchant_id,
    });

    app.get('/audit', {
      config: { dashboard: { permission: 'audit.read' } },
      schema: { querystring: S.AuditQuery, response: responses(S.AuditResponse) },
    }, async (req) => {
      const limit = req.query.limit ?? 100;
      const rows = await service.team.audit(dash(req), { before: req.query.cursor, limit: limit + 1, user: req.query.user, action: req.query.action });
      const more = rows.length > limit;
      const page = more ? rows.slice(0, limit) : rows;
      return done({ entries: page.map(presentAudit), next_cursor: more ? String(page[page.length - 1].id) : null });
    });

    app.get('/audit/export.csv', {
      config: { dashboard: { permission: 'audit.read' } },
      schema: { querystring: S.AuditQuery },
    }, async (req, reply) => {
      const pages = service.team.eachAudit(dash(req), { user: req.query.user, action: req.query.action });
      async function* lines() {
        yield `${csvLine(['id', 'created_at', 'username', 'user_uuid', 'action', 'target', 'ip', 'merchant_uuid', 'details'])}\r\n`;
        for await (const page of pages) {
          yield page.map((a) => {
            const p = presentAudit(a);
            return `${csvLine([p.id, p.created_at, p.username ?? '', p.user_uuid ?? '', p.action, p.target ?? '', p.ip ?? '', p.merchant_uuid ?? '', p.details === null ? '' : JSON.stringify(p.details)])}\r\n`;
          }).join('');
        }
      }
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="audit-${opts.now().toISOString().slice(0, 10)}.csv"`)
        .send(Readable.from(lines()));
    });

    // ---- the merchant API, for the user: /dashboard/api/v1/<path> is /v1[/sandbox]/<path> ---------------
    // Everything the contract lets a merchant do, the same route does here: its validation, guards,
    // idempotency, business rules and notifications. The operation must be in API_OPERATIONS and allowed to
    // the user's group (checked by the API's authentication, with the ticket); a change is audited.
    const bridge = async (req: FastifyRequest, reply: FastifyReply) => {
      const s = dash(req);
      const rest = (req.params as { '*': string })['*'] ?? '';
      const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
      if (/(^|\/)\.\.?(\/|$)|\/\/|%2e|%2f|\\/i.test(rest)) throw notFound(`No route ${req.method} ${redactCardNumbersInUrl(req.url.split('?')[0])}`);
      const path = `/v1${s.env === 'sandbox' ? '/sandbox' : ''}/${rest}`;
      const idem = req.headers['idempotency-key'];
      const { res, operationId } = await service.orders.callApi(s, req.method, redactCardNumbersInUrl(path), (ticket, signature) => {
        let payload: string | undefined;
        if (req.method !== 'GET') {
          const body = req.body;
          payload = JSON.stringify(body && typeof body === 'object' && !Array.isArray(body) ? { ...(body as object), signature } : (body ?? {}));
        }
        return reply.server.inject({
          method: req.method as 'GET',
          url: `${path}${query}`,
          headers: {
            [INTERNAL_TICKET_HEADER]: ticket,
            ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
            ...(typeof idem === 'string' ? { 'idempotency-key': idem } : {}),
            ...(typeof req.headers['accept-language'] === 'string' ? { 'accept-language': req.headers['accept-language'] } : {}),
          },
          payload,
        });
      });
      // only a route the ticket was used on answers (an unknown path is the API's own 404)
      if (!operationId && res.statusCode < 400) throw notFound(`No route ${req.method} ${redactCardNumbersInUrl(req.url.split('?')[0])}`);
      reply.code(res.statusCode);
      for (const h of ['content-type', 'content-disposition', 'retry-after', 'allow', 'idempotent-replayed']) {
        const v = res.headers[h];
        if (typeof v === 'string') reply.header(h, v);
      }
      return reply.send(res.rawPayload);
    };
    for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
      app.route({ method, url: '/v1/*', config: { dashboard: { bridge: true } }, exposeHeadRoute: false, schema: {}, handler: bridge });
    }

    // ---- the areas' own routes (lists and figures the API has no operation for): areas/*.ts --------------
    for (const area of AREAS) await area.routes({ app, service, done, dash, opts });

    // ---- saved views -----------------------------------------------------------------------------------

    const presentView = (v: { id: string; name: string; filters: unknown }) => ({ uuid: v.id, name: v.name, filters: v.filters as Record<string, unknown> });

    app.get('/views', {
      config: { dashboard: { permission: 'payments.read' } },
      schema: { response: responses(S.ViewsResponse) },
    }, async (req) => done({ views: (await service.orders.listViews(dash(req))).map(presentView) }));

    app.post('/views', {
      config: { dashboard: { permission: 'payments.read' } },
      schema: { body: S.ViewBody, response: responses(S.ViewResponse) },
    }, async (req) => done({ view: presentView(await service.orders.saveView(dash(req), req.body.name, req.body.filters)) }));

    app.delete('/views/:uuid', {
      config: { dashboard: { permission: 'payments.read' } },
      schema: { params: S.OrderParams, response: responses(S.EmptyResponse) },
    }, async (req) => {
      await service.orders.deleteView(dash(req), req.params.uuid);
      return done({});
    });
  };
}

// ---- the web app ---------------------------------------------------------------------------------------

/**
 * The dashboard's pages: its own script only, talking to this origin only, never framed. Styles may also
 * be set inline (the dialogs' scroll lock adds a small style element).
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-src 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the built web app is: beside the bundle (dist/server.js → dist/dashboard) or dist/ of the sources. */
export function findDashboardBuild(): string | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'dashboard'), path.resolve(here, '../../../dist/dashboard'), path.resolve('dist/dashboard')];
  return candidates.find((d) => fs.existsSync(path.join(d, 'index.html'))) ?? null;
}

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>paygate dashboard</title>
<p>The dashboard web app has not been built. <code>npm start</code> builds it; or run <code>node scripts/build-dashboard.mjs</code>.</p></html>`;

/**
 * What the dashboard's answers carry besides their Content-Security-Policy: the browser features the
 * pages never use are off (camera, microphone, geolocation, payment, USB, …), for the app and any frame.
 */
export const DASHBOARD_PERMISSIONS_POLICY = 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), hid=(), bluetooth=(), midi=(), magnetometer=(), gyroscope=(), accelerometer=(), display-capture=(), interest-cohort=()';

/**
 * The encoding of a build file to send: the brotli or gzip copy the build wrote beside it
 * (scripts/build-dashboard.mjs), when the browser accepts it (`Accept-Encoding`, not refused with q=0).
 */
export function pickEncoding(acceptEncoding: string | undefined, exists: (suffix: '.br' | '.gz') => boolean): 'br' | 'gzip' | null {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((x) => /^\s*q=([0-9.]+)\s*$/.exec(x)?.[1]).find((x) => x !== undefined);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (ok('br') && exists('.br')) return 'br';
  if (ok('gzip') && exists('.gz')) return 'gzip';
  return null;
}

/**
 * Serves the web app at /dashboard: its files, and its page for every path of the app (it routes itself).
 * The scripts and styles have hashed names: cached for good (`immutable`); the page is checked at each
 * load (`no-cache`), so a new build is picked up at the next one. Each goes out compressed when the
 * browser accepts it, from the copies the build wrote.
 */
export async function installDashboardApp(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    const dir = () => findDashboardBuild();
    const send = (req: FastifyRequest, reply: FastifyReply, file: string, type: string) => {
      const encoding = pickEncoding(typeof req.headers['accept-encoding'] === 'string' ? req.headers['accept-encoding'] : undefined, (suffix) => fs.existsSync(file + suffix));
      const chosen = encoding === 'br' ? `${file}.br` : encoding === 'gzip' ? `${file}.gz` : file;
      reply.type(type).header('Vary', 'Accept-Encoding').header('Content-Length', String(fs.statSync(chosen).size));
      if (encoding) reply.header('Content-Encoding', encoding);
      return reply.send(fs.createReadStream(chosen));
    };
    const page = (req: FastifyRequest, reply: FastifyReply) => {
      const d = dir();
      reply.header('Content-Security-Policy', DASHBOARD_CSP).header('Permissions-Policy', DASHBOARD_PERMISSIONS_POLICY).header('X-Frame-Options', 'DENY').header('Referrer-Policy', 'same-origin').header('X-Content-Type-Options', 'nosniff').header('Cache-Control', 'no-cache');
      if (!d) return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT);
      return send(req, reply, path.join(d, 'index.html'), 'text/html; charset=utf-8');
    };
    scope.get('/dashboard', { schema: { hide: true } }, async (req, reply) => page(req, reply));
    scope.get('/dashboard/*', { schema: { hide: true } }, async (req, reply) => {
      const rest = (req.params as { '*': string })['*'] ?? '';
      if (rest === 'api' || rest.startsWith('api/')) throw notFound(`No route ${req.method} ${redactCardNumbersInUrl(req.url.split('?')[0])}`);
      if (rest.startsWith('assets/') || /^[\w.-]+\.(svg|png|ico|txt|webmanifest)$/.test(rest)) {
        const d = dir();
        const file = d ? path.resolve(d, rest) : null;
        // the compressed copies are sent for their file, never asked for by name
        if (!d || !file || !file.startsWith(d + path.sep) || /\.(br|gz)$/.test(file) || !fs.existsSync(file) || !fs.statSync(file).isFile()) throw notFound(`No file ${rest}`);
        const type = MIME[path.extname(file)] ?? 'application/octet-stream';
        // hashed names: cached for good
        reply.header('Cache-Control', rest.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'public, max-age=3600');
        reply.header('Content-Security-Policy', DASHBOARD_CSP).header('Permissions-Policy', DASHBOARD_PERMISSIONS_POLICY).header('X-Content-Type-Options', 'nosniff');
        return send(req, reply, file, type);
      }
      return page(req, reply);
    });
  });
}

const MIME: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
};
