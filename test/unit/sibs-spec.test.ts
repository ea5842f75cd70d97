/**
 * The SIBS Gateway mapping held to the SPG v2 references (spec.ts): every request the mapping builds,
 * for each scenario, is one the reference allows (SpecChecker.request), and answers shaped as the
 * references' models (their facts re-typed here: field names, values) read as they should: a checkout
 * with its transaction and signature, a purchase Success / Declined / Pending (MB WAY on the phone) /
 * Expired, answers about another transaction or amount not believed, an encrypted notification that
 * decrypts only with its key, IV and tag.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SpecChecker } from '../../src/processors/kit/spec.js';
import { SIBS_SPEC } from '../../src/processors/sibs/spec.js';
import {
  acknowledgement, actionOf, amountOf, cardPurchaseBody, checkoutBody, customerPhoneOf, decryptNotification, encryptNotification, followUpBody, headersOf,
  mbwayPurchaseBody, merchantTransactionIdOf, minorOf, notificationFacts, PATHS, readCheckout, resultOfPayment, validationDateOf, voucherOf,
} from '../../src/processors/sibs/mapping.js';
import { codeFamily, refusalOf, statusOf } from '../../src/processors/sibs/codes.js';
import { sibsTerminalOf, sibsTerminalProblems } from '../../src/processors/sibs/credentials.js';
import { secret } from '../../src/platform/security/secret.js';
import { SIBS } from '../../src/processors/sibs/declaration.js';
import { credentialProblems } from '../../src/processors/kit/declaration.js';
import { simulator as sibsSimulator } from '../../src/processors/sibs/simulator/index.js';

const spec = new SpecChecker(SIBS_SPEC);
const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Record<string, unknown>;
const REF = '6f1c1c4e-0d0e-4d1a-9b55-0c7e3f3c2a10';
const MTID = '6f1c1c4e0d0e4d1a9b550c7e3f3c2a10';
const TS = '2026-12-07T08:00:00.000Z';
const TX = 's2nn7bnX9CJaEDUtZayw';
const base = { reference: REF, amount: 1250, currency: 'EUR', channel: 'ECOMMERCE' as const, storeCredential: false };
const card = { pan: secret('4176660000000100'), expiryMonth: 2, expiryYear: 2028, cvv: secret('123'), holder: 'Maria Silva' };
const x = { reference: REF, amount: 1250, currency: 'EUR', transactionId: TX };
const ok = { statusCode: '000', statusMsg: 'Success', statusDescription: 'Success' };

describe('SIBS requests against the SPG v2 reference', () => {
  it('a checkout for each kind of payment is one the reference allows', () => {
    for (const kind of ['payment', 'preauth', 'verify', 'mbway'] as const) {
      const b = json(checkoutBody(base, { kind, terminalId: 80317, timestamp: TS }));
      expect(spec.request('checkout', b)).toEqual([]);
      const t = b.transaction as Record<string, unknown>;
      expect(t.paymentType).toBe(kind === 'payment' || kind === 'mbway' ? 'PURS' : 'AUTH');
      expect(t.paymentMethod).toEqual([kind === 'mbway' ? 'MBWAY' : 'CARD']);
      expect(t.amount).toEqual({ value: kind === 'verify' ? 0 : 12.5, currency: 'EUR' });
      expect(b.merchant).toEqual({ terminalId: 80317, channel: 'web', merchantTransactionId: MTID });
    }
  });

  it('MoTo says moto; a card being stored asks for a token; a stored card does not', () => {
    const moto = json(checkoutBody({ ...base, channel: 'MOTO' }, { kind: 'payment', terminalId: 1, timestamp: TS }));
    expect((moto.transaction as Record<string, unknown>).moto).toBe(true);
    const storing = json(checkoutBody({ ...base, storeCredential: true }, { kind: 'payment', terminalId: 1, timestamp: TS }));
    expect(storing.tokenisation).toEqual({ tokenisationRequest: { tokeniseCard: true } });
    expect(spec.request('checkout', storing)).toEqual([]);
    expect(json(checkoutBody(base, { kind: 'payment', terminalId: 1, timestamp: TS })).tokenisation).toBeUndefined();
  });

  it('the card purchase carries the card as cardInfo with the expiry as validationDate', () => {
    const b = json(cardPurchaseBody(card, { createToken: true }));
    expect(spec.request('cardPurchase', b)).toEqual([]);
    expect(b.cardInfo).toEqual({ PAN: '4176660000000100', secureCode: '123', validationDate: '2028-02-29T23:59:59Z', cardholderName: 'Maria Silva', createToken: true });
    expect(validationDateOf(12, 2027)).toBe('2027-12-31T23:59:59Z');
  });

  it('an MB WAY phone becomes 351#9 digits; anything else is refused before sending', () => {
    expect(customerPhoneOf('912000000')).toBe('351#912000000');
    expect(customerPhoneOf('+351 912 000 000')).toBe('351#912000000');
    expect(customerPhoneOf('00351912000000')).toBe('351#912000000');
    expect(customerPhoneOf('212000000')).toBeNull();
    expect(customerPhoneOf('+34 612000000')).toBeNull();
    expect(spec.request('mbwayPurchase', mbwayPurchaseBody('351#912000000'))).toEqual([]);
    expect(spec.request('mbwayPurchase', { customerPhone: '912000000' })).not.toEqual([]);
  });

  it('a Multibanco checkout asks for a reference of exactly the amount, with the entity, until its expiry', () => {
    const b = json(checkoutBody(base, { kind: 'multibanco', terminalId: 80317, timestamp: TS, reference: { entity: '21234', until: '2026-12-10T08:00:00.000Z' } }));
    expect(spec.request('checkout', b)).toEqual([]);
    expect(b.transaction).toMatchObject({ paymentType: 'PURS', paymentMethod: ['REFERENCE'], paymentReference: { initialDatetime: TS, finalDatetime: '2026-12-10T08:00:00.000Z', entity: '21234', minAmount: { value: 12.5, currency: 'EUR' }, maxAmount: { value: 12.5, currency: 'EUR' } } });
    expect(spec.request('referenceGenerate', {})).toEqual([]);
    expect(spec.request('referenceGenerate', { amount: 1 })).not.toEqual([]);
  });

  it('captures, cancellations and refunds name the original transaction', () => {
    for (const [kind, id] of [['capture', 'capture'], ['void', 'cancellation'], ['refund', 'refund']] as const) {
      const b = json(followUpBody(kind, { terminalId: 80317, reference: REF, timestamp: TS, amount: 500, currency: 'EUR', originalId: TX, originalDatetime: TS }));
      expect(spec.request(id, b)).toEqual([]);
      expect(b.originalTransaction).toEqual({ id: TX, datetime: TS });
      expect((b.transaction as Record<string, unknown>).amount).toEqual({ value: 5, currency: 'EUR' });
    }
    expect(PATHS.void(TX)).toBe(`/payments/${TX}/cancellation`);
    expect(PATHS.statusByReference(REF)).toBe(`/payments/status?merchantTransactionId=${MTID}`);
  });

  it('a field the reference does not define is a violation', () => {
    const b = json(checkoutBody(base, { kind: 'payment', terminalId: 1, timestamp: TS }));
    expect(spec.request('checkout', { ...b, capture: true })).not.toEqual([]);
    expect(spec.request('checkout', { ...b, merchant: { ...(b.merchant as object), merchantTransactionId: 'x'.repeat(33) } })).not.toEqual([]);
  });

  it('headers: Bearer and the client id; the transaction signature as Digest for a purchase on it', () => {
    const t = { clientId: '784ad796-b6bc-4857-b6a5-c32354b5679c', bearerToken: 'tok.en' };
    expect(headersOf(t)).toMatchObject({ authorization: 'Bearer tok.en', 'x-ibm-client-id': t.clientId });
    expect(headersOf(t, 'sig.na.ture')).toMatchObject({ authorization: 'Digest sig.na.ture', 'x-ibm-client-id': t.clientId });
  });
});

describe('SIBS answers', () => {
  it('a checkout gives the transaction and its signature; a refused one is declined with SIBS\'s words', () => {
    const answer = { returnStatus: ok, transactionID: TX, transactionSignature: 'eyJ0eElkIjoiczJu.Xyyk.fDgH', amount: { value: 12.5, currency: 'EUR' }, merchant: { terminalId: 80317, channel: 'web', merchantTransactionId: MTID }, paymentMethodList: ['CARD'], formContext: 'e30=' };
    expect(spec.response('checkout', 200, answer)).toEqual([]);
    expect(readCheckout(answer, x, 'payment')).toEqual({ transactionId: TX, signature: 'eyJ0eElkIjoiczJu.Xyyk.fDgH' });
    expect(readCheckout({ ...answer, amount: { value: 12.51, currency: 'EUR' } }, x, 'payment')).toMatchObject({ result: { outcome: 'UNKNOWN' } });
    const refused = { returnStatus: { statusCode: 'E0001', statusMsg: 'Error', statusDescription: 'Invalid terminal' } };
    expect(spec.response('checkout', 400, refused)).toEqual([]);
    expect(readCheckout(refused, x, 'payment')).toEqual({ result: { outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'SIBS E0001: Invalid terminal', processorId: null } });
  });

  it('Success approves, Declined and Expired decline, Pending waits (MB WAY on the phone)', () => {
    const answer = (paymentStatus: string, rs = ok) => ({ returnStatus: rs, paymentStatus, paymentMethod: 'CARD', transactionID: TX, amount: { value: 12.5, currency: 'EUR' }, merchant: { terminalId: 80317, channel: 'web', merchantTransactionId: MTID }, paymentType: 'PURS' });
    for (const s of ['Success', 'Declined', 'Pending', 'Expired']) expect(spec.response('status', 200, answer(s))).toEqual([]);
    expect(resultOfPayment(answer('Success'), x, 'payment')).toEqual({ outcome: 'APPROVED', authorization: TX, processorId: TX, amount: 1250 });
    expect(resultOfPayment(answer('Declined', { statusCode: '000', statusMsg: 'Success', statusDescription: 'Transaction declined by the issuer' }), x, 'payment'))
      .toEqual({ outcome: 'DECLINED', error: 'DENIED', details: 'SIBS 000: Transaction declined by the issuer', processorId: TX });
    expect(resultOfPayment(answer('Pending'), x, 'mbway')).toEqual({ outcome: 'PENDING', details: 'SIBS waits for the customer to approve on the phone (MB WAY)', processorId: TX });
    expect(resultOfPayment(answer('Expired'), x, 'mbway')).toMatchObject({ outcome: 'DECLINED', error: 'DENIED' });
    expect(resultOfPayment({ returnStatus: { statusCode: 'E0507', statusMsg: 'Error' }, transactionID: TX }, x, 'mbway')).toMatchObject({ outcome: 'DECLINED', error: 'INVALID_CARD' });
  });

  it('an answer about another transaction, reference or amount is not believed', () => {
    const good = { returnStatus: ok, paymentStatus: 'Success', transactionID: TX, amount: { value: 12.5, currency: 'EUR' }, merchant: { merchantTransactionId: MTID } };
    expect(resultOfPayment({ ...good, transactionID: 'OtherTransaction1' }, x, 'payment').outcome).toBe('UNKNOWN');
    expect(resultOfPayment({ ...good, merchant: { merchantTransactionId: 'other' } }, x, 'payment').outcome).toBe('UNKNOWN');
    expect(resultOfPayment({ ...good, amount: { value: 12.49, currency: 'EUR' } }, x, 'payment').outcome).toBe('UNKNOWN');
    expect(resultOfPayment({ ...good, paymentStatus: 'Whatever' }, x, 'payment').outcome).toBe('UNKNOWN');
    expect(resultOfPayment({ ...good, amount: { value: 0, currency: 'EUR' } }, x, 'verify').outcome).toBe('APPROVED');
  });

  it('a generated Multibanco reference: entity, reference and expiry for our amount, or nothing', () => {
    const answer = { returnStatus: ok, paymentStatus: 'Pending', paymentMethod: 'REFERENCE', transactionID: TX, paymentReference: { reference: '123 456 789', entity: '21234', paymentEntity: '21234', amount: { value: 12.5, currency: 'EUR' }, status: 'UNPAID', expireDate: '2026-12-10T08:00:00.000Z' } };
    expect(spec.response('referenceGenerate', 200, answer)).toEqual([]);
    expect(voucherOf(answer, x)).toEqual({ entity: '21234', reference: '123456789', expiresAt: '2026-12-10T08:00:00.000Z' });
    expect(resultOfPayment(answer, x, 'multibanco')).toMatchObject({ outcome: 'PENDING', details: 'SIBS waits for the Multibanco reference to be paid' });
    expect(voucherOf({ ...answer, paymentReference: { ...answer.paymentReference, amount: { value: 12.49, currency: 'EUR' } } }, x)).toBeNull();
    expect(voucherOf({ ...answer, paymentReference: { ...answer.paymentReference, paymentEntity: undefined, entity: '1' } }, x)).toBeNull();
    expect(voucherOf({ ...answer, paymentReference: undefined }, x)).toBeNull();
  });

  it('amounts: minor units both ways', () => {
    expect(amountOf(1999, 'EUR')).toEqual({ value: 19.99, currency: 'EUR' });
    expect(minorOf(19.99)).toBe(1999);
    expect(minorOf(0.1 + 0.2)).toBe(30);
    expect(minorOf(1.234)).toBeNull();
    expect(minorOf('12.50')).toBeNull();
    expect(merchantTransactionIdOf(REF)).toBe(MTID);
  });

  it('codes: SIBS\'s words kept, long ones replaced', () => {
    expect(refusalOf('E9999', 'x'.repeat(201), 'Declined')).toEqual({ error: 'DENIED', details: 'SIBS E9999: Declined' });
    expect(refusalOf(null, null)).toEqual({ error: 'PROCESSOR_ERROR', details: 'SIBS none: Not processed' });
  });

  it('codes: the published result codes and families, and every paymentStatus SIBS names', () => {
    // the checkout's and the payment request's result codes: the merchant's parameters, or SIBS's own error
    expect(refusalOf('12.110.1201', null)).toEqual({ error: 'PROCESSOR_ERROR', details: 'SIBS 12.110.1201: the request\'s parameters or data were refused by SIBS (amount, expiry, token, terminal)' });
    expect(refusalOf('12.110.1303', null)).toEqual({ error: 'PROCESSOR_ERROR', details: 'SIBS 12.110.1303: SIBS internal error: try again later' });
    expect(refusalOf('12.110.1301', 'Wrong parameterization, Missing data.').details).toBe('SIBS 12.110.1301: Wrong parameterization, Missing data.');
    // the declined family is DENIED whatever the words; an Error status a processor error
    expect(refusalOf('10.106.0001', 'Insufficient funds')).toEqual({ error: 'DENIED', details: 'SIBS 10.106.0001: Insufficient funds' });
    expect(refusalOf('000', null, 'Error')).toEqual({ error: 'PROCESSOR_ERROR', details: 'SIBS 000: declined by an external system' });
    expect(['000', 'E0101', 'T9999', '00.110.1601', '10.106.0001', '12.110.1201', null].map(codeFamily)).toEqual(['success', 'invalid', 'temporary', 'pending', 'declined', null, null]);
    // statuses as SIBS writes them, whatever their case and spaces
    expect(['Success', 'DECLINED', 'Partial', 'In processing', 'IN PROCESSING', 'Timeout', 'ERROR', 'Expired', 'Pending', 'Paid', 7].map(statusOf))
      .toEqual(['success', 'declined', 'partial', 'inprocessing', 'inprocessing', 'timeout', 'error', 'expired', 'pending', null, null]);
    const answer = (paymentStatus: string | undefined, rs: Record<string, string> = ok) => ({ returnStatus: rs, paymentStatus, transactionID: TX, amount: { value: 12.5, currency: 'EUR' } });
    expect(resultOfPayment(answer('Timeout'), x, 'payment')).toMatchObject({ outcome: 'UNKNOWN' });
    expect(resultOfPayment(answer('Error'), x, 'payment')).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR' });
    expect(resultOfPayment(answer('In processing'), x, 'payment')).toMatchObject({ outcome: 'PENDING' });
    // without a paymentStatus: a temporary or pending code is undecided, a refusal is not
    expect(resultOfPayment(answer(undefined, { statusCode: 'T9999', statusMsg: 'Error' }), x, 'payment')).toMatchObject({ outcome: 'UNKNOWN' });
    expect(resultOfPayment(answer(undefined, { statusCode: '00.110.1601', statusMsg: 'Pending' }), x, 'mbway')).toMatchObject({ outcome: 'UNKNOWN' });
    expect(resultOfPayment(answer(undefined, { statusCode: '12.110.1302', statusMsg: 'Error' }), x, 'payment')).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR' });
  });

  it('a purchase answered Partial waits for 3-D Secure in the browser: refused with the reason, nothing charged', () => {
    const partial = (type: string) => ({ returnStatus: ok, paymentStatus: 'Partial', paymentMethod: 'CARD', transactionID: TX, amount: { value: 12.5, currency: 'EUR' }, actionResponse: { id: 'a1', type, data: { url: 'https://spg.example/3ds', params: [] } } });
    for (const type of ['THREEDS_METHOD', 'THREEDS_CHALLENGE', 'DCC']) expect(spec.response('cardPurchase', 200, partial(type))).toEqual([]);
    expect(spec.response('cardPurchase', 200, partial('OTP'))).not.toEqual([]);
    expect(actionOf(partial('THREEDS_CHALLENGE'))).toEqual({ id: 'a1', type: 'THREEDS_CHALLENGE' });
    expect(resultOfPayment(partial('THREEDS_CHALLENGE'), x, 'payment')).toEqual({ outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', processorId: TX, details: expect.stringMatching(/^SIBS asks for 3-D Secure \(THREEDS_CHALLENGE\).*nothing was charged$/) });
    expect(resultOfPayment(partial('THREEDS_METHOD'), x, 'preauth')).toMatchObject({ outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED' });
    expect(resultOfPayment(partial('DCC'), x, 'payment')).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR' });
    // the status of a purchase left Partial names no action: it was never performed
    expect(resultOfPayment({ ...partial('DCC'), actionResponse: undefined }, x, 'payment')).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR' });
  });
});

describe('SIBS notifications', () => {
  const key = Buffer.from('6Iu0yjGTh3dfMPQ7bKzZ8mfN9ttDeJK+JkTbK6pwgpY=', 'base64');
  const note = { returnStatus: ok, paymentStatus: 'Success', paymentMethod: 'MBWAY', transactionID: TX, transactionDateTime: TS, amount: { value: 12.5, currency: 'EUR' }, merchant: { terminalId: 80317, channel: 'web', merchantTransactionId: MTID }, paymentType: 'PURS', notificationID: 'a1b2c3d4-0001' };

  it('decrypts with the key, IV and tag; any change to them or the body is refused', () => {
    expect(spec.response('notification', 'notification', note)).toEqual([]);
    const iv = randomBytes(12);
    const e = encryptNotification(JSON.stringify(note), key, iv);
    const clear = decryptNotification(e.body, e.iv, e.tag, key);
    expect(JSON.parse(clear!)).toEqual(note);
    const flipped = Buffer.from(e.body, 'base64'); flipped[0] ^= 1;
    expect(decryptNotification(flipped.toString('base64'), e.iv, e.tag, key)).toBeNull();
    expect(decryptNotification(e.body, randomBytes(12).toString('base64'), e.tag, key)).toBeNull();
    expect(decryptNotification(e.body, e.iv, randomBytes(16).toString('base64'), key)).toBeNull();
    expect(decryptNotification(e.body, e.iv, e.tag, randomBytes(32))).toBeNull();
    expect(decryptNotification(e.body, undefined, e.tag, key)).toBeNull();
    expect(decryptNotification('not base64!', e.iv, e.tag, key)).toBeNull();
  });

  it('its facts and the acknowledgement SIBS expects', () => {
    expect(notificationFacts(note)).toMatchObject({ notificationId: 'a1b2c3d4-0001', transactionId: TX, merchantTransactionId: MTID, paymentStatus: 'Success', paymentMethod: 'MBWAY' });
    expect(notificationFacts({ ...note, notificationID: undefined })).toBeNull();
    // SIBS Gateway's Webhooks page: HTTP 200 with {"statusCode": "200", "statusMsg": "Success", "notificationID"}
    expect(acknowledgement('a1b2c3d4-0001')).toEqual({ statusCode: '200', statusMsg: 'Success', notificationID: 'a1b2c3d4-0001' });
    expect(spec.response('notification', 'acknowledgement', acknowledgement('a1b2c3d4-0001'))).toEqual([]);
    expect(spec.response('notification', 'acknowledgement', { statusCode: 200, statusMsg: 'Success', notificationID: 'a1b2c3d4-0001' })).not.toEqual([]);
    expect(resultOfPayment(note, x, 'mbway')).toMatchObject({ outcome: 'APPROVED' });
  });
});

describe('SIBS terminals', () => {
  const good = { terminal_id: '80317', client_id: '784ad796-b6bc-4857-b6a5-c32354b5679c', bearer_token: '0276b80f950fb446c6addaccd121abfbbb.eyJlIjoi', webhook_secret: '6Iu0yjGTh3dfMPQ7bKzZ8mfN9ttDeJK+JkTbK6pwgpY=' };
  it('a usable terminal opens; each wrong credential is named', () => {
    expect(sibsTerminalProblems(good)).toEqual([]);
    expect(sibsTerminalOf(good)).toMatchObject({ terminalId: 80317, clientId: good.client_id, bearerToken: good.bearer_token });
    expect(sibsTerminalOf(good).webhookKey.length).toBe(32);
    expect(sibsTerminalProblems({ ...good, terminal_id: 'T1' })[0]).toMatch(/terminal_id/);
    expect(sibsTerminalProblems({ ...good, client_id: 'abc' })[0]).toMatch(/client_id/);
    expect(sibsTerminalProblems({ ...good, bearer_token: 'Bearer 0276b80f950fb446c6' })[0]).toMatch(/bearer_token/);
    expect(sibsTerminalProblems({ ...good, webhook_secret: 'short' })[0]).toMatch(/webhook_secret/);
    expect(sibsTerminalProblems({ ...good, payment_entity: '1234' })[0]).toMatch(/payment_entity/);
    expect(sibsTerminalOf({ ...good, payment_entity: '21234' }).paymentEntity).toBe('21234');
    expect(sibsTerminalOf(good).paymentEntity).toBeNull();
    expect(() => sibsTerminalOf({ terminal_id: '1' })).toThrow(/missing: client_id, bearer_token, webhook_secret/);
  });

  it('the declaration: credentials as SIBS names them, its URL setting, the simulator\'s terminals usable', () => {
    expect(SIBS).toMatchObject({ name: 'sibs', serviceTypes: ['SIBS'], url: { env: 'PAYGATE_SIBS_URL', production: 'https://api.sibspayments.com/api/v2', test: 'https://spg.qly.site1.sibs.pt/api/v2' } });
    expect(SIBS.credentials.required).toEqual(['terminal_id', 'client_id', 'bearer_token', 'webhook_secret']);
    expect(credentialProblems(SIBS.credentials, null, good)).toEqual([]);
    expect(credentialProblems(SIBS.credentials, null, { ...good, bearer_token: 'x' })).not.toEqual([]);
    expect(() => SIBS.credentials.open(null, sibsSimulator.demoTerminal({}).credentials)).not.toThrow();
    expect(() => SIBS.credentials.open(null, sibsSimulator.harness.terminal.credentials)).not.toThrow();
    expect(SIBS.notifications).toMatchObject({ via: 'webhook' });
    expect((SIBS.notifications as { headers: RegExp }).headers.test('x-authentication-tag')).toBe(true);
  });
});
