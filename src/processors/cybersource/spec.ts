/**
 * CyberSource's REST API as schemas (the oracle the simulator and the tests hold the connector to): the
 * requests the connector sends and the answers it reads, per operation, derived by hand from the models
 * CyberSource generates its official clients from (facts only: names, types, enums, required fields).
 *
 * Sources (cited per schema):
 *  [PY]   CyberSource/cybersource-rest-client-python a9dde2993c9c7ccb5ad0267822a9dd475823b19d
 *         (2026-05-16), docs/*.md: the models of generator/cybersource-rest-spec.json (CreatePaymentRequest,
 *         PtsV2PaymentsPost201Response, CapturePaymentRequest, RefundPaymentRequest, AuthReversalRequest,
 *         CreateSearchRequest, TssV2TransactionsPost201Response and their parts)
 *  [NODE] CyberSource/cybersource-rest-client-node src/authentication/http (HTTPSigToken.js,
 *         SignatureParameterGenerator.js): the HTTP Signature headers and signing string
 *  [DOCS] developer.cybersource.com: field lengths of the REST API field reference (String (n)); the
 *         401 answer `{"response":{"rmsg":"Authentication Failed"}}`; Transaction Search query filters
 *  [HS]   juspay/hyperswitch crates/hyperswitch_connectors/src/connectors/cybersource (a second opinion:
 *         commerce indicators, initiator fields of stored credentials)
 * Request schemas are closed to the fields the connector may send (each one a field of the model);
 * answers are open, their enums and required fields as the models name them.
 */
import type { JsonSchema, ProviderSpec } from '../kit/spec.js';

const str = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
const bool: JsonSchema = { type: 'boolean' };
const int = (extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...extra });
const obj: JsonSchema = { type: 'object' };
const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });
const closed = (properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema => ({ type: 'object', additionalProperties: false, properties, ...extra });

const AMOUNT = str({ pattern: '^\\d{1,15}(\\.\\d{1,4})?$', maxLength: 19 });
const CURRENCY = str({ pattern: '^[A-Z]{3}$' });
/** Answers write currencies in either case (the guides' examples answer `"currency" : "usd"`). */
const ANSWER_CURRENCY = str({ pattern: '^[A-Za-z]{3}$' });

/** Payment statuses of PtsV2PaymentsPost201Response.status [PY]. */
const PAYMENT_STATUSES = ['AUTHORIZED', 'PARTIAL_AUTHORIZED', 'AUTHORIZED_PENDING_REVIEW', 'AUTHORIZED_RISK_DECLINED', 'PENDING_AUTHENTICATION', 'PENDING_REVIEW', 'DECLINED', 'INVALID_REQUEST'];

/** errorInformation.reason of a 201 [PY] PtsV2PaymentsPost201ResponseErrorInformation. */
const DECLINE_REASONS = [
  'AVS_FAILED', 'CONTACT_PROCESSOR', 'EXPIRED_CARD', 'PROCESSOR_DECLINED', 'INSUFFICIENT_FUND', 'STOLEN_LOST_CARD', 'ISSUER_UNAVAILABLE', 'UNAUTHORIZED_CARD',
  'CVN_NOT_MATCH', 'EXCEEDS_CREDIT_LIMIT', 'INVALID_CVN', 'BLOCKED_BY_CARDHOLDER', 'DECLINED_CHECK', 'BLACKLISTED_CUSTOMER', 'SUSPENDED_ACCOUNT', 'PAYMENT_REFUSED',
  'CV_FAILED', 'INVALID_ACCOUNT', 'GENERAL_DECLINE', 'INVALID_MERCHANT_CONFIGURATION', 'DECISION_PROFILE_REJECT', 'SCORE_EXCEEDS_THRESHOLD', 'PENDING_AUTHENTICATION',
  'ACH_VERIFICATION_FAILED', 'DECISION_PROFILE_REVIEW', 'CONSUMER_AUTHENTICATION_REQUIRED', 'CONSUMER_AUTHENTICATION_FAILED', 'ALLOWABLE_PIN_RETRIES_EXCEEDED',
  'PROCESSOR_ERROR', 'CUSTOMER_WATCHLIST_MATCH', 'ADDRESS_COUNTRY_WATCHLIST_MATCH', 'EMAIL_COUNTRY_WATCHLIST_MATCH', 'IP_COUNTRY_WATCHLIST_MATCH', 'DAGGREJECTED', 'DAGGDENIED', 'DSYSREJECTED',
];

/** A 400 of an operation: status INVALID_REQUEST and the operation's reasons [PY] PtsV2Payments*Post400Response. */
function invalid(reasons: string[], source: string): JsonSchema {
  return {
    type: 'object',
    required: ['status', 'reason'],
    properties: { submitTimeUtc: str(), status: { const: 'INVALID_REQUEST' }, reason: { enum: reasons }, message: str(), details: { type: 'array', items: { type: 'object', properties: { field: str(), reason: str() } } } },
    'x-source': source,
  };
}

const defs: Record<string, JsonSchema> = {
  // ---- requests ----
  ClientReferenceInformation: closed({ code: str({ minLength: 1, maxLength: 50 }) }, { required: ['code'], 'x-source': '[PY] Ptsv2paymentsClientReferenceInformation (code); [DOCS] String (50)' }),
  Card: closed({
    number: str({ pattern: '^\\d{12,19}$' }),
    expirationMonth: str({ pattern: '^(0[1-9]|1[0-2])$' }),
    expirationYear: str({ pattern: '^\\d{4}$' }),
    securityCode: str({ pattern: '^\\d{3,4}$' }),
    type: str({ pattern: '^\\d{3}$' }),
  }, { required: ['number', 'expirationMonth', 'expirationYear'], 'x-source': '[PY] Ptsv2paymentsPaymentInformationCard (number, expirationMonth MM with its leading 0, expirationYear YYYY, securityCode, type three digits)' }),
  AmountDetails: closed({ totalAmount: AMOUNT, currency: CURRENCY }, { required: ['totalAmount', 'currency'], 'x-source': '[PY] Ptsv2paymentsOrderInformationAmountDetails (totalAmount: no special characters but the decimal point; currency ISO alpha-3)' }),
  Initiator: closed({
    type: { enum: ['customer', 'merchant'] },
    credentialStoredOnFile: bool,
    storedCredentialUsed: bool,
    merchantInitiatedTransaction: closed({ reason: str({ maxLength: 1 }), previousTransactionId: str({ maxLength: 100 }), originalAuthorizedAmount: AMOUNT }),
  }, { 'x-source': '[PY] Ptsv2paymentsProcessingInformationAuthorizationOptionsInitiator and ...InitiatorMerchantInitiatedTransaction (reason required only for resubmissions, delayed charges, reauthorizations, no-shows and top-ups; [HS] sends 7 with a network transaction id, which the model does not list: not sent)' }),
  ProcessingInformation: closed({
    capture: bool,
    // the values the connector sends, as CyberSource's guides list them
    commerceIndicator: { enum: ['internet', 'moto', 'recurring', 'install', 'vbv', 'vbv_attempted', 'spa', 'aesk', 'aesk_attempted', 'dipb', 'dipb_attempted', 'js', 'js_attempted'] },
    actionList: { type: 'array', items: { enum: ['DECISION_SKIP', 'TOKEN_CREATE', 'CONSUMER_AUTHENTICATION', 'VALIDATE_CONSUMER_AUTHENTICATION'] }, maxItems: 4 },
    authorizationOptions: closed({ initiator: ref('Initiator'), partialAuthIndicator: bool }),
  }, { 'x-source': '[PY] Ptsv2paymentsProcessingInformation (capture, commerceIndicator, actionList values), Ptsv2paymentsProcessingInformationAuthorizationOptions (initiator, partialAuthIndicator); [HS] commerce indicators by card brand' }),
  ConsumerAuthenticationRequest: closed({
    returnUrl: str({ format: 'uri', maxLength: 2048 }),
    referenceId: str({ maxLength: 50 }),
    authenticationTransactionId: str({ maxLength: 40 }),
    cavv: str({ maxLength: 40 }),
    eciRaw: str({ maxLength: 2 }),
    paresStatus: { enum: ['Y', 'A', 'N', 'U', 'R', 'C', 'I'] },
    directoryServerTransactionId: str({ maxLength: 36 }),
    paSpecificationVersion: str({ maxLength: 20 }),
    ucafAuthenticationData: str({ maxLength: 32 }),
    ucafCollectionIndicator: { enum: ['0', '1', '2', '5', '6'] },
    xid: str({ maxLength: 40 }),
  }, { 'x-source': '[PY] Ptsv2paymentsConsumerAuthenticationInformation; [HS] Mastercard\'s AAV as ucafAuthenticationData with ucafCollectionIndicator 2' }),
  DeviceInformation: closed({
    ipAddress: str({ maxLength: 48 }),
    httpAcceptBrowserValue: str({ maxLength: 255 }),
    userAgentBrowserValue: str({ maxLength: 255 }),
    httpBrowserLanguage: str({ maxLength: 8 }),
    httpBrowserJavaEnabled: bool,
    httpBrowserJavaScriptEnabled: bool,
    httpBrowserColorDepth: str({ pattern: '^\\d{1,2}$' }),
    httpBrowserScreenHeight: str({ pattern: '^\\d{1,6}$' }),
    httpBrowserScreenWidth: str({ pattern: '^\\d{1,6}$' }),
    httpBrowserTimeDifference: str({ pattern: '^-?\\d{1,5}$' }),
  }, { 'x-source': '[PY] Ptsv2paymentsDeviceInformation (the browser fields of payer authentication)' }),

  // ---- answers ----
  ClientReferenceAnswer: { type: 'object', properties: { code: str() }, 'x-source': '[PY] PtsV2PaymentsPost201ResponseClientReferenceInformation' },
  Links: { type: 'object', 'x-source': '[PY] PtsV2PaymentsPost201ResponseLinks' },
  PaymentAnswer: {
    type: 'object',
    required: ['id', 'status', 'submitTimeUtc'],
    properties: {
      _links: ref('Links'),
      id: str({ pattern: '^\\d{10,40}$' }),
      submitTimeUtc: str({ format: 'date-time' }),
      status: { enum: PAYMENT_STATUSES },
      reconciliationId: str(),
      clientReferenceInformation: ref('ClientReferenceAnswer'),
      errorInformation: { type: 'object', required: ['reason'], properties: { reason: { enum: DECLINE_REASONS }, message: str(), details: { type: 'array' } } },
      processorInformation: { type: 'object', properties: { approvalCode: str(), transactionId: str(), networkTransactionId: str(), responseCode: str(), avs: obj } },
      orderInformation: { type: 'object', properties: { amountDetails: { type: 'object', properties: { totalAmount: AMOUNT, authorizedAmount: AMOUNT, currency: ANSWER_CURRENCY } } } },
      consumerAuthenticationInformation: {
        type: 'object',
        properties: {
          acsUrl: str({ format: 'uri' }), pareq: str(), authenticationTransactionId: str(), stepUpUrl: str(), accessToken: str(),
          paresStatus: str({ maxLength: 1 }), veresEnrolled: str(), eciRaw: str(), eci: str(), cavv: str(), ucafAuthenticationData: str(),
          directoryServerTransactionId: str(), specificationVersion: str(),
        },
      },
    },
    // a challenge names where the cardholder goes; a decline says why
    allOf: [
      { if: { properties: { status: { const: 'PENDING_AUTHENTICATION' } } }, then: { required: ['consumerAuthenticationInformation'] } },
      { if: { properties: { status: { const: 'DECLINED' } } }, then: { required: ['errorInformation'] } },
    ],
    'x-source': '[PY] PtsV2PaymentsPost201Response (status values, errorInformation.reason values), ...ProcessorInformation, ...OrderInformationAmountDetails, ...ConsumerAuthenticationInformation',
  },
  Unauthorized: { type: 'object', required: ['response'], properties: { response: { type: 'object', properties: { rmsg: str() } } }, 'x-source': '[DOCS] HTTP Signature failures: 401 {"response":{"rmsg":"Authentication Failed"}}' },
  ServerError: { type: 'object', properties: { submitTimeUtc: str(), status: { const: 'SERVER_ERROR' }, reason: { enum: ['SYSTEM_ERROR', 'SERVER_TIMEOUT', 'SERVICE_TIMEOUT'] }, message: str() }, 'x-source': '[PY] PtsV2PaymentsPost502Response' },
  NotFound: { type: 'object', properties: { submitTimeUtc: str(), status: str(), reason: str(), message: str() }, 'x-source': '[DOCS] 404 of a follow-up on an unknown id' },
};

const FOLLOW_UP_REQUEST = closed({ clientReferenceInformation: ref('ClientReferenceInformation'), orderInformation: closed({ amountDetails: ref('AmountDetails') }, { required: ['amountDetails'] }) }, { required: ['clientReferenceInformation', 'orderInformation'] });

function followUpAnswer(statuses: string[], amounts: string, amountField: string, source: string): JsonSchema {
  return {
    type: 'object',
    required: ['id', 'status', 'submitTimeUtc'],
    properties: {
      _links: ref('Links'), id: str({ pattern: '^\\d{10,40}$' }), submitTimeUtc: str({ format: 'date-time' }), status: { enum: statuses }, reconciliationId: str(),
      clientReferenceInformation: ref('ClientReferenceAnswer'),
      [amounts]: { type: 'object', properties: { [amountField]: AMOUNT, currency: ANSWER_CURRENCY } },
      orderInformation: obj, processorInformation: obj,
      errorInformation: { type: 'object', properties: { reason: str(), message: str() } },
    },
    'x-source': source,
  };
}

export const CYBERSOURCE_SPEC: ProviderSpec = {
  provider: 'CyberSource',
  sources: [
    'CyberSource/cybersource-rest-client-python a9dde2993c9c7ccb5ad0267822a9dd475823b19d (2026-05-16), docs/ (models of generator/cybersource-rest-spec.json)',
    'CyberSource/cybersource-rest-client-node src/authentication/http (HTTP Signature)',
    'developer.cybersource.com REST API field reference; Transaction Search; Payer Authentication',
  ],
  defs,
  operations: [
    {
      id: 'createPayment',
      source: '[PY] PaymentsApi.create_payment: POST /pts/v2/payments, CreatePaymentRequest → 201 PtsV2PaymentsPost201Response, 400 PtsV2PaymentsPost400Response, 502 PtsV2PaymentsPost502Response',
      request: closed({
        clientReferenceInformation: ref('ClientReferenceInformation'),
        processingInformation: ref('ProcessingInformation'),
        paymentInformation: closed({ card: ref('Card') }, { required: ['card'] }),
        orderInformation: closed({ amountDetails: ref('AmountDetails'), billTo: closed({ firstName: str({ minLength: 1, maxLength: 60 }), lastName: str({ minLength: 1, maxLength: 60 }) }) }, { required: ['amountDetails'] }),
        consumerAuthenticationInformation: ref('ConsumerAuthenticationRequest'),
        deviceInformation: ref('DeviceInformation'),
        merchantInformation: closed({ merchantDescriptor: closed({ name: str({ maxLength: 23 }) }) }),
      }, { required: ['clientReferenceInformation', 'processingInformation', 'paymentInformation', 'orderInformation'], 'x-source': '[PY] CreatePaymentRequest' }),
      responses: {
        201: ref('PaymentAnswer'),
        400: invalid(['MISSING_FIELD', 'INVALID_DATA', 'DUPLICATE_REQUEST', 'INVALID_CARD', 'CARD_TYPE_NOT_ACCEPTED', 'INVALID_MERCHANT_CONFIGURATION', 'PROCESSOR_UNAVAILABLE', 'INVALID_AMOUNT', 'INVALID_CARD_TYPE', 'INVALID_PAYMENT_ID', 'NOT_SUPPORTED'], '[PY] PtsV2PaymentsPost400Response'),
        401: ref('Unauthorized'),
        502: ref('ServerError'),
      },
    },
    {
      id: 'capturePayment',
      source: '[PY] CaptureApi.capture_payment: POST /pts/v2/payments/{id}/captures, CapturePaymentRequest → 201 PtsV2PaymentsCapturesPost201Response (PENDING, or TRANSMITTED with online capture), 400 PtsV2PaymentsCapturesPost400Response',
      request: FOLLOW_UP_REQUEST,
      responses: {
        201: followUpAnswer(['PENDING', 'TRANSMITTED'], 'orderInformation', 'totalAmount', '[PY] PtsV2PaymentsCapturesPost201Response'),
        400: invalid(['MISSING_FIELD', 'INVALID_DATA', 'DUPLICATE_REQUEST', 'INVALID_MERCHANT_CONFIGURATION', 'EXCEEDS_AUTH_AMOUNT', 'AUTH_ALREADY_REVERSED', 'TRANSACTION_ALREADY_SETTLED', 'INVALID_AMOUNT', 'MISSING_AUTH', 'TRANSACTION_ALREADY_REVERSED_OR_SETTLED', 'NOT_SUPPORTED'], '[PY] PtsV2PaymentsCapturesPost400Response'),
        401: ref('Unauthorized'), 404: ref('NotFound'), 502: ref('ServerError'),
      },
    },
    {
      id: 'refundPayment',
      source: '[PY] RefundApi.refund_payment: POST /pts/v2/payments/{id}/refunds, and refund_capture: POST /pts/v2/captures/{id}/refunds, RefundPaymentRequest → 201 PtsV2PaymentsRefundPost201Response (PENDING, DECLINED), 400 PtsV2PaymentsRefundPost400Response',
      request: FOLLOW_UP_REQUEST,
      responses: {
        201: followUpAnswer(['PENDING', 'TRANSMITTED', 'DECLINED', 'INVALID_REQUEST'], 'refundAmountDetails', 'refundAmount', '[PY] PtsV2PaymentsRefundPost201Response, ...RefundAmountDetails'),
        400: invalid(['MISSING_FIELD', 'INVALID_DATA', 'DUPLICATE_REQUEST', 'INVALID_CARD', 'INVALID_MERCHANT_CONFIGURATION', 'INVALID_AMOUNT', 'CAPTURE_ALREADY_VOIDED', 'ACCOUNT_NOT_ALLOWED_CREDIT', 'NOT_SUPPORTED'], '[PY] PtsV2PaymentsRefundPost400Response'),
        401: ref('Unauthorized'), 404: ref('NotFound'), 502: ref('ServerError'),
      },
    },
    {
      id: 'authReversal',
      source: '[PY] ReversalApi.auth_reversal: POST /pts/v2/payments/{id}/reversals, AuthReversalRequest → 201 PtsV2PaymentsReversalsPost201Response (REVERSED), 400 PtsV2PaymentsReversalsPost400Response',
      request: closed({
        clientReferenceInformation: ref('ClientReferenceInformation'),
        reversalInformation: closed({ amountDetails: ref('AmountDetails'), reason: str({ maxLength: 3 }) }, { required: ['amountDetails'] }),
      }, { required: ['clientReferenceInformation', 'reversalInformation'], 'x-source': '[PY] AuthReversalRequest, Ptsv2paymentsidreversalsReversalInformation' }),
      responses: {
        201: followUpAnswer(['REVERSED'], 'reversalAmountDetails', 'reversedAmount', '[PY] PtsV2PaymentsReversalsPost201Response, ...ReversalAmountDetails'),
        400: invalid(['MISSING_FIELD', 'INVALID_DATA', 'DUPLICATE_REQUEST', 'INVALID_MERCHANT_CONFIGURATION', 'PROCESSOR_UNAVAILABLE', 'AUTH_ALREADY_REVERSED', 'TRANSACTION_ALREADY_SETTLED', 'INVALID_AMOUNT', 'MISSING_AUTH', 'TRANSACTION_ALREADY_REVERSED_OR_SETTLED', 'NOT_SUPPORTED'], '[PY] PtsV2PaymentsReversalsPost400Response'),
        401: ref('Unauthorized'), 404: ref('NotFound'), 502: ref('ServerError'),
      },
    },
    {
      id: 'createSearch',
      source: '[PY] SearchTransactionsApi.create_search: POST /tss/v2/searches, CreateSearchRequest → 201 TssV2TransactionsPost201Response; [DOCS] query filter clientReferenceInformation.code',
      request: closed({
        save: bool, name: str({ maxLength: 100 }), timezone: str(), query: str({ minLength: 1, maxLength: 2000 }), offset: int({ minimum: 0 }), limit: int({ minimum: 1, maximum: 2500 }), sort: str(),
      }, { required: ['query'], 'x-source': '[PY] CreateSearchRequest (limit at most 2500)' }),
      responses: {
        201: {
          type: 'object',
          required: ['searchId', 'count', 'totalCount'],
          properties: {
            searchId: str(), save: bool, name: str(), timezone: str(), query: str(), offset: int(), limit: int(), sort: str(), count: int({ minimum: 0 }), totalCount: int({ minimum: 0 }), submitTimeUtc: str(),
            _embedded: {
              type: 'object',
              properties: {
                transactionSummaries: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['id'],
                    properties: {
                      id: str(), submitTimeUtc: str(), merchantId: str(), status: str(),
                      applicationInformation: {
                        type: 'object',
                        properties: {
                          reasonCode: str(), rCode: str(), rFlag: str(),
                          applications: { type: 'array', items: { type: 'object', properties: { name: str(), reasonCode: str(), status: str(), reason: str(), rCode: { enum: ['-1', '0', '1'] }, rFlag: str(), reconciliationId: str(), rMessage: str(), returnCode: int() } } },
                        },
                      },
                      clientReferenceInformation: ref('ClientReferenceAnswer'),
                      orderInformation: { type: 'object', properties: { amountDetails: { type: 'object', properties: { totalAmount: AMOUNT, currency: ANSWER_CURRENCY } } } },
                      processorInformation: { type: 'object', properties: { approvalCode: str() } },
                    },
                  },
                },
              },
            },
            _links: obj,
          },
          'x-source': '[PY] TssV2TransactionsPost201Response, ...EmbeddedTransactionSummaries, ...EmbeddedApplicationInformation(Applications: rCode -1, 0, 1)',
        },
        400: { type: 'object', properties: { submitTimeUtc: str(), status: str(), message: str() }, 'x-source': '[PY] PtsV2PaymentsPost400Response shape' },
        401: ref('Unauthorized'),
        502: ref('ServerError'),
      },
    },
  ],
};
