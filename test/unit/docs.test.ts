/**
 * The README and docs stand alone: every link to a file of the repository points to a file that exists
 * (and to a heading that exists, when it names one), and no text sends the reader to a document they do
 * not have.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const DOCS = ['README.md', 'clients/typescript/README.md', ...fs.readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[`*_]/g, '').replace(/[^\p{L}\p{N} -]/gu, '').replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])));
}

describe('README and docs', () => {
  it('every relative link resolves to a file, and every anchor to a heading', () => {
    const broken: string[] = [];
    let links = 0;
    for (const doc of DOCS) {
      const text = fs.readFileSync(doc, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1];
        if (/^(https?:|mailto:)/.test(target)) continue;
        links++;
        const [file, anchor] = target.split('#');
        const resolved = file === '' ? doc : path.join(path.dirname(doc), file);
        if (!fs.existsSync(resolved)) {
          broken.push(`${doc}: ${target} (no such file)`);
          continue;
        }
        if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) broken.push(`${doc}: ${target} (no such heading)`);
      }
    }
    expect(links).toBeGreaterThan(40);
    expect(broken).toEqual([]);
  });

  it('no text points at a document the reader does not have', () => {
    const found: string[] = [];
    for (const doc of DOCS) {
      const text = fs.readFileSync(doc, 'utf8');
      for (const [what, re] of [['api.md', /\bapi\.md\b/], ['a spec folder', /\bspec\//], ['a section sign', /§/], ['a machine path', /\/work\//]] as const) {
        if (re.test(text)) found.push(`${doc}: mentions ${what}`);
      }
    }
    expect(found).toEqual([]);
  });
});
