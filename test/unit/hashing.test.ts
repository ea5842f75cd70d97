import { describe, expect, it } from 'vitest';
import { SCRYPT, scryptCostFrom, hashPassword, needsRehash, verifyPassword } from '../../src/platform/security/hashing.js';

describe('password hashing', () => {
  it('uses the OWASP scrypt parameters (N=2^17, r=8, p=1) and verifies', async () => {
    expect(SCRYPT).toMatchObject({ N: 131072, r: 8, p: 1 });
    const h = await hashPassword('correct horse');
    expect(h.split('$').slice(0, 4)).toEqual(['scrypt', '131072', '8', '1']);
    expect(await verifyPassword('correct horse', h)).toBe(true);
    expect(await verifyPassword('wrong horse', h)).toBe(false);
    expect(needsRehash(h)).toBe(false);
  });

  it('hashes made with older parameters still verify and are marked for re-hashing', async () => {
    // a hash stored with the previous parameters (N=16384)
    const { scryptSync, randomBytes } = await import('node:crypto');
    const salt = randomBytes(16);
    const key = scryptSync('old password', salt, 32, { N: 16384, r: 8, p: 1 });
    const old = ['scrypt', 16384, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
    expect(await verifyPassword('old password', old)).toBe(true);
    expect(needsRehash(old)).toBe(true);
  });

  it('refuses stored parameters it never writes rather than running them', async () => {
    expect(await verifyPassword('x', 'scrypt$4294967296$8$1$AAAA$AAAA')).toBe(false);
    expect(await verifyPassword('x', 'bcrypt$whatever')).toBe(false);
  });

  it('takes a lower cost only as a power of two from 2^14, and nothing weaker', () => {
    expect(scryptCostFrom(undefined)).toBe(131072);
    expect(scryptCostFrom('')).toBe(131072);
    expect(scryptCostFrom('16384')).toBe(16384);
    expect(scryptCostFrom('1048576')).toBe(1048576);
    for (const bad of ['8192', '1024', '20000', '2097152', 'lots', '-16384', '16384.5']) expect(() => scryptCostFrom(bad), bad).toThrow(/power of two/);
  });
});
