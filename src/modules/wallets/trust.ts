/**
 * The roots wallet tokens must chain to, from configuration (read once at start; a bad value stops the
 * gateway with a clear message): Google Pay root signing keys in Google's keys.json format, Apple Pay
 * root CA certificates in PEM. A setting holds the content itself or the path of a file with it.
 */
import { createPublicKey } from 'node:crypto';
import fs from 'node:fs';
import { parseCertificate, pemCertificates } from './asn1.js';
import type { GoogleRootKey } from './googlepay.js';

export class WalletConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WalletConfigError';
  }
}

function contentOf(name: string, value: string, looksInline: (v: string) => boolean): string {
  if (looksInline(value.trim())) return value;
  try {
    return fs.readFileSync(value, 'utf8');
  } catch (err) {
    throw new WalletConfigError(`${name}: cannot read ${value} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Google's keys.json (`{"keys":[{keyValue, protocolVersion, keyExpiration}]}`): its ECv2 keys. */
export function readGoogleRootKeys(name: string, value: string | null): GoogleRootKey[] {
  if (!value) return [];
  const text = contentOf(name, value, (v) => v.startsWith('{'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WalletConfigError(`${name}: not JSON in Google's keys.json format`);
  }
  const keys = (parsed as { keys?: unknown }).keys;
  if (!Array.isArray(keys)) throw new WalletConfigError(`${name}: expected {"keys": [...]} (Google's keys.json format)`);
  const out: GoogleRootKey[] = [];
  for (const k of keys) {
    if (!k || typeof k !== 'object' || typeof (k as GoogleRootKey).keyValue !== 'string' || typeof (k as GoogleRootKey).protocolVersion !== 'string') {
      throw new WalletConfigError(`${name}: every key needs keyValue and protocolVersion`);
    }
    const key = k as GoogleRootKey;
    try {
      const pub = createPublicKey({ key: Buffer.from(key.keyValue, 'base64'), format: 'der', type: 'spki' });
      if (pub.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('curve');
    } catch {
      throw new WalletConfigError(`${name}: a keyValue is not a base64 P-256 public key (SPKI)`);
    }
    if (key.protocolVersion === 'ECv2') out.push({ keyValue: key.keyValue, protocolVersion: key.protocolVersion, keyExpiration: key.keyExpiration ?? null });
  }
  if (out.length === 0) throw new WalletConfigError(`${name}: no ECv2 root signing key`);
  return out;
}

/** PEM root certificates (DER), each checked to parse. */
export function readAppleRoots(name: string, value: string | null): Buffer[] {
  if (!value) return [];
  const text = contentOf(name, value, (v) => v.startsWith('-----BEGIN'));
  const certs = pemCertificates(text);
  if (certs.length === 0) throw new WalletConfigError(`${name}: no PEM certificate`);
  for (const c of certs) {
    try {
      parseCertificate(c);
    } catch {
      throw new WalletConfigError(`${name}: a certificate does not parse`);
    }
  }
  return certs;
}
