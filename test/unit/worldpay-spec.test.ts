/**
 * The Worldpay mapping held to Worldpay Access's published references (spec.ts): every request the
 * mapping builds, for each scenario, is one the Payments API 2024-06-01 allows (SpecChecker.request), and
 * the answers, queried payments and events of the references' examples (their facts re-typed here:
 * field names, values) read as they should: an authorization with its code and scheme reference, a
 * refusal with Worldpay's code and words, the steps of 3-D Secure, the outcome of a settle, cancel or
 * refund with the payment's next actions, a payment found by the Payment Queries API, a signed event.
 * Then the simulator: what it answers is what the references allow, a request they do not allow is
 * answered 400 and recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpecChecker } from '../../src/processors/kit/spec.js';
import { WORLDPAY_SPEC } from '../../src/processors/worldpay/spec.js';
import {
  actionBody, actionsOf, chooseAction, eventFacts, eventSignature, followUpInEvents, headersOf, linkDataOf, linkDataOfHref, pathOf, queriedLinkOf, paymentBody, queriedPayments, readAction, readPayment,
  refusalInEvents, REFUND_DECISIONS, resultOfEvent, resultOfQueried, resultOfRefundEvent, threedsOf, verifyEvent,
} from '../../src/processors/worldpay/mapping.js';
import { refusalOf } from '../../src/processors/worldpay/codes.js';
import { worldpayTerminalProblems } from '../../src/processors/worldpay/credentials.js';
import { WorldpaySimulator } from '../../src/processors/worldpay/simulator/server.js';
import { secret } from '../../src/platform/security/secret.js';
import type { PaymentRequest } from '../../src/processors/connector.js';

const spec = new SpecChecker(WORLDPAY_SPEC);
const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Record<string, unknown>;
const REF = '6f1c1c4e-0d0e-4d1a-9b55-0c7e3f3c2a10';
const BASE = 'https://try.access.worldpay.com';
const LINK = 'eyJrIjoxLCJkIjoiUW5rZHBXZDZ1MzBBY0I0MTVJQUdPeGE3ZkFobE1lTjJyYk05eDZxQUJ2RT0ifQ';

// the reference's example card (PaymentsCardPlainPaymentInstrument)
const base: Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'card' | 'channel' | 'dynamicDescriptor' | 'storeCredential' | 'storedCard' | 'mit' | 'customerIp'> = {
  reference: REF, amount: 250, currency: 'GBP', channel: 'ECOMMERCE', dynamicDescriptor: null, customerIp: '192.0.2.10',
  card: { pan: secret('4000000000001091'), expiryMonth: 6, expiryYear: 2028, cvv: secret('123'), holder: 'Sherlock Holmes' },
};
const browser = { acceptHeader: 'text/html', userAgent: 'Mozilla/5.0', javaEnabled: false, javascriptEnabled: true, language: 'en-GB', colorDepth: 24, screenHeight: 900, screenWidth: 1440, tz: -60 };
const pay = (req: Partial<typeof base>, kind: 'payment' | 'preauth' | 'verify' = 'payment', schemeReference: string | null = null) => json(paymentBody({ ...base, ...req }, { kind, entity: 'default', schemeReference }));
const agreement = (b: Record<string, unknown>) => (b.instruction as Record<string, unknown>).customerAgreement;
const links = (...names: string[]) => Object.fromEntries(names.map((n) => [n, { href: `${BASE}/api/payments/${LINK}/${n}`, method: 'POST' }]));

describe('Worldpay requests against the Payments API reference', () => {
  const scenarios: Array<[string, Record<string, unknown>]> = [
    ['a payment settled at once', pay({})],
    ['a pre-authorization', pay({}, 'preauth')],
    ['a card verification', pay({}, 'verify')],
    ['a payment that stores the card', pay({ storeCredential: true })],
    ['a stored card used again by the customer', pay({ storedCard: true })],
    ['a MoTo payment', pay({ channel: 'MOTO', card: { ...base.card, cvv: null } })],
    ['a subscription charge', pay({ channel: 'MIT', mit: 'RECURRING' }, 'payment', 'MCCOLXT1C0104')],
    ['an instalment', pay({ channel: 'MIT', mit: 'INSTALMENT' }, 'payment', 'MCCOLXT1C0104')],
    ['an unscheduled charge (a batch line)', pay({ channel: 'MIT' }, 'payment', 'MCCOLXT1C0104')],
    ['3-D Secure through Worldpay', json(paymentBody(base, { kind: 'payment', entity: 'default', schemeReference: null, threeDS: threedsOf('https://pay.example/v1/payment/tokenized/t/cres', browser) }))],
  ];
  it.each(scenarios)('%s is a request the reference allows', (_name, body) => {
    expect(spec.request('payment', body)).toEqual([]);
  });

  it('the request: our reference, the entity, the card, the value in minor units; settled at once or not', () => {
    expect(scenarios[0][1]).toEqual({
      transactionReference: REF, merchant: { entity: 'default' }, channel: 'ecom',
      instruction: {
        method: 'card', paymentInstrument: { type: 'plain', cardNumber: '4000000000001091', cardHolderName: 'Sherlock Holmes', expiryDate: { month: 6, year: 2028 }, cvc: '123' },
        narrative: { line1: 'Online payment' }, value: { currency: 'GBP', amount: 250 }, settlement: { auto: true }, customer: { ipAddress: '192.0.2.10' },
      },
    });
    expect((scenarios[1][1].instruction as Record<string, unknown>).settlement).toBeUndefined();
    expect((scenarios[2][1].instruction as Record<string, unknown>).value).toEqual({ currency: 'GBP', amount: 0 });
    expect(scenarios[5][1].channel).toBe('moto');
  });

  it('stored credentials: first use, a stored card again, and merchant-initiated charges quoting the scheme reference', () => {
    expect(agreement(scenarios[0][1])).toBeUndefined();
    expect(agreement(scenarios[2][1])).toEqual({ type: 'cardOnFile', storedCardUsage: 'first' });
    expect(agreement(scenarios[3][1])).toEqual({ type: 'cardOnFile', storedCardUsage: 'first' });
    expect(agreement(scenarios[4][1])).toEqual({ type: 'cardOnFile', storedCardUsage: 'subsequent' });
    expect(agreement(scenarios[6][1])).toEqual({ type: 'subscription', storedCardUsage: 'subsequent', schemeReference: 'MCCOLXT1C0104' });
    expect(agreement(scenarios[7][1])).toEqual({ type: 'installment', installmentType: 'merchant', storedCardUsage: 'subsequent', schemeReference: 'MCCOLXT1C0104' });
    expect(agreement(scenarios[8][1])).toEqual({ type: 'unscheduled', schemeReference: 'MCCOLXT1C0104' });
    // a merchant-initiated payment carries no CVC and no customer IP
    const mit = scenarios[6][1].instruction as Record<string, Record<string, unknown>>;
    expect(mit.paymentInstrument.cvc).toBeUndefined();
    expect(mit.customer).toBeUndefined();
  });

  it('partial settles and refunds carry our reference and the value; full ones have no body', () => {
    expect(spec.request('partialSettle', actionBody(true, REF, 600, 'GBP'))).toEqual([]);
    expect(spec.request('partialRefund', actionBody(true, REF, 300, 'GBP'))).toEqual([]);
    expect(actionBody(false, REF, 1000, 'GBP')).toBeUndefined();
    expect(spec.request('settle', undefined)).toEqual([]);
    expect(spec.request('cancel', { reference: REF })).toEqual(['a body where the reference defines none']);
  });

  it('the reference is closed: a field it does not define, or a value it does not list, is a violation', () => {
    expect(spec.request('payment', { ...scenarios[0][1], orderCode: 'x' })).toEqual([expect.stringContaining('(orderCode)')]);
    expect(spec.request('payment', { ...scenarios[0][1], channel: 'mit' })).toEqual([expect.stringMatching(/^\/channel must be equal to one of the allowed values/)]);
    const bad = json(scenarios[6][1]);
    (bad.instruction as Record<string, unknown>).customerAgreement = { type: 'subscription', schemeReference: 'MCCOLXT1C0104' };
    expect(spec.request('payment', bad).length).toBeGreaterThan(0);
  });

  it('authentication: HTTP Basic with the Access username and password, the API version on the Payments API, the media type on Payment Queries', () => {
    const t = { username: 'access-user', password: 's3cret:pass' };
    expect(headersOf(t, 'payments', true)).toEqual({ authorization: `Basic ${Buffer.from('access-user:s3cret:pass').toString('base64')}`, 'wp-api-version': '2024-06-01', accept: 'application/json', 'content-type': 'application/json' });
    expect(headersOf(t, 'queries', false)).toEqual({ authorization: expect.stringMatching(/^Basic /), accept: 'application/vnd.worldpay.payment-queries-v1.hal+json' });
  });

  it('terminal credentials are checked in words an operator can act on', () => {
    expect(worldpayTerminalProblems({ username: 'access-user', password: 'long-enough-password', entity: 'default', event_signature_key: 'a-shared-secret-of-16+' })).toEqual([]);
    expect(worldpayTerminalProblems({ username: 'a:b', password: 'short', entity: 'bad/entity', event_signature_key: 'x' })).toHaveLength(4);
  });
});

describe('Worldpay answers of the reference through the mapping', () => {
  const authorized = { outcome: 'authorized', transactionReference: REF, issuer: { authorizationCode: '675725' }, schemeReference: '060720116005060', paymentInstrument: { type: 'card/plain+masked', cardBin: '400000', lastFour: '1091', expiryDate: { month: 6, year: 2028 }, cardBrand: 'visa', fundingType: 'debit' }, _links: { self: { href: `${BASE}/api/payments/${LINK}` } }, _actions: links('settlePayment', 'partiallySettlePayment', 'cancelPayment') };
  const refused = { outcome: 'refused', transactionReference: REF, refusalCode: '51', refusalDescription: 'LIMIT EXCEEDED' };
  const challenged = {
    outcome: '3dsChallenged', transactionReference: REF, authentication: { version: '2.1.0' },
    challenge: { reference: 'uswuxaOZm7onSjO664M1', url: 'https://centinelapistag.cardinalcommerce.com/V2/Cruise/StepUp', jwt: 'eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.e30.sig', payload: 'eyJtZXNzYWdlVHlwZSI6IkNSZXEiLCJtZXNzYWdlVmVyc2lvbiI6IjIuMS4wIiwidGhyZWVEU1NlcnZlclRyYW5zSUQiOiIxZTM2YjRlNy1hNzM0LTQxZmMtODk0Zi02ZTU4MjM2YzYxZDYiLCJhY3NUcmFuc0lEIjoiNGVkOWQyMGQtYzA0MC00YjlhLTgyMGEtODE1MzU0NThiZjdlIiwiY2hhbGxlbmdlV2luZG93U2l6ZSI6IjA0In0' },
    _actions: links('complete3dsChallenge'),
  };
  const deviceData = { outcome: '3dsDeviceDataRequired', transactionReference: REF, deviceDataCollection: { jwt: 'eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.e30.sig', url: 'https://centinelapistag.cardinalcommerce.com/V1/Cruise/Collect', bin: '400000' }, _actions: links('supply3dsDeviceData') };

  it('the examples are answers the reference allows', () => {
    for (const a of [authorized, refused, challenged, deviceData]) expect(spec.response('payment', 201, a)).toEqual([]);
    expect(spec.response('settle', 202, { outcome: 'sentForSettlement', _actions: links('refundPayment', 'partiallyRefundPayment') })).toEqual([]);
    expect(spec.response('payment', 201, { ...refused, outcome: 'declined' }).length).toBeGreaterThan(0);
  });

  it('an authorization: the issuer\'s code, the scheme reference as the card\'s network id, the payment\'s link id and next actions', () => {
    const r = readPayment(authorized, { reference: REF, amount: 250 }, 'preauth');
    expect(r).toEqual({
      kind: 'result', linkData: LINK, self: `${BASE}/api/payments/${LINK}`, schemeReference: '060720116005060',
      result: { outcome: 'APPROVED', authorization: '675725', processorId: LINK, amount: 250, cofTxnid: '060720116005060' },
      actions: { settlePayment: `${BASE}/api/payments/${LINK}/settlePayment`, partiallySettlePayment: `${BASE}/api/payments/${LINK}/partiallySettlePayment`, cancelPayment: `${BASE}/api/payments/${LINK}/cancelPayment` },
    });
    // a payment is settled at once: authorized without settlement is not what was asked
    expect(readPayment(authorized, { reference: REF, amount: 250 }, 'payment')).toMatchObject({ result: { outcome: 'UNKNOWN' } });
    expect(readPayment({ ...authorized, outcome: 'sentForSettlement' }, { reference: REF, amount: 250 }, 'payment')).toMatchObject({ result: { outcome: 'APPROVED' } });
  });

  it('an answer naming another transaction reference is not believed', () => {
    expect(readPayment({ ...authorized, transactionReference: `${REF}x` }, { reference: REF, amount: 250 }, 'preauth')).toMatchObject({ result: { outcome: 'UNKNOWN', details: expect.stringMatching(/transactionReference/) } });
  });

  it('a refusal carries Worldpay\'s code and words; the schemes\' soft declines ask for 3-D Secure', () => {
    expect(readPayment(refused, { reference: REF, amount: 250 }, 'payment')).toMatchObject({ result: { outcome: 'DECLINED', error: 'INSUFFICIENT_FUNDS', details: 'Worldpay refused the payment (51): LIMIT EXCEEDED' } });
    expect(readPayment({ ...refused, refusalCode: '1A', refusalDescription: 'ADDITIONAL CUSTOMER AUTHENTICATION REQUIRED' }, { reference: REF, amount: 250 }, 'payment')).toMatchObject({ result: { outcome: 'CHALLENGE' } });
    expect(readPayment({ outcome: 'sentForCancellation', transactionReference: REF, riskFactors: [{ type: 'cvc', risk: 'notMatched' }] }, { reference: REF, amount: 250 }, 'payment')).toMatchObject({ result: { outcome: 'DECLINED', error: 'DENIED', details: 'Worldpay cancelled the payment automatically (cvc not matched)' } });
    expect(readPayment({ outcome: 'fraudHighRisk', transactionReference: REF, score: 97.5, reason: ['high risk email'] }, { reference: REF, amount: 250 }, 'payment')).toMatchObject({ result: { outcome: 'DECLINED', error: 'FRAUD_SUSPECTED' } });
    expect(refusalOf('33', 'CARD EXPIRED').error).toBe('EXPIRED_CARD');
    expect(refusalOf('34', 'FRAUD SUSPICION').error).toBe('FRAUD_SUSPECTED');
    expect(refusalOf('43', null)).toEqual({ error: 'BLACKLISTED', details: 'Worldpay refused the payment (43): STOLEN CARD, PICK UP' });
    expect(refusalOf('99', 'SOMETHING NEW').error).toBe('DENIED');
  });

  it('3-D Secure: device data asked for, then the challenge with its page and the JWT the page is posted', () => {
    expect(readPayment(deviceData, { reference: REF, amount: 250 }, 'payment')).toEqual({ kind: 'deviceData', actions: { supply3dsDeviceData: `${BASE}/api/payments/${LINK}/supply3dsDeviceData` } });
    expect(readPayment(challenged, { reference: REF, amount: 250 }, 'payment')).toEqual({ kind: 'challenge', url: challenged.challenge.url, jwt: challenged.challenge.jwt, actions: { complete3dsChallenge: `${BASE}/api/payments/${LINK}/complete3dsChallenge` } });
    expect(readPayment({ outcome: '3dsAuthenticationFailed', transactionReference: REF }, { reference: REF, amount: 250 }, 'payment')).toMatchObject({ result: { outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED' } });
    expect(readPayment({ ...challenged, _actions: {} }, { reference: REF, amount: 250 }, 'payment')).toMatchObject({ result: { outcome: 'UNKNOWN' } });
  });

  it('settle, cancel and refund follow the payment\'s last actions; a link outside the configured host is not followed', () => {
    const a = actionsOf({ _actions: links('settlePayment', 'partiallySettlePayment', 'cancelPayment') });
    expect(chooseAction('capture', a, 1000, { amount: 1000, refundedBefore: false })).toMatchObject({ name: 'settlePayment', partial: false });
    expect(chooseAction('capture', a, 600, { amount: 1000, refundedBefore: false })).toMatchObject({ name: 'partiallySettlePayment', partial: true });
    expect(chooseAction('void', a, 1000, { amount: 1000, refundedBefore: false })).toMatchObject({ name: 'cancelPayment' });
    expect(chooseAction('refund', a, 1000, { amount: 1000, refundedBefore: false })).toBeNull();
    const settled = actionsOf({ _actions: links('refundPayment', 'partiallyRefundPayment') });
    expect(chooseAction('refund', settled, 1000, { amount: 1000, refundedBefore: false })).toMatchObject({ name: 'refundPayment', partial: false });
    expect(chooseAction('refund', settled, 1000, { amount: 1000, refundedBefore: true })).toMatchObject({ name: 'partiallyRefundPayment', partial: true });
    expect(pathOf(`${BASE}/api/payments/${LINK}/settlements`, BASE)).toBe(`/api/payments/${LINK}/settlements`);
    expect(pathOf(`https://evil.example/api/payments/${LINK}/settlements`, BASE)).toBeNull();
    expect(pathOf(`${BASE}/api/payments/x`, 'https://try.access.worldpay.com/prefix')).toBeNull();
    expect(linkDataOf({ _links: { self: { href: `${BASE}/api/payments/${LINK}` } } })).toBe(LINK);
    // the payment's own link answers the actions it allows now
    expect(spec.response('queryPayment', 200, { lastEvent: 'sentForSettlement', _actions: links('refundPayment', 'partiallyRefundPayment') })).toEqual([]);
    expect(spec.request('queryPayment', undefined)).toEqual([]);
  });

  it('a settle, cancel or refund answered with the outcome it was taken with, and the next actions', () => {
    expect(readAction({ outcome: 'sentForSettlement', _actions: links('refundPayment', 'partiallyRefundPayment') }, 'capture')).toEqual({ taken: true, actions: { refundPayment: `${BASE}/api/payments/${LINK}/refundPayment`, partiallyRefundPayment: `${BASE}/api/payments/${LINK}/partiallyRefundPayment` } });
    expect(readAction({ outcome: 'sentForPartialRefund' }, 'refund')).toMatchObject({ taken: true });
    expect(readAction({ outcome: 'sentForCancellation' }, 'void')).toMatchObject({ taken: true });
    expect(readAction({ outcome: 'sentForRefund' }, 'capture')).toMatchObject({ taken: false });
  });

  it('a payment found by the Payment Queries API: by its last event; a refusal\'s code among its events', () => {
    const body = { _embedded: { payments: [{ paymentId: 'pay4u_lHl2jobU5S1T2pWkq10', transactionReference: REF, lastEvent: 'settlementRequested', value: { amount: 250, currency: 'GBP' }, issuer: { authorizationCode: '675725' }, scheme: { reference: '060720116005060' } }, { paymentId: 'payOtherOtherOtherOther123', transactionReference: 'other', lastEvent: 'authorizationSucceeded' }] } };
    expect(spec.response('queryByTransactionReference', 200, body)).toEqual([]);
    const list = queriedPayments(body, REF);
    expect(list).toHaveLength(1);
    expect(resultOfQueried(list[0], { reference: REF, amount: 250, currency: 'GBP' }, 'payment')).toEqual({ state: 'result', result: { outcome: 'APPROVED', authorization: '675725', processorId: 'pay4u_lHl2jobU5S1T2pWkq10', amount: 250, cofTxnid: '060720116005060' } });
    expect(resultOfQueried(list[0], { reference: REF, amount: 300, currency: 'GBP' }, 'payment')).toMatchObject({ result: { outcome: 'UNKNOWN' } });
    expect(resultOfQueried({ ...list[0], lastEvent: 'authorizationRefused' }, { reference: REF, amount: 250, currency: 'GBP' }, 'payment')).toEqual({ state: 'refused' });
    expect(resultOfQueried({ ...list[0], lastEvent: 'cancellationRequested' }, { reference: REF, amount: 250, currency: 'GBP' }, 'payment')).toMatchObject({ result: { outcome: 'DECLINED', error: 'DENIED' } });
    expect(resultOfQueried({ ...list[0], lastEvent: 'cancellationRequested' }, { reference: REF, amount: 250, currency: 'GBP' }, 'preauth')).toMatchObject({ result: { outcome: 'APPROVED' } });
    expect(resultOfQueried({ ...list[0], lastEvent: 'authorizationRequested' }, { reference: REF, amount: 250, currency: 'GBP' }, 'payment')).toMatchObject({ result: { outcome: 'UNKNOWN' } });
    const details = { ...body._embedded.payments[0], events: [{ eventName: 'authorizationRequested' }, { eventName: 'authorizationRefused', code: '5', description: 'REFUSED' }] };
    expect(spec.response('retrieveByPaymentId', 200, details)).toEqual([]);
    expect(refusalInEvents(details, 'pay4u_lHl2jobU5S1T2pWkq10')).toEqual({ outcome: 'DECLINED', error: 'DENIED', details: 'Worldpay refused the payment (5): REFUSED', processorId: 'pay4u_lHl2jobU5S1T2pWkq10' });
    // retrieved by its id, a payment's links: its self link and next action links, payments:events its own link
    const own = 'https://try.access.worldpay.com/api/payments/eyJrIjoiazNhYjYzMiJ9';
    const withLinks = { ...body._embedded.payments[0], _links: { self: { href: 'https://try.access.worldpay.com/paymentQueries/payments/pay4u_lHl2jobU5S1T2pWkq10' }, 'payments:events': { href: own } } };
    expect(spec.response('retrieveByPaymentId', 200, withLinks)).toEqual([]);
    expect(queriedLinkOf(withLinks)).toBe(own);
    expect(linkDataOfHref(queriedLinkOf(withLinks))).toBe('eyJrIjoiazNhYjYzMiJ9');
    expect(queriedLinkOf(body._embedded.payments[0])).toBeNull();
    expect(queriedLinkOf({ _links: { 'payments:events': { href: 42 } } })).toBeNull();
    expect(spec.response('retrieveByPaymentId', 200, { ...withLinks, _links: { 'payments:events': { href: own } } })).not.toEqual([]);
    const refunds = { events: [{ eventName: 'refundRequested', refundReference: REF, value: { amount: 300, currency: 'GBP' } }, { eventName: 'settlementRequested', value: { amount: 600, currency: 'GBP' } }] };
    // taken, not processed yet: neither submitted nor failed
    expect(followUpInEvents(refunds, { kind: 'refund', reference: REF, amount: 300 })).toBe('requested');
    expect(followUpInEvents(refunds, { kind: 'refund', reference: 'another', amount: 300 })).toBe('absent');
    expect(followUpInEvents(refunds, { kind: 'capture', reference: 'x', amount: 600 })).toBe('taken');
    expect(followUpInEvents({ events: [{ eventName: 'refundFailed', refundReference: REF }] }, { kind: 'refund', reference: REF, amount: 300 })).toBe('failed');
    // a refund's later events name nothing: they are the refund's when they follow its refundRequested, before the next refund's
    const two = (after1: string[], after2: string[]) => ({ events: [
      { eventName: 'saleSucceeded' }, { eventName: 'refundRequested', value: { amount: 1000, currency: 'GBP' } }, ...after1.map((eventName) => ({ eventName })),
      { eventName: 'refundRequested', refundReference: 'second', value: { amount: 300, currency: 'GBP' } }, ...after2.map((eventName) => ({ eventName })),
    ] });
    expect(spec.response('retrieveByPaymentId', 200, { ...body._embedded.payments[0], ...two(['refundFailed'], ['refundRequestSubmitted']) })).toEqual([]);
    expect(followUpInEvents(two(['refundFailed'], ['refundRequestSubmitted']), { kind: 'refund', reference: 'first', amount: 1000 })).toBe('failed');
    expect(followUpInEvents(two(['refundFailed'], ['refundRequestSubmitted']), { kind: 'refund', reference: 'second', amount: 300 })).toBe('taken');
    expect(followUpInEvents(two([], ['refundFailed']), { kind: 'refund', reference: 'first', amount: 1000 })).toBe('requested');
    expect(followUpInEvents(two(['refundRequestSubmitted'], []), { kind: 'refund', reference: 'second', amount: 300 })).toBe('requested');
    expect(followUpInEvents(two([], []), { kind: 'refund', reference: 'third', amount: 500 })).toBe('absent');
  });

  it('refund events: refunded settles the refund, refundFailed declines it with the refusal the event gives', () => {
    const event = (type: string, extra: Record<string, unknown> = {}) => ({ eventId: 'bb55ca5a-e05c-47e1-8e94-e88bac1a0a17', eventTimestamp: '2018-06-13T14:18:13.407', eventDetails: { classification: 'payment', downstreamReference: '3378792436', transactionReference: REF, type, date: '2017-11-03', reference: 'partial-1', amount: { value: 100, currencyCode: 'EUR' }, _links: { payment: { href: '' } }, ...extra } });
    const failed = event('refundFailed', { refund: { refusal: { code: '5', description: 'Do not honor' } } });
    const refunded = event('refunded', { refund: { onlineRefundAuthorization: '987654' } });
    expect(spec.response('event', 'notification', failed)).toEqual([]);
    expect(spec.response('event', 'notification', refunded)).toEqual([]);
    expect(REFUND_DECISIONS).toEqual(['refunded', 'refundFailed']);
    const op = { amount: 100, currency: 'EUR', processorId: LINK };
    const f = eventFacts(failed)!;
    expect(f).toMatchObject({ type: 'refundFailed', reference: REF, refundReference: 'partial-1', refusal: { code: '5', description: 'Do not honor' } });
    expect(resultOfRefundEvent(f, op)).toEqual({ outcome: 'DECLINED', error: 'DENIED', details: 'Worldpay could not carry out the refund (refundFailed, 5): Do not honor', processorId: LINK });
    expect(resultOfRefundEvent({ ...f, refusal: null }, op)).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR' });
    expect(resultOfRefundEvent(eventFacts(refunded)!, op)).toEqual({ outcome: 'APPROVED', authorization: LINK.slice(0, 40), processorId: LINK, amount: 100 });
    // another amount or currency: not this refund's
    expect(resultOfRefundEvent(f, { ...op, amount: 50 })).toBeNull();
    expect(resultOfRefundEvent(f, { ...op, currency: 'GBP' })).toBeNull();
    expect(resultOfRefundEvent(eventFacts(event('sentForRefund'))!, op)).toBeNull();
  });

  it('events: the documented body, verified by Event-Signature (any of its entries, by keyId), settling the payment it names', () => {
    const raw = JSON.stringify({ eventId: 'bb55ca5a-e05c-47e1-8e94-e88bac1a0a17', eventTimestamp: '2018-06-13T14:18:13.407', eventDetails: { classification: 'payment', transactionReference: REF, type: 'authorized', date: '2018-06-13', amount: { value: 250, currencyCode: 'GBP' }, _links: {} } });
    expect(spec.response('event', 'notification', JSON.parse(raw))).toEqual([]);
    const key = 'event-shared-secret-0123456789';
    const sig = eventSignature(raw, key);
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyEvent(raw, `1/SHA256/${sig}`, key)).toBe(true);
    expect(verifyEvent(raw, `1/SHA256/${'0'.repeat(64)},2/SHA256/${sig.toUpperCase()}`, key)).toBe(true);
    expect(verifyEvent(raw, `1/SHA256/${sig}`, 'another-secret-0123456789')).toBe(false);
    expect(verifyEvent(raw.replace('authorized', 'refused'), `1/SHA256/${sig}`, key)).toBe(false);
    expect(verifyEvent(raw, `1/SHA1/${sig}`, key)).toBe(false);
    expect(verifyEvent(raw, undefined, key)).toBe(false);
    const f = eventFacts(JSON.parse(raw))!;
    expect(f).toEqual({ eventId: 'bb55ca5a-e05c-47e1-8e94-e88bac1a0a17', type: 'authorized', reference: REF, amount: 250, currency: 'GBP', refundReference: null, refusal: null });
    expect(resultOfEvent(f, { kind: 'payment', amount: 250, currency: 'GBP', processorId: LINK })).toMatchObject({ outcome: 'APPROVED', amount: 250 });
    expect(resultOfEvent({ ...f, type: 'refused' }, { kind: 'preauth', amount: 250, currency: 'GBP', processorId: LINK })).toMatchObject({ outcome: 'DECLINED' });
    expect(resultOfEvent({ ...f, type: 'sentForSettlement' }, { kind: 'payment', amount: 250, currency: 'GBP', processorId: LINK })).toBeNull();
    expect(resultOfEvent(f, { kind: 'payment', amount: 300, currency: 'GBP', processorId: LINK })).toBeNull();
    expect(resultOfEvent(f, { kind: 'refund', amount: 250, currency: 'GBP', processorId: LINK })).toBeNull();
  });
});

describe('the Worldpay simulator against the references', () => {
  const sim = new WorldpaySimulator({ accounts: { 'spec-user': { password: 'spec-password-0000', entity: 'default', eventKey: 'spec-event-key-0000000' } } });
  let url = '';
  beforeAll(async () => {
    url = await sim.listen();
  });
  afterAll(async () => {
    await sim.close();
  });
  const call = async (path: string, body?: unknown, o: { version?: string | null; auth?: string } = {}) => {
    const headers: Record<string, string> = { authorization: o.auth ?? `Basic ${Buffer.from('spec-user:spec-password-0000').toString('base64')}`, 'content-type': 'application/json' };
    if (o.version !== null) headers['wp-api-version'] = o.version ?? '2024-06-01';
    const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? null : JSON.parse(text)) as any };
  };
  const local = (href: string) => new URL(href).pathname;
  const body = (extra: Record<string, unknown> = {}, kind: 'payment' | 'preauth' = 'preauth') => ({ ...json(paymentBody({ ...base, card: { ...base.card, pan: secret('4444333322221111') }, reference: `sim-${Math.random()}` }, { kind, entity: 'default', schemeReference: null })), ...extra });

  it('a pre-authorization settled in part, then refunded, following the answers\' actions', async () => {
    const p = await call('/api/payments', body());
    expect(p.status).toBe(201);
    expect(p.body).toMatchObject({ outcome: 'authorized', issuer: { authorizationCode: expect.stringMatching(/^\d{6}$/) }, schemeReference: expect.any(String), _actions: { settlePayment: { method: 'POST' }, partiallySettlePayment: {}, cancelPayment: {} } });
    const s = await call(local(p.body._actions.partiallySettlePayment.href), { reference: 'part-1', value: { amount: 100, currency: 'GBP' } });
    expect(s).toMatchObject({ status: 202, body: { outcome: 'sentForSettlement', _actions: { refundPayment: {}, partiallyRefundPayment: {} } } });
    const r = await call(local(s.body._actions.partiallyRefundPayment.href), { reference: 'refund-1', value: { amount: 100, currency: 'GBP' } });
    expect(r).toMatchObject({ status: 202, body: { outcome: 'sentForPartialRefund' } });
    // nothing left to refund: the action is not offered any more
    expect((await call(local(s.body._actions.partiallyRefundPayment.href), { reference: 'refund-2', value: { amount: 1, currency: 'GBP' } })).status).toBe(400);
  });

  it('a payment retrieved by its id (Payment Queries) gives its own link among its links, which answers the actions it allows now', async () => {
    const p = await call('/api/payments', body({}, 'payment'));
    expect(p).toMatchObject({ status: 201, body: { outcome: 'sentForSettlement' } });
    const auth = `Basic ${Buffer.from('spec-user:spec-password-0000').toString('base64')}`;
    const get = async (path: string, headers: Record<string, string>) => {
      const res = await fetch(`${url}${path}`, { headers: { authorization: auth, ...headers } });
      return { status: res.status, body: (await res.json()) as any };
    };
    const queries = { accept: 'application/vnd.worldpay.payment-queries-v1.hal+json' };
    const list = await get(`/paymentQueries/payments?transactionReference=${encodeURIComponent(p.body.transactionReference)}`, queries);
    expect(list.status).toBe(200);
    const [found] = list.body._embedded.payments;
    // the query by reference links only to the payment's retrieval by id
    expect(Object.keys(found._links)).toEqual(['self']);
    const one = await get(local(found._links.self.href), queries);
    expect(one).toMatchObject({ status: 200, body: { paymentId: found.paymentId, _links: { 'payments:events': { href: p.body._links.self.href } } } });
    const current = await get(local(one.body._links['payments:events'].href), { 'wp-api-version': '2024-06-01' });
    expect(current).toMatchObject({ status: 200, body: { lastEvent: 'settlementRequested', _actions: { refundPayment: {}, partiallyRefundPayment: {} } } });
    expect(current.body._actions.cancelPayment).toBeUndefined();
    expect(sim.spec.violations).toEqual([]);
  });

  it('authentication and the API version are required; a body the reference does not allow is answered 400 and recorded', async () => {
    expect((await call('/api/payments', body(), { auth: `Basic ${Buffer.from('spec-user:wrong').toString('base64')}` })).status).toBe(401);
    expect((await call('/api/payments', body(), { version: null })).status).toBe(406);
    const bad = await call('/api/payments', body({ orderCode: 'x' }));
    expect(bad).toMatchObject({ status: 400, body: { errorName: 'bodyDoesNotMatchSchema', validationErrors: [expect.objectContaining({ errorName: 'fieldHasInvalidValue' })] } });
    expect(sim.spec.violations).toEqual([expect.stringContaining('(orderCode)')]);
    sim.spec.violations.splice(0);
  });

  it('a refusal by the card holder\'s name, as in Worldpay\'s Try environment', async () => {
    const b = body({}, 'payment');
    ((b.instruction as Record<string, Record<string, unknown>>).paymentInstrument).cardHolderName = 'REFUSED51';
    expect((await call('/api/payments', b)).body).toMatchObject({ outcome: 'refused', refusalCode: '51', refusalDescription: 'LIMIT EXCEEDED' });
    sim.spec.assertClean();
  });
});
