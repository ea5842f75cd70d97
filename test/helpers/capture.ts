/**
 * Evidence for the card-data scan that runs after the whole suite (test/scan/pan-scan.test.ts).
 *
 * While tests run, the test harness (test/helpers/app.ts) writes into PAYGATE_CAPTURE_DIR, a fresh
 * directory made by test/scan/global-setup.ts for each `vitest run`:
 *  - `log-*.jsonl`       every log line of every test app (level trace), instead of discarding them,
 *                        and the output of every gateway process a test started (test/helpers/server.ts);
 *  - `response-*.jsonl`  every response body the apps answered (app.inject, so every HTTP test);
 *  - `dump-*.jsonl`      every row of every table of each test database, dumped just before the
 *                        database is dropped;
 *  - `known-*.txt`       SHA-256 hashes of the card numbers the tests used: card numbers sent in
 *                        requests (in any field, query, URL or header), and every card number stored in the database (opened with the test
 *                        vault at dump time). Plain card numbers are never written by the capture.
 * Without PAYGATE_CAPTURE_DIR (a single file run without the global setup) nothing is captured.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { cardNumberSpans } from '../../src/platform/security/card-numbers.js';

export const captureDir = (): string | null => process.env.PAYGATE_CAPTURE_DIR || null;

const suffix = () => `${process.pid}-${threadId}`;

export function captureFile(kind: 'log' | 'response' | 'dump' | 'known'): string | null {
  const dir = captureDir();
  if (!dir) return null;
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, `${kind}-${suffix()}.${kind === 'known' ? 'txt' : 'jsonl'}`);
}

/** Appends raw log text (a spawned gateway's output) to this worker's log capture. */
export function appendLogText(text: string): void {
  const file = captureFile('log');
  if (file && text) fs.appendFileSync(file, text.endsWith('\n') ? text : `${text}\n`);
}

export function appendCapture(kind: 'response' | 'dump', value: unknown): void {
  const file = captureFile(kind);
  if (file) fs.appendFileSync(file, JSON.stringify(value) + '\n');
}

export const panHash = (pan: string) => createHash('sha256').update(pan).digest('hex');

/** The Luhn check: only a number that passes it can be a card number (the gateway refuses the others). */
export function luhnValid(digits: string): boolean {
  if (!/^[0-9]{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let x = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      x *= 2;
      if (x > 9) x -= 9;
    }
    sum += x;
  }
  return sum % 10 === 0;
}

/** Records card numbers (hashed) that the scan must not find anywhere; numbers failing the Luhn check are no card numbers and are left out. */
export function recordKnownPans(pans: Iterable<string>): void {
  const file = captureFile('known');
  if (!file) return;
  const lines: string[] = [];
  for (const p of pans) {
    const digits = p.replace(/[\s-]/g, '');
    if (luhnValid(digits)) lines.push(panHash(digits));
  }
  if (lines.length > 0) fs.appendFileSync(file, lines.join('\n') + '\n');
}

/**
 * Every card number anywhere in a request (issue 31: not only the card fields): in any string or integer
 * of the body (keys too), the query, the URL (decoded) and the Idempotency-Key header, by the gateway's
 * own definition (Luhn-valid, a brand's range and length; src/platform/security/card-numbers.ts). A test
 * that sends a card number in a field that must refuse it makes the scan look for that number too.
 */
export function pansAnywhere(...values: unknown[]): string[] {
  const out: string[] = [];
  const text = (t: string) => {
    for (const [a, b] of cardNumberSpans(t)) out.push(t.slice(a, b).replace(/[ -]/g, ''));
  };
  const walk = (v: unknown, depth: number) => {
    if (depth > 12 || v === null || v === undefined) return;
    if (typeof v === 'string') {
      text(v);
      const trimmed = v.trim();
      if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && trimmed.length < 1_000_000) {
        try {
          walk(JSON.parse(trimmed), depth + 1);
        } catch {
          // not JSON
        }
      }
      return;
    }
    if (typeof v === 'number' && Number.isInteger(v)) return text(String(v));
    if (typeof v !== 'object' || Buffer.isBuffer(v)) return;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      text(k);
      walk(x, depth + 1);
    }
  };
  for (const v of values) walk(v, 0);
  return [...new Set(out)];
}

/** A URL's path and query as a person reads them (percent-encoding and `+` decoded), for pansAnywhere. */
export function decodedUrl(url: string): string {
  try {
    return decodeURIComponent(url.replace(/\+/g, ' '));
  } catch {
    return url;
  }
}

/** Card-number fields of a request body (any depth): card_pan, pan, cards[].card_pan, CARD items' value. */
export function pansInRequest(payload: unknown): string[] {
  const out: string[] = [];
  let body = payload;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      return out;
    }
  }
  const walk = (v: unknown, depth: number) => {
    if (depth > 6 || v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (typeof x === 'string' && /^(card_pan|pan)$/.test(k)) out.push(x);
      // security-list items: {type: "CARD", value: PAN}
      else if (k === 'value' && (typeof x === 'string' || typeof x === 'number') && (v as { type?: unknown }).type === 'CARD') out.push(String(x));
      else walk(x, depth + 1);
    }
  };
  walk(body, 0);
  return out;
}
