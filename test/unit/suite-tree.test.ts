/**
 * `npm test` leaves the working tree clean: the browser tests write their screenshots to a temporary
 * folder unless `npm run screenshots` asks for docs/screenshots (.ci/run also checks `git status`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { screenshotDir } from '../helpers/screenshots.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('the tests write nothing into the repository', () => {
  it('screenshots go to the temporary directory by default, to docs/screenshots only when asked', () => {
    const dir = screenshotDir({});
    expect(dir.startsWith(os.tmpdir())).toBe(true);
    expect(path.relative(root, dir).startsWith('..')).toBe(true);
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    expect(pkg.scripts.screenshots).toMatch(/^PAYGATE_SCREENSHOTS_DIR=docs\/screenshots vitest run --project pglite test\/browser\//);
  });

  it('no browser test names a folder of the repository for its screenshots', () => {
    const dir = path.join(root, 'test/browser');
    for (const f of fs.readdirSync(dir)) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      expect(text, f).not.toMatch(/path\.(resolve|join)\([^)]*['"`]docs\//);
      if (/\.screenshot\(/.test(text)) expect(text, f).toMatch(/screenshotDir\(\)|os\.tmpdir\(\)/);
    }
  });
});
