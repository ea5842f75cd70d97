/**
 * Every operation of the OpenAPI document has an example request (its body, when it takes one) and an
 * example answer (every success or redirect answer with content, JSON, HTML pages and CSV files alike).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const doc = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8'));
const resolve = (s: any) => (s && s.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s);
const hasExample = (media: any) => media.example !== undefined || media.examples !== undefined || resolve(media.schema)?.examples !== undefined || resolve(media.schema)?.example !== undefined;

describe('examples in the API reference', () => {
  it('every operation has an example request and an example answer', () => {
    const missing: string[] = [];
    let operations = 0;
    for (const [p, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!op || typeof op !== 'object' || !op.responses) continue;
        operations++;
        for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) if (!hasExample(media)) missing.push(`${method.toUpperCase()} ${p} request ${type}`);
        // the request's path and headers too (query parameters are optional filters)
        for (const prm of op.parameters ?? []) {
          if (prm.in !== 'path' && prm.in !== 'header') continue;
          const s = prm.schema ?? {};
          if (prm.example === undefined && prm.examples === undefined && s.examples === undefined && s.example === undefined && s.default === undefined && !s.enum) missing.push(`${method.toUpperCase()} ${p} ${prm.in} ${prm.name}`);
        }
        const answers = Object.entries<any>(op.responses).filter(([code]) => /^[23]/.test(code));
        expect(answers.length, `${method.toUpperCase()} ${p} has no success answer`).toBeGreaterThan(0);
        for (const [code, res] of answers) for (const [type, media] of Object.entries<any>(res.content ?? {})) if (!hasExample(media)) missing.push(`${method.toUpperCase()} ${p} ${code} ${type}`);
      }
    }
    expect(operations).toBeGreaterThan(90);
    expect(missing).toEqual([]);
  });
});
