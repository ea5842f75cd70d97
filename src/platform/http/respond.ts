/** Helpers handlers use to answer in the envelope. */
import type { FastifyRequest } from 'fastify';
import { okEnvelope } from './envelope.js';
import type { RequestContext } from './types.js';

/** The context of an authenticated request (the platform guarantees it on 'key' routes). */
export function ctxOf(req: FastifyRequest): RequestContext {
  if (!req.ctx) throw new Error('route is not authenticated');
  return req.ctx;
}

/** `{message: "OK", code: 200, current_time, ...fields}` in the caller's time. */
export function ok<T extends Record<string, unknown>>(ctx: RequestContext, fields: T = {} as T) {
  return okEnvelope({ now: ctx.clock.now(), timezone: ctx.timezone }, fields);
}
