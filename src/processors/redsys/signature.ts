/**
 * Redsys message signatures, both versions (pure: no IO).
 *
 * A Redsys message is three fields: `Ds_SignatureVersion`, `Ds_MerchantParameters` (base64 of a JSON
 * object) and `Ds_Signature`. The signature is an HMAC of the exact base64 text of the parameters, keyed
 * with a key diversified per order number:
 *
 * - HMAC_SHA256_V1: the terminal's key (base64, 24 bytes) 3DES-EDE-CBC-encrypts the order number (zero
 *   IV, the order zero-padded to a multiple of 8 bytes); HMAC-SHA256 with those bytes; base64.
 * - HMAC_SHA512_V2: the first 16 characters of the key string are an AES-128-CBC key (zero IV, PKCS#7)
 *   that encrypts the order number; the base64 text of that ciphertext keys an HMAC-SHA512; base64url
 *   without padding.
 *
 * Answers and notifications may come in standard or URL-safe base64, padded or not: signatures are
 * compared as decoded bytes, in constant time.
 */
import { createCipheriv, createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_VERSIONS = ['HMAC_SHA256_V1', 'HMAC_SHA512_V2'] as const;
export type SignatureVersion = (typeof SIGNATURE_VERSIONS)[number];

export interface SignedMessage {
  Ds_SignatureVersion: string;
  Ds_MerchantParameters: string;
  Ds_Signature: string;
}

/** The terminal key of V1 as bytes: base64 of exactly 24 bytes (3DES-EDE). */
export function v1KeyBytes(key: string): Buffer {
  const bytes = Buffer.from(key, 'base64');
  if (bytes.length !== 24 || !/^[A-Za-z0-9+/]+={0,2}$/.test(key)) throw new Error('a HMAC_SHA256_V1 key is the base64 text of 24 bytes');
  return bytes;
}

/** V1 diversified key: 3DES-EDE-CBC of the order number, zero IV, zero padding. */
export function diversifyV1(key: string, order: string): Buffer {
  const message = Buffer.from(order, 'utf8');
  const padded = Buffer.concat([message, Buffer.alloc((8 - (message.length % 8)) % 8)]);
  const cipher = createCipheriv('des-ede3-cbc', v1KeyBytes(key), Buffer.alloc(8));
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(padded), cipher.final()]);
}

/** V2 diversified key: base64 of AES-128-CBC (the key's first 16 characters, zero IV, PKCS#7) of the order number. */
export function diversifyV2(key: string, order: string): string {
  if (key.length < 16) throw new Error('a HMAC_SHA512_V2 key has at least 16 characters');
  const cipher = createCipheriv('aes-128-cbc', Buffer.from(key.slice(0, 16), 'utf8'), Buffer.alloc(16));
  return Buffer.concat([cipher.update(order, 'utf8'), cipher.final()]).toString('base64');
}

/** The signature of the parameters' base64 text for an order number. */
export function sign(version: SignatureVersion, key: string, order: string, merchantParameters: string): string {
  if (version === 'HMAC_SHA256_V1') return createHmac('sha256', diversifyV1(key, order)).update(merchantParameters, 'utf8').digest('base64');
  return createHmac('sha512', diversifyV2(key, order)).update(merchantParameters, 'utf8').digest('base64url');
}

/** Decodes standard or URL-safe base64, padded or not. */
export function decodeBase64Any(text: string): Buffer {
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

/** Whether `signature` (either base64 alphabet) is the signature of the parameters for the order. */
export function verify(version: SignatureVersion, key: string, order: string, merchantParameters: string, signature: string): boolean {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(signature)) return false;
  const expected = decodeBase64Any(sign(version, key, order, merchantParameters));
  const given = decodeBase64Any(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function isSignatureVersion(v: unknown): v is SignatureVersion {
  return typeof v === 'string' && (SIGNATURE_VERSIONS as readonly string[]).includes(v);
}

/**
 * The JSON text of request parameters. V1 sends standard base64 of the JSON as JavaScript writes it;
 * V2 base64url without padding. (Redsys signs the base64 text as sent, so either form verifies.)
 */
export function encodeParameters(version: SignatureVersion, params: Record<string, unknown>): string {
  const json = Buffer.from(JSON.stringify(params), 'utf8');
  return version === 'HMAC_SHA256_V1' ? json.toString('base64') : json.toString('base64url');
}

/** The parameters object of a message; throws when it is not base64 of a JSON object. */
export function decodeParameters(merchantParameters: string): Record<string, unknown> {
  if (typeof merchantParameters !== 'string' || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(merchantParameters)) throw new Error('Ds_MerchantParameters is not base64');
  const parsed: unknown = JSON.parse(decodeBase64Any(merchantParameters).toString('utf8'));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('Ds_MerchantParameters is not a JSON object');
  return parsed as Record<string, unknown>;
}

/** Builds a signed message (requests; the simulator's answers). `orderField` names the order number. */
export function signMessage(version: SignatureVersion, key: string, params: Record<string, unknown>, order: string): SignedMessage {
  const merchantParameters = encodeParameters(version, params);
  return { Ds_SignatureVersion: version, Ds_MerchantParameters: merchantParameters, Ds_Signature: sign(version, key, order, merchantParameters) };
}

/**
 * Decodes a signed message and verifies its signature with the order number it carries (`Ds_Order`
 * in answers and notifications, `DS_MERCHANT_ORDER` in requests). Nothing of the parameters may be
 * trusted unless this returns `ok`.
 */
export function openMessage(
  key: string,
  message: { Ds_SignatureVersion?: unknown; Ds_MerchantParameters?: unknown; Ds_Signature?: unknown },
  expectVersion?: SignatureVersion,
): { ok: true; params: Record<string, unknown>; version: SignatureVersion; order: string } | { ok: false; reason: string } {
  const version = message.Ds_SignatureVersion;
  if (!isSignatureVersion(version)) return { ok: false, reason: 'unknown Ds_SignatureVersion' };
  if (expectVersion && version !== expectVersion) return { ok: false, reason: `signed with ${version}, the terminal uses ${expectVersion}` };
  if (typeof message.Ds_MerchantParameters !== 'string' || typeof message.Ds_Signature !== 'string') return { ok: false, reason: 'missing Ds_MerchantParameters or Ds_Signature' };
  let params: Record<string, unknown>;
  try {
    params = decodeParameters(message.Ds_MerchantParameters);
  } catch {
    return { ok: false, reason: 'Ds_MerchantParameters is not base64 of a JSON object' };
  }
  const orderRaw = params.Ds_Order ?? params.DS_ORDER ?? params.DS_MERCHANT_ORDER ?? params.Ds_Merchant_Order;
  if (typeof orderRaw !== 'string' || orderRaw === '') return { ok: false, reason: 'no order number in the parameters' };
  // notifications carry URL-encoded values
  const order = safeDecodeURIComponent(orderRaw);
  let good: boolean;
  try {
    good = verify(version, key, order, message.Ds_MerchantParameters, message.Ds_Signature);
  } catch {
    return { ok: false, reason: 'the key cannot verify this signature version' };
  }
  if (!good) return { ok: false, reason: 'signature mismatch' };
  return { ok: true, params, version, order };
}

export function safeDecodeURIComponent(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
