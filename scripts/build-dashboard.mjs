#!/usr/bin/env node
/**
 * Builds the dashboard web app (dashboard/, React + Vite) into dist/dashboard, which the gateway serves at
 * /dashboard. Skipped when nothing it is built from changed since the last build: a hash of the app's
 * sources, its configuration and the installed versions of its packages is kept beside the output.
 * `npm start` (scripts/build.mjs) and the test set-up (vitest's globalSetup) run it, so neither needs an
 * extra command.
 *
 * Every text file of the build (scripts, styles, the page) is also written compressed beside itself,
 * `name.br` (brotli, the best quality) and `name.gz` (gzip -9), once here rather than at each request:
 * the gateway sends the one the browser accepts (installDashboardApp).
 *
 *   node scripts/build-dashboard.mjs          build when stale
 *   node scripts/build-dashboard.mjs --force  build anyway
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const appDir = path.join(root, 'dashboard');
export const dashboardOut = path.join(root, 'dist', 'dashboard');
const stampFile = path.join(dashboardOut, '.source-hash');

function files(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else out.push(p);
  }
  return out;
}

/** What the build depends on: the app's files and the versions of the packages that build it. */
export function sourceHash() {
  const h = crypto.createHash('sha256');
  for (const f of files(appDir)) {
    h.update(path.relative(root, f));
    h.update('\0');
    h.update(fs.readFileSync(f));
    h.update('\0');
  }
  // this script too: how the output is made (its compressed copies) is part of it
  h.update(fs.readFileSync(fileURLToPath(import.meta.url)));
  for (const pkg of ['vite', '@vitejs/plugin-react', 'react', 'react-dom', '@tanstack/react-query', '@tanstack/react-table', '@radix-ui/react-dialog']) {
    try {
      h.update(`${pkg}@${JSON.parse(fs.readFileSync(path.join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version}\n`);
    } catch {
      h.update(`${pkg}@missing\n`);
    }
  }
  return h.digest('hex');
}

export function dashboardIsStale() {
  try {
    return fs.readFileSync(stampFile, 'utf8').trim() !== sourceHash() || !fs.existsSync(path.join(dashboardOut, 'index.html'));
  } catch {
    return true;
  }
}

const COMPRESSIBLE = /\.(js|css|html|svg|json|txt|webmanifest)$/;

/** Writes `f.br` and `f.gz` beside each text file of `dir` (of at least 1 KiB, when smaller than it). */
export function precompress(dir) {
  for (const f of files(dir)) {
    if (!COMPRESSIBLE.test(f)) continue;
    const raw = fs.readFileSync(f);
    if (raw.length < 1024) continue;
    const br = zlib.brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT } });
    const gz = zlib.gzipSync(raw, { level: 9 });
    if (br.length < raw.length) fs.writeFileSync(`${f}.br`, br);
    if (gz.length < raw.length) fs.writeFileSync(`${f}.gz`, gz);
  }
}

/**
 * Builds into a private folder, then swaps it into place, so a gateway or a test reading the output
 * never sees half a build; two builds at once each finish, the last one wins with the same content.
 */
export async function buildDashboard({ force = false, quiet = false } = {}) {
  if (!force && !dashboardIsStale()) return false;
  const hash = sourceHash();
  const { build } = await import('vite');
  const tmp = `${dashboardOut}.${process.pid}.${Date.now()}.partial`;
  const started = Date.now();
  // React's production build whatever NODE_ENV the building process has (the test runner sets `test`,
  // with which Vite would keep React's development build, 3 times the size): Vite and its React plugin
  // read NODE_ENV (the plugin compiles JSX for react/jsx-dev-runtime unless it is `production`, and the
  // production React has no jsxDEV: the page would stay blank), so it is `production` for the build only.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      root: appDir,
      configFile: path.join(appDir, 'vite.config.ts'),
      logLevel: quiet ? 'error' : 'warn',
      mode: 'production',
      build: { outDir: tmp, emptyOutDir: true },
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  precompress(tmp);
  fs.writeFileSync(path.join(tmp, '.source-hash'), `${hash}\n`);
  const old = `${dashboardOut}.${process.pid}.${Date.now()}.old`;
  if (fs.existsSync(dashboardOut)) fs.renameSync(dashboardOut, old);
  fs.renameSync(tmp, dashboardOut);
  fs.rmSync(old, { recursive: true, force: true });
  if (!quiet) process.stdout.write(`dashboard built in ${Date.now() - started} ms\n`);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildDashboard({ force: process.argv.includes('--force') });
}
