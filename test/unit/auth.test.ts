import { describe, expect, it } from 'vitest';
import { checkSignature, hasProfile, parseAuthorization } from '../../src/platform/http/auth.js';
import { sha256Hex } from '../../src/platform/security/hashing.js';
import { ApiError } from '../../src/platform/errors/errors.js';

const KEY = '7b06265e6e0ec1c0297ca2a5c52880cc';
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('Authorization header (decisions §2)', () => {
  it.each([
    ['Basic base64(KEY)', `Basic ${b64(KEY)}`],
    ['Basic base64(KEY:)', `Basic ${b64(`${KEY}:`)}`],
    ['Basic base64(KEY: )', `Basic ${b64(`${KEY}: `)}`],
    ['Bearer KEY', `Bearer ${KEY}`],
    ['lower-case scheme', `basic ${b64(`${KEY}:`)}`],
    ['upper-case scheme', `BEARER ${KEY}`],
  ])('accepts %s', (_label, header) => {
    expect(parseAuthorization(header)).toBe(KEY);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['unknown scheme', `Digest ${KEY}`],
    ['no credentials', 'Basic '],
    ['not base64', 'Basic ***'],
    ['empty user', `Basic ${b64(':')}`],
    ['password given', `Basic ${b64(`${KEY}:secret`)}`],
  ])('rejects %s', (_label, header) => {
    expect(parseAuthorization(header)).toBeNull();
  });
});

describe('profiles and signature', () => {
  it('all passes everything; otherwise one of the allowed profiles is needed', () => {
    expect(hasProfile(['all'], ['refund'])).toBe(true);
    expect(hasProfile(['payment'], ['payment'])).toBe(true);
    expect(hasProfile(['payment'], ['refund'])).toBe(false);
    expect(hasProfile(['readonly', 'card'], ['card'])).toBe(true);
  });

  it('checks the signature against its hash and refuses anything else with 403', () => {
    const sig = 'a284b2cfe5cd3d0dd7181ff80e3a01bc';
    expect(() => checkSignature(sig, sha256Hex(sig))).not.toThrow();
    for (const bad of [undefined, '', 'x', sig.toUpperCase(), `${sig} `, 42]) {
      try {
        checkSignature(bad, sha256Hex(sig));
        throw new Error('accepted');
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        expect((err as ApiError).status).toBe(403);
      }
    }
  });
});
