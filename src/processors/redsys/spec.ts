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
import type { ProviderSpec } from '../kit/spec.js';
import { ANSWER_BASE, CARD, CHALLENGE_ANSWER, COMMON_OPTIONAL, ERROR_ANSWER, EXEMPTIONS, MPIEXTERNAL, ORDER, RESULT_ANSWER, TRANSACTION_TYPES, TRATA, base, cardPayment, digits, followUp, str } from './spec-common.js';

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
