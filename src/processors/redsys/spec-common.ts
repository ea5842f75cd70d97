/** The building blocks of Redsys' reference as schemas (spec.ts names the sources): parameters, 3-D Secure data, answers. */
import type { JsonSchema } from '../kit/spec.js';

export const str = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
export const digits = (min: number, max: number): JsonSchema => str({ pattern: `^\\d{${min},${max}}$` });

/** Ds_Merchant_Order: 4 to 12 characters, the first 4 digits [guide]. */
export const ORDER = '^\\d{4}[0-9A-Za-z]{0,8}$';
/** A transaction type Redsys defines (redsys-easy's TransactionType). */
export const TRANSACTION_TYPES = ['0', '1', '2', '3', '5', '6', '7', '8', '9', '15', '17', '34', '37', '44', 'O', 'F', 'P', 'Q', 'R', 'S', 'A'];

/** Parameters every operation carries [guide], of one transaction type. */
export function base(type: string[]): Record<string, JsonSchema> {
  return {
    DS_MERCHANT_MERCHANTCODE: digits(9, 9),
    DS_MERCHANT_TERMINAL: digits(1, 3),
    DS_MERCHANT_ORDER: str({ pattern: ORDER }),
    DS_MERCHANT_TRANSACTIONTYPE: str({ enum: type }),
    DS_MERCHANT_AMOUNT: digits(1, 12),
    DS_MERCHANT_CURRENCY: digits(3, 3),
  };
}

/** Optional parameters of every operation [guide; redsys-easy BaseInputParams]. */
export const COMMON_OPTIONAL: Record<string, JsonSchema> = {
  DS_MERCHANT_MERCHANTURL: str({ format: 'uri', maxLength: 250 }),
  DS_MERCHANT_MERCHANTDATA: str({ maxLength: 1024 }),
  DS_MERCHANT_MERCHANTNAME: str({ maxLength: 25 }),
  DS_MERCHANT_PRODUCTDESCRIPTION: str({ maxLength: 125 }),
  DS_MERCHANT_TITULAR: str({ maxLength: 60 }),
  DS_MERCHANT_CONSUMERLANGUAGE: digits(1, 3),
  DS_MERCHANT_GROUP: str(),
  DS_MERCHANT_IDENTIFIER: str(),
};

/** The card and how it is used [guide; redsys-easy BaseInputParams; activemerchant]. */
export const CARD: Record<string, JsonSchema> = {
  DS_MERCHANT_PAN: str({ pattern: '^\\d{12,19}$' }),
  /** YYMM */
  DS_MERCHANT_EXPIRYDATE: str({ pattern: '^\\d{2}(0[1-9]|1[0-2])$' }),
  DS_MERCHANT_CVV2: str({ pattern: '^\\d{3,4}$' }),
  DS_MERCHANT_DIRECTPAYMENT: str({ enum: ['true', 'moto'] }),
  /** Stored credentials: first use (S) or a later one (N); the kind of use; the network transaction id. */
  DS_MERCHANT_COF_INI: str({ enum: ['S', 'N'] }),
  DS_MERCHANT_COF_TYPE: str({ enum: ['I', 'R', 'H', 'E', 'D', 'M', 'N', 'C'] }),
  DS_MERCHANT_COF_TXNID: str({ minLength: 1 }),
};

/** SCA exemptions a payment may ask for [activemerchant THREEDS_EXEMPTIONS; the Ds_Excep_SCA answers redsys-easy recorded]. */
export const EXEMPTIONS = ['LWV', 'TRA', 'COR', 'MIT', 'ATD', 'NDF'];

/** EMV 3DS browser data and the other AuthenticationData fields [redsys-easy BaseThreeDSAuthenticationDataParams]. */
export const AUTHENTICATION_DATA_V2: JsonSchema = {
  type: 'object',
  'x-source': 'redsys-easy src/types/3ds-params.ts ThreeDSv2AuthDataInputParams; SIS0571-SIS0584 and SIS0653 name the required fields',
  required: [
    'threeDSInfo', 'protocolVersion', 'threeDSServerTransID', 'notificationURL', 'threeDSCompInd', 'browserAcceptHeader', 'browserUserAgent', 'browserJavaEnabled',
    'browserJavascriptEnabled', 'browserLanguage', 'browserColorDepth', 'browserScreenHeight', 'browserScreenWidth', 'browserTZ',
  ],
  additionalProperties: false,
  properties: {
    threeDSInfo: { const: 'AuthenticationData' },
    protocolVersion: str({ enum: ['2.1.0', '2.2.0'] }),
    threeDSServerTransID: str({ minLength: 1 }),
    notificationURL: str({ format: 'uri' }),
    threeDSCompInd: str({ enum: ['Y', 'N', 'U'] }),
    browserAcceptHeader: str(),
    browserUserAgent: str(),
    browserJavaEnabled: { type: 'boolean' },
    browserJavascriptEnabled: { type: 'boolean' },
    browserLanguage: str(),
    browserColorDepth: str({ pattern: '^\\d{1,2}$' }),
    browserScreenHeight: str({ pattern: '^\\d{1,6}$' }),
    browserScreenWidth: str({ pattern: '^\\d{1,6}$' }),
    browserTZ: str({ pattern: '^-?\\d{1,5}$' }),
    browserIP: str(),
    acctID: str({ maxLength: 64 }),
    acctInfo: { type: 'object' },
    addrMatch: str({ enum: ['Y', 'N'] }),
    billAddrCity: str(),
    billAddrLine1: str(),
    billAddrLine2: str(),
    billAddrLine3: str(),
    billAddrPostCode: str(),
    billAddrState: str(),
    billAddrCountry: str(),
    cardholderName: str(),
    challengeWindowSize: str(),
    email: str(),
    homePhone: { type: 'object' },
    mobilePhone: { type: 'object' },
    workPhone: { type: 'object' },
    merchantRiskIndicator: { type: 'object' },
    purchaseInstalData: str(),
    recurringExpiry: str(),
    recurringFrequency: str(),
    shipAddrCity: str(),
    shipAddrLine1: str(),
    shipAddrLine2: str(),
    shipAddrLine3: str(),
    shipAddrPostCode: str(),
    shipAddrState: str(),
    shipAddrCountry: str(),
    threeDSRequestorAuthenticationInfo: { type: 'object' },
    threeDSRequestorPriorAuthenticationInfo: { type: 'object' },
  },
};

/** DS_MERCHANT_EMV3DS of a trataPeticion: authentication data or the challenge's answer, EMV 3DS 2 or 3-D Secure 1. */
export const EMV3DS_TRATA: JsonSchema = {
  'x-source': 'redsys-easy src/types/input-params.ts RestTrataPeticionInputParams.DS_MERCHANT_EMV3DS',
  oneOf: [
    AUTHENTICATION_DATA_V2,
    {
      type: 'object',
      required: ['threeDSInfo', 'protocolVersion', 'cres'],
      additionalProperties: false,
      properties: { threeDSInfo: { const: 'ChallengeResponse' }, protocolVersion: str({ enum: ['2.1.0', '2.2.0'] }), cres: str({ minLength: 1 }) },
    },
    {
      type: 'object',
      required: ['threeDSInfo', 'protocolVersion', 'browserAcceptHeader', 'browserUserAgent'],
      additionalProperties: false,
      properties: { threeDSInfo: { const: 'AuthenticationData' }, protocolVersion: { const: '1.0.2' }, browserAcceptHeader: str(), browserUserAgent: str() },
    },
    {
      type: 'object',
      required: ['threeDSInfo', 'protocolVersion', 'PARes', 'MD'],
      additionalProperties: false,
      properties: { threeDSInfo: { const: 'ChallengeResponse' }, protocolVersion: { const: '1.0.2' }, PARes: str(), MD: str() },
    },
  ],
};

/** DS_MERCHANT_MPIEXTERNAL: the authentication of the merchant's own 3DS server (external MPI). */
export const MPIEXTERNAL: JsonSchema = {
  'x-source': 'activemerchant redsys.rb add_external_mpi_fields / build_merchant_mpi_external; SIS0605-SIS0614 (Redsys SIS error table)',
  oneOf: [
    {
      type: 'object',
      required: ['protocolVersion', 'authenticacionValue', 'Eci'],
      additionalProperties: false,
      properties: {
        protocolVersion: str({ pattern: '^2\\.\\d\\.\\d$' }),
        threeDSServerTransID: str({ minLength: 1 }),
        dsTransID: str({ minLength: 1 }),
        authenticacionValue: str({ minLength: 1 }),
        Eci: str({ pattern: '^\\d{2}$' }),
        authenticacionMethod: str(),
        authenticacionType: str(),
        authenticacionFlow: str({ enum: ['F', 'C'] }),
      },
    },
    {
      type: 'object',
      required: ['CAVV', 'ECI'],
      additionalProperties: false,
      properties: { TXID: str({ minLength: 1 }), CAVV: str({ minLength: 1 }), ECI: str({ pattern: '^\\d{1,2}$' }) },
    },
  ],
};

/** A payment with card data (authorization 0, pre-authorization 1) through trataPeticion. */
export function cardPayment(type: '0' | '1', source: string): JsonSchema {
  return {
    type: 'object',
    'x-source': source,
    required: ['DS_MERCHANT_MERCHANTCODE', 'DS_MERCHANT_TERMINAL', 'DS_MERCHANT_ORDER', 'DS_MERCHANT_TRANSACTIONTYPE', 'DS_MERCHANT_AMOUNT', 'DS_MERCHANT_CURRENCY', 'DS_MERCHANT_PAN', 'DS_MERCHANT_EXPIRYDATE'],
    additionalProperties: false,
    properties: {
      ...base([type]),
      ...COMMON_OPTIONAL,
      ...CARD,
      DS_MERCHANT_EXCEP_SCA: str({ enum: EXEMPTIONS }),
      DS_MERCHANT_EMV3DS: EMV3DS_TRATA,
      DS_MERCHANT_MPIEXTERNAL: MPIEXTERNAL,
      DS_MERCHANT_DCC: { type: 'object', required: ['monedaDCC', 'importeDCC'], additionalProperties: false, properties: { monedaDCC: digits(3, 3), importeDCC: str() } },
    },
    // an external MPI's data and Redsys's own 3DS exchange are exclusive (SIS0490, SIS0492)
    allOf: [{ not: { required: ['DS_MERCHANT_EMV3DS', 'DS_MERCHANT_MPIEXTERNAL'] } }],
  };
}

/** A confirmation, refund or cancellation under the original payment's order number. */
export function followUp(type: '2' | '3' | '9', source: string): JsonSchema {
  return {
    type: 'object',
    'x-source': source,
    required: ['DS_MERCHANT_MERCHANTCODE', 'DS_MERCHANT_TERMINAL', 'DS_MERCHANT_ORDER', 'DS_MERCHANT_TRANSACTIONTYPE', 'DS_MERCHANT_AMOUNT', 'DS_MERCHANT_CURRENCY'],
    additionalProperties: false,
    properties: {
      ...base([type]),
      ...COMMON_OPTIONAL,
      DS_MERCHANT_AUTHORISATIONCODE: str({ maxLength: 6 }),
      DS_MERCHANT_TRANSACTIONDATE: str({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
    },
  };
}

/** The fields of every answer about an operation [redsys-easy BaseOutputParams]. */
export const ANSWER_BASE: Record<string, JsonSchema> = {
  Ds_Order: str({ pattern: ORDER }),
  Ds_MerchantCode: digits(9, 9),
  Ds_Terminal: digits(1, 3),
  Ds_TransactionType: str({ enum: TRANSACTION_TYPES }),
  Ds_SecurePayment: str({ enum: ['0', '1', '2'] }),
  Ds_Card_Country: digits(1, 3),
  Ds_AuthorisationCode: str({ maxLength: 6 }),
  Ds_Card_Type: str({ enum: ['C', 'D'] }),
  Ds_MerchantData: str(),
  Ds_Card_Brand: digits(1, 2),
  Ds_Card_PSD2: str({ enum: ['Y', 'N'] }),
  Ds_Excep_SCA: str(),
  Ds_ProcessedPayMethod: digits(1, 4),
  Ds_Merchant_Cof_Txnid: str({ minLength: 1 }),
  Ds_Language: digits(1, 3),
  Ds_ECI: str(),
};

/** A processed operation's answer: its result code [redsys-easy RestTrataPeticionOutputParams; recorded answers]. */
export const RESULT_ANSWER: JsonSchema = {
  type: 'object',
  'x-source': 'redsys-easy src/types/output-params.ts RestTrataPeticionOutputParams; test/fixtures/rest/rest-json.ts deserializedRestJsonResponse',
  required: ['Ds_Order', 'Ds_MerchantCode', 'Ds_Terminal', 'Ds_TransactionType', 'Ds_Amount', 'Ds_Currency', 'Ds_Response'],
  properties: { ...ANSWER_BASE, Ds_Amount: digits(1, 12), Ds_Currency: digits(3, 3), Ds_Response: str({ pattern: '^\\d{4}$' }) },
};

/** The ACS challenge a trataPeticion may answer instead: EMV 3DS 2 (creq) or 3-D Secure 1 (MD, PAReq). */
export const CHALLENGE_ANSWER: JsonSchema = {
  type: 'object',
  'x-source': 'redsys-easy src/types/3ds-params.ts ThreeDSv2ChallengeOutputParams, ThreeDSv1ChallengeOutputParams; test/fixtures/rest/3ds-v2.1-challenge.ts, 3ds-v1.ts',
  required: ['Ds_Order', 'Ds_MerchantCode', 'Ds_Terminal', 'Ds_TransactionType', 'Ds_EMV3DS'],
  properties: {
    ...ANSWER_BASE,
    Ds_Amount: digits(1, 12),
    Ds_Currency: digits(3, 3),
    Ds_EMV3DS: {
      oneOf: [
        {
          type: 'object',
          required: ['threeDSInfo', 'protocolVersion', 'acsURL', 'creq'],
          properties: { threeDSInfo: { const: 'ChallengeRequest' }, protocolVersion: str({ enum: ['2.1.0', '2.2.0'] }), acsURL: str({ format: 'uri' }), creq: str({ minLength: 1 }) },
        },
        {
          type: 'object',
          required: ['threeDSInfo', 'protocolVersion', 'acsURL', 'MD', 'PAReq'],
          properties: { threeDSInfo: { const: 'ChallengeRequest' }, protocolVersion: { const: '1.0.2' }, acsURL: str({ format: 'uri' }), MD: str(), PAReq: str() },
        },
      ],
    },
  },
};

/** `{"errorCode": "SIS0xxx"}`: a request Redsys refused before processing it. */
export const ERROR_ANSWER: JsonSchema = {
  type: 'object',
  'x-source': 'redsys-easy src/types/api.ts (ResponseJSONError errorCode), src/rest/requests.ts; the SIS error table src/assets/error-codes.ts',
  required: ['errorCode'],
  properties: { errorCode: str({ pattern: '^SIS\\d{4}$' }) },
};

export const TRATA = 'POST /sis/rest/trataPeticionREST, Ds_MerchantParameters';
