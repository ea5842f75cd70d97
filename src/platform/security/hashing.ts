/** Hashes and random tokens: API keys, signatures, passwords. */
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** 128 random bits as 32 lowercase hex characters: the format of API keys and signatures. */
export function randomToken(bytes = 16): string {
  return randomBytes(bytes).toString('hex');
}

/** Keys and signatures carry 128 random bits, so a fast hash is enough to store them. */
export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export function sha256Hex(value: string | Buffer): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time comparison of two strings (by their SHA-256, so lengths may differ). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

/**
 * scrypt's cost N: 2^17 (OWASP) unless `PAYGATE_PASSWORD_SCRYPT_N` names another power of two from 2^14
 * to 2^20 (test suites lower it: every staff sign-in of a test hashes several times). Anything else is
 * refused at start rather than silently weakening the hash.
 */
export function scryptCostFrom(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 131072;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 2 ** 14 || n > 2 ** 20 || (n & (n - 1)) !== 0) {
    throw new Error(`PAYGATE_PASSWORD_SCRYPT_N must be a power of two from 16384 to 1048576 (the default, 131072, is OWASP's), not ${value}`);
  }
  return n;
}

/** Password storage parameters for scrypt: N=2^17, r=8, p=1 (128 MiB of memory per hash). */
export const SCRYPT = { N: scryptCostFrom(process.env.PAYGATE_PASSWORD_SCRYPT_N), r: 8, p: 1, keylen: 32 };
/** Memory scrypt may use: 128 * N * r bytes plus headroom (Node's default cap is 32 MiB). */
const maxmemFor = (n: number, r: number) => 128 * n * r * 2;

/** Password hash: `scrypt$N$r$p$salt$hash` (base64). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: maxmemFor(SCRYPT.N, SCRYPT.r) });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt') return false;
  const N = Number(n);
  const R = Number(r);
  // parameters outside what we ever wrote are refused rather than run (a stored value is data)
  if (!Number.isInteger(N) || N < 2 || N > 2 ** 20 || !Number.isInteger(R) || R < 1 || R > 32 || !Number.isInteger(Number(p)) || Number(p) < 1 || Number(p) > 16) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N, r: R, p: Number(p), maxmem: maxmemFor(N, R) });
  return timingSafeEqual(key, expected);
}

/** True when a stored hash was made with weaker parameters than today's (re-hash at the next login). */
export function needsRehash(stored: string): boolean {
  const [alg, n, r, p] = stored.split('$');
  return alg !== 'scrypt' || Number(n) < SCRYPT.N || Number(r) < SCRYPT.r || Number(p) < SCRYPT.p;
}

/** A readable random password for dashboard users (no ambiguous characters). */
export function randomPassword(length = 16): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    // rejection sampling keeps the distribution uniform
    if (bytes[i] < 256 - (256 % alphabet.length)) out += alphabet[bytes[i] % alphabet.length];
  }
  return out.length === length ? out : randomPassword(length);
}
