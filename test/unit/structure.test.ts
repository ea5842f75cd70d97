/**
 * The structure of the code holds (docs/architecture.md, "Structure rules"):
 *  (a) no import circle between files of src/, nor between its modules, through value imports.
 *      Imports erased from the JavaScript (`import type`, or every specifier marked `type`) and
 *      `import('...')` calls (loaded when the call runs, after both files are) cannot make a file see
 *      another half loaded, so they do not count;
 *  (b) no arrow back up: platform/ imports no processors/ or modules/, processors/ no modules/, a
 *      module imports another only through its index.ts, and the other layer rules of
 *      `layerViolation` (test/helpers/structure.ts). Type-only imports count here;
 *  (c) no file of the project's code above 500 lines, but the generated files of ALLOWED_LONG.
 * Each failure names every offender.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { circles, codeFiles, importGraph, importsOf, layerViolation, lineCount, type ImportGraph } from '../helpers/structure.js';

const ROOT = process.cwd();
const MAX_LINES = 500;
/** Generated files (openapi-typescript), the only code files allowed above MAX_LINES. */
const ALLOWED_LONG = ['clients/typescript/schema.ts', 'dashboard/src/schema.ts'];
/** Where the project's own code lives (node_modules and dist skipped). */
const CODE_FOLDERS = ['src', 'dashboard', 'clients', 'scripts', 'bench', 'test', 'migrations'];

let graph: ImportGraph | undefined;
const srcGraph = () => (graph ??= importGraph(ROOT, 'src'));

describe('the structure guards read the code right', () => {
  it('tell value imports from type-only and dynamic ones', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import { type C, type D } from './c.js';",
      "import { type E, f } from './e.js';",
      "import g, { type H } from './g.js';",
      "import * as ns from './ns.js';",
      "import './side-effect.js';",
      "export { i } from './i.js';",
      "export type { J } from './j.js';",
      "export * from './k.js';",
      "const l = await import('./l.js');",
      "let m: import('./m.js').M;",
    ].join('\n');
    const seen = importsOf('x.ts', text).map((r) => `${r.specifier} ${r.typeOnly ? 'type' : 'value'}${r.dynamic ? ' dynamic' : ''}`);
    expect(seen).toEqual([
      './a.js value',
      './b.js type',
      './c.js type',
      './e.js value',
      './g.js value',
      './ns.js value',
      './side-effect.js value',
      './i.js value',
      './j.js type',
      './k.js value',
      './l.js value dynamic',
      './m.js type',
    ]);
  });

  it('name each circle once, by its shortest loop', () => {
    const e = (from: string, to: string) => ({ from, to });
    expect(circles([e('a', 'b'), e('b', 'c'), e('c', 'd')])).toEqual([]);
    expect(circles([e('b', 'a'), e('a', 'b'), e('b', 'c'), e('c', 'a'), e('x', 'x'), e('p', 'q'), e('q', 'r'), e('r', 'p')])).toEqual(['a -> b -> a', 'p -> q -> r -> p', 'x -> x']);
  });

  it('know the layer rules', () => {
    const bad = (from: string, to: string, typeOnly = false) => layerViolation({ from, to, typeOnly });
    expect(bad('src/platform/http/platform.ts', 'src/modules/payments/index.ts', true)).toMatch(/platform\/ imports nothing from modules/);
    expect(bad('src/platform/db/database.ts', 'src/processors/index.ts')).toMatch(/platform\/ imports nothing from processors/);
    expect(bad('src/platform/index.ts', 'src/config/config.ts')).toMatch(/only with `import type`/);
    expect(bad('src/platform/index.ts', 'src/config/config.ts', true)).toBeUndefined();
    expect(bad('src/processors/registry.ts', 'src/modules/services/index.ts')).toMatch(/processors\/ imports nothing from modules/);
    expect(bad('src/config/config.ts', 'src/modules/services/index.ts')).toMatch(/config\/ imports nothing from modules/);
    expect(bad('src/modules/risk/risk.service.ts', 'src/app.ts')).toMatch(/composition/);
    expect(bad('src/modules/risk/risk.service.ts', 'src/modules/payments/core.ts', true)).toMatch(/only through src\/modules\/payments\/index.ts/);
    expect(bad('src/modules/risk/risk.service.ts', 'src/modules/payments/index.ts')).toBeUndefined();
    expect(bad('src/modules/risk/risk.service.ts', 'src/modules/risk/risk.repo.ts')).toBeUndefined();
    expect(bad('src/processors/nuvei/nuvei.connector.ts', 'src/processors/redsys/codes.ts')).toMatch(/other connector's folder/);
    expect(bad('src/processors/nuvei/nuvei.connector.ts', 'src/processors/kit/base.ts')).toBeUndefined();
    expect(bad('src/processors/kit/base.ts', 'src/processors/redsys/codes.ts')).toMatch(/kit\/ imports no connector/);
    expect(bad('src/processors/connectors.ts', 'src/processors/redsys/declaration.ts')).toBeUndefined();
    expect(bad('src/cli/main.ts', 'src/modules/payments/payments.service.ts')).toBeUndefined();
  });

  it('count lines as wc -l does', () => {
    expect([lineCount(''), lineCount('a'), lineCount('a\n'), lineCount('a\nb'), lineCount('a\nb\n\n')]).toEqual([0, 1, 1, 2, 3]);
  });

  it('see every relative import of src/', () => {
    const g = srcGraph();
    expect(g.unresolved).toEqual([]);
    expect(g.files.length).toBeGreaterThan(300);
    expect(g.edges.length).toBeGreaterThan(1000);
    expect(g.edges.some((e) => e.from === 'src/app.ts' && e.to === 'src/modules/payments/index.ts' && !e.typeOnly)).toBe(true);
  });
});

describe('the structure of the code', () => {
  it('(a) has no import circle between files of src/ through value imports', () => {
    const found = circles(srcGraph().edges.filter((e) => !e.typeOnly && !e.dynamic));
    expect(found, `import circles (value imports):\n  ${found.join('\n  ')}`).toEqual([]);
  });

  it('(a) has no circle between the modules of src/modules through value imports', () => {
    const moduleOf = (file: string) => (file.startsWith('src/modules/') ? file.split('/').slice(0, 3).join('/') : undefined);
    const between = srcGraph()
      .edges.filter((e) => !e.typeOnly && !e.dynamic)
      .map((e) => ({ from: moduleOf(e.from), to: moduleOf(e.to) }))
      .filter((e): e is { from: string; to: string } => !!e.from && !!e.to && e.from !== e.to);
    expect(between.length).toBeGreaterThan(40);
    const found = circles(between);
    expect(found, `circles between modules (value imports):\n  ${found.join('\n  ')}`).toEqual([]);
  });

  it('(b) has no arrow back up between the parts of src/', () => {
    const found = srcGraph().edges.map(layerViolation).filter((v): v is string => v !== undefined);
    expect(found, `imports against the layer rules:\n  ${found.join('\n  ')}`).toEqual([]);
  });

  it(`(c) has no file above ${MAX_LINES} lines but the generated ones`, () => {
    for (const file of ALLOWED_LONG) expect(fs.readFileSync(file, 'utf8').slice(0, 200), `${file} is generated`).toContain('auto-generated');
    const found = CODE_FOLDERS.flatMap((dir) => codeFiles(ROOT, dir))
      .filter((file) => !ALLOWED_LONG.includes(file))
      .map((file) => ({ file, lines: lineCount(fs.readFileSync(file, 'utf8')) }))
      .filter((f) => f.lines > MAX_LINES)
      .sort((a, b) => b.lines - a.lines)
      .map((f) => `${f.file} (${f.lines} lines)`);
    expect(found, `files above ${MAX_LINES} lines:\n  ${found.join('\n  ')}`).toEqual([]);
  });
});
