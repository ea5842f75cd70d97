/**
 * Reads the structure of the code for test/unit/structure.test.ts: the files of a folder, the imports
 * of each file (parsed by the TypeScript compiler, so `import type` and type-only specifiers are told
 * apart from value imports), the circles of the import graph and the layer rules of
 * docs/architecture.md ("Structure rules").
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Extensions of the files the guards read. */
export const CODE_FILE = /\.(ts|tsx|mts|js|mjs|css|sql)$/;

/** Every code file under `dir` (relative to `root`, with forward slashes), dependencies and builds skipped. */
export function codeFiles(root: string, dir: string, pattern: RegExp = CODE_FILE): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const p = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'dist') walk(p);
      } else if (pattern.test(e.name) && !e.name.endsWith('.d.ts') && !e.name.endsWith('.d.mts')) out.push(p);
    }
  };
  if (fs.existsSync(path.join(root, dir))) walk(dir);
  return out.sort();
}

/** Lines of a text, as `wc -l` counts them when the text ends with a newline. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

export interface ImportRef {
  specifier: string;
  /** `import type`, `export type`, or every named specifier marked `type`: erased from the JavaScript. */
  typeOnly: boolean;
  /** `import('...')`: loaded when the call runs, not when the importing file loads. */
  dynamic: boolean;
}

/** The imports and re-exports of one file's text (static, dynamic and `import('...')` types). */
export function importsOf(fileName: string, text: string): ImportRef[] {
  const sf = ts.createSourceFile(fileName, text, { languageVersion: ts.ScriptTarget.ES2022, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false);
  const out: ImportRef[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const c = n.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : undefined;
      const typeOnly = !!c && (c.isTypeOnly || (!c.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      out.push({ specifier: n.moduleSpecifier.text, typeOnly, dynamic: false });
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
      const named = n.exportClause && ts.isNamedExports(n.exportClause) ? n.exportClause.elements : undefined;
      const typeOnly = n.isTypeOnly || (!!named && named.length > 0 && named.every((e) => e.isTypeOnly));
      out.push({ specifier: n.moduleSpecifier.text, typeOnly, dynamic: false });
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference) && ts.isStringLiteral(n.moduleReference.expression)) {
      out.push({ specifier: n.moduleReference.expression.text, typeOnly: n.isTypeOnly, dynamic: false });
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments[0] && ts.isStringLiteralLike(n.arguments[0])) {
      out.push({ specifier: n.arguments[0].text, typeOnly: false, dynamic: true });
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      out.push({ specifier: n.argument.literal.text, typeOnly: true, dynamic: false });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

export interface Edge extends ImportRef {
  from: string;
  to: string;
}

export interface ImportGraph {
  files: string[];
  edges: Edge[];
  /** Relative imports that name no file (the graph would miss them). */
  unresolved: string[];
}

/** The file a relative specifier names (`./x.js` is `./x.ts` in the sources), or undefined. */
function resolve(root: string, from: string, specifier: string): string | undefined {
  const base = path.posix.join(path.posix.dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`, `${base}/index.ts`];
  return candidates.find((c) => fs.existsSync(path.join(root, c)) && fs.statSync(path.join(root, c)).isFile());
}

/** The graph of the relative imports between the script files under `dir` (packages and `node:` left out). */
export function importGraph(root: string, dir: string): ImportGraph {
  const files = codeFiles(root, dir, /\.(ts|tsx|mts|js|mjs)$/);
  const edges: Edge[] = [];
  const unresolved: string[] = [];
  for (const from of files) {
    for (const ref of importsOf(from, fs.readFileSync(path.join(root, from), 'utf8'))) {
      if (!ref.specifier.startsWith('.')) continue;
      const to = resolve(root, from, ref.specifier);
      if (to) edges.push({ ...ref, from, to });
      else unresolved.push(`${from}: ${ref.specifier}`);
    }
  }
  return { files, edges, unresolved };
}

/**
 * The circles of a directed graph: one shortest circle through each strongly connected group of files
 * (Tarjan), written `a -> b -> a`, so each circle is named once however many paths it has.
 */
export function circles(edges: Array<{ from: string; to: string }>): string[] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, []);
    next.get(e.from)!.push(e.to);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const strong = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (next.get(v) ?? []).includes(v)) groups.push(group);
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) strong(v);
  return groups
    .map((group) => {
      // the shortest way back to the group's first file (by name), inside the group
      const inGroup = new Set(group);
      const start = [...group].sort()[0];
      const cameFrom = new Map<string, string>();
      const queue = [start];
      let found = false;
      while (queue.length > 0 && !found) {
        const v = queue.shift()!;
        for (const w of next.get(v) ?? []) {
          if (!inGroup.has(w)) continue;
          if (w === start) {
            cameFrom.set(start, v);
            found = true;
            break;
          }
          if (!cameFrom.has(w)) {
            cameFrom.set(w, v);
            queue.push(w);
          }
        }
      }
      const loop = [start];
      for (let v = cameFrom.get(start)!; v !== start; v = cameFrom.get(v)!) loop.unshift(v);
      loop.unshift(start);
      return loop.join(' -> ');
    })
    .sort();
}

/** The part of src/ a file belongs to, for the layer rules. */
export type Layer = 'platform' | 'config' | 'processors' | 'modules' | 'top';

export function layerOf(file: string): Layer {
  const [, part] = file.split('/');
  if (part === 'platform' || part === 'config' || part === 'processors' || part === 'modules') return part;
  return 'top'; // app.ts, bootstrap.ts, server.ts, worker.ts, supervisor.ts, cli/: the composition
}

/**
 * What is wrong with one import of src/, or undefined. Type-only and dynamic imports count too: the
 * rules are about which part may know which, not about load order.
 *  - platform/ knows no business: it imports no processors/, modules/ or top file, and config/ only
 *    for its types (config/ reads the connector list of processors/);
 *  - config/ imports no modules/ or top file;
 *  - processors/ imports no modules/ or top file; a connector's folder imports no other connector's
 *    folder (what they share is in kit/ and the files of processors/ itself), and kit/ no connector;
 *  - modules/ imports no top file, and another module only through that module's index.ts.
 */
export function layerViolation(e: { from: string; to: string; typeOnly: boolean }): string | undefined {
  const from = layerOf(e.from);
  const to = layerOf(e.to);
  const arrow = `${e.from} -> ${e.to}`;
  if (from !== 'top' && to === 'top') return `${arrow}: only the composition (app, bootstrap, server, worker, supervisor, cli) imports the composition`;
  if (from === 'platform' && (to === 'processors' || to === 'modules')) return `${arrow}: platform/ imports nothing from ${to}/`;
  if (from === 'platform' && to === 'config' && !e.typeOnly) return `${arrow}: platform/ imports config/ only with \`import type\``;
  if ((from === 'config' || from === 'processors') && to === 'modules') return `${arrow}: ${from}/ imports nothing from modules/`;
  if (from === 'processors' && to === 'processors') {
    const a = e.from.split('/');
    const b = e.to.split('/');
    // src/processors/<folder>/... : a connector's folder, or kit/
    const fa = a.length > 3 ? a[2] : undefined;
    const fb = b.length > 3 ? b[2] : undefined;
    if (fa === 'kit' && fb && fb !== 'kit') return `${arrow}: kit/ imports no connector's folder`;
    if (fa && fb && fa !== fb && fb !== 'kit') return `${arrow}: a connector's folder imports no other connector's folder`;
  }
  if (from === 'modules' && to === 'modules') {
    const ma = e.from.split('/')[2];
    const mb = e.to.split('/')[2];
    if (ma !== mb && e.to !== `src/modules/${mb}/index.ts`) return `${arrow}: another module is imported only through src/modules/${mb}/index.ts`;
  }
  return undefined;
}
