/**
 * Redsys signatures against the published vectors (HMAC_SHA256_V1 and HMAC_SHA512_V2), and against
 * redsys-easy, an independent implementation of V1.
 */
import { describe, expect, it } from 'vitest';
import { serializeAndSignJSONRequest, deserializeAndVerifyJSONResponse } from 'redsys-easy';
import { decodeParameters, diversifyV1, diversifyV2, encodeParameters, openMessage, sign, signMessage, verify } from '../../src/processors/redsys/signature.js';

const KEY = 'sq7HjrUOBfKmC576ILgskD5srU870gJ7';

describe('HMAC_SHA256_V1', () => {
  it('diversifies the key with 3DES of the order (published vectors)', () => {
    expect(diversifyV1(KEY, '0').toString('base64')).toBe('Qyx5NZhbucY=');
    expect(diversifyV1(KEY, '1234567890').toString('base64')).toBe('ntVrJPxp2xlsetWVajPl0g==');
    expect(diversifyV1(KEY, '012345678').toString('base64')).toBe('ub0/L8+E9+9ITQJwk3SvHA==');
    expect(diversifyV1(KEY, '0726qI3H7sZx').toString('base64')).toBe('GViV77kFjMPKVUcE9qxzlg==');
  });

  it('signs the redirect fixture of redsys-easy byte for byte', () => {
    const json = '{"DS_MERCHANT_TRANSACTIONTYPE":"0","DS_MERCHANT_ORDER":"0726qI3H7sZx","DS_MERCHANT_MERCHANTCODE":"999008881","DS_MERCHANT_TERMINAL":"1","DS_MERCHANT_AMOUNT":"4999","DS_MERCHANT_CURRENCY":"978","DS_MERCHANT_MERCHANTURL":"http://www.prueba.com/urlNotificacion.php","DS_MERCHANT_URLOK":"http://www.prueba.com/urlOK.php","DS_MERCHANT_URLKO":"http://www.prueba.com/urlKO.php"}';
    const params = Buffer.from(json).toString('base64');
    expect(encodeParameters('HMAC_SHA256_V1', JSON.parse(json))).toBe(params);
    expect(sign('HMAC_SHA256_V1', KEY, '0726qI3H7sZx', params)).toBe('TyW+LIa2GZnhCPLM7JSPwbQn4ZjOvMO/KiIf4yJgwo8=');
    expect(verify('HMAC_SHA256_V1', KEY, '0726qI3H7sZx', params, 'TyW+LIa2GZnhCPLM7JSPwbQn4ZjOvMO/KiIf4yJgwo8=')).toBe(true);
    // the same signature in URL-safe base64 (notifications) verifies; one changed byte does not
    expect(verify('HMAC_SHA256_V1', KEY, '0726qI3H7sZx', params, 'TyW-LIa2GZnhCPLM7JSPwbQn4ZjOvMO_KiIf4yJgwo8=')).toBe(true);
    expect(verify('HMAC_SHA256_V1', KEY, '0726qI3H7sZx', params, 'TyW+LIa2GZnhCPLM7JSPwbQn4ZjOvMO/KiIf4yJgwp8=')).toBe(false);
    expect(verify('HMAC_SHA256_V1', KEY, '0726qI3H7sZy', params, 'TyW+LIa2GZnhCPLM7JSPwbQn4ZjOvMO/KiIf4yJgwo8=')).toBe(false);
  });

  it('signs as redsys-easy does, and redsys-easy verifies what we sign', () => {
    const request = { DS_MERCHANT_AMOUNT: '3350', DS_MERCHANT_CURRENCY: '978', DS_MERCHANT_MERCHANTCODE: '999008881', DS_MERCHANT_TERMINAL: '1', DS_MERCHANT_ORDER: '6564vNUgKHSe', DS_MERCHANT_TRANSACTIONTYPE: '0' };
    const theirs = serializeAndSignJSONRequest(KEY, request as never);
    const ours = signMessage('HMAC_SHA256_V1', KEY, request, '6564vNUgKHSe');
    expect(ours).toEqual(theirs);
    // an answer we sign is one redsys-easy accepts
    const answer = signMessage('HMAC_SHA256_V1', KEY, { Ds_Order: '6564vNUgKHSe', Ds_MerchantCode: '999008881', Ds_Terminal: '1', Ds_TransactionType: '0', Ds_Response: '0000', Ds_Amount: '3350', Ds_Currency: '978' }, '6564vNUgKHSe');
    expect(deserializeAndVerifyJSONResponse(KEY, answer as never)).toMatchObject({ Ds_Response: '0000' });
  });

  it('opens the signed answer of the published 3-D Secure transcript (redsys-easy fixture)', () => {
    const answer = {
      Ds_SignatureVersion: 'HMAC_SHA256_V1',
      Ds_MerchantParameters: 'eyJEc19PcmRlciI6IjY1NjR2TlVnS0hTZSIsIkRzX01lcmNoYW50Q29kZSI6Ijk5OTAwODg4MSIsIkRzX1Rlcm1pbmFsIjoiMSIsIkRzX1RyYW5zYWN0aW9uVHlwZSI6IjAiLCJEc19FTVYzRFMiOnsicHJvdG9jb2xWZXJzaW9uIjoiMi4xLjAiLCJ0aHJlZURTU2VydmVyVHJhbnNJRCI6ImFkNTE2NWZkLWJjNDYtNGQ2NC04NGRlLWQxMzUwNzAxOTFhMSIsInRocmVlRFNJbmZvIjoiQ2FyZENvbmZpZ3VyYXRpb24iLCJ0aHJlZURTTWV0aG9kVVJMIjoiaHR0cHM6Ly9zaXMtZC5yZWRzeXMuZXMvc2lzLXNpbXVsYWRvci13ZWIvdGhyZWVEc01ldGhvZC5qc3AifSwiRHNfQ2FyZF9QU0QyIjoiWSJ9',
      Ds_Signature: '9ef9hH-R_DOwz8OsXObbPbReSO3XgEZm25n82z6mv_0=',
    };
    const opened = openMessage(KEY, answer);
    expect(opened).toMatchObject({ ok: true, order: '6564vNUgKHSe', version: 'HMAC_SHA256_V1' });
    if (opened.ok) expect(opened.params.Ds_Card_PSD2).toBe('Y');
    // tampered parameters (one character) are refused
    const tampered = { ...answer, Ds_MerchantParameters: answer.Ds_MerchantParameters.replace('eyJEc19Pcm', 'eyJEc19Qcm') };
    expect(openMessage(KEY, tampered).ok).toBe(false);
    expect(openMessage('Zq7HjrUOBfKmC576ILgskD5srU870gJ7', answer)).toEqual({ ok: false, reason: 'signature mismatch' });
    expect(openMessage(KEY, { ...answer, Ds_SignatureVersion: 'HMAC_SHA1' })).toMatchObject({ ok: false });
    expect(openMessage(KEY, answer, 'HMAC_SHA512_V2')).toMatchObject({ ok: false });
  });
});

describe('HMAC_SHA512_V2', () => {
  const params = 'eyJEU19NRVJDSEFOVF9BTU9VTlQiOiI5OTkiLCJEU19NRVJDSEFOVF9PUkRFUiI6IjEyMzQ1Njc4OTAiLCJEU19NRVJDSEFOVF9NRVJDSEFOVENPREUiOiI5OTkwMDg4ODEiLCJEU19NRVJDSEFOVF9DVVJSRU5DWSI6Ijk3OCIsIkRTX01FUkNIQU5UX1RSQU5TQUNUSU9OVFlQRSI6IjAiLCJEU19NRVJDSEFOVF9URVJNSU5BTCI6IjEiLCJEU19NRVJDSEFOVF9NRVJDSEFOVFVSTCI6Imh0dHA6XC9cL3d3dy5wcnVlYmEuY29tXC91cmxOb3RpZmljYWNpb24ucGhwIiwiRFNfTUVSQ0hBTlRfVVJMT0siOiJodHRwOlwvXC93d3cucHJ1ZWJhLmNvbVwvdXJsT0sucGhwIiwiRFNfTUVSQ0hBTlRfVVJMS08iOiJodHRwOlwvXC93d3cucHJ1ZWJhLmNvbVwvdXJsS08ucGhwIn0';
  const expected = 'Vjo02eSWq249IeZZp3R-ArFnGLhKY0OuzDDlx1BuVtZDC2yhczA7_11uZhsYzLZBCMFAz8u8uzGDX3AErHKmmw';

  it('reproduces the published vector (diversified key and signature)', () => {
    expect(diversifyV2(KEY, '1234567890')).toBe('RWt3/IPTzYRMXsQtkiGRKg==');
    expect(sign('HMAC_SHA512_V2', KEY, '1234567890', params)).toBe(expected);
    expect(verify('HMAC_SHA512_V2', KEY, '1234567890', params, expected)).toBe(true);
    expect(verify('HMAC_SHA512_V2', KEY, '1234567890', `${params}x`, expected)).toBe(false);
    expect(verify('HMAC_SHA512_V2', KEY, '1234567891', params, expected)).toBe(false);
    // the parameters are the PHP-encoded JSON of the vector (escaped slashes), base64url
    expect(decodeParameters(params)).toMatchObject({ DS_MERCHANT_AMOUNT: '999', DS_MERCHANT_ORDER: '1234567890', DS_MERCHANT_URLOK: 'http://www.prueba.com/urlOK.php' });
  });

  it('round-trips a message', () => {
    const m = signMessage('HMAC_SHA512_V2', KEY, { Ds_Order: '1234abc', Ds_Response: '0000' }, '1234abc');
    expect(m.Ds_MerchantParameters).not.toMatch(/[=+/]/);
    expect(openMessage(KEY, m)).toMatchObject({ ok: true, version: 'HMAC_SHA512_V2', params: { Ds_Response: '0000' } });
    // a V1 signature of the same message is not a V2 one
    expect(openMessage(KEY, { ...m, Ds_Signature: sign('HMAC_SHA256_V1', KEY, '1234abc', m.Ds_MerchantParameters) }).ok).toBe(false);
  });

  it('refuses keys that cannot sign', () => {
    expect(() => diversifyV1('short', '1234')).toThrow(/24 bytes/);
    expect(() => diversifyV2('short', '1234')).toThrow(/16 characters/);
  });
});
