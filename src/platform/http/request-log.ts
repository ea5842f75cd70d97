/**
 * The API request log: every request an API key made (method, path, status, duration, idempotency key,
 * request id, and the request and answer bodies), so a merchant's developers can see exactly what their
 * integration sent. Bodies are redacted before they leave the request: card numbers (security/
 * card-numbers.ts, wherever they are, in keys too), CVVs, PIN blocks, track data, signatures, keys, passwords and
 * terminal credentials become `[REDACTED]`; URLs lose their secret query values and card numbers as in
 * the logs, and the Idempotency-Key its card numbers.
 *
 * The hook hands each entry to a sink (the dashboard module stores them, batched off the request path).
 */
import type { FastifyInstance } from 'fastify';
import { redactUrl } from '../logging.js';
import { cardNumberSpans, isCardNumber } from '../security/card-numbers.js';
import type { Env } from '../db/schema.js';

export interface RequestLogEntry {
  merchantId: string;
  env: Env;
  keyId: string | null;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  idempotencyKey: string | null;
  requestId: string;
  orderId: string | null;
  requestBody: string | null;
  responseBody: string | null;
  at: Date;
}

export interface RequestLogSink {
  record(entry: RequestLogEntry): void;
}

/** Most characters of a body kept in the log. */
export const BODY_MAX = 64 * 1024;

/** Keys whose values never go into the request log, at any depth (lower case, `-` read as `_`). */
const SECRET_KEYS = new Set([
  'signature', 'card_pan', 'pan', 'card_number', 'number', 'account_number', 'card_cvv', 'cvv', 'cvv2', 'cvc', 'cvc2', 'card_cvc',
  'pin', 'pin_block', 'pinblock', 'epb', 'track', 'track1', 'track2', 'track_data', 'track2_data', 'emv', 'icc', 'icc_data',
  'api_key', 'password', 'new_password', 'current_password', 'secret', 'private_key', 'credentials', 'key_secure', 'key_not_secure',
  'signing_api_key', 'cryptogram', 'payload', 'payment_data', 'token_data', 'decryption_key', 'merchant_private_key',
]);

const UUID_RE = /\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/i;

/** A text with every card number in it (security/card-numbers.ts; groups joined any way) replaced. */
export function redactPans(text: string): string {
  const spans = cardNumberSpans(text, { anyGrouping: true });
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [s, e] of spans) {
    out += `${text.slice(at, s)}[REDACTED]`;
    at = e;
  }
  return out + text.slice(at);
}

/** A parsed JSON value with secret keys and card numbers redacted. */
export function redactValue(v: unknown, depth = 0): unknown {
  if (depth > 32) return '[REDACTED]';
  if (typeof v === 'string') return redactPans(v);
  if (typeof v === 'number') return Number.isInteger(v) && isCardNumber(String(v)) ? '[REDACTED]' : v;
  if (Array.isArray(v)) return v.map((x) => redactValue(x, depth + 1));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [rawKey, x] of Object.entries(v as Record<string, unknown>)) {
      const k = redactPans(rawKey);
      out[k] = SECRET_KEYS.has(k.toLowerCase().replace(/-/g, '_')) && x !== null && x !== '' ? '[REDACTED]' : redactValue(x, depth + 1);
    }
    return out;
  }
  return v;
}

/** A body as the log keeps it: JSON redacted key by key, anything else scrubbed of card numbers; cut at BODY_MAX. */
export function redactBody(body: unknown): string | null {
  if (body === undefined || body === null || body === '') return null;
  let text: string;
  if (typeof body === 'string') {
    try {
      text = JSON.stringify(redactValue(JSON.parse(body)));
    } catch {
      text = redactPans(body);
    }
  } else if (Buffer.isBuffer(body)) {
    return `[${body.length} bytes]`;
  } else {
    text = JSON.stringify(redactValue(body));
  }
  return text.length > BODY_MAX ? `${text.slice(0, BODY_MAX)}…[cut]` : text;
}

/** The order a request touched: in its path, its `order_uuid`, or the order it answered with. */
function orderOf(path: string, body: unknown, answer: string | null): string | null {
  const inPath = /\/order\/([0-9a-fA-F-]{36})/.exec(path);
  if (inPath && UUID_RE.test(inPath[1])) return inPath[1].toLowerCase();
  const b = body as Record<string, unknown> | null | undefined;
  if (b && typeof b === 'object' && typeof b.order_uuid === 'string' && UUID_RE.test(b.order_uuid) && b.order_uuid.length === 36) return b.order_uuid.toLowerCase();
  if (answer) {
    const m = /^\{[^]*?"order":\{"uuid":"([0-9a-f-]{36})"/.exec(answer.slice(0, 400));
    if (m) return m[1];
  }
  return null;
}

/** Records every request that an API key authenticated (`req.ctx`), after its answer is sent. */
export function installRequestLog(app: FastifyInstance, sink: RequestLogSink, now: () => Date): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.ctx && !req.routeOptions.config?.stream) {
      (req as unknown as { logAnswer?: string | null }).logAnswer = typeof payload === 'string' ? payload : null;
    }
    return payload;
  });
  app.addHook('onResponse', async (req, reply) => {
    const ctx = req.ctx;
    // the dashboard's own calls are in its audit log, not in the merchant's API request log
    if (!ctx || req.internalCall) return;
    try {
      const answer = (req as unknown as { logAnswer?: string | null }).logAnswer ?? null;
      const path = redactUrl(req.url);
      const idem = req.headers['idempotency-key'];
      sink.record({
        merchantId: ctx.merchant.id,
        env: ctx.env,
        keyId: ctx.keyId,
        method: req.method,
        path: path.length > 2000 ? path.slice(0, 2000) : path,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime),
        idempotencyKey: typeof idem === 'string' ? redactPans(idem).slice(0, 255) : null,
        requestId: req.id,
        orderId: orderOf(req.url, req.body, answer),
        requestBody: req.method === 'GET' || req.method === 'HEAD' ? null : redactBody(req.body),
        responseBody: redactBody(answer),
        at: now(),
      });
    } catch (err) {
      req.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'request log entry not recorded');
    }
  });
}
