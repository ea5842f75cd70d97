/**
 * The rules that keep `npm install && npm test` honest on a fresh machine:
 * - browser tests find a Chromium that `npm install` brought (Linux x64), and without any Chromium they
 *   are skipped with a visible message, except in CI where that fails;
 * - every test file that draws random input seeds it with the run's seed (and so prints it).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { chromiumOrSkip, findChromium } from '../helpers/chromium.js';

const run = promisify(execFile);

describe('Chromium for the browser tests', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of ['PAYGATE_CHROMIUM_PATH', 'PAYGATE_CHROMIUM_SYSTEM']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  it('none found: skipped with a visible message outside CI, an error in CI', () => {
    const written: string[] = [];
    expect(chromiumOrSkip(null, '/x/pages.browser.test.ts', {}, (s) => written.push(s))).toBeNull();
    expect(written.join('')).toMatch(/!! SKIPPING the browser tests of pages\.browser\.test\.ts: no Chromium found \(set PAYGATE_CHROMIUM_PATH/);
    for (const CI of ['true', '1']) {
      expect(() => chromiumOrSkip(null, 'a.test.ts', { CI }, () => undefined)).toThrow(/Browser tests need Chromium in CI/);
    }
    const found = { executablePath: '/bin/true', source: 'system' as const, args: [] };
    expect(chromiumOrSkip(found, 'a.test.ts', { CI: 'true' })).toBe(found);
  });

  it('an explicit PAYGATE_CHROMIUM_PATH must exist', async () => {
    process.env.PAYGATE_CHROMIUM_PATH = '/nonexistent/chromium';
    await expect(findChromium()).rejects.toThrow(/PAYGATE_CHROMIUM_PATH=\/nonexistent\/chromium: no such file/);
  });

  it.skipIf(process.platform !== 'linux' || process.arch !== 'x64')('without a system Chromium, the one npm install brought is used, and it runs', async () => {
    delete process.env.PAYGATE_CHROMIUM_PATH;
    process.env.PAYGATE_CHROMIUM_SYSTEM = 'false';
    const c = await findChromium();
    expect(c?.source).toBe('npm');
    const { stdout } = await run(c!.executablePath, ['--version'], { timeout: 30_000 });
    expect(stdout).toMatch(/Chromium \d+/);
  }, 120_000);
});

describe('random input is seeded by the run', () => {
  it('every test file that uses fast-check calls useTestSeed(import.meta.url)', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('.test.ts')) files.push(p);
      }
    };
    walk('test');
    const random = files.filter((f) => /from 'fast-check'/.test(fs.readFileSync(f, 'utf8')));
    expect(random.length).toBeGreaterThan(5);
    const unseeded = random.filter((f) => !/useTestSeed\(import\.meta\.url\)/.test(fs.readFileSync(f, 'utf8')));
    expect(unseeded).toEqual([]);
  });
});
