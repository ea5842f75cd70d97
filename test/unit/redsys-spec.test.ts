/**
 * Redsys's reference (src/processors/redsys/spec.ts) against the pure mapping: every request the
 * connector builds, per scenario, is one the reference allows (and the shapes it used to send are not);
 * Redsys's own example answers (the answers redsys-easy's tests recorded from Redsys's sandbox, re-typed
 * here) are answers the reference allows, and the mapping reads them as Redsys means them.
 */
import { describe, expect, it } from 'vitest';
import { secret } from '../../src/platform/security/secret.js';
import { SpecChecker } from '../../src/processors/kit/spec.js';
import type { BrowserInfo, CardData, PaymentRequest } from '../../src/processors/connector.js';
import {
  authenticationData,
  bizumRedirectParameters,
  CARD_DATA,
  challengeResponse,
  cofUseOf,
  followUpParameters,
  isThreeDS1,
  paymentParameters,
  resultOfAnswer,
  resultOfErrorCode,
  TX_TYPE,
  verificationParameters,
  type OrderRef,
} from '../../src/processors/redsys/mapping.js';
import { queryRequestXml, readQueryRequest } from '../../src/processors/redsys/query.js';
import { REDSYS_SPEC, sisErrorOf, trataOperationOf } from '../../src/processors/redsys/spec.js';

const spec = new SpecChecker(REDSYS_SPEC);
const ref: OrderRef = { fuc: '999008881', terminal: '001', order: '1234AbCdEfGh' };
const card = (cvv: string | null = '123'): CardData => ({ pan: secret('4548812049400004'), expiryMonth: 12, expiryYear: 2034, cvv: cvv ? secret(cvv) : null, holder: 'Ana' });
const browser: BrowserInfo = { acceptHeader: 'text/html', userAgent: 'Mozilla/5.0', javaEnabled: false, javascriptEnabled: true, language: 'es-ES', colorDepth: 24, screenHeight: 900, screenWidth: 1440, tz: -60 };
const session = { transId: 'ad5165fd-bc46-4d64-84de-d135070191a1', protocolVersion: '2.1.0' };
const dsTransId = 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b';
const cavv = 'AAABBEg0VhI0VniQEjRWAAAAAAA=';

function payment(req: Pick<PaymentRequest, 'channel' | 'storeCredential' | 'mit' | 'threeds'>, known: string | null = null, type: typeof TX_TYPE.AUTHORIZATION | typeof TX_TYPE.PREAUTHORIZATION = TX_TYPE.AUTHORIZATION) {
  return paymentParameters({ ref: { ...ref, terminal: req.channel === 'ECOMMERCE' ? '001' : '002' }, type, amount: 1000, currency: 'EUR', card: card(req.channel === 'MIT' ? null : '123'), channel: req.channel, cof: cofUseOf(req, known), threeds: req.threeds ?? null, merchantUrl: 'https://gateway.example/v1/processor/redsys/notification' });
}

describe('the requests the connector builds are the ones Redsys documents', () => {
  it('payments of every kind (trataPeticion 0 and 1)', () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['a one-off customer payment', payment({ channel: 'ECOMMERCE' })],
      ['the first use of a stored credential', payment({ channel: 'ECOMMERCE', storeCredential: true })],
      ['a later customer use of a stored credential', payment({ channel: 'ECOMMERCE', storeCredential: true }, '123456789012345')],
      ['a recurring MIT', payment({ channel: 'MIT', mit: 'RECURRING' }, '123456789012345')],
      ['an unscheduled MIT', payment({ channel: 'MIT' }, '123456789012345')],
      ['an instalment MIT', payment({ channel: 'MIT', mit: 'INSTALMENT' }, '123456789012345')],
      ['a MIT without a known id', payment({ channel: 'MIT' }, null)],
      ['MoTo', payment({ channel: 'MOTO' })],
      ['an external MPI, EMV 3DS 2', payment({ channel: 'ECOMMERCE', threeds: { version: '2.2.0', transStatus: 'Y', eci: '05', cavv, dsTransId } })],
      ['an external MPI, 3-D Secure 1', payment({ channel: 'ECOMMERCE', threeds: { version: '1.0.2', transStatus: 'Y', eci: '5', cavv, dsTransId: 'xid-1' } })],
      ['card verification (amount 0)', verificationParameters(ref, 'EUR', card())],
    ];
    for (const [what, p] of cases) expect(spec.request(trataOperationOf(p.DS_MERCHANT_TRANSACTIONTYPE), p), what).toEqual([]);
    const pre = payment({ channel: 'ECOMMERCE' }, null, TX_TYPE.PREAUTHORIZATION);
    expect(trataOperationOf(pre.DS_MERCHANT_TRANSACTIONTYPE)).toBe('trataPeticion.preauthorization');
    expect(spec.request('trataPeticion.preauthorization', pre)).toEqual([]);
  });

  it('follow-ups under the payment\'s order number (trataPeticion 2, 3, 9)', () => {
    expect(spec.request('trataPeticion.confirmation', followUpParameters(ref, TX_TYPE.CONFIRMATION, 600, 'EUR'))).toEqual([]);
    expect(spec.request('trataPeticion.refund', followUpParameters(ref, TX_TYPE.REFUND, 1, 'EUR'))).toEqual([]);
    expect(spec.request('trataPeticion.cancellation', followUpParameters(ref, TX_TYPE.CANCELLATION, 1000, 'EUR'))).toEqual([]);
    // a refund is no cancellation
    expect(spec.request('trataPeticion.cancellation', followUpParameters(ref, TX_TYPE.REFUND, 1, 'EUR'))).not.toEqual([]);
  });

  it('EMV 3-D Secure 2: the card configuration (iniciaPeticion), the authentication and the challenge\'s answer (trataPeticion)', () => {
    const params = payment({ channel: 'ECOMMERCE', storeCredential: true });
    expect(spec.request('iniciaPeticion', { ...params, DS_MERCHANT_EMV3DS: CARD_DATA })).toEqual([]);
    expect(spec.request('trataPeticion.authorization', { ...params, DS_MERCHANT_EMV3DS: authenticationData(session, browser, 'https://gateway.example/cres', true) })).toEqual([]);
    expect(spec.request('trataPeticion.authorization', { ...params, DS_MERCHANT_EMV3DS: authenticationData(session, browser, 'https://gateway.example/cres', null) })).toEqual([]);
    expect(spec.request('trataPeticion.authorization', { ...params, DS_MERCHANT_EMV3DS: challengeResponse(session, 'eyJ0cmFuc1N0YXR1cyI6IlkifQ') })).toEqual([]);
  });

  it('the Bizum redirect (realizarPago) and the query service (consultaOperaciones)', () => {
    expect(spec.request('realizarPago', bizumRedirectParameters(ref, 1500, 'EUR', { merchantUrl: 'https://g.example/n', urlOk: 'https://g.example/ok', urlKo: 'https://g.example/ko' }))).toEqual([]);
    const q = readQueryRequest(queryRequestXml('sq7HjrUOBfKmC576ILgskD5srU870gJ7', { fuc: ref.fuc, terminal: ref.terminal, order: ref.order, type: '0' }))!;
    expect(spec.request('consultaOperaciones', { Ds_MerchantCode: q.fuc, Ds_Terminal: q.terminal, Ds_Order: q.order, Ds_TransactionType: q.type })).toEqual([]);
  });

  it('what the connector used to send breaks the reference, and the simulator answers it with the parameter\'s SIS error', () => {
    // the merchant's own 3DS result as EMV3DS AuthenticationData (R1): not Redsys's external MPI
    const old = { ...payment({ channel: 'ECOMMERCE' }), DS_MERCHANT_EMV3DS: { threeDSInfo: 'AuthenticationData', protocolVersion: '2.2.0', transStatus: 'Y', eci: '05', authenticationValue: cavv, dsTransID: dsTransId } };
    const problems = spec.request('trataPeticion.authorization', old);
    expect(problems).not.toEqual([]);
    expect(sisErrorOf(problems)).toBe('SIS0582');
    // a field Redsys does not define; a COF_TYPE it does not define
    expect(sisErrorOf(spec.request('trataPeticion.refund', { ...followUpParameters(ref, TX_TYPE.REFUND, 1, 'EUR'), DS_MERCHANT_FOO: 'x' }))).toBe('SIS0007');
    expect(sisErrorOf(spec.request('trataPeticion.authorization', { ...payment({ channel: 'MIT' }, 'x'), DS_MERCHANT_COF_TYPE: 'X' }))).toBe('SIS0802');
    const { DS_MERCHANT_ORDER: _o, ...noOrder } = followUpParameters(ref, TX_TYPE.REFUND, 1, 'EUR');
    expect(sisErrorOf(spec.request('trataPeticion.refund', noOrder))).toBe('SIS0074');
  });
});

describe('Redsys\'s example answers (recorded from its sandbox) are answers of the reference, read as Redsys means them', () => {
  // redsys-easy test/fixtures/rest/rest-json.ts: a payment approved
  const approved = { Ds_Amount: '145', Ds_Currency: '978', Ds_Order: '1446068581', Ds_MerchantCode: '999008881', Ds_Terminal: '1', Ds_Response: '0000', Ds_AuthorisationCode: '501602', Ds_TransactionType: '0', Ds_SecurePayment: '0', Ds_Language: '1', Ds_CardNumber: '454881********04', Ds_MerchantData: '', Ds_Card_Country: '724', Ds_Card_Brand: '1' };
  const sandboxRef: OrderRef = { fuc: '999008881', terminal: '001', order: '1446068581' };

  it('an approval, a refusal', () => {
    expect(spec.response('trataPeticion.authorization', 'answer', approved)).toEqual([]);
    expect(resultOfAnswer(approved, { ref: sandboxRef, type: TX_TYPE.AUTHORIZATION, amount: 145 }).result).toEqual({ outcome: 'APPROVED', authorization: '501602', processorId: '1446068581', amount: 145 });
    // redsys-easy test/integration/rest/declined.test.ts: 0190 with an empty authorisation code
    const declined = { ...approved, Ds_Response: '0190', Ds_AuthorisationCode: '', Ds_ProcessedPayMethod: '3' };
    expect(spec.response('trataPeticion.authorization', 'answer', declined)).toEqual([]);
    expect(resultOfAnswer(declined, { ref: sandboxRef, type: TX_TYPE.AUTHORIZATION, amount: 145 }).result).toMatchObject({ outcome: 'DECLINED', error: 'DENIED' });
    // an error answer
    expect(spec.response('trataPeticion.authorization', 'error', { errorCode: 'SIS0042' })).toEqual([]);
    expect(resultOfErrorCode('SIS0042')).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR' });
    expect(spec.response('trataPeticion.authorization', 'error', { errorCode: '0042' })).not.toEqual([]);
  });

  it('EMV 3-D Secure 2: the card configuration, the challenge request, the final approval (3ds-v2.1-challenge fixtures)', () => {
    const order: OrderRef = { fuc: '999008881', terminal: '001', order: '6564vNUgKHSe' };
    const configuration = { Ds_Order: order.order, Ds_MerchantCode: order.fuc, Ds_Terminal: '1', Ds_TransactionType: '0', Ds_Card_PSD2: 'Y', Ds_EMV3DS: { protocolVersion: '2.1.0', threeDSServerTransID: 'ad5165fd-bc46-4d64-84de-d135070191a1', threeDSInfo: 'CardConfiguration', threeDSMethodURL: 'https://sis-d.redsys.es/sis-simulador-web/threeDsMethod.jsp' } };
    expect(spec.response('iniciaPeticion', 'cardConfiguration', configuration)).toEqual([]);
    expect(isThreeDS1(configuration.Ds_EMV3DS)).toBe(false);
    const challenge = { Ds_Amount: '3350', Ds_Currency: '978', Ds_Order: order.order, Ds_MerchantCode: order.fuc, Ds_Terminal: '1', Ds_TransactionType: '0', Ds_EMV3DS: { threeDSInfo: 'ChallengeRequest', protocolVersion: '2.1.0', acsURL: 'https://sis-d.redsys.es/sis-simulador-web/authenticationRequest.jsp', creq: 'eyJ0aHJlZURTU2VydmVyVHJhbnNJRCI6ImFkNTE2NWZkIn0' } };
    expect(spec.response('trataPeticion.authorization', 'challenge', challenge)).toEqual([]);
    const final = { Ds_Amount: '3350', Ds_Currency: '978', Ds_Order: order.order, Ds_MerchantCode: order.fuc, Ds_Terminal: '1', Ds_Response: '0000', Ds_AuthorisationCode: '392889', Ds_TransactionType: '0', Ds_SecurePayment: '2', Ds_Language: '1', Ds_CardNumber: '491801******3839', Ds_MerchantData: '', Ds_Card_Country: '724', Ds_Card_Brand: '1', Ds_ProcessedPayMethod: '78' };
    expect(spec.response('trataPeticion.authorization', 'answer', final)).toEqual([]);
    expect(resultOfAnswer(final, { ref: order, type: TX_TYPE.AUTHORIZATION, amount: 3350 })).toEqual({ result: { outcome: 'APPROVED', authorization: '392889', processorId: order.order, amount: 3350 }, facts: { cofTxnid: null, securePayment: '2' } });
  });

  it('3-D Secure 1: a card configuration NO_3DS_v2 and a challenge request with MD and PAReq (3ds-v1 fixtures) are refused', () => {
    const order: OrderRef = { fuc: '999008881', terminal: '001', order: '6705iUKijC4u' };
    const configuration = { Ds_Card_PSD2: 'Y', Ds_MerchantCode: order.fuc, Ds_Order: order.order, Ds_Terminal: '1', Ds_TransactionType: '0', Ds_EMV3DS: { protocolVersion: 'NO_3DS_v2', threeDSInfo: 'CardConfiguration' } };
    expect(spec.response('iniciaPeticion', 'cardConfiguration', configuration)).toEqual([]);
    expect(isThreeDS1(configuration.Ds_EMV3DS)).toBe(true);
    const challenge = { Ds_Amount: '3350', Ds_Currency: '978', Ds_Order: order.order, Ds_MerchantCode: order.fuc, Ds_Terminal: '1', Ds_TransactionType: '0', Ds_EMV3DS: { threeDSInfo: 'ChallengeRequest', protocolVersion: '1.0.2', acsURL: 'https://sis-d.redsys.es/sis-simulador-web/3DS1/pares.jsp', MD: 'efca7298949ce12042c4e5da95a07e324f2d5cbd', PAReq: 'eJxVUttugzAM' } };
    expect(spec.response('trataPeticion.authorization', 'challenge', challenge)).toEqual([]);
    expect(resultOfAnswer(challenge, { ref: order, type: TX_TYPE.AUTHORIZATION, amount: 3350 }).result).toMatchObject({ outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED' });
  });

  it('a stored credential\'s first use answers its network id; the notification of a redirect payment', () => {
    // redsys-easy test/integration/rest/3ds-v2.2-mit-exception-without-3ds-url.test.ts: Ds_Merchant_Cof_Txnid
    const first = { ...approved, Ds_Amount: '3350', Ds_SecurePayment: '2', Ds_ProcessedPayMethod: '78', Ds_Merchant_Cof_Txnid: '2012280941260', Ds_ExpiryDate: '3412' };
    expect(spec.response('trataPeticion.authorization', 'answer', first)).toEqual([]);
    expect(resultOfAnswer(first, { ref: sandboxRef, type: TX_TYPE.AUTHORIZATION, amount: 3350 }).facts.cofTxnid).toBe('2012280941260');
    // test/fixtures/rest/redirect.ts: the notification, with its date and hour as posted (URL-encoded)
    const notification = { Ds_Date: '22%2F10%2F2021', Ds_Hour: '22%3A51', Ds_SecurePayment: '1', Ds_Card_Number: '454881******0004', Ds_Card_Country: '724', Ds_Amount: '4999', Ds_Currency: '978', Ds_Order: '0726qI3H7sZx', Ds_MerchantCode: '999008881', Ds_Terminal: '001', Ds_Response: '0000', Ds_MerchantData: '', Ds_TransactionType: '0', Ds_ConsumerLanguage: '1', Ds_AuthorisationCode: '052029', Ds_Card_Brand: '1', Ds_ProcessedPayMethod: '1' };
    expect(spec.response('notification', 'notification', notification)).toEqual([]);
    expect(spec.response('notification', 'notification', { ...notification, Ds_Date: '22/10/2021', Ds_Hour: '22:51' })).toEqual([]);
    expect(resultOfAnswer(notification, { ref: { fuc: '999008881', terminal: '001', order: '0726qI3H7sZx' }, type: TX_TYPE.AUTHORIZATION, amount: 4999 }).result).toMatchObject({ outcome: 'APPROVED', authorization: '052029' });
    // an operation in progress, as the query service or a notification would say it
    expect(resultOfAnswer({ ...notification, Ds_Response: '9999', Ds_AuthorisationCode: '' }, { ref: { fuc: '999008881', terminal: '001', order: '0726qI3H7sZx' }, type: TX_TYPE.AUTHORIZATION, amount: 4999 }).result.outcome).toBe('PENDING');
  });

  it('every operation of the reference compiles and names its source', () => {
    for (const id of spec.ids()) {
      const op = spec.operation(id);
      expect(op.source.length, id).toBeGreaterThan(20);
      if (op.request) expect(Array.isArray(spec.request(id, {})), id).toBe(true);
      for (const kind of Object.keys(op.responses)) expect(Array.isArray(spec.response(id, kind, {})), `${id} ${kind}`).toBe(true);
    }
    expect(REDSYS_SPEC.sources.join(' ')).toMatch(/bb1de509d960529eae6c5d43907a95fd31814146/);
  });
});
