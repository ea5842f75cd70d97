/**
 * The Clearhaus mapping held to Clearhaus's public Gateway API reference (spec.ts): the documentation's
 * RSA signature example reproduced byte for byte; every request the mapping builds, for each scenario,
 * is one the reference allows, and the combinations it forbids are refused; the answers of the
 * documentation's examples (quoted here) read as they should: an approval with its id, a capture and a
 * refund of their amount, a first-in-series with its scheme transaction id, status messages as declines
 * in Clearhaus's words; every status code of its table maps to a transaction error; the credentials'
 * checks.
 */
import { describe, expect, it } from 'vitest';
import { SpecChecker } from '../../src/processors/kit/spec.js';
import { CLEARHAUS_SPEC, STATUS_CODE_VALUES } from '../../src/processors/clearhaus/spec.js';
import {
  amountParams, authorizationParams, authorizationResultOf, factsOf, followUpResultOf, formBody, headersOf, parseForm, referenceOf, signatureOf, statementTextOf, threedsRawOf,
} from '../../src/processors/clearhaus/mapping.js';
import { refusalOf, STATUS_CODES } from '../../src/processors/clearhaus/codes.js';
import { clearhausTerminalOf, clearhausTerminalProblems } from '../../src/processors/clearhaus/credentials.js';
import { DOCUMENTED_SIGNING_API_KEY, DOCUMENTED_SIGNING_KEY } from '../../src/processors/clearhaus/simulator/index.js';
import { secret } from '../../src/platform/security/secret.js';
import type { PaymentRequest } from '../../src/processors/connector.js';

const spec = new SpecChecker(CLEARHAUS_SPEC);
const REF = '6f1c1c4e-0d0e-4d1a-9b55-0c7e3f3c2a10';
const API_KEY = '0f8c2a35-6d1e-4b7a-9c3f-5e2d8a1b4c6d';
const PREVIOUS = '1b722683-92ad-4c6b-85da-e119d550670d';
const flat = (p: Array<[string, string]>) => Object.fromEntries(p);

// the documentation's example card ("Reserve money": 4111111111111111, 06/2022, CSC 123; a later expiry here)
const base: Pick<PaymentRequest, 'reference' | 'amount' | 'currency' | 'card' | 'channel' | 'threeds' | 'storeCredential' | 'storedCard' | 'mit' | 'customerIp' | 'dynamicDescriptor'> = {
  reference: REF, amount: 2050, currency: 'EUR', channel: 'ECOMMERCE', customerIp: '1.1.1.1',
  card: { pan: secret('4111111111111111'), expiryMonth: 6, expiryYear: 2031, cvv: secret('123'), holder: 'Ana' },
};
const auth = (req: Partial<typeof base>, kind: 'payment' | 'preauth' | 'verify' = 'payment', previous: string | null = null) => flat(authorizationParams({ req: { ...base, ...req }, kind, previous }));

describe('Clearhaus request signing (#signing-requests, #rsa-signature)', () => {
  it('reproduces the documentation\'s example: the body, the RS256-hex signature, the Signature header', () => {
    const t = clearhausTerminalOf({ api_key: API_KEY, signing_api_key: DOCUMENTED_SIGNING_API_KEY, signing_private_key: DOCUMENTED_SIGNING_KEY });
    // "and the body is amount=2050&currency=EUR&ip=1.1.1.1&card[pan]=4111111111111111&card[expire_month]=06&card[expire_year]=2022&card[csc]=123"
    const body = formBody([['amount', '2050'], ['currency', 'EUR'], ['ip', '1.1.1.1'], ['card[pan]', '4111111111111111'], ['card[expire_month]', '06'], ['card[expire_year]', '2022'], ['card[csc]', '123']]);
    expect(body).toBe('amount=2050&currency=EUR&ip=1.1.1.1&card[pan]=4111111111111111&card[expire_month]=06&card[expire_year]=2022&card[csc]=123');
    // "then the Signature header should be Signature: 4390aec7-... RS256-hex 7ae0e14d..."
    expect(signatureOf(body, t.signing!)).toBe('4390aec7-f76a-4c2f-8597-c87c2d06cb4f RS256-hex 7ae0e14d35b2a15a7ff812a1899d7f0a5d28063f0c276081876a51fc3773f499459f944f8b57c6e0e76b47c218b20ebaad7c6250dcd1804dd19c87fb7f1216ba');
    expect(headersOf(t, body).signature).toBe(signatureOf(body, t.signing!));
    // HTTP Basic: the API key as username, a blank password; a GET is not signed
    expect(headersOf(t, null)).toEqual({ authorization: `Basic ${Buffer.from(`${API_KEY}:`).toString('base64')}` });
    expect(headersOf({ apiKey: API_KEY, signing: null }, body).signature).toBeUndefined();
  });

  it('values are percent-encoded, bracketed names kept; parseForm reads what formBody wrote', () => {
    const body = formBody([['text_on_statement', 'Shop & Co'], ['card[3dsecure][v2][raw][av]', 'AAABBEg0VhI0VniQEjRWAAAAAAA=']]);
    expect(body).toBe('text_on_statement=Shop%20%26%20Co&card[3dsecure][v2][raw][av]=AAABBEg0VhI0VniQEjRWAAAAAAA%3D');
    expect(parseForm(body)).toEqual({ text_on_statement: 'Shop & Co', 'card[3dsecure][v2][raw][av]': 'AAABBEg0VhI0VniQEjRWAAAAAAA=' });
  });
});

describe('Clearhaus authorizations against the reference (#authorizations, #method-card, #method-moto)', () => {
  const threeds = { version: '2.2.0', transStatus: 'Y', eci: '5', cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', dsTransId: 'F25084F0-5B16-4C0A-AE5D-B24808A95E4B' };
  const scenarios: Array<[string, Record<string, string>]> = [
    ['a payment', auth({})],
    ['a pre-authorization', auth({}, 'preauth')],
    ['a card verification of 0', auth({}, 'verify')],
    ['a payment that stores the card (first-in-series)', auth({ storeCredential: true })],
    ['a stored card used again by the cardholder', auth({ storedCard: true })],
    ['a payment with an external 3-D Secure result', auth({ threeds })],
    ['a MoTo payment', auth({ channel: 'MOTO', card: { ...base.card, cvv: null } })],
    ['a merchant-initiated payment quoting its series', auth({ channel: 'MIT', mit: 'RECURRING' }, 'payment', PREVIOUS)],
    ['a merchant-initiated payment without a series', auth({ channel: 'MIT' })],
  ];
  it.each(scenarios)('%s is a request the reference allows', (_name, params) => {
    expect(spec.request('authorize', params)).toEqual([]);
  });

  it('the "Reserve money" example\'s parameters, with our reference in 25 base-36 digits', () => {
    expect(scenarios[0][1]).toEqual({
      amount: '2050', currency: 'EUR', ip: '1.1.1.1', reference: referenceOf(REF), 'card[pan]': '4111111111111111', 'card[expire_month]': '06', 'card[expire_year]': '2031', 'card[csc]': '123',
    });
    expect(referenceOf(REF)).toMatch(/^[0-9a-z]{25}$/);
    expect(referenceOf(REF)).toBe(referenceOf(REF.toUpperCase()));
    expect(referenceOf('batch-line-7')).toMatch(/^[0-9a-z]{25}$/);
    expect(scenarios[2][1]).toMatchObject({ amount: '0', 'series[type]': 'unscheduled', credential_on_file: 'store' });
  });

  it('stored credentials and merchant-initiated payments: series[type] starts a series, series[previous][id] follows it without CSC or 3-D Secure ("Repeatedly reserve money")', () => {
    expect(scenarios[3][1]).toMatchObject({ 'series[type]': 'unscheduled', credential_on_file: 'store', 'card[csc]': '123' });
    expect(scenarios[4][1]).toMatchObject({ credential_on_file: 'use' });
    expect(scenarios[4][1]['series[type]']).toBeUndefined();
    const mit = auth({ channel: 'MIT', threeds }, 'payment', PREVIOUS);
    expect(mit['series[previous][id]']).toBe(PREVIOUS);
    expect(Object.keys(mit).filter((k) => k.includes('csc') || k.includes('3dsecure') || k === 'initiator' || k === 'credential_on_file')).toEqual([]);
    expect(scenarios[8][1]).toMatchObject({ initiator: 'merchant', credential_on_file: 'use' });
  });

  it('MoTo uses the moto method: no CSC, no series, no credential on file', () => {
    const moto = scenarios[6][1];
    expect(Object.keys(moto).sort()).toEqual(['amount', 'currency', 'ip', 'moto[expire_month]', 'moto[expire_year]', 'moto[pan]', 'reference']);
    expect(auth({ channel: 'MOTO', storeCredential: true })['series[type]']).toBeUndefined();
  });

  it('an external 3-D Secure version 2 result goes as [3dsecure][v2][raw] (eci zero-padded, ARes); a version 1 result or a bad value is left out', () => {
    expect(flat(threedsRawOf('card', threeds))).toEqual({
      'card[3dsecure][v2][raw][trans_status]': 'Y', 'card[3dsecure][v2][raw][message_version]': '2.2.0', 'card[3dsecure][v2][raw][message_type]': 'ARes',
      'card[3dsecure][v2][raw][eci]': '05', 'card[3dsecure][v2][raw][av]': 'AAABBEg0VhI0VniQEjRWAAAAAAA=', 'card[3dsecure][v2][raw][ds_trans_id]': 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b',
    });
    expect(threedsRawOf('card', { ...threeds, version: '1.0.2' })).toEqual([]);
    expect(flat(threedsRawOf('card', { ...threeds, cavv: 'AAAB', dsTransId: 'ds-1' }))).not.toHaveProperty('card[3dsecure][v2][raw][av]');
  });

  it('a CSC of four digits, a descriptor Clearhaus refuses and an IP that is not one are left out', () => {
    const p = auth({ card: { ...base.card, cvv: secret('1234') }, dynamicDescriptor: '123456', customerIp: 'localhost' });
    expect(p['card[csc]']).toBeUndefined();
    expect(p.text_on_statement).toBeUndefined();
    expect(p.ip).toBeUndefined();
    expect(auth({ dynamicDescriptor: 'Shop Example' }).text_on_statement).toBe('Shop Example');
    expect(statementTextOf('aaaa')).toBeNull();
    expect(statementTextOf('x'.repeat(23))).toBeNull();
  });

  it('the reference refuses what it forbids: two methods, series[type] with series[previous], CSC in a subsequent-in-series, MoTo in a series, store when the merchant initiates, a field it does not define', () => {
    const ok = scenarios[0][1];
    expect(spec.request('authorize', { ...ok, 'moto[pan]': '4111111111111111', 'moto[expire_month]': '06', 'moto[expire_year]': '2031' })).not.toEqual([]);
    expect(spec.request('authorize', { ...ok, 'card[csc]': undefined, 'series[type]': 'recurring', 'series[previous][id]': PREVIOUS })).not.toEqual([]);
    expect(spec.request('authorize', { ...ok, 'series[previous][id]': PREVIOUS })).not.toEqual([]);
    expect(spec.request('authorize', { ...scenarios[6][1], 'series[type]': 'unscheduled' })).not.toEqual([]);
    expect(spec.request('authorize', { ...ok, initiator: 'merchant', credential_on_file: 'store' })).not.toEqual([]);
    expect(spec.request('authorize', { ...ok, 'card[number]': '4111111111111111' })).not.toEqual([]);
    expect(spec.request('authorize', { ...ok, amount: '20.50' })).not.toEqual([]);
    expect(spec.request('capture', flat(amountParams(1000)))).toEqual([]);
    expect(spec.request('refund', flat(amountParams(500)))).toEqual([]);
    expect(spec.request('void', {})).toEqual([]);
    expect(spec.request('capture', { amount: '0' })).not.toEqual([]);
  });
});

describe('Clearhaus answers of the documentation\'s examples', () => {
  // "Reserve money", example response (snippet)
  const reserve = {
    id: '84412a34-fa29-4369-a098-0165a80e8fda', status: { code: 20000 }, csc: { present: true, matches: true }, processed_at: '2018-07-09T12:58:56+00:00',
    _links: { captures: { href: '/authorizations/84412a34-fa29-4369-a098-0165a80e8fda/captures' } },
  };
  // "Withdraw money" and "Refund to cardholder", example responses (snippets)
  const withdraw = {
    id: 'd8e92a70-3030-4d4d-8ad2-684b230c1bed', status: { code: 20000 }, processed_at: '2018-07-09T12:58:56+00:00', amount: 1000,
    _links: { authorization: { href: '/authorizations/84412a34-fa29-4369-a098-0165a80e8fda' }, refunds: { href: '/authorizations/84412a34-fa29-4369-a098-0165a80e8fda/refunds' } },
  };
  const refund = { id: 'f04c0872-47ce-4683-8d8c-e154221bba14', status: { code: 20000 }, processed_at: '2018-07-09T12:58:56+00:00', amount: 500, _links: { authorization: { href: '/authorizations/84412a34-fa29-4369-a098-0165a80e8fda' } } };
  // "Repeatedly reserve money", the first-in-series answer (snippet)
  const firstInSeries = { id: '1b722683-92ad-4c6b-85da-e119d550670d', status: { code: 20000 }, series: { type: 'recurring', tid: '481048839682954', tlid: 'GT24q0_ceu61OT5J0ZXUE3', economically_related_tlid: '8aWIaxDXJ3PF822ho-q722' } };
  // "Secure transactions", example response (snippet)
  const secure = { id: 'd0949241-1ee8-47da-a77c-d251fd9e1e88', status: { code: 20000 }, processed_at: '2020-07-03T11:06:58+00:00', '3dsecure': { version: '2.2.0', status: 'Y' } };
  const PARENT = '84412a34-fa29-4369-a098-0165a80e8fda';

  it('the examples are answers the reference allows', () => {
    expect(spec.response('authorize', 201, reserve)).toEqual([]);
    expect(spec.response('authorize', 201, secure)).toEqual([]);
    expect(spec.response('capture', 201, withdraw)).toEqual([]);
    expect(spec.response('refund', 201, refund)).toEqual([]);
    // "Fetch account information", example response (snippet)
    expect(spec.response('account', 200, { merchant_id: '000000003000001', name: 'Merchant Ltd.', country: 'GB', mcc: '1111', descriptor: 'merchant.com', transaction_rules: 'reject authorization if amount > 100 EUR and (not fully 3dsecure)', acquirer: { visa_bin: 438309, mastercard_bin: 526571 } })).toEqual([]);
    // "Status messages"
    expect(spec.response('authorize', 400, { status: { code: 40000, message: "parameter 'amount' is required" } })).toEqual([]);
    expect(spec.response('authorize', 201, { ...reserve, status: { code: 12345 } })).not.toEqual([]);
  });

  it('an approval is the authorization id; a capture and a refund are approved of their amount; a first-in-series gives its scheme transaction id', () => {
    expect(authorizationResultOf(factsOf(reserve), { amount: 2050, currency: 'EUR' })).toEqual({ outcome: 'APPROVED', authorization: reserve.id, processorId: reserve.id, amount: 2050 });
    expect(followUpResultOf(factsOf(withdraw), { kind: 'capture', amount: 1000, parent: PARENT })).toEqual({ outcome: 'APPROVED', authorization: PARENT, processorId: PARENT, amount: 1000 });
    expect(followUpResultOf(factsOf(refund), { kind: 'refund', amount: 500, parent: PARENT })).toMatchObject({ outcome: 'APPROVED', amount: 500 });
    expect(factsOf(firstInSeries).seriesTid).toBe('481048839682954');
    expect(factsOf(reserve).cscMatches).toBe(true);
  });

  it('answers are not signed: an approval of another amount or currency, or without its id or status, is not believed', () => {
    expect(authorizationResultOf(factsOf({ ...reserve, amount: 2051 }), { amount: 2050, currency: 'EUR' }).outcome).toBe('UNKNOWN');
    expect(authorizationResultOf(factsOf({ ...reserve, currency: 'DKK' }), { amount: 2050, currency: 'EUR' }).outcome).toBe('UNKNOWN');
    expect(authorizationResultOf(factsOf({ ...reserve, id: 'not-a-uuid' }), { amount: 2050, currency: 'EUR' }).outcome).toBe('UNKNOWN');
    expect(authorizationResultOf(factsOf({ ...reserve, status: undefined }), { amount: 2050, currency: 'EUR' }).outcome).toBe('UNKNOWN');
    expect(followUpResultOf(factsOf({ ...withdraw, amount: 999 }), { kind: 'capture', amount: 1000, parent: PARENT }).outcome).toBe('UNKNOWN');
  });

  it('status messages are declines in Clearhaus\'s words; 40416 asks for authentication (not in a follow-up)', () => {
    // "Status messages": {"status": {"code": 40000, "message": "parameter 'amount' is required"}}
    expect(authorizationResultOf(factsOf({ status: { code: 40000, message: "parameter 'amount' is required" } }), { amount: 2050, currency: 'EUR' })).toEqual({
      outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: "Clearhaus: General input error: parameter 'amount' is required (status 40000)", processorId: null,
    });
    // {"status": {"code": 40200, "message": "amount > 100 EUR and (not strongly authenticated)"}}
    expect(authorizationResultOf(factsOf({ id: reserve.id, status: { code: 40200, message: 'amount > 100 EUR and (not strongly authenticated)' } }), { amount: 20000, currency: 'EUR' })).toMatchObject({
      outcome: 'DECLINED', error: 'DENIED', details: expect.stringContaining('not strongly authenticated'), processorId: reserve.id,
    });
    expect(authorizationResultOf(factsOf({ id: reserve.id, status: { code: 40416 } }), { amount: 2050, currency: 'EUR' })).toMatchObject({ outcome: 'CHALLENGE' });
    expect(followUpResultOf(factsOf({ id: reserve.id, status: { code: 40416 } }), { kind: 'refund', amount: 1, parent: PARENT })).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR' });
  });
});

describe('Clearhaus status codes (#transaction-status-codes)', () => {
  it('every code of the table but 20000 has its meaning and error; the listed ones map as decided', () => {
    expect(Object.keys(STATUS_CODES).map(Number).sort()).toEqual(STATUS_CODE_VALUES.filter((c) => c !== 20000).sort());
    const errorOf = (c: number) => refusalOf(c).error;
    expect([40110, 40111, 40120, 40130].map(errorOf)).toEqual(['INVALID_CARD', 'INVALID_CARD', 'INVALID_CARD', 'INVALID_CARD']);
    expect(errorOf(40135)).toBe('EXPIRED_CARD');
    expect([40410, 40411, 40200, 40420].map(errorOf)).toEqual(['DENIED', 'DENIED', 'DENIED', 'DENIED']);
    expect(errorOf(40412)).toBe('BLACKLISTED');
    expect([40413, 40415].map(errorOf)).toEqual(['INSUFFICIENT_FUNDS', 'INSUFFICIENT_FUNDS']);
    expect(errorOf(40414)).toBe('FRAUD_SUSPECTED');
    expect([40300, 40310].map(errorOf)).toEqual(['AUTHENTICATION_FAILED', 'AUTHENTICATION_FAILED']);
    expect([40000, 40140, 40150, 40400, 50000].map(errorOf)).toEqual(Array(5).fill('PROCESSOR_ERROR'));
    expect(refusalOf(49999)).toEqual({ error: 'DENIED', details: 'Clearhaus: Declined (status 49999)' });
    expect(refusalOf(40420).details).toMatch(/halt every merchant-initiated payment/);
    expect(refusalOf(40413, 'Insufficient funds').details).toBe('Clearhaus: Insufficient funds (status 40413)');
  });
});

describe('Clearhaus terminal credentials', () => {
  it('an API key (UUID), and a signing API key with its RSA private key, both or neither', () => {
    expect(clearhausTerminalProblems({ api_key: API_KEY })).toEqual([]);
    expect(clearhausTerminalProblems({ api_key: API_KEY, signing_api_key: DOCUMENTED_SIGNING_API_KEY, signing_private_key: DOCUMENTED_SIGNING_KEY })).toEqual([]);
    expect(clearhausTerminalProblems({ api_key: 'secret' })).toEqual([expect.stringContaining('credentials.api_key')]);
    expect(clearhausTerminalProblems({ api_key: API_KEY, signing_api_key: DOCUMENTED_SIGNING_API_KEY })).toEqual([expect.stringContaining('go together')]);
    expect(clearhausTerminalProblems({ api_key: API_KEY, signing_api_key: 'x', signing_private_key: 'not a key' })).toEqual([expect.stringContaining('signing_api_key must be'), expect.stringContaining('signing_private_key must be')]);
    // a PEM pasted with \n escapes still reads
    expect(clearhausTerminalProblems({ api_key: API_KEY, signing_api_key: DOCUMENTED_SIGNING_API_KEY, signing_private_key: DOCUMENTED_SIGNING_KEY.replace(/\n/g, '\\n') })).toEqual([]);
    expect(clearhausTerminalOf({ api_key: API_KEY }).signing).toBeNull();
    expect(() => clearhausTerminalOf({})).toThrow(/missing: api_key/);
  });
});
