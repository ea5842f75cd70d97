/**
 * Google Pay payment tokens, protocol ECv2: verification and decryption, as Google specifies it
 * ("Payment data cryptography"), with node:crypto for every primitive. Pure: no IO, no clock (the
 * caller gives `now`, the merchant's time).
 *
 *   token = { protocolVersion: "ECv2", signature, intermediateSigningKey: { signedKey, signatures[] }, signedMessage }
 *
 *  1. the intermediate signing key: one of `signatures` verifies (ECDSA P-256, SHA-256) with one of the
 *     trusted root signing keys (ECv2, not expired) over
 *       len("Google") || "Google" || len("ECv2") || "ECv2" || len(signedKey) || signedKey
 *     (lengths: 4 bytes little-endian); its `keyExpiration` (ms) is in the future;
 *  2. the message: `signature` verifies with the intermediate key over
 *       len("Google") || "Google" || len(recipientId) || recipientId || len("ECv2") || "ECv2" || len(signedMessage) || signedMessage;
 *  3. decryption (ECIES-KEM, HKDF, AES-256-CTR + HMAC-SHA256): shared = ECDH(merchant key, ephemeralPublicKey);
 *     64 bytes = HKDF-SHA256(ikm = ephemeralPublicKey || shared, salt = 32 zero bytes, info = "Google");
 *     encryption key = the first 32, MAC key = the last 32; `tag` = HMAC-SHA256(MAC key, encryptedMessage)
 *     is checked in constant time before AES-256-CTR (zero IV) decrypts;
 *  4. the plaintext's `messageExpiration` (ms) is in the future.
 *
 * Every failure is a WalletTokenError with a reason the merchant can act on; none carries token data.
 */
import { createDecipheriv, createHmac, createPublicKey, diffieHellman, hkdfSync, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { p256PublicKeyFromPoint } from './asn1.js';
import { WalletTokenError } from './wallets.domain.js';

/** A root signing key as Google publishes them (keys.json): base64 SPKI, protocol, expiry in ms. */
export interface GoogleRootKey {
  keyValue: string;
  protocolVersion: string;
  keyExpiration?: string | number | null;
}

export interface GooglePayDecrypted {
  messageId: string;
  messageExpiration: Date;
  paymentMethod: 'CARD';
  authMethod: 'PAN_ONLY' | 'CRYPTOGRAM_3DS';
  pan: string;
  expirationMonth: number;
  expirationYear: number;
  cryptogram: string | null;
  eciIndicator: string | null;
  /** Present in tokens for a gateway integration: the merchant the token was made for. */
  gatewayMerchantId: string | null;
}

export interface GooglePayOptions {
  rootKeys: readonly GoogleRootKey[];
  /** `merchant:<id>` or `gateway:<id>`; several when the merchant has keys under several. */
  recipientIds: readonly string[];
  /** The merchant's ECv2 private keys (P-256), newest first: each is tried. */
  privateKeys: readonly KeyObject[];
  now: Date;
}

const PROTOCOL = 'ECv2';
const SENDER = 'Google';

/** length-prefixed concatenation (4-byte little-endian lengths) of the signed strings. */
export function signedBytes(...parts: string[]): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const b = Buffer.from(p, 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32LE(b.length);
    chunks.push(len, b);
  }
  return Buffer.concat(chunks);
}

function fail(reason: string): never {
  throw new WalletTokenError(reason);
}

function str(v: unknown, what: string, max = 100_000): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > max) fail(`${what} is missing or not a string`);
  return v;
}

function b64(v: string, what: string): Buffer {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(v)) fail(`${what} is not base64`);
  return Buffer.from(v, 'base64');
}

function parseJson(v: string, what: string): Record<string, unknown> {
  let out: unknown;
  try {
    out = JSON.parse(v);
  } catch {
    fail(`${what} is not JSON`);
  }
  if (!out || typeof out !== 'object' || Array.isArray(out)) fail(`${what} is not a JSON object`);
  return out as Record<string, unknown>;
}

function millis(v: unknown, what: string): Date {
  const s = typeof v === 'number' ? String(v) : v;
  if (typeof s !== 'string' || !/^[0-9]{1,16}$/.test(s)) fail(`${what} is not a time in milliseconds`);
  // 16 digits reach past the last instant a Date holds (8.64e15 ms): an invalid Date compares as neither
  // past nor future, so it would pass for a time not yet reached
  const d = new Date(Number(s));
  if (Number.isNaN(d.getTime())) fail(`${what} is out of range`);
  return d;
}

function ecdsaVerify(data: Buffer, signatureB64: string, key: KeyObject): boolean {
  try {
    return verify('sha256', data, key, b64(signatureB64, 'a signature'));
  } catch {
    return false;
  }
}

function spkiKey(b64Spki: string, what: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: b64(b64Spki, what), format: 'der', type: 'spki' });
  } catch {
    fail(`${what} is not a public key`);
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') fail(`${what} is not a P-256 key`);
  return key;
}

/** Verifies, decrypts and checks a Google Pay ECv2 token (the parsed JSON the wallet returned). */
export function openGooglePayToken(token: unknown, opts: GooglePayOptions): GooglePayDecrypted {
  if (!token || typeof token !== 'object' || Array.isArray(token)) fail('the Google Pay token is not a JSON object');
  const t = token as Record<string, unknown>;
  if (t.protocolVersion !== PROTOCOL) fail(`protocolVersion ${typeof t.protocolVersion === 'string' ? t.protocolVersion.slice(0, 20) : ''} is not supported (ECv2 only)`);
  const signature = str(t.signature, 'signature', 200);
  const signedMessage = str(t.signedMessage, 'signedMessage');
  const isk = t.intermediateSigningKey;
  if (!isk || typeof isk !== 'object' || Array.isArray(isk)) fail('intermediateSigningKey is missing');
  const signedKey = str((isk as Record<string, unknown>).signedKey, 'intermediateSigningKey.signedKey', 2000);
  const signatures = (isk as Record<string, unknown>).signatures;
  if (!Array.isArray(signatures) || signatures.length === 0 || signatures.length > 10 || !signatures.every((s) => typeof s === 'string' && s.length <= 200)) {
    fail('intermediateSigningKey.signatures must be a list of signatures');
  }

  // 1. the intermediate signing key, signed by a root
  const roots = opts.rootKeys.filter((k) => k.protocolVersion === PROTOCOL && (k.keyExpiration == null || Number(k.keyExpiration) > opts.now.getTime()));
  if (roots.length === 0) fail('no Google Pay root signing key is trusted for ECv2');
  const keyBytes = signedBytes(SENDER, PROTOCOL, signedKey);
  const trusted = roots.some((r) => {
    const rootKey = spkiKey(r.keyValue, 'a root signing key');
    return (signatures as string[]).some((s) => ecdsaVerify(keyBytes, s, rootKey));
  });
  if (!trusted) fail('the intermediate signing key is not signed by a trusted Google root key');
  const sk = parseJson(signedKey, 'intermediateSigningKey.signedKey');
  const keyExpiration = millis(sk.keyExpiration, 'keyExpiration');
  if (keyExpiration.getTime() <= opts.now.getTime()) fail('the intermediate signing key has expired');
  const intermediate = spkiKey(str(sk.keyValue, 'keyValue', 500), 'the intermediate signing key');

  // 2. the message, signed by the intermediate key for this recipient
  const recipientId = opts.recipientIds.find((r) => ecdsaVerify(signedBytes(SENDER, r, PROTOCOL, signedMessage), signature, intermediate));
  if (!recipientId) fail('the signature of the message does not verify (tampered, or made for another recipient)');

  // 3. decryption
  const m = parseJson(signedMessage, 'signedMessage');
  const ephemeral = b64(str(m.ephemeralPublicKey, 'ephemeralPublicKey', 200), 'ephemeralPublicKey');
  const encrypted = b64(str(m.encryptedMessage, 'encryptedMessage'), 'encryptedMessage');
  const tag = b64(str(m.tag, 'tag', 100), 'tag');
  let ephemeralKey: KeyObject;
  try {
    ephemeralKey = p256PublicKeyFromPoint(ephemeral);
  } catch {
    fail('ephemeralPublicKey is not a P-256 point');
  }
  let plaintext: Buffer | null = null;
  for (const privateKey of opts.privateKeys) {
    const shared = diffieHellman({ privateKey, publicKey: ephemeralKey });
    const keys = Buffer.from(hkdfSync('sha256', Buffer.concat([ephemeral, shared]), Buffer.alloc(32), Buffer.from(SENDER, 'utf8'), 64));
    const mac = createHmac('sha256', keys.subarray(32)).update(encrypted).digest();
    if (tag.length !== mac.length || !timingSafeEqual(tag, mac)) continue;
    const d = createDecipheriv('aes-256-ctr', keys.subarray(0, 32), Buffer.alloc(16));
    plaintext = Buffer.concat([d.update(encrypted), d.final()]);
    keys.fill(0);
    break;
  }
  if (!plaintext) fail("the message does not decrypt with the merchant's Google Pay keys (wrong key, or tampered)");

  // 4. the payment data
  const data = parseJson(plaintext.toString('utf8'), 'the decrypted message');
  plaintext.fill(0);
  const messageExpiration = millis(data.messageExpiration, 'messageExpiration');
  if (messageExpiration.getTime() <= opts.now.getTime()) fail('the payment token has expired (messageExpiration)');
  const messageId = str(data.messageId, 'messageId', 500);
  if (data.paymentMethod !== 'CARD') fail('paymentMethod must be CARD');
  const details = data.paymentMethodDetails;
  if (!details || typeof details !== 'object' || Array.isArray(details)) fail('paymentMethodDetails is missing');
  const d = details as Record<string, unknown>;
  const authMethod = d.authMethod;
  if (authMethod !== 'PAN_ONLY' && authMethod !== 'CRYPTOGRAM_3DS') fail('authMethod must be PAN_ONLY or CRYPTOGRAM_3DS');
  const pan = str(d.pan, 'pan', 19);
  if (!/^[0-9]{12,19}$/.test(pan)) fail('pan is not a card number');
  const month = Number(d.expirationMonth);
  const year = Number(d.expirationYear);
  if (!Number.isInteger(month) || month < 1 || month > 12 || !Number.isInteger(year) || year < 2000 || year > 2100) fail('the expiration month or year is not valid');
  let cryptogram: string | null = null;
  let eci: string | null = null;
  if (authMethod === 'CRYPTOGRAM_3DS') {
    cryptogram = str(d.cryptogram, 'cryptogram', 200);
    if (d.eciIndicator !== undefined && d.eciIndicator !== null) {
      if (typeof d.eciIndicator !== 'string' || !/^[0-9]{1,2}$/.test(d.eciIndicator)) fail('eciIndicator is not valid');
      eci = d.eciIndicator.padStart(2, '0');
    }
  }
  const gatewayMerchantId = typeof data.gatewayMerchantId === 'string' ? data.gatewayMerchantId : null;
  return { messageId, messageExpiration, paymentMethod: 'CARD', authMethod, pan, expirationMonth: month, expirationYear: year, cryptogram, eciIndicator: eci, gatewayMerchantId };
}
