/**
 * Finds a Chromium for the browser tests (test/browser), in this order:
 *  1. PAYGATE_CHROMIUM_PATH (an explicit path: it must exist);
 *  2. the system's /usr/bin/chromium, unless PAYGATE_CHROMIUM_SYSTEM=false;
 *  3. the headless Chromium that `npm install` brings (the devDependency @sparticuz/chromium, Linux x64),
 *     unpacked once into the temporary directory.
 * When none can be had, the browser tests are skipped with a visible message, except in CI (CI=true)
 * where that is an error.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { createRequire } from 'node:module';

export interface FoundChromium {
  executablePath: string;
  source: 'PAYGATE_CHROMIUM_PATH' | 'system' | 'npm';
  /** extra command-line switches this build needs */
  args: string[];
}

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** Common switches for a headless run in a container (as root, no GPU, no network beyond the tests'). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The npm package's directory, or null when it is not installed. */
function npmPackageDir(): string | null {
  try {
    // the entry point's folder differs between releases (build/, build/cjs/): up to the package's root
    let dir = path.dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium'));
    while (!fs.existsSync(path.join(dir, 'bin', 'chromium.br')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
    return dir;
  } catch {
    return null;
  }
}

/** Unpacks the package's brotli-compressed binary once (a private file renamed into place, so parallel test files never see half a binary). */
async function npmChromium(): Promise<string | null> {
  if (process.platform !== 'linux' || process.arch !== 'x64') return null;
  const dir = npmPackageDir();
  if (!dir) return null;
  const packed = path.join(dir, 'bin', 'chromium.br');
  if (!fs.existsSync(packed)) return null;
  const version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version as string;
  const target = path.join(os.tmpdir(), `paygate-chromium-${version}`, 'chromium');
  if (fs.existsSync(target)) return target;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.${process.pid}.${Date.now()}.partial`;
  try {
    await pipeline(fs.createReadStream(packed), createBrotliDecompress(), fs.createWriteStream(partial, { mode: 0o755 }));
    fs.renameSync(partial, target);
  } finally {
    fs.rmSync(partial, { force: true });
  }
  return target;
}

/** Finds Chromium, or null (after printing why) when none can be had. */
export async function findChromium(): Promise<FoundChromium | null> {
  const explicit = process.env.PAYGATE_CHROMIUM_PATH;
  if (explicit) {
    if (!fs.existsSync(explicit)) throw new Error(`PAYGATE_CHROMIUM_PATH=${explicit}: no such file`);
    return { executablePath: explicit, source: 'PAYGATE_CHROMIUM_PATH', args: CHROMIUM_ARGS };
  }
  if (process.env.PAYGATE_CHROMIUM_SYSTEM !== 'false' && fs.existsSync(SYSTEM_CHROMIUM)) {
    return { executablePath: SYSTEM_CHROMIUM, source: 'system', args: CHROMIUM_ARGS };
  }
  const fromNpm = await npmChromium();
  if (fromNpm) return { executablePath: fromNpm, source: 'npm', args: [...CHROMIUM_ARGS, '--no-zygote'] };
  return null;
}

let found: Promise<FoundChromium | null> | undefined;

/**
 * What a browser test file does with what was found: use it; without one, skip its tests with a visible
 * message, or, in CI (CI=true), fail.
 */
export function chromiumOrSkip(
  c: FoundChromium | null,
  file: string,
  env: Record<string, string | undefined> = process.env,
  write: (text: string) => void = (text) => void process.stderr.write(text),
): FoundChromium | null {
  if (c) return c;
  const why =
    'no Chromium found (set PAYGATE_CHROMIUM_PATH, install Chromium at /usr/bin/chromium, or run `npm install` on Linux x64 for the bundled one)';
  if (env.CI === 'true' || env.CI === '1') throw new Error(`Browser tests need Chromium in CI: ${why}`);
  write(`\n  !! SKIPPING the browser tests of ${path.basename(file)}: ${why}.\n\n`);
  return null;
}

/**
 * For a browser test file: the Chromium to launch, or null when the file's tests are to be skipped
 * (a message says so). In CI a missing Chromium is an error.
 */
export function chromiumForTests(file: string): Promise<FoundChromium | null> {
  found ??= findChromium();
  return found.then((c) => chromiumOrSkip(c, file));
}
