/**
 * The pure parts of the event stream: cursors (what a client sends back to resume), the Server-Sent
 * Events framing the gateway writes, and the parser `paygate listen` reads it with, whatever way the
 * network cuts the bytes.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatCursor, parseCursor, parseTypes, renderNotification, signatureHeader, sseMessage, validationHash } from '../../src/modules/events/events.domain.js';
import { SseParser, streamUrl } from '../../src/cli/listen.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

describe('cursors', () => {
  it('read back what they write, and refuse anything else', () => {
    expect(parseCursor('7421-118')).toEqual({ txid: '7421', seq: '118' });
    expect(formatCursor({ txid: '7421', seq: '118' })).toBe('7421-118');
    // the largest xid8 and bigint
    expect(parseCursor('18446744073709551615-9223372036854775807')).toEqual({ txid: '18446744073709551615', seq: '9223372036854775807' });
    for (const bad of ['', '7421', '7421-', '-1', 'a-1', '1-1-1', '18446744073709551616-1', '1-9223372036854775808', '1.5-2', ' 1 - 2 ']) {
      expect(parseCursor(bad), bad).toBeNull();
    }
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 18446744073709551615n }), fc.bigInt({ min: 0n, max: 9223372036854775807n }), (txid, seq) => {
        const c = { txid: txid.toString(), seq: seq.toString() };
        expect(parseCursor(formatCursor(c))).toEqual(c);
      }),
    );
  });

  it('types are upper-cased, deduplicated, and empty means all', () => {
    expect(parseTypes(undefined)).toEqual([]);
    expect(parseTypes('')).toEqual([]);
    expect(parseTypes(' order_notification, SUBSCRIPTION_PAYMENT ,ORDER_NOTIFICATION,')).toEqual(['ORDER_NOTIFICATION', 'SUBSCRIPTION_PAYMENT']);
  });
});

describe('Server-Sent Events', () => {
  const message = fc.record({
    id: fc.option(fc.stringMatching(/^[0-9]{1,6}-[0-9]{1,6}$/), { nil: undefined }),
    event: fc.constantFrom('ready', 'ORDER_NOTIFICATION', 'SUBSCRIPTION_PAYMENT'),
    // JSON of any text: the data of a message is one line of JSON (line breaks are escaped in it)
    data: fc.jsonValue().map((v) => JSON.stringify(v)),
  });

  it('the parser reads back every message the gateway writes, however the bytes are cut', () => {
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (msgs, cuts, comments) => {
        let text = sseMessage({ retryMs: 2000 });
        for (const m of msgs) {
          if (comments) text += ': keep-alive\n\n';
          text += sseMessage(m);
        }
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const parser = new SseParser();
        const got = [];
        let from = 0;
        for (const p of [...points, text.length]) {
          got.push(...parser.push(text.slice(from, p)));
          from = p;
        }
        expect(got.map(({ id, event, data }) => ({ id, event, data }))).toEqual(msgs.map((m) => ({ id: m.id, event: m.event, data: m.data })));
      }),
    );
  });

  it('the parser takes CRLF and CR line ends (also split between chunks), multi-line data and the retry field', () => {
    const p = new SseParser();
    expect(p.push('retry: 3000\r\nid: 1-2\r')).toEqual([]);
    expect(p.push('\nevent: x\r\ndata: a\rdata: b\r\n\r')).toEqual([{ id: '1-2', event: 'x', data: 'a\nb', retry: 3000 }]);
    expect(p.push('\n')).toEqual([]);
    expect(p.push('data:no space\n\n')).toEqual([{ event: 'message', data: 'no space' }]);
    // a message with only comments is no message
    expect(p.push(': just a comment\n\n')).toEqual([]);
  });

  it('the gateway writes one data line per line of text and keeps ids and types on one line', () => {
    expect(sseMessage({ id: '1-2', event: 'ORDER_NOTIFICATION', data: '{"a":1}' })).toBe('id: 1-2\nevent: ORDER_NOTIFICATION\ndata: {"a":1}\n\n');
    expect(sseMessage({ data: 'a\nb' })).toBe('data: a\ndata: b\n\n');
    expect(sseMessage({ id: '1\n2', event: 'a\rb' })).toBe('id: 12\nevent: ab\n\n');
  });
});

describe('the request a streamed event carries', () => {
  it('is the notification body with validation_hash, signed over those exact bytes', () => {
    const payload = '{"order":{"uuid":"o-1","status":"SUCCESS"},"client":{"uuid":"c-1"}}';
    const r = renderNotification({ id: 'e-1', payload }, 'sig', '2026-03-14T10:21:08+0100', new Date('2026-03-14T09:21:08Z'));
    expect(r.body).toBe(`{"message":"OK","code":200,"current_time":"2026-03-14T10:21:08+0100","order":{"uuid":"o-1","status":"SUCCESS"},"client":{"uuid":"c-1"},"validation_hash":"${validationHash(payload, 'sig')}"}`);
    expect(r.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'paygate-notifications/1.0',
      'paygate-signature': signatureHeader(r.body, 'sig', Date.UTC(2026, 2, 14, 9, 21, 8) / 1000),
      'paygate-event': 'e-1',
    });
  });

  it('paygate listen asks the environment it is told, with the types filter', () => {
    expect(streamUrl({ url: 'http://127.0.0.1:8080/', env: 'sandbox', types: [] })).toBe('http://127.0.0.1:8080/v1/sandbox/events/stream');
    expect(streamUrl({ url: 'https://pay.example', env: 'production', types: ['ORDER_NOTIFICATION', 'SUBSCRIPTION_PAYMENT'] })).toBe('https://pay.example/v1/events/stream?types=ORDER_NOTIFICATION%2CSUBSCRIPTION_PAYMENT');
  });
});
