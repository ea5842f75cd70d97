/**
 * Apple Pay payment tokens, version EC_v1: verification and decryption as Apple specifies them
 * ("Payment token format reference"), with node:crypto for every primitive. Pure: no IO, no clock.
 *
 *   paymentData = { version: "EC_v1", data, signature, header: { ephemeralPublicKey, publicKeyHash, transactionId, applicationData? } }
 *
 *  1. `signature` is a detached CMS SignedData. The signer's (leaf) certificate carries the OID
 *     1.2.840.113635.100.6.29, an intermediate certificate the OID 1.2.840.113635.100.6.2.14; the leaf is
 *     issued by that intermediate, which is issued by a trusted root (Apple Root CA - G3 in production);
 *     every certificate is valid at the signing time;
 *  2. the signed attributes' message digest is SHA-256(ephemeralPublicKey || data || transactionId ||
 *     applicationData) (the last two hex-decoded), and the leaf's key verifies the signature over them;
 *  3. the signing time is within the window (a few minutes) around now: an old token is refused;
 *  4. `publicKeyHash` is the SHA-256 of the merchant's payment processing certificate's public key (SPKI);
 *  5. shared = ECDH(payment processing key, ephemeralPublicKey); key = SHA-256(00000001 || shared ||
 *     0x0D "id-aes256-GCM" || "Apple" || SHA-256(merchant identifier)) (NIST SP 800-56A single-step KDF;
 *     the hash of the merchant identifier is the certificate's field 1.2.840.113635.100.6.32);
 *  6. AES-256-GCM with a 16-byte zero IV decrypts `data` (its last 16 bytes are the tag).
 *
 * Every failure is a WalletTokenError with a reason the merchant can act on; none carries token data.
 */
import { X509Certificate, createDecipheriv, createHash, createPublicKey, diffieHellman, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import { OID, derStringContents, parseCertificate, parseSignedData, type ParsedCertificate } from './asn1.js';
import { WalletTokenError } from './wallets.domain.js';

export interface ApplePayDecrypted {
  transactionId: string;
  signingTime: Date;
  /** The device PAN (DPAN), or the card's PAN for some cards. */
  pan: string;
  expirationMonth: number;
  expirationYear: number;
  /** ISO 4217 numeric, as Apple gives it. */
  currencyCode: string;
  transactionAmount: number;
  cryptogram: string;
  eciIndicator: string | null;
}

/** A merchant's payment processing certificate with its private key. */
export interface ApplePayMerchantKey {
  certificate: Buffer;
  privateKey: KeyObject;
}

export interface ApplePayOptions {
  /** Trusted roots (DER certificates). */
  roots: readonly Buffer[];
  merchantKeys: readonly ApplePayMerchantKey[];
  now: Date;
  /** How old (milliseconds) a signature may be. */
  maxAgeMs: number;
  /** How far in the future a signing time may be (clock skew). */
  maxSkewMs?: number;
}

function fail(reason: string): never {
  throw new WalletTokenError(reason);
}

function str(v: unknown, what: string, max: number): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > max) fail(`${what} is missing or not a string`);
  return v;
}

function b64(v: string, what: string): Buffer {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(v)) fail(`${what} is not base64`);
  return Buffer.from(v, 'base64');
}

function hex(v: string, what: string): Buffer {
  if (!/^([0-9a-fA-F]{2})*$/.test(v)) fail(`${what} is not hexadecimal`);
  return Buffer.from(v, 'hex');
}

const validAt = (c: ParsedCertificate, at: Date) => new Date(c.x509.validFrom).getTime() <= at.getTime() && at.getTime() <= new Date(c.x509.validTo).getTime();

/** The public key hash Apple puts in `header.publicKeyHash`: base64 SHA-256 of the certificate's SPKI. */
export function publicKeyHashOf(certificate: Buffer): string {
  const spki = new X509Certificate(certificate).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

/** The merchant identifier hash (32 bytes) of a payment processing certificate (field 1.2.840.113635.100.6.32). */
export function merchantIdHashOf(certificate: Buffer): Buffer {
  const ext = parseCertificate(certificate).extensions.get(OID.appleMerchantId);
  if (!ext) throw new Error('the certificate has no Apple Pay merchant identifier field (1.2.840.113635.100.6.32)');
  const text = derStringContents(ext).trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error('the merchant identifier field is not a SHA-256 in hexadecimal');
  return Buffer.from(text, 'hex');
}

/** The Apple KDF (NIST SP 800-56A, single step, SHA-256) of EC_v1. */
export function appleKdf(shared: Buffer, merchantIdHash: Buffer): Buffer {
  return createHash('sha256')
    .update(Buffer.from([0, 0, 0, 1]))
    .update(shared)
    .update(Buffer.from([0x0d]))
    .update('id-aes256-GCM', 'ascii')
    .update('Apple', 'ascii')
    .update(merchantIdHash)
    .digest();
}

/** Checks the signature of an EC_v1 token (steps 1 to 3); returns the signing time. */
function verifySignature(pd: Record<string, unknown>, header: Record<string, unknown>, data: Buffer, opts: ApplePayOptions): Date {
  let sd: ReturnType<typeof parseSignedData>;
  try {
    sd = parseSignedData(b64(str(pd.signature, 'signature', 20_000), 'signature'));
  } catch (err) {
    if (err instanceof WalletTokenError) throw err;
    fail(`the signature is not a valid CMS signature (${(err as Error).message})`);
  }
  if (sd.hasContent) fail('the signature must be detached');
  if (sd.digestAlgorithm !== OID.sha256 || sd.signatureAlgorithm !== OID.ecdsaWithSha256) fail('the signature must be ECDSA with SHA-256');
  const leaf = sd.signerCertificate;
  if (!leaf.extensions.has(OID.appleLeaf)) fail('the signing certificate is not an Apple Pay leaf certificate (OID 1.2.840.113635.100.6.29)');
  const intermediate = sd.certificates.find((c) => c !== leaf && c.extensions.has(OID.appleIntermediate) && leaf.x509.checkIssued(c.x509));
  if (!intermediate) fail('the signature carries no Apple Pay intermediate certificate (OID 1.2.840.113635.100.6.2.14) that issued the leaf');
  if (!leaf.x509.verify(intermediate.x509.publicKey)) fail('the leaf certificate is not signed by the intermediate certificate');
  const root = opts.roots.map((r) => parseCertificate(r)).find((r) => intermediate.x509.checkIssued(r.x509) && intermediate.x509.verify(r.x509.publicKey));
  if (!root) fail('the intermediate certificate is not issued by a trusted Apple root certificate');
  const signingTime = sd.signingTime;
  if (!signingTime) fail('the signature has no signing time');
  for (const c of [leaf, intermediate, root]) if (!validAt(c, signingTime)) fail('a certificate of the signature is not valid at the signing time');
  const ephemeral = b64(str(header.ephemeralPublicKey, 'header.ephemeralPublicKey', 500), 'header.ephemeralPublicKey');
  const transactionId = hex(str(header.transactionId, 'header.transactionId', 200), 'header.transactionId');
  const applicationData = header.applicationData === undefined || header.applicationData === null || header.applicationData === '' ? Buffer.alloc(0) : hex(str(header.applicationData, 'header.applicationData', 200), 'header.applicationData');
  const digest = createHash('sha256').update(Buffer.concat([ephemeral, data, transactionId, applicationData])).digest();
  if (sd.messageDigest.length !== digest.length || !timingSafeEqual(sd.messageDigest, digest)) fail('the signature does not match the token (tampered)');
  let ok = false;
  try {
    ok = verify('sha256', sd.signedAttributes, leaf.x509.publicKey, sd.signature);
  } catch {
    ok = false;
  }
  if (!ok) fail('the signature does not verify (tampered)');
  const age = opts.now.getTime() - signingTime.getTime();
  if (age > opts.maxAgeMs) fail('the payment token has expired (signed too long ago)');
  if (age < -(opts.maxSkewMs ?? 60_000)) fail('the signing time of the payment token is in the future');
  return signingTime;
}

/** Verifies, decrypts and checks an Apple Pay EC_v1 token (`paymentData`). */
export function openApplePayToken(paymentData: unknown, opts: ApplePayOptions): ApplePayDecrypted {
  if (!paymentData || typeof paymentData !== 'object' || Array.isArray(paymentData)) fail('the Apple Pay paymentData is not a JSON object');
  const pd = paymentData as Record<string, unknown>;
  if (pd.version !== 'EC_v1') fail(`version ${typeof pd.version === 'string' ? pd.version.slice(0, 20) : ''} is not supported (EC_v1 only)`);
  const header = pd.header;
  if (!header || typeof header !== 'object' || Array.isArray(header)) fail('header is missing');
  const h = header as Record<string, unknown>;
  const data = b64(str(pd.data, 'data', 20_000), 'data');
  if (data.length < 17) fail('data is too short');
  if (opts.roots.length === 0) fail('no Apple Pay root certificate is trusted');

  const signingTime = verifySignature(pd, h, data, opts);

  // 4. the merchant's certificate
  const publicKeyHash = str(h.publicKeyHash, 'header.publicKeyHash', 100);
  const key = opts.merchantKeys.find((k) => publicKeyHashOf(k.certificate) === publicKeyHash);
  if (!key) fail("header.publicKeyHash names no payment processing certificate of the merchant (wrong merchant or key)");

  // 5 and 6. key agreement, KDF, AES-256-GCM
  let ephemeral: KeyObject;
  try {
    ephemeral = createPublicKey({ key: b64(str(h.ephemeralPublicKey, 'header.ephemeralPublicKey', 500), 'header.ephemeralPublicKey'), format: 'der', type: 'spki' });
  } catch {
    fail('header.ephemeralPublicKey is not a public key');
  }
  if (ephemeral.asymmetricKeyDetails?.namedCurve !== 'prime256v1') fail('header.ephemeralPublicKey is not a P-256 key');
  const shared = diffieHellman({ privateKey: key.privateKey, publicKey: ephemeral });
  const symmetric = appleKdf(shared, merchantIdHashOf(key.certificate));
  shared.fill(0);
  let plaintext: Buffer;
  try {
    const d = createDecipheriv('aes-256-gcm', symmetric, Buffer.alloc(16));
    d.setAuthTag(data.subarray(data.length - 16));
    plaintext = Buffer.concat([d.update(data.subarray(0, data.length - 16)), d.final()]);
  } catch {
    fail("the data does not decrypt with the merchant's payment processing key (wrong key, or tampered)");
  } finally {
    symmetric.fill(0);
  }
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(plaintext.toString('utf8')) as Record<string, unknown>;
  } catch {
    fail('the decrypted data is not JSON');
  } finally {
    plaintext.fill(0);
  }
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) fail('the decrypted data is not a JSON object');
  const pan = str(payload.applicationPrimaryAccountNumber, 'applicationPrimaryAccountNumber', 19);
  if (!/^[0-9]{12,19}$/.test(pan)) fail('applicationPrimaryAccountNumber is not a card number');
  const exp = str(payload.applicationExpirationDate, 'applicationExpirationDate', 6);
  if (!/^[0-9]{2}(0[1-9]|1[0-2])[0-9]{2}$/.test(exp)) fail('applicationExpirationDate is not YYMMDD');
  const currencyCode = str(payload.currencyCode, 'currencyCode', 3);
  if (!/^[0-9]{3}$/.test(currencyCode)) fail('currencyCode is not an ISO 4217 numeric code');
  const amount = payload.transactionAmount;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 0) fail('transactionAmount is not an amount');
  if (payload.paymentDataType !== '3DSecure') fail(`paymentDataType ${typeof payload.paymentDataType === 'string' ? payload.paymentDataType.slice(0, 20) : ''} is not supported (3DSecure only)`);
  const pdata = payload.paymentData;
  if (!pdata || typeof pdata !== 'object' || Array.isArray(pdata)) fail('paymentData is missing');
  const p = pdata as Record<string, unknown>;
  const cryptogram = str(p.onlinePaymentCryptogram, 'onlinePaymentCryptogram', 200);
  let eci: string | null = null;
  if (p.eciIndicator !== undefined && p.eciIndicator !== null && p.eciIndicator !== '') {
    if (typeof p.eciIndicator !== 'string' || !/^[0-9]{1,2}$/.test(p.eciIndicator)) fail('eciIndicator is not valid');
    eci = p.eciIndicator.padStart(2, '0');
  }
  return {
    transactionId: str(h.transactionId, 'header.transactionId', 200).toLowerCase(),
    signingTime,
    pan,
    expirationYear: 2000 + Number(exp.slice(0, 2)),
    expirationMonth: Number(exp.slice(2, 4)),
    currencyCode,
    transactionAmount: amount,
    cryptogram,
    eciIndicator: eci,
  };
}
