/**
 * One error handler for everything the API and the pages answer: the closed catalogue's errors, schema
 * and body problems, database outages and the rest (a 500 with the request id), as the contract's
 * envelope, or as a page's HTML error page; and unknown routes: 405 with Allow when the path exists for
 * other methods, else 404.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { isDatabaseUnavailable } from '../db/database.js';
import { ApiError, REASON, conflictOfViolation } from '../errors/errors.js';

import type { Clock } from '../time/clock.js';
import { errorEnvelope } from './envelope.js';
import { redactCardNumbersInUrl } from '../logging.js';
import { redactCardNumbers } from '../security/card-numbers.js';
import type { PageRoute } from './types.js';
import type { PlatformOptions } from './platform-options.js';

/** The dashboard's reason phrases: a 403 there is a signed-in user refused, not a wrong key. */
const DASHBOARD_REASON: Record<number, string> = { ...REASON, 403: 'Forbidden' };

/** The time and timezone to stamp an envelope with. */
export function envelopeTime(req: FastifyRequest, opts: { timezone: string; clock: Clock }) {
  return { now: req.ctx ? req.ctx.clock.now() : opts.clock.now(), timezone: opts.timezone };
}

export function installErrorHandler(app: FastifyInstance, opts: PlatformOptions): void {
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
