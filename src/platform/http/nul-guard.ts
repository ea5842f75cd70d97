/**
 * PostgreSQL text cannot hold the NUL character (U+0000): a string carrying one would fail in the
 * database as a 500. Bad input is a 400, so every API request's body, query and path parameters are
 * checked first, and the error names the field (the dashboard's JSON API uses the same check).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../errors/errors.js';

/** The path of the first string containing U+0000 (in values or keys), or null. */
export function findNul(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (depth > 32 || value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNul(value[i], `${path}/${i}`, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (k.includes('\u0000')) return path;
    const hit = findNul(v, `${path}/${k}`, depth + 1);
    if (hit) return hit;
  }
  return null;
}

/** 400 naming the first parameter, query field or body field that carries U+0000. */
export function refuseNul(req: FastifyRequest): void {
  const hit = findNul(req.params, 'params') ?? findNul(req.query, 'querystring') ?? findNul(req.body, 'body');
  if (hit) throw badRequest(`${hit} must not contain the NUL character (\\u0000)`);
}

export function installNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    if (!req.routeOptions.config?.env) return;
    refuseNul(req);
  });
}
