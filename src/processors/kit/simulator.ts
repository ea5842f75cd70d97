/**
 * The base of every provider simulator (the connector kit): a separate HTTP server a connector is tested
 * and demonstrated against, which speaks its provider's protocol. A simulator keeps only its protocol
 * (routes, what it answers, what it notifies); the kit gives it:
 *  - listen / close / url, keep-alive connections, a body read with a size cap (413 past it);
 *  - latency (`latencyMs`, before every answer);
 *  - the fault queue tests use: `lost` (never processed, the connection dropped), `drop` (processed, the
 *    answer lost), `drop-notify` (the same, its notification or webhook sent), `notify-first` (the
 *    notification delivered before the answer), `tamper` (the answer altered after it was made: the
 *    protocol says how), `hang` (answered only when the simulator closes); by endpoint where a protocol
 *    has several (`answer` carries them out);
 *  - notifications and webhooks: posted over HTTP, or through `transport` (tests: into an in-process
 *    gateway), each kept in `webhooks`; `settled()` waits for those under way;
 *  - the provider's reference as the oracle: `spec` (a SpecLedger) every request and answer is checked
 *    against; the test harness asserts it clean on close;
 *  - `beforeMoneyAnswer`: a hook called once a money call was decided and before its answer is written
 *    (tests: the gateway killed between the provider's answer and its own settle);
 *  - call counters, HTML pages: the 3-D Secure challenge page (authenticate / fail / cannot
 *    authenticate) every provider's simulated ACS or authentication page uses, a self-posting form, and
 *    HTML escaping.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { SpecChecker, SpecLedger, type ProviderSpec } from './spec.js';

export type FaultKind = 'lost' | 'drop' | 'drop-notify' | 'notify-first' | 'tamper' | 'hang';

export interface SimFault<E extends string = string> {
  kind: FaultKind;
  /** Which endpoint it hits (default: the simulator's money calls). */
  endpoint?: E;
  times?: number;
}

/** How a simulator delivers a notification or webhook; answers the HTTP status, or the status and the answer's body (tests deliver in process). */
export type WebhookTransport = (n: { url: string; headers: Record<string, string>; body: string; followUp?: boolean }) => Promise<number | { status: number; body: string }>;

export interface SentWebhook {
  url: string;
  headers: Record<string, string>;
  body: string;
  status: number | null;
  /** The answer's body (at most 64 KiB; null: none, or a transport that gives only the status). */
  answer: string | null;
  error: string | null;
}

export interface SimulatorBaseOptions {
  spec: ProviderSpec;
  latencyMs?: number;
  clock?: () => Date;
  /** Extra headers of the notifications and webhooks it posts (tests: a TLS proxy's `x-forwarded-proto`). */
  webhookHeaders?: Record<string, string>;
  /** The endpoint a fault without one hits. */
  defaultEndpoint?: string;
  /** Largest request body read (default 1 MiB); past it the answer is 413. */
  bodyLimit?: number;
}

/** A request as a protocol handler gets it: its body read, its URL parsed. */
export interface SimRequest {
  method: string;
  url: URL;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  /** The body's bytes (a multipart body with files). */
  bytes: Buffer;
  /** The underlying request (its socket, for a dropped connection). */
  req: http.IncomingMessage;
}

/** What a protocol gives the kit to answer one request under the fault queue. */
export interface Exchange {
  status: number;
  /** The body: JSON (an object) or text; null: none. */
  body: unknown;
  headers?: Record<string, string>;
  /** Notifications and webhooks the operation causes, sent after the answer (or as a fault says). */
  notify?: (() => Promise<void>) | null;
  /** The answer as it arrives altered (`tamper`); absent: tamper is not simulated here. */
  tamper?: (body: unknown) => unknown;
  /** Runs once the operation was processed, whatever becomes of its answer (decisions made later). */
  after?: () => void;
}

/** A money call the simulator decided, as `beforeMoneyAnswer` gets it. */
export interface MoneyCall {
  /** The fault queue's endpoint it took its fault from (the simulator's default endpoint). */
  endpoint: string;
  method: string;
  path: string;
  /** The status of the answer about to be written. */
  status: number;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** HTML escaping (text and attribute values). */
export const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function htmlDocument(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body>${body}</body></html>`;
}

/** A page whose form posts itself at once (a 3DS method's or an ACS's answer to the merchant). */
export function selfPostingForm(action: string, fields: Record<string, string>): string {
  return `<form id="f" method="post" action="${esc(action)}">${Object.entries(fields).map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`).join('')}</form><script>document.getElementById('f').submit()</script>`;
}

export interface ChallengeButton {
  /** The value posted as `name` (default `result`). */
  value: string;
  id: string;
  label: string;
}

/**
 * The 3-D Secure challenge page of a simulated ACS or provider authentication page: what is being paid,
 * and buttons to authenticate, fail, or (where the provider has it) not be able to authenticate. The
 * form posts `name` (default `result`) with the button's value to `action`, with the hidden fields. Each
 * button says what it does in `data-challenge` (`pass`, `fail`, `unavailable`) whatever its id, for tests
 * that go through every simulator's page alike.
 */
export function challengePage(o: {
  title: string;
  heading: string;
  lines: string[];
  action: string;
  hidden?: Record<string, string>;
  name?: string;
  pass?: Partial<ChallengeButton>;
  fail?: Partial<ChallengeButton>;
  /** A third button: the cardholder cannot be authenticated. */
  unavailable?: Partial<ChallengeButton> | null;
  main?: boolean;
}): string {
  const name = o.name ?? 'result';
  const buttons = [
    { value: 'Y', id: 'pass', label: 'Authenticate', ...o.pass, role: 'pass' },
    { value: 'N', id: 'fail', label: 'Fail', ...o.fail, role: 'fail' },
    ...(o.unavailable ? [{ value: 'U', id: 'unavailable', label: 'Cannot authenticate', ...o.unavailable, role: 'unavailable' }] : []),
  ];
  const hidden = Object.entries(o.hidden ?? {}).map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`).join('');
  const inner = `<h1>${esc(o.heading)}</h1>${o.lines.map((l) => `<p>${esc(l)}</p>`).join('')}<form method="post" action="${esc(o.action)}">${hidden}${buttons.map((b) => `<button name="${esc(name)}" value="${esc(b.value)}" id="${esc(b.id)}" data-challenge="${b.role}">${esc(b.label)}</button>`).join(' ')}</form>`;
  return htmlDocument(o.title, o.main === false ? inner : `<main>${inner}</main>`);
}

/** The kit's part of a provider simulator; a protocol extends it and implements `handle`. */
export abstract class SimulatorBase<E extends string = string> {
  latencyMs: number;
  /** Delivers notifications and webhooks instead of posting them over HTTP (tests: into an in-process gateway). */
  transport: WebhookTransport | null = null;
  /** Every request received and every answer and notification given, checked against the provider's reference. */
  readonly spec: SpecLedger;
  /** Notifications and webhooks sent (or attempted), in order. */
  readonly webhooks: SentWebhook[] = [];
  protected readonly clockFn: (() => Date) | undefined;
  protected readonly webhookHeaders: Record<string, string>;
  readonly #server: http.Server;
  readonly #faults: Array<SimFault<E> & { left: number }> = [];
  readonly #hanging = new Set<http.ServerResponse>();
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #defaultEndpoint: string;
  readonly #bodyLimit: number;
  #url = '';
  /** HTTP requests received, of every kind (tokens, payments, lookups, pages). */
  httpRequests = 0;
  /**
   * Called once a money call was decided (processed, its answer made) and before its answer is written;
   * the answer waits for it (tests: a gateway killed between the provider's answer and its own settle).
   * A money call is one whose fault is taken from the default endpoint's queue (`takeFault()`): payments
   * and follow-ups, not lookups, tokens or pages. Not called when a fault drops or holds the answer.
   */
  beforeMoneyAnswer: ((call: MoneyCall) => Promise<void>) | null = null;
  /** The request being served: the money endpoint whose fault it took, if any. */
  readonly #request = new AsyncLocalStorage<{ money: string | null }>();

  constructor(o: SimulatorBaseOptions) {
    this.latencyMs = o.latencyMs ?? 0;
    this.clockFn = o.clock;
    this.webhookHeaders = o.webhookHeaders ?? {};
    this.spec = new SpecLedger(new SpecChecker(o.spec));
    this.#defaultEndpoint = o.defaultEndpoint ?? 'money';
    this.#bodyLimit = o.bodyLimit ?? 1024 * 1024;
    this.#server = http.createServer((req, res) => {
      this.httpRequests++;
      this.#request.run({ money: null }, () =>
        this.#serve(req, res).catch(() => {
          if (!res.headersSent) res.writeHead(500).end();
        }),
      );
    });
    this.#server.keepAliveTimeout = 60_000;
  }

  /** Listens; returns the base URL (the connector's PAYGATE_<NAME>_URL). */
  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(port, host, resolve));
    const a = this.#server.address() as AddressInfo;
    this.#url = `http://${host.includes(':') ? `[${host}]` : host}:${a.port}`;
    return this.#url;
  }

  get url(): string {
    return this.#url;
  }

  async close(): Promise<void> {
    for (const res of this.#hanging) res.destroy();
    this.#hanging.clear();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Queues a fault: the next `times` (default 1) calls of its endpoint meet it. */
  injectFault(f: FaultKind | SimFault<E>, times?: number): void {
    const fault = typeof f === 'string' ? { kind: f, times } : f;
    this.#faults.push({ ...fault, left: fault.times ?? times ?? 1 });
  }

  /**
   * The next fault queued for an endpoint, taken off the queue when used up. Taking the default
   * endpoint's makes the request a money call (`beforeMoneyAnswer`).
   */
  protected takeFault(endpoint: string = this.#defaultEndpoint): FaultKind | null {
    const request = this.#request.getStore();
    if (request && endpoint === this.#defaultEndpoint) request.money = endpoint;
    const i = this.#faults.findIndex((f) => (f.endpoint ?? this.#defaultEndpoint) === endpoint);
    if (i < 0) return null;
    const f = this.#faults[i];
    if (--f.left <= 0) this.#faults.splice(i, 1);
    return f.kind;
  }

  protected now(): Date {
    return this.clockFn?.() ?? new Date();
  }

  /** Keeps track of work under way (decisions, notifications) for `settled()`. */
  protected track<T>(p: Promise<T>): Promise<T> {
    const t = p.finally(() => this.#inFlight.delete(t));
    t.catch(() => {});
    this.#inFlight.add(t);
    return t;
  }

  /** Resolves once every notification and decision under way is done. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Payment and follow-up calls received (a retry must not add one). */
  abstract paymentCalls(): number;

  /** Decides the operations the provider accepted and decides later (absent: decided in their answer). */
  decide?(): Promise<void>;

  protected abstract handle(r: SimRequest, res: http.ServerResponse): Promise<void>;

  async #serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req) {
      size += (c as Buffer).length;
      if (size > this.#bodyLimit) return void res.writeHead(413, { 'content-type': 'text/plain' }).end('request body too large');
      chunks.push(c as Buffer);
    }
    const bytes = Buffer.concat(chunks);
    const raw = bytes.toString('utf8');
    const url = new URL(req.url ?? '/', 'http://sim');
    if (this.latencyMs > 0) await sleep(this.latencyMs);
    await this.handle({ method: req.method ?? 'GET', url, path: url.pathname, headers: req.headers, raw, bytes, req }, res);
  }

  /** A JSON or text answer. */
  protected write(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (res.destroyed) return;
    if (body === null || body === undefined) return void res.writeHead(status, headers).end();
    if (typeof body === 'string') return void res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body);
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  }

  protected html(res: http.ServerResponse, status: number, page: string): void {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  }

  /** Sends the cardholder's browser on (302 or 303). */
  protected redirect(res: http.ServerResponse, location: string, status = 302): void {
    res.writeHead(status, { location }).end();
  }

  /** The connection dropped: the client gets no answer. */
  protected drop(r: SimRequest): void {
    r.req.socket.destroy();
  }

  /**
   * Answers a processed operation under the fault taken for its call (`takeFault` before processing;
   * `lost` is the caller's, before it processes anything): the answer dropped, its notifications sent
   * first or instead, its body tampered with, or held until the simulator closes.
   */
  protected async answer(r: SimRequest, res: http.ServerResponse, fault: FaultKind | null, x: Exchange): Promise<void> {
    let notify = x.notify ?? null;
    if (fault === 'drop') {
      x.after?.();
      return this.drop(r);
    }
    if (fault === 'drop-notify' || fault === 'notify-first') {
      if (notify) await notify();
      notify = null;
      if (fault === 'drop-notify') {
        x.after?.();
        return this.drop(r);
      }
    }
    if (fault === 'hang') {
      x.after?.();
      this.#hanging.add(res);
      return;
    }
    const money = this.#request.getStore()?.money;
    if (money && this.beforeMoneyAnswer) await this.beforeMoneyAnswer({ endpoint: money, method: r.method, path: r.path, status: x.status });
    const body = fault === 'tamper' && x.tamper && x.body && typeof x.body === 'object' ? x.tamper(x.body) : x.body;
    this.write(res, x.status, body, x.headers);
    if (notify) void this.track(notify());
    x.after?.();
  }

  /**
   * Posts a notification or webhook (with the simulator's extra headers) over HTTP, or through
   * `transport`; kept in `webhooks`. `followUp`: it tells a decision taken after the answer.
   */
  protected async deliver(url: string, headers: Record<string, string>, body: string, opts: { followUp?: boolean } = {}): Promise<SentWebhook> {
    const all = { ...this.webhookHeaders, ...headers };
    const sent: SentWebhook = { url, headers: all, body, status: null, answer: null, error: null };
    try {
      if (this.transport) {
        const got = await this.transport({ url, headers: all, body, ...(opts.followUp ? { followUp: true } : {}) });
        if (typeof got === 'number') sent.status = got;
        else [sent.status, sent.answer] = [got.status, got.body.slice(0, 64 * 1024)];
      } else {
        const res = await request(url, { method: 'POST', headers: all, body, headersTimeout: 10_000, bodyTimeout: 10_000 });
        sent.answer = (await res.body.text()).slice(0, 64 * 1024);
        sent.status = res.statusCode;
      }
    } catch (err) {
      sent.error = (err as Error).message;
    }
    this.webhooks.push(sent);
    return sent;
  }
}

/** The parts of a multipart/form-data body (RFC 7578): each with its name, and a file's name, type and bytes. */
export function readMultipart(bytes: Buffer, contentType: string | undefined): Array<{ name: string; filename: string | null; contentType: string | null; content: Buffer }> | null {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType ?? '')?.[2];
  if (!boundary || !/^multipart\/form-data/i.test(contentType ?? '')) return null;
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Array<{ name: string; filename: string | null; contentType: string | null; content: Buffer }> = [];
  let at = bytes.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (bytes.subarray(start, start + 2).toString() === '--') break;
    const next = bytes.indexOf(delimiter, start);
    if (next < 0) return null;
    const part = bytes.subarray(start + 2, next - 2);
    const headEnd = part.indexOf('\r\n\r\n');
    if (headEnd < 0) return null;
    const head = part.subarray(0, headEnd).toString('utf8');
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    if (name === undefined) return null;
    parts.push({ name, filename: /filename="([^"]*)"/i.exec(head)?.[1] ?? null, contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? null, content: part.subarray(headEnd + 4) });
    at = next;
  }
  return parts;
}
