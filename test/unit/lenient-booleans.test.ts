/**
 * Every boolean of every request body takes the spellings of decisions §10 (`true`, `1`, `"1"`,
 * `"true"`, `false`, `0`, ...): in the OpenAPI document each is the lenient `anyOf` whose first branch is
 * the boolean (schemas.ts Bool), never a bare `type: boolean` a PHP client's `1` would break.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const doc = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8'));

function resolve(s: any): any {
  return s && s.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s;
}

/** Paths of bare booleans under `s` (free maps such as metadata and credentials are values, not fields). */
function bareBooleans(s: any, at: string, out: string[], depth = 0): void {
  s = resolve(s);
  if (!s || typeof s !== 'object' || depth > 12) return;
  if (s.type === 'boolean') out.push(at);
  if (Array.isArray(s.anyOf)) {
    const lenient = resolve(s.anyOf[0])?.type === 'boolean';
    s.anyOf.forEach((b: any, i: number) => (lenient || resolve(b)?.type !== 'boolean' ? i === 0 && lenient ? undefined : bareBooleans(b, at, out, depth + 1) : out.push(at)));
  }
  for (const k of ['oneOf', 'allOf'] as const) if (Array.isArray(s[k])) s[k].forEach((b: any) => bareBooleans(b, at, out, depth + 1));
  if (s.properties) for (const [k, v] of Object.entries(s.properties)) bareBooleans(v, `${at}.${k}`, out, depth + 1);
  if (s.items) bareBooleans(s.items, `${at}[]`, out, depth + 1);
}

describe('lenient booleans in every request body', () => {
  it('no request body has a bare boolean', () => {
    const found: string[] = [];
    for (const [p, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        for (const c of Object.values<any>(op.requestBody?.content ?? {})) bareBooleans(c.schema, `${method.toUpperCase()} ${p}`, found);
      }
    }
    expect([...new Set(found)]).toEqual([]);
  });
});
