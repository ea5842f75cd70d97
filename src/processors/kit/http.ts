/**
 * Sending to a provider (the connector kit). Every request a connector makes goes through the
 * gateway's outgoing client (allowed hosts, deadline, answer size cap) with the connector's deadline,
 * and comes back as one of two things:
 *  - `answer`: the provider answered (any HTTP status), with its headers, its text and, when the text
 *    is a JSON object, that object;
 *  - `unknown`: no answer (timeout, connection lost, refused by the outgoing policy...): the operation
 *    may or may not have happened at the provider (outcomes.ts turns it into UNKNOWN).
 * Logs carry the path (without its query, ids masked by the connector's `maskPath`) and the status or
 * failure, never a body: bodies carry card data and keys.
 */
import type { Logger } from 'pino';
import { OutgoingError, type OutgoingClient } from '../../platform/net/outgoing.js';

export type Sent =
  | { kind: 'answer'; status: number; headers: Record<string, string | string[] | undefined>; text: string; json: Record<string, unknown> | null }
  | { kind: 'unknown'; details: string };

export type Answer = Extract<Sent, { kind: 'answer' }>;

export interface SendRequest {
  method?: 'GET' | 'POST' | 'PUT';
  /** The path under the base URL, with its query. */
  path: string;
  headers?: Record<string, string>;
  /** A JSON body (`content-type: application/json`). */
  json?: unknown;
  /** A form body (`application/x-www-form-urlencoded`). */
  form?: Record<string, string> | string;
  /** A body as it is (set its content type in `headers`): text, or bytes (a multipart body with files). */
  body?: string | Buffer;
  /** What a log line names besides the path (an order number, our reference): never card data. */
  log?: Record<string, unknown>;
}

export interface ProviderHttpOptions {
  /** Base URL of the provider (PAYGATE_<NAME>_URL); a trailing slash is dropped. */
  baseUrl: string;
  http: OutgoingClient;
  /** Deadline of one HTTP call. */
  timeoutMs: number;
  logger?: Logger;
  /** The connector's name, first word of its log lines (`redsys: no answer`). */
  name: string;
  /** The provider's name in words given back (`Redsys did not answer`). */
  label: string;
  /** The path as it may be logged (ids masked); default: without its query. */
  maskPath?: (path: string) => string;
}

/** A JSON text's object; null when it is not a JSON object. */
export function parseObject(text: string | null | undefined): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A JSON text's value; undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** One provider's HTTP: base URL, deadline, logging. */
export class ProviderHttp {
  readonly baseUrl: string;
  readonly #o: ProviderHttpOptions;

  constructor(o: ProviderHttpOptions) {
    this.#o = o;
    this.baseUrl = o.baseUrl.replace(/\/+$/, '');
  }

  get label(): string {
    return this.#o.label;
  }

  get logger(): Logger | undefined {
    return this.#o.logger;
  }

  /** The path as logs show it. */
  logPath(path: string): string {
    const bare = path.split('?')[0];
    return this.#o.maskPath ? this.#o.maskPath(bare) : bare;
  }

  async send(req: SendRequest): Promise<Sent> {
    const headers: Record<string, string> = { ...req.headers };
    let body: string | Buffer | undefined = req.body;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] ??= 'application/json';
    } else if (req.form !== undefined) {
      body = typeof req.form === 'string' ? req.form : new URLSearchParams(req.form).toString();
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    }
    let res;
    try {
      res = await this.#o.http.send(`${this.baseUrl}${req.path}`, { method: req.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, env: 'production', timeoutMs: this.#o.timeoutMs });
    } catch (err) {
      this.#o.logger?.warn({ ...req.log, path: this.logPath(req.path), failure: err instanceof OutgoingError ? err.failure : 'error' }, `${this.#o.name}: no answer`);
      return { kind: 'unknown', details: err instanceof OutgoingError ? `${this.#o.label} did not answer: ${err.message}` : `${this.#o.label} did not answer` };
    }
    return { kind: 'answer', status: res.status, headers: res.headers, text: res.body, json: parseObject(res.body) };
  }
}

/** One part of a multipart/form-data body: a field, or a file with its name, type and bytes. */
export type FormPart = { name: string; value: string } | { name: string; filename: string; contentType: string; content: Buffer };

/** A multipart/form-data body of `parts` (RFC 7578), as bytes; its content type is `multipart/form-data; boundary=<boundary>`. */
export function multipartBody(parts: FormPart[], boundary: string): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    const name = p.name.replace(/["\r\n]/g, '_');
    if ('content' in p) {
      out.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${p.filename.replace(/["\r\n\\]/g, '_')}"\r\nContent-Type: ${p.contentType}\r\n\r\n`, 'utf8'), p.content, Buffer.from('\r\n'));
    } else {
      out.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${p.value}\r\n`, 'utf8'));
    }
  }
  out.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(out);
}
