/**
 * Idempotency of POST requests (an Idempotency-Key replays the first answer of the same request) and the
 * durability of writes (PAYGATE_REQUIRE_SYNC_STANDBY: a write is answered as done only while a
 * synchronous standby has it).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

import { errorEnvelope } from './envelope.js';
import { toWireJson } from './json.js';
import type { PlatformOptions } from './platform-options.js';
import { envelopeTime } from './error-handler.js';

export const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function installIdempotency(app: FastifyInstance, opts: PlatformOptions): void {
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

function replayRaw(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}
