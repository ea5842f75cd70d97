/**
 * Google Pay ECv2: tokens built by the test wallet (test/helpers/wallets.ts, written from Google's
 * specification apart from the gateway's code) open; every part that is tampered with, a wrong key or
 * recipient, an untrusted root, an expired intermediate key and an expired message are refused.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openGooglePayToken, type GoogleRootKey } from '../../src/modules/wallets/googlepay.js';
import { generateGoogleMerchantKey, generateGoogleRoot, privateKeyOf, sealGooglePayToken } from '../../src/modules/wallets/sandbox-wallet.js';
import { WalletTokenError, tokenOfPayload } from '../../src/modules/wallets/wallets.domain.js';
import { useTestSeed } from '../helpers/seed.js';
import { TestGooglePay } from '../helpers/wallets.js';

useTestSeed(import.meta.url);

const NOW = new Date('2026-05-04T10:00:00Z');
const RECIPIENT = 'merchant:12345678901234567890';
const google = new TestGooglePay();
const roots: GoogleRootKey[] = JSON.parse(google.keysJson(NOW.getTime() + 86400_000 * 365)).keys;
const merchant = generateGoogleMerchantKey();
const merchantKey: KeyObject = privateKeyOf(merchant.privateKey);

const open = (token: unknown, o: Partial<Parameters<typeof openGooglePayToken>[1]> = {}) =>
  openGooglePayToken(token, { rootKeys: roots, recipientIds: [RECIPIENT], privateKeys: [merchantKey], now: NOW, ...o });

function refused(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WalletTokenError);
    return (err as WalletTokenError).reason;
  }
  throw new Error('the token was accepted');
}

const build = (message: Parameters<TestGooglePay['token']>[0]['message'] = {}, opts: Parameters<TestGooglePay['token']>[1] = {}) =>
  google.token({ recipientId: RECIPIENT, merchantPublicKey: merchant.publicKey, now: NOW, message }, opts);

describe('Google Pay ECv2 tokens that open', () => {
  it('CRYPTOGRAM_3DS: the card, the cryptogram and the ECI come out; the ids and expiry are kept', () => {
    const { token, messageId } = build({ pan: '5590337536718399', expirationMonth: 3, expirationYear: 2029, cryptogram: 'AAAAAAAACRYPTOGRAMxx', eciIndicator: '5' });
    const d = open(JSON.parse(JSON.stringify(token)));
    expect(d).toMatchObject({ messageId, authMethod: 'CRYPTOGRAM_3DS', pan: '5590337536718399', expirationMonth: 3, expirationYear: 2029, cryptogram: 'AAAAAAAACRYPTOGRAMxx', eciIndicator: '05', gatewayMerchantId: null });
    expect(d.messageExpiration.getTime()).toBe(NOW.getTime() + 3600_000);
  });

  it('PAN_ONLY: the card without a cryptogram', () => {
    const d = open(build({ authMethod: 'PAN_ONLY' }).token);
    expect(d.authMethod).toBe('PAN_ONLY');
    expect(d.cryptogram).toBeNull();
    expect(d.pan).toBe('4548812049400004');
  });

  it('any of the merchant\'s keys decrypts (rotation), with gatewayMerchantId kept', () => {
    const other = privateKeyOf(generateGoogleMerchantKey().privateKey);
    const d = open(build({ gatewayMerchantId: 'm-1' }).token, { privateKeys: [other, merchantKey] });
    expect(d.gatewayMerchantId).toBe('m-1');
  });

  it('the sandbox wallet of the gateway seals tokens the same way (both sides agree)', () => {
    const root = generateGoogleRoot(NOW);
    const token = sealGooglePayToken({ rootPrivateKey: privateKeyOf(root.privateKey), recipientId: RECIPIENT, merchantPublicKey: merchant.publicKey, now: NOW, message: { messageId: 'x1', messageExpiration: new Date(NOW.getTime() + 60_000), pan: '4761739000091011', expirationMonth: 1, expirationYear: 2030, authMethod: 'PAN_ONLY' } });
    expect(open(token, { rootKeys: [root.root] }).pan).toBe('4761739000091011');
    // and its roots are not the test wallet's
    expect(refused(() => open(token))).toMatch(/not signed by a trusted Google root/);
  });
});

describe('Google Pay ECv2 tokens that are refused', () => {
  it('a tampered message signature, signed message, signed key or key signature', () => {
    const { token } = build();
    const flip = (s: string) => s.slice(0, 20) + (s[20] === 'A' ? 'B' : 'A') + s.slice(21);
    expect(refused(() => open({ ...token, signature: flip(token.signature) }))).toMatch(/signature of the message does not verify/);
    const sm = JSON.parse(token.signedMessage);
    expect(refused(() => open({ ...token, signedMessage: JSON.stringify({ ...sm, encryptedMessage: flip(sm.encryptedMessage) }) }))).toMatch(/signature of the message does not verify/);
    expect(refused(() => open({ ...token, intermediateSigningKey: { ...token.intermediateSigningKey, signedKey: token.intermediateSigningKey.signedKey.replace(/"keyExpiration":"\d/, '"keyExpiration":"9') } }))).toMatch(/not signed by a trusted Google root/);
    expect(refused(() => open({ ...token, intermediateSigningKey: { ...token.intermediateSigningKey, signatures: [flip(token.intermediateSigningKey.signatures[0])] } }))).toMatch(/not signed by a trusted Google root/);
  });

  it('a MAC tag that does not match (under a valid signature) is refused before decryption', () => {
    expect(refused(() => open(build({}, { corruptTag: true }).token))).toMatch(/does not decrypt/);
  });

  it('another recipient, a wrong merchant key, an untrusted root', () => {
    const { token } = build();
    expect(refused(() => open(token, { recipientIds: ['merchant:999'] }))).toMatch(/another recipient/);
    expect(refused(() => open(token, { privateKeys: [privateKeyOf(generateGoogleMerchantKey().privateKey)] }))).toMatch(/does not decrypt with the merchant's Google Pay keys/);
    const stranger = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    expect(refused(() => open(build({}, { rootKey: stranger.privateKey }).token))).toMatch(/not signed by a trusted Google root/);
    // a root past its own keyExpiration is not trusted
    expect(refused(() => open(token, { rootKeys: [{ ...roots[0], keyExpiration: String(NOW.getTime() - 1) }] }))).toMatch(/no Google Pay root signing key is trusted/);
  });

  it('an expired intermediate signing key, an expired message', () => {
    expect(refused(() => open(build({}, { intermediateExpiration: new Date(NOW.getTime() - 1000) }).token))).toMatch(/intermediate signing key has expired/);
    expect(refused(() => open(build({ messageExpiration: new Date(NOW.getTime() - 1) }).token))).toMatch(/token has expired \(messageExpiration\)/);
    // valid now, expired an hour later
    const { token } = build();
    expect(() => open(token)).not.toThrow();
    expect(refused(() => open(token, { now: new Date(NOW.getTime() + 3600_000) }))).toMatch(/expired/);
  });

  it('an expiration past the last instant a date can hold is refused, not taken for the future', () => {
    // 9,999,999,999,999,999 ms has the 16 digits allowed but no Date holds it (the last is 8.64e15 ms)
    expect(refused(() => open(build({ messageExpirationText: '9999999999999999' }).token))).toMatch(/messageExpiration is out of range/);
    expect(refused(() => open(build({}, { intermediateExpirationText: '9999999999999999' }).token))).toMatch(/keyExpiration is out of range/);
    // the last instant a Date holds is still a time
    expect(() => open(build({ messageExpirationText: '8640000000000000' }).token)).not.toThrow();
  });

  it('other protocol versions and malformed tokens', () => {
    const { token } = build();
    expect(refused(() => open({ ...token, protocolVersion: 'ECv1' }))).toMatch(/ECv2 only/);
    expect(refused(() => open(null))).toMatch(/not a JSON object/);
    expect(refused(() => open({ ...token, signedMessage: undefined }))).toMatch(/signedMessage is missing/);
    expect(refused(() => open({ ...token, intermediateSigningKey: { signedKey: 'x', signatures: 'nope' } }))).toMatch(/signatures must be a list/);
  });

  it('any single changed character of any part makes the token refused, never a crash (property)', () => {
    const { token } = build();
    const parts = ['signature', 'signedMessage', 'signedKey', 'keySignature'] as const;
    fc.assert(fc.property(fc.constantFrom(...parts), fc.nat(), fc.integer({ min: 32, max: 126 }), (part, pos, code) => {
      const t = JSON.parse(JSON.stringify(token));
      const get = (): string => (part === 'signedKey' ? t.intermediateSigningKey.signedKey : part === 'keySignature' ? t.intermediateSigningKey.signatures[0] : t[part]);
      const s = get();
      const i = pos % s.length;
      const ch = String.fromCharCode(code);
      fc.pre(s[i] !== ch);
      const changed = s.slice(0, i) + ch + s.slice(i + 1);
      // base64 ignores the unused low bits of its last character: such a change leaves the same bytes
      const b64 = /^[A-Za-z0-9+/]*={0,2}$/;
      fc.pre(!(part.endsWith('ignature') && b64.test(changed) && Buffer.from(changed, 'base64').equals(Buffer.from(s, 'base64'))));
      if (part === 'signedKey') t.intermediateSigningKey.signedKey = changed;
      else if (part === 'keySignature') t.intermediateSigningKey.signatures[0] = changed;
      else t[part] = changed;
      try {
        open(t);
      } catch (err) {
        return err instanceof WalletTokenError;
      }
      return false;
    }), { numRuns: 200 });
  });
});

describe('the payload of B14', () => {
  it('takes the token as a string, base64, an object, or inside a whole PaymentData', () => {
    const { token } = build();
    const s = JSON.stringify(token);
    expect(tokenOfPayload('GOOGLE_PAY', s)).toEqual({ ok: token });
    expect(tokenOfPayload('GOOGLE_PAY', Buffer.from(s).toString('base64'))).toEqual({ ok: token });
    expect(tokenOfPayload('GOOGLE_PAY', token)).toEqual({ ok: token });
    expect(tokenOfPayload('GOOGLE_PAY', { apiVersion: 2, paymentMethodData: { type: 'CARD', tokenizationData: { type: 'PAYMENT_GATEWAY', token: s } } })).toEqual({ ok: token });
    expect(tokenOfPayload('GOOGLE_PAY', 'not json')).toHaveProperty('error');
    expect(tokenOfPayload('GOOGLE_PAY', '[1,2]')).toHaveProperty('error');
    expect(tokenOfPayload('GOOGLE_PAY', { hello: 1 })).toHaveProperty('error');
  });
});

describe('root keys from configuration', () => {
  it('reads Google\'s keys.json (inline or a file); a key that is not P-256 or a file that is not JSON stops the start', async () => {
    const { readGoogleRootKeys, WalletConfigError } = await import('../../src/modules/wallets/trust.js');
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    expect(readGoogleRootKeys('X', google.keysJson())).toHaveLength(1);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gp-')), 'keys.json');
    fs.writeFileSync(file, JSON.stringify({ keys: [...JSON.parse(google.keysJson()).keys, { keyValue: 'x', protocolVersion: 'ECv1' }].slice(0, 1) }));
    expect(readGoogleRootKeys('X', file)[0].protocolVersion).toBe('ECv2');
    expect(readGoogleRootKeys('X', null)).toEqual([]);
    expect(() => readGoogleRootKeys('X', '{"keys":[{"keyValue":"AAAA","protocolVersion":"ECv2"}]}')).toThrow(WalletConfigError);
    expect(() => readGoogleRootKeys('X', '{"nokeys":1}')).toThrow(/keys.json format/);
    expect(() => readGoogleRootKeys('X', '/nonexistent/keys.json')).toThrow(/cannot read/);
  });
});
