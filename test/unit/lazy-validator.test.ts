/**
 * Route validators are compiled at a route's first request (platform.ts): nothing is compiled when the
 * route is registered, a route's schema is compiled once, and each call's errors are the caller's.
 */
import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { lazyValidator } from '../../src/platform/http/platform.js';

describe('lazyValidator', () => {
  it('compiles on the first call only, and hands on each call its own errors and result', () => {
    let compiled = 0;
    const v = lazyValidator(() => {
      compiled++;
      const fn: { (d: unknown): unknown; errors?: unknown } = (d: unknown) => {
        fn.errors = d === 1 ? null : [{ message: `not 1: ${String(d)}` }];
        return d === 1 ? true : d === 2 ? { value: 'two' } : false;
      };
      return fn;
    });
    expect(compiled).toBe(0);
    expect(v(3)).toBe(false);
    expect(v.errors).toEqual([{ message: 'not 1: 3' }]);
    expect(v(1)).toBe(true);
    expect(v.errors).toBeNull();
    expect(v(2)).toEqual({ value: 'two' });
    expect(compiled).toBe(1);
  });

  it('a route answers its schema errors as before, its validator compiled when the first request comes', async () => {
    let compiled = 0;
    const app = Fastify();
    app.setValidatorCompiler(({ schema }) =>
      lazyValidator(() => {
        compiled++;
        const required = (schema as { required?: string[] }).required ?? [];
        const fn: { (d: unknown): unknown; errors?: unknown } = (d: unknown) => {
          const missing = required.filter((k) => !(d && typeof d === 'object' && k in d));
          fn.errors = missing.map((k) => ({ instancePath: '', message: `must have required property '${k}'`, keyword: 'required', params: {}, schemaPath: '' }));
          return missing.length === 0;
        };
        return fn;
      }) as never,
    );
    app.post('/x', { schema: { body: { type: 'object', required: ['a'] } } }, async () => ({ ok: true }));
    await app.ready();
    expect(compiled).toBe(0);
    const bad = await app.inject({ method: 'POST', url: '/x', payload: { b: 1 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain("must have required property 'a'");
    expect((await app.inject({ method: 'POST', url: '/x', payload: { a: 1 } })).statusCode).toBe(200);
    expect(compiled).toBe(1);
    await app.close();
  });
});
