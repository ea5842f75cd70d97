/**
 * The Credorax mapping held to the published descriptions of the Source payment gateway (spec.ts):
 * every request the mapping builds, for each scenario, is one the reference allows (SpecChecker.request);
 * the signature `K` is the one Credorax's own SDK and ActiveMerchant compute (values in the order of
 * their names, characters replaced, the key appended, hashed); the answers ActiveMerchant's tests document
 * (re-typed from its fixtures) are answers the reference allows and read as they should; and the
 * terminal's credentials, named as the contract names them, open as the connector needs them.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SpecChecker } from '../../src/processors/kit/spec.js';
import { CREDORAX_SPEC, OPERATION_IDS } from '../../src/processors/credorax/spec.js';
import {
  answerVerifies, completionParams, creqOf, factsOf, followUpParams, mismatch, parseAnswer, paymentParams, requestIdOf, resultOf, retrievalParams, signatureOf, signed, signingOrder, threedsOf,
} from '../../src/processors/credorax/mapping.js';
import { credoraxTerminalOf, credoraxTerminalProblems, merchantById, merchantForCard } from '../../src/processors/credorax/credentials.js';
import { refusalOf } from '../../src/processors/credorax/codes.js';
import { simulator } from '../../src/processors/credorax/simulator/index.js';
import { secret } from '../../src/platform/security/secret.js';
import type { PaymentRequest } from '../../src/processors/connector.js';

const spec = new SpecChecker(CREDORAX_SPEC);
const CREDENTIALS = {
  merchant_id: 'SHOP0001', signing_api_key: 'k3y-0f-the-shop', sub_merchant_id: 'SUB-7',
  merchant_id_amex: 'SHOPAMEX', signing_api_key_amex: 'amex-k3y', target_mid_amex: '9876543210', sub_merchant_phone_amex: '+34 910 000 000',
};
const terminal = credoraxTerminalOf(CREDENTIALS);
const base: Parameters<typeof paymentParams>[0] = {
  reference: '6f1c1c4e-0d0e-4d1a-9b55-0c7e3f3c2a10',
  amount: 1250,
  currency: 'EUR',
  card: { pan: secret('4018810000100036'), expiryMonth: 3, expiryYear: 2031, cvv: secret('123'), holder: 'Ana María Pérez' },
  channel: 'ECOMMERCE',
  threeds: null,
  dynamicDescriptor: null,
  customerIp: '203.0.113.7',
  now: new Date('2026-12-07T08:00:00Z'),
};
const browser = { acceptHeader: 'text/html', userAgent: 'Mozilla/5.0', javaEnabled: false, javascriptEnabled: true, language: 'es-ES', colorDepth: 24, screenHeight: 900, screenWidth: 1440, tz: -60 };
const sign = (p: Record<string, string>) => signed(p, terminal.main.signingKey);
const opOf = (p: Record<string, string>) => OPERATION_IDS[p.O];

describe('Credorax requests against the reference', () => {
  const m = terminal.main;
  const scenarios: Array<[string, Record<string, string>]> = [
    ['a sale', paymentParams(base, m, { kind: 'payment' })],
    ['a pre-authorization', paymentParams(base, m, { kind: 'preauth' })],
    ['a partial approval asked', paymentParams(base, m, { kind: 'payment', partial: true })],
    ['a card verification', paymentParams(base, m, { kind: 'verify' })],
    ['a MoTo payment', paymentParams({ ...base, channel: 'MOTO' }, m, { kind: 'payment' })],
    ['a payment that stores the card', paymentParams({ ...base, storeCredential: true }, m, { kind: 'payment' })],
    ['a subscription charge', paymentParams({ ...base, channel: 'MIT', mit: 'RECURRING' }, m, { kind: 'payment', previous: '483297105618472' })],
    ['a batch line', paymentParams({ ...base, channel: 'MIT', mit: 'UNSCHEDULED' }, m, { kind: 'payment', previous: '483297105618472' })],
    ['external 3-D Secure', paymentParams({ ...base, threeds: { version: '2.2.0', transStatus: 'Y', eci: '05', cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', dsTransId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' } }, m, { kind: 'payment' })],
    ['3-D Secure through Credorax', paymentParams(base, m, { kind: 'payment', initiate: { redirectUrl: 'https://pay.example.com/v1/payment/tokenized/abc/cres', browser } })],
    ['an American Express payment', paymentParams({ ...base, card: { ...base.card, pan: secret('378282246310005') } }, merchantForCard(terminal, '378282246310005'), { kind: 'payment' })],
    ['a capture', followUpParams('capture', { reference: 'a0000000-0000-4000-8000-000000000001', amount: 700, currency: 'EUR' }, m, { responseId: '8a829449535154bc0153595952a2517a', authCode: '006597', requestId: '90f7449d555f7bed0a2c5d780475f0bf' })],
    ['a void', followUpParams('void', { reference: 'a0000000-0000-4000-8000-000000000002', amount: 1250, currency: 'EUR' }, m, { responseId: '8a829449535154bc0153595952a2517a', authCode: '006597', requestId: '90f7449d555f7bed0a2c5d780475f0bf' })],
    ['a refund', followUpParams('refund', { reference: 'a0000000-0000-4000-8000-000000000003', amount: 300, currency: 'EUR' }, m, { responseId: '8a82944a5351570601535955efeb513c', authCode: null, requestId: '02617cf5f02ccaed239b6521748298c5' })],
    ['a 3-D Secure completion', completionParams(m, base.reference, '8a82944a5351570601535955efeb513c', 'a2b5c0c4-4b61-4f0e-9d6a-6d4f3c2b1a09')],
    ['a retrieval', retrievalParams(m, requestIdOf(base.reference), '1')],
  ];
  it.each(scenarios)('%s is a request the reference allows, signed', (_name, p) => {
    const s = sign(p);
    expect(spec.request(opOf(s), s)).toEqual([]);
    expect(s.K).toMatch(/^[0-9a-f]{64}$/);
  });

  it('says what each scenario must: operation codes, stored-credential indicators, amounts', () => {
    const byName = Object.fromEntries(scenarios);
    expect(byName['a sale']).toMatchObject({ M: 'SHOP0001', O: '1', a1: '6f1c1c4e0d0e4d1a9b550c7e3f3c2a10', a4: '1250', a5: 'EUR', b3: '03', b4: '31', b5: '123', h3: 'SUB-7', d1: '203.0.113.7' });
    expect(byName['a pre-authorization'].O).toBe('2');
    expect(byName['a partial approval asked'].a14).toBe('1');
    expect(byName['a card verification']).toMatchObject({ O: '2', a4: '0', a9: '5' });
    expect(byName['a MoTo payment'].a2).toBe('3');
    expect(byName['a payment that stores the card'].a9).toBe('9');
    expect(byName['a subscription charge']).toMatchObject({ a9: '2', g6: '483297105618472' });
    expect(byName['a batch line']).toMatchObject({ a9: '8', g6: '483297105618472' });
    expect(byName['a sale'].a9).toBeUndefined();
    // free text is sent as plain ASCII (every value is signed)
    expect(byName['a sale'].c1).toBe('Ana Maria Perez');
    expect(byName['external 3-D Secure']).toMatchObject({ i8: '05:AAABBEg0VhI0VniQEjRWAAAAAAA=:none', '3ds_version': '2.2.0', '3ds_dstrxid': 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' });
    expect(byName['3-D Secure through Credorax']).toMatchObject({ '3ds_initiate': '01', '3ds_channel': '02', '3ds_purchasedate': '20261207080000', d6: 'es-ES', '3ds_browsertz': '-60' });
    expect(byName['an American Express payment']).toMatchObject({ M: 'SHOPAMEX', r2: '9876543210', h8: '+34 910 000 000', h3: 'SUB-7' });
    expect(byName['a capture']).toMatchObject({ O: '3', a4: '700', a5: 'EUR', g2: '8a829449535154bc0153595952a2517a', g3: '006597', g4: '90f7449d555f7bed0a2c5d780475f0bf' });
    expect(byName['a void'].O).toBe('4');
    expect(byName['a void'].a5).toBeUndefined();
    expect(byName['a refund']).toMatchObject({ O: '5', a4: '300' });
    expect(byName['a refund'].g3).toBeUndefined();
    expect(byName['a retrieval']).toMatchObject({ O: '101', g4: '6f1c1c4e0d0e4d1a9b550c7e3f3c2a10' });
  });

  it('refuses what the reference does not allow (an unknown parameter, a bad expiry, a missing request id)', () => {
    const p = paymentParams(base, terminal.main, { kind: 'payment' });
    expect(spec.request('sale', sign({ ...p, zz: '1' })).join()).toMatch(/zz/);
    expect(spec.request('sale', sign({ ...p, b3: '13' }))).not.toEqual([]);
    const { a1: _a1, ...noId } = p;
    expect(spec.request('sale', sign(noId)).join()).toMatch(/a1/);
  });
});

describe('the signature (K)', () => {
  it('orders names digits first, then upper case, then lower case, character by character', () => {
    expect(signingOrder(['a4', 'b1', 'M', '3ds_version', 'a1', 'c2', 'c10', 'O', 'K'])).toEqual(['3ds_version', 'K', 'M', 'O', 'a1', 'a4', 'b1', 'c10', 'c2']);
  });

  it("is the hash of the values in that order, <>\"'()\\ replaced by spaces and trimmed, with the key appended (Credorax's SDK, ActiveMerchant)", () => {
    const p = { b1: '4111111111111111', a4: '100', M: 'SPREE978', O: '1', c1: " O'Brien (Jr) ", a1: 'abc' };
    const text = ['SPREE978', '1', 'abc', '100', '4111111111111111', 'O Brien  Jr'].join('') + 'secret';
    expect(signatureOf(p, 'secret')).toBe(createHash('sha256').update(text).digest('hex'));
    expect(signatureOf(p, 'secret', 'md5')).toBe(createHash('md5').update(text).digest('hex'));
    // K itself never enters it
    expect(signatureOf({ ...p, K: 'whatever' }, 'secret')).toBe(signatureOf(p, 'secret'));
  });

  it('an answer verifies with its key only, and not once a value changed', () => {
    const answer = signed({ M: 'SHOP0001', O: '1', a1: 'abc', z1: 'x1', z2: '0', z4: '006596' }, 'k3y');
    expect(answerVerifies(answer, 'k3y')).toBe(true);
    expect(answerVerifies(answer, 'other')).toBe(false);
    expect(answerVerifies({ ...answer, z2: '05' }, 'k3y')).toBe(false);
    const { K: _k, ...unsigned } = answer;
    expect(answerVerifies(unsigned, 'k3y')).toBe(false);
  });
});

// ActiveMerchant's documented answers (test/unit/gateways/credorax_test.rb), re-typed
const SUCCESSFUL_PURCHASE = 'M=SPREE978&O=1&T=03%2F09%2F2016+03%3A05%3A16&V=413&a1=02617cf5f02ccaed239b6521748298c5&a2=2&a4=100&a9=6&z1=8a82944a5351570601535955efeb513c&z13=606944188282&z14=U&z15=100&z2=0&z3=Transaction+has+been+executed+successfully.&z4=006596&z5=0&z6=00&z9=X&K=057e123af2fba5a37b4df76a7cb5cfb6';
const FAILED_PURCHASE = 'M=SPREE978&O=1&T=03%2F09%2F2016+03%3A05%3A47&V=413&a1=92176aca194ceafdb4a679389b77f207&a2=2&a4=100&a9=6&z1=8a82944a535157060153595668fd5162&z13=606944188283&z15=100&z2=05&z3=Transaction+has+been+declined.&z5=0&z6=57&K=2d44820a5a907ff820f928696e460ce1';
const SUCCESSFUL_CAPTURE = 'M=SPREE978&O=3&T=03%2F09%2F2016+03%3A09%3A03&V=413&a1=2a349969e0ed61fb0db59fc9f32d2fb3&a2=2&a4=100&g2=8a829449535154bc0153595952a2517a&g3=006597&g4=90f7449d555f7bed0a2c5d780475f0bf&z1=8a82944a535157060153595966ba51f9&z13=606944188284&z15=100&z2=0&z3=Transaction+has+been+executed+successfully.&z4=006597&z5=0&z6=00&K=4ad979199490a8d000302735220edfa6';
const FAILED_CAPTURE = 'M=SPREE978&O=3&T=03%2F09%2F2016+03%3A10%3A33&V=413&a1=eed7c896e1355dc4007c0c8df44d5852&a2=2&a4=100&a5=EUR&b1=-&z1=1A-1&z2=-9&z3=2.+At+least+one+of+input+parameters+is+malformed.%3A+Parameter+%5Bg4%5D+cannot+be+empty.&K=8d1d8f2f9feeb7909aa3e6c428903d57';
const SUCCESSFUL_VOID = 'M=SPREE978&O=4&T=03%2F09%2F2016+03%3A11%3A11&V=413&a1=&a2=2&a4=100&g2=8a82944a535157060153595b484a524d&g3=006598&g4=0d600bf50198059dbe61979f8c28aab2&z1=8a829449535154bc0153595b57c351d2&z13=606944188287&z15=100&z2=0&z3=Transaction+has+been+executed+successfully.&z4=006598&z5=0&z6=00&K=e643b9e88b35fd69d5421b59c611a6c9';

describe("Credorax's documented answers", () => {
  it.each([['a sale approved', SUCCESSFUL_PURCHASE], ['a sale declined', FAILED_PURCHASE], ['a capture', SUCCESSFUL_CAPTURE], ['a refused capture', FAILED_CAPTURE]])('%s is an answer the reference allows', (_n, text) => {
    const p = parseAnswer(text)!;
    expect(spec.response(OPERATION_IDS[p.O], 200, p)).toEqual([]);
  });

  it('an approval: the response id, the authorization code, the approved amount', () => {
    const f = factsOf(parseAnswer(SUCCESSFUL_PURCHASE)!);
    expect(mismatch(f, { requestId: '02617cf5f02ccaed239b6521748298c5', amount: 100 })).toBeNull();
    expect(resultOf(f, { amount: 100 }).result).toEqual({ outcome: 'APPROVED', authorization: '006596', processorId: '8a82944a5351570601535955efeb513c', amount: 100, cofTxnid: null });
    expect(resultOf(factsOf(parseAnswer(SUCCESSFUL_CAPTURE)!), { amount: 100 }).result).toMatchObject({ outcome: 'APPROVED', processorId: '8a82944a535157060153595966ba51f9' });
  });

  it("a decline: the issuer's code becomes the error, Credorax's words the details", () => {
    const r = resultOf(factsOf(parseAnswer(FAILED_PURCHASE)!), { amount: 100 }).result;
    expect(r).toMatchObject({ outcome: 'DECLINED', error: 'DENIED', processorId: '8a82944a535157060153595668fd5162' });
    expect((r as { details: string }).details).toBe('Credorax 57 (z2 05): Transaction has been declined.');
    expect(resultOf(factsOf(parseAnswer(FAILED_CAPTURE)!), { amount: 100 }).result).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR' });
  });

  it('an answer about another request, or another amount, is not the operation\'s; an empty request id is none', () => {
    const f = factsOf(parseAnswer(SUCCESSFUL_PURCHASE)!);
    expect(mismatch(f, { requestId: 'ffffffffffffffffffffffffffffffff', amount: 100 })).toMatch(/another request/);
    expect(mismatch(f, { requestId: '02617cf5f02ccaed239b6521748298c5', amount: 250 })).toMatch(/another amount/);
    expect(factsOf(parseAnswer(SUCCESSFUL_VOID)!).requestId).toBeNull();
  });

  it('an approval above the amount, or below it without a partial approval asked, is not believed', () => {
    const f = factsOf(parseAnswer(SUCCESSFUL_PURCHASE)!);
    expect(resultOf({ ...f, approvedAmount: 60 }, { amount: 100 }).result.outcome).toBe('UNKNOWN');
    expect(resultOf({ ...f, approvedAmount: 60 }, { amount: 100, partial: true }).result).toMatchObject({ outcome: 'APPROVED', amount: 60 });
    expect(resultOf({ ...f, approvedAmount: 160 }, { amount: 100, partial: true }).result.outcome).toBe('UNKNOWN');
  });

  it('what is not a form answer is none', () => {
    expect(parseAnswer('')).toBeNull();
    expect(parseAnswer('<html>error</html>')).toBeNull();
    expect(parseAnswer('{"z2":"0"}')).toBeNull();
  });
});

describe('3-D Secure answers', () => {
  const challenge = 'M=SHOP0001&O=1&a1=6f1c1c4e0d0e4d1a9b550c7e3f3c2a10&a4=1250&z1=9c1d5e&z2=7&3ds_status=C&3ds_acsurl=https%3A%2F%2Facs.example.com%2Fchallenge&3ds_trxid=a2b5c0c4-4b61-4f0e-9d6a-6d4f3c2b1a09&3ds_acstrxid=0f3a1c9e-2d4b-4c6a-8e1f-7a9b3c5d7e9f&3ds_version=2.2.0';
  it('a challenge (3ds_status C with the ACS URL): where the browser goes and the EMV CReq it posts', () => {
    const f = factsOf(parseAnswer(challenge)!);
    const r = resultOf(f, { amount: 1250 });
    expect(r.result.outcome).toBe('CHALLENGE');
    expect(r.challenge).toEqual({ acsUrl: 'https://acs.example.com/challenge', trxid: 'a2b5c0c4-4b61-4f0e-9d6a-6d4f3c2b1a09', acsTransId: '0f3a1c9e-2d4b-4c6a-8e1f-7a9b3c5d7e9f', responseId: '9c1d5e' });
    expect(JSON.parse(Buffer.from(creqOf(r.challenge!), 'base64url').toString())).toEqual({ threeDSServerTransID: 'a2b5c0c4-4b61-4f0e-9d6a-6d4f3c2b1a09', acsTransID: '0f3a1c9e-2d4b-4c6a-8e1f-7a9b3c5d7e9f', messageType: 'CReq', messageVersion: '2.2.0', challengeWindowSize: '05' });
    expect(spec.response('sale', 200, { ...parseAnswer(challenge)!, K: 'a'.repeat(64) })).toEqual([]);
  });

  it("the issuer's soft decline (1A) asks for authentication; a frictionless approval carries its result", () => {
    expect(resultOf(factsOf({ a1: 'x', z1: 'r', z2: '05', z6: '1A' }), { amount: 1 }).result.outcome).toBe('CHALLENGE');
    const f = factsOf({ a1: 'x', z1: 'r', z2: '0', z4: '123456', '3ds_status': 'Y', '3ds_eci': '05', '3ds_cavv': 'AAAB', '3ds_version': '2.2.0', '3ds_dstrxid': 'ds-1' });
    expect(threedsOf(f)).toEqual({ version: '2.2.0', transStatus: 'Y', eci: '05', cavv: 'AAAB', dsTransId: 'ds-1' });
    expect(resultOf(factsOf({ a1: 'x', z1: 'r', z2: '-38', z3: 'The transaction has been denied by the Gateway because 3D secure Authentication failed.' }), { amount: 1 }).result).toMatchObject({ outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED' });
  });
});

describe('answer codes', () => {
  it.each([
    ['05', '51', 'INSUFFICIENT_FUNDS'], ['05', '54', 'EXPIRED_CARD'], ['05', '14', 'INVALID_CARD'], ['05', '43', 'BLACKLISTED'], ['05', '41', 'BLACKLISTED'],
    ['05', '59', 'FRAUD_SUSPECTED'], ['05', '05', 'DENIED'], ['05', '91', 'PROCESSOR_ERROR'], ['05', 'ZZ', 'DENIED'], ['-9', null, 'PROCESSOR_ERROR'], ['-38', null, 'AUTHENTICATION_FAILED'],
    ['2', null, 'FRAUD_SUSPECTED'], ['9', null, 'INVALID_CARD'], ['4', null, 'PROCESSOR_ERROR'], ['5', null, 'DENIED'],
  ])('z2 %s z6 %s is %s', (z2, z6, error) => {
    expect(refusalOf(z2, z6, null).error).toBe(error);
  });
});

describe('the terminal', () => {
  it('the contract\'s credential names open as the connector needs them; Amex cards go through the Amex merchant', () => {
    expect(credoraxTerminalProblems(CREDENTIALS)).toEqual([]);
    expect(terminal.main).toEqual({ merchantId: 'SHOP0001', signingKey: 'k3y-0f-the-shop', subMerchantId: 'SUB-7', targetMid: null, subMerchantPhone: null });
    expect(merchantForCard(terminal, '378282246310005').merchantId).toBe('SHOPAMEX');
    expect(merchantForCard(terminal, '4018810000100036').merchantId).toBe('SHOP0001');
    expect(merchantById(terminal, 'SHOPAMEX')?.targetMid).toBe('9876543210');
    expect(merchantById(terminal, 'OTHER')).toBeNull();
    // without the Amex merchant, Amex cards go through the main one
    expect(merchantForCard(credoraxTerminalOf({ merchant_id: 'SHOP0001', signing_api_key: 'k' }), '378282246310005').merchantId).toBe('SHOP0001');
    expect(credoraxTerminalProblems(simulator.harness.terminal.credentials)).toEqual([]);
  });

  it("the going-live page's example terminal is usable as written", () => {
    const page = fs.readFileSync(new URL('../../docs/going-live-credorax.md', import.meta.url), 'utf8');
    const example = JSON.parse(/```json\n(\{\n  "type": "CREDORAX"[\s\S]*?)```/.exec(page)![1]) as { credentials: Record<string, string> };
    expect(Object.keys(example.credentials).sort()).toEqual(['merchant_id', 'merchant_id_amex', 'signing_api_key', 'signing_api_key_amex', 'sub_merchant_id', 'sub_merchant_phone_amex', 'target_mid_amex']);
    expect(credoraxTerminalProblems(example.credentials)).toEqual([]);
    expect(credoraxTerminalOf(example.credentials).amex?.merchantId).toBe('SHOPAMEX');
  });

  it('what is wrong is said in words an operator can act on', () => {
    expect(credoraxTerminalProblems({ merchant_id: 'SHOP 1', signing_api_key: 'k' }).join()).toMatch(/merchant_id/);
    expect(credoraxTerminalProblems({ merchant_id: 'SHOP1', signing_api_key: 'k', merchant_id_amex: 'AMEX1' }).join()).toMatch(/go together/);
    expect(credoraxTerminalProblems({ merchant_id: 'SHOP1', signing_api_key: 'k', target_mid_amex: '1' }).join()).toMatch(/need credentials.merchant_id_amex/);
    expect(() => credoraxTerminalOf({ merchant_id: 'SHOP1' })).toThrow(/missing: signing_api_key/);
  });
});
