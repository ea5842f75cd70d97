/**
 * The README's quick start, as a newcomer follows it: a copy of the repository (the files git would
 * check out) in a temporary directory, `npm start` there with no settings but a free port (the machine
 * is shared), then the README's own shell blocks, verbatim, with the exports it printed. The gateway
 * builds itself from the copy, keeps its data in `./data` of that directory, as the README says, and
 * prints the same credentials at the next start. `npm install` is not run again: the copy uses this
 * repository's node_modules. Runs on the embedded database (the quick start's), once.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, printedExports, startGateway, type Gateway, type GatewayEnv } from '../helpers/process.js';
import { testDbKind } from '../helpers/db.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const embedded = testDbKind() === 'pglite';
let dir: string;
let g: GatewayEnv;
let gw: Gateway | null = null;

/** The README's shell blocks, in order. */
function readmeShellBlocks(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

beforeAll(async () => {
  if (!embedded) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-checkout-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT }).toString().split('\0').filter(Boolean);
  for (const f of files) {
    if (!fs.existsSync(path.join(ROOT, f))) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const port = await freePort();
  // nothing but the port: no data directory, no database URL (the quick start's defaults, whatever the
  // shell running the tests has set)
  const unset = Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith('PAYGATE_') || ['DATABASE_URL', 'HOST'].includes(k)).map((k) => [k, '']));
  g = { env: { ...unset, PORT: String(port) }, dataDir: path.join(dir, 'data'), port, url: `http://127.0.0.1:${port}`, db: null, cleanup: async () => {} };
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!embedded)('the README quick start in a fresh directory', () => {
  it('its first block is what a newcomer runs: npm install, npm start', () => {
    expect(readmeShellBlocks()[0].trim().split('\n')).toEqual(['npm install', 'npm start']);
  });

  it('npm start builds, keeps its data in ./data, prints the exports, and the README curl works verbatim with them', async () => {
    expect(fs.existsSync(path.join(dir, 'dist'))).toBe(false);
    gw = await startGateway(g, ['npm', 'start'], 120_000, dir);
    const vars = printedExports(gw.stdout());
    expect(vars.PAYGATE_URL).toBe(g.url);
    expect(fs.existsSync(path.join(dir, 'dist', 'server.js'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'data', 'sandbox-credentials.json'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'data', 'paygate.lock'))).toBe(true);
    const curl = readmeShellBlocks().find((b) => b.includes('curl') && b.includes('$PAYGATE_API_KEY'))!;
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', curl], { cwd: dir, env: { ...process.env, ...vars } });
    expect(JSON.parse(stdout)).toMatchObject({ message: 'OK', code: 200 });
    // the page the README points at
    const docs = await fetch(`${g.url}/docs/`);
    expect(docs.status).toBe(200);
    // and the merchant dashboard, built by the same npm start
    expect(fs.existsSync(path.join(dir, 'dist', 'dashboard', 'index.html'))).toBe(true);
    const dashboard = await fetch(`${g.url}/dashboard`);
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain('<div id="root">');

    // the next start prints the same credentials (kept in ./data)
    await gw.stop();
    gw = await startGateway(g, ['npm', 'start'], 120_000, dir);
    expect(printedExports(gw.stdout())).toEqual(vars);
  }, 300_000);
});
