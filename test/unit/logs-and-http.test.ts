/** Logging format (human-readable on a terminal) and the setting that allows sandbox over plain HTTP on any address. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { plainHttpAllowed } from '../../src/platform/http/platform.js';
import { createLogger, redactUrl, wantsPretty } from '../../src/platform/logging.js';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  const s = new Writable({ write(c, _e, cb) { chunks.push(String(c)); cb(); } }) as Writable & { isTTY?: boolean };
  s.isTTY = isTTY;
  return { stream: s, text: () => chunks.join('') };
}

describe('log format', () => {
  it('auto is pretty on a terminal and JSON otherwise; json and pretty force it', () => {
    expect(wantsPretty('auto', { isTTY: true })).toBe(true);
    expect(wantsPretty('auto', { isTTY: false })).toBe(false);
    expect(wantsPretty('json', { isTTY: true })).toBe(false);
    expect(wantsPretty('pretty', { isTTY: false })).toBe(true);
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(loadConfig({ PAYGATE_LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(() => loadConfig({ PAYGATE_LOG_FORMAT: 'xml' })).toThrow(/PAYGATE_LOG_FORMAT must be one of auto, json, pretty/);
  });

  it('a pretty log line is readable text, with the same redaction as JSON', () => {
    const out = sink(false);
    const log = createLogger('info', out.stream as any, 'pretty');
    log.info({ req: { method: 'GET', url: '/v1/sandbox/auth/check?signature=abc123secret', headers: {} } }, 'request completed');
    const line = out.text();
    expect(line).toContain('INFO');
    expect(line).toContain('request completed');
    expect(line.trimStart().startsWith("{")).toBe(false);
    expect(line).not.toContain('abc123secret');
    const json = sink(false);
    createLogger('info', json.stream as any, 'json').info('hello');
    expect(JSON.parse(json.text())).toMatchObject({ msg: 'hello', level: 30 });
  });
});

describe('logged URLs', () => {
  it('a card number in a path or a query string is redacted; ordinary digit runs and secrets are handled apart', () => {
    expect(redactUrl('/dashboard/api/orders/export.csv?q=4548812049400004')).toBe('/dashboard/api/orders/export.csv?q=[REDACTED]');
    expect(redactUrl('/v1/sandbox/customer/4548812049400004/cards')).toBe('/v1/sandbox/customer/[REDACTED]/cards');
    // a Luhn-invalid run of the same length is no card number and stays readable
    expect(redactUrl('/v1/sandbox/orders?q=4548812049400005')).toBe('/v1/sandbox/orders?q=4548812049400005');
    expect(redactUrl('/v1/sandbox/orders?signature=abc&page=2')).toBe('/v1/sandbox/orders?signature=[REDACTED]&page=2');
  });
});

describe('sandbox over plain HTTP', () => {
  it('loopback only by default; any address with PAYGATE_SANDBOX_HTTP_ANY_ADDRESS; production never', () => {
    expect(loadConfig({}).sandboxHttpAnyAddress).toBe(false);
    expect(loadConfig({ PAYGATE_SANDBOX_HTTP_ANY_ADDRESS: 'true' }).sandboxHttpAnyAddress).toBe(true);
    expect(plainHttpAllowed('sandbox', '127.0.0.1')).toBe(true);
    expect(plainHttpAllowed('sandbox', '::1')).toBe(true);
    expect(plainHttpAllowed('sandbox', '192.0.2.10')).toBe(false);
    expect(plainHttpAllowed('sandbox', '192.0.2.10', true)).toBe(true);
    expect(plainHttpAllowed('production', '192.0.2.10', true)).toBe(false);
    expect(plainHttpAllowed('production', '127.0.0.1', true)).toBe(false);
  });
});
