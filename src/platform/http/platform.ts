/**
 * The one shared wrapper every API route goes through (design.md principle 2): validation compilers,
 * the wire serializer, the single error handler, HTTPS enforcement, authentication, profiles, rate
 * limiting, body signature and idempotency. Routes declare `config: { profiles }` and a schema; this
 * plugin does the rest.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Env } from '../db/schema.js';
import { isDatabaseUnavailable } from '../db/database.js';
import type { OutageLog } from '../db/outage.js';
import type { DurabilityGuard } from '../db/durability.js';
import { ApiError, REASON, badRequest, conflictOfViolation, forbidden, tooManyRequests, unauthorized } from '../errors/errors.js';

/** The dashboard's reason phrases: a 403 there is a signed-in user refused, not a wrong key. */
const DASHBOARD_REASON: Record<number, string> = { ...REASON, 403: 'Forbidden' };
import type { Vault } from '../security/vault.js';
import type { Clock } from '../time/clock.js';
import { requestContext } from './context.js';
import { INTERNAL_TICKET_HEADER, redeemTicket } from './internal-call.js';
import { assertKeyEnv, checkSignature, hashKey, parseAuthorization, requireProfile, type KeyResolver } from './auth.js';
import { errorEnvelope } from './envelope.js';
import { installGetBodyAsQuery } from './get-body.js';
import { installNulGuard } from './nul-guard.js';
import { installPanGuard } from './pan-guard.js';
import { redactCardNumbersInUrl } from '../logging.js';
import { redactCardNumbers } from '../security/card-numbers.js';
import { lenientValidator } from './lenient.js';
import type { IdempotencyStore } from './idempotency.js';
import { toWireJson } from './json.js';
import type { Limiter } from './rate-limit.js';
import type { PageRoute, RouteAuth } from './types.js';

export interface PlatformOptions {
  timezone: string;
  /** Largest body read from a GET request (decisions §1: a GET body is read like query parameters). */
  bodyLimit?: number;
  clock: Clock;
  vault: Vault;
  resolveKey: KeyResolver;
  rateLimiter: Limiter;
  rateLimits: Record<Env, number>;
  /** Requests per second per client IP with a missing or unknown API key (0: no limit). */
  unknownKeyRateLimit?: number;
  idempotency: IdempotencyStore;
  /** Sandbox routes over plain HTTP on any address (PAYGATE_SANDBOX_HTTP_ANY_ADDRESS), not only loopback. */
  sandboxHttpAnyAddress?: boolean;
  /** Logs a database outage once (db/outage.ts); without it every 503 of an outage logs a line. */
  outage?: OutageLog;
  /** With a synchronous standby required, no write is answered as done while none streams (db/durability.ts). */
  durability?: DurabilityGuard;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The validators' compilers, one pair per process: Ajv keeps what it compiled by schema object, so a
 * second app built in the same process (a peer app of the tests, a gateway rebuilt after a restart in
 * process) reuses the compiled validators of the route schemas, which are module constants.
 */
let compilers: { body: Ajv.default; param: Ajv.default } | null = null;
function validatorCompilers() {
  if (!compilers) {
    // verbose: each error carries its schema node and value, so problems are told as sentences (PROBLEM)
    const base = { useDefaults: true, removeAdditional: true, allErrors: false, strict: false, verbose: true } as const;
    compilers = {
      // every problem of a body is reported (errors[] of the envelope), not only the first
      body: addFormats.default(new Ajv.default({ ...base, coerceTypes: false, allErrors: true })),
      param: addFormats.default(new Ajv.default({ ...base, coerceTypes: 'array' })),
    };
  }
  return compilers;
}

/** Validator compilers: bodies are validated strictly (wrong types are 400), query and path coerced. */
function installValidators(app: FastifyInstance): void {
  const { body, param } = validatorCompilers();
  // lenient scalars (decisions §10): marked values are read into their canonical form first (lenient.ts)
  app.setValidatorCompiler(({ schema, httpPart }) =>
    lazyValidator(() => lenientValidator(schema, (s) => (httpPart === 'body' ? body : param).compile(s as object))) as any,
  );
}

type Validate = { (data: unknown): unknown; errors?: unknown };

/**
 * A route's validator compiled when its first request arrives, not when the route is registered:
 * compiling the few hundred schemas of every route took about 0.75 s of each start (a gateway, a worker,
 * a `paygate` command that never serves a request). The first request of a route pays its few ms.
 */
export function lazyValidator(compile: () => Validate): Validate {
  let validate: Validate | null = null;
  const fn: Validate = (data: unknown) => {
    validate ??= compile();
    const result = validate(data);
    fn.errors = validate.errors;
    return result;
  };
  return fn;
}

function isLoopback(addr: string | undefined): boolean {
  if (!addr) return true; // in-process requests (tests) have no socket address
  return addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.');
}

/** Plain HTTP: sandbox on loopback, or on any address with PAYGATE_SANDBOX_HTTP_ANY_ADDRESS; production never. */
export function plainHttpAllowed(env: Env, localAddress: string | undefined, sandboxHttpAnyAddress = false): boolean {
  return env === 'sandbox' && (sandboxHttpAnyAddress || isLoopback(localAddress));
}

/** The time and timezone to stamp an envelope with. */
export function envelopeTime(req: FastifyRequest, opts: { timezone: string; clock: Clock }) {
  return { now: req.ctx ? req.ctx.clock.now() : opts.clock.now(), timezone: opts.timezone };
}

export function installPlatform(app: FastifyInstance, opts: PlatformOptions): void {
  installValidators(app);
  app.setSerializerCompiler(() => (data) => toWireJson(data));
  app.setReplySerializer((payload) => toWireJson(payload));
  app.decorateRequest('ctx', null);
  app.decorateRequest('idempotency', null);
  app.decorateRequest('internalCall', false);

  // ---- errors: one handler for everything -------------------------------------------------------
  app.setErrorHandler((err: any, req, reply) => {
    const time = envelopeTime(req, opts);
    let status: number;
    let details: string;
    let extra: Record<string, unknown> | undefined;
    if (err instanceof ApiError) {
      status = err.status;
      details = err.details;
      extra = err.extra;
      if (err.retryAfter !== undefined) reply.header('Retry-After', String(err.retryAfter));
    } else if (err.validation) {
      status = 400;
      details = err.message;
      if (Array.isArray(err.problems) && err.problems.length > 0) extra = { errors: err.problems };
    } else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      status = 413;
      details = 'The request body is too large';
    } else if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      status = 400;
      details = 'The request body must be JSON (Content-Type: application/json)';
    } else if (err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      status = 400;
      details = 'The request body is empty but Content-Type is application/json';
    } else if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
      status = 400;
      details = 'The request body is not valid JSON';
    } else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      status = err.statusCode;
      details = err.message;
    } else if (conflictOfViolation(err) !== undefined) {
      // a unique index that guards a rule (a reference held by a paid order): the rule's 409
      status = 409;
      details = conflictOfViolation(err)!;
    } else if (isDatabaseUnavailable(err)) {
      // the database is unreachable or dropped the connection: nothing of this request committed (its
      // transaction died with the connection), the client may retry
      status = 503;
      details = 'The service is temporarily unavailable (database unreachable); retry later';
      reply.header('Retry-After', '1');
      if (opts.outage) opts.outage.unavailable(err);
      else req.log.warn({ err: err.message }, 'database unavailable');
    } else {
      status = 500;
      details = `Internal error; request id ${req.id}`;
      req.log.error({ err }, 'unhandled error');
    }
    // what the client sent is echoed in messages (a field's name, a key, a value): no card number in any
    // of it is answered or logged, whatever refused it
    details = redactCardNumbers(details, () => '[REDACTED]');
    if (extra && Array.isArray(extra.errors)) {
      const redact = (v: unknown) => (typeof v === 'string' ? redactCardNumbers(v, () => '[REDACTED]') : v);
      extra = { ...extra, errors: (extra.errors as unknown[]).map((e) => (e && typeof e === 'object' ? Object.fromEntries(Object.entries(e).map(([k, v]) => [k, redact(v)])) : redact(e))) };
    }
    if (status >= 400 && status < 500) req.log.info({ status, details }, 'request refused');
    const page = req.routeOptions.config?.page;
    if (page) return sendErrorPage(req, reply, page, status, details);
    // the contract's 403 reason is "Unauthenticated" (a key or signature is wrong); the dashboard's own
    // routes, and the API's through its bridge, refuse a signed-in user what their group may not do
    const reasons = (req.routeOptions.config as { dashboard?: unknown } | undefined)?.dashboard || req.internalCall ? DASHBOARD_REASON : REASON;
    reply.code(status).type('application/json').send(errorEnvelope(time, status, details, extra, String(req.id), reasons));
  });

  // ---- unknown routes: 405 with Allow when the path exists for other methods, else 404 ------------
  const known = knownRoutes(app);
  app.setNotFoundHandler((req, reply) => {
    const rawPath = req.url.split('?')[0];
    const allow = known.allowed(rawPath);
    const path = redactCardNumbersInUrl(rawPath); // echoed: never a card number (issue 31)
    if (allow.length > 0) {
      reply.header('Allow', allow.join(', '));
      reply.header('X-Request-Id', req.id);
      return reply.code(405).send(errorEnvelope(envelopeTime(req, opts), 405, `${req.method} is not allowed on ${path}; allowed: ${allow.join(', ')}`, undefined, String(req.id)));
    }
    reply.header('X-Request-Id', req.id);
    reply.code(404).send(errorEnvelope(envelopeTime(req, opts), 404, `No route ${req.method} ${path}; the API reference is at /docs`, undefined, String(req.id)));
  });

  // ---- API routes: HTTPS, key, environment, rate limit, profiles ----------------------------------
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
    const cfg = req.routeOptions.config;
    const env = cfg?.env;
    if (!env) return; // not an API route (health, docs, metrics)
    // a call of the dashboard's bridge (internal-call.ts): its ticket stands for the key; the dashboard's
    // own request passed the HTTPS check, its session and its CSRF check
    const ticketHeader = req.headers[INTERNAL_TICKET_HEADER];
    if (ticketHeader !== undefined) {
      const ticket = redeemTicket(typeof ticketHeader === 'string' ? ticketHeader : undefined);
      if (!ticket || ticket.ctx.env !== env || (cfg.auth ?? 'key') !== 'key') throw unauthorized();
      // a refusal from here on is the dashboard user's (its answer says Forbidden, not Unauthenticated)
      req.internalCall = true;
      const operationId = (req.routeOptions.schema as { operationId?: string } | undefined)?.operationId;
      ticket.authorize(operationId);
      ticket.operationId = operationId;
      req.ctx = ticket.ctx;
      req.internalCall = true;
      return;
    }
    if (req.protocol !== 'https') {
      if (!plainHttpAllowed(env, req.socket?.localAddress, opts.sandboxHttpAnyAddress)) {
        if (env === 'sandbox') {
          throw forbidden('HTTPS is required: sandbox over plain HTTP is served on loopback only (set PAYGATE_SANDBOX_HTTP_ANY_ADDRESS=true to allow it on other addresses)');
        }
        throw forbidden(`HTTPS is required${await sandboxKeyHint(req, opts)}`);
      }
    }
    const auth = cfg.auth ?? 'key';
    if (auth !== 'key') return;
    const raw = parseAuthorization(req.headers.authorization);
    let key;
    try {
      if (!raw) throw unauthorized();
      key = assertKeyEnv(await opts.resolveKey(hashKey(raw)), env);
    } catch (err) {
      // missing or unknown keys are limited per client IP, so keys cannot be guessed at speed (decisions §8)
      if (err instanceof ApiError && err.status === 401) {
        const ipWait = await opts.rateLimiter.take(`ip:${req.ip}`, opts.unknownKeyRateLimit ?? 0);
        if (ipWait > 0) throw tooManyRequests('Too many requests without a valid API key from this address', ipWait);
      }
      throw err;
    }
    const wait = await opts.rateLimiter.take(key.keyId, opts.rateLimits[env]);
    if (wait > 0) throw tooManyRequests('Request rate limit exceeded for this API key', wait);
    requireProfile(key.profiles, cfg.profiles ?? []);
    const ctx = requestContext(key, opts);
    req.ctx = ctx;
    (req as any).signatureHash = key.signatureHash;
  });

  // ---- a JSON body on a GET is read like query parameters (decisions §1) -----------------------------
  installGetBodyAsQuery(app, opts.bodyLimit ?? 1024 * 1024);
  // ---- strings with U+0000 cannot be stored by PostgreSQL: 400, not 500 -------------------------------
  installNulGuard(app);
  // ---- a full card number in free text (description, names, metadata, ...) is 400 -------------------
  installPanGuard(app);

  // ---- body shape, then signature, on writes -------------------------------------------------------
  // A body that is not a JSON object (text/plain, an array, a string) is 400 saying so, before the
  // signature check (which would otherwise answer 403 "must carry the signature" to a shape problem).
  // An unsigned request still never reaches the handler: shape, then signature, then the schema.
  app.addHook('preValidation', async (req) => {
    if (!req.ctx || !WRITE_METHODS.has(req.method)) return;
    if (req.routeOptions.config?.unsigned) return;
    // the dashboard's bridge signs nothing: its ticket was issued for this one request
    if (req.internalCall) {
      const body = req.body as unknown;
      if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) throw badRequest(bodyShapeProblem(req.headers['content-type'], body));
      return;
    }
    const body = req.body as unknown;
    if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
      throw badRequest(bodyShapeProblem(req.headers['content-type'], body));
    }
    const fields = body as Record<string, unknown> | undefined;
    checkSignature(fields ? fields.signature : undefined, (req as any).signatureHash);
  });

  // ---- idempotency ---------------------------------------------------------------------------------
  app.addHook('preHandler', async (req, reply) => {
    if (!req.ctx || req.method !== 'POST') return;
    const header = req.headers['idempotency-key'];
    if (header === undefined) return;
    const key = Array.isArray(header) ? header[0] : header;
    // the request as a whole: method, the full path (the order, event or merchant it acts on, and the
    // environment through its prefix) and the body. The route pattern alone would replay one order's
    // answer for another order sent with the same key.
    const fingerprint = opts.vault.fingerprint('idempotency', `${req.method} ${canonicalTarget(req.url)}\n${JSON.stringify(req.body ?? null)}`);
    const outcome = await opts.idempotency.begin(req.ctx.merchant.id, key, fingerprint);
    if (outcome.kind === 'replay') {
      reply.header('Idempotent-Replayed', 'true');
      return replayRaw(reply, outcome.status, outcome.body);
    }
    req.idempotency = { merchantId: req.ctx.merchant.id, key, attempt: outcome.attempt };
    req.ctx.idempotencyKey = key;
    req.ctx.idempotencyAttempt = outcome.attempt;
  });

  // ---- durability: a write is answered as done only while a synchronous standby has it ---------------
  // (PAYGATE_REQUIRE_SYNC_STANDBY): a check started after the request's last commit; else 503, recorded
  // as such by the idempotency hook below (a key the request committed stays committed: the retry reads
  // the order)
  const durability = opts.durability;
  if (durability?.required) {
    app.addHook('onSend', async (req, reply, payload) => {
      if (!req.ctx || !WRITE_METHODS.has(req.method) || reply.statusCode >= 400) return payload;
      const problem = await durability.check();
      if (!problem) return payload;
      req.log.warn({ problem }, 'write not acknowledged: no synchronous standby');
      reply.code(503).header('Retry-After', '1').type('application/json');
      const details = `The outcome is not confirmed: ${problem}. Retry with the same Idempotency-Key; a request that was carried out is not carried out again`;
      return toWireJson(errorEnvelope(envelopeTime(req, opts), 503, details, undefined, String(req.id)));
    });
  }

  app.addHook('onSend', async (req, reply, payload) => {
    if (req.idempotency && (typeof payload === 'string' || payload === null || payload === undefined)) {
      const { merchantId, key, attempt } = req.idempotency;
      req.idempotency = null;
      try {
        await opts.idempotency.finish(merchantId, key, reply.statusCode, typeof payload === 'string' ? payload : '', attempt);
      } catch (err) {
        // the answer is true whatever happens to its record (the database went away after the work
        // committed): send it, and write the record once the database is back (the key stays in flight
        // until then, or until its lock lapses)
        req.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'idempotency record not written; trying again in the background');
        const status = reply.statusCode;
        opts.idempotency.finishLater(merchantId, key, status, typeof payload === 'string' ? payload : '', (e) =>
          req.log.error({ err: e instanceof Error ? e.message : String(e) }, 'idempotency record not written before its lock lapsed'),
        attempt);
      }
    }
    return payload;
  });
}

/**
 * A production path called over plain HTTP with a sandbox key (a newcomer's first call, the `/sandbox`
 * left out): the hint to call the sandbox path instead. Unknown keys count against the per-address
 * limit, as on every route, so this cannot be used to test keys at speed.
 */
async function sandboxKeyHint(req: FastifyRequest, opts: PlatformOptions): Promise<string> {
  const raw = parseAuthorization(req.headers.authorization);
  if (!raw) return '';
  const key = await opts.resolveKey(hashKey(raw));
  if (!key) {
    const ipWait = await opts.rateLimiter.take(`ip:${req.ip}`, opts.unknownKeyRateLimit ?? 0);
    if (ipWait > 0) throw tooManyRequests('Too many requests without a valid API key from this address', ipWait);
    return '';
  }
  if (key.env !== 'sandbox') return '';
  // the route's pattern, not the path sent (nothing the caller typed is echoed)
  const route = req.routeOptions.url ?? '/v1';
  return `: this is a sandbox API key, and ${route} is the production API. Call the sandbox at ${route.replace(/^\/v1(?=\/|$)/, '/v1/sandbox')} (served over plain HTTP on loopback)`;
}

/**
 * The path and query of a request in one form whatever way it was written: percent-encoding of
 * unreserved characters decoded, hex digits of the rest in upper case, repeated and trailing slashes
 * dropped (the router ignores them), query parameters sorted.
 */
export function canonicalTarget(url: string): string {
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const path =
    rawPath
      .replace(/%([0-9a-fA-F]{2})/g, (m, hex: string) => {
        const c = String.fromCharCode(parseInt(hex, 16));
        return /[A-Za-z0-9\-._~]/.test(c) ? c : `%${hex.toUpperCase()}`;
      })
      .replace(/\/{2,}/g, '/')
      .replace(/(.)\/+$/, '$1') || '/';
  if (q < 0) return path;
  const params = [...new URLSearchParams(url.slice(q + 1))].sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return params.length === 0 ? path : `${path}?${new URLSearchParams(params).toString()}`;
}

/** Why a write body that is not a JSON object is refused, in the client's terms. */
function bodyShapeProblem(contentType: string | undefined, body: unknown): string {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== '' && !/^application\/([a-z0-9.+-]*\+)?json$/.test(type)) {
    return `The request body must be a JSON object sent with Content-Type: application/json, not ${type}`;
  }
  const kind = Array.isArray(body) ? 'an array' : body === null ? 'null' : typeof body === 'string' ? 'a string' : `a ${typeof body}`;
  return `The request body must be a JSON object with the operation's fields and signature, not ${kind}`;
}

/**
 * Every route's method and path, in a router of the same kind and options as Fastify's, so a path that
 * exists for other methods answers 405 with `Allow` instead of 404.
 */
function knownRoutes(app: FastifyInstance) {
  const router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 200 });
  const methods = new Set<string>();
  const noop = () => undefined;
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      methods.add(method);
      try {
        router.on(method as any, route.url, noop);
      } catch {
        // the same method and path registered twice (another constraint): already known
      }
    }
  });
  return {
    allowed(path: string): string[] {
      return [...methods].filter((m) => router.find(m as any, path) !== null).sort();
    },
  };
}

/** An error of a customer-facing page: an HTML page from the route's renderer, never a stack trace. */
function sendErrorPage(req: FastifyRequest, reply: FastifyReply, page: PageRoute, status: number, details: string) {
  let body: string;
  try {
    body = page.renderError(req, reply, { status, details });
  } catch (err) {
    req.log.error({ err }, 'error page renderer failed');
    reply.header('Content-Security-Policy', "default-src 'none'; base-uri 'none'");
    body = `<!doctype html><meta charset="utf-8"><title>${status}</title><p>Error ${status}</p>`;
  }
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

function replayRaw(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

export interface ApiRoute {
  method: string;
  url: string;
  env: Env;
  hasBody: boolean;
  /** How the route authenticates: an API key (most), a device token (card-present), or nothing. */
  auth: RouteAuth;
  /** The route's own body limit, when it has one (routes that take files); else the app's. */
  bodyLimit?: number;
  /** The route answers with a stream that stays open (Server-Sent Events). */
  stream?: boolean;
}

const apiRoutes = new WeakMap<object, ApiRoute[]>();
const pageRoutes = new WeakMap<object, ApiRoute[]>();

/** Every JSON API route registered on an app (tests use it to exercise every route). Pages are not listed. */
export function listApiRoutes(app: FastifyInstance): ApiRoute[] {
  return apiRoutes.get(app) ?? [];
}

/** Every customer-facing page route (`config.page`) registered under /v1 and /v1/sandbox. */
export function listPageRoutes(app: FastifyInstance): ApiRoute[] {
  return pageRoutes.get(app) ?? [];
}

/**
 * Registers a module's routes under `/v1` (production) and `/v1/sandbox` (sandbox). Each copy knows
 * its environment through the route config.
 */
export async function registerApi(
  app: FastifyInstance,
  plugin: (scope: FastifyInstance) => Promise<void> | void,
): Promise<void> {
  let list = apiRoutes.get(app);
  if (!list) apiRoutes.set(app, (list = []));
  let pages = pageRoutes.get(app);
  if (!pages) pageRoutes.set(app, (pages = []));
  const routes = list;
  const pageList = pages;
  for (const [env, prefix] of [
    ['production', '/v1'],
    ['sandbox', '/v1/sandbox'],
  ] as const) {
    await app.register(
      async (scope) => {
        scope.addHook('onRoute', (route) => {
          route.config = { ...(route.config ?? {}), env };
          if (route.config.bodyLimit) route.bodyLimit = route.config.bodyLimit;
          for (const method of [route.method].flat()) {
            if (method === 'HEAD') continue;
            (route.config.page ? pageList : routes).push({ method, url: route.url, env, hasBody: !!(route.schema as { body?: unknown } | undefined)?.body, auth: route.config.auth ?? 'key', ...(route.config.bodyLimit ? { bodyLimit: route.config.bodyLimit as number } : {}), ...(route.config.stream ? { stream: true } : {}) });
          }
        });
        await plugin(scope);
      },
      { prefix },
    );
  }
}

/** One validation problem, as the error envelope lists it in `errors`. */
export interface FieldProblem {
  /** The field as the client sent it: `amount`, `cards[0].card_pan`, `extra_data.cof.reason`. */
  field: string;
  /** What is wrong with it, e.g. `is required`, `must be integer`, `must be one of: MAIL, PHONE`. */
  problem: string;
}

/** JSON pointer (`/cards/0/card_pan`) to the way a client names the field (`cards[0].card_pan`). */
function fieldName(pointer: string, extra?: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  let out = '';
  for (const p of parts) out += /^[0-9]+$/.test(p) ? `[${p}]` : out === '' ? p : `.${p}`;
  return out;
}

/**
 * Every problem Ajv found, one per field and kind: the branches of a union are merged (`must be string
 * or integer`), and a nullable field's "must be null" is dropped when the other branch says more.
 */
export function schemaProblems(errors: any[]): FieldProblem[] {
  const useful = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  const byPath = new Map<string, any[]>();
  for (const e of useful) {
    const key = e.instancePath ?? '';
    byPath.set(key, [...(byPath.get(key) ?? []), e]);
  }
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  const add = (field: string, problem: string) => {
    const k = `${field}\u0000${problem}`;
    if (seen.has(k)) return;
    seen.add(k);
    problems.push({ field, problem });
  };
  for (const [path, list] of byPath) {
    const types = list.filter((e) => e.keyword === 'type');
    const others = list.filter((e) => e.keyword !== 'type');
    // a value of the right type that breaks a rule: the rule says more than the other branches' types
    const typeMatched = others.some((e) => e.keyword !== 'required' && e.keyword !== 'const' && e.keyword !== 'enum');
    if (types.length > 0 && !typeMatched) {
      const told = types.map(sentenceFor).find((x) => x !== undefined);
      if (told) {
        add(fieldName(path), told);
        for (const e of others.filter((x) => x.keyword === 'required')) add(fieldName(path, e.params.missingProperty), 'is required');
        continue;
      }
      const names = [...new Set(types.flatMap((e) => [e.params?.type].flat()))];
      const consts = others.filter((e) => e.keyword === 'const' || e.keyword === 'enum');
      const allowed = consts.flatMap((e) => (e.keyword === 'const' ? [e.params?.allowedValue] : (e.params?.allowedValues ?? [])));
      const what = [...names, ...allowed.map((v: unknown) => JSON.stringify(v))];
      add(fieldName(path), `must be ${what.join(' or ')}`);
      for (const e of others.filter((x) => x.keyword === 'required')) add(fieldName(path, e.params.missingProperty), 'is required');
      continue;
    }
    const enumValues = others.filter((e) => e.keyword === 'const' || e.keyword === 'enum');
    if (enumValues.length > 0) {
      const allowed = enumValues.flatMap((e) => (e.keyword === 'const' ? [e.params?.allowedValue] : (e.params?.allowedValues ?? [])));
      add(fieldName(path), `must be one of: ${allowed.join(', ')}`);
    }
    for (const e of others) {
      if (e.keyword === 'const' || e.keyword === 'enum') continue;
      if (e.keyword === 'required') add(fieldName(path, e.params.missingProperty), 'is required');
      else if (e.keyword === 'additionalProperties') add(fieldName(path, e.params.additionalProperty), 'is not allowed');
      else add(fieldName(path), sentenceFor(e) ?? String(e.message ?? 'is invalid'));
    }
  }
  return problems;
}

/** The sentence a schema node asks for (`x-problem`, schemas.ts PROBLEM), or one for a pattern; else undefined. */
function sentenceFor(e: any): string | undefined {
  const told = e.parentSchema?.['x-problem'];
  if (told === 'amount') return e.keyword === 'type' ? amountProblem(e.data) : undefined;
  if (typeof told === 'string' && (e.keyword === 'pattern' || e.keyword === 'type' || e.keyword === 'format')) return told;
  if (e.keyword === 'pattern') return describePattern(String(e.params?.pattern ?? ''), e.parentSchema?.description);
  return undefined;
}

/** An amount sent in major units ("10.50", 10.5) is told what to send instead. */
export function amountProblem(v: unknown): string {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?[0-9]+([.,][0-9]+)?\s*$/.test(v) ? Number(v.trim().replace(',', '.')) : NaN;
  const example = Number.isFinite(n) && !Number.isInteger(n) && Math.abs(n) < 1e12 ? `${n.toFixed(2)} in a currency with cents is ${Math.round(n * 100)}` : '10.50 in a currency with cents is 1050';
  return `must be an integer: amounts are in minor units of the currency (${example})`;
}

/** A pattern as a sentence: `^[0-9]{4}$` with description `YYMM` is `must be 4 digits (YYMM)`. */
export function describePattern(pattern: string, description?: string): string {
  const note = description ? ` (${description})` : '';
  const classes: Record<string, string> = { '[0-9]': 'digits', '[A-Z]': 'upper-case letters', '[A-Za-z]': 'letters', '[0-9A-Fa-f]': 'hexadecimal digits', '[A-Za-z0-9]': 'letters or digits' };
  const m = /^\^(\[[^\]]+\])(?:\{(\d+)(?:,(\d+))?\}|(\+))\$$/.exec(pattern);
  if (m && classes[m[1]]) {
    const what = classes[m[1]];
    if (m[4]) return `must be ${what} only${note}`;
    return m[3] ? `must be ${m[2]} to ${m[3]} ${what}${note}` : `must be ${m[2]} ${what}${note}`;
  }
  if (pattern === '^-?[0-9]+$') return `must be a whole number${note}`;
  return description ? `must be ${description}` : 'is not in the format the API reference shows for it';
}

const DETAILS_MAX = 10;
const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query parameter', params: 'path parameter', headers: 'header' };

/**
 * Validation messages that name the field and say what is expected, e.g.
 * `amount must be integer; operative must be one of: AUTHORIZATION, DEFERRED` (path and query
 * parameters say so: `path parameter order_uuid must match format "uuid"`). The error
 * also carries every problem as `problems` ({field, problem}), which the error handler puts in the
 * envelope's `errors`.
 */
export function formatSchemaErrors(errors: any[], dataVar: string): Error {
  const problems = schemaProblems(errors);
  const list = problems.length > 0 ? problems : [{ field: '', problem: 'is invalid' }];
  const part = PART_NAMES[dataVar] ?? dataVar;
  const text = list
    .slice(0, DETAILS_MAX)
    .map((p) => (p.field === '' ? `the request ${dataVar === 'querystring' ? 'query' : dataVar} ${p.problem}` : `${part === 'body' ? '' : `${part} `}${p.field} ${p.problem}`))
    .join('; ');
  const more = list.length > DETAILS_MAX ? `; and ${list.length - DETAILS_MAX} more (see errors)` : '';
  const err = new Error(text + more) as Error & { problems: FieldProblem[] };
  err.problems = problems;
  return err;
}
