/**
 * The OpenAPI document of the dashboard's own JSON API (/dashboard/api), kept apart from the merchant
 * API's: it is internal to the dashboard web app (session cookie, CSRF token), not a contract for
 * merchants. Built from the routes' own schemas, committed as docs/dashboard-openapi.json and linted
 * like the API's (`npm run lint:openapi`; test/http/dashboard-openapi.test.ts).
 */
import type { FastifyInstance } from 'fastify';
import { ErrorEnvelope } from '../../platform/http/schemas.js';
import { ROUTE_GROUPS } from './routes/index.js';
import { DASHBOARD_API_PREFIX, listDashboardRoutes, type DashboardRouteInfo } from './dashboard.routes.js';

interface OperationDoc {
  operationId: string;
  summary: string;
  description: string;
  tag: string;
}

type Obj = Record<string, any>;

/** What each route is, for a reader: every route has an entry in its group's `docs` (a route without one fails the build). */
const DOCS: Record<string, OperationDoc> = Object.assign({}, ...ROUTE_GROUPS.map((a) => a.docs));

/** A TypeBox schema as plain JSON Schema (its symbols dropped). */
const plain = (s: unknown): Obj => JSON.parse(JSON.stringify(s ?? {}));

/** Query or path parameters of an object schema. */
function parameters(schema: unknown, where: 'query' | 'path'): Obj[] {
  const s = plain(schema);
  const required = new Set<string>(s.required ?? []);
  return Object.entries((s.properties ?? {}) as Obj).map(([name, p]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    description: (p as Obj).description ?? name,
    schema: p,
  }));
}

function operation(r: DashboardRouteInfo): Obj {
  const key = `${r.method} ${r.url.slice(DASHBOARD_API_PREFIX.length)}`;
  const doc = DOCS[key];
  if (!doc) throw new Error(`dashboard route ${key} has no entry in the docs of its group (routes/*.ts, areas/*.ts)`);
  const ok = r.schema.response?.['200'];
  const success: Obj = r.csv
    ? { description: 'CSV, one line per entry', content: { 'text/csv': { schema: { type: 'string' } } } }
    : r.stream
      ? { description: 'Server-Sent Events', content: { 'text/event-stream': { schema: { type: 'string' } } } }
      : { description: 'OK', content: { 'application/json': { schema: plain(ok) } } };
  if (r.dashboard.bridge) {
    return {
      operationId: doc.operationId,
      summary: doc.summary,
      description: doc.description,
      tags: [doc.tag],
      parameters: [{ name: 'path', in: 'path', required: true, description: 'The merchant API path after /v1 (and /sandbox), with its query string', schema: { type: 'string' } }],
      ...(r.method !== 'GET' ? { requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', description: 'The operation\'s body, as the merchant API documents it, without `signature`' } } } } } : {}),
      responses: {
        '200': { description: 'The merchant API\'s answer (JSON, CSV or PDF as the operation answers)', content: { 'application/json': { schema: { type: 'object' } } } },
        '4XX': { description: 'Refused: the error envelope (`details` says why)', content: { 'application/json': { schema: plain(ErrorEnvelope) } } },
      },
    };
  }
  const params = [...(r.schema.params ? parameters(r.schema.params, 'path') : []), ...(r.schema.querystring ? parameters(r.schema.querystring, 'query') : [])];
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    description: doc.description,
    tags: [doc.tag],
    ...(r.dashboard.public ? { security: [] } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(r.schema.body ? { requestBody: { required: true, content: { 'application/json': { schema: plain(r.schema.body) } } } } : {}),
    responses: {
      '200': success,
      '4XX': { description: 'Refused: the error envelope (`details` says why)', content: { 'application/json': { schema: plain(ErrorEnvelope) } } },
    },
  };
}

export function dashboardOpenApi(app: FastifyInstance, publicUrl: string): Obj {
  const paths: Obj = {};
  for (const r of listDashboardRoutes(app)) {
    const path = r.url.slice(DASHBOARD_API_PREFIX.length).replace(/:([A-Za-z_]+)/g, '{$1}').replace(/\/\*$/, '/{path}');
    (paths[path] ??= {})[r.method.toLowerCase()] = operation(r);
  }
  const known = new Set(listDashboardRoutes(app).map((r) => `${r.method} ${r.url.slice(DASHBOARD_API_PREFIX.length)}`));
  const stale = Object.keys(DOCS).filter((k) => !known.has(k));
  if (stale.length > 0) throw new Error(`the docs name routes that do not exist: ${stale.join(', ')}`);
  return {
    openapi: '3.1.0',
    info: {
      title: 'paygate dashboard API (internal)',
      version: '1.0.0',
      description: 'The JSON API of the merchant dashboard web app, under /dashboard/api. Internal to the dashboard: it authenticates with the session cookie of a signed-in D3 user (never an API key), every change carries the session\'s CSRF token in `X-CSRF-Token`, and every route needs a permission of the role table of the user\'s group (docs/dashboard.md). Answers use the envelope of the merchant API.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: `${publicUrl}${DASHBOARD_API_PREFIX}`, description: 'This gateway' }],
    tags: [
      ...ROUTE_GROUPS.flatMap((a) => (a.tag ? [a.tag] : [])),
    ],
    components: {
      securitySchemes: {
        sessionCookie: { type: 'apiKey', in: 'cookie', name: '__Host-paygate_dashboard', description: 'The session cookie set by `POST /session` (`paygate_dashboard` over plain HTTP on loopback)' },
        csrfToken: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token', description: 'The `csrf_token` of the session, on every change' },
      },
    },
    security: [{ sessionCookie: [], csrfToken: [] }],
    paths,
  };
}
