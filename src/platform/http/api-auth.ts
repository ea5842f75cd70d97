/**
 * What every API route passes before its handler: HTTPS (plain HTTP for the sandbox on loopback only),
 * the API key (or the dashboard bridge's ticket), its environment, the rate limits and the route's
 * profiles; and, on writes, the body's shape and then its signature.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Env } from '../db/schema.js';
import { ApiError, badRequest, forbidden, tooManyRequests, unauthorized } from '../errors/errors.js';

import { requestContext } from './context.js';
import { INTERNAL_TICKET_HEADER, redeemTicket } from './internal-call.js';
import { assertKeyEnv, checkSignature, hashKey, parseAuthorization, requireProfile } from './auth.js';
import type { PlatformOptions } from './platform-options.js';
import { WRITE_METHODS } from './idempotency-hooks.js';

function isLoopback(addr: string | undefined): boolean {
  if (!addr) return true; // in-process requests (tests) have no socket address
  return addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.');
}

/** Plain HTTP: sandbox on loopback, or on any address with PAYGATE_SANDBOX_HTTP_ANY_ADDRESS; production never. */
export function plainHttpAllowed(env: Env, localAddress: string | undefined, sandboxHttpAnyAddress = false): boolean {
  return env === 'sandbox' && (sandboxHttpAnyAddress || isLoopback(localAddress));
}

/** The onRequest hook of API routes: HTTPS, key, environment, rate limit, profiles. */
export function installApiAuth(app: FastifyInstance, opts: PlatformOptions): void {
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
}

/**
 * Body shape, then signature, on writes (a preValidation hook, after the request guards).
 */
export function installSignatureCheck(app: FastifyInstance): void {
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

/** Why a write body that is not a JSON object is refused, in the client's terms. */
function bodyShapeProblem(contentType: string | undefined, body: unknown): string {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type !== '' && !/^application\/([a-z0-9.+-]*\+)?json$/.test(type)) {
    return `The request body must be a JSON object sent with Content-Type: application/json, not ${type}`;
  }
  const kind = Array.isArray(body) ? 'an array' : body === null ? 'null' : typeof body === 'string' ? 'a string' : `a ${typeof body}`;
  return `The request body must be a JSON object with the operation's fields and signature, not ${kind}`;
}
