/** The request log's redaction: what never reaches the log, at any depth and in any shape. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactAnswerText, redactBody, redactPans, redactValue } from '../../src/platform/http/request-log.js';
import { toWireJson } from '../../src/platform/http/json.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

describe('request log redaction', () => {
  it('redacts card numbers, CVVs, PIN blocks, track data, signatures, keys and credentials by name, at any depth', () => {
    const out = redactValue({
      signature: 'a1b2', card_pan: '4548812049400004', card_cvv: '123', nested: { cards: [{ pan: '4111111111111111', cvc: '999' }] },
      pin_block: '041234FFFFFFFFFF', track2: '4548812049400004=30121011000012345678', api_key: 'k', credentials: { key_secure: 's' }, Password: 'p',
      amount: 1000, description: 'keep me',
    }) as any;
    expect(out).toEqual({
      signature: '[REDACTED]', card_pan: '[REDACTED]', card_cvv: '[REDACTED]', nested: { cards: [{ pan: '[REDACTED]', cvc: '[REDACTED]' }] },
      pin_block: '[REDACTED]', track2: '[REDACTED]', api_key: '[REDACTED]', credentials: '[REDACTED]', Password: '[REDACTED]',
      amount: 1000, description: 'keep me',
    });
  });

  it('redacts the named fields whatever their value (a mistyped card number is still one)', () => {
    expect(redactValue({ card_pan: '4548812049400005', card_cvv: '12', pin: '1234', track2: 'x' })).toEqual({ card_pan: '[REDACTED]', card_cvv: '[REDACTED]', pin: '[REDACTED]', track2: '[REDACTED]' });
    // absent values stay absent
    expect(redactValue({ card_cvv: null, signature: '' })).toEqual({ card_cvv: null, signature: '' });
  });

  it('redacts a card number wherever it hides: free text, spaced or dashed, a JSON number', () => {
    expect(redactPans('card 4548 8120 4940 0004 ok')).toBe('card [REDACTED] ok');
    expect(redactPans('5555-5555-5555-4444')).toBe('[REDACTED]');
    // not Luhn-valid, or too short: a reference stays
    expect(redactPans('order 4548812049400005 and 123456789012')).toBe('order 4548812049400005 and 123456789012');
    expect(redactValue({ n: 4548812049400004 })).toEqual({ n: '[REDACTED]' });
    expect(redactBody('not json 4111111111111111')).toBe('not json [REDACTED]');
    expect(redactBody('{"metadata":{"note":"4111 1111 1111 1111"}}')).toBe('{"metadata":{"note":"[REDACTED]"}}');
  });

  it('keeps bodies short and leaves nothing for an empty one', () => {
    expect(redactBody(undefined)).toBeNull();
    expect(redactBody('')).toBeNull();
    const long = redactBody(JSON.stringify({ a: 'x'.repeat(100_000) }))!;
    expect(long.length).toBeLessThan(70_000);
    expect(long.endsWith('…[cut]')).toBe(true);
  });

  it("redacts an answer's JSON text as redactValue redacts the parsed answer, without parsing it (seeded)", () => {
    const secret = fc.constantFrom('signature', 'api_key', 'Card-Pan', 'credentials', 'cvv', 'track2', 'payload');
    const leaf = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.integer(),
      fc.constantFrom(null, true, '', 'card 4548 8120 4940 0004', '5555-5555-5555-4444', 'é/ü \\ "q"', 4548812049400004, '4548812049400005', 12345678901234),
    );
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 3 }), tie('o')),
      o: fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), secret, fc.constant('4111111111111111')), tie('v'), { maxKeys: 4 }),
    })).o;
    fc.assert(
      fc.property(value, (v) => {
        const text = toWireJson(v);
        expect(JSON.parse(redactAnswerText(text))).toEqual(redactValue(JSON.parse(text)));
      }),
      { numRuns: 500 },
    );
    // the wire form is kept (escaped slashes), and nothing is parsed to get there
    expect(redactAnswerText('{"url":"https:\\/\\/x","api_key":"k1","n":null,"s":""}')).toBe('{"url":"https:\\/\\/x","api_key":"[REDACTED]","n":null,"s":""}');
    expect(redactAnswerText('{"amount":4548812049400004}')).toBe('{"amount":"[REDACTED]"}');
    expect(redactAnswerText('not json 4111111111111111')).toBe('not json [REDACTED]');
  });
});
