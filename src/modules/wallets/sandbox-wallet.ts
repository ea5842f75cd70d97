/**
 * The sandbox's stand-in for the wallets: what Google and Apple do on their side, so sandbox merchants
 * can build real tokens without any network. It makes the sandbox roots (a Google Pay root signing key;
 * an Apple Pay root CA, intermediate CA and leaf signing certificate), merchant keys and certificates,
 * and seals tokens exactly in the formats the gateway opens (googlepay.ts, applepay.ts): ECv2 with an
 * intermediate signing key, and EC_v1 with a detached CMS signature. node:crypto for every primitive.
 * Pure apart from randomness: no IO.
 */
import { X509Certificate, createCipheriv, createHash, createHmac, createPrivateKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { DER_NULL, OID, buildCertificate, buildDetachedSignedData, certificatePem, ia5String, p256PublicKeyFromPoint, pemCertificates, rawPublicKey } from './asn1.js';
import { appleKdf, merchantIdHashOf } from './applepay.js';
import { signedBytes, type GoogleRootKey } from './googlepay.js';

const P256 = { namedCurve: 'prime256v1' } as const;
const YEAR_MS = 365 * 86400_000;

export const pkcs8Pem = (k: KeyObject) => k.export({ type: 'pkcs8', format: 'pem' }).toString();
export const privateKeyOf = (pem: string) => createPrivateKey(pem);

// ---- Google Pay -------------------------------------------------------------------------------------

export interface GoogleRootMaterial {
  privateKey: string;
  root: GoogleRootKey;
}

/** A root signing key pair (ECv2), published like Google's keys.json entry. */
export function generateGoogleRoot(now: Date): GoogleRootMaterial {
  const { privateKey, publicKey } = generateKeyPairSync('ec', P256);
  return {
    privateKey: pkcs8Pem(privateKey),
    root: { keyValue: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), protocolVersion: 'ECv2', keyExpiration: String(now.getTime() + 30 * YEAR_MS) },
  };
}

/** A merchant's ECv2 key pair; the public key as Google takes it (base64 uncompressed point). */
export function generateGoogleMerchantKey(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', P256);
  return { privateKey: pkcs8Pem(privateKey), publicKey: rawPublicKey(publicKey).toString('base64') };
}

export interface GooglePayMessage {
  messageId: string;
  messageExpiration: Date;
  pan: string;
  expirationMonth: number;
  expirationYear: number;
  authMethod: 'PAN_ONLY' | 'CRYPTOGRAM_3DS';
  cryptogram?: string | null;
  eciIndicator?: string | null;
  gatewayMerchantId?: string | null;
}

/** A Google Pay ECv2 token, as Google seals it: intermediate key signed by the root, message encrypted for the merchant and signed. */
export function sealGooglePayToken(p: { rootPrivateKey: KeyObject; recipientId: string; merchantPublicKey: string; message: GooglePayMessage; now: Date; intermediateExpiration?: Date }): Record<string, unknown> {
  const intermediate = generateKeyPairSync('ec', P256);
  const signedKey = JSON.stringify({
    keyValue: intermediate.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    keyExpiration: String((p.intermediateExpiration ?? new Date(p.now.getTime() + 7 * 86400_000)).getTime()),
  });
  const keySignature = sign('sha256', signedBytes('Google', 'ECv2', signedKey), p.rootPrivateKey).toString('base64');

  const m = p.message;
  const plaintext = JSON.stringify({
    ...(m.gatewayMerchantId ? { gatewayMerchantId: m.gatewayMerchantId } : {}),
    messageExpiration: String(m.messageExpiration.getTime()),
    messageId: m.messageId,
    paymentMethod: 'CARD',
    paymentMethodDetails: {
      expirationYear: m.expirationYear,
      expirationMonth: m.expirationMonth,
      pan: m.pan,
      authMethod: m.authMethod,
      ...(m.authMethod === 'CRYPTOGRAM_3DS' ? { cryptogram: m.cryptogram, ...(m.eciIndicator ? { eciIndicator: m.eciIndicator } : {}) } : {}),
    },
  });
  const merchantKey = p256PublicKeyFromPoint(Buffer.from(p.merchantPublicKey, 'base64'));
  const ephemeral = generateKeyPairSync('ec', P256);
  const ephemeralPoint = rawPublicKey(ephemeral.publicKey);
  const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: merchantKey });
  const keys = Buffer.from(hkdfSync('sha256', Buffer.concat([ephemeralPoint, shared]), Buffer.alloc(32), Buffer.from('Google'), 64));
  const c = createCipheriv('aes-256-ctr', keys.subarray(0, 32), Buffer.alloc(16));
  const encrypted = Buffer.concat([c.update(plaintext, 'utf8'), c.final()]);
  const tag = createHmac('sha256', keys.subarray(32)).update(encrypted).digest();
  const signedMessage = JSON.stringify({ encryptedMessage: encrypted.toString('base64'), ephemeralPublicKey: ephemeralPoint.toString('base64'), tag: tag.toString('base64') });
  const signature = sign('sha256', signedBytes('Google', p.recipientId, 'ECv2', signedMessage), intermediate.privateKey).toString('base64');
  return { signature, intermediateSigningKey: { signedKey, signatures: [keySignature] }, protocolVersion: 'ECv2', signedMessage };
}

// ---- Apple Pay --------------------------------------------------------------------------------------

export interface AppleRootMaterial {
  rootKey: string;
  rootCertificate: string;
  intermediateKey: string;
  intermediateCertificate: string;
  leafKey: string;
  leafCertificate: string;
}

/** The sandbox Apple Pay chain: root CA, intermediate CA (OID …6.2.14), leaf signing certificate (OID …6.29). */
export function generateAppleRoots(now: Date, names = { root: 'paygate sandbox Apple Pay Root CA', intermediate: 'paygate sandbox Apple Pay Integration CA', leaf: 'paygate sandbox Apple Pay signing' }): AppleRootMaterial {
  const notBefore = new Date(now.getTime() - 86400_000);
  const notAfter = new Date(now.getTime() + 30 * YEAR_MS);
  const root = generateKeyPairSync('ec', P256);
  const intermediate = generateKeyPairSync('ec', P256);
  const leaf = generateKeyPairSync('ec', P256);
  const organization = 'paygate sandbox';
  const rootCert = buildCertificate({ subject: names.root, issuer: names.root, organization, notBefore, notAfter, publicKey: root.publicKey, signingKey: root.privateKey, ca: true });
  const intermediateCert = buildCertificate({ subject: names.intermediate, issuer: names.root, organization, notBefore, notAfter, publicKey: intermediate.publicKey, signingKey: root.privateKey, ca: true, extensions: [{ oid: OID.appleIntermediate, value: DER_NULL }] });
  const leafCert = buildCertificate({ subject: names.leaf, issuer: names.intermediate, organization, notBefore, notAfter, publicKey: leaf.publicKey, signingKey: intermediate.privateKey, ca: false, extensions: [{ oid: OID.appleLeaf, value: DER_NULL }] });
  return {
    rootKey: pkcs8Pem(root.privateKey),
    rootCertificate: certificatePem(rootCert),
    intermediateKey: pkcs8Pem(intermediate.privateKey),
    intermediateCertificate: certificatePem(intermediateCert),
    leafKey: pkcs8Pem(leaf.privateKey),
    leafCertificate: certificatePem(leafCert),
  };
}

/** The hex SHA-256 of a merchant identifier: the value of the certificate field 1.2.840.113635.100.6.32. */
export const merchantIdField = (merchantIdentifier: string) => createHash('sha256').update(merchantIdentifier, 'utf8').digest('hex');

/**
 * A merchant's payment processing key and certificate, as Apple issues it (the certificate carries the
 * merchant identifier field), signed here by `issuerKey` (the sandbox root).
 */
export function generateAppleMerchantCertificate(p: { merchantIdentifier: string; issuerKey: KeyObject; issuerName: string; now: Date }): { privateKey: string; certificate: string } {
  const pair = generateKeyPairSync('ec', P256);
  const der = buildCertificate({
    subject: `merchant ${p.merchantIdentifier}`,
    issuer: p.issuerName,
    organization: 'paygate sandbox',
    notBefore: new Date(p.now.getTime() - 86400_000),
    notAfter: new Date(p.now.getTime() + 2 * YEAR_MS),
    publicKey: pair.publicKey,
    signingKey: p.issuerKey,
    ca: false,
    extensions: [{ oid: OID.appleMerchantId, value: ia5String(merchantIdField(p.merchantIdentifier)) }],
  });
  return { privateKey: pkcs8Pem(pair.privateKey), certificate: certificatePem(der) };
}

export interface ApplePayPayment {
  pan: string;
  /** YYMMDD */
  expiration: string;
  currencyCode: string;
  amount: number;
  cryptogram: string;
  eciIndicator?: string | null;
}

/** An Apple Pay EC_v1 `paymentData`, as a device seals it for the merchant's certificate and Apple signs it. */
export function sealApplePayToken(p: { leafCertificate: string; leafKey: KeyObject; intermediateCertificate: string; merchantCertificate: string; payment: ApplePayPayment; transactionId: string; signingTime: Date; applicationData?: string | null }): Record<string, unknown> {
  const merchantDer = pemCertificates(p.merchantCertificate)[0];
  const merchantPublic = new X509Certificate(merchantDer).publicKey;
  const ephemeral = generateKeyPairSync('ec', P256);
  const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: merchantPublic });
  const key = appleKdf(shared, merchantIdHashOf(merchantDer));
  const plaintext = JSON.stringify({
    applicationPrimaryAccountNumber: p.payment.pan,
    applicationExpirationDate: p.payment.expiration,
    currencyCode: p.payment.currencyCode,
    transactionAmount: p.payment.amount,
    deviceManufacturerIdentifier: '040010030273',
    paymentDataType: '3DSecure',
    paymentData: { onlinePaymentCryptogram: p.payment.cryptogram, ...(p.payment.eciIndicator ? { eciIndicator: p.payment.eciIndicator } : {}) },
  });
  const c = createCipheriv('aes-256-gcm', key, Buffer.alloc(16));
  const data = Buffer.concat([c.update(plaintext, 'utf8'), c.final(), c.getAuthTag()]);
  const ephemeralSpki = ephemeral.publicKey.export({ type: 'spki', format: 'der' });
  const applicationData = p.applicationData ? Buffer.from(p.applicationData, 'hex') : Buffer.alloc(0);
  const signature = buildDetachedSignedData({
    content: Buffer.concat([ephemeralSpki, data, Buffer.from(p.transactionId, 'hex'), applicationData]),
    signingTime: p.signingTime,
    signerCertificate: pemCertificates(p.leafCertificate)[0],
    signerKey: p.leafKey,
    chain: pemCertificates(p.intermediateCertificate),
  });
  const spki = merchantPublic.export({ type: 'spki', format: 'der' });
  return {
    version: 'EC_v1',
    data: data.toString('base64'),
    signature: signature.toString('base64'),
    header: {
      ephemeralPublicKey: ephemeralSpki.toString('base64'),
      publicKeyHash: createHash('sha256').update(spki).digest('base64'),
      transactionId: p.transactionId,
      ...(p.applicationData ? { applicationData: p.applicationData } : {}),
    },
  };
}

/** A random transaction id (hex) or message id, as the wallets make them. */
export const newTransactionId = () => randomBytes(32).toString('hex');
export const newMessageId = () => `AH2Ej${randomBytes(24).toString('base64url')}`;
