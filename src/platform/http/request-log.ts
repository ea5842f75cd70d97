/**
 * The API request log: every request an API key made (method, path, status, duration, idempotency key,
 * request id, and the request and answer bodies), so a merchant's developers can see exactly what their
 * integration sent. Bodies are redacted before they leave the request: card numbers (security/
 * card-numbers.ts, wherever they are, in keys too), CVVs, PIN blocks, track data, signatures, keys, passwords and
 * terminal credentials become `[REDACTED]`; URLs lose their secret query values and card numbers as in
 * the logs, and the Idempotency-Key its card numbers.
 *
 * The request's work is only to capture (references to the parsed body and the answer's text, a few
 * fields): the sink redacts and writes later, in batches, off the request's path (`redactEntry`). Answers
 * are the gateway's own JSON text (its serializer escapes only `/` and non-ASCII, never a digit), so they
 * are redacted on the text itself (`redactAnswerText`: secret keys' values, card numbers) without parsing
 * and writing them again; request bodies, which the client wrote, are walked as the parsed value.
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

/**
 * What the hook captures of a request, cheaply (no redaction yet): the URL, the parsed body and the
 * answer's text as they are. Held in memory until the sink redacts it (`redactEntry`); never logged.
 */
export interface CapturedRequest {
  merchantId: string;
  env: Env;
  keyId: string | null;
  method: string;
  url: string;
  status: number;
  durationMs: number;
  idempotencyKey: string | null;
  requestId: string;
  body: unknown;
  answer: string | null;
  at: Date;
}

export interface RequestLogSink {
  /** Takes a captured request; redacts and stores it later (and may drop it when it falls behind). */
  capture(entry: CapturedRequest): void;
}

/** Most characters of a body kept in the log. */
export const BODY_MAX = 64 * 1024;

/** Keys whose values never go into the request log, at any depth (lower case, `-` read as `_`). */
const SECRET_KEYS = new Set([
  'signature', 'card_pan', 'pan', 'card_number', 'number', 'account_number', 'card_cvv', 'cvv', 'cvv2', 'cvc', 'cvc2', 'card_cvc',
  'pin', 'pin_block', 'pinblock', 'epb', 'track', 'track1', 'track2', 'track_data', 'track2_data', 'emv', 'icc', 'icc_data',
  'api_key', 'password', 'new_password', 'current_password', 'secret', 'private_key', 'credentials', 'key_secure', 'key_not_secure',
  'signing_api_key', 'signing_api_key_amex', 'cryptogram', 'payload', 'payment_data', 'token_data', 'decryption_key', 'merchant_private_key',
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

/** The entry the log stores for a captured request: every field redacted (see the module comment). */
export function redactEntry(c: CapturedRequest): RequestLogEntry {
  const path = redactUrl(c.url);
  return {
    merchantId: c.merchantId,
    env: c.env,
    keyId: c.keyId,
    method: c.method,
    path: path.length > 2000 ? path.slice(0, 2000) : path,
    status: c.status,
    durationMs: c.durationMs,
    idempotencyKey: c.idempotencyKey === null ? null : redactPans(c.idempotencyKey).slice(0, 255),
    requestId: c.requestId,
    orderId: orderOf(c.url, c.body, c.answer),
    requestBody: c.method === 'GET' || c.method === 'HEAD' ? null : redactBody(c.body),
    responseBody: c.answer === null ? null : cut(redactAnswerText(c.answer)),
    at: c.at,
  };
}

const cut = (text: string) => (text.length > BODY_MAX ? `${text.slice(0, BODY_MAX)}…[cut]` : text);

/** `"key":` of a secret key in JSON text (any case, `-` or `_`), the value's start right after. */
const SECRET_KEY_TEXT = new RegExp(`"(${[...SECRET_KEYS].map((k) => k.replace(/_/g, '[-_]')).join('|')})"\\s*:\\s*`, 'gi');

/** Where the JSON value starting at `i` of `text` ends (exclusive). */
function valueEnd(text: string, i: number): number {
  const c = text[i];
  if (c === '"') {
    let j = i + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    return Math.min(text.length, j + 1);
  }
  if (c === '{' || c === '[') {
    let depth = 0;
    let j = i;
    while (j < text.length) {
      const d = text[j];
      if (d === '"') {
        j = valueEnd(text, j);
        continue;
      }
      if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
    }
    return text.length;
  }
  let j = i;
  while (j < text.length && !/[,}\]\s]/.test(text[j])) j++;
  return j;
}

/**
 * An answer's JSON text with the values of secret keys (at any depth) replaced by "[REDACTED]" (null and
 * "" kept, as `redactValue` does) and every card number in it (keys included) redacted. Text that is not
 * JSON is only scrubbed of card numbers.
 */
export function redactAnswerText(text: string): string {
  if (!/^\s*[[{]/.test(text)) return redactPans(text);
  let out = '';
  let at = 0;
  SECRET_KEY_TEXT.lastIndex = 0;
  for (let m = SECRET_KEY_TEXT.exec(text); m; m = SECRET_KEY_TEXT.exec(text)) {
    const start = m.index + m[0].length;
    const end = valueEnd(text, start);
    const value = text.slice(start, end);
    if (value !== 'null' && value !== '""') {
      out += `${text.slice(at, start)}"[REDACTED]"`;
      at = end;
    }
    SECRET_KEY_TEXT.lastIndex = Math.max(end, start);
  }
  return redactPansInJson(at === 0 ? text : out + text.slice(at));
}

/**
 * Card numbers of JSON text redacted: inside a string (a key or a value) as `[REDACTED]`, a bare number
 * as the string "[REDACTED]" (so the text stays JSON, as `redactValue` answers it).
 */
function redactPansInJson(text: string): string {
  const spans = cardNumberSpans(text, { anyGrouping: true });
  if (spans.length === 0) return text;
  // which positions are inside a string: one pass, only when there is something to redact
  const inString = new Uint8Array(text.length);
  for (let i = 0, open = false; i < text.length; i++) {
    const c = text[i];
    if (open) {
      inString[i] = 1;
      if (c === '\\') {
        inString[i + 1] = 1;
        i++;
      } else if (c === '"') open = false;
    } else if (c === '"') {
      open = true;
      inString[i] = 1;
    }
  }
  let out = '';
  let at = 0;
  for (const [s, e] of spans) {
    out += `${text.slice(at, s)}${inString[s] ? '[REDACTED]' : '"[REDACTED]"'}`;
    at = e;
  }
  return out + text.slice(at);
}

/**
 * Captures every request that an API key authenticated (`req.ctx`), after its answer is sent: only
 * references and a few fields; the sink redacts and writes it later.
 */
export function installRequestLog(app: FastifyInstance, sink: RequestLogSink, now: () => Date): void {
  // callback hooks, not async ones: every request passes through them, and a callback costs no promise
  app.addHook('onSend', (req, _reply, payload, done) => {
    if (req.ctx && !req.routeOptions.config?.stream) {
      (req as unknown as { logAnswer?: string | null }).logAnswer = typeof payload === 'string' ? payload : null;
    }
    done(null, payload);
  });
  app.addHook('onResponse', (req, reply, done) => {
    const ctx = req.ctx;
    // the dashboard's own calls are in its audit log, not in the merchant's API request log
    if (ctx && !req.internalCall) {
      const idem = req.headers['idempotency-key'];
      sink.capture({
        merchantId: ctx.merchant.id,
        env: ctx.env,
        keyId: ctx.keyId,
        method: req.method,
        url: req.url,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime),
        idempotencyKey: typeof idem === 'string' ? idem : null,
        requestId: req.id,
        body: req.body,
        answer: (req as unknown as { logAnswer?: string | null }).logAnswer ?? null,
        at: now(),
      });
    }
    done();
  });
}
