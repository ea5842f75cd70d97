/**
 * `paygate vault ...` as an operator runs it: status, rotate, retire, with the key file in the data
 * directory and with PAYGATE_VAULT_KEYS. Runs the CLI in-process on an embedded database of its own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { testDbKind } from '../helpers/db.js';

const saved = { ...process.env };

async function cli(...args: string[]): Promise<{ code: number; out: any; err: string }> {
  let stdout = '';
  let stderr = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any) => ((stdout += String(chunk)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: any) => ((stderr += String(chunk)), true));
  try {
    const code = await runCli(args);
    let out: any = stdout;
    try {
      out = JSON.parse(stdout);
    } catch {
      // human output
    }
    return { code, out, err: stderr };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

beforeEach(() => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paygate-cli-'));
  for (const k of Object.keys(process.env)) if (k.startsWith('PAYGATE_') && k !== 'PAYGATE_CAPTURE_DIR') delete process.env[k];
  delete process.env.DATABASE_URL;
  process.env.PAYGATE_DATA_DIR = dir;
  process.env.PAYGATE_LOG_LEVEL = 'error';
});
afterEach(() => {
  process.env = { ...saved };
});

describe.skipIf(testDbKind() === 'postgres')('paygate vault (embedded database)', () => {
  it('key file: status, rotate re-wraps everything, the old key retires only when unused', async () => {
    expect((await cli('merchant', 'create', '--json')).code).toBe(0);
    const s1 = await cli('vault', 'status', '--json');
    expect(s1.out.source).toBe('file');
    const old = s1.out.active_key;
    expect(s1.out.keys).toEqual([{ id: old, active: true, values: 2 }]);
    const rot = await cli('vault', 'rotate', '--json');
    expect(rot.code).toBe(0);
    expect(rot.out).toMatchObject({ rewrapped: 2, values_under_other_keys: 0 });
    const fresh = rot.out.new_key;
    expect(fresh).not.toBe(old);
    const s2 = await cli('vault', 'status', '--json');
    expect(s2.out.keys).toEqual([{ id: fresh, active: true, values: 2 }, { id: old, active: false, values: 0 }]);
    expect((await cli('vault', 'retire', fresh)).code).toBe(1);
    const ret = await cli('vault', 'retire', old, '--json');
    expect(ret.code).toBe(0);
    const ring = JSON.parse(fs.readFileSync(path.join(process.env.PAYGATE_DATA_DIR!, 'vault-keys.json'), 'utf8'));
    expect(ring.keys.map((k: any) => k.id)).toEqual([fresh]);
    const s3 = await cli('vault', 'status', '--json');
    expect(s3.out.usage.map((u: any) => u.keyId)).toEqual([fresh, fresh, fresh]);
    const unknown = await cli('vault', 'retire', 'k-nope');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('not a vault key');
    // --key-only only adds the key (a running gateway re-wraps in the background)
    const keyOnly = await cli('vault', 'rotate', '--key-only', '--json');
    expect(keyOnly.out.rewrapped).toBe(0);
    const s4 = await cli('vault', 'status', '--json');
    expect(s4.out.active_key).toBe(keyOnly.out.new_key);
    expect(s4.out.keys.find((k: any) => k.id === fresh).values).toBe(2);
    // a dozen CLI processes, each starting the gateway's code: more time than the suite's default
  }, 180_000);

  it('PAYGATE_VAULT_KEYS: new-key, put it first, rotate, then retire the old key', async () => {
    process.env.PAYGATE_VAULT_KEYS = `old1:${randomBytes(32).toString('base64')}`;
    process.env.PAYGATE_VAULT_FINGERPRINT_KEY = randomBytes(32).toString('base64');
    expect((await cli('merchant', 'create', '--json')).code).toBe(0);
    const nk = await cli('vault', 'new-key', '--json');
    expect(nk.out.entry).toMatch(/^k\w+:[A-Za-z0-9+/=]{44}$/);
    process.env.PAYGATE_VAULT_KEYS = `${nk.out.entry},${process.env.PAYGATE_VAULT_KEYS}`;
    const busy = await cli('vault', 'retire', 'old1');
    expect(busy.code).toBe(1);
    expect(busy.err).toContain('still wrapped under old1');
    const rot = await cli('vault', 'rotate', '--json');
    expect(rot.out).toMatchObject({ source: 'env', new_key: null, active_key: nk.out.id, rewrapped: 2 });
    const ret = await cli('vault', 'retire', 'old1', '--json');
    expect(ret.code).toBe(0);
    expect(ret.out.next_step).toContain('PAYGATE_VAULT_KEYS');
    // the operator removes it; the gateway's data opens with the new key alone
    process.env.PAYGATE_VAULT_KEYS = nk.out.entry;
    const s = await cli('vault', 'status', '--json');
    expect(s.code).toBe(0);
    expect(s.out.keys).toEqual([{ id: nk.out.id, active: true, values: 2 }]);
    expect((await cli('vault', 'rotate', '--key-only')).code).toBe(1);
  });
});
