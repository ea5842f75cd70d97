/**
 * The OpenAPI document of the dashboard's own JSON API (/dashboard/api), kept apart from the merchant
 * API's: it is internal to the dashboard web app (session cookie, CSRF token), not a contract for
 * merchants. Built from the routes' own schemas, committed as docs/dashboard-openapi.json and linted
 * like the API's (`npm run lint:openapi`; test/http/dashboard-openapi.test.ts).
 */
import type { FastifyInstance } from 'fastify';
import { ErrorEnvelope } from '../../platform/http/schemas.js';
import { AREAS } from './areas/index.js';
import { DASHBOARD_API_PREFIX, listDashboardRoutes, type DashboardRouteInfo } from './dashboard.routes.js';

interface OperationDoc {
  operationId: string;
  summary: string;
  description: string;
  tag: string;
}

/** What each route is, for a reader: every route has an entry (a route without one fails the build). */
const OPERATIONS: Record<string, OperationDoc> = {
  'POST /session': { operationId: 'signIn', tag: 'session', summary: 'Sign in', description: 'Username (or e-mail) and password. Sets the session cookie; the answer says which stage the sign-in reached (PASSWORD_CHANGE, TOTP or ACTIVE) and carries the CSRF token. Failed sign-ins lock the user at the address they come from, slow down the addresses a user never signed in from, and lock an address that fails many (429).' },
  'GET /session': { operationId: 'getSession', tag: 'session', summary: 'The signed-in user', description: 'The user, the stage, the CSRF token, the environment and merchant looked at, the merchants the user may switch to, and the permissions of the user\'s group.' },
  'DELETE /session': { operationId: 'signOut', tag: 'session', summary: 'Sign out', description: 'Ends this session and clears the cookie.' },
  'POST /session/everywhere': { operationId: 'signOutEverywhere', tag: 'session', summary: 'Sign out everywhere', description: 'Ends every session of the user, this one included.' },
  'POST /session/password': { operationId: 'changePassword', tag: 'session', summary: 'Change the password', description: 'The current and a new password (at least 12 characters). Required at the first sign-in; a new session replaces this one and the user\'s other sessions end.' },
  'POST /session/totp': { operationId: 'signInSecondFactor', tag: 'session', summary: 'Second step of the sign-in', description: 'A code of the authenticator app, or a recovery code. Wrong codes count toward the user\'s lockout.' },
  'PUT /session/env': { operationId: 'switchEnvironment', tag: 'session', summary: 'Switch environment', description: 'Looks at the user\'s sandbox or production merchant (its D3 twins).' },
  'PUT /session/merchant': { operationId: 'switchMerchant', tag: 'session', summary: 'Switch merchant', description: 'A partner\'s user looks at one of its child merchants (or back at its own).' },
  'PUT /session/language': { operationId: 'setLanguage', tag: 'session', summary: 'Set the language', description: 'ES, EN or PT, kept on the user.' },
  'POST /account/totp/setup': { operationId: 'setUpTwoFactor', tag: 'session', summary: 'Start two-factor enrolment', description: 'A new TOTP secret with its otpauth URI and QR code; not in force until a code proves it.' },
  'POST /account/totp/enable': { operationId: 'enableTwoFactor', tag: 'session', summary: 'Turn two-factor sign-in on', description: 'A code of the app proves the secret; the ten recovery codes are answered this once.' },
  'POST /account/totp/disable': { operationId: 'disableTwoFactor', tag: 'session', summary: 'Turn two-factor sign-in off', description: 'Needs the password and a code (or a recovery code).' },
  'POST /password-reset': { operationId: 'requestPasswordReset', tag: 'session', summary: 'Ask for a password reset link', description: 'E-mails a link (30 minutes, one use) to the user a username or e-mail names. The same answer whether or not the user exists.' },
  'POST /password-reset/confirm': { operationId: 'resetPassword', tag: 'session', summary: 'Set a new password with a reset link', description: 'The token of the link and the new password; every session of the user ends.' },
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
  'GET /views': { operationId: 'listViews', tag: 'payments', summary: 'Saved views', description: 'The user\'s saved filter combinations.' },
  'POST /views': { operationId: 'saveView', tag: 'payments', summary: 'Save a view', description: 'Saves (or replaces, by name) a filter combination of the user.' },
  'DELETE /views/:uuid': { operationId: 'deleteView', tag: 'payments', summary: 'Delete a view', description: 'Deletes one of the user\'s saved views.' },
  'GET /developers/keys': { operationId: 'listApiKeys', tag: 'developers', summary: 'API keys', description: 'The merchant\'s API keys: prefix, profiles, description, creation, revocation and last use. Never their values.' },
  'POST /developers/keys': { operationId: 'createApiKey', tag: 'developers', summary: 'Create an API key', description: 'A new key and signature with the profiles given, answered this once. Audited.' },
  'POST /developers/keys/:uuid/revoke': { operationId: 'revokeApiKey', tag: 'developers', summary: 'Revoke an API key', description: 'Requests with the key are refused from now on. Audited.' },
  'GET /developers/deliveries': { operationId: 'listDeliveries', tag: 'developers', summary: 'url_post deliveries', description: 'The merchant\'s notifications with their delivery state, filtered by state or order.' },
  'GET /developers/requests': { operationId: 'listApiRequests', tag: 'developers', summary: 'The API request log', description: 'Every request of the merchant\'s keys, newest first: by request id, status, method or order; paged by `next_cursor`.' },
  'GET /developers/requests/:uuid': { operationId: 'getApiRequest', tag: 'developers', summary: 'One API request with its bodies', description: 'The request and answer bodies, card numbers, CVVs, PIN blocks, signatures and keys redacted.' },
  'GET /users': { operationId: 'listUsers', tag: 'users', summary: 'Dashboard users', description: 'The users of the merchant looked at and its children, each with its sign-in locks and how its invitation was delivered.' },
  'POST /users': { operationId: 'inviteUser', tag: 'users', summary: 'Invite a user', description: 'D3 under the hood. With e-mail configured the generated password goes by e-mail only (its delivery is in GET /users); without it, it is answered here once for the manager to hand over. Audited.' },
  'POST /users/:uuid/credentials': { operationId: 'resendCredentials', tag: 'users', summary: 'Send a user a new one-time password', description: 'For a user who has not chosen a password yet: a new generated password replaces the one before (their sessions end), e-mailed, or answered once without e-mail. Audited.' },
  'POST /users/:uuid/unlock': { operationId: 'unlockUser', tag: 'users', summary: 'Lift a user\'s sign-in locks', description: 'Clears the user\'s locks at every address and the slow-down of new addresses. Audited.' },
  'PUT /users/:uuid': { operationId: 'updateUser', tag: 'users', summary: 'Change a user\'s group or status', description: 'A disabled user\'s sessions end at once. Not one\'s own. Audited.' },
  'GET /audit': { operationId: 'listAudit', tag: 'users', summary: 'The audit log', description: 'Every sign-in and staff action, newest first, paged by `next_cursor`.' },
  'GET /audit/export.csv': { operationId: 'exportAudit', tag: 'users', summary: 'Export the audit log as CSV', description: 'Every entry the filters find, streamed (text/csv).' },
  'GET /v1/*': { operationId: 'apiRead', tag: 'api', summary: 'Read through the merchant API', description: "The merchant API for the signed-in user: `/v1/{path}` here is `/v1/sandbox/{path}` (sandbox) or `/v1/{path}` (production) of the merchant API, for the merchant looked at, with the same validation, rules, answers and notifications. Write bodies need no `signature`. Only the operations of the dashboard's table, each allowed to the groups of its permission (docs/dashboard.md); any other is 403. Never card data. A change is audited." },
  'POST /v1/*': { operationId: 'apiCreate', tag: 'api', summary: 'Act through the merchant API', description: "The merchant API for the signed-in user: `/v1/{path}` here is `/v1/sandbox/{path}` (sandbox) or `/v1/{path}` (production) of the merchant API, for the merchant looked at, with the same validation, rules, answers and notifications. Write bodies need no `signature`. Only the operations of the dashboard's table, each allowed to the groups of its permission (docs/dashboard.md); any other is 403. Never card data. A change is audited." },
  'PUT /v1/*': { operationId: 'apiUpdate', tag: 'api', summary: 'Change through the merchant API', description: "The merchant API for the signed-in user: `/v1/{path}` here is `/v1/sandbox/{path}` (sandbox) or `/v1/{path}` (production) of the merchant API, for the merchant looked at, with the same validation, rules, answers and notifications. Write bodies need no `signature`. Only the operations of the dashboard's table, each allowed to the groups of its permission (docs/dashboard.md); any other is 403. Never card data. A change is audited." },
  'DELETE /v1/*': { operationId: 'apiDelete', tag: 'api', summary: 'Delete through the merchant API', description: "The merchant API for the signed-in user: `/v1/{path}` here is `/v1/sandbox/{path}` (sandbox) or `/v1/{path}` (production) of the merchant API, for the merchant looked at, with the same validation, rules, answers and notifications. Write bodies need no `signature`. Only the operations of the dashboard's table, each allowed to the groups of its permission (docs/dashboard.md); any other is 403. Never card data. A change is audited." },
};

type Obj = Record<string, any>;

const AREA_DOCS: Record<string, OperationDoc> = Object.assign({}, ...AREAS.map((a) => a.docs));

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
  const doc = OPERATIONS[key] ?? AREA_DOCS[key];
  if (!doc) throw new Error(`dashboard route ${key} has no entry in OPERATIONS (dashboard.openapi.ts)`);
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
  const stale = [...Object.keys(OPERATIONS), ...Object.keys(AREA_DOCS)].filter((k) => !known.has(k));
  if (stale.length > 0) throw new Error(`OPERATIONS names routes that do not exist: ${stale.join(', ')}`);
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
      { name: 'session', description: 'Sign-in, sessions, two-factor, password reset, environment and merchant' },
      { name: 'payments', description: 'The payments list, an order, and the actions on it' },
      { name: 'developers', description: 'API keys, url_post deliveries, the API request log' },
      { name: 'users', description: 'Dashboard users and the audit log' },
      { name: 'api', description: 'The merchant API, through the dashboard\'s session' },
      ...AREAS.flatMap((a) => (a.tag ? [a.tag] : [])),
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
