/**
 * Authentication (decisions §2): the API key from the Authorization header, the key's environment and
 * profiles, and the body `signature` of every write.
 */
import { timingSafeEqual } from 'node:crypto';
import { forbidden, unauthorized } from '../errors/errors.js';
import { sha256 } from '../security/hashing.js';
import type { AuthKey, Profile } from './types.js';

/**
 * Extracts the API key from an Authorization header. Accepted: `Basic base64(KEY)`,
 * `Basic base64(KEY:)`, `Basic base64(KEY: )` and `Bearer KEY`, the scheme word in any case.
 * Returns null when the header is missing or malformed.
 */
export function parseAuthorization(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^\s*(basic|bearer)\s+(\S+)\s*$/i.exec(header);
  if (!m) return null;
  const scheme = m[1].toLowerCase();
  const value = m[2];
  if (scheme === 'bearer') return value;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return null;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  // KEY, KEY: or KEY: (an empty or blank password)
  const key = decoded.replace(/:\s?$/, '');
  if (key.length === 0 || /[\s:\u0000-\u001f]/.test(key)) return null;
  return key;
}

/** Looks a key up by the SHA-256 hex of its value; null when unknown or revoked. */
export type KeyResolver = (keyHashHex: string) => Promise<AuthKey | null>;

export function hashKey(key: string): string {
  return sha256(key).toString('hex');
}

/** True when the key may use a route open to `allowed` profiles. */
export function hasProfile(keyProfiles: readonly Profile[], allowed: readonly Profile[]): boolean {
  if (keyProfiles.includes('all')) return true;
  return allowed.some((p) => keyProfiles.includes(p));
}

export function requireProfile(keyProfiles: readonly Profile[], allowed: readonly Profile[]): void {
  if (!hasProfile(keyProfiles, allowed)) {
    const needed = allowed.length > 0 ? allowed.join(' or ') : 'all';
    throw forbidden(`This API key lacks the profile needed for this operation: ${needed}`);
  }
}

/** Checks the body signature against the key's stored hash, in constant time. */
export function checkSignature(provided: unknown, signatureHashHex: string): void {
  if (typeof provided !== 'string' || provided.length === 0) {
    throw forbidden('The request body must carry the signature of the API key');
  }
  const expected = Buffer.from(signatureHashHex, 'hex');
  if (expected.length !== 32 || !timingSafeEqual(sha256(provided), expected)) {
    throw forbidden('The signature does not match the API key');
  }
}

export function assertKeyEnv(key: AuthKey | null, env: AuthKey['env']): AuthKey {
  // A key of the other environment is treated as unknown: sandbox keys see nothing of production.
  if (!key || key.env !== env) throw unauthorized();
  return key;
}
