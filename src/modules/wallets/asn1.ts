/**
 * The ASN.1 structures the wallets need: X.509 certificates (Apple Pay's signing chain, the sandbox's
 * own roots and merchant certificates) and CMS SignedData (Apple Pay's detached signature).
 *
 * The DER encoding and decoding of the structures comes from the @peculiar/asn1-* schemas; every
 * cryptographic operation (signing, verifying, digests) is node:crypto's. Pure: no IO.
 */
import { X509Certificate, createHash, createPublicKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  BasicConstraints,
  Certificate,
  Extension,
  Extensions,
  Name,
  RelativeDistinguishedName,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
  Version,
  id_ce_basicConstraints,
} from '@peculiar/asn1-x509';
import {
  Attribute,
  CertificateChoices,
  CertificateSet,
  ContentInfo,
  DigestAlgorithmIdentifiers,
  EncapsulatedContentInfo,
  IssuerAndSerialNumber,
  SignedData,
  SignerIdentifier,
  SignerInfo,
  SignerInfos,
  CMSVersion,
  id_data,
  id_signedData,
} from '@peculiar/asn1-cms';

export const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  sha256: '2.16.840.1.101.3.4.2.1',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  /** Apple Pay: the leaf certificate that signs payment tokens. */
  appleLeaf: '1.2.840.113635.100.6.29',
  /** Apple Pay: the intermediate CA (Apple Application Integration CA). */
  appleIntermediate: '1.2.840.113635.100.6.2.14',
  /** Apple Pay: the merchant identifier field of a payment processing certificate. */
  appleMerchantId: '1.2.840.113635.100.6.32',
} as const;

const ab = (b: Buffer | Uint8Array): ArrayBuffer => {
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return copy.buffer;
};
const buf = (a: ArrayBuffer | ArrayBufferView): Buffer => (ArrayBuffer.isView(a) ? Buffer.from(a.buffer, a.byteOffset, a.byteLength) : Buffer.from(a));

function nameOf(cn: string, org: string | null = null): Name {
  const rdns = [];
  if (org) rdns.push(new RelativeDistinguishedName([new AttributeTypeAndValue({ type: OID.organization, value: new AttributeValue({ utf8String: org }) })]));
  rdns.push(new RelativeDistinguishedName([new AttributeTypeAndValue({ type: OID.commonName, value: new AttributeValue({ utf8String: cn }) })]));
  return new Name(rdns);
}

/** A DER IA5String (the value of Apple's merchant identifier extension). */
export function ia5String(text: string): Buffer {
  const body = Buffer.from(text, 'ascii');
  if (body.length > 127) throw new Error('ia5String: at most 127 bytes');
  return Buffer.concat([Buffer.from([0x16, body.length]), body]);
}

/** A DER NULL (the value of Apple's marker extensions). */
export const DER_NULL = Buffer.from([0x05, 0x00]);

export interface CertificateSpec {
  subject: string;
  issuer: string;
  organization?: string | null;
  notBefore: Date;
  notAfter: Date;
  /** The certified public key. */
  publicKey: KeyObject;
  /** The issuer's private key (the subject's own for a self-signed root). */
  signingKey: KeyObject;
  ca: boolean;
  extensions?: Array<{ oid: string; value: Buffer; critical?: boolean }>;
}

/** An X.509 v3 certificate (DER), signed with ECDSA-SHA256 by node:crypto. */
export function buildCertificate(spec: CertificateSpec): Buffer {
  const spki = AsnConvert.parse(spec.publicKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo);
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x40; // positive, and no leading zero byte (DER integers are minimal)
  const extensions = new Extensions([
    new Extension({ extnID: id_ce_basicConstraints, critical: true, extnValue: new OctetString(AsnConvert.serialize(new BasicConstraints({ cA: spec.ca }))) }),
    ...(spec.extensions ?? []).map((e) => new Extension({ extnID: e.oid, critical: e.critical ?? false, extnValue: new OctetString(ab(e.value)) })),
  ]);
  const algorithm = new AlgorithmIdentifier({ algorithm: OID.ecdsaWithSha256 });
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: ab(serial),
    signature: algorithm,
    issuer: nameOf(spec.issuer, spec.organization ?? null),
    validity: new Validity({ notBefore: spec.notBefore, notAfter: spec.notAfter }),
    subject: nameOf(spec.subject, spec.organization ?? null),
    subjectPublicKeyInfo: spki,
    extensions,
  });
  const tbsDer = buf(AsnConvert.serialize(tbs));
  const signature = sign('sha256', tbsDer, spec.signingKey);
  return buf(AsnConvert.serialize(new Certificate({ tbsCertificate: tbs, signatureAlgorithm: algorithm, signatureValue: ab(signature) })));
}

/** PEM of a DER certificate. */
export function certificatePem(der: Buffer): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}

/** The DER certificates of a PEM bundle (one or more certificates), in order. */
export function pemCertificates(pem: string): Buffer[] {
  const out: Buffer[] = [];
  for (const m of pem.matchAll(/-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+?)-----END CERTIFICATE-----/g)) out.push(Buffer.from(m[1].replace(/\s+/g, ''), 'base64'));
  return out;
}

export interface ParsedCertificate {
  der: Buffer;
  /** node:crypto's view (validity, issuer checks, signature verification). */
  x509: X509Certificate;
  /** The extensions' values (the contents of extnValue), by OID. */
  extensions: Map<string, Buffer>;
  /** The DER of the issuer name and the serial number (to find a CMS signer's certificate). */
  issuerDer: Buffer;
  serial: Buffer;
}

/** Parses a DER certificate; throws on anything that is not one. */
export function parseCertificate(der: Buffer): ParsedCertificate {
  const x509 = new X509Certificate(der);
  const cert = AsnConvert.parse(der, Certificate);
  const extensions = new Map<string, Buffer>();
  for (const e of cert.tbsCertificate.extensions ?? []) extensions.set(e.extnID, buf(e.extnValue.buffer));
  return {
    der,
    x509,
    extensions,
    issuerDer: buf(AsnConvert.serialize(cert.tbsCertificate.issuer)),
    serial: stripLeadingZeros(buf(cert.tbsCertificate.serialNumber)),
  };
}

function stripLeadingZeros(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b.subarray(i);
}

/**
 * The contents of a DER character string (UTF8String, IA5String, PrintableString), or the bytes as
 * they are when they are not one.
 */
export function derStringContents(value: Buffer): string {
  const tag = value[0];
  if ((tag === 0x0c || tag === 0x16 || tag === 0x13) && value.length >= 2) {
    let len = value[1];
    let off = 2;
    if (len & 0x80) {
      const n = len & 0x7f;
      if (n < 1 || n > 2 || value.length < 2 + n) return value.toString('latin1');
      len = n === 1 ? value[2] : value.readUInt16BE(2);
      off = 2 + n;
    }
    if (off + len === value.length) return value.subarray(off).toString('latin1');
  }
  return value.toString('latin1');
}

// ---- CMS SignedData (detached) ----------------------------------------------------------------------

export interface SignedDataSpec {
  /** The signed content (not included: a detached signature). */
  content: Buffer;
  signingTime: Date;
  signerCertificate: Buffer;
  signerKey: KeyObject;
  /** Certificates carried besides the signer's (the intermediate CA). */
  chain: Buffer[];
}

function utcTimeDer(d: Date): Buffer {
  const p = (n: number) => String(n).padStart(2, '0');
  const s = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
  return Buffer.concat([Buffer.from([0x17, s.length]), Buffer.from(s, 'ascii')]);
}

function oidDer(oid: string): Buffer {
  const parts = oid.split('.').map(Number);
  const bytes = [parts[0] * 40 + parts[1]];
  for (const n of parts.slice(2)) {
    const stack = [n & 0x7f];
    let v = Math.floor(n / 128);
    while (v > 0) {
      stack.unshift((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    bytes.push(...stack);
  }
  return Buffer.concat([Buffer.from([0x06, bytes.length]), Buffer.from(bytes)]);
}

function octetStringDer(b: Buffer): Buffer {
  if (b.length > 127) throw new Error('octetStringDer: short form only');
  return Buffer.concat([Buffer.from([0x04, b.length]), b]);
}

/** A detached CMS SignedData (DER ContentInfo) over `content`, with signed attributes, as Apple Pay signs. */
export function buildDetachedSignedData(spec: SignedDataSpec): Buffer {
  const signer = AsnConvert.parse(spec.signerCertificate, Certificate);
  const digest = createHash('sha256').update(spec.content).digest();
  const signedAttrs = [
    new Attribute({ attrType: OID.contentType, attrValues: [ab(oidDer(id_data))] }),
    new Attribute({ attrType: OID.signingTime, attrValues: [ab(utcTimeDer(spec.signingTime))] }),
    new Attribute({ attrType: OID.messageDigest, attrValues: [ab(octetStringDer(digest))] }),
  ];
  const info = new SignerInfo({
    version: CMSVersion.v1,
    sid: new SignerIdentifier({ issuerAndSerialNumber: new IssuerAndSerialNumber({ issuer: signer.tbsCertificate.issuer, serialNumber: signer.tbsCertificate.serialNumber }) }),
    digestAlgorithm: new AlgorithmIdentifier({ algorithm: OID.sha256 }),
    signedAttrs,
    signatureAlgorithm: new AlgorithmIdentifier({ algorithm: OID.ecdsaWithSha256 }),
    signature: new OctetString(0),
  });
  // the signature covers the DER of the attributes as a SET OF (tag 0x31), not as [0] IMPLICIT
  const attrsSet = signedAttributesOf(buf(AsnConvert.serialize(info)));
  info.signature = new OctetString(ab(sign('sha256', attrsSet, spec.signerKey)));
  const signed = new SignedData({
    version: CMSVersion.v1,
    digestAlgorithms: new DigestAlgorithmIdentifiers([new AlgorithmIdentifier({ algorithm: OID.sha256 })]),
    encapContentInfo: new EncapsulatedContentInfo({ eContentType: id_data }),
    certificates: new CertificateSet([spec.signerCertificate, ...spec.chain].map((der) => new CertificateChoices({ certificate: AsnConvert.parse(der, Certificate) }))),
    signerInfos: new SignerInfos([info]),
  });
  return buf(AsnConvert.serialize(new ContentInfo({ contentType: id_signedData, content: AsnConvert.serialize(signed) })));
}

/** The TLV elements directly inside a DER constructed value `der` (header included in each). */
function derChildren(der: Buffer): Buffer[] {
  const header = derHeader(der, 0);
  const out: Buffer[] = [];
  let off = header.contentStart;
  const end = header.contentStart + header.length;
  while (off < end) {
    const h = derHeader(der, off);
    const next = h.contentStart + h.length;
    if (next > end) throw new Error('truncated DER');
    out.push(der.subarray(off, next));
    off = next;
  }
  return out;
}

function derHeader(der: Buffer, off: number): { tag: number; contentStart: number; length: number } {
  if (off + 2 > der.length) throw new Error('truncated DER');
  const tag = der[off];
  if ((tag & 0x1f) === 0x1f) throw new Error('unsupported DER tag');
  let len = der[off + 1];
  let start = off + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n < 1 || n > 4 || start + n > der.length) throw new Error('unsupported DER length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[start + i];
    start += n;
  }
  if (start + len > der.length) throw new Error('truncated DER');
  return { tag, contentStart: start, length: len };
}

/**
 * The signed attributes of an encoded SignerInfo exactly as they were received, re-tagged as the DER
 * SET OF (0x31) that the signature covers (RFC 5652 §5.4).
 */
function signedAttributesOf(signerInfoDer: Buffer): Buffer {
  const attrs = derChildren(signerInfoDer).find((c) => c[0] === 0xa0);
  if (!attrs) throw new Error('the signer has no signed attributes');
  const out = Buffer.from(attrs);
  out[0] = 0x31;
  return out;
}

/** The encoded SignerInfo of a ContentInfo(SignedData) with one signer. */
function signerInfoDerOf(contentInfoDer: Buffer): Buffer {
  const [, explicit] = derChildren(contentInfoDer);
  if (!explicit || explicit[0] !== 0xa0) throw new Error('not a CMS ContentInfo');
  const [signedData] = derChildren(explicit);
  const parts = derChildren(signedData);
  const infos = parts[parts.length - 1];
  if (!infos || infos[0] !== 0x31) throw new Error('the SignedData has no signer infos');
  const list = derChildren(infos);
  if (list.length !== 1) throw new Error(`expected one signer, found ${list.length}`);
  return list[0];
}

export interface ParsedSignedData {
  certificates: ParsedCertificate[];
  /** The certificate of the (single) signer, found by issuer and serial number. */
  signerCertificate: ParsedCertificate;
  digestAlgorithm: string;
  signatureAlgorithm: string;
  signature: Buffer;
  /** The DER the signature covers (the signed attributes as a SET OF). */
  signedAttributes: Buffer;
  messageDigest: Buffer;
  signingTime: Date | null;
  /** True when the content is carried inside (Apple Pay's signatures are detached). */
  hasContent: boolean;
}

/** Parses a CMS SignedData with exactly one signer; throws with a reason on anything else. */
export function parseSignedData(der: Buffer): ParsedSignedData {
  const ci = AsnConvert.parse(der, ContentInfo);
  if (ci.contentType !== id_signedData) throw new Error('not a CMS SignedData');
  const sd = AsnConvert.parse(ci.content, SignedData);
  if (sd.signerInfos.length !== 1) throw new Error(`expected one signer, found ${sd.signerInfos.length}`);
  const certificates = (sd.certificates ?? []).filter((c) => c.certificate).map((c) => parseCertificate(buf(AsnConvert.serialize(c.certificate!))));
  const info = sd.signerInfos[0];
  const sid = info.sid.issuerAndSerialNumber;
  if (!sid) throw new Error('the signer is not identified by issuer and serial number');
  const issuer = buf(AsnConvert.serialize(sid.issuer));
  const serial = stripLeadingZeros(buf(sid.serialNumber));
  const signerCertificate = certificates.find((c) => c.serial.equals(serial) && c.issuerDer.equals(issuer));
  if (!signerCertificate) throw new Error("the signer's certificate is not in the signature");
  let messageDigest: Buffer | null = null;
  let signingTime: Date | null = null;
  for (const a of info.signedAttrs ?? []) {
    if (a.attrValues.length !== 1) throw new Error(`signed attribute ${a.attrType} must have one value`);
    const v = buf(a.attrValues[0]);
    if (a.attrType === OID.messageDigest) messageDigest = buf(AsnConvert.parse(v, OctetString).buffer);
    if (a.attrType === OID.signingTime) signingTime = parseTime(v);
  }
  if (!messageDigest) throw new Error('the signature has no message digest attribute');
  return {
    certificates,
    signerCertificate,
    digestAlgorithm: info.digestAlgorithm.algorithm,
    signatureAlgorithm: info.signatureAlgorithm.algorithm,
    signature: buf(info.signature.buffer),
    signedAttributes: signedAttributesOf(signerInfoDerOf(der)),
    messageDigest,
    signingTime,
    hasContent: !!sd.encapContentInfo.eContent,
  };
}

/** A DER UTCTime or GeneralizedTime (signing time). */
function parseTime(v: Buffer): Date {
  const tag = v[0];
  const s = v.subarray(2, 2 + v[1]).toString('ascii');
  const m = tag === 0x17 ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s) : tag === 0x18 ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.\d+)?Z$/.exec(s) : null;
  if (!m) throw new Error('the signing time is not a UTC time');
  let year = Number(m[1]);
  if (tag === 0x17) year += year < 50 ? 2000 : 1900;
  return new Date(Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])));
}

/** The uncompressed EC point (65 bytes for P-256) of a public key. */
export function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
}

/** A P-256 public key from its uncompressed point (65 bytes, 0x04 || X || Y). */
export function p256PublicKeyFromPoint(point: Buffer): KeyObject {
  if (point.length !== 65 || point[0] !== 4) throw new Error('not an uncompressed P-256 point');
  return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') }, format: 'jwk' });
}
