/**
 * A test stand-in for Google and Apple: builds wallet tokens the way the wallets do, written here from
 * the wallets' specifications and independent of the gateway's token code (googlepay.ts, applepay.ts,
 * sandbox-wallet.ts). Only the generic ASN.1 builders (an X.509 certificate, a CMS SignedData) come
 * from the gateway's asn1.ts; what is signed, encrypted and derived is computed here.
 *
 * Each test wallet has its own roots, which a test app trusts through the sandbox root settings
 * (PAYGATE_GOOGLE_PAY_SANDBOX_ROOT_KEYS, PAYGATE_APPLE_PAY_SANDBOX_ROOT_CA).
 */
import { X509Certificate, createCipheriv, createHash, createHmac, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { buildCertificate, buildDetachedSignedData, certificatePem } from '../../src/modules/wallets/asn1.js';

const P256 = { namedCurve: 'prime256v1' } as const;

function lengthPrefixed(...parts: string[]): Buffer {
  return Buffer.concat(parts.flatMap((p) => {
    const b = Buffer.from(p, 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32LE(b.length, 0);
    return [len, b];
  }));
}

function point(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from([0x04]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
}

function keyFromPoint(b64: string): KeyObject {
  const p = Buffer.from(b64, 'base64');
  return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: p.subarray(1, 33).toString('base64url'), y: p.subarray(33, 65).toString('base64url') }, format: 'jwk' });
}

export interface GoogleMessage {
  messageId?: string;
  messageExpiration?: Date;
  /** messageExpiration as sent, instead of `messageExpiration` (a value no Date can hold, say). */
  messageExpirationText?: string;
  pan?: string;
  expirationMonth?: number;
  expirationYear?: number;
  authMethod?: 'PAN_ONLY' | 'CRYPTOGRAM_3DS';
  cryptogram?: string;
  eciIndicator?: string;
  gatewayMerchantId?: string;
}

/** Google's side of Google Pay ECv2. */
export class TestGooglePay {
  readonly root = generateKeyPairSync('ec', P256);

  /** The root in Google's keys.json format. */
  keysJson(keyExpiration = Date.now() + 10 * 365 * 86400_000): string {
    return JSON.stringify({ keys: [{ keyValue: this.root.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), protocolVersion: 'ECv2', keyExpiration: String(keyExpiration) }] });
  }

  /**
   * A token for `recipientId`, encrypted for the merchant's public key (base64 uncompressed point).
   * `opts` bend it the ways the tests need: an expired intermediate key, another signing root, a
   * corrupted MAC tag under a valid signature.
   */
  token(p: { recipientId: string; merchantPublicKey: string; now: Date; message?: GoogleMessage }, opts: { intermediateExpiration?: Date; intermediateExpirationText?: string; rootKey?: KeyObject; corruptTag?: boolean } = {}) {
    const m = p.message ?? {};
    const messageId = m.messageId ?? `msg-${randomBytes(12).toString('hex')}`;
    const intermediate = generateKeyPairSync('ec', P256);
    const signedKey = JSON.stringify({
      keyValue: intermediate.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
      keyExpiration: opts.intermediateExpirationText ?? String((opts.intermediateExpiration ?? new Date(p.now.getTime() + 86400_000)).getTime()),
    });
    const keySignature = sign('sha256', lengthPrefixed('Google', 'ECv2', signedKey), opts.rootKey ?? this.root.privateKey).toString('base64');
    const authMethod = m.authMethod ?? 'CRYPTOGRAM_3DS';
    const details: Record<string, unknown> = {
      expirationYear: m.expirationYear ?? p.now.getUTCFullYear() + 2,
      expirationMonth: m.expirationMonth ?? 11,
      pan: m.pan ?? '4548812049400004',
      authMethod,
    };
    if (authMethod === 'CRYPTOGRAM_3DS') {
      details.cryptogram = m.cryptogram ?? 'AgAAAAAABk4DWZ4C28yUQAAAAAA=';
      details.eciIndicator = m.eciIndicator ?? '05';
    }
    const plaintext = JSON.stringify({
      ...(m.gatewayMerchantId ? { gatewayMerchantId: m.gatewayMerchantId } : {}),
      messageExpiration: m.messageExpirationText ?? String((m.messageExpiration ?? new Date(p.now.getTime() + 3600_000)).getTime()),
      messageId,
      paymentMethod: 'CARD',
      paymentMethodDetails: details,
    });
    // ECIES-KEM with HKDF-SHA256, then AES-256-CTR (zero IV) and HMAC-SHA256 over the ciphertext
    const eph = generateKeyPairSync('ec', P256);
    const ephPoint = point(eph.publicKey);
    const z = diffieHellman({ privateKey: eph.privateKey, publicKey: keyFromPoint(p.merchantPublicKey) });
    const okm = Buffer.from(hkdfSync('sha256', Buffer.concat([ephPoint, z]), Buffer.alloc(32, 0), Buffer.from('Google', 'utf8'), 64));
    const cipher = createCipheriv('aes-256-ctr', okm.subarray(0, 32), Buffer.alloc(16, 0));
    const encryptedMessage = Buffer.concat([cipher.update(Buffer.from(plaintext, 'utf8')), cipher.final()]);
    const tag = createHmac('sha256', okm.subarray(32, 64)).update(encryptedMessage).digest();
    if (opts.corruptTag) tag[0] ^= 1;
    const signedMessage = JSON.stringify({ encryptedMessage: encryptedMessage.toString('base64'), ephemeralPublicKey: ephPoint.toString('base64'), tag: tag.toString('base64') });
    const signature = sign('sha256', lengthPrefixed('Google', p.recipientId, 'ECv2', signedMessage), intermediate.privateKey).toString('base64');
    return { token: { signature, intermediateSigningKey: { signedKey, signatures: [keySignature] }, protocolVersion: 'ECv2', signedMessage }, messageId };
  }
}

export interface ApplePayment {
  pan?: string;
  expiration?: string;
  currencyCode?: string;
  amount: number;
  cryptogram?: string;
  eciIndicator?: string;
}

/** Apple's side of Apple Pay EC_v1: a root CA, the Apple Pay intermediate and the signing leaf. */
export class TestApplePay {
  readonly rootKey = generateKeyPairSync('ec', P256);
  readonly intermediateKey = generateKeyPairSync('ec', P256);
  readonly leafKey = generateKeyPairSync('ec', P256);
  readonly rootDer: Buffer;
  readonly intermediateDer: Buffer;
  readonly leafDer: Buffer;

  constructor(opts: { leafOid?: boolean; intermediateOid?: boolean; validFrom?: Date; validTo?: Date } = {}) {
    const notBefore = opts.validFrom ?? new Date(Date.now() - 86400_000);
    const notAfter = opts.validTo ?? new Date(Date.now() + 10 * 365 * 86400_000);
    this.rootDer = buildCertificate({ subject: 'Test Apple Root CA - G3', issuer: 'Test Apple Root CA - G3', notBefore, notAfter, publicKey: this.rootKey.publicKey, signingKey: this.rootKey.privateKey, ca: true });
    this.intermediateDer = buildCertificate({
      subject: 'Test Apple Application Integration CA - G3', issuer: 'Test Apple Root CA - G3', notBefore, notAfter, publicKey: this.intermediateKey.publicKey, signingKey: this.rootKey.privateKey, ca: true,
      extensions: opts.intermediateOid === false ? [] : [{ oid: '1.2.840.113635.100.6.2.14', value: Buffer.from([0x05, 0x00]) }],
    });
    this.leafDer = buildCertificate({
      subject: 'Test ecc-smp-broker-sign_UC4', issuer: 'Test Apple Application Integration CA - G3', notBefore, notAfter, publicKey: this.leafKey.publicKey, signingKey: this.intermediateKey.privateKey, ca: false,
      extensions: opts.leafOid === false ? [] : [{ oid: '1.2.840.113635.100.6.29', value: Buffer.from([0x05, 0x00]) }],
    });
  }

  rootPem(): string {
    return certificatePem(this.rootDer);
  }

  /** A merchant's payment processing certificate and key, as Apple issues it (the merchant identifier field). */
  merchantCertificate(merchantIdentifier: string): { certificate: string; privateKey: string } {
    const pair = generateKeyPairSync('ec', P256);
    const hex = createHash('sha256').update(merchantIdentifier, 'utf8').digest('hex');
    const field = Buffer.concat([Buffer.from([0x16, hex.length]), Buffer.from(hex, 'ascii')]);
    const der = buildCertificate({
      subject: `Merchant ID: ${merchantIdentifier}`, issuer: 'Test Apple Worldwide Developer Relations CA', notBefore: new Date(Date.now() - 86400_000), notAfter: new Date(Date.now() + 365 * 86400_000),
      publicKey: pair.publicKey, signingKey: this.rootKey.privateKey, ca: false, extensions: [{ oid: '1.2.840.113635.100.6.32', value: field }],
    });
    return { certificate: certificatePem(der), privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
  }

  /** A `paymentData` encrypted for the merchant's certificate and signed by the leaf (detached CMS). */
  token(p: { merchantCertificate: string; payment: ApplePayment; signingTime: Date; transactionId?: string; merchantIdentifier?: string }) {
    const cert = new X509Certificate(p.merchantCertificate);
    // the merchant identifier hash: the certificate's field (64 hex digits in an IA5String), unless the test names the identifier
    const idHash = p.merchantIdentifier
      ? createHash('sha256').update(p.merchantIdentifier, 'utf8').digest()
      : Buffer.from(/[0-9a-f]{64}/.exec(Buffer.from(cert.raw).toString('latin1'))![0], 'hex');
    const eph = generateKeyPairSync('ec', P256);
    const z = diffieHellman({ privateKey: eph.privateKey, publicKey: cert.publicKey });
    // NIST SP 800-56A single-step KDF: counter || Z || algorithm id || party U || party V
    const key = createHash('sha256').update(Buffer.concat([Buffer.from('00000001', 'hex'), z, Buffer.from('0d', 'hex'), Buffer.from('id-aes256-GCM'), Buffer.from('Apple'), idHash])).digest();
    const plaintext = JSON.stringify({
      applicationPrimaryAccountNumber: p.payment.pan ?? '4548812049400004',
      applicationExpirationDate: p.payment.expiration ?? `${String((p.signingTime.getUTCFullYear() + 2) % 100).padStart(2, '0')}1130`,
      currencyCode: p.payment.currencyCode ?? '978',
      transactionAmount: p.payment.amount,
      deviceManufacturerIdentifier: '040010030273',
      paymentDataType: '3DSecure',
      paymentData: { onlinePaymentCryptogram: p.payment.cryptogram ?? 'Af9x/QwAA/DjmU65oyc1MAABAAA=', eciIndicator: p.payment.eciIndicator ?? '7' },
    });
    const c = createCipheriv('aes-256-gcm', key, Buffer.alloc(16, 0));
    const data = Buffer.concat([c.update(plaintext, 'utf8'), c.final(), c.getAuthTag()]);
    const ephemeralPublicKey = eph.publicKey.export({ type: 'spki', format: 'der' });
    const transactionId = p.transactionId ?? randomBytes(32).toString('hex');
    const signature = buildDetachedSignedData({
      content: Buffer.concat([ephemeralPublicKey, data, Buffer.from(transactionId, 'hex')]),
      signingTime: p.signingTime,
      signerCertificate: this.leafDer,
      signerKey: this.leafKey.privateKey,
      chain: [this.intermediateDer],
    });
    const publicKeyHash = createHash('sha256').update(cert.publicKey.export({ type: 'spki', format: 'der' })).digest('base64');
    return {
      paymentData: {
        version: 'EC_v1',
        data: data.toString('base64'),
        signature: signature.toString('base64'),
        header: { ephemeralPublicKey: ephemeralPublicKey.toString('base64'), publicKeyHash, transactionId },
      },
      transactionId,
    };
  }
}
