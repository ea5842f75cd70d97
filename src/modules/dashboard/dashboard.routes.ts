/**
 * HTTP of the dashboard's JSON API, under /dashboard/api. Every route names what it needs in
 * `config.dashboard`: `public` (the sign-in), the sign-in `stages` it serves (ACTIVE by default) and the
 * `permission` of the role table the user's group must hold. One hook checks all of it on every request,
 * with the session cookie and, on every change, the CSRF token. Thin routes: one service call each; the
 * routes are in groups, a file each (routes/*.ts, and the areas' in areas/*.ts), all through the `Area`
 * kit (areas/kit.ts). The web app's files are served by dashboard.app.ts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import cookie from '@fastify/cookie';
import { forbidden } from '../../platform/errors/errors.js';
import { okEnvelope } from '../../platform/http/envelope.js';
import { refuseCardNumbers } from '../../platform/http/pan-guard.js';
import { refuseNul } from '../../platform/http/nul-guard.js';
import { plainHttpAllowed } from '../../platform/http/platform.js';
import type { Permission, Stage } from './dashboard.domain.js';
import type { DashSession, DashboardService } from './dashboard.service.js';
import type { AreaOptions } from './areas/kit.js';
import { ROUTE_GROUPS } from './routes/index.js';
import { caller, tokenOf } from './routes/http.js';

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

function dash(req: FastifyRequest): DashSession {
  if (!req.dash) throw new Error('dashboard route without a session');
  return req.dash;
}

export interface DashboardRouteOptions extends AreaOptions {
  sandboxHttpAnyAddress: boolean;
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

    // every route group: the session, payments, developers, users, the bridge, the areas, saved views
    for (const group of ROUTE_GROUPS) await group.routes({ app, service, done, dash, opts });
  };
}
