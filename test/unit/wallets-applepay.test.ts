/**
 * Apple Pay EC_v1: tokens built by the test wallet (test/helpers/wallets.ts: Apple's KDF, encryption
 * and signed content computed there) open; tampering, a wrong certificate or key, an untrusted or
 * incomplete chain, certificates without Apple's OIDs, and old or future signing times are refused.
 */
import { describe, expect, it } from 'vitest';
import { openApplePayToken, publicKeyHashOf, type ApplePayMerchantKey } from '../../src/modules/wallets/applepay.js';
import { pemCertificates } from '../../src/modules/wallets/asn1.js';
import { generateAppleMerchantCertificate, generateAppleRoots, privateKeyOf, sealApplePayToken } from '../../src/modules/wallets/sandbox-wallet.js';
import { WalletTokenError, tokenOfPayload } from '../../src/modules/wallets/wallets.domain.js';
import { TestApplePay } from '../helpers/wallets.js';

const apple = new TestApplePay();
const NOW = new Date();
const merchant = apple.merchantCertificate('merchant.com.example.shop');
const key: ApplePayMerchantKey = { certificate: pemCertificates(merchant.certificate)[0], privateKey: privateKeyOf(merchant.privateKey) };
const WINDOW = 5 * 60_000;

const open = (pd: unknown, o: Partial<Parameters<typeof openApplePayToken>[1]> = {}) =>
  openApplePayToken(pd, { roots: [apple.rootDer], merchantKeys: [key], now: NOW, maxAgeMs: WINDOW, ...o });

function refused(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WalletTokenError);
    return (err as WalletTokenError).reason;
  }
  throw new Error('the token was accepted');
}

const build = (amount = 1250, opts: Partial<Parameters<TestApplePay['token']>[0]> = {}, wallet = apple) =>
  wallet.token({ merchantCertificate: merchant.certificate, payment: { amount }, signingTime: NOW, ...opts });

describe('Apple Pay EC_v1 tokens that open', () => {
  it('the device PAN, its expiry, amount, currency, cryptogram and ECI come out', () => {
    const { paymentData, transactionId } = build(1250, { payment: { amount: 1250, pan: '5590337536718399', expiration: '291130', currencyCode: '840', cryptogram: 'Af9x/QwAA/DjmU65oyc1MAABAAA=', eciIndicator: '5' } });
    const d = open(JSON.parse(JSON.stringify(paymentData)));
    expect(d).toMatchObject({ transactionId, pan: '5590337536718399', expirationYear: 2029, expirationMonth: 11, currencyCode: '840', transactionAmount: 1250, cryptogram: 'Af9x/QwAA/DjmU65oyc1MAABAAA=', eciIndicator: '05' });
    expect(Math.abs(d.signingTime.getTime() - NOW.getTime())).toBeLessThan(1000);
  });

  it('the right certificate is picked by header.publicKeyHash among several', () => {
    const other = apple.merchantCertificate('merchant.com.example.other');
    const otherKey = { certificate: pemCertificates(other.certificate)[0], privateKey: privateKeyOf(other.privateKey) };
    expect(open(build().paymentData, { merchantKeys: [otherKey, key] }).transactionAmount).toBe(1250);
    expect(publicKeyHashOf(key.certificate)).toBe(build().paymentData.header.publicKeyHash);
  });

  it('the gateway\'s sandbox wallet seals tokens the same way (both sides agree)', () => {
    const roots = generateAppleRoots(NOW);
    const m = generateAppleMerchantCertificate({ merchantIdentifier: 'merchant.sandbox', issuerKey: privateKeyOf(roots.rootKey), issuerName: 'x', now: NOW });
    const pd = sealApplePayToken({ leafCertificate: roots.leafCertificate, leafKey: privateKeyOf(roots.leafKey), intermediateCertificate: roots.intermediateCertificate, merchantCertificate: m.certificate, payment: { pan: '4548812049400004', expiration: '301231', currencyCode: '978', amount: 99, cryptogram: 'c3J5cHRvZ3JhbQ==' }, transactionId: 'aabbcc', signingTime: NOW });
    const mk = { certificate: pemCertificates(m.certificate)[0], privateKey: privateKeyOf(m.privateKey) };
    expect(open(pd, { roots: pemCertificates(roots.rootCertificate), merchantKeys: [mk] }).transactionAmount).toBe(99);
    expect(refused(() => open(pd, { merchantKeys: [mk] }))).toMatch(/not issued by a trusted Apple root/);
  });
});

describe('Apple Pay EC_v1 tokens that are refused', () => {
  it('tampered data, ephemeral key, transaction id or signature', () => {
    const { paymentData: pd } = build();
    const flip = (s: string, at = 10) => s.slice(0, at) + (s[at] === 'A' ? 'B' : 'A') + s.slice(at + 1);
    expect(refused(() => open({ ...pd, data: flip(pd.data) }))).toMatch(/does not match the token \(tampered\)/);
    expect(refused(() => open({ ...pd, header: { ...pd.header, ephemeralPublicKey: flip(pd.header.ephemeralPublicKey, 40) } }))).toMatch(/tampered|not a public key|P-256/);
    expect(refused(() => open({ ...pd, header: { ...pd.header, transactionId: pd.header.transactionId.replace(/^./, (c: string) => (c === 'a' ? 'b' : 'a')) } }))).toMatch(/tampered/);
    const sig = Buffer.from(pd.signature, 'base64');
    sig[sig.length - 5] ^= 0x01; // inside the ECDSA signature value
    expect(refused(() => open({ ...pd, signature: sig.toString('base64') }))).toMatch(/does not verify|not a valid CMS/);
    expect(refused(() => open({ ...pd, signature: 'bm90IGNtcw==' }))).toMatch(/not a valid CMS signature/);
  });

  it('a wrong merchant: no certificate with the public key hash; a wrong private key for the right hash', () => {
    const other = apple.merchantCertificate('merchant.com.example.other');
    const otherKey = { certificate: pemCertificates(other.certificate)[0], privateKey: privateKeyOf(other.privateKey) };
    expect(refused(() => open(build().paymentData, { merchantKeys: [otherKey] }))).toMatch(/publicKeyHash names no payment processing certificate/);
    expect(refused(() => open(build().paymentData, { merchantKeys: [{ certificate: key.certificate, privateKey: otherKey.privateKey }] }))).toMatch(/does not decrypt/);
    // encrypted with another merchant identifier than the certificate's: the KDF differs
    expect(refused(() => open(build(1250, { merchantIdentifier: 'merchant.com.attacker' }).paymentData))).toMatch(/does not decrypt/);
  });

  it('an untrusted root; leaf or intermediate without Apple\'s OIDs', () => {
    const stranger = new TestApplePay();
    expect(refused(() => open(build(1250, {}, stranger).paymentData))).toMatch(/not issued by a trusted Apple root/);
    const noLeafOid = new TestApplePay({ leafOid: false });
    expect(refused(() => open(build(1250, {}, noLeafOid).paymentData, { roots: [noLeafOid.rootDer] }))).toMatch(/1\.2\.840\.113635\.100\.6\.29/);
    const noIntermediateOid = new TestApplePay({ intermediateOid: false });
    expect(refused(() => open(build(1250, {}, noIntermediateOid).paymentData, { roots: [noIntermediateOid.rootDer] }))).toMatch(/1\.2\.840\.113635\.100\.6\.2\.14/);
  });

  it('a signature older than the window (a replay of an old token), or from the future, or by expired certificates', () => {
    expect(refused(() => open(build(1250, { signingTime: new Date(NOW.getTime() - WINDOW - 2000) }).paymentData))).toMatch(/expired \(signed too long ago\)/);
    expect(refused(() => open(build(1250, { signingTime: new Date(NOW.getTime() + 10 * 60_000) }).paymentData))).toMatch(/in the future/);
    const old = new TestApplePay({ validFrom: new Date(NOW.getTime() - 3 * 86400_000), validTo: new Date(NOW.getTime() - 86400_000) });
    expect(refused(() => open(build(1250, {}, old).paymentData, { roots: [old.rootDer] }))).toMatch(/not valid at the signing time/);
  });

  it('other versions and malformed tokens', () => {
    const { paymentData: pd } = build();
    expect(refused(() => open({ ...pd, version: 'RSA_v1' }))).toMatch(/EC_v1 only/);
    expect(refused(() => open({ ...pd, header: undefined }))).toMatch(/header is missing/);
    expect(refused(() => open({ ...pd, data: '***' }))).toMatch(/not base64/);
    expect(refused(() => open({ ...pd, header: { ...pd.header, transactionId: 'zz' } }))).toMatch(/not hexadecimal/);
  });
});

describe('the payload of B14', () => {
  it('takes the paymentData, the PKPaymentToken holding it, base64, or a string', () => {
    const { paymentData: pd } = build();
    expect(tokenOfPayload('APPLE_PAY', pd)).toEqual({ ok: pd });
    expect(tokenOfPayload('APPLE_PAY', { paymentData: pd, paymentMethod: { network: 'Visa' }, transactionIdentifier: 'X' })).toEqual({ ok: pd });
    expect(tokenOfPayload('APPLE_PAY', { token: { paymentData: pd } })).toEqual({ ok: pd });
    expect(tokenOfPayload('APPLE_PAY', JSON.stringify(pd))).toEqual({ ok: pd });
    expect(tokenOfPayload('APPLE_PAY', Buffer.from(JSON.stringify(pd)).toString('base64'))).toEqual({ ok: pd });
    expect(tokenOfPayload('APPLE_PAY', { version: 'EC_v1' })).toHaveProperty('error');
  });
});
