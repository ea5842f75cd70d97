/**
 * Text PostgreSQL cannot hold: the NUL character (U+0000) in any text, and an unpaired UTF-16 surrogate
 * (`"\ud800"` in JSON: half of a character) in what is stored as JSON (`22P02 Unicode low surrogate must
 * follow a high surrogate`). Either would fail in the database as a 500. Bad input is a 400, so every
 * API request's body (keys and values), query and path parameters are checked first, and the error
 * names the field (the dashboard's JSON API uses the same check).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../errors/errors.js';

/** Half of a character: a high surrogate without the low one after it, or a low one without the high one before it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with a string, or null. */
function flaw(s: string): 'nul' | 'surrogate' | null {
  if (s.includes('\u0000')) return 'nul';
  return LONE_SURROGATE.test(s) ? 'surrogate' : null;
}

/** The path of the first string (value or key) PostgreSQL cannot hold, and why, or null. */
export function findUnstorable(value: unknown, path: string, depth = 0): { path: string; flaw: 'nul' | 'surrogate' } | null {
  if (typeof value === 'string') {
    const f = flaw(value);
    return f ? { path, flaw: f } : null;
  }
  if (depth > 32 || value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findUnstorable(value[i], `${path}/${i}`, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const f = flaw(k);
    // the key itself is not echoed (it may be anything): the object holding it is named
    if (f) return { path: `${path} (a key)`, flaw: f };
    const hit = findUnstorable(v, `${path}/${k}`, depth + 1);
    if (hit) return hit;
  }
  return null;
}

/** The path of the first string containing U+0000 (in values or keys), or null. */
export function findNul(value: unknown, path: string, depth = 0): string | null {
  const hit = findUnstorable(value, path, depth);
  return hit?.flaw === 'nul' ? hit.path : null;
}

/** 400 naming the first parameter, query field or body field that carries U+0000 or half a character. */
export function refuseNul(req: FastifyRequest): void {
  const hit = findUnstorable(req.params, 'params') ?? findUnstorable(req.query, 'querystring') ?? findUnstorable(req.body, 'body');
  if (!hit) return;
  if (hit.flaw === 'nul') throw badRequest(`${hit.path} must not contain the NUL character (\\u0000)`);
  throw badRequest(`${hit.path} must not contain an unpaired UTF-16 surrogate (\\ud800 to \\udfff without its other half): send whole characters`);
}

export function installNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    if (!req.routeOptions.config?.env) return;
    refuseNul(req);
  });
}
