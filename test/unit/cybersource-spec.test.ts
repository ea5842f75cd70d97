/**
 * The CyberSource mapping held to CyberSource's published reference (spec.ts): every request the mapping
 * builds, for each scenario, is one the reference allows (SpecChecker.request); the HTTP Signature is
 * the one CyberSource's official client computes (signing string, digest, HMAC keyed with the decoded
 * shared secret); and the answers the developer guides show (their facts re-typed here: field names,
 * ids, values, lower-case currencies) read as they should, both ways: approvals, declines by reason, the
 * soft decline asking for 3-D Secure, the challenge, captures, reversals and refunds, and the
 * transaction search a lost answer is found by.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SpecChecker } from '../../src/processors/kit/spec.js';
import { CYBERSOURCE_SPEC } from '../../src/processors/cybersource/spec.js';
import {
  cardRefusal, digestOf, followUpBody, fromAmount, paymentBody, readSearch, resultOfFollowUp, resultOfPayment, searchBody, signatureProblem, signedHeaders, signingString, threedsOf, toAmount,
} from '../../src/processors/cybersource/mapping.js';
import { cybersourceTerminalOf, cybersourceTerminalProblems } from '../../src/processors/cybersource/credentials.js';
import { refusalOf } from '../../src/processors/cybersource/codes.js';
import { secret } from '../../src/platform/security/secret.js';
import type { PaymentRequest } from '../../src/processors/connector.js';

const spec = new SpecChecker(CYBERSOURCE_SPEC);
const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Record<string, any>;

const base: Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'card' | 'channel' | 'threeds' | 'dynamicDescriptor' | 'storeCredential' | 'storedCard' | 'mit'> = {
  reference: '6f1c1c4e-0d0e-4d1a-9b55-0c7e3f3c2a10',
  amount: 1250,
  currency: 'EUR',
  card: { pan: secret('4111111111111111'), expiryMonth: 3, expiryYear: 2031, cvv: secret('123'), holder: 'Ana María Pérez' },
  channel: 'ECOMMERCE',
  threeds: null,
  dynamicDescriptor: null,
};
const browser = { acceptHeader: 'text/html', userAgent: 'Mozilla/5.0', javaEnabled: false, javascriptEnabled: true, language: 'es-ES', colorDepth: 24, screenHeight: 900, screenWidth: 1440, tz: -60 };

describe('CyberSource requests against the reference', () => {
  const scenarios: Array<[string, Record<string, any>]> = [
    ['a customer payment that stores the card', paymentBody({ ...base, storeCredential: true }, { kind: 'payment', previousTransactionId: null })],
    ['a customer payment with a stored card', paymentBody({ ...base, storedCard: true }, { kind: 'payment', previousTransactionId: null })],
    ['a plain customer payment', paymentBody(base, { kind: 'payment', previousTransactionId: null })],
    ['a partial authorization', paymentBody(base, { kind: 'payment', previousTransactionId: null, partial: true })],
    ['a pre-authorization with a dynamic descriptor', paymentBody({ ...base, dynamicDescriptor: 'SHOP*ORDER 12345678901234567890' }, { kind: 'preauth', previousTransactionId: null })],
    ['a card verification', paymentBody(base, { kind: 'verify', previousTransactionId: null })],
    ['a MoTo payment', paymentBody({ ...base, channel: 'MOTO', card: { ...base.card, cvv: null } }, { kind: 'payment', previousTransactionId: null })],
    ['external 3-D Secure', paymentBody({ ...base, threeds: { version: '2.2.0', transStatus: 'Y', eci: '05', cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', dsTransId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b' } }, { kind: 'payment', previousTransactionId: null })],
    ['external 3-D Secure of a Mastercard', paymentBody({ ...base, card: { ...base.card, pan: secret('5555555555554444') }, threeds: { version: '2.2.0', transStatus: 'A', eci: '01', cavv: 'kAAAAAAAAAAAAAAAAAAAAAAAAAA=', dsTransId: null } }, { kind: 'payment', previousTransactionId: null })],
    ['Payer Authentication (enrolment)', paymentBody({ ...base, customerIp: '192.0.2.1' } as typeof base, { kind: 'payment', previousTransactionId: null, payerAuth: { enroll: { returnUrl: 'https://pay.example/v1/payment/tokenized/t/cres', browser, ip: '192.0.2.1' } } })],
    ['Payer Authentication (validation)', paymentBody(base, { kind: 'preauth', previousTransactionId: null, payerAuth: { validate: { authenticationTransactionId: 'Jn7qSxHJ9kK9lS2Gq3a0' } } })],
    ['a subscription charge', paymentBody({ ...base, channel: 'MIT', card: { ...base.card, cvv: null }, mit: 'RECURRING' }, { kind: 'payment', previousTransactionId: '016153570198200' })],
    ['an instalment', paymentBody({ ...base, channel: 'MIT', mit: 'INSTALMENT' }, { kind: 'payment', previousTransactionId: '016153570198200' })],
    ['an unscheduled charge (a batch line)', paymentBody({ ...base, channel: 'MIT', card: { ...base.card, holder: null } }, { kind: 'payment', previousTransactionId: '016153570198200' })],
  ];
  it.each(scenarios)('%s is a request the reference allows', (_name, body) => {
    expect(spec.request('createPayment', json(body))).toEqual([]);
  });

  it('carries the scheme fields of each scenario', () => {
    const [store, stored, plain, partial, preauth, verify, moto, external, externalMc, enroll, validate, recurring, instalment, unscheduled] = scenarios.map(([, b]) => json(b));
    expect(plain).toMatchObject({
      clientReferenceInformation: { code: base.reference },
      processingInformation: { capture: true, commerceIndicator: 'internet' },
      paymentInformation: { card: { number: '4111111111111111', expirationMonth: '03', expirationYear: '2031', securityCode: '123', type: '001' } },
      orderInformation: { amountDetails: { totalAmount: '12.50', currency: 'EUR' }, billTo: { firstName: 'Ana María', lastName: 'Pérez' } },
    });
    expect(plain.processingInformation.authorizationOptions).toBeUndefined();
    expect(store.processingInformation.authorizationOptions).toEqual({ initiator: { type: 'customer', credentialStoredOnFile: true } });
    expect(stored.processingInformation.authorizationOptions).toEqual({ initiator: { type: 'customer', storedCredentialUsed: true } });
    expect(partial.processingInformation.authorizationOptions).toEqual({ partialAuthIndicator: true });
    expect(preauth).toMatchObject({ processingInformation: { capture: false }, merchantInformation: { merchantDescriptor: { name: 'SHOP*ORDER 12345678901' } } });
    expect(verify).toMatchObject({ processingInformation: { capture: false }, orderInformation: { amountDetails: { totalAmount: '0.00' } } });
    expect(moto.processingInformation.commerceIndicator).toBe('moto');
    expect(moto.paymentInformation.card.securityCode).toBeUndefined();
    expect(external).toMatchObject({ processingInformation: { commerceIndicator: 'vbv' }, consumerAuthenticationInformation: { cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', eciRaw: '05', paresStatus: 'Y', paSpecificationVersion: '2.2.0' } });
    expect(externalMc).toMatchObject({ processingInformation: { commerceIndicator: 'spa' }, paymentInformation: { card: { type: '002' } }, consumerAuthenticationInformation: { ucafAuthenticationData: 'kAAAAAAAAAAAAAAAAAAAAAAAAAA=', ucafCollectionIndicator: '2', eciRaw: '01', paresStatus: 'A' } });
    expect(externalMc.consumerAuthenticationInformation.cavv).toBeUndefined();
    expect(enroll).toMatchObject({ processingInformation: { actionList: ['CONSUMER_AUTHENTICATION'] }, consumerAuthenticationInformation: { returnUrl: 'https://pay.example/v1/payment/tokenized/t/cres' }, deviceInformation: { ipAddress: '192.0.2.1', httpBrowserScreenWidth: '1440', httpBrowserTimeDifference: '-60', httpBrowserJavaScriptEnabled: true } });
    expect(validate).toMatchObject({ processingInformation: { capture: false, actionList: ['VALIDATE_CONSUMER_AUTHENTICATION'] }, consumerAuthenticationInformation: { authenticationTransactionId: 'Jn7qSxHJ9kK9lS2Gq3a0' } });
    const mit = { initiator: { type: 'merchant', storedCredentialUsed: true, merchantInitiatedTransaction: { previousTransactionId: '016153570198200' } } };
    expect(recurring.processingInformation).toMatchObject({ commerceIndicator: 'recurring', authorizationOptions: mit });
    expect(instalment.processingInformation).toMatchObject({ commerceIndicator: 'install', authorizationOptions: mit });
    expect(unscheduled.processingInformation).toMatchObject({ commerceIndicator: 'internet', authorizationOptions: mit });
    expect(unscheduled.orderInformation.billTo).toBeUndefined();
  });

  it('captures, reversals, refunds and the transaction search are requests the reference allows', () => {
    expect(spec.request('capturePayment', followUpBody('capture', base.reference, 600, 'EUR'))).toEqual([]);
    expect(spec.request('authReversal', followUpBody('void', base.reference, 1250, 'EUR'))).toEqual([]);
    expect(spec.request('refundPayment', followUpBody('refund', base.reference, 300, 'EUR'))).toEqual([]);
    expect(followUpBody('void', 'r', 10000, 'USD')).toEqual({ clientReferenceInformation: { code: 'r' }, reversalInformation: { amountDetails: { totalAmount: '100.00', currency: 'USD' } } });
    expect(spec.request('createSearch', searchBody(base.reference))).toEqual([]);
    expect(searchBody('abc').query).toBe('clientReferenceInformation.code:abc');
  });

  it('the reference is closed: a field it does not define, or a commerce indicator the connector never sends, is a violation', () => {
    expect(spec.request('createPayment', { ...json(scenarios[0][1]), storedCredential: true })).toEqual([expect.stringContaining('(storedCredential)')]);
    const wrong = json(scenarios[0][1]);
    wrong.processingInformation.commerceIndicator = 'ecommerce';
    expect(spec.request('createPayment', wrong)).toEqual([expect.stringMatching(/^\/processingInformation\/commerceIndicator must be equal to one of the allowed values/)]);
    const month = json(scenarios[0][1]);
    month.paymentInformation.card.expirationMonth = '3';
    expect(spec.request('createPayment', month)).toEqual([expect.stringMatching(/^\/paymentInformation\/card\/expirationMonth must match pattern/)]);
  });

  it('amounts are decimal strings in the currency\'s major units', () => {
    expect([toAmount(1250, 'EUR'), toAmount(5, 'EUR'), toAmount(0, 'USD'), toAmount(1250, 'JPY'), toAmount(1250, 'BHD')]).toEqual(['12.50', '0.05', '0.00', '1250', '1.250']);
    expect([fromAmount('12.50', 'EUR'), fromAmount('12.5', 'EUR'), fromAmount('100.00', 'usd'), fromAmount('1250', 'JPY'), fromAmount('12.501', 'EUR'), fromAmount(12.5, 'EUR'), fromAmount('-1.00', 'EUR')]).toEqual([1250, 1250, 10000, 1250, null, null, null]);
  });
});

describe('HTTP Signature authentication', () => {
  // a terminal as the Business Center gives one (merchant ID, key serial number, base64 shared secret)
  const terminal = cybersourceTerminalOf({ merchant_id: 'testrest', key_id: '6d1f0c2a-3b4e-4f5a-8c7d-9e0f1a2b3c4d', shared_secret_key: 'c3BlYy10ZXN0LXNoYXJlZC1zZWNyZXQtMDEyMzQ1Njc=' });
  const date = new Date('2026-12-07T08:00:00Z');
  const body = '{"clientReferenceInformation":{"code":"TC50171_3"}}';

  it('signs host, date, (request-target), digest and v-c-merchant-id with the decoded shared secret', () => {
    const h = signedHeaders(terminal, { method: 'POST', path: '/pts/v2/payments', host: 'apitest.cybersource.com', date, body });
    const digest = `SHA-256=${createHash('sha256').update(body).digest('base64')}`;
    expect(h).toMatchObject({ 'v-c-merchant-id': 'testrest', date: 'Mon, 07 Dec 2026 08:00:00 GMT', host: 'apitest.cybersource.com', digest });
    const lines = ['host: apitest.cybersource.com', 'date: Mon, 07 Dec 2026 08:00:00 GMT', '(request-target): post /pts/v2/payments', `digest: ${digest}`, 'v-c-merchant-id: testrest'].join('\n');
    const expected = createHmac('sha256', Buffer.from('c3BlYy10ZXN0LXNoYXJlZC1zZWNyZXQtMDEyMzQ1Njc=', 'base64')).update(lines).digest('base64');
    expect(h.signature).toBe(`keyid="6d1f0c2a-3b4e-4f5a-8c7d-9e0f1a2b3c4d", algorithm="HmacSHA256", headers="host date (request-target) digest v-c-merchant-id", signature="${expected}"`);
    expect(signingString('host date', { host: 'a', date: 'b' })).toBe('host: a\ndate: b');
    expect(digestOf('')).toBe('SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
  });

  it('a GET signs no digest; the simulator\'s check refuses a changed body, another key or a header list out of order', () => {
    const get = signedHeaders(terminal, { method: 'GET', path: '/tss/v2/transactions/1', host: 'h', date });
    expect(get.digest).toBeUndefined();
    expect(get.signature).toContain('headers="host date (request-target) v-c-merchant-id"');
    const keys = (k: string) => (k === terminal.keyId ? { merchantId: 'testrest', secret: terminal.secret } : null);
    const post = signedHeaders(terminal, { method: 'POST', path: '/pts/v2/payments', host: 'h', date, body });
    expect(signatureProblem(keys, { method: 'POST', path: '/pts/v2/payments', headers: post, body })).toBeNull();
    expect(signatureProblem(keys, { method: 'GET', path: '/tss/v2/transactions/1', headers: get, body: '' })).toBeNull();
    expect(signatureProblem(keys, { method: 'POST', path: '/pts/v2/payments', headers: post, body: body.replace('TC', 'XX') })).toBe('digest does not match the body');
    expect(signatureProblem(keys, { method: 'POST', path: '/pts/v2/captures', headers: post, body })).toBe('signature does not verify');
    expect(signatureProblem(keys, { method: 'POST', path: '/pts/v2/payments', headers: { ...post, host: 'other' }, body })).toBe('signature does not verify');
    expect(signatureProblem(() => null, { method: 'POST', path: '/pts/v2/payments', headers: post, body })).toBe('unknown keyid');
    expect(signatureProblem(keys, { method: 'POST', path: '/pts/v2/payments', headers: { ...post, signature: post.signature.replace('digest v-c', 'v-c') }, body })).toMatch(/^headers must be/);
  });

  it('credentials are named as CyberSource names them and checked', () => {
    expect(cybersourceTerminalProblems({ merchant_id: 'testrest', key_id: '6d1f0c2a-3b4e-4f5a-8c7d-9e0f1a2b3c4d', shared_secret_key: 'c3BlYy10ZXN0LXNoYXJlZC1zZWNyZXQtMDEyMzQ1Njc=' })).toEqual([]);
    expect(cybersourceTerminalProblems({ merchant_id: 'test rest', key_id: 'abc', shared_secret_key: 'not base64!' })).toEqual([
      expect.stringContaining('credentials.merchant_id'), expect.stringContaining('credentials.key_id'), expect.stringContaining('credentials.shared_secret_key'),
    ]);
    expect(() => cybersourceTerminalOf({ merchant_id: 'testrest' })).toThrow(/missing: key_id, shared_secret_key/);
  });
});

describe('CyberSource answers read back', () => {
  const x = { reference: 'RTS-Auth', amount: 10000, currency: 'USD' };
  /** The sale answer of CyberSource's payments developer guide ("Sale", example response). */
  const sale = {
    _links: { void: { method: 'POST', href: '/pts/v2/payments/6485004068966546103093/voids' }, self: { method: 'GET', href: '/pts/v2/payments/6485004068966546103093' } },
    clientReferenceInformation: { code: 'RTS-Auth' },
    id: '6485004068966546103093',
    orderInformation: { amountDetails: { totalAmount: '100.00', authorizedAmount: '100.00', currency: 'usd' } },
    paymentAccountInformation: { card: { type: '001' } },
    processorInformation: { systemTraceAuditNumber: '841109', approvalCode: '831000', networkTransactionId: '016153570198200', retrievalReferenceNumber: '208720841109', transactionId: '016153570198200', responseCode: '00', avs: { code: 'Y', codeRaw: 'Y' } },
    reconciliationId: '6485004068966546103093',
    status: 'AUTHORIZED',
    submitTimeUtc: '2022-03-28T20:46:47Z',
  };

  it('the guide\'s sale answer is one the reference allows, read as an approval with its network transaction id', () => {
    expect(spec.response('createPayment', 201, sale)).toEqual([]);
    expect(resultOfPayment(sale, x, 'payment')).toEqual({
      paymentId: '6485004068966546103093', networkId: '016153570198200', challenge: null,
      result: { outcome: 'APPROVED', authorization: '831000', processorId: '6485004068966546103093', amount: 10000, cofTxnid: '016153570198200' },
    });
  });

  it('an answer that names another reference, amount or currency is not believed', () => {
    expect(resultOfPayment(sale, { ...x, reference: 'other' }, 'payment').result.outcome).toBe('UNKNOWN');
    expect(resultOfPayment(sale, { ...x, amount: 9000 }, 'payment').result.outcome).toBe('UNKNOWN');
    expect(resultOfPayment(sale, { ...x, currency: 'EUR' }, 'payment').result.outcome).toBe('UNKNOWN');
    expect(resultOfPayment({ ...sale, id: undefined }, x, 'payment').result.outcome).toBe('UNKNOWN');
    expect(resultOfPayment({ ...sale, status: 'PARTIAL_AUTHORIZED', orderInformation: { amountDetails: { authorizedAmount: '60.00', currency: 'USD' } } }, x, 'payment', true).result).toMatchObject({ outcome: 'APPROVED', amount: 6000 });
    expect(resultOfPayment({ ...sale, status: 'PARTIAL_AUTHORIZED', orderInformation: { amountDetails: { authorizedAmount: '60.00', currency: 'USD' } } }, x, 'payment').result).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR' });
  });

  const declined = (reason: string) => ({ id: '6485004068966546103094', submitTimeUtc: '2022-03-28T20:46:47Z', status: 'DECLINED', clientReferenceInformation: { code: 'RTS-Auth' }, errorInformation: { reason, message: `Decline - ${reason}` } });

  it.each([
    ['INSUFFICIENT_FUND', 'INSUFFICIENT_FUNDS'], ['EXPIRED_CARD', 'EXPIRED_CARD'], ['STOLEN_LOST_CARD', 'BLACKLISTED'], ['PROCESSOR_DECLINED', 'DENIED'], ['INVALID_ACCOUNT', 'INVALID_CARD'],
    ['DECISION_PROFILE_REJECT', 'FRAUD_SUSPECTED'], ['CONSUMER_AUTHENTICATION_FAILED', 'AUTHENTICATION_FAILED'], ['ISSUER_UNAVAILABLE', 'PROCESSOR_ERROR'], ['GENERAL_DECLINE', 'DENIED'],
  ])('DECLINED %s is %s, in CyberSource\'s words', (reason, error) => {
    expect(spec.response('createPayment', 201, declined(reason))).toEqual([]);
    expect(resultOfPayment(declined(reason), x, 'payment').result).toEqual({ outcome: 'DECLINED', error, details: `CyberSource ${reason}: Decline - ${reason}`, processorId: '6485004068966546103094' });
  });

  it('the soft decline asks for 3-D Secure; PENDING_AUTHENTICATION names the ACS, the CReq and the authentication', () => {
    expect(resultOfPayment(declined('CONSUMER_AUTHENTICATION_REQUIRED'), x, 'payment').result).toMatchObject({ outcome: 'CHALLENGE' });
    const pending = {
      id: '6485004068966546103095', submitTimeUtc: '2022-03-28T20:46:47Z', status: 'PENDING_AUTHENTICATION', clientReferenceInformation: { code: 'RTS-Auth' },
      errorInformation: { reason: 'CONSUMER_AUTHENTICATION_REQUIRED', message: 'The cardholder is enrolled in Payer Authentication. Please authenticate the cardholder before continuing with the transaction.' },
      consumerAuthenticationInformation: { acsUrl: 'https://acs.example/challenge', pareq: 'eyJtZXNzYWdlVHlwZSI6IkNSZXEifQ', authenticationTransactionId: 'Jn7qSxHJ9kK9lS2Gq3a0', veresEnrolled: 'Y', specificationVersion: '2.2.0' },
    };
    expect(spec.response('createPayment', 201, pending)).toEqual([]);
    expect(resultOfPayment(pending, x, 'payment')).toMatchObject({ challenge: { acsUrl: 'https://acs.example/challenge', creq: 'eyJtZXNzYWdlVHlwZSI6IkNSZXEifQ', authenticationTransactionId: 'Jn7qSxHJ9kK9lS2Gq3a0' }, result: { outcome: 'CHALLENGE' } });
    expect(spec.response('createPayment', 201, { ...pending, consumerAuthenticationInformation: undefined })).not.toEqual([]);
    expect(threedsOf({ consumerAuthenticationInformation: { paresStatus: 'Y', eciRaw: '05', cavv: 'AAAB', directoryServerTransactionId: 'ds-1', specificationVersion: '2.2.0' } })).toEqual({ version: '2.2.0', transStatus: 'Y', eci: '05', cavv: 'AAAB', dsTransId: 'ds-1' });
  });

  it('a review is PENDING; a 400 about the card is a card error', () => {
    expect(resultOfPayment({ ...sale, status: 'AUTHORIZED_PENDING_REVIEW' }, x, 'payment').result).toMatchObject({ outcome: 'PENDING' });
    expect(resultOfPayment({ ...sale, status: 'AUTHORIZED_RISK_DECLINED' }, x, 'payment').result).toMatchObject({ outcome: 'DECLINED', error: 'FRAUD_SUSPECTED' });
    const invalid = { submitTimeUtc: '2022-03-28T20:46:47Z', status: 'INVALID_REQUEST', reason: 'INVALID_CARD', message: 'Declined - The card number is invalid' };
    expect(spec.response('createPayment', 400, invalid)).toEqual([]);
    expect(cardRefusal(invalid)).toMatchObject({ outcome: 'DECLINED', error: 'INVALID_CARD' });
    expect(cardRefusal({ ...invalid, reason: 'MISSING_FIELD' })).toBeNull();
    const badNumber = { submitTimeUtc: '2022-03-28T20:46:47Z', status: 'INVALID_REQUEST', reason: 'INVALID_DATA', message: 'Declined - One or more fields in the request contains invalid data', details: [{ field: 'paymentInformation.card.number', reason: 'INVALID_DATA' }] };
    expect(spec.response('createPayment', 400, badNumber)).toEqual([]);
    expect(cardRefusal(badNumber)).toMatchObject({ outcome: 'DECLINED', error: 'INVALID_CARD' });
    expect(cardRefusal({ ...badNumber, details: [{ field: 'orderInformation.amountDetails.totalAmount', reason: 'INVALID_DATA' }] })).toBeNull();
    expect(refusalOf('204')).toMatchObject({ error: 'INSUFFICIENT_FUNDS', details: expect.stringContaining('INSUFFICIENT_FUND') });
  });

  it('the guide\'s capture (PENDING) and reversal (REVERSED) answers are approvals; a refund PENDING is accepted, not decided; a refund DECLINED is declined', () => {
    const capture = {
      _links: { void: { method: 'POST', href: '/pts/v2/captures/6512628085536163703211/voids' }, self: { method: 'GET', href: '/pts/v2/captures/6512628085536163703211' } },
      clientReferenceInformation: { code: '1651262808531' }, id: '6512628085536163703211', orderInformation: { amountDetails: { totalAmount: '100.00', currency: 'USD' } },
      reconciliationId: '6512627267816161803211', status: 'PENDING', submitTimeUtc: '2022-04-29T20:06:49Z',
    };
    expect(spec.response('capturePayment', 201, capture)).toEqual([]);
    expect(resultOfFollowUp(capture, { kind: 'capture', reference: '1651262808531', amount: 10000, currency: 'USD' })).toEqual({ id: '6512628085536163703211', result: { outcome: 'APPROVED', authorization: '6512628085536163703211', processorId: '6512628085536163703211', amount: 10000 } });
    expect(resultOfFollowUp(capture, { kind: 'capture', reference: '1651262808531', amount: 6000, currency: 'USD' }).result.outcome).toBe('UNKNOWN');
    const reversal = {
      _links: { self: { method: 'GET', href: '/pts/v2/reversals/6869460219566537303955' } }, clientReferenceInformation: { code: 'RTS-Auth-Reversal' }, id: '6869460219566537303955',
      orderInformation: { amountDetails: { currency: 'USD' } }, processorInformation: { responseCode: '200' }, reconciliationId: '82kBK3qDNtls',
      reversalAmountDetails: { reversedAmount: '100.00', currency: 'USD' }, status: 'REVERSED', submitTimeUtc: '2023-06-16T20:07:02Z',
    };
    expect(spec.response('authReversal', 201, reversal)).toEqual([]);
    expect(resultOfFollowUp(reversal, { kind: 'void', reference: 'RTS-Auth-Reversal', amount: 10000, currency: 'USD' }).result).toMatchObject({ outcome: 'APPROVED', processorId: '6869460219566537303955' });
    const refund = { id: '6869460219566537303956', submitTimeUtc: '2023-06-16T20:07:02Z', status: 'DECLINED', clientReferenceInformation: { code: 'r' }, refundAmountDetails: { refundAmount: '1.00', currency: 'usd' }, errorInformation: { reason: 'PROCESSOR_DECLINED', message: 'Decline' } };
    expect(spec.response('refundPayment', 201, refund)).toEqual([]);
    expect(resultOfFollowUp(refund, { kind: 'refund', reference: 'r', amount: 100, currency: 'USD' }).result).toMatchObject({ outcome: 'DECLINED', error: 'DENIED' });
    // PENDING: accepted, decided in the settlement batch (it may still fail there)
    const pending = { ...refund, status: 'PENDING', errorInformation: undefined };
    delete pending.errorInformation;
    expect(spec.response('refundPayment', 201, pending)).toEqual([]);
    expect(resultOfFollowUp(pending, { kind: 'refund', reference: 'r', amount: 100, currency: 'USD' })).toEqual({ id: '6869460219566537303956', result: { outcome: 'PENDING', details: expect.stringContaining('settlement batch'), processorId: '6869460219566537303956' } });
    expect(resultOfFollowUp({ ...pending, status: 'TRANSMITTED' }, { kind: 'refund', reference: 'r', amount: 100, currency: 'USD' }).result).toMatchObject({ outcome: 'APPROVED', processorId: '6869460219566537303956' });
  });

  it('a refund found by the transaction search is decided by its ics_credit status: PENDING undecided, TRANSMITTED done, FAILED declined', () => {
    const summary = (status: string | null, rCode = '1', reasonCode = '100') => ({
      id: '6485004068966546103096', submitTimeUtc: '2026-12-07T08:00:00Z', merchantId: 'testrest', clientReferenceInformation: { code: 'RTS-Auth' },
      applicationInformation: { reasonCode, rCode, applications: [{ name: 'ics_credit', ...(status ? { status } : {}), reasonCode, rCode, rFlag: rCode === '1' ? 'SOK' : 'DECLINED' }] },
      orderInformation: { amountDetails: { totalAmount: '100.00', currency: 'USD' } },
    });
    const answer = (s: unknown) => ({ searchId: 'e2d5e3b4', count: 1, totalCount: 1, _embedded: { transactionSummaries: [s] } });
    for (const st of ['PENDING', 'TRANSMITTED', 'FAILED']) expect(spec.response('createSearch', 201, answer(summary(st)))).toEqual([]);
    expect(readSearch(answer(summary('PENDING')), { kind: 'refund', ...x })).toEqual({ state: 'undecided' });
    // accepted without a status: not known to be transmitted yet
    expect(readSearch(answer(summary(null)), { kind: 'refund', ...x })).toEqual({ state: 'undecided' });
    expect(readSearch(answer(summary('TRANSMITTED')), { kind: 'refund', ...x })).toEqual({ state: 'found', id: '6485004068966546103096', result: { outcome: 'APPROVED', authorization: '6485004068966546103096', processorId: '6485004068966546103096', amount: 10000 } });
    expect(readSearch(answer(summary('SUCCEEDED')), { kind: 'refund', ...x })).toMatchObject({ state: 'found', result: { outcome: 'APPROVED' } });
    expect(readSearch(answer(summary('FAILED', '0', '233')), { kind: 'refund', ...x })).toEqual({ state: 'found', id: '6485004068966546103096', result: { outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'CyberSource could not carry out the refund in its settlement batch (PROCESSOR_DECLINED)', processorId: '6485004068966546103096' } });
    expect(readSearch(answer(summary('VOIDED')), { kind: 'refund', ...x })).toMatchObject({ state: 'found', result: { outcome: 'DECLINED' } });
    // a capture's status does not hold it: accepted for settlement
    const capture = summary('PENDING');
    capture.applicationInformation.applications[0].name = 'ics_bill';
    expect(readSearch(answer(capture), { kind: 'capture', ...x })).toMatchObject({ state: 'found', result: { outcome: 'APPROVED' } });
  });

  it('the transaction search finds our operation by its reference: an approval before a decline, a decline by its reason code', () => {
    const summary = (id: string, app: string, rCode: string, reasonCode: string, amount = '100.00') => ({
      id, submitTimeUtc: '2026-12-07T08:00:00Z', merchantId: 'testrest', clientReferenceInformation: { code: 'RTS-Auth' },
      applicationInformation: { reasonCode, rCode, applications: [{ name: app, reasonCode, rCode, rFlag: rCode === '1' ? 'SOK' : 'DINSUFFICIENTFUNDS' }] },
      orderInformation: { amountDetails: { totalAmount: amount, currency: 'USD' } }, ...(rCode === '1' ? { processorInformation: { approvalCode: '831000' } } : {}),
    });
    const answer = (...s: unknown[]) => ({ searchId: 'e2d5e3b4', count: s.length, totalCount: s.length, _embedded: { transactionSummaries: s } });
    const both = answer(summary('6485004068966546103094', 'ics_auth', '0', '478'), summary('6485004068966546103093', 'ics_auth', '1', '100'));
    expect(spec.response('createSearch', 201, both)).toEqual([]);
    expect(readSearch(both, { kind: 'payment', ...x })).toEqual({ state: 'found', id: '6485004068966546103093', result: { outcome: 'APPROVED', authorization: '831000', processorId: '6485004068966546103093', amount: 10000 } });
    expect(readSearch(answer(summary('6485004068966546103094', 'ics_auth', '0', '204')), { kind: 'payment', ...x })).toMatchObject({ state: 'found', result: { outcome: 'DECLINED', error: 'INSUFFICIENT_FUNDS' } });
    expect(readSearch(answer(summary('6485004068966546103094', 'ics_auth', '1', '100', '99.00')), { kind: 'payment', ...x })).toEqual({ state: 'mismatch' });
    expect(readSearch(answer(summary('6485004068966546103094', 'ics_bill', '1', '100')), { kind: 'capture', ...x })).toMatchObject({ state: 'found', result: { outcome: 'APPROVED', authorization: '6485004068966546103094' } });
    expect(readSearch(answer(summary('6485004068966546103094', 'ics_bill', '1', '100')), { kind: 'refund', ...x })).toEqual({ state: 'absent' });
    expect(readSearch(answer(), { kind: 'payment', ...x })).toEqual({ state: 'absent' });
    // held for review by Decision Manager (the request's reason code 480): not decided yet
    const review = summary('6485004068966546103095', 'ics_auth', '1', '100');
    review.applicationInformation.reasonCode = '480';
    expect(readSearch(answer(review), { kind: 'payment', ...x })).toEqual({ state: 'undecided' });
  });
});
