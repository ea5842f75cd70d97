/** The failover test's settings, log and waits, its notification receiver and its API client (retries with the same Idempotency-Key); failover.ts runs the scenarios. */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Agent, request } from 'undici';


/** Load per scenario (at least: it goes on until LOAD_AFTER_FAULT_MS after the fault's recovery). */
export const SECONDS = Number(process.env.CLUSTER_TEST_SECONDS ?? 8);
export const SHORT_SECONDS = Math.max(5, Math.round(SECONDS * 0.75));
export const LOAD_AFTER_FAULT_MS = 3000;
/** How long the monitor stays down in scenario 3. */
export const MONITOR_DOWN_MS = 4000;
export const ALL_SCENARIOS = ['primary', 'double', 'monitor', 'gateway', 'proxy'];
export const SCENARIOS = (process.env.CLUSTER_TEST_SCENARIOS ?? ALL_SCENARIOS.join(',')).split(',').map((x) => x.trim()).filter((x) => ALL_SCENARIOS.includes(x));
export const CLIENTS = 16;
export const BASE_PORT = Number(process.env.PAYGATE_CLUSTER_BASE_PORT ?? 5650);
export const DIR = path.join(os.tmpdir(), `paygate-cluster-test-${process.pid}`);
export const REFUND = 300;

export const T0 = Date.now();
// the test's own event loop must keep time: its clients, its sampling (reported when it did not)
{
  let last = performance.now();
  setInterval(() => {
    const lag = performance.now() - last - 500;
    if (lag > 1000) process.stdout.write(`[cluster test] the test process's event loop was blocked for ${(lag / 1000).toFixed(1)} s\n`);
    last = performance.now();
  }, 500).unref();
}
export const log = (line: string) => process.stdout.write(`[cluster test ${((Date.now() - T0) / 1000).toFixed(1).padStart(5)} s] ${line}\n`);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export async function waitFor(what: string, fn: () => Promise<boolean>, ms: number, every = 200): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await fn().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(every);
  }
}
export const failures: string[] = [];
export function check(ok: boolean, what: string): void {
  if (!ok) failures.push(what);
  log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
}

// ---- the notification receiver ----------------------------------------------------------------------

export interface Notification {
  event: string;
  path: string;
  body: string;
}
export async function startReceiver() {
  const received: Notification[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ event: String(req.headers['paygate-event'] ?? ''), path: req.url ?? '/', body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('OK');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

// ---- the API client: retries with the same Idempotency-Key ---------------------------------------------

export const agent = new Agent({ connections: CLIENTS * 2, keepAliveTimeout: 10_000 });

export interface Attempt {
  sent: number;
  at: number;
  ok: boolean;
  /** The answer's status, or the error of a lost connection. */
  outcome: string;
  path: string;
}

/** A write the gateway acknowledged (2xx): when the attempt was sent and when its answer arrived. */
export interface Ack {
  sent: number;
  at: number;
  path: string;
  status: number;
}

export class Api {
  readonly attempts: Attempt[] = [];
  /** Calls still going on (retrying), for the progress report. */
  readonly inFlight = new Set<{ path: string; since: number; tries: number; last: string }>();
  /** Every acknowledged write (POST answered 2xx), whole run. */
  readonly acks: Ack[] = [];
  constructor(
    readonly base: string,
    readonly creds: { api_key: string; signature: string },
  ) {}

  /** One attempt: its answer, or null when the connection was lost (`error` says how). */
  async once(method: 'GET' | 'POST', p: string, body?: Record<string, unknown>, key?: string): Promise<{ sent: number; error: string; r: { status: number; body: any; requestId: string } | null }> {
    const sent = Date.now();
    try {
      const res = await request(`${this.base}/v1/sandbox${p}`, {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${this.creds.api_key}:`).toString('base64')}`,
          'content-type': 'application/json',
          ...(key ? { 'idempotency-key': key } : {}),
        },
        body: body ? JSON.stringify({ signature: this.creds.signature, ...body }) : undefined,
        dispatcher: agent,
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
      const text = await res.body.text();
      let parsed: any = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = { unparsed: text.slice(0, 200) };
      }
      if (method === 'POST' && res.statusCode >= 200 && res.statusCode < 300) this.acks.push({ sent, at: Date.now(), path: p, status: res.statusCode });
      return { sent, error: '', r: { status: res.statusCode, body: parsed, requestId: String(res.headers['x-request-id'] ?? '') } };
    } catch (err) {
      // the connection was lost: the outcome is unknown
      return { sent, error: err instanceof Error ? ((err as { code?: string }).code ?? err.message) : String(err), r: null };
    }
  }

  /** A request retried with the same key until it has a final answer (or `deadlineMs` passes). */
  async call(method: 'GET' | 'POST', p: string, body?: Record<string, unknown>, key?: string, deadlineMs = 90_000) {
    const end = Date.now() + deadlineMs;
    let delay = 100;
    let tries = 0;
    const nonEnvelope: string[] = [];
    const me = { path: `${method} ${p}`, since: Date.now(), tries: 0, last: '' };
    // every attempt of this call (for the diagnosis of a failed check)
    const history: string[] = [];
    this.inFlight.add(me);
    try {
      for (;;) {
        tries++;
        me.tries = tries;
        const { sent, error, r } = await this.once(method, p, body, key);
        me.last = r ? String(r.status) : error;
        history.push(`${new Date(sent).toISOString().slice(11, 23)}-${new Date().toISOString().slice(17, 23)} ${r ? `${r.status} ${r.requestId.slice(0, 8)}${r.status >= 300 ? ` ${String(r.body?.details ?? '').slice(0, 60)}` : ''}` : error}`);
        // 409 of a key still in flight: wait for it. 409 of a key whose request was carried out but whose
        // answer was lost: final (the outcome is on the order, settled by the reconciler)
        const lost = r !== null && r.status === 409 && /answer was lost/.test(String(r.body?.details ?? ''));
        const retry = r === null || r.status === 502 || r.status === 503 || r.status === 504 || (r.status === 409 && !lost && (key !== undefined || method === 'GET'));
        this.attempts.push({ sent, at: Date.now(), ok: !retry, outcome: r ? String(r.status) : error, path: `${method} ${p}` });
        if (r && r.status >= 500 && !(r.body && typeof r.body.code === 'number' && typeof r.body.current_time === 'string' && typeof r.body.details === 'string')) {
          nonEnvelope.push(`${r.status} ${JSON.stringify(r.body).slice(0, 120)}`);
        }
        if (!retry || Date.now() > end) return { status: r?.status ?? 0, body: r?.body ?? null, tries, nonEnvelope, lost, history };
        await sleep(delay);
        delay = Math.min(1000, delay * 2);
      }
    } finally {
      this.inFlight.delete(me);
    }
  }
}
