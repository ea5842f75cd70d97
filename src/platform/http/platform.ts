/**
 * The one shared wrapper every API route goes through (design.md principle 2): validation compilers,
 * the wire serializer, the single error handler, HTTPS enforcement, authentication, profiles, rate
 * limiting, body signature and idempotency. Routes declare `config: { profiles }` and a schema; this
 * plugin does the rest.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Env } from '../db/schema.js';
import { ApiError, forbidden, tooManyRequests, unauthorized } from '../errors/errors.js';
import { Secret } from '../security/secret.js';
import type { Vault } from '../security/vault.js';
import { merchantClock, type Clock } from '../time/clock.js';
import { assertKeyEnv, checkSignature, hashKey, parseAuthorization, requireProfile, type KeyResolver } from './auth.js';
import { errorEnvelope } from './envelope.js';
import { installGetBodyAsQuery } from './get-body.js';
import { installNulGuard } from './nul-guard.js';
import { lenientValidator } from './lenient.js';
import type { IdempotencyStore } from './idempotency.js';
import { toWireJson } from './json.js';
import type { RateLimiter } from './rate-limit.js';
import type { PageRoute, RequestContext } from './types.js';

export interface PlatformOptions {
  timezone: string;
  /** Largest body read from a GET request (decisions §1: a GET body is read like query parameters). */
  bodyLimit?: number;
  clock: Clock;
  vault: Vault;
  resolveKey: KeyResolver;
  rateLimiter: RateLimiter;
  rateLimits: Record<Env, number>;
  /** Requests per second per client IP with a missing or unknown API key (0: no limit). */
  unknownKeyRateLimit?: number;
  idempotency: IdempotencyStore;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Validator compilers: bodies are validated strictly (wrong types are 400), query and path coerced. */
function installValidators(app: FastifyInstance): void {
  const base = { useDefaults: true, removeAdditional: true, allErrors: false, strict: false } as const;
  const bodyAjv = addFormats.default(new Ajv.default({ ...base, coerceTypes: false }));
  const paramAjv = addFormats.default(new Ajv.default({ ...base, coerceTypes: 'array' }));
  // lenient scalars (decisions §10): marked values are read into their canonical form first (lenient.ts)
  app.setValidatorCompiler(({ schema, httpPart }) =>
    lenientValidator(schema, (s) => (httpPart === 'body' ? bodyAjv : paramAjv).compile(s as object)) as any,
  );
}

function isLoopback(addr: string | undefined): boolean {
  if (!addr) return true; // in-process requests (tests) have no socket address
  return addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.');
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
    } else {
      status = 500;
      details = `Internal error; request id ${req.id}`;
      req.log.error({ err }, 'unhandled error');
    }
    if (status >= 400 && status < 500) req.log.info({ status, details }, 'request refused');
    const page = req.routeOptions.config?.page;
    if (page) return sendErrorPage(req, reply, page, status, details);
    reply.code(status).type('application/json').send(errorEnvelope(time, status, details, extra));
  });

  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(errorEnvelope(envelopeTime(req, opts), 404, `No route ${req.method} ${req.url.split('?')[0]}`));
  });

  // ---- API routes: HTTPS, key, environment, rate limit, profiles ----------------------------------
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Request-Id', req.id);
    const cfg = req.routeOptions.config;
    const env = cfg?.env;
    if (!env) return; // not an API route (health, docs, metrics)
    if (req.protocol !== 'https') {
      const allowed = env === 'sandbox' && isLoopback(req.socket?.localAddress);
      if (!allowed) throw forbidden('HTTPS is required');
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
        const ipWait = opts.rateLimiter.take(`ip:${req.ip}`, opts.unknownKeyRateLimit ?? 0);
        if (ipWait > 0) throw tooManyRequests('Too many requests without a valid API key from this address', ipWait);
      }
      throw err;
    }
    const wait = opts.rateLimiter.take(key.keyId, opts.rateLimits[env]);
    if (wait > 0) throw tooManyRequests('Request rate limit exceeded for this API key', wait);
    requireProfile(key.profiles, cfg.profiles ?? []);
    let sig: Secret<string> | null = null;
    const ctx: RequestContext = {
      env,
      timezone: opts.timezone,
      keyId: key.keyId,
      profiles: key.profiles,
      merchant: key.merchant,
      clock: merchantClock(opts.clock, env === 'sandbox' ? key.merchant.clockOffsetMs : 0),
      signature: () => (sig ??= opts.vault.open(key.signatureSealed, `signature:${key.keyId}`)),
    };
    req.ctx = ctx;
    (req as any).signatureHash = key.signatureHash;
  });

  // ---- a JSON body on a GET is read like query parameters (decisions §1) -----------------------------
  installGetBodyAsQuery(app, opts.bodyLimit ?? 1024 * 1024);
  // ---- strings with U+0000 cannot be stored by PostgreSQL: 400, not 500 -------------------------------
  installNulGuard(app);

  // ---- body signature on writes --------------------------------------------------------------------
  app.addHook('preValidation', async (req) => {
    if (!req.ctx || !WRITE_METHODS.has(req.method)) return;
    const body = req.body as Record<string, unknown> | undefined | null;
    checkSignature(body && typeof body === 'object' ? body.signature : undefined, (req as any).signatureHash);
  });

  // ---- idempotency ---------------------------------------------------------------------------------
  app.addHook('preHandler', async (req, reply) => {
    if (!req.ctx || req.method !== 'POST') return;
    const header = req.headers['idempotency-key'];
    if (header === undefined) return;
    const key = Array.isArray(header) ? header[0] : header;
    const fingerprint = opts.vault.fingerprint('idempotency', `${req.method} ${req.routeOptions.url}\n${JSON.stringify(req.body ?? null)}`);
    const outcome = await opts.idempotency.begin(req.ctx.merchant.id, key, fingerprint);
    if (outcome.kind === 'replay') {
      reply.header('Idempotent-Replayed', 'true');
      return replayRaw(reply, outcome.status, outcome.body);
    }
    req.idempotency = { merchantId: req.ctx.merchant.id, key };
  });

  app.addHook('onSend', async (req, reply, payload) => {
    if (req.idempotency && (typeof payload === 'string' || payload === null || payload === undefined)) {
      const { merchantId, key } = req.idempotency;
      req.idempotency = null;
      await opts.idempotency.finish(merchantId, key, reply.statusCode, typeof payload === 'string' ? payload : '');
    }
    return payload;
  });
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
            (route.config.page ? pageList : routes).push({ method, url: route.url, env, hasBody: !!(route.schema as { body?: unknown } | undefined)?.body });
          }
        });
        await plugin(scope);
      },
      { prefix },
    );
  }
}

/**
 * Validation messages that name the field and say what is expected, e.g.
 * `body/amount must be integer`, `body/operative must be one of: AUTHORIZATION, DEFERRED`.
 */
export function formatSchemaErrors(errors: any[], dataVar: string): Error {
  const useful = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  const nonNull = useful.filter((e) => !(e.keyword === 'type' && e.params?.type === 'null'));
  const chosen = (nonNull.length > 0 ? nonNull : useful.length > 0 ? useful : errors).slice(0, 3);
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const e of chosen) {
    const field = `${dataVar}${e.instancePath ?? ''}`;
    let text: string;
    if (e.keyword === 'required') text = `${field}/${e.params.missingProperty} is required`;
    else if (e.keyword === 'enum') text = `${field} must be one of: ${(e.params.allowedValues ?? []).join(', ')}`;
    else if (e.keyword === 'additionalProperties') text = `${field} must not have property ${e.params.additionalProperty}`;
    else text = `${field} ${e.message}`;
    if (!seen.has(text)) {
      seen.add(text);
      parts.push(text);
    }
  }
  return new Error(parts.join('; '));
}
