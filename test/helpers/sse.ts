/**
 * A Server-Sent Events client for tests: opens a gateway's event stream over real HTTP and collects its
 * messages (parsed by the CLI's parser). What it receives is added to the card-data scan's capture.
 */
import { Agent, fetch } from 'undici';
import { SseParser, type SseMessage } from '../../src/cli/listen.js';
import { appendCapture } from './capture.js';

export interface SseClient {
  status: number;
  headers: { get(name: string): string | null };
  /** Messages received so far (comments excluded). */
  messages: SseMessage[];
  /** The messages other than `ready`. */
  events(): SseMessage[];
  /** Waits until `n` messages of type other than `ready` have come (generous timeout: real I/O). */
  waitEvents(n: number, timeoutMs?: number): Promise<SseMessage[]>;
  /** Waits for the `ready` message. */
  ready(timeoutMs?: number): Promise<SseMessage>;
  /** The body of a refused request (not a stream). */
  text: string;
  close(): void;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseClient> {
  const ctl = new AbortController();
  // a connection of its own, destroyed on close: no socket of the test outlives it
  const agent = new Agent({ pipelining: 0 });
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ctl.signal, dispatcher: agent });
  const messages: SseMessage[] = [];
  let text = '';
  let ended: Promise<void> = Promise.resolve();
  if (res.status === 200 && res.body) {
    const parser = new SseParser();
    const decoder = new TextDecoder();
    ended = (async () => {
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          const s = decoder.decode(chunk, { stream: true });
          appendCapture('response', { method: 'GET', url: new URL(url).pathname, status: 200, body: s });
          messages.push(...parser.push(s));
        }
      } catch {
        // closed by the test
      }
    })();
  } else {
    text = await res.text();
    await agent.destroy();
  }
  const until = async <T>(get: () => T | undefined, timeoutMs: number, what: string): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = get();
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(messages)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const events = () => messages.filter((m) => m.event !== 'ready');
  return {
    status: res.status,
    headers: res.headers,
    messages,
    events,
    text,
    ended,
    waitEvents: (n, timeoutMs = 30_000) => until(() => (events().length >= n ? events().slice(0, n) : undefined), timeoutMs, `${n} events`),
    ready: (timeoutMs = 30_000) => until(() => messages.find((m) => m.event === 'ready'), timeoutMs, 'ready'),
    close: () => {
      ctl.abort();
      void agent.destroy().catch(() => undefined);
    },
  };
}
