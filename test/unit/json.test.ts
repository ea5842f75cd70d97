import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { toWireJson, toWireJsonAround } from '../../src/platform/http/json.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url);

const vectors = fs.readFileSync(new URL('../fixtures/validation-hash-vectors.txt', import.meta.url), 'utf8');

describe('wire serializer (decisions §1)', () => {
  it('escapes / and non-ASCII the reference way', () => {
    expect(toWireJson({ a: 'José/ref-1' })).toBe('{"a":"Jos\\u00e9\\/ref-1"}');
    expect(toWireJson({ e: '€' })).toBe('{"e":"\\u20ac"}');
    // above U+FFFF: a surrogate pair, lowercase hex
    expect(toWireJson('😀')).toBe('"\\ud83d\\ude00"');
    expect(toWireJson({ n: 1050, b: true, z: null })).toBe('{"n":1050,"b":true,"z":null}');
  });

  it('reproduces both validation_hash vectors byte for byte', () => {
    const sig = 'test_signature_0123456789';
    const caseA = {
      order: { uuid: 'D16004FF-3421-409C-ADFC-DA2618D36135', amount: 1050, currency: '978', paid: true, status: 'SUCCESS', token: null },
      client: { uuid: 'B1F13B01-BA97-491C-BBDE-1C18988BD229' },
    };
    const caseB = {
      order: { uuid: 'D16004FF-3421-409C-ADFC-DA2618D36135', amount: 1050, currency: '978', paid: true, status: 'SUCCESS', additional: 'José/ref-1' },
      client: { uuid: 'B1F13B01-BA97-491C-BBDE-1C18988BD229' },
    };
    for (const [value, label] of [[caseA, 'Case A'], [caseB, 'Case B']] as const) {
      const serialized = toWireJson(value);
      const section = vectors.split(label)[1];
      expect(section).toContain(`serialized: ${serialized}\n`);
      const hash = createHash('sha256').update(serialized + sig).digest('hex');
      expect(section).toMatch(new RegExp(`hash:\\s+${hash}`));
    }
  });

  it('is read back unchanged by JSON.parse, for any value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = toWireJson(v);
        expect(/[^\x00-\x7f]/.test(text)).toBe(false);
        expect(text.includes('/') && !text.includes('\\/')).toBe(false);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 500 },
    );
  });

  it('toWireJsonAround gives the bytes of toWireJson of the whole object, for any parts (run seed)', () => {
    const key = fc.string({ minLength: 1, maxLength: 6 });
    const part = (prefix: string) => fc.dictionary(key.map((k) => `${prefix}${k}`), fc.jsonValue(), { minKeys: 1, maxKeys: 4 });
    fc.assert(
      fc.property(part('h'), part('i'), part('t'), (head, inner, tail) => {
        expect(toWireJsonAround(head, toWireJson(inner), tail)).toBe(toWireJson({ ...head, ...inner, ...tail }));
      }),
      { numRuns: 300 },
    );
    expect(() => toWireJsonAround({}, '{"a":1}', { b: 2 })).toThrow();
    expect(() => toWireJsonAround({ a: 1 }, '{}', { b: 2 })).toThrow();
  });
});
