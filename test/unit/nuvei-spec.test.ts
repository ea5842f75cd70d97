/**
 * The Nuvei mapping against Nuvei's REST API 1.0 reference (spec.ts): the requests it builds pass the
 * reference's schemas and carry the checksum in the reference's field order; answers, transaction details
 * and DMNs read both ways; the DMN checksum checked against a vector published with Nuvei's own
 * integration (the SAP Commerce plugin's test: secret THE_SECRET_KEY, 115 USD, 2020-03-14.16:22:34,
 * 3453459, APPROVED, NA).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secret } from '../../src/platform/security/secret.js';
import type { PaymentRequest } from '../../src/processors/connector.js';
import { SpecChecker } from '../../src/processors/kit/spec.js';
import {
  checksumOf, detailsOf, dmnChecksum, followUpBody, fromAmount, initPaymentBody, paymentBody, readAnswer, resultOfDmn, sessionTokenBody, threeDOf, timeStampOf, toAmount, transactionDetailsBody, verifyDmn,
} from '../../src/processors/nuvei/mapping.js';
import { refusalOf } from '../../src/processors/nuvei/codes.js';
import { nuveiTerminalProblems } from '../../src/processors/nuvei/credentials.js';
import { NUVEI_SPEC } from '../../src/processors/nuvei/spec.js';

const spec = new SpecChecker(NUVEI_SPEC);
const merchant = { merchantId: '5081234567890123456', merchantSiteId: '208765', secretKey: 'secretKey0123456789abcdef' };
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const ts = '20261207101500';

function req(o: Partial<PaymentRequest> = {}): PaymentRequest {
  return {
    reference: '0b9a4c3e-1f2d-4e5a-8b7c-6d5e4f3a2b1c', terminal: { serviceType: 'NUVEI', terminalId: null }, now: new Date('2026-12-07T10:15:00Z'),
    amount: 1050, currency: 'EUR', channel: 'ECOMMERCE', customerIp: '203.0.113.9',
    card: { pan: new Secret('4000023104662535'), expiryMonth: 3, expiryYear: 2030, cvv: new Secret('123'), holder: 'Ana Pérez' }, ...o,
  };
}

describe('Nuvei mapping against the REST API 1.0 reference', () => {
  it('amounts are decimal strings in major units, both ways', () => {
    expect(toAmount(1050, 'EUR')).toBe('10.50');
    expect(toAmount(5, 'EUR')).toBe('0.05');
    expect(toAmount(1050, 'JPY')).toBe('1050');
    expect(fromAmount('10.50', 'EUR')).toBe(1050);
    expect(fromAmount('10.5', 'EUR')).toBe(1050);
    expect(fromAmount('10.501', 'EUR')).toBeNull();
    expect(fromAmount(10.5, 'EUR')).toBeNull();
    expect(timeStampOf(new Date('2026-12-07T10:15:00.123Z'))).toBe(ts);
  });

  it('getSessionToken: its checksum is SHA-256 of merchantId, merchantSiteId, clientRequestId, timeStamp and the secret key', () => {
    const b = sessionTokenBody(merchant, 'r-1', ts);
    expect(spec.request('getSessionToken', b)).toEqual([]);
    expect(b.checksum).toBe(sha(`${merchant.merchantId}${merchant.merchantSiteId}r-1${ts}${merchant.secretKey}`));
    expect(b).not.toHaveProperty('merchantSecretKey');
  });

  it('payment: a Sale with the card, our reference as clientUniqueId and the checksum over amount and currency', () => {
    const b = paymentBody(req(), { kind: 'payment', merchant, sessionToken: 'tok', clientRequestId: 'r-2', timeStamp: ts, notificationUrl: 'https://pay.example/v1/processor/nuvei/notification' });
    expect(spec.request('payment', b)).toEqual([]);
    expect(b).toMatchObject({ transactionType: 'Sale', amount: '10.50', currency: 'EUR', clientUniqueId: req().reference, paymentOption: { card: { cardNumber: '4000023104662535', expirationMonth: '03', expirationYear: '2030', CVV: '123', cardHolderName: 'Ana Pérez' } }, deviceDetails: { ipAddress: '203.0.113.9' }, urlDetails: { notificationUrl: 'https://pay.example/v1/processor/nuvei/notification' } });
    expect(b.checksum).toBe(sha(`${merchant.merchantId}${merchant.merchantSiteId}r-210.50EUR${ts}${merchant.secretKey}`));
    expect(b).not.toHaveProperty('isRebilling');
  });

  it('pre-authorization, verification, MoTo and stored credentials', () => {
    const o = { merchant, sessionToken: 'tok', clientRequestId: 'r-3', timeStamp: ts };
    const pre = paymentBody(req(), { ...o, kind: 'preauth' });
    expect(pre).toMatchObject({ transactionType: 'Auth', amount: '10.50' });
    const verify = paymentBody(req(), { ...o, kind: 'verify' });
    expect(verify).toMatchObject({ transactionType: 'Auth', amount: '0.00', isRebilling: 0, paymentOption: { card: { storedCredentials: { storedCredentialsMode: '0' } } } });
    const moto = paymentBody(req({ channel: 'MOTO' }), { ...o, kind: 'payment' });
    expect(moto).toMatchObject({ isMoto: '1' });
    const first = paymentBody(req({ storeCredential: true }), { ...o, kind: 'payment' });
    expect(first).toMatchObject({ isRebilling: 0, paymentOption: { card: { storedCredentials: { storedCredentialsMode: '0' } } } });
    const again = paymentBody(req({ storedCard: true }), { ...o, kind: 'payment' });
    expect(again).toMatchObject({ isRebilling: 0, paymentOption: { card: { storedCredentials: { storedCredentialsMode: '1' } } } });
    const recurring = paymentBody(req({ channel: 'MIT', mit: 'RECURRING', customerIp: null }), { ...o, kind: 'payment', initialTransactionId: '1110000001' });
    expect(recurring).toMatchObject({ isRebilling: 1, rebillingType: 'RECURRING', relatedTransactionId: '1110000001', paymentOption: { card: { storedCredentials: { storedCredentialsMode: '1' } } } });
    expect((recurring.paymentOption as { card: Record<string, unknown> }).card).not.toHaveProperty('CVV');
    const batch = paymentBody(req({ channel: 'MIT', mit: 'UNSCHEDULED' }), { ...o, kind: 'payment', initialTransactionId: '1110000001' });
    expect(batch).toMatchObject({ isRebilling: 1, relatedTransactionId: '1110000001' });
    expect(batch).not.toHaveProperty('rebillingType');
    expect(batch).not.toHaveProperty('deviceDetails');
    for (const b of [pre, verify, moto, first, again, recurring, batch]) expect(spec.request('payment', b)).toEqual([]);
  });

  it('3-D Secure 2: initPayment with the method notification URL, then the payment with the browser\'s data', () => {
    const init = initPaymentBody(req(), { merchant, sessionToken: 'tok', clientRequestId: 'r-4', timeStamp: ts, methodNotificationUrl: 'https://pay.example/method' });
    expect(spec.request('initPayment', init)).toEqual([]);
    expect(init.checksum).toBe(sha(`${merchant.merchantId}${merchant.merchantSiteId}r-410.50EUR${ts}${merchant.secretKey}`));
    expect(init).toMatchObject({ clientUniqueId: req().reference, paymentOption: { card: { threeD: { methodNotificationUrl: 'https://pay.example/method' } } } });
    const threeD = threeDOf({ acceptHeader: 'text/html', userAgent: 'UA', javaEnabled: false, javascriptEnabled: true, language: 'en-GB', colorDepth: 30, screenHeight: 900, screenWidth: 1440, tz: -60 }, { notificationURL: 'https://pay.example/cres', merchantURL: 'https://pay.example', methodCompleted: null, ip: '203.0.113.9' });
    const b = paymentBody(req(), { kind: 'payment', merchant, sessionToken: 'tok', clientRequestId: 'r-5', timeStamp: ts, threeD, relatedTransactionId: '1110000002' });
    expect(spec.request('payment', b)).toEqual([]);
    expect(b).toMatchObject({ relatedTransactionId: '1110000002', paymentOption: { card: { threeD: { methodCompletionInd: 'U', platformType: '02', browserDetails: { colorDepth: '24', javaScriptEnabled: 'TRUE', timeZone: '-60' } } } } });
  });

  it('settle, void and refund: the checksum over clientUniqueId, amount, currency and relatedTransactionId, in order', () => {
    const b = followUpBody({ merchant, clientRequestId: 'r-6', reference: 'ref-6', amount: 600, currency: 'EUR', relatedTransactionId: '1110000003', timeStamp: ts });
    for (const m of ['settleTransaction', 'voidTransaction', 'refundTransaction']) expect(spec.request(m, b)).toEqual([]);
    expect(b.checksum).toBe(sha(`${merchant.merchantId}${merchant.merchantSiteId}r-6ref-66.00EUR1110000003${ts}${merchant.secretKey}`));
    const d = transactionDetailsBody(merchant, 'ref-6', ts);
    expect(spec.request('getTransactionDetails', d)).toEqual([]);
    expect(d.checksum).toBe(checksumOf([merchant.merchantId, merchant.merchantSiteId, '', 'ref-6', ts], merchant.secretKey));
  });

  it('a field the reference does not define is a violation', () => {
    const b = { ...sessionTokenBody(merchant, 'r-7', ts), merchantSecretKey: merchant.secretKey };
    expect(spec.request('getSessionToken', b).join()).toMatch(/merchantSecretKey/);
  });

  it('answers: approved, declined with its reason, soft decline, pending, challenge; an answer for another request is not believed', () => {
    const x = { kind: 'payment' as const, amount: 1050, clientRequestId: 'r-8' };
    const base = { status: 'SUCCESS', clientRequestId: 'r-8', transactionId: '1110000004', errCode: 0, reason: '' };
    const approved = { ...base, transactionStatus: 'APPROVED', authCode: '123456', gwErrorCode: 0 };
    expect(spec.response('payment', 200, approved)).toEqual([]);
    expect(readAnswer(approved, x)).toMatchObject({ kind: 'result', result: { outcome: 'APPROVED', authorization: '123456', processorId: '1110000004', amount: 1050 } });
    const poor = { ...base, transactionStatus: 'DECLINED', gwErrorCode: -1, gwErrorReason: 'Insufficient Funds', gwExtendedErrorCode: 0 };
    expect(readAnswer(poor, x)).toMatchObject({ result: { outcome: 'DECLINED', error: 'INSUFFICIENT_FUNDS', details: 'Nuvei declined the transaction (-1): Insufficient Funds' } });
    expect(readAnswer({ ...poor, gwErrorReason: 'Do Not Honor' }, x)).toMatchObject({ result: { outcome: 'DECLINED', error: 'DENIED' } });
    expect(readAnswer({ ...poor, gwErrorReason: 'Authentication Required' }, x)).toMatchObject({ result: { outcome: 'CHALLENGE' } });
    expect(readAnswer({ ...poor, gwErrorReason: 'Authentication Required' }, { ...x, kind: 'refund' })).toMatchObject({ result: { outcome: 'DECLINED' } });
    expect(readAnswer({ ...base, transactionStatus: 'ERROR', gwErrorCode: -1100, gwErrorReason: 'Invalid amount' }, x)).toMatchObject({ result: { outcome: 'DECLINED', error: 'PROCESSOR_ERROR' } });
    expect(readAnswer({ ...base, transactionStatus: 'PENDING' }, { ...x, kind: 'refund' })).toMatchObject({ result: { outcome: 'PENDING', processorId: '1110000004' } });
    expect(readAnswer({ status: 'ERROR', errCode: 1001, reason: 'Invalid checksum', clientRequestId: 'r-8' }, x)).toMatchObject({ result: { outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'Nuvei refused the payment: Invalid checksum (errCode 1001)' } });
    const redirect = { ...base, transactionStatus: 'REDIRECT', paymentOption: { card: { threeD: { acsUrl: 'https://acs.example/c', cReq: 'eyJ9' } } } };
    expect(spec.response('payment', 200, redirect)).toEqual([]);
    expect(readAnswer(redirect, x)).toEqual({ kind: 'challenge', acsUrl: 'https://acs.example/c', creq: 'eyJ9', transactionId: '1110000004' });
    expect(readAnswer({ ...approved, clientRequestId: 'r-other' }, x)).toMatchObject({ result: { outcome: 'UNKNOWN' } });
  });

  it('transaction details by our reference: the transaction\'s state, none, or a transaction of another type', () => {
    const found = { status: 'SUCCESS', errCode: 0, transactionDetails: { transactionStatus: 'DECLINED', transactionType: 'Sale', transactionId: '1110000005', gwErrorCode: -1, gwErrorReason: 'Decline' } };
    expect(spec.response('getTransactionDetails', 200, found)).toEqual([]);
    expect(detailsOf(found, { kind: 'payment', amount: 1000 })).toMatchObject({ found: true, result: { outcome: 'DECLINED', error: 'DENIED', processorId: '1110000005' } });
    expect(detailsOf(found, { kind: 'refund', amount: 1000 })).toMatchObject({ found: 'unknown' });
    expect(detailsOf({ status: 'ERROR', errCode: 1140, reason: 'Transaction not found' }, { kind: 'payment', amount: 1000 })).toEqual({ found: 'none' });
    expect(detailsOf({ status: 'ERROR', errCode: 1000, reason: 'General Error' }, { kind: 'payment', amount: 1000 })).toMatchObject({ found: 'unknown' });
  });

  it('DMNs: advanceResponseChecksum as Nuvei computes it (the published vector), verified before use; what it covers decides', () => {
    const vector = { totalAmount: '115', currency: 'USD', responseTimeStamp: '2020-03-14.16:22:34', PPP_TransactionID: '3453459', Status: 'APPROVED', productId: 'NA' };
    expect(dmnChecksum(vector, 'THE_SECRET_KEY')).toBe('aaa9ad16c8ed9f172dff505e4eeb8929b9c77cfed3e38127d55d42e33a70c762');
    expect(verifyDmn({ ...vector, advanceResponseChecksum: 'aaa9ad16c8ed9f172dff505e4eeb8929b9c77cfed3e38127d55d42e33a70c762' }, 'THE_SECRET_KEY')).toBe(true);
    expect(verifyDmn({ ...vector, Status: 'DECLINED', advanceResponseChecksum: 'aaa9ad16c8ed9f172dff505e4eeb8929b9c77cfed3e38127d55d42e33a70c762' }, 'THE_SECRET_KEY')).toBe(false);
    expect(verifyDmn({ ...vector }, 'THE_SECRET_KEY')).toBe(false);
    const dmn = { ppp_status: 'OK', Status: 'APPROVED', totalAmount: '10.00', currency: 'EUR', responseTimeStamp: '2026-12-07.10:15:00', PPP_TransactionID: '8110000006', productId: '', TransactionID: '1110000006', transactionType: 'Sale', merchant_unique_id: 'ref-9', authCode: '654321', advanceResponseChecksum: '' };
    dmn.advanceResponseChecksum = dmnChecksum(dmn, merchant.secretKey);
    expect(spec.response('dmn', 'notification', dmn)).toEqual([]);
    expect(resultOfDmn(dmn, { kind: 'payment', amount: 1000, currency: 'EUR' })).toEqual({ outcome: 'APPROVED', authorization: '654321', processorId: '1110000006', amount: 1000 });
    expect(resultOfDmn(dmn, { kind: 'payment', amount: 900, currency: 'EUR' })).toBeNull();
    expect(resultOfDmn(dmn, { kind: 'refund', amount: 1000, currency: 'EUR' })).toBeNull();
    expect(resultOfDmn({ ...dmn, Status: 'PENDING' }, { kind: 'payment', amount: 1000, currency: 'EUR' })).toBeNull();
    expect(resultOfDmn({ ...dmn, Status: 'DECLINED', transactionType: 'Credit', Reason: 'Decline' }, { kind: 'refund', amount: 1000, currency: 'EUR' })).toMatchObject({ outcome: 'DECLINED', error: 'DENIED' });
  });

  it('DMNs without advanceResponseChecksum: responsechecksum over every value in the order posted, then the key', () => {
    const fields: Record<string, string> = { ppp_status: 'OK', Status: 'APPROVED', totalAmount: '10.00', currency: 'EUR', merchant_unique_id: 'ref-10', TransactionID: '1110000007' };
    const signed = { ...fields, responsechecksum: sha(`OKAPPROVED10.00EURref-101110000007${merchant.secretKey}`) };
    expect(verifyDmn(signed, merchant.secretKey)).toBe(true);
    // it covers our reference too
    expect(verifyDmn({ ...signed, merchant_unique_id: 'ref-11' }, merchant.secretKey)).toBe(false);
    expect(verifyDmn({ ...signed, responsechecksum: sha('x') }, merchant.secretKey)).toBe(false);
    // an advanceResponseChecksum present decides (a wrong one is not rescued by a right responsechecksum)
    expect(verifyDmn({ ...signed, advanceResponseChecksum: '0'.repeat(64) }, merchant.secretKey)).toBe(false);
  });

  it('decline reasons map to our errors, with Nuvei\'s words', () => {
    expect(refusalOf('Expired Card', -1, 0).error).toBe('EXPIRED_CARD');
    expect(refusalOf('Lost/Stolen', -1, 0).error).toBe('BLACKLISTED');
    expect(refusalOf('Suspected Fraud', -1, 0).error).toBe('FRAUD_SUSPECTED');
    expect(refusalOf('Invalid Card Number', -1, 0).error).toBe('INVALID_CARD');
    expect(refusalOf(null, null, null)).toEqual({ error: 'DENIED', details: 'Nuvei declined the transaction: Decline' });
  });

  it('credentials as Nuvei names them', () => {
    expect(nuveiTerminalProblems({ merchantId: '5081234567890123456', merchantSiteId: '208765', merchantSecretKey: 'secretKey0123456789abcdef' })).toEqual([]);
    expect(nuveiTerminalProblems({ merchantId: 'abc', merchantSiteId: 'x', merchantSecretKey: 'short' })).toHaveLength(3);
  });
});
