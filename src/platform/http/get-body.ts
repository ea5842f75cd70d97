/**
 * decisions §1: a GET that carries a JSON body has it read like query parameters (some clients send
 * `GET /customer` with `{"customer_ext_id": ...}` in the body). Fastify does not parse GET bodies, so
 * this hook reads the raw body (bounded by the body limit), and copies its scalar fields into the query
 * where the query does not already have them. Query and path validation then see them as usual.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, badRequest } from '../errors/errors.js';

async function readRaw(req: FastifyRequest, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.raw) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += b.length;
    if (size > limit) throw new ApiError(413, 'The request body is too large');
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function installGetBodyAsQuery(app: FastifyInstance, bodyLimit: number): void {
  app.addHook('preValidation', async (req) => {
    if (req.method !== 'GET' || !req.routeOptions.config?.env) return;
    const length = Number(req.headers['content-length'] ?? 0);
    if (!(length > 0) && req.headers['transfer-encoding'] === undefined) return;
    const text = (await readRaw(req, bodyLimit)).trim();
    if (text === '') return;
    const type = String(req.headers['content-type'] ?? 'application/json');
    if (!/json/i.test(type) && !text.startsWith('{')) return;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw badRequest('The request body is not valid JSON');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return;
    const query = (req.query && typeof req.query === 'object' ? req.query : {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
      if (k in query || k === '__proto__' || k === 'constructor') continue;
      if (typeof v === 'string') query[k] = v;
      else if (typeof v === 'number' || typeof v === 'boolean') query[k] = String(v);
    }
    req.query = query;
  });
}
