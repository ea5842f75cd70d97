import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Vault, VaultError } from '../../src/platform/security/vault.js';
import { Secret } from '../../src/platform/security/secret.js';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe('vault', () => {
  it('seals and opens; the sealed form does not contain the plaintext', () => {
    const v = new Vault([key('a')], randomBytes(32));
    const sealed = v.seal('4548812049400004', 'card:1');
    expect(sealed).not.toContain('4548812049400004');
    expect(sealed.startsWith('v1.a.')).toBe(true);
    expect(v.open(sealed, 'card:1').reveal()).toBe('4548812049400004');
    // a fresh data key and IV every time
    expect(v.seal('4548812049400004', 'card:1')).not.toBe(sealed);
  });

  it('binds the purpose: a sealed value moved to another record does not open', () => {
    const v = new Vault([key('a')], randomBytes(32));
    const sealed = v.seal('secret', 'card:1');
    expect(() => v.open(sealed, 'card:2')).toThrow(VaultError);
  });

  it('detects tampering', () => {
    const v = new Vault([key('a')], randomBytes(32));
    const parts = v.seal('secret', 'x').split('.');
    const data = Buffer.from(parts[5], 'base64url');
    data[0] ^= 1;
    parts[5] = data.toString('base64url');
    expect(() => v.open(parts.join('.'), 'x')).toThrow(VaultError);
  });

  it('rewraps under a new active key without changing the payload; the old key can then go', () => {
    const k1 = key('k1');
    const k2 = key('k2');
    const fp = randomBytes(32);
    const old = new Vault([k1], fp);
    const sealed = old.seal('5590337536718399', 'card:9');
    const rotated = new Vault([k2, k1], fp);
    const rewrapped = rotated.rewrap(sealed, 'card:9');
    expect(rotated.keyIdOf(rewrapped)).toBe('k2');
    expect(rewrapped.split('.').slice(4)).toEqual(sealed.split('.').slice(4));
    const onlyNew = new Vault([k2], fp);
    expect(onlyNew.open(rewrapped, 'card:9').reveal()).toBe('5590337536718399');
    expect(() => onlyNew.open(sealed, 'card:9')).toThrow(/not in the key ring/);
  });

  it('fingerprints are keyed and stable across key rotation', () => {
    const fp = randomBytes(32);
    const a = new Vault([key('a')], fp);
    const b = new Vault([key('b')], fp);
    const other = new Vault([key('a')], randomBytes(32));
    expect(a.fingerprint('pan', '4111111111111111')).toBe(b.fingerprint('pan', '4111111111111111'));
    expect(a.fingerprint('pan', '4111111111111111')).not.toBe(other.fingerprint('pan', '4111111111111111'));
    expect(a.fingerprint('pan', '4111111111111111')).not.toBe(a.fingerprint('pan', '4111111111111112'));
  });

  it('secrets cannot be logged or serialized by accident', () => {
    const s = new Secret('4548812049400004');
    expect(JSON.stringify({ s })).toBe('{"s":"[REDACTED]"}');
    expect(`${s}`).toBe('[REDACTED]');
    expect(String(s)).toBe('[REDACTED]');
    expect(inspect({ s })).not.toContain('4548');
    expect(s.reveal()).toBe('4548812049400004');
  });
});
