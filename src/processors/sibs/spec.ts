/**
 * SIBS Gateway (SPG) REST API v2 as its public references describe it, for the operations the connector
 * uses and every answer the simulator gives: JSON Schemas written by hand from the sources below (facts
 * only: names, types, enums, required fields). The simulator checks every request it receives and every
 * answer and notification it gives against them (`SpecLedger`); unit tests run the mapping's requests and
 * the references' examples through them.
 *
 * Sources (each schema says where it comes from in `x-source`):
 *  - [SPG] SIBS Gateway's SPG API v2 (developer.sibsgateway.com; hosts api.sibspayments.com/api/v2 and,
 *    for tests, spg.qly.site1.sibs.pt/api/v2) as generated into models from its OpenAPI document
 *    (swagger-codegen SpringCodegen, 2023-08-30) in qub-it/fenixedu-treasury-base,
 *    src/main/java/org/fenixedu/treasury/services/payments/sibspay/model (ReturnCheckout, ReturnStatus,
 *    ResponseInquiry, PaymentInquiryReference, PaymentReference, Merchant, Transaction, Amount,
 *    CancellationRequest/Response, OriginalTransaction, WebhookNotification) and its SibsPayAPIService (paths, headers: Bearer for checkouts, status and
 *    cancellations; `Digest <transactionSignature>` for the purchase on a transaction; status codes "000"
 *    and "E0507"; payment statuses Success, Pending, Expired, Declined; payment types PURS, AUTH, PREF).
 *  - [DIPS] dipsit-pt/DIPS-API-SIBS, api/schemas (checkout.js, card.js, mbway.js, webhook.js) and
 *    api/models/webhook.js: the request fields the SPG validates (merchantTransactionId at most 32
 *    characters, channel "web", cardInfo {PAN, secureCode, validationDate, cardholderName, createToken},
 *    customerPhone "351#[0-9]{9}"), the notifications (text/plain body with X-Initialization-Vector and
 *    X-Authentication-Tag) and their acknowledgement {statusCode, statusMsg, notificationID}.
 *  - [NPM] the npm package sibs-payments 1.0.2, dist/purchase-decrypt.js: AES-256-GCM, no padding, body,
 *    IV (12 bytes), tag (16 bytes) and key (32 bytes) all base64.
 *  - [SPG-CARD] SIBS's API Market, CARD 2.0.0 (developer.sibsapimarket.com, the swagger of card-sandbox
 *    2.0.0, base path /sibs/spg/v2/payments): POST /{id}/card/purchase takes RequestPayment {cardInfo,
 *    info {deviceInfo}, actionProcessed {id, type, executed}, tokenInfo} and answers ResponsePayment,
 *    whose `actionResponse` (ActionReponse) is {id, type: THREEDS_METHOD | THREEDS_CHALLENGE | DCC,
 *    data: {url, params}}. The connector sends only cardInfo (the request schema below is closed to it).
 *  - [DOCS] SIBS Gateway's own documentation (docs.pay.sibs.com): portugal/sibs-gateway/notifications/
 *    webhooks (every notification acknowledged with HTTP 200 and {"statusCode": "200", "statusMsg":
 *    "Success", "notificationID"}: a string "200"; the models above type it a number, and SIBS's newer
 *    integration pages, www.qly.docs.pay.sibs.com "Webhook acknowledgement handling", name "000": the
 *    published page is followed); portugal/sibs-gateway/payment-methods/cards/inputs-and-outputs-cards
 *    (a transaction's statuses: In processing, Partial, Success, Declined, Timeout, Error);
 *    portugal/sibs-gateway/development-resources-pg-pt/result-codes (the checkout's and payment
 *    request's result codes 12.110.12xx and 12.110.13xx); www.pay.sibs.com/docs/integrations/server-to-
 *    server/cards/3ds (a card purchase needing 3-D Secure answers paymentStatus "Partial" with an
 *    `actionResponse`); test-and-development-resources/testing-assets (the test environment's cards).
 * Capture and refund are not in these sources: their bodies are the cancellation's ([SPG]
 * CancellationRequest) at `/capture` and `/refund`, as the connector documents (going-live-sibs.md).
 *
 * Requests are closed (`additionalProperties: false`); answers are open (SIBS adds fields), but their
 * required fields and enums are the references'.
 */
import type { JsonSchema, ProviderSpec } from '../kit/spec.js';

const str = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
const bool: JsonSchema = { type: 'boolean' };
const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });
const closed = (required: string[], properties: Record<string, JsonSchema>, source: string): JsonSchema => ({ type: 'object', required, additionalProperties: false, properties, 'x-source': source });
const open = (required: string[], properties: Record<string, JsonSchema>, source: string): JsonSchema => ({ type: 'object', required, properties, 'x-source': source });

/** `paymentStatus` values: [SPG] SibsPayAPIService's payment result codes; Partial: [DOCS] 3-D Secure (a card purchase waiting for an action). */
export const SIBS_PAYMENT_STATUSES = ['Success', 'Declined', 'Pending', 'Expired', 'Partial'];
/** `actionResponse.type`: [SPG-CARD] ActionReponse. */
export const SIBS_ACTION_TYPES = ['THREEDS_METHOD', 'THREEDS_CHALLENGE', 'DCC'];
/** `paymentMethod`: [SPG] RequestCheckout paymentMethod; [DIPS] checkout.js. */
export const SIBS_PAYMENT_METHODS = ['CARD', 'MBWAY', 'REFERENCE'];
/** `paymentType`: [SPG] SibsPayAPIService's payment types. */
export const SIBS_PAYMENT_TYPES = ['PURS', 'AUTH', 'PREF'];

const defs: Record<string, JsonSchema> = {
  Amount: closed(['value', 'currency'], { value: { type: 'number', minimum: 0 }, currency: str({ pattern: '^[A-Z]{3}$' }) }, '[SPG] Amount; [DIPS] checkout.js amount (at most two decimals: the mapping writes minor units / 100)'),
  Merchant: closed(['terminalId', 'channel', 'merchantTransactionId'], { terminalId: { type: 'integer', minimum: 1 }, channel: str({ enum: ['web'] }), merchantTransactionId: str({ minLength: 1, maxLength: 32 }) }, '[SPG] Merchant; [DIPS] checkout.js merchant'),
  MerchantAnswer: open([], { terminalId: { type: ['integer', 'string'] }, channel: str(), merchantTransactionId: str({ maxLength: 32 }) }, '[SPG] Merchant'),
  ReturnStatus: open(['statusCode'], { statusCode: str(), statusMsg: str(), statusDescription: str() }, '[SPG] ReturnStatus'),
  Inquiry: open(['returnStatus'], {
    returnStatus: ref('ReturnStatus'), paymentStatus: str({ enum: SIBS_PAYMENT_STATUSES }), paymentMethod: str({ enum: SIBS_PAYMENT_METHODS }),
    transactionID: str({ pattern: '^[A-Za-z0-9]{8,64}$' }), amount: ref('Amount'), merchant: ref('MerchantAnswer'), paymentType: str({ enum: SIBS_PAYMENT_TYPES }),
    paymentReference: open([], { reference: str(), entity: str(), paymentEntity: str(), amount: ref('Amount'), status: str(), expireDate: str() }, '[SPG] PaymentInquiryReference'),
    actionResponse: ref('ActionResponse'),
  }, '[SPG] ResponseInquiry; [SPG-CARD] ResponsePayment'),
  ActionResponse: closed(['type'], {
    id: str(), type: str({ enum: SIBS_ACTION_TYPES }),
    data: closed([], { url: str(), params: { type: 'array' } }, '[SPG-CARD] Data (its Parameter items are not in the sources read: not checked)'),
  }, '[SPG-CARD] ActionReponse: the action a Partial purchase waits for'),
  FollowUp: closed(['merchant', 'transaction', 'originalTransaction'], {
    merchant: ref('Merchant'),
    transaction: closed(['transactionTimestamp', 'amount'], { transactionTimestamp: str({ format: 'date-time' }), description: str({ maxLength: 50 }), amount: ref('Amount') }, '[SPG] Transaction (of a cancellation)'),
    originalTransaction: closed(['id', 'datetime'], { id: str({ minLength: 1 }), datetime: str({ format: 'date-time' }) }, '[SPG] OriginalTransaction'),
  }, '[SPG] CancellationRequest'),
};

const checkoutRequest = closed(['merchant', 'transaction'], {
  merchant: ref('Merchant'),
  transaction: closed(['transactionTimestamp', 'description', 'moto', 'paymentType', 'paymentMethod', 'amount'], {
    transactionTimestamp: str({ format: 'date-time' }), description: str({ maxLength: 50 }), moto: bool,
    paymentType: str({ enum: ['PURS', 'AUTH'] }), paymentMethod: { type: 'array', minItems: 1, uniqueItems: true, items: str({ enum: ['CARD', 'MBWAY', 'REFERENCE'] }) },
    amount: ref('Amount'),
    paymentReference: closed(['initialDatetime', 'finalDatetime', 'maxAmount', 'minAmount', 'entity'], {
      initialDatetime: str({ format: 'date-time' }), finalDatetime: str({ format: 'date-time' }), maxAmount: ref('Amount'), minAmount: ref('Amount'), entity: str({ pattern: '^[0-9]{5}$' }),
    }, '[SPG] PaymentReference; [DIPS] checkout.js paymentReference'),
  }, '[SPG] Transaction; [DIPS] checkout.js transaction'),
  tokenisation: closed(['tokenisationRequest'], { tokenisationRequest: closed(['tokeniseCard'], { tokeniseCard: bool }, '[DIPS] checkout.js tokenisationRequest') }, '[SPG] Tokenisation'),
}, '[SPG] RequestCheckout; [DIPS] checkout.js');

const checkoutAnswer = open(['returnStatus'], {
  returnStatus: ref('ReturnStatus'), transactionID: str({ pattern: '^[A-Za-z0-9]{8,64}$' }), transactionSignature: str({ minLength: 1 }),
  amount: ref('Amount'), merchant: ref('MerchantAnswer'), paymentMethodList: { type: 'array', items: str() }, formContext: str(), expiry: str(),
}, '[SPG] ReturnCheckout');

const errorAnswer = open(['returnStatus'], { returnStatus: ref('ReturnStatus') }, '[SPG] ReturnStatus of a refused request');

export const SIBS_SPEC: ProviderSpec = {
  provider: 'SIBS Gateway SPG API v2',
  sources: [
    'qub-it/fenixedu-treasury-base services/payments/sibspay (models generated from the SPG OpenAPI document, 2023-08-30)',
    'dipsit-pt/DIPS-API-SIBS api/schemas and api/models',
    'npm sibs-payments 1.0.2 dist/purchase-decrypt.js',
    'SIBS API Market: CARD 2.0.0 (card-sandbox swagger)',
    'docs.pay.sibs.com: Webhooks, Inputs and Outputs (Cards), Result codes, Testing assets; pay.sibs.com: Server to Server, Cards 3D-Secure',
  ],
  defs,
  operations: [
    { id: 'checkout', source: 'POST /api/v2/payments', request: checkoutRequest, responses: { 200: checkoutAnswer, 201: checkoutAnswer, 400: errorAnswer } },
    {
      id: 'cardPurchase', source: 'POST /api/v2/payments/{id}/card/purchase',
      request: closed(['cardInfo'], { cardInfo: closed(['PAN', 'validationDate'], { PAN: str({ pattern: '^[0-9]{12,19}$' }), secureCode: str({ pattern: '^[0-9]{3,4}$' }), validationDate: str({ format: 'date-time' }), cardholderName: str({ maxLength: 45 }), createToken: bool }, '[DIPS] card.js cardInfo') }, '[DIPS] card.js'),
      responses: { 200: ref('Inquiry'), 400: errorAnswer },
    },
    {
      id: 'mbwayPurchase', source: 'POST /api/v2/payments/{id}/mbway-id/purchase',
      request: closed(['customerPhone'], { customerPhone: str({ pattern: '^351#[0-9]{9}$' }) }, '[DIPS] mbway.js; [SPG] generateMbwayRequestTransaction'),
      responses: { 200: ref('Inquiry'), 400: errorAnswer },
    },
    {
      id: 'referenceGenerate', source: 'POST /api/v2/payments/{id}/service-reference/generate',
      request: closed([], {}, '[SPG] generateSibsPaymentRequestTransaction: an empty JSON object'),
      responses: { 200: ref('Inquiry'), 400: errorAnswer },
    },
    { id: 'status', source: 'GET /api/v2/payments/{id}/status; GET /api/v2/payments/status?merchantTransactionId=', responses: { 200: ref('Inquiry'), 404: errorAnswer } },
    { id: 'capture', source: 'POST /api/v2/payments/{id}/capture', request: ref('FollowUp'), responses: { 200: ref('Inquiry'), 400: errorAnswer } },
    { id: 'cancellation', source: 'POST /api/v2/payments/{id}/cancellation', request: ref('FollowUp'), responses: { 200: ref('Inquiry'), 400: errorAnswer } },
    { id: 'refund', source: 'POST /api/v2/payments/{id}/refund', request: ref('FollowUp'), responses: { 200: ref('Inquiry'), 400: errorAnswer } },
    {
      id: 'notification', source: '[SPG] WebhookNotification (decrypted); [DIPS] webhook.js acknowledgement',
      responses: {
        notification: open(['returnStatus', 'paymentStatus', 'transactionID', 'notificationID'], {
          returnStatus: ref('ReturnStatus'), paymentStatus: str({ enum: SIBS_PAYMENT_STATUSES }), paymentMethod: str({ enum: SIBS_PAYMENT_METHODS }),
          transactionID: str({ pattern: '^[A-Za-z0-9]{8,64}$' }), transactionDateTime: str(), amount: ref('Amount'), merchant: ref('MerchantAnswer'),
          paymentType: str({ enum: SIBS_PAYMENT_TYPES }), notificationID: str({ minLength: 1 }),
        }, '[SPG] WebhookNotification'),
        acknowledgement: closed(['statusCode', 'statusMsg', 'notificationID'], { statusCode: str({ enum: ['200'] }), statusMsg: str({ enum: ['Success'] }), notificationID: str({ minLength: 1 }) }, '[DOCS] Webhooks: the answer to every notification, HTTP 200 with this body'),
      },
    },
  ],
};
