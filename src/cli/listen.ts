/**
 * `paygate listen`: streams a merchant's notifications from a gateway (`GET /events/stream`, Server-Sent
 * Events) and forwards each one to a local URL with the exact body and headers the gateway sends, so the
 * developer's receiver verifies `validation_hash` and `Paygate-Signature` as in production. It prints
 * every event with the forward's result, and reconnects by itself, resuming after the last event it
 * received (`Last-Event-ID`), so nothing is missed across a lost connection or a gateway restart.
 *
 * It talks HTTP only: it works against a remote gateway, and against a local one that holds the embedded
 * database.
 */

/** One message of a Server-Sent Events stream. */
export interface SseMessage {
  id?: string;
  event: string;
  data: string;
  retry?: number;
}

/**
 * An incremental Server-Sent Events parser (the WHATWG event-stream format): feed it text as it arrives,
 * in chunks cut anywhere, and it returns the messages completed so far. Lines end in LF, CRLF or CR;
 * comment lines (`:`) are skipped; `data` lines are joined with LF.
 */
export class SseParser {
  #buffer = '';
  #data: string[] = [];
  #event = '';
  #id: string | undefined;
  #retry: number | undefined;
  #hasData = false;
  /** A chunk ended in CR: an LF at the start of the next one belongs to it. */
  #pendingCr = false;

  push(chunk: string): SseMessage[] {
    let text = chunk;
    if (this.#pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCr = false;
    this.#buffer += text;
    const out: SseMessage[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.#buffer);
      if (!m) break;
      // a CR at the very end may be the first half of a CRLF split across chunks
      if (m[0] === '\r' && m.index === this.#buffer.length - 1) {
        this.#pendingCr = true;
      }
      const line = this.#buffer.slice(0, m.index);
      this.#buffer = this.#buffer.slice(m.index + m[0].length);
      const msg = this.#line(line);
      if (msg) out.push(msg);
    }
    return out;
  }

  #line(line: string): SseMessage | null {
    if (line === '') {
      // end of a message
      const msg = this.#hasData || this.#id !== undefined || this.#event !== '' ? { event: this.#event || 'message', data: this.#data.join('\n'), ...(this.#id !== undefined ? { id: this.#id } : {}), ...(this.#retry !== undefined ? { retry: this.#retry } : {}) } : null;
      this.#data = [];
      this.#event = '';
      this.#id = undefined;
      this.#retry = undefined;
      this.#hasData = false;
      return msg;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.#data.push(value);
      this.#hasData = true;
    } else if (field === 'event') this.#event = value;
    else if (field === 'id' && !value.includes('\u0000')) this.#id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.#retry = Number(value);
    return null;
  }
}

/** An event as the stream sends it (the `data` of a message). */
export interface StreamedEvent {
  uuid: string;
  type: string;
  created: string;
  env: string;
  order_uuid: string | null;
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface ForwardResult {
  url: string;
  status: number | null;
  duration_ms: number;
  error: string | null;
}

/** Sends one event's request to `url`: the same body and headers, POST, no redirects followed. */
export async function forward(url: string, ev: StreamedEvent, timeoutMs: number): Promise<ForwardResult> {
  const started = performance.now();
  try {
    const res = await fetch(url, { method: 'POST', headers: ev.headers, body: ev.body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer().catch(() => undefined);
    return { url, status: res.status, duration_ms: Math.round(performance.now() - started), error: null };
  } catch (err) {
    return { url, status: null, duration_ms: Math.round(performance.now() - started), error: describeFetchError(err, timeoutMs) };
  }
}

function describeFetchError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  if (e?.cause?.code) return `${e.cause.code}${e.cause.message ? `: ${e.cause.message}` : ''}`;
  return e?.cause?.message ?? e?.message ?? String(err);
}

/** The status an event's body reports (the order's, or a subscription payment's). */
function bodyStatus(ev: StreamedEvent): string | null {
  try {
    const b = JSON.parse(ev.body) as { order?: { status?: unknown }; status?: unknown };
    const s = b.order?.status ?? b.status;
    return typeof s === 'string' ? s : null;
  } catch {
    return null;
  }
}

export interface ListenOptions {
  /** The gateway, e.g. http://127.0.0.1:8080. */
  url: string;
  apiKey: string;
  env: 'sandbox' | 'production';
  /** Where to forward each event; null only prints them. */
  forwardTo: string | null;
  /** Only these event types (all when empty). */
  types: string[];
  /** Resume after this event id. */
  after?: string;
  json: boolean;
  /** Event lines (stdout). */
  out(line: string): void;
  /** Connection status (stderr). */
  note(line: string): void;
  /** Stops listening. */
  signal: AbortSignal;
  forwardTimeoutMs?: number;
  /** Longest wait between two reconnection attempts (ms). */
  maxBackoffMs?: number;
}

/** A refusal that reconnecting cannot fix (bad key, missing profile, wrong URL). */
export class ListenError extends Error {}

/** The stream URL of a gateway. */
export function streamUrl(o: Pick<ListenOptions, 'url' | 'env' | 'types'>): string {
  const base = o.url.replace(/\/+$/, '');
  const prefix = o.env === 'sandbox' ? '/v1/sandbox' : '/v1';
  const q = o.types.length > 0 ? `?types=${encodeURIComponent(o.types.join(','))}` : '';
  return `${base}${prefix}/events/stream${q}`;
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

async function refusal(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { details?: string };
    if (typeof body.details === 'string') return body.details;
  } catch {
    // not the gateway's envelope
  }
  return text.slice(0, 200) || res.statusText;
}

/**
 * Listens until `signal` aborts. Throws a ListenError when the gateway refuses for good (401, 403, 404,
 * 400); any other failure (connection lost or refused, 429, 5xx, the gateway closing the stream) is
 * retried with a growing wait, resuming after the last event received.
 */
export async function listen(o: ListenOptions): Promise<void> {
  const url = streamUrl(o);
  const timeoutMs = o.forwardTimeoutMs ?? 10_000;
  const maxBackoff = o.maxBackoffMs ?? 10_000;
  let lastId: string | null = o.after ?? null;
  let backoff = 500;
  let connectedOnce = false;

  while (!o.signal.aborted) {
    let reason: string;
    try {
      const res = await fetch(url, {
        headers: { authorization: `Bearer ${o.apiKey}`, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
        signal: o.signal,
      });
      if ([400, 401, 403, 404, 405].includes(res.status)) {
        throw new ListenError(`${url} answered ${res.status}: ${await refusal(res)}`);
      }
      if (res.status !== 200 || !res.body) {
        reason = `the gateway answered ${res.status}: ${await refusal(res)}`;
        const retryAfter = Number(res.headers.get('retry-after'));
        if (Number.isFinite(retryAfter) && retryAfter > 0) backoff = Math.max(backoff, retryAfter * 1000);
      } else if (!String(res.headers.get('content-type')).startsWith('text/event-stream')) {
        throw new ListenError(`${url} is not an event stream (content-type ${res.headers.get('content-type')}): is --url a paygate gateway?`);
      } else {
        const parser = new SseParser();
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          for (const msg of parser.push(decoder.decode(chunk, { stream: true }))) {
            await handle(msg);
          }
        }
        reason = 'the gateway closed the stream';
      }
    } catch (err) {
      if (err instanceof ListenError) throw err;
      if (o.signal.aborted) break;
      if ((err as { cause?: { message?: string } })?.cause?.message === 'bad port') throw new ListenError(`${url}: that port is not allowed for HTTP requests`);
      reason = `connection lost (${describeFetchError(err, 0)})`;
    }
    if (o.signal.aborted) break;
    o.note(`${reason}; reconnecting in ${(backoff / 1000).toFixed(1)} s${lastId ? `, resuming after ${lastId}` : ''}`);
    await wait(backoff, o.signal);
    backoff = Math.min(maxBackoff, backoff * 2);
  }

  async function handle(msg: SseMessage): Promise<void> {
    if (msg.event === 'ready') {
      backoff = 500;
      let ready: { client_uuid?: string; env?: string } = {};
      try {
        ready = JSON.parse(msg.data);
      } catch {
        // an older gateway: nothing to show
      }
      if (!connectedOnce) {
        o.note(`Ready: listening for the ${ready.env ?? o.env} events of merchant ${ready.client_uuid ?? '?'} at ${o.url}${o.forwardTo ? `, forwarding to ${o.forwardTo}` : ''} (Ctrl-C to stop)`);
      } else {
        o.note(`reconnected${lastId ? `, resuming after ${lastId}` : ''}`);
      }
      connectedOnce = true;
      if (o.json) o.out(JSON.stringify({ ready: { ...ready, id: msg.id ?? null } }));
      if (msg.id) lastId = msg.id;
      return;
    }
    let ev: StreamedEvent;
    try {
      ev = JSON.parse(msg.data) as StreamedEvent;
    } catch {
      o.note(`skipped a message that is not an event (${msg.event})`);
      if (msg.id) lastId = msg.id;
      return;
    }
    const result = o.forwardTo ? await forward(o.forwardTo, ev, timeoutMs) : null;
    if (o.json) {
      o.out(JSON.stringify({ id: msg.id ?? null, event: { uuid: ev.uuid, type: ev.type, created: ev.created, order_uuid: ev.order_uuid, status: bodyStatus(ev) }, forward: result }));
    } else {
      const status = bodyStatus(ev);
      const what = `${ev.created}  ${ev.type}  ${ev.uuid}${ev.order_uuid ? `  order ${ev.order_uuid}` : ''}${status ? ` ${status}` : ''}`;
      const fwd = !result
        ? ''
        : result.status !== null
          ? `  -> POST ${result.url} [${result.status}] ${result.duration_ms} ms`
          : `  -> POST ${result.url} failed: ${result.error} (${result.duration_ms} ms)`;
      o.out(what + fwd);
    }
    // the cursor moves once the event is handled: a reconnect resumes after it
    if (msg.id) lastId = msg.id;
  }
}
