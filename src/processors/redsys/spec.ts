/**
 * Redsys's reference as schemas (kit/spec.ts): what Redsys takes and answers, derived by hand (facts
 * only: names, types, enums, required fields, lengths) from these sources, with no code of theirs:
 *
 * - [guide] Redsys, "Manual de integración con el TPV Virtual para comercios con conexión por Web
 *   Service", version 2.1, 20/09/2016 (RS.TE.CEL.MAN.0004): the request parameters and their lengths
 *   (Ds_Merchant_MerchantCode 9 N, Ds_Merchant_Terminal 3 N, Ds_Merchant_Order 4 to 12 with 4 leading
 *   digits, Ds_Merchant_Amount 12 N, Ds_Merchant_Currency numeric ISO 4217, Ds_Merchant_MerchantURL,
 *   UrlOK and UrlKO 250, Ds_Merchant_Titular 60, Ds_Merchant_ProductDescription 125,
 *   Ds_Merchant_MerchantName 25, Ds_Merchant_MerchantData 1024), the answer parameters and the table of
 *   Ds_Response values.
 * - [portal] Redsys's developer portal (pagosonline.redsys.es, read December 2026): "Conexión por
 *   redirección" (the redirect form, realizarPago), "Validación de tarjeta" (transaction types 7 and 8),
 *   "Tokenización – CIT / MIT" (the COF fields), and its table of SIS errors.
 * - [redsys-easy] javiertury/redsys-easy 5.3.2, commit bb1de509d960529eae6c5d43907a95fd31814146
 *   (2026-07-21): src/types/input-params.ts (the request parameters and the COF_TYPE values),
 *   src/types/3ds-params.ts (DS_MERCHANT_EMV3DS in and Ds_EMV3DS out: CardData, AuthenticationData,
 *   ChallengeResponse, CardConfiguration, ChallengeRequest, for EMV 3DS 2 and 3-D Secure 1),
 *   src/types/output-params.ts (answers and notifications), src/assets/error-codes.ts (the SIS and XML
 *   error table), and the answers its tests recorded from Redsys's sandbox (test/fixtures/rest/*.ts,
 *   test/integration/rest/*.test.ts).
 * - [activemerchant] activemerchant/active_merchant, commit ca45b1b063ce2e1495e1427e0a1d42dcb482d57d
 *   (2025-11-04): lib/active_merchant/billing/gateways/redsys_rest.rb (the COF fields and COF_TYPE R, I,
 *   C; the SCA exemptions LWV, TRA, COR, MIT, ATD, NDF; transaction types) and redsys.rb
 *   (DS_MERCHANT_MPIEXTERNAL: threeDSServerTransID, dsTransID, authenticacionValue, protocolVersion, Eci,
 *   authenticacionMethod/Type/Flow; TXID, CAVV, ECI for 3-D Secure 1). The SIS errors SIS0605–SIS0614
 *   name the same fields (`authenticacionValue` is Redsys's spelling).
 *
 * The request schemas apply to the DECODED Ds_MerchantParameters (the simulator verifies the signature
 * first); they are closed over the parameters the sources list. Answers are open (Redsys adds fields),
 * with the fields they always carry required. The query service (consultaOperaciones, SOAP) is written
 * as the fields of its <Transaction> and of its <Response> or <ErrorMsg>.
 */
import type { JsonSchema, ProviderSpec } from '../kit/spec.js';

const str = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
const digits = (min: number, max: number): JsonSchema => str({ pattern: `^\\d{${min},${max}}$` });

/** Ds_Merchant_Order: 4 to 12 characters, the first 4 digits [guide]. */
const ORDER = '^\\d{4}[0-9A-Za-z]{0,8}$';
/** A transaction type Redsys defines (redsys-easy's TransactionType). */
const TRANSACTION_TYPES = ['0', '1', '2', '3', '5', '6', '7', '8', '9', '15', '17', '34', '37', '44', 'O', 'F', 'P', 'Q', 'R', 'S', 'A'];

/** Parameters every operation carries [guide], of one transaction type. */
function base(type: string[]): Record<string, JsonSchema> {
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
const COMMON_OPTIONAL: Record<string, JsonSchema> = {
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
const CARD: Record<string, JsonSchema> = {
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
const EXEMPTIONS = ['LWV', 'TRA', 'COR', 'MIT', 'ATD', 'NDF'];

/** EMV 3DS browser data and the other AuthenticationData fields [redsys-easy BaseThreeDSAuthenticationDataParams]. */
const AUTHENTICATION_DATA_V2: JsonSchema = {
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
const EMV3DS_TRATA: JsonSchema = {
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
const MPIEXTERNAL: JsonSchema = {
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
function cardPayment(type: '0' | '1', source: string): JsonSchema {
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
function followUp(type: '2' | '3' | '9', source: string): JsonSchema {
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
const ANSWER_BASE: Record<string, JsonSchema> = {
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
const RESULT_ANSWER: JsonSchema = {
  type: 'object',
  'x-source': 'redsys-easy src/types/output-params.ts RestTrataPeticionOutputParams; test/fixtures/rest/rest-json.ts deserializedRestJsonResponse',
  required: ['Ds_Order', 'Ds_MerchantCode', 'Ds_Terminal', 'Ds_TransactionType', 'Ds_Amount', 'Ds_Currency', 'Ds_Response'],
  properties: { ...ANSWER_BASE, Ds_Amount: digits(1, 12), Ds_Currency: digits(3, 3), Ds_Response: str({ pattern: '^\\d{4}$' }) },
};

/** The ACS challenge a trataPeticion may answer instead: EMV 3DS 2 (creq) or 3-D Secure 1 (MD, PAReq). */
const CHALLENGE_ANSWER: JsonSchema = {
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
const ERROR_ANSWER: JsonSchema = {
  type: 'object',
  'x-source': 'redsys-easy src/types/api.ts (ResponseJSONError errorCode), src/rest/requests.ts; the SIS error table src/assets/error-codes.ts',
  required: ['errorCode'],
  properties: { errorCode: str({ pattern: '^SIS\\d{4}$' }) },
};

const TRATA = 'POST /sis/rest/trataPeticionREST, Ds_MerchantParameters';

export const REDSYS_SPEC: ProviderSpec = {
  provider: 'Redsys',
  sources: [
    'Redsys, Manual de integración con el TPV Virtual para comercios con conexión por Web Service, version 2.1, 20/09/2016 (RS.TE.CEL.MAN.0004)',
    'Redsys developer portal (pagosonline.redsys.es): Conexión por redirección, Validación de tarjeta, Tokenización CIT/MIT, códigos de error (read December 2026)',
    'javiertury/redsys-easy 5.3.2, commit bb1de509d960529eae6c5d43907a95fd31814146 (2026-07-21): src/types/*.ts, src/assets/error-codes.ts, recorded sandbox answers in test/',
    'activemerchant/active_merchant, commit ca45b1b063ce2e1495e1427e0a1d42dcb482d57d (2025-11-04): redsys_rest.rb, redsys.rb',
  ],
  operations: [
    {
      id: 'trataPeticion.authorization',
      source: `${TRATA}, DS_MERCHANT_TRANSACTIONTYPE 0 (authorization): [guide] request parameters; [redsys-easy] RestTrataPeticionInputParams; COF [activemerchant add_stored_credentials]; MPIEXTERNAL [activemerchant redsys.rb]`,
      request: cardPayment('0', 'redsys-easy src/types/input-params.ts RestTrataPeticionInputParams (TRANSACTIONTYPE 0)'),
      responses: { answer: RESULT_ANSWER, challenge: CHALLENGE_ANSWER, error: ERROR_ANSWER },
    },
    {
      id: 'trataPeticion.preauthorization',
      source: `${TRATA}, DS_MERCHANT_TRANSACTIONTYPE 1 (pre-authorization)`,
      request: cardPayment('1', 'redsys-easy src/types/input-params.ts RestTrataPeticionInputParams (TRANSACTIONTYPE 1)'),
      responses: { answer: RESULT_ANSWER, challenge: CHALLENGE_ANSWER, error: ERROR_ANSWER },
    },
    {
      id: 'trataPeticion.confirmation',
      source: `${TRATA}, DS_MERCHANT_TRANSACTIONTYPE 2 (confirmation of a pre-authorization, under its order number)`,
      request: followUp('2', '[guide] confirmation; redsys-easy TRANSACTION_TYPES.CONFIRMATION'),
      responses: { answer: RESULT_ANSWER, error: ERROR_ANSWER },
    },
    {
      id: 'trataPeticion.refund',
      source: `${TRATA}, DS_MERCHANT_TRANSACTIONTYPE 3 (refund, under the payment's order number)`,
      request: followUp('3', '[guide] refund ("devolución automática"); redsys-easy TRANSACTION_TYPES.AUTO_REFUND'),
      responses: { answer: RESULT_ANSWER, error: ERROR_ANSWER },
    },
    {
      id: 'trataPeticion.cancellation',
      source: `${TRATA}, DS_MERCHANT_TRANSACTIONTYPE 9 (cancellation of a pre-authorization)`,
      request: followUp('9', '[guide] cancellation ("anulación de preautorización"); redsys-easy TRANSACTION_TYPES.PRE_AUTHORIZATION_CANCEL'),
      responses: { answer: RESULT_ANSWER, error: ERROR_ANSWER },
    },
    {
      id: 'iniciaPeticion',
      source: 'POST /sis/rest/iniciaPeticionREST, Ds_MerchantParameters: the card configuration before EMV 3DS (DS_MERCHANT_EMV3DS CardData) [redsys-easy RestIniciaPeticionInputParams]',
      request: {
        type: 'object',
        'x-source': 'redsys-easy src/types/input-params.ts RestIniciaPeticionInputParams',
        required: ['DS_MERCHANT_MERCHANTCODE', 'DS_MERCHANT_TERMINAL', 'DS_MERCHANT_ORDER', 'DS_MERCHANT_TRANSACTIONTYPE', 'DS_MERCHANT_AMOUNT', 'DS_MERCHANT_CURRENCY', 'DS_MERCHANT_PAN', 'DS_MERCHANT_EXPIRYDATE'],
        additionalProperties: false,
        properties: {
          ...base(['0', '1', '7']),
          ...COMMON_OPTIONAL,
          ...CARD,
          // Y: ask which exemptions apply (activemerchant's iniciaPeticion)
          DS_MERCHANT_EXCEP_SCA: str({ enum: ['Y', ...EXEMPTIONS] }),
          DS_MERCHANT_EMV3DS: { type: 'object', required: ['threeDSInfo'], additionalProperties: false, properties: { threeDSInfo: { const: 'CardData' } } },
          DS_MERCHANT_DCC: str({ enum: ['Y', 'N'] }),
        },
      },
      responses: {
        cardConfiguration: {
          type: 'object',
          'x-source': 'redsys-easy src/types/output-params.ts RestIniciaPeticionOutputParams; 3ds-params.ts ThreeDSv1PreAuthOutputParams, ThreeDSv2PreAuthOutputParams; test/fixtures/rest/3ds-v2.1-challenge.ts, 3ds-v1.ts',
          required: ['Ds_Order', 'Ds_MerchantCode', 'Ds_Terminal', 'Ds_TransactionType'],
          properties: {
            ...ANSWER_BASE,
            Ds_EMV3DS: {
              oneOf: [
                {
                  type: 'object',
                  required: ['threeDSInfo', 'protocolVersion', 'threeDSServerTransID'],
                  properties: { threeDSInfo: { const: 'CardConfiguration' }, protocolVersion: str({ enum: ['2.1.0', '2.2.0'] }), threeDSServerTransID: str({ minLength: 1 }), threeDSMethodURL: str({ format: 'uri' }) },
                },
                {
                  type: 'object',
                  required: ['threeDSInfo', 'protocolVersion'],
                  properties: { threeDSInfo: { const: 'CardConfiguration' }, protocolVersion: { const: 'NO_3DS_v2' } },
                },
              ],
            },
          },
        },
        error: ERROR_ANSWER,
      },
    },
    {
      id: 'realizarPago',
      source: 'POST /sis/realizarPago (the customer\'s browser posts the signed form): Ds_MerchantParameters [portal "Conexión por redirección"; redsys-easy RedirectInputParams]',
      request: {
        type: 'object',
        'x-source': 'redsys-easy src/types/input-params.ts RedirectInputParams; test/fixtures/rest/redirect.ts redirectRequest',
        required: ['DS_MERCHANT_MERCHANTCODE', 'DS_MERCHANT_TERMINAL', 'DS_MERCHANT_ORDER', 'DS_MERCHANT_TRANSACTIONTYPE', 'DS_MERCHANT_AMOUNT', 'DS_MERCHANT_CURRENCY'],
        additionalProperties: false,
        properties: {
          ...base(['0', '1', '7']),
          ...COMMON_OPTIONAL,
          DS_MERCHANT_URLOK: str({ format: 'uri', maxLength: 250 }),
          DS_MERCHANT_URLKO: str({ format: 'uri', maxLength: 250 }),
          // the payment methods the page offers (z: Bizum, C: card, ...)
          DS_MERCHANT_PAYMETHODS: str({ minLength: 1 }),
          DS_MERCHANT_PERSOCODE: str(),
          DS_MERCHANT_SHIPPINGADDRESSPYP: str({ enum: ['S', 'N'] }),
          DS_MERCHANT_EMV3DS: { type: 'object' },
        },
      },
      // the page is the customer's (HTML), not an answer to the merchant; the result comes as the notification
      responses: {},
    },
    {
      id: 'notification',
      source: 'POST to DS_MERCHANT_MERCHANTURL (the "notificación online"), Ds_MerchantParameters as posted (URL-encoded values) [guide; redsys-easy RestNotificationOutputParams; test/fixtures/rest/redirect.ts deserializedRedirectRestNotification]',
      responses: {
        notification: {
          type: 'object',
          'x-source': 'redsys-easy src/types/output-params.ts RestNotificationOutputParams',
          required: ['Ds_Date', 'Ds_Hour', 'Ds_Amount', 'Ds_Currency', 'Ds_Order', 'Ds_MerchantCode', 'Ds_Terminal', 'Ds_Response', 'Ds_TransactionType'],
          properties: {
            ...ANSWER_BASE,
            // DD/MM/YYYY and hh:mm, the slash and colon URL-encoded as posted
            Ds_Date: str({ pattern: '^\\d{2}(/|%2F)\\d{2}(/|%2F)\\d{4}$' }),
            Ds_Hour: str({ pattern: '^\\d{2}(:|%3A)\\d{2}$' }),
            Ds_Amount: digits(1, 12),
            Ds_Currency: digits(3, 3),
            Ds_Response: str({ pattern: '^\\d{4}$' }),
            Ds_ConsumerLanguage: digits(1, 3),
            Ds_ErrorCode: str(),
          },
        },
      },
    },
    {
      id: 'consultaOperaciones',
      source: 'POST /apl02/services/SerClsWSConsulta, SOAP consultaOperaciones: the <Transaction> of the signed <Version>, and the <Response> or <ErrorMsg> of consultaOperacionesReturn [guide, query web service; XML errors of the SIS error table]',
      request: {
        type: 'object',
        'x-source': 'Redsys query web service (consultaOperaciones): Transaction fields',
        required: ['Ds_MerchantCode', 'Ds_Terminal', 'Ds_Order', 'Ds_TransactionType'],
        additionalProperties: false,
        properties: { Ds_MerchantCode: digits(9, 9), Ds_Terminal: digits(1, 3), Ds_Order: str({ pattern: ORDER }), Ds_TransactionType: str({ enum: TRANSACTION_TYPES }) },
      },
      responses: {
        response: {
          type: 'object',
          'x-source': 'Redsys query web service: Response fields (the Ds_* fields of the operation)',
          required: ['Ds_MerchantCode', 'Ds_Terminal', 'Ds_Order', 'Ds_TransactionType', 'Ds_Amount', 'Ds_Currency', 'Ds_Response'],
          properties: {
            ...ANSWER_BASE,
            Ds_Amount: digits(1, 12),
            Ds_Currency: digits(3, 3),
            Ds_Response: str({ pattern: '^\\d{4}$' }),
            Ds_Date: str({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
            Ds_Hour: str({ pattern: '^\\d{2}:\\d{2}$' }),
            Ds_State: str(),
          },
        },
        error: {
          type: 'object',
          'x-source': 'the XML0xxx errors of the SIS error table (redsys-easy src/assets/error-codes.ts)',
          required: ['Ds_ErrorCode'],
          properties: { Ds_ErrorCode: str({ pattern: '^XML\\d{4}$' }) },
        },
      },
    },
  ],
};

/** The operation of a trataPeticion, by its transaction type (an unknown type: the authorization's, which refuses it). */
export function trataOperationOf(type: unknown): string {
  switch (type) {
    case '1':
      return 'trataPeticion.preauthorization';
    case '2':
      return 'trataPeticion.confirmation';
    case '3':
      return 'trataPeticion.refund';
    case '9':
      return 'trataPeticion.cancellation';
    default:
      return 'trataPeticion.authorization';
  }
}

/** The SIS error of a missing DS_MERCHANT_EMV3DS field (SIS0571–SIS0584, SIS0653: "... no indicado"). */
const EMV3DS_MISSING: Record<string, string> = {
  protocolVersion: 'SIS0571',
  browserAcceptHeader: 'SIS0573',
  browserUserAgent: 'SIS0574',
  browserJavaEnabled: 'SIS0575',
  browserLanguage: 'SIS0576',
  browserColorDepth: 'SIS0577',
  browserScreenHeight: 'SIS0578',
  browserScreenWidth: 'SIS0579',
  browserTZ: 'SIS0580',
  threeDSServerTransID: 'SIS0582',
  threeDSCompInd: 'SIS0583',
  notificationURL: 'SIS0584',
  browserJavascriptEnabled: 'SIS0653',
};

/** The SIS errors of a parameter: [missing, malformed]. */
const PARAMETER_ERRORS: Record<string, [string, string]> = {
  DS_MERCHANT_MERCHANTCODE: ['SIS0008', 'SIS0009'],
  DS_MERCHANT_TERMINAL: ['SIS0010', 'SIS0011'],
  DS_MERCHANT_ORDER: ['SIS0074', 'SIS0075'],
  DS_MERCHANT_CURRENCY: ['SIS0015', 'SIS0016'],
  DS_MERCHANT_AMOUNT: ['SIS0018', 'SIS0018'],
  DS_MERCHANT_TRANSACTIONTYPE: ['SIS0022', 'SIS0023'],
  DS_MERCHANT_PAN: ['SIS0063', 'SIS0063'],
  DS_MERCHANT_EXPIRYDATE: ['SIS0066', 'SIS0066'],
  DS_MERCHANT_EXCEP_SCA: ['SIS0616', 'SIS0616'],
  DS_MERCHANT_COF_TYPE: ['SIS0802', 'SIS0802'],
  DS_MERCHANT_MPIEXTERNAL: ['SIS0605', 'SIS0606'],
  DS_MERCHANT_EMV3DS: ['SIS0581', 'SIS0581'],
};

/**
 * The SIS error Redsys answers a request that breaks its reference with, from the first problem
 * SpecChecker found: the documented error of the parameter it names (missing or malformed; a missing
 * EMV3DS field its own); SIS0007 ("the message is not correct") when none is more precise.
 */
export function sisErrorOf(problems: string[]): string {
  const first = problems[0] ?? '';
  const path = /^\/([A-Za-z0-9_]+)/.exec(first)?.[1] ?? null;
  const missing = /must have required property '([A-Za-z0-9_]+)'/.exec(first)?.[1] ?? null;
  if (path === 'DS_MERCHANT_EMV3DS' && missing && EMV3DS_MISSING[missing]) return EMV3DS_MISSING[missing];
  if (path) return PARAMETER_ERRORS[path]?.[1] ?? 'SIS0007';
  if (missing) return PARAMETER_ERRORS[missing]?.[0] ?? 'SIS0007';
  return 'SIS0007';
}
