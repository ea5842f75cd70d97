/**
 * Lenient scalars (decisions §10), read in one place from the route schema: the builders' accepted
 * forms, the canonical schema validation runs on, and the coercion walk.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AMOUNT_MAX, Amount, Bool, ExtId, Int, Maybe, OptionalIp, OptionalText, Type, signedBody } from '../../src/platform/http/schemas.js';
import { canonical, coerce, coerceScalar, hasCoercion, lenientValidator } from '../../src/platform/http/lenient.js';
import { useTestSeed } from '../helpers/seed.js';

useTestSeed(import.meta.url); // fast-check runs with the printed seed

const ajv = addFormats.default(new Ajv.default({ useDefaults: true, removeAdditional: true, strict: false, coerceTypes: false }));
const validator = (schema: unknown) => lenientValidator(schema, (s) => ajv.compile(s as object));

const Body = signedBody({
  amount: Amount(),
  secure: Type.Optional(Bool({ default: false })),
  customer_ext_id: Maybe(ExtId()),
  service: OptionalText(64),
  customer_ip: OptionalIp(),
  cards: Type.Optional(Type.Array(Type.Object({ customer_ext_id: ExtId(), validate: Maybe(Bool()) }))),
  nested: Maybe(Type.Object({ count: Int({ minimum: 0, maximum: 10 }) })),
});

function run(data: Record<string, unknown>) {
  const v = validator(Body);
  const out = v(data);
  return { ok: out !== false, data: typeof out === 'object' ? out.value : data, errors: v.errors as any[] | undefined };
}

describe('coerceScalar', () => {
  it('booleans: true/false, 1/0 and "true"/"false"/"1"/"0"; nothing else', () => {
    for (const v of [true, 1, '1', 'true']) expect(coerceScalar('bool', v)).toBe(true);
    for (const v of [false, 0, '0', 'false']) expect(coerceScalar('bool', v)).toBe(false);
    for (const v of [2, 'yes', 'TRUE', '', null, []]) expect(coerceScalar('bool', v)).toBe(v);
  });

  it('integers: within 1e-6 of an integer, or a string of digits', () => {
    expect(coerceScalar('int', 19.99 * 100)).toBe(1999);
    expect(coerceScalar('int', 1999.0000004)).toBe(1999);
    expect(coerceScalar('int', 19.5)).toBe(19.5);
    expect(coerceScalar('int', 1999.00001)).toBe(1999.00001);
    expect(coerceScalar('int', '2500')).toBe(2500);
    expect(coerceScalar('int', '-5')).toBe(-5);
    for (const v of ['19.99', '1e3', ' 1', '', 'x', Infinity, NaN]) expect(coerceScalar('int', v)).toBe(v);
  });

  it('property (seeded): a number near an integer reads as that integer; farther from one it is left for the validator to refuse', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), fc.double({ min: -1e-7, max: 1e-7, noNaN: true }), (n, eps) => {
        expect(coerceScalar('int', n + eps)).toBe(n + eps === Math.round(n + eps) ? n + eps : Math.round(n + eps));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.integer({ min: -1e6, max: 1e6 }), fc.double({ min: 1e-5, max: 0.99999, noNaN: true }), (n, frac) => {
        expect(coerceScalar('int', n + frac)).toBe(n + frac);
      }),
      { numRuns: 500 },
    );
  });

  it('external ids: safe integers become strings', () => {
    expect(coerceScalar('ext-id', 42)).toBe('42');
    expect(coerceScalar('ext-id', 'abc')).toBe('abc');
    expect(coerceScalar('ext-id', 1.5)).toBe(1.5);
    expect(coerceScalar('ext-id', 2 ** 60)).toBe(2 ** 60);
  });
});

describe('a body through the lenient validator', () => {
  it('reads every lenient form into the canonical one the handler receives', () => {
    const r = run({ signature: 's', amount: 1998.9999999999998, secure: '1', customer_ext_id: 42, service: '', customer_ip: '', cards: [{ customer_ext_id: 7, validate: 0 }], nested: { count: '3' }, extra: 'x' });
    expect(r.ok, JSON.stringify(r.errors)).toBe(true);
    expect(r.data).toEqual({ signature: 's', amount: 1999, secure: true, customer_ext_id: '42', cards: [{ customer_ext_id: '7', validate: false }], nested: { count: 3 }, extra: 'x' });
    expect(r.data).not.toHaveProperty('service');
    expect(r.data).not.toHaveProperty('customer_ip');
  });

  it('applies defaults to what is absent (secure: false)', () => {
    const r = run({ signature: 's', amount: '100' });
    expect(r.ok).toBe(true);
    expect(r.data).toEqual({ signature: 's', amount: 100, secure: false });
  });

  it('refuses what cannot be read, naming the field', () => {
    const bad = (patch: Record<string, unknown>, path: string) => {
      const r = run({ signature: 's', amount: 1, ...patch });
      expect(r.ok, JSON.stringify(patch)).toBe(false);
      expect(r.errors!.map((e) => e.instancePath).join(' '), JSON.stringify(patch)).toContain(path);
    };
    bad({ amount: 19.5 }, '/amount');
    bad({ amount: AMOUNT_MAX + 1 }, '/amount');
    bad({ amount: 2 ** 63 }, '/amount');
    bad({ amount: '9007199254740993' }, '/amount');
    bad({ amount: -1 }, '/amount');
    bad({ secure: 'yes' }, '/secure');
    bad({ customer_ip: 'nope' }, '/customer_ip');
    bad({ customer_ext_id: 2 ** 60 }, '/customer_ext_id');
    bad({ nested: { count: 11 } }, '/nested/count');
    bad({ cards: [{ customer_ext_id: true }] }, '/cards/0/customer_ext_id');
  });
});

describe('schemas', () => {
  it('the canonical schema keeps no marker and no empty anyOf; the documented one lists every accepted form', () => {
    const doc = JSON.stringify(Body);
    expect(doc).toContain('"x-coerce":"int"');
    expect(doc).toContain('"enum":["true","false","1","0"]');
    const canon = JSON.stringify(canonical(Body));
    expect(canon).not.toContain('x-coerce');
    expect(canon).not.toContain('"anyOf":[]');
    expect(hasCoercion(Body)).toBe(true);
    expect(hasCoercion(Type.Object({ a: Type.String() }))).toBe(false);
    // `x-problem` stays: it tells a value that breaks the node what to send (schemas.ts PROBLEM)
    expect((canonical(Body) as any).properties.amount).toEqual({ type: 'integer', minimum: 0, maximum: AMOUNT_MAX, 'x-problem': 'amount' });
    expect((canonical(Body) as any).properties.secure).toEqual({ type: 'boolean', default: false });
  });

  it('Int refuses an unsafe maximum (digit strings above 2^53 would be rounded)', () => {
    expect(() => Int({ maximum: 2 ** 63 })).toThrow(/maximum/);
  });

  it('records: values of a Type.Record are read too', () => {
    const schema = Type.Object({ flags: Type.Record(Type.String(), Bool()) });
    const v = validator(schema);
    const data = { flags: { a: 1, b: 'false' } };
    expect(v(data)).not.toBe(false);
    expect(data).toEqual({ flags: { a: true, b: false } });
    expect(v({ flags: { a: 'maybe' } })).toBe(false);
  });

  it('coerce leaves data of schemas without markers untouched', () => {
    const plain = Type.Object({ a: Type.Integer() });
    const data = { a: '1' };
    expect(coerce(plain, data)).toBe(data);
    expect(data).toEqual({ a: '1' });
  });
});
