/**
 * Nuvei's REST API 1.0 as its published reference describes it, for the methods the connector uses and
 * every answer and DMN the simulator gives: JSON Schemas written by hand from the sources below (facts
 * only: names, types, enums, required fields). The simulator checks every request it receives and every
 * answer and notification it gives against them (`SpecLedger`); unit tests run the mapping's requests and
 * the reference's examples through them.
 *
 * Sources (each schema says where it comes from in `x-source`):
 *  - [API] Nuvei REST API 1.0 reference (docs.nuvei.com/api/main/indexMain_v1_0.html): methods
 *    /getSessionToken, /initPayment, /payment, /settleTransaction, /voidTransaction, /refundTransaction,
 *    /getTransactionDetails; their input parameters, output parameters and the checksum field order
 *    each lists (the same orders as Nuvei's SDKs: Nuvei/nuvei-server-java, com.nuvei.util.ChecksumUtils
 *    and the request classes, e.g. `isMoto` a string "1", `isRebilling` an integer; Nuvei/nuvei-server-php,
 *    src/Nuvei/Api/Service/PaymentService.php: initPayment's mandatory fields and checksum); the `paymentOption.card`, `threeD`, `browserDetails`, `storedCredentials`, `urlDetails`
 *    and `deviceDetails` classes.
 *  - [SDK] Nuvei's official SDKs, which encode the same classes and checksum orders:
 *    Nuvei/nuvei-server-java (com.nuvei.model.StoredCredentials: `storedCredentialsMode` of at most 1
 *    character; Authorize3dAndPaymentRequest: `isRebilling` Integer, `rebillingType` up to 10), and for
 *    getTransactionDetails, which those SDKs do not wrap, the Node models of better-commerce/bc-nuvei-sdk
 *    (src/utils/checksum.ts, src/models: `transactionDetails`).
 *  - [DMN] Nuvei's "Direct Merchant Notification" page (docs.nuvei.com/documentation/integration/
 *    webhooks/payment-dmns/): the form fields of a payment DMN and `advanceResponseChecksum` (SHA-256 of
 *    the secret key, totalAmount, currency, responseTimeStamp, PPP_TransactionID, Status, productId),
 *    as Nuvei's own plugin reads them (Nuvei/nuvei-plugin-woocommerce, includes/
 *    class-nuvei-pfw-notify-url.php: the fields, `responsechecksum` over every value then the key).
 *  - Hyperswitch's `nuvei` connector (juspay/hyperswitch, crates/hyperswitch_connectors/src/connectors/
 *    nuvei/transformers.rs) as a second opinion on the request shapes.
 *
 * Requests are closed (`additionalProperties: false`: the reference lists the fields); answers are open
 * (Nuvei adds fields), but their required fields and enums are the reference's.
 */
import type { JsonSchema, ProviderSpec } from '../kit/spec.js';

const str = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
const int = (extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...extra });
const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });
const closed = (required: string[], properties: Record<string, JsonSchema>, source: string): JsonSchema => ({ type: 'object', required, additionalProperties: false, properties, 'x-source': source });
const open = (required: string[], properties: Record<string, JsonSchema>, source: string): JsonSchema => ({ type: 'object', required, properties, 'x-source': source });

/** `transactionStatus` values: [API] output parameters of /payment and the follow-ups. */
export const NUVEI_TRANSACTION_STATUSES = ['APPROVED', 'DECLINED', 'ERROR', 'REDIRECT', 'PENDING'];
/** `transactionType` values of a transaction: [API]. */
export const NUVEI_TRANSACTION_TYPES = ['Sale', 'Auth', 'PreAuth', 'Settle', 'Void', 'Credit', 'InitAuth3D', 'Auth3D'];

const id = str({ minLength: 1, maxLength: 255 });
const amount = str({ pattern: '^\\d{1,12}(\\.\\d{1,3})?$' });
const currency = str({ pattern: '^[A-Z]{3}$' });
const sha256 = str({ pattern: '^[0-9a-f]{64}$' });
const timeStamp = str({ pattern: '^\\d{14}$' });

const defs: Record<string, JsonSchema> = {
  BrowserDetails: closed(['acceptHeader', 'javaEnabled', 'javaScriptEnabled', 'language', 'colorDepth', 'screenHeight', 'screenWidth', 'timeZone', 'userAgent'], {
    acceptHeader: str({ maxLength: 2048 }), ip: str({ maxLength: 45 }), javaEnabled: str({ enum: ['TRUE', 'FALSE'] }), javaScriptEnabled: str({ enum: ['TRUE', 'FALSE'] }),
    language: str({ maxLength: 8 }), colorDepth: str({ enum: ['1', '4', '8', '15', '16', '24', '32', '48'] }), screenHeight: str({ pattern: '^\\d{1,6}$' }), screenWidth: str({ pattern: '^\\d{1,6}$' }),
    timeZone: str({ pattern: '^-?\\d{1,5}$' }), userAgent: str({ maxLength: 2048 }),
  }, '[API] browserDetails class'),
  ThreeD: closed([], {
    methodNotificationUrl: str({ maxLength: 1000 }),
    methodCompletionInd: str({ enum: ['Y', 'N', 'U'] }), version: str({ maxLength: 10 }), notificationURL: str({ maxLength: 1000 }), merchantURL: str({ maxLength: 1000 }),
    platformType: str({ enum: ['01', '02'] }), v2AdditionalParams: closed([], { challengeWindowSize: str({ enum: ['01', '02', '03', '04', '05'] }), challengePreference: str({ maxLength: 2 }) }, '[API] v2AdditionalParams class'),
    browserDetails: ref('BrowserDetails'),
  }, '[API] threeD class (input)'),
  Card: closed(['cardNumber', 'expirationMonth', 'expirationYear'], {
    cardNumber: str({ pattern: '^\\d{12,19}$' }), cardHolderName: str({ minLength: 1, maxLength: 70 }), expirationMonth: str({ pattern: '^(0[1-9]|1[0-2])$' }),
    expirationYear: str({ pattern: '^\\d{4}$' }), CVV: str({ pattern: '^\\d{3,4}$' }), threeD: ref('ThreeD'),
    storedCredentials: closed(['storedCredentialsMode'], { storedCredentialsMode: str({ enum: ['0', '1'] }) }, '[API][SDK] storedCredentials class'),
  }, '[API] paymentOption.card class'),
  DeviceDetails: closed([], { ipAddress: str({ maxLength: 45 }) }, '[API] deviceDetails class'),
  UrlDetails: closed([], { notificationUrl: str({ maxLength: 1000 }) }, '[API] urlDetails class'),
  Answer: open(['status'], {
    status: str({ enum: ['SUCCESS', 'ERROR'] }), errCode: int(), reason: str(), merchantId: str(), merchantSiteId: str(), clientRequestId: str(), internalRequestId: int(), version: str(),
  }, '[API] the output parameters every method answers'),
  TransactionAnswer: open(['status'], {
    status: str({ enum: ['SUCCESS', 'ERROR'] }), transactionStatus: str({ enum: NUVEI_TRANSACTION_STATUSES }), transactionId: str(), authCode: str(),
    gwErrorCode: int(), gwErrorReason: str(), gwExtendedErrorCode: int(), clientRequestId: str(), clientUniqueId: str(), errCode: int(), reason: str(),
  }, '[API] output parameters of /payment, /settleTransaction, /voidTransaction, /refundTransaction'),
};

const common = { merchantId: str({ pattern: '^\\d{1,30}$' }), merchantSiteId: str({ pattern: '^\\d{1,20}$' }), clientRequestId: id, timeStamp, checksum: sha256 };

export const NUVEI_SPEC: ProviderSpec = {
  provider: 'Nuvei',
  sources: [
    'Nuvei REST API 1.0 reference (docs.nuvei.com/api/main/indexMain_v1_0.html)',
    "Nuvei's SDKs: SafeChargeInternational/safecharge-java (com.safecharge.model), better-commerce/bc-nuvei-sdk (checksum orders, transaction details)",
    'Nuvei Direct Merchant Notifications (docs.nuvei.com, payment DMNs, advanceResponseChecksum)',
  ],
  defs,
  operations: [
    {
      id: 'getSessionToken',
      source: '[API] POST /ppp/api/v1/getSessionToken.do; checksum: merchantId, merchantSiteId, clientRequestId, timeStamp, merchantSecretKey',
      request: closed(['merchantId', 'merchantSiteId', 'clientRequestId', 'timeStamp', 'checksum'], common, '[API] /getSessionToken input'),
      responses: { 200: { allOf: [ref('Answer'), open([], { sessionToken: str() }, '[API] /getSessionToken output')] } },
    },
    {
      id: 'initPayment',
      source: '[API][SDK] POST /ppp/api/v1/initPayment.do (3-D Secure 2: the card\'s 3DS method); checksum: merchantId, merchantSiteId, clientRequestId, amount, currency, timeStamp, merchantSecretKey',
      request: closed(['sessionToken', 'merchantId', 'merchantSiteId', 'clientRequestId', 'clientUniqueId', 'amount', 'currency', 'paymentOption', 'timeStamp', 'checksum'], {
        ...common, sessionToken: str({ minLength: 1 }), clientUniqueId: str({ minLength: 1, maxLength: 255 }),
        amount, currency, paymentOption: closed(['card'], { card: ref('Card') }, '[API] paymentOption class'), deviceDetails: ref('DeviceDetails'),
      }, '[API] /initPayment input'),
      responses: {
        200: { allOf: [ref('TransactionAnswer'), open([], {
          transactionType: str({ enum: ['InitAuth3D'] }),
          paymentOption: open([], { card: open([], { threeD: open([], { v2supported: str({ enum: ['true', 'false'] }), methodUrl: str(), methodPayload: str(), serverTransId: str(), version: str() }, '[API] /initPayment output threeD') }, '[API]') }, '[API]'),
        }, '[API] /initPayment output')] },
      },
    },
    {
      id: 'payment',
      source: '[API] POST /ppp/api/v1/payment.do; checksum: merchantId, merchantSiteId, clientRequestId, amount, currency, timeStamp, merchantSecretKey',
      request: closed(['sessionToken', 'merchantId', 'merchantSiteId', 'clientRequestId', 'amount', 'currency', 'paymentOption', 'timeStamp', 'checksum'], {
        ...common, sessionToken: str({ minLength: 1 }), clientUniqueId: str({ maxLength: 255 }), amount, currency,
        transactionType: str({ enum: ['Sale', 'Auth', 'PreAuth'] }), paymentOption: closed(['card'], { card: ref('Card') }, '[API] paymentOption class'),
        isRebilling: int({ enum: [0, 1] }), rebillingType: str({ enum: ['RECURRING'] }), isMoto: str({ enum: ['0', '1'] }),
        relatedTransactionId: str({ pattern: '^\\d{1,19}$' }), deviceDetails: ref('DeviceDetails'), urlDetails: ref('UrlDetails'),
      }, '[API] /payment input'),
      responses: {
        200: { allOf: [ref('TransactionAnswer'), open([], {
          transactionType: str({ enum: NUVEI_TRANSACTION_TYPES }), orderId: str(), externalSchemeTransactionId: str(),
          paymentOption: open([], { card: open([], { threeD: open([], { acsUrl: str(), cReq: str(), version: str(), eci: str(), result: str() }, '[API] /payment output threeD') }, '[API]') }, '[API]'),
        }, '[API] /payment output')] },
      },
    },
    ...(['settleTransaction', 'voidTransaction', 'refundTransaction'] as const).map((m) => ({
      id: m,
      source: `[API] POST /ppp/api/v1/${m}.do; checksum: merchantId, merchantSiteId, clientRequestId, clientUniqueId, amount, currency, relatedTransactionId, authCode, comment, urlDetails, timeStamp, merchantSecretKey`,
      request: closed(['merchantId', 'merchantSiteId', 'clientRequestId', 'clientUniqueId', 'amount', 'currency', 'relatedTransactionId', 'timeStamp', 'checksum'], {
        ...common, clientUniqueId: str({ minLength: 1, maxLength: 255 }), amount, currency, relatedTransactionId: str({ pattern: '^\\d{1,19}$' }), authCode: str(), comment: str(), urlDetails: ref('UrlDetails'),
      }, `[API] /${m} input`),
      responses: { 200: ref('TransactionAnswer') },
    })),
    {
      id: 'getTransactionDetails',
      source: '[API] POST /ppp/api/v1/getTransactionDetails.do (by transactionId or clientUniqueId); checksum: merchantId, merchantSiteId, transactionId, clientUniqueId, timeStamp, merchantSecretKey',
      request: closed(['merchantId', 'merchantSiteId', 'timeStamp', 'checksum'], {
        merchantId: common.merchantId, merchantSiteId: common.merchantSiteId, transactionId: str({ pattern: '^\\d{1,19}$' }), clientUniqueId: str({ maxLength: 255 }), timeStamp, checksum: sha256,
      }, '[API] /getTransactionDetails input'),
      responses: {
        200: { allOf: [ref('Answer'), open([], {
          transactionDetails: open(['transactionStatus', 'transactionType', 'transactionId'], {
            transactionStatus: str({ enum: NUVEI_TRANSACTION_STATUSES }), transactionType: str({ enum: NUVEI_TRANSACTION_TYPES }), transactionId: str(), relatedTransactionId: str(),
            authCode: str(), clientUniqueId: str(), date: str(), gwErrorCode: int(), gwErrorReason: str(), gwExtendedErrorCode: int(), isVoided: int(),
          }, '[API][SDK] transactionDetails class'),
        }, '[API] /getTransactionDetails output')] },
      },
    },
    {
      id: 'dmn',
      source: '[DMN] payment DMN: form fields posted to urlDetails.notificationUrl',
      responses: {
        notification: open(['ppp_status', 'Status', 'totalAmount', 'currency', 'responseTimeStamp', 'PPP_TransactionID', 'productId', 'advanceResponseChecksum'], {
          ppp_status: str({ enum: ['OK', 'FAIL', 'PENDING'] }), Status: str({ enum: ['APPROVED', 'DECLINED', 'ERROR', 'PENDING'] }), totalAmount: amount, currency,
          responseTimeStamp: str({ pattern: '^\\d{4}-\\d{2}-\\d{2}\\.\\d{2}:\\d{2}:\\d{2}$' }), PPP_TransactionID: str(), productId: str(), TransactionID: str(), transactionType: str({ enum: NUVEI_TRANSACTION_TYPES }),
          merchant_unique_id: str(), clientUniqueId: str(), clientRequestId: str(), merchant_id: str(), merchant_site_id: str(), authCode: str(), ErrCode: str({ pattern: '^-?\\d+$' }), ExErrCode: str({ pattern: '^-?\\d+$' }),
          Reason: str(), ReasonCode: str(), message: str(), relatedTransactionId: str(), advanceResponseChecksum: sha256,
        }, '[DMN] payment DMN parameters'),
      },
    },
  ],
};
