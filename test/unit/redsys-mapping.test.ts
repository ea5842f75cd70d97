/**
 * The Redsys mapping, both directions per operation (our request -> Ds_MerchantParameters; the answer
 * -> our result), every documented answer code mapped, and the terminal credentials' validation.
 */
import { describe, expect, it } from 'vitest';
import { getResponseCodeMessage, getSISErrorCodeMessage } from 'redsys-easy';
import { secret } from '../../src/platform/security/secret.js';
import { TX_ERRORS, type CardData } from '../../src/processors/connector.js';
import { isApproval, normaliseCode, refusalOf } from '../../src/processors/redsys/codes.js';
import { redsysTerminalOf, redsysTerminalProblems, terminalNumber } from '../../src/processors/redsys/credentials.js';
import { bizumRedirectParameters, cofUseOf, expiryYYMM, externalAuthenticationRefusal, followUpParameters, isThreeDS1, laneFor, paymentParameters, resultOfAnswer, resultOfErrorCode, THREEDS1_REFUSAL, TX_TYPE, verificationParameters, type OrderRef } from '../../src/processors/redsys/mapping.js';
import { queryRequestXml, readQueryAnswer, readQueryRequest } from '../../src/processors/redsys/query.js';
import { newOrderNumber } from '../../src/processors/redsys/ledger.js';
import { sign } from '../../src/processors/redsys/signature.js';

const ref: OrderRef = { fuc: '999008881', terminal: '001', order: '1234AbCdEfGh' };
const card = (cvv: string | null = '123'): CardData => ({ pan: secret('4548812049400004'), expiryMonth: 3, expiryYear: 2034, cvv: cvv ? secret(cvv) : null, holder: 'Ana' });
const answer = (o: Record<string, unknown>) => ({ Ds_Order: ref.order, Ds_MerchantCode: ref.fuc, Ds_Terminal: '1', Ds_Amount: '1000', Ds_Currency: '978', ...o });

describe('requests', () => {
  it('an e-commerce authorization: card, amount, numeric currency; a one-off payment carries no stored-credential fields', () => {
    expect(paymentParameters({ ref, type: TX_TYPE.AUTHORIZATION, amount: 1000, currency: 'EUR', card: card(), channel: 'ECOMMERCE' })).toEqual({
      DS_MERCHANT_ORDER: '1234AbCdEfGh', DS_MERCHANT_MERCHANTCODE: '999008881', DS_MERCHANT_TERMINAL: '001', DS_MERCHANT_TRANSACTIONTYPE: '0',
      DS_MERCHANT_AMOUNT: '1000', DS_MERCHANT_CURRENCY: '978', DS_MERCHANT_PAN: '4548812049400004', DS_MERCHANT_EXPIRYDATE: '3403', DS_MERCHANT_CVV2: '123',
    });
  });

  it('stored credentials: the first use only when the card is stored, later uses quote the network id, merchant-initiated ones say their kind', () => {
    const pay = (req: Parameters<typeof cofUseOf>[0], known: string | null) =>
      paymentParameters({ ref, type: TX_TYPE.AUTHORIZATION, amount: 5, currency: 'EUR', card: card(null), channel: req.channel, cof: cofUseOf(req, known) });
    const cofFields = (p: Record<string, unknown>) => Object.fromEntries(Object.entries(p).filter(([k]) => /COF|EXCEP_SCA|DIRECTPAYMENT/.test(k)));
    // a customer's payment that does not store the card: none (whatever is known of the card)
    expect(cofFields(pay({ channel: 'ECOMMERCE' }, null))).toEqual({});
    expect(cofFields(pay({ channel: 'ECOMMERCE', storeCredential: false }, 'NTX1'))).toEqual({});
    // the card is stored and Redsys has no network id for it yet: the first use
    expect(cofFields(pay({ channel: 'ECOMMERCE', storeCredential: true }, null))).toEqual({ DS_MERCHANT_COF_INI: 'S', DS_MERCHANT_COF_TYPE: 'C' });
    // a stored card whose first use is known: a later customer-initiated use
    expect(cofFields(pay({ channel: 'ECOMMERCE', storeCredential: true }, 'NTX1'))).toEqual({ DS_MERCHANT_COF_INI: 'N', DS_MERCHANT_COF_TYPE: 'C', DS_MERCHANT_COF_TXNID: 'NTX1' });
    // merchant-initiated: recurring (subscriptions) R, unscheduled (batch lines, other charges; the default) C, instalments I
    const mit = { DS_MERCHANT_COF_INI: 'N', DS_MERCHANT_COF_TXNID: 'NTX1', DS_MERCHANT_EXCEP_SCA: 'MIT', DS_MERCHANT_DIRECTPAYMENT: 'true' };
    expect(cofFields(pay({ channel: 'MIT', mit: 'RECURRING' }, 'NTX1'))).toEqual({ ...mit, DS_MERCHANT_COF_TYPE: 'R' });
    expect(cofFields(pay({ channel: 'MIT', mit: 'UNSCHEDULED' }, 'NTX1'))).toEqual({ ...mit, DS_MERCHANT_COF_TYPE: 'C' });
    expect(cofFields(pay({ channel: 'MIT' }, 'NTX1'))).toEqual({ ...mit, DS_MERCHANT_COF_TYPE: 'C' });
    expect(cofFields(pay({ channel: 'MIT', mit: null }, 'NTX1'))).toEqual({ ...mit, DS_MERCHANT_COF_TYPE: 'C' });
    expect(cofFields(pay({ channel: 'MIT', mit: 'INSTALMENT' }, 'NTX1'))).toEqual({ ...mit, DS_MERCHANT_COF_TYPE: 'I' });
    // no id known for an MIT: Redsys refuses it (SIS0617), nothing is invented
    expect(pay({ channel: 'MIT' }, null)).not.toHaveProperty('DS_MERCHANT_COF_TXNID');
    // MoTo: no stored-credential fields, even for a stored card
    expect(cofUseOf({ channel: 'MOTO', storeCredential: true }, 'NTX1')).toBeNull();
    expect(cofFields(pay({ channel: 'MOTO', storeCredential: true }, 'NTX1'))).toEqual({ DS_MERCHANT_DIRECTPAYMENT: 'moto' });
  });

  it('a pre-authorization is type 1; MoTo is DIRECTPAYMENT=moto', () => {
    expect(paymentParameters({ ref, type: TX_TYPE.PREAUTHORIZATION, amount: 5, currency: 'USD', card: card(null), channel: 'ECOMMERCE' })).toMatchObject({ DS_MERCHANT_TRANSACTIONTYPE: '1', DS_MERCHANT_CURRENCY: '840', DS_MERCHANT_AMOUNT: '5' });
    expect(paymentParameters({ ref, type: TX_TYPE.PREAUTHORIZATION, amount: 5, currency: 'USD', card: card(null), channel: 'ECOMMERCE' })).not.toHaveProperty('DS_MERCHANT_CVV2');
    const moto = paymentParameters({ ref, type: TX_TYPE.AUTHORIZATION, amount: 5, currency: 'EUR', card: card(), channel: 'MOTO' });
    expect(moto).toMatchObject({ DS_MERCHANT_DIRECTPAYMENT: 'moto' });
    expect(moto).not.toHaveProperty('DS_MERCHANT_COF_INI');
  });

  it('an external authentication (the merchant\'s own MPI) travels as DS_MERCHANT_MPIEXTERNAL, with Redsys\'s field names', () => {
    const ext = (threeds: Parameters<typeof paymentParameters>[0]['threeds']) => paymentParameters({ ref, type: TX_TYPE.AUTHORIZATION, amount: 5, currency: 'EUR', card: card(), channel: 'ECOMMERCE', threeds });
    const dsTransId = 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b';
    const v2 = ext({ version: '2.2.0', transStatus: 'Y', eci: '05', cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', dsTransId });
    expect(v2.DS_MERCHANT_MPIEXTERNAL).toEqual({ protocolVersion: '2.2.0', dsTransID: dsTransId, authenticacionValue: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', Eci: '05' });
    expect(v2).not.toHaveProperty('DS_MERCHANT_EMV3DS');
    // versions and ECIs as merchants write them
    expect(ext({ version: '2', transStatus: 'A', eci: '6', cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', dsTransId }).DS_MERCHANT_MPIEXTERNAL).toMatchObject({ protocolVersion: '2.1.0', Eci: '06' });
    // 3-D Secure 1: TXID, CAVV, ECI
    expect(ext({ version: '1.0.2', transStatus: 'Y', eci: '5', cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', dsTransId: 'xid-1' }).DS_MERCHANT_MPIEXTERNAL).toEqual({ TXID: 'xid-1', CAVV: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', ECI: '5' });
    // no authentication data: an acknowledged exemption is sent without; a failed authentication is refused before anything is sent
    expect(ext({ version: '2.2.0', transStatus: 'I', eci: '07', cavv: null, dsTransId })).not.toHaveProperty('DS_MERCHANT_MPIEXTERNAL');
    expect(externalAuthenticationRefusal({ version: '2.2.0', transStatus: 'N', eci: null, cavv: null, dsTransId })).toMatch(/transStatus N/);
    for (const t of ['Y', 'A', 'I']) expect(externalAuthenticationRefusal({ version: '2.2.0', transStatus: t, eci: null, cavv: null, dsTransId })).toBeNull();
    // MoTo and MIT carry no authentication
    expect(paymentParameters({ ref, type: TX_TYPE.AUTHORIZATION, amount: 5, currency: 'EUR', card: card(), channel: 'MOTO', threeds: { version: '2.2.0', transStatus: 'Y', eci: '05', cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=', dsTransId } })).not.toHaveProperty('DS_MERCHANT_MPIEXTERNAL');
  });

  it('follow-ups carry the original order number and their type; verification is amount 0; Bizum is PAYMETHODS=z', () => {
    expect(followUpParameters(ref, TX_TYPE.CONFIRMATION, 700, 'EUR')).toEqual({ DS_MERCHANT_ORDER: ref.order, DS_MERCHANT_MERCHANTCODE: ref.fuc, DS_MERCHANT_TERMINAL: '001', DS_MERCHANT_TRANSACTIONTYPE: '2', DS_MERCHANT_AMOUNT: '700', DS_MERCHANT_CURRENCY: '978' });
    expect(followUpParameters(ref, TX_TYPE.REFUND, 1, 'EUR').DS_MERCHANT_TRANSACTIONTYPE).toBe('3');
    expect(followUpParameters(ref, TX_TYPE.CANCELLATION, 1, 'EUR').DS_MERCHANT_TRANSACTIONTYPE).toBe('9');
    expect(verificationParameters(ref, 'EUR', card())).toMatchObject({ DS_MERCHANT_AMOUNT: '0', DS_MERCHANT_TRANSACTIONTYPE: '0', DS_MERCHANT_DIRECTPAYMENT: 'true' });
    expect(bizumRedirectParameters(ref, 100, 'EUR', { merchantUrl: 'https://g/n', urlOk: 'https://g/ok', urlKo: 'https://g/ko' })).toMatchObject({ DS_MERCHANT_PAYMETHODS: 'z', DS_MERCHANT_TRANSACTIONTYPE: '0', DS_MERCHANT_MERCHANTURL: 'https://g/n' });
    expect(expiryYYMM({ expiryMonth: 12, expiryYear: 2030 })).toBe('3012');
  });

  it('the secure terminal for the customer, the non-secure one for MoTo and MIT', () => {
    expect(laneFor('ECOMMERCE')).toBe('secure');
    expect(laneFor('MOTO')).toBe('nonSecure');
    expect(laneFor('MIT')).toBe('nonSecure');
  });
});

describe('answers', () => {
  const pay = { ref, type: TX_TYPE.AUTHORIZATION, amount: 1000 } as const;
  it('approvals per operation', () => {
    expect(resultOfAnswer(answer({ Ds_Response: '0000', Ds_AuthorisationCode: ' 123456', Ds_TransactionType: '0', Ds_Merchant_Cof_Txnid: 'NTX1' }), pay)).toEqual({
      result: { outcome: 'APPROVED', authorization: '123456', processorId: ref.order, amount: 1000 },
      facts: { cofTxnid: 'NTX1', securePayment: null },
    });
    expect(resultOfAnswer(answer({ Ds_Response: '0099' }), pay).result.outcome).toBe('APPROVED');
    // a refund and a confirmation are approved with 0900, a cancellation with 0400
    expect(resultOfAnswer(answer({ Ds_Response: '0900', Ds_Amount: '300' }), { ref, type: TX_TYPE.REFUND, amount: 300 }).result.outcome).toBe('APPROVED');
    expect(resultOfAnswer(answer({ Ds_Response: '0000', Ds_Amount: '300' }), { ref, type: TX_TYPE.REFUND, amount: 300 }).result.outcome).toBe('DECLINED');
    expect(resultOfAnswer(answer({ Ds_Response: '0900', Ds_Amount: '300' }), { ref, type: TX_TYPE.CONFIRMATION, amount: 300 }).result.outcome).toBe('APPROVED');
    expect(resultOfAnswer(answer({ Ds_Response: '0400' }), { ref, type: TX_TYPE.CANCELLATION, amount: 1000 }).result.outcome).toBe('APPROVED');
    expect(resultOfAnswer(answer({ Ds_Response: '0900' }), pay).result).toMatchObject({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR' });
  });

  it('refusals keep the code and a reason; 0195 is the soft decline', () => {
    expect(resultOfAnswer(answer({ Ds_Response: '0190' }), pay).result).toEqual({ outcome: 'DECLINED', error: 'DENIED', details: 'Redsys 0190: declined by the issuer without a reason', processorId: ref.order });
    expect(resultOfAnswer(answer({ Ds_Response: '0101' }), pay).result).toMatchObject({ error: 'EXPIRED_CARD' });
    expect(resultOfAnswer(answer({ Ds_Response: '0116' }), pay).result).toMatchObject({ error: 'INSUFFICIENT_FUNDS' });
    expect(resultOfAnswer(answer({ Ds_Response: '0184' }), pay).result).toMatchObject({ error: 'AUTHENTICATION_FAILED' });
    expect(resultOfAnswer(answer({ Ds_Response: '0195' }), pay).result).toMatchObject({ outcome: 'CHALLENGE' });
    expect(resultOfAnswer(answer({ Ds_Response: '0195' }), { ref, type: TX_TYPE.REFUND, amount: 1000 }).result).toMatchObject({ outcome: 'DECLINED' });
    expect(resultOfAnswer(answer({ Ds_Response: '9915' }), pay).result).toMatchObject({ error: 'DENIED', details: expect.stringContaining('cancelled') });
    expect(resultOfAnswer(answer({ Ds_Response: '9042' }), pay).result).toMatchObject({ error: 'PROCESSOR_ERROR', details: expect.stringContaining('SIS0042') });
    // in progress at Redsys: no decision yet (its notification or query service decides)
    expect(resultOfAnswer(answer({ Ds_Response: '9999' }), pay).result).toEqual({ outcome: 'PENDING', details: 'Redsys 9999: operation in progress: sent to the issuer to authenticate the cardholder', processorId: ref.order });
    expect(resultOfAnswer(answer({ Ds_Response: '9998' }), pay).result).toEqual({ outcome: 'PENDING', details: "Redsys 9998: operation in progress: the card's data are being requested", processorId: ref.order });
    expect(resultOfErrorCode('SIS0042')).toEqual({ outcome: 'DECLINED', error: 'PROCESSOR_ERROR', details: 'Redsys SIS0042: signature error: check the terminal key and the signature version', processorId: null });
    expect(resultOfErrorCode('SIS0617')).toMatchObject({ details: expect.stringContaining('COF_TXNID') });
  });

  it('3-D Secure 1 is refused (AUTHENTICATION_FAILED), never left waiting without a result code', () => {
    // Redsys's answer to an authentication in protocol 1.0.2 (as its sandbox recorded it): the 3DS 1 ACS, MD and PAReq
    const v1 = answer({ Ds_Amount: '1000', Ds_TransactionType: '0', Ds_EMV3DS: { threeDSInfo: 'ChallengeRequest', protocolVersion: '1.0.2', acsURL: 'https://sis-d.redsys.es/sis-simulador-web/3DS1/pares.jsp', MD: 'efca7298949ce12042c4e5da95a07e324f2d5cbd', PAReq: 'eJxVUttugzAM' } });
    expect(resultOfAnswer(v1, pay).result).toEqual({ outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: THREEDS1_REFUSAL, processorId: ref.order });
    expect(THREEDS1_REFUSAL).toMatch(/3-D Secure 1 .*not supported/);
    expect(isThreeDS1({ protocolVersion: 'NO_3DS_v2', threeDSInfo: 'CardConfiguration' })).toBe(true);
    expect(isThreeDS1({ protocolVersion: '2.1.0', threeDSInfo: 'CardConfiguration', threeDSServerTransID: 'x' })).toBe(false);
    expect(isThreeDS1({ protocolVersion: '2.1.0', threeDSInfo: 'ChallengeRequest', acsURL: 'https://acs', creq: 'e30' })).toBe(false);
  });

  it('an answer for something else is UNKNOWN, never a success', () => {
    expect(resultOfAnswer(answer({ Ds_Response: '0000', Ds_Order: '9999zzzzzzzz' }), pay).result.outcome).toBe('UNKNOWN');
    expect(resultOfAnswer(answer({ Ds_Response: '0000', Ds_MerchantCode: '111111111' }), pay).result.outcome).toBe('UNKNOWN');
    expect(resultOfAnswer(answer({ Ds_Response: '0000', Ds_Terminal: '2' }), pay).result.outcome).toBe('UNKNOWN');
    expect(resultOfAnswer(answer({ Ds_Response: '0000', Ds_Amount: '999' }), pay).result.outcome).toBe('UNKNOWN');
    expect(resultOfAnswer(answer({ Ds_Response: '0000', Ds_TransactionType: '3' }), pay).result.outcome).toBe('UNKNOWN');
    expect(resultOfAnswer(answer({}), pay).result.outcome).toBe('UNKNOWN');
    // notifications carry URL-encoded values
    expect(resultOfAnswer(answer({ Ds_Response: '0000', Ds_Order: encodeURIComponent(ref.order) }), pay).result.outcome).toBe('APPROVED');
  });

  it('every code Redsys documents (redsys-easy\'s tables) maps to an error of ours with its code in the details', () => {
    const errors = new Set<string>(TX_ERRORS);
    let numeric = 0;
    for (let n = 0; n <= 9999; n++) {
      if (!getResponseCodeMessage(n) || n <= 99) continue;
      numeric++;
      const code = String(n).padStart(4, '0');
      expect(isApproval(code, 'payment')).toBe(false);
      const r = refusalOf(code);
      expect(errors.has(r.error) && (r.error as string) !== 'NONE', code).toBe(true);
      expect(r.details, code).toContain(code);
    }
    let sis = 0;
    for (const prefix of ['SIS', 'XML']) {
      for (let n = 0; n <= 9999; n++) {
        const code = `${prefix}${String(n).padStart(4, '0')}`;
        if (!getSISErrorCodeMessage(code)) continue;
        sis++;
        const r = refusalOf(code);
        expect(errors.has(r.error), code).toBe(true);
        expect(r.details, code).toContain(code);
      }
    }
    expect(numeric).toBeGreaterThan(500);
    expect(sis).toBeGreaterThan(500);
    expect(normaliseCode(101)).toBe('0101');
    expect(normaliseCode('sis0042')).toBe('SIS0042');
    expect(normaliseCode('abc')).toBeNull();
  });
});

describe('query service', () => {
  it('a signed query for an order number and type; its answers', () => {
    const key = 'sq7HjrUOBfKmC576ILgskD5srU870gJ7';
    const body = queryRequestXml(key, { fuc: '999008881', terminal: '001', order: '1234AbCdEfGh', type: '0' });
    const read = readQueryRequest(body)!;
    expect(read).toMatchObject({ fuc: '999008881', terminal: '001', order: '1234AbCdEfGh', type: '0' });
    expect(read.signature).toBe(sign('HMAC_SHA256_V1', key, '1234AbCdEfGh', read.version));
    const escaped = (xml: string) => xml.replace(/</g, '&lt;').replace(/>/g, '&gt;');
    expect(readQueryAnswer(`<soap><consultaOperacionesReturn>${escaped('<Messages><Version Ds_Version="0.0"><Message><Response Ds_Version="0.0"><Ds_Order>1234AbCdEfGh</Ds_Order><Ds_Response>0000</Ds_Response><Ds_Amount>100</Ds_Amount></Response></Message></Version></Messages>')}</consultaOperacionesReturn></soap>`)).toEqual({ kind: 'found', params: { Ds_Order: '1234AbCdEfGh', Ds_Response: '0000', Ds_Amount: '100' } });
    expect(readQueryAnswer(`<consultaOperacionesReturn>${escaped('<Messages><Version><Message><ErrorMsg><Ds_ErrorCode>XML0024</Ds_ErrorCode></ErrorMsg></Message></Version></Messages>')}</consultaOperacionesReturn>`)).toEqual({ kind: 'none' });
    expect(readQueryAnswer(`<consultaOperacionesReturn>${escaped('<ErrorMsg><Ds_ErrorCode>XML0041</Ds_ErrorCode></ErrorMsg>')}</consultaOperacionesReturn>`)).toEqual({ kind: 'error', code: 'XML0041' });
  });
});

describe('terminal credentials and order numbers', () => {
  const good = { key_secure: 'sq7HjrUOBfKmC576ILgskD5srU870gJ7', key_not_secure: 'Mk9m98IfEblmPfrpsawt7BmxObt98Jev', terminal_secure: '1', terminal_not_secure: '002' };
  it('validates merchant code, keys, terminal numbers and signature version', () => {
    expect(redsysTerminalProblems('999008881', good)).toEqual([]);
    expect(redsysTerminalProblems('99900888', good)).toEqual(['code must be the 9-digit Redsys merchant code (FUC)']);
    expect(redsysTerminalProblems(null, good)).toHaveLength(1);
    expect(redsysTerminalProblems('999008881', { ...good, key_secure: 'not-a-key' })[0]).toMatch(/key_secure.*base64/);
    expect(redsysTerminalProblems('999008881', { ...good, terminal_not_secure: '1000' })[0]).toMatch(/terminal_not_secure/);
    expect(redsysTerminalProblems('999008881', { ...good, signature_version: 'HMAC_SHA1' })[0]).toMatch(/signature_version/);
    expect(redsysTerminalOf('999008881', good)).toEqual({ fuc: '999008881', secure: { terminal: '001', key: good.key_secure }, nonSecure: { terminal: '002', key: good.key_not_secure }, version: 'HMAC_SHA256_V1' });
    expect(redsysTerminalOf('999008881', { ...good, signature_version: 'HMAC_SHA512_V2' }).version).toBe('HMAC_SHA512_V2');
    expect(() => redsysTerminalOf('1', good)).toThrow(/FUC/);
    expect(terminalNumber('0')).toBeNull();
  });

  it('order numbers: 12 characters, the first 4 digits', () => {
    let i = 0;
    const seq = [1, ...Array(8).fill(61)];
    expect(newOrderNumber(() => seq[i++ % seq.length])).toBe('0001zzzzzzzz');
    for (let k = 0; k < 200; k++) expect(newOrderNumber()).toMatch(/^\d{4}[0-9A-Za-z]{8}$/);
  });
});
