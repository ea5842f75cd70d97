/**
 * The Trust Payments mapping held to the Webservices API's published references (spec.ts): every request
 * the mapping builds, for each scenario, is one the reference allows (SpecChecker.request) and carries
 * the fields the reference asks for; the answers of the references' examples (their facts re-typed here:
 * field names and values of the documentation and of Trust Payments' own library tests) read as they
 * should: an authorization with its code and transaction reference, a decline with Trust Payments' code
 * and words, a soft decline, an undecided outcome, a capture or cancellation, the records of a query.
 */
import { describe, expect, it } from 'vitest';
import { SpecChecker } from '../../src/processors/kit/spec.js';
import { TRUSTPAYMENTS_SPEC } from '../../src/processors/trustpayments/spec.js';
import {
  envelopeOf, expiryOf, factsOf, headersOf, orderReferenceOf, paymentRequest, queryRequest, recordOf, recordsOf, refundRequest, responseOf, resultOf, updateRequest, updateResultOf,
} from '../../src/processors/trustpayments/mapping.js';
import { refusalOf } from '../../src/processors/trustpayments/codes.js';
import { trustpaymentsTerminalOf, trustpaymentsTerminalProblems } from '../../src/processors/trustpayments/credentials.js';
import { secret } from '../../src/platform/security/secret.js';
import type { PaymentRequest } from '../../src/processors/connector.js';

const spec = new SpecChecker(TRUSTPAYMENTS_SPEC);
const SITE = 'test_site12345';
const REF = '6f1c1c4e-0d0e-4d1a-9b55-0c7e3f3c2a10';
const RR = 'A1b2C3d4e';
const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Record<string, unknown>;

// the reference's example card (the AUTH page: 4111111111111111, 12/2020 there; a later expiry here)
const base: Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'card' | 'channel' | 'storeCredential' | 'storedCard' | 'mit'> = {
  reference: REF, amount: 1050, currency: 'GBP', channel: 'ECOMMERCE',
  card: { pan: secret('4111111111111111'), expiryMonth: 12, expiryYear: 2031, cvv: secret('123'), holder: 'Joe Bloggs' },
};
const pay = (req: Partial<typeof base>, kind: 'payment' | 'preauth' | 'verify' = 'payment', parent: string | null = null) =>
  json(paymentRequest({ req: { ...base, ...req }, kind, sitereference: SITE, requestreference: RR, parent }));
const env = (r: Record<string, unknown>) => json(envelopeOf('ws@example.com', r));

describe('Trust Payments requests against the Webservices API reference', () => {
  const scenarios: Array<[string, Record<string, unknown>]> = [
    ['a payment', pay({})],
    ['a pre-authorization', pay({}, 'preauth')],
    ['a card verification (ACCOUNTCHECK)', pay({}, 'verify')],
    ['a payment that stores the card', pay({ storeCredential: true })],
    ['a stored card used again by the customer', pay({ storedCard: true })],
    ['a MoTo payment', pay({ channel: 'MOTO', card: { ...base.card, cvv: null } })],
    ['a subscription charge', pay({ channel: 'MIT', mit: 'RECURRING' }, 'payment', '56-9-1234567')],
    ['an instalment', pay({ channel: 'MIT', mit: 'INSTALMENT' }, 'payment', '56-9-1234567')],
    ['an unscheduled charge (a batch line)', pay({ channel: 'MIT' }, 'payment', '56-9-1234567')],
  ];
  it.each(scenarios)('%s is a request the reference allows', (_name, body) => {
    expect(spec.request('auth', env(body))).toEqual([]);
  });

  it('the AUTH of the reference: site, request type, account type, currency, amount in minor units, card, expiry MM/YYYY', () => {
    expect(scenarios[0][1]).toEqual({
      requestreference: RR, sitereference: SITE, requesttypedescriptions: ['AUTH'], accounttypedescription: 'ECOM',
      currencyiso3a: 'GBP', baseamount: '1050', orderreference: orderReferenceOf(REF), pan: '4111111111111111', expirydate: '12/2031', securitycode: '123',
    });
    expect(expiryOf({ expiryMonth: 3, expiryYear: 2030 })).toBe('03/2030');
  });

  it('a pre-authorization is suspended (settlestatus 2, authmethod PRE); a verification is an ACCOUNTCHECK of 0 that stores the card', () => {
    expect(scenarios[1][1]).toMatchObject({ requesttypedescriptions: ['AUTH'], settlestatus: '2', authmethod: 'PRE' });
    expect(scenarios[2][1]).toMatchObject({ requesttypedescriptions: ['ACCOUNTCHECK'], baseamount: '0', credentialsonfile: '1' });
    expect(scenarios[0][1]).not.toHaveProperty('settlestatus');
  });

  it('stored credentials: 1 when stored now, 2 when stored before; MoTo is MOTO; MITs quote the first payment, without the security code', () => {
    expect(scenarios[3][1].credentialsonfile).toBe('1');
    expect(scenarios[4][1].credentialsonfile).toBe('2');
    expect(scenarios[5][1]).toMatchObject({ accounttypedescription: 'MOTO' });
    expect(scenarios[5][1]).not.toHaveProperty('credentialsonfile');
    expect(scenarios[6][1]).toMatchObject({ accounttypedescription: 'RECUR', subscriptiontype: 'RECURRING', credentialsonfile: '2', parenttransactionreference: '56-9-1234567' });
    expect(scenarios[7][1]).toMatchObject({ accounttypedescription: 'RECUR', subscriptiontype: 'INSTALLMENT' });
    expect(scenarios[8][1]).toMatchObject({ accounttypedescription: 'ECOM', initiationreason: 'C', credentialsonfile: '2', parenttransactionreference: '56-9-1234567' });
    for (const [, b] of scenarios.slice(6)) expect(b).not.toHaveProperty('securitycode');
  });

  it('the order reference is ours, 25 characters, the same every time, different for another reference', () => {
    const o = orderReferenceOf(REF);
    expect(o).toMatch(/^[0-9a-z]{25}$/);
    expect(orderReferenceOf(REF)).toBe(o);
    expect(orderReferenceOf('6f1c1c4e-0d0e-4d1a-9b55-0c7e3f3c2a11')).not.toBe(o);
    expect(orderReferenceOf(`${REF}:3ds`)).toMatch(/^[0-9a-z]{25}$/);
    // the uuid's 128 bits, readable back
    expect(BigInt(`0x${REF.replace(/-/g, '')}`).toString(36).padStart(25, '0')).toBe(o);
  });

  it('captures, cancellations, refunds and queries are requests the reference allows', () => {
    const capture = json(updateRequest({ sitereference: SITE, requestreference: RR, transactionreference: '56-9-1234567', kind: 'capture', amount: 50 }));
    expect(capture).toMatchObject({ requesttypedescriptions: ['TRANSACTIONUPDATE'], filter: { sitereference: [{ value: SITE }], transactionreference: [{ value: '56-9-1234567' }] }, updates: { settlestatus: '0', settlebaseamount: '50' } });
    const cancel = json(updateRequest({ sitereference: SITE, requestreference: RR, transactionreference: '56-9-1234567', kind: 'void', amount: 1050 }));
    expect(cancel.updates).toEqual({ settlestatus: '3' });
    const refund = json(refundRequest({ sitereference: SITE, requestreference: RR, reference: REF, parent: '56-9-1234567', amount: 400 }));
    expect(refund).toMatchObject({ requesttypedescriptions: ['REFUND'], parenttransactionreference: '56-9-1234567', baseamount: '400' });
    const query = json(queryRequest({ sitereference: SITE, requestreference: RR, reference: REF }));
    expect(query).toMatchObject({ requesttypedescriptions: ['TRANSACTIONQUERY'], filter: { orderreference: [{ value: orderReferenceOf(REF) }] } });
    expect(spec.request('update', env(capture))).toEqual([]);
    expect(spec.request('update', env(cancel))).toEqual([]);
    expect(spec.request('refund', env(refund))).toEqual([]);
    expect(spec.request('query', env(query))).toEqual([]);
  });

  it('a request the reference does not allow is caught', () => {
    expect(spec.request('auth', env({ ...scenarios[0][1], expirydate: '2031-12' })).join()).toMatch(/expirydate/);
    expect(spec.request('auth', env({ ...scenarios[0][1], cardholder: 'x' })).join()).toMatch(/cardholder/);
  });

  it('every request is sent with HTTP Basic of the alias and password, JSON both ways', () => {
    expect(headersOf({ alias: 'ws@example.com', password: 'Password1^' })).toEqual({
      authorization: `Basic ${Buffer.from('ws@example.com:Password1^').toString('base64')}`, 'content-type': 'application/json', accept: 'application/json',
    });
    expect(env({ a: 1 })).toEqual({ alias: 'ws@example.com', version: '1.00', request: [{ a: 1 }] });
  });
});

describe('Trust Payments answers read as the reference says', () => {
  const ok = { requestreference: RR, version: '1.00', secrand: 'x1', response: [{
    errorcode: '0', errormessage: 'Ok', requesttypedescription: 'AUTH', transactionreference: '56-9-1234567', authcode: 'TEST12',
    acquirerresponsecode: '00', settlestatus: '0', baseamount: '1050', currencyiso3a: 'GBP', orderreference: orderReferenceOf(REF), livestatus: '0', maskedpan: '411111######1111',
  }] };
  const declined = { requestreference: RR, version: '1.00', response: [{ errorcode: '70000', errormessage: 'Decline', requesttypedescription: 'AUTH', authcode: 'DECLINED', transactionreference: '56-9-1234568', settlestatus: '3', baseamount: '1050' }] };
  const expect1050 = { amount: 1050, orderreference: orderReferenceOf(REF) };

  it('the examples are answers the reference allows', () => {
    expect(spec.response('auth', 200, ok)).toEqual([]);
    expect(spec.response('auth', 200, declined)).toEqual([]);
  });

  it('an authorization: approved with its code and transaction reference', () => {
    const r = responseOf(ok, RR)!;
    expect(resultOf(factsOf(r), expect1050)).toEqual({ outcome: 'APPROVED', authorization: 'TEST12', processorId: '56-9-1234567', amount: 1050 });
  });

  it('an answer to another request, or of another amount or order, is not believed', () => {
    expect(responseOf(ok, 'Aother')).toBeNull();
    expect(responseOf({ ...ok, response: [] }, RR)).toBeNull();
    const r = factsOf(responseOf(ok, RR)!);
    expect(resultOf(r, { amount: 999, orderreference: expect1050.orderreference }).outcome).toBe('UNKNOWN');
    expect(resultOf(r, { amount: 1050, orderreference: orderReferenceOf('6f1c1c4e-0d0e-4d1a-9b55-0c7e3f3c2a11') }).outcome).toBe('UNKNOWN');
  });

  it('a decline carries Trust Payments code and words; a soft decline asks for 3-D Secure; an undecided outcome is UNKNOWN', () => {
    expect(resultOf(factsOf(responseOf(declined, RR)!), expect1050)).toEqual({ outcome: 'DECLINED', error: 'DENIED', details: 'Trust Payments: Decline (errorcode 70000)', processorId: '56-9-1234568' });
    const f = (errorcode: string, errormessage: string) => factsOf({ errorcode, errormessage, requesttypedescription: 'AUTH' });
    expect(resultOf(f('60042', 'Insufficient funds'), expect1050)).toMatchObject({ outcome: 'DECLINED', error: 'INSUFFICIENT_FUNDS' });
    expect(resultOf(f('71000', 'Soft Decline'), expect1050).outcome).toBe('CHALLENGE');
    for (const code of ['60010', '70001', '79000', '60034']) expect(resultOf(f(code, 'x'), expect1050).outcome, code).toBe('UNKNOWN');
    expect(resultOf(f('30000', 'Invalid field'), expect1050)).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR' });
    expect(refusalOf('30000', 'Invalid field', ['pan']).details).toBe('Trust Payments: Invalid field (pan) (errorcode 30000)');
    expect(refusalOf('12345', null).error).toBe('DENIED');
  });

  it('a capture or cancellation taken, or refused with Trust Payments words', () => {
    const f = (errorcode: string, errormessage: string) => factsOf({ errorcode, errormessage, requesttypedescription: 'TRANSACTIONUPDATE' });
    expect(updateResultOf(f('0', 'Ok'), { kind: 'capture', amount: 50, parent: '56-9-1234567', authorization: 'TEST12' })).toEqual({ outcome: 'APPROVED', authorization: 'TEST12', processorId: '56-9-1234567', amount: 50 });
    expect(updateResultOf(f('60017', 'Transaction not updatable'), { kind: 'void', amount: 50, parent: '56-9-1234567', authorization: null })).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: expect.stringContaining('Transaction not updatable') });
  });

  it('the records of a query find the operation of each kind', () => {
    const answer = { requestreference: RR, version: '1.00', response: [{ errorcode: '0', errormessage: 'Ok', requesttypedescription: 'TRANSACTIONQUERY', found: '2', records: [
      { requesttypedescription: 'AUTH', transactionreference: '56-9-1234567', errorcode: '0', errormessage: 'Ok', settlestatus: '0', baseamount: '1050', orderreference: orderReferenceOf(REF), authcode: 'TEST12', acquirerresponsecode: '00' },
      { requesttypedescription: 'REFUND', transactionreference: '56-9-1234570', errorcode: '0', errormessage: 'Ok', baseamount: '400', parenttransactionreference: '56-9-1234567', orderreference: orderReferenceOf(REF) },
    ] }] };
    expect(spec.response('query', 200, answer)).toEqual([]);
    const records = recordsOf(responseOf(answer, RR)!)!;
    expect(recordOf(records, { kind: 'payment', orderreference: orderReferenceOf(REF) })?.transactionreference).toBe('56-9-1234567');
    expect(recordOf(records, { kind: 'refund', orderreference: orderReferenceOf(REF) })?.transactionreference).toBe('56-9-1234570');
    expect(recordOf(records, { kind: 'verify', orderreference: orderReferenceOf(REF) })).toBeNull();
    expect(recordsOf({ errorcode: '60019', errormessage: 'No searchable filter specified' })).toBeNull();
  });
});

describe('TRUSTPAYMENTS terminals', () => {
  const good = { alias: 'ws@example.com', password: 'Password1^', sitereference: 'test_site12345' };
  it('a terminal as Trust Payments names its credentials', () => {
    expect(trustpaymentsTerminalProblems(good)).toEqual([]);
    expect(trustpaymentsTerminalOf(good)).toEqual(good);
  });
  it('problems an operator can act on', () => {
    expect(trustpaymentsTerminalProblems({ ...good, sitereference: 'test site' }).join()).toMatch(/sitereference/);
    expect(trustpaymentsTerminalProblems({ ...good, alias: 'a:b' }).join()).toMatch(/alias/);
    expect(() => trustpaymentsTerminalOf({ alias: good.alias, sitereference: good.sitereference })).toThrow(/password/);
  });
});
