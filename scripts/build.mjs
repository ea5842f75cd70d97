#!/usr/bin/env node
/**
 * Builds the runnable gateway: src/server.ts → dist/server.js and the operator command
 * src/cli/main.ts → dist/cli.js (and the worker process src/worker.ts → dist/worker.js), bundled by esbuild (our code and most
 * packages in one file each; see `external`), with source maps. The page scripts read at start are copied to dist/client.
 * `npm start` runs it first with --if-stale (a build takes a few seconds; an unchanged checkout starts without one);
 * `npm run dev` runs the sources through tsx.
 * It also builds the dashboard web app into dist/dashboard when its sources changed
 * (scripts/build-dashboard.mjs).
 *
 *   node scripts/build.mjs            build
 *   node scripts/build.mjs --if-stale build only when a source is newer than the build (bin/paygate.js)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDashboard } from './build-dashboard.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const outputs = [path.join(dist, 'server.js'), path.join(dist, 'worker.js'), path.join(dist, 'cli.js')];

/** The latest change under `dir`: a file written, or a file added or removed (its folder's time). */
function newestSource(dir) {
  let newest = fs.statSync(dir).mtimeMs;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** The build is missing, or older than a source, the packages installed (package.json, the lock file) or this script. */
export function isStale() {
  if (!outputs.every((f) => fs.existsSync(f))) return true;
  const built = Math.min(...outputs.map((f) => fs.statSync(f).mtimeMs));
  const inputs = ['package.json', 'package-lock.json', 'scripts/build.mjs'].map((f) => path.join(root, f)).filter((f) => fs.existsSync(f));
  return newestSource(path.join(root, 'src')) > built || inputs.some((f) => fs.statSync(f).mtimeMs > built);
}

export async function build() {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { server: 'src/server.ts', worker: 'src/worker.ts', cli: 'src/cli/main.ts' },
    outdir: dist,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // the packages are bundled too: a process loads one file instead of resolving and reading some
    // thousand modules (about 0.9 s less per start of the gateway, a worker or a `paygate` command). Kept
    // in node_modules: those that read files of their own at run time (PGlite's WebAssembly, pino's
    // transport threads, the API reference's assets, @fastify/swagger's and ioredis's __dirname), the
    // build tools, and optional native add-ons.
    external: [
      '@electric-sql/pglite', 'pino', 'pino-pretty', 'thread-stream', '@scalar/fastify-api-reference', '@fastify/swagger', 'ioredis',
      'esbuild', 'vite', 'pg-native', 'bufferutil', 'utf-8-validate',
    ],
    // the CommonJS packages' require() of Node's modules, in an ES module
    banner: { js: "import { createRequire as __paygateCreateRequire } from 'node:module'; const require = __paygateCreateRequire(import.meta.url);" },
    sourcemap: true,
    // stack traces name src/ and node_modules/ files of the checkout; their text stays out of the map
    sourcesContent: false,
    logLevel: 'warning',
    write: false,
  });
  for (const f of result.outputFiles) replaceFile(f.path, f.contents);
  const client = path.join(root, 'src/modules/pages/client');
  for (const name of fs.readdirSync(client)) replaceFile(path.join(dist, 'client', name), fs.readFileSync(path.join(client, name)));
}

/**
 * Writes `file` whole or not at all: a temporary file renamed over it. A gateway starting while another
 * `npm start` of the same checkout builds (several nodes, or tests running at once) reads either the old
 * file or the new one, never a half-written or a missing one (writing in place, or fs.cpSync's unlink
 * and copy, left such a window).
 */
function replaceFile(file, contents) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.partial`;
  fs.writeFileSync(tmp, contents);
  fs.renameSync(tmp, file);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--if-stale') || isStale()) await build();
  await buildDashboard();
}
