/**
 * `npm install` prints no "Unsupported engine" warning (EBADENGINE) on the Node versions paygate
 * supports: every package of the lockfile accepts the oldest release of each supported line, and the
 * README's Prerequisites say the same lines. (.ci/run also checks a clean `npm ci`'s output.)
 */
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));

/** The oldest release of each line we support, and the current runtime. */
const SUPPORTED = ['20.19.0', '22.13.0', '24.0.0'];

describe('Node versions', () => {
  it('package.json supports Node 20, 22 and 24 and the lockfile agrees', () => {
    expect(pkg.engines.node).toBe('^20.19.0 || ^22.13.0 || >=24');
    expect(lock.packages[''].engines.node).toBe(pkg.engines.node);
    for (const v of SUPPORTED) expect(semver.satisfies(v, pkg.engines.node), v).toBe(true);
    expect(semver.satisfies(process.versions.node, pkg.engines.node), `this Node ${process.versions.node}`).toBe(true);
  });

  it('every package of the lockfile accepts every supported Node line (no EBADENGINE)', () => {
    const refused: string[] = [];
    for (const [where, p] of Object.entries<any>(lock.packages)) {
      const range = p.engines?.node;
      if (where === '' || typeof range !== 'string') continue;
      for (const v of SUPPORTED) if (!semver.satisfies(v, range)) refused.push(`${where}@${p.version} needs node ${range} (not ${v})`);
    }
    expect(refused).toEqual([]);
  });

  it('the README says which versions in its Prerequisites', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const pre = readme.slice(readme.indexOf('## Prerequisites'), readme.indexOf('## Quick start'));
    expect(pre).toMatch(/Node\.js 20\.19 or later 20\.x, 22\.13 or later 22\.x, or 24 and later/);
    expect(pre).toMatch(/PostgreSQL is optional/);
    expect(pre).toMatch(/database\s+named `test`/);
    expect(pre).toMatch(/Chromium for Linux x64/);
  });
});
