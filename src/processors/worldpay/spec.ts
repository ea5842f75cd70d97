/**
 * Worldpay Access as its published references describe it, for the operations the connector uses and
 * every answer the simulator gives: JSON Schemas written by hand from the sources below (facts only:
 * names, types, enums, required fields). The simulator checks every request it receives and every answer
 * and event it gives against them (`SpecLedger`); unit tests run the mapping's requests and the
 * references' examples through them.
 *
 * Sources (each schema says where it comes from in `x-source`):
 *  - [PAY] Worldpay's Payments API OpenAPI document, version 2024-06-01 ("A single API that orchestrates
 *    the payment flow to include FraudSight, 3DS and Token creation"; docs.worldpay.com/access/products/
 *    payments), as generated into types by Worldpay/worldpay-mcp, src/types/payments-api.d.ts, commit
 *    e674e2a (openapi-typescript output of that document): paths /api/payments, /{linkData} (query),
 *    /{linkData}/3dsDeviceData,
 *    /3dsChallenges, /settlements, /partialSettlements, /refunds, /partialRefunds, /cancellations; schemas
 *    PaymentRequest, PaymentsInstruction, PaymentsCardPlainPaymentInstrument, the customer agreements,
 *    PaymentsThreeDS, the responses and their action lists; header `WP-Api-Version: 2024-06-01`.
 *  - [PQ] Worldpay's Payment Queries API v1 (Accept `application/vnd.worldpay.payment-queries-v1.hal+json`),
 *    as modelled by the APIMatic SDK generated from it (mrafnadeem-apimatic/worldpay-paymentqueries-mcp-server,
 *    sdk/doc: controllers/api.md, models/payment.md, last-event.md, authorization-refused.md,
 *    refund-requested.md, pq-querybypaymentid-200-response.md, links.md, links-2.md, payments-events.md).
 *  - [EV] Worldpay's Events OpenAPI document v1 (docs.worldpay.com/access/products/events: body
 *    `application/vnd.worldpay.events-v1.hal+json` {eventId, eventTimestamp, eventDetails}; the payment
 *    webhooks sentForRefund, refunded ("the card issuer has received the refund request"), refundFailed
 *    ("the refund couldn't be processed and the funds were returned to your account", with
 *    refund.refusal code and description) and their `reference`) and its "Signature" page
 *    (Event-Signature: {keyId}/SHA256/{hex HMAC}).
 *
 * Requests are closed (`additionalProperties: false`: the reference lists the fields); answers are open
 * (Worldpay adds fields), but their required fields and enums are the reference's.
 */
import type { JsonSchema, ProviderSpec } from '../kit/spec.js';

const str = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
const int = (extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...extra });
const bool: JsonSchema = { type: 'boolean' };
const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });
const closed = (required: string[], properties: Record<string, JsonSchema>, source: string): JsonSchema => ({ type: 'object', required, additionalProperties: false, properties, 'x-source': source });
const open = (required: string[], properties: Record<string, JsonSchema>, source: string): JsonSchema => ({ type: 'object', required, properties, 'x-source': source });

/** Every `outcome` the Payments API answers: [PAY] the outcome enum of its responses. */
export const WORLDPAY_OUTCOMES = ['3dsDeviceDataRequired', 'authorized', '3dsChallenged', 'sentForSettlement', 'sentForCancellation', 'refused', '3dsAuthenticationFailed', '3dsUnavailable', 'fraudHighRisk', 'sentForRefund', 'sentForPartialRefund'];

/** `lastEvent` of a queried payment: [PQ] last-event.md. */
export const WORLDPAY_LAST_EVENTS = [
  'authorizationRequested', 'authorizationSucceeded', 'authorizationRefused', 'authorizationFailed', 'authorizationTimedOut',
  'saleRequested', 'saleSucceeded', 'saleRefused', 'saleFailed', 'saleTimedOut',
  'settlementRequested', 'settlementRequestSubmitted', 'settlementFailed', 'settlementTimedOut',
  'refundRequested', 'refundRequestSubmitted', 'refundFailed', 'refundTimedOut',
  'cancellationRequested', 'cancellationRequestSubmitted', 'cancellationFailed', 'cancellationTimedOut',
  'reversalRequested', 'reversalRequestSubmitted', 'reversalFailed', 'reversalTimedOut',
];

/** Payment event types (webhooks): [EV] the payment webhooks. */
export const WORLDPAY_EVENT_TYPES = ['sentForAuthorization', 'authorized', 'sentForSettlement', 'settlementFailed', 'settled', 'refused', 'cancelled', 'error', 'expired', 'sentForRefund', 'refunded', 'refundFailed', 'chargedBack'];

const ACTION_NAMES = ['settlePayment', 'partiallySettlePayment', 'cancelPayment', 'refundPayment', 'partiallyRefundPayment', 'supply3dsDeviceData', 'complete3dsChallenge'];

const defs: Record<string, JsonSchema> = {
  Value: closed(['currency', 'amount'], { currency: str({ pattern: '^[A-Z]{3}$' }), amount: int({ minimum: 0 }) }, '[PAY] Value'),
  ExpiryDate: closed(['month', 'year'], { month: int({ minimum: 1, maximum: 12 }), year: int({ minimum: 1000, maximum: 9999 }) }, '[PAY] ExpiryDate'),
  Action: open(['href'], { href: str({ format: 'uri' }), method: str() }, '[PAY] PaymentsAction* (href, method POST)'),
  Actions: { type: 'object', propertyNames: { enum: ACTION_NAMES }, additionalProperties: ref('Action'), 'x-source': '[PAY] *ActionList' },
  Links: open([], { self: open([], { href: str() }, '[PAY] Self') }, '[PAY] PaymentsLink'),
  Outcome: str({ enum: WORLDPAY_OUTCOMES, 'x-source': '[PAY] outcome' }),
  ErrorResponse: open([], { errorName: str(), message: str() }, '[PAY] ErrorResponse'),
  ValidationErrorResponse: open([], { errorName: str(), message: str(), jsonPath: str(), validationErrors: { type: 'array', items: { type: 'object' } } }, '[PAY] ValidationErrorResponse'),
  PlainCard: closed(['type', 'cardNumber', 'expiryDate'], {
    type: { const: 'plain' }, cardNumber: str({ pattern: '^[0-9]{12,19}$' }), cardHolderName: str({ minLength: 1 }),
    expiryDate: ref('ExpiryDate'), cvc: str({ pattern: '^[0-9]{3,4}$' }),
  }, '[PAY] PaymentsCardPlainPaymentInstrument (billingAddress and routing not sent)'),
  CustomerAgreement: {
    oneOf: [
      closed(['type', 'storedCardUsage'], { type: { const: 'cardOnFile' }, storedCardUsage: { enum: ['first', 'subsequent'] } }, '[PAY] PaymentsCardOnFileCustomerAgreement'),
      closed(['type', 'storedCardUsage'], { type: { const: 'subscription' }, storedCardUsage: { enum: ['first', 'subsequent'] }, schemeReference: str() }, '[PAY] PaymentsSubscriptionCustomerAgreement'),
      closed(['type', 'installmentType'], { type: { const: 'installment' }, storedCardUsage: { enum: ['first', 'subsequent'] }, installmentType: { enum: ['merchant', 'latinAmerica'] }, schemeReference: str() }, '[PAY] PaymentsInstallmentCustomerAgreement'),
      closed(['type'], { type: { const: 'unscheduled' }, schemeReference: str() }, '[PAY] PaymentsUnscheduledCustomerAgreement'),
    ],
  },
  ThreeDS: closed(['type', 'mode', 'challenge', 'deviceData'], {
    type: { const: 'integrated' }, mode: { const: 'always' },
    challenge: closed(['returnUrl'], { returnUrl: str({ format: 'uri' }), windowSize: { enum: ['250x400', '390x400', '600x400', '500x600', 'fullPage'] }, preference: { enum: ['noPreference', 'noChallengeRequested', 'challengeRequested', 'challengeMandated'] } }, '[PAY] Challenge'),
    deviceData: closed(['acceptHeader', 'userAgentHeader'], {
      acceptHeader: str(), userAgentHeader: str(), browserLanguage: str(), browserJavaEnabled: bool,
      browserColorDepth: { enum: ['1', '4', '8', '15', '16', '24', '32', '48'] }, browserScreenHeight: int(), browserScreenWidth: int(),
      timeZone: str(), browserJavascriptEnabled: bool, channel: { enum: ['browser', 'native'] },
    }, '[PAY] DeviceData'),
    exemptionOnOutage: bool,
  }, '[PAY] PaymentsThreeDS'),
  PaymentAnswer: open(['outcome', 'transactionReference'], {
    outcome: ref('Outcome'), transactionReference: str(),
    issuer: open([], { authorizationCode: str() }, '[PAY] Issuer'),
    schemeReference: str(), refusalCode: str(), refusalDescription: str(),
    challenge: open([], { reference: str(), url: str(), jwt: str(), payload: str() }, '[PAY] ChallengeInfo'),
    deviceDataCollection: open(['jwt', 'url', 'bin'], { jwt: str(), url: str(), bin: str() }, '[PAY] DeviceDataCollection'),
    _links: ref('Links'), _actions: ref('Actions'),
  }, '[PAY] PaymentsResponse201 / 202: CardAuthorizedPaymentResponse, SentForSettlementResponse, PaymentRefusedResponse, DeviceDataRequiredResponse, ChallengedResponse, FraudHighRiskResponse'),
  ActionAnswer: open(['outcome'], { outcome: ref('Outcome'), _links: ref('Links'), _actions: ref('Actions') }, '[PAY] SettleResponse, PartialSettleResponse, CancelResponse, RefundResponse, PartialRefundResponse'),
  QueriedPayment: open(['paymentId', 'transactionReference', 'lastEvent'], {
    paymentId: str({ minLength: 25, maxLength: 36, pattern: '^[A-Za-z0-9_-]*$' }), transactionReference: str({ minLength: 1, maxLength: 64 }),
    entity: str(), lastEvent: { enum: WORLDPAY_LAST_EVENTS }, timestamp: str(),
    value: open(['amount', 'currency'], { amount: int(), currency: str() }, '[PQ] value-3.md'),
    issuer: open([], { authorizationCode: str() }, '[PQ] issuer.md'), scheme: open(['reference'], { reference: str() }, '[PQ] scheme.md'),
    events: { type: 'array', items: open(['eventName'], { eventName: str(), timestamp: str(), code: str(), description: str(), refundReference: str(), value: open(['amount', 'currency'], { amount: int(), currency: str() }, '[PQ] value') }, '[PQ] events') },
    // [PQ] links-2.md (a payment of a query: its self link, to its retrieval by id); links.md (retrieved
    // by id: self and the next action links, among them payments:events, payments:cancel, payments:settle)
    _links: open(['self'], {
      self: open(['href'], { href: str() }, '[PQ] self.md'),
      'payments:events': open([], { href: str() }, '[PQ] payments-events.md'), 'payments:cancel': open([], { href: str() }, '[PQ] payments-cancel.md'),
      'payments:settle': open([], { href: str() }, '[PQ] payments-settle.md'), 'payments:partialSettle': open([], { href: str() }, '[PQ] payments-partial-settle.md'),
    }, '[PQ] links.md, links-2.md'),
  }, '[PQ] payment.md, pq-querybypaymentid-200-response.md'),
};

/** The common answers of a Payments API call besides its success. */
const errors = { '400': ref('ValidationErrorResponse'), '401': ref('ErrorResponse'), '404': ref('ErrorResponse'), '406': ref('ErrorResponse'), '415': ref('ErrorResponse'), '500': ref('ErrorResponse') };

export const WORLDPAY_SPEC: ProviderSpec = {
  provider: 'Worldpay',
  sources: [
    'Worldpay Payments API OpenAPI 2024-06-01 (Worldpay/worldpay-mcp src/types/payments-api.d.ts, commit e674e2a)',
    'Worldpay Payment Queries API v1 (APIMatic SDK docs, mrafnadeem-apimatic/worldpay-paymentqueries-mcp-server)',
    'Worldpay Events v1 OpenAPI and the Event-Signature page (docs.worldpay.com/access/products/events)',
  ],
  defs,
  operations: [
    {
      id: 'payment', source: '[PAY] POST /api/payments',
      request: closed(['transactionReference', 'merchant', 'instruction'], {
        // [PQ] transactionReference: 1 to 64 characters
        transactionReference: str({ minLength: 1, maxLength: 64 }),
        merchant: closed(['entity'], { entity: str({ minLength: 1, maxLength: 32 }), mcc: str() }, '[PAY] Merchant'),
        channel: { enum: ['ecom', 'moto'] },
        instruction: closed(['method', 'paymentInstrument', 'narrative', 'value'], {
          method: { const: 'card' }, paymentInstrument: ref('PlainCard'),
          narrative: closed(['line1'], { line1: str({ minLength: 1 }), line2: str() }, '[PAY] Narrative'),
          value: ref('Value'), settlement: closed(['auto'], { auto: bool }, '[PAY] Settlement'),
          customerAgreement: ref('CustomerAgreement'), threeDS: ref('ThreeDS'),
          customer: closed([], { ipAddress: str(), customerId: str(), email: str() }, '[PAY] Customer'),
        }, '[PAY] PaymentsInstruction (card)'),
      }, '[PAY] PaymentRequest'),
      responses: { '201': ref('PaymentAnswer'), '202': ref('PaymentAnswer'), ...errors },
    },
    { id: 'queryPayment', source: '[PAY] GET /api/payments/{linkData} (no body): QueryEventsResponse', responses: { '200': open([], { lastEvent: str(), _links: ref('Links'), _actions: ref('Actions') }, '[PAY] QueryEventsResponse'), '400': ref('ErrorResponse'), '404': ref('ErrorResponse'), '500': ref('ErrorResponse') } },
    { id: 'supply3dsDeviceData', source: '[PAY] POST /api/payments/{linkData}/3dsDeviceData', request: closed([], { collectionReference: str() }, '[PAY] DeviceDataRequest'), responses: { '201': ref('PaymentAnswer'), '202': ref('PaymentAnswer'), ...errors } },
    { id: 'complete3dsChallenge', source: '[PAY] POST /api/payments/{linkData}/3dsChallenges (no body)', responses: { '201': ref('PaymentAnswer'), '202': ref('PaymentAnswer'), ...errors } },
    { id: 'settle', source: '[PAY] POST /api/payments/{linkData}/settlements (no body)', responses: { '202': ref('ActionAnswer'), ...errors } },
    { id: 'partialSettle', source: '[PAY] POST /api/payments/{linkData}/partialSettlements', request: closed(['reference', 'value'], { reference: str({ minLength: 1 }), sequence: closed(['number', 'total'], { number: int(), total: int() }, '[PAY] PaymentsSequence'), value: ref('Value') }, '[PAY] PaymentsPartialSettleRequest'), responses: { '202': ref('ActionAnswer'), ...errors } },
    { id: 'cancel', source: '[PAY] POST /api/payments/{linkData}/cancellations (no body)', responses: { '202': ref('ActionAnswer'), ...errors } },
    { id: 'refund', source: '[PAY] POST /api/payments/{linkData}/refunds (no body)', responses: { '202': ref('ActionAnswer'), ...errors } },
    { id: 'partialRefund', source: '[PAY] POST /api/payments/{linkData}/partialRefunds', request: closed(['reference', 'value'], { reference: str({ minLength: 1 }), value: ref('Value') }, '[PAY] PaymentsPartialRefundRequest'), responses: { '202': ref('ActionAnswer'), ...errors } },
    {
      id: 'queryByTransactionReference', source: '[PQ] GET /paymentQueries/payments?transactionReference= (no body)',
      responses: { '200': open(['_embedded'], { _links: { type: 'object' }, _embedded: open(['payments'], { payments: { type: 'array', items: ref('QueriedPayment') } }, '[PQ] embedded.md') }, '[PQ] pq-querybydaterange-200-response.md'), '400': ref('ErrorResponse'), '401': ref('ErrorResponse') },
    },
    { id: 'retrieveByPaymentId', source: '[PQ] GET /paymentQueries/payments/{paymentId} (no body)', responses: { '200': ref('QueriedPayment'), '401': ref('ErrorResponse'), '404': ref('ErrorResponse') } },
    {
      id: 'event', source: '[EV] payment webhooks (application/vnd.worldpay.events-v1.hal+json)',
      responses: {
        notification: open(['eventId', 'eventTimestamp', 'eventDetails'], {
          eventId: str(), eventTimestamp: str(),
          eventDetails: open(['classification', 'transactionReference', 'type'], {
            classification: { enum: ['payment', 'payout', 'chargeback'] }, downstreamReference: str(), transactionReference: str(),
            type: { enum: WORLDPAY_EVENT_TYPES }, date: str(), amount: open(['value', 'currencyCode'], { value: int(), currencyCode: str() }, '[EV] amount'), _links: { type: 'object' },
            // sentForRefund, refunded, refundFailed: the partial refund's reference; a failed refund's refusal
            reference: str(),
            refund: open([], { onlineRefundAuthorization: str(), refusal: open([], { code: str(), description: str() }, '[EV] refundFailed refund.refusal') }, '[EV] refund'),
          }, '[EV] eventDetails'),
        }, '[EV] payment event'),
      },
    },
  ],
};
