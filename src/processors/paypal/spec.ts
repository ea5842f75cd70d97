/**
 * PayPal's published reference, as JSON Schemas of the requests the connector sends and the answers and
 * webhooks the simulator gives (kit/spec.ts). Derived by hand (facts: names, types, enums, required
 * fields, formats, lengths), from:
 *
 *  - [ORD] paypal/paypal-rest-api-specifications, commit ec4d8f36a6ab0abcc3865e1072aaddc85ea14d5c
 *    (2024-02-03), `openapi/checkout_orders_v2.json`, "Orders" 2.13;
 *  - [PAY] the same commit, `openapi/payments_payment_v2.json`, "Payments" 2.5;
 *  - [WH] the same commit, `openapi/notifications_webhooks_v1.json`, "Webhooks Management" 1.11;
 *  - [SDK] paypal/PayPal-TypeScript-Server-SDK, commit 4f10a017cc16b01d7514dab6a9eaa86238ff1ccb (v2.4.0,
 *    2026-06-05), `doc/models/*.md`: the newer model of the same API where [ORD] lags behind it
 *    (`card.attributes.verification.method`, the card brands, `network_transaction_reference.date`
 *    mandatory for Mastercard and Discover);
 *  - [AUTH] PayPal REST "Authentication" (developer.paypal.com/api/rest/authentication/): `POST
 *    /v1/oauth2/token`, form `grant_type=client_credentials`, Basic client id and secret; answer
 *    `scope, access_token, token_type, app_id, expires_in, nonce`; 401 `invalid_client`; its errors
 *    are OAuth 2.0's (RFC 6749, section 5.2);
 *  - [CUR] PayPal REST "Currency codes" (developer.paypal.com/docs/api/reference/currency-codes/): the 25
 *    currencies, HUF, JPY and TWD without decimals (currencies.ts);
 *  - [3DS] PayPal "3D Secure: Orders API" (developer.paypal.com/docs/checkout/advanced/customize/3d-secure/api/):
 *    a multi-step capture or authorization answers 422 (`PAYER_ACTION_REQUIRED`, the `payer-action`
 *    link), then is sent again with an empty body; "3D Secure response parameters" (.../response-parameters/);
 *  - [EVT] PayPal "Webhook event names" (developer.paypal.com/api/rest/webhooks/event-names/), Payments v2.
 *
 * Requests are closed where the reference lists the fields (a field it does not list is a misreading);
 * answers are open. Each operation names its place in the reference (`source`); schemas derived from a
 * named component carry `x-source`.
 */
import type { JsonSchema, ProviderSpec } from '../kit/spec.js';
import { anyObject, arrayOf, errors, event, ref, str } from './spec-common.js';
import { SHARED_DEFS } from './spec-defs.js';
import { DISPUTE_DEFS, DISPUTE_EVENTS } from './spec-disputes.js';

export { CAPTURE_REASONS, CARD_BRANDS, WEBHOOK_EVENTS } from './spec-common.js';
export { DISPUTE_EVENTS, DISPUTE_OUTCOMES, DISPUTE_REASONS, DISPUTE_STAGES, DISPUTE_STATUSES, EVIDENCE_TYPES } from './spec-disputes.js';

/** The schemas operations name by `$ref`: the shared ones, then the disputes'. */
const defs: Record<string, JsonSchema> = { ...SHARED_DEFS, ...DISPUTE_DEFS };

export const PAYPAL_SPEC: ProviderSpec = {
  provider: 'PayPal',
  sources: [
    'paypal/paypal-rest-api-specifications@ec4d8f36a6ab0abcc3865e1072aaddc85ea14d5c (2024-02-03): openapi/checkout_orders_v2.json (Orders 2.13), openapi/payments_payment_v2.json (Payments 2.5), openapi/notifications_webhooks_v1.json (Webhooks Management 1.11)',
    'paypal/PayPal-TypeScript-Server-SDK@4f10a017cc16b01d7514dab6a9eaa86238ff1ccb (v2.4.0, 2026-06-05): doc/models (card-request, card-attributes, card-verification, orders-card-verification-method, card-stored-credential, network-transaction, card-brand)',
    'developer.paypal.com/api/rest/authentication/ (POST /v1/oauth2/token)',
    'developer.paypal.com/docs/api/reference/currency-codes/ (currencies and decimals)',
    'developer.paypal.com/docs/checkout/advanced/customize/3d-secure/api/ and .../3d-secure/response-parameters/ (3-D Secure with the Orders API)',
    'developer.paypal.com/api/rest/webhooks/event-names/ (Payments v2 and Orders events)',
    'paypal/paypal-rest-api-specifications@ec4d8f36a6ab0abcc3865e1072aaddc85ea14d5c: openapi/customer_disputes_v1.json (Disputes 1.10) [DSP]',
  ],
  defs,
  operations: [
    {
      id: 'oauth2.token',
      source: '[AUTH] POST /v1/oauth2/token (form parameters)',
      request: { type: 'object', additionalProperties: false, required: ['grant_type'], properties: { grant_type: { type: 'string', enum: ['client_credentials'] } } },
      responses: {
        '200': {
          type: 'object',
          required: ['access_token', 'token_type', 'expires_in'],
          properties: { scope: { type: 'string' }, access_token: { type: 'string' }, token_type: { type: 'string' }, app_id: { type: 'string' }, expires_in: { type: 'integer', minimum: 0 }, nonce: { type: 'string' } },
        },
        // an OAuth 2.0 error (RFC 6749 section 5.2): 400 for a grant type it does not take, 401 for the client
        '400': { type: 'object', required: ['error'], properties: { error: { type: 'string' }, error_description: { type: 'string' } } },
        '401': { type: 'object', required: ['error'], properties: { error: { type: 'string' }, error_description: { type: 'string' } } },
      },
    },
    {
      id: 'orders.create',
      source: '[ORD] POST /v2/checkout/orders (operationId orders.create)',
      request: {
        'x-source': '[ORD] components.schemas.order_request',
        type: 'object',
        additionalProperties: false,
        required: ['intent', 'purchase_units'],
        properties: {
          intent: { type: 'string', enum: ['CAPTURE', 'AUTHORIZE'] },
          payer: anyObject,
          purchase_units: arrayOf(ref('purchaseUnitRequest'), { minItems: 1, maxItems: 10 }),
          payment_source: ref('paymentSourceRequest'),
          application_context: anyObject,
        },
      },
      responses: { '200': ref('order'), '201': ref('order'), ...errors([400, 401, 422]) },
    },
    {
      id: 'orders.get',
      source: '[ORD] GET /v2/checkout/orders/{id} (operationId orders.get)',
      responses: { '200': ref('order'), ...errors([401, 404]) },
    },
    {
      id: 'orders.capture',
      source: '[ORD] POST /v2/checkout/orders/{id}/capture (operationId orders.capture); 422 PAYER_ACTION_REQUIRED with the payer-action link [3DS]',
      request: { 'x-source': '[ORD] components.schemas.order_capture_request', type: 'object', additionalProperties: false, properties: { payment_source: ref('paymentSourceRequest') } },
      responses: { '200': ref('order'), '201': ref('order'), ...errors([400, 401, 403, 404, 422]) },
    },
    {
      id: 'orders.authorize',
      source: '[ORD] POST /v2/checkout/orders/{id}/authorize (operationId orders.authorize); 422 PAYER_ACTION_REQUIRED with the payer-action link [3DS]',
      request: { 'x-source': '[ORD] components.schemas.order_authorize_request', type: 'object', additionalProperties: false, properties: { payment_source: ref('paymentSourceRequest') } },
      responses: { '200': ref('order'), '201': ref('order'), ...errors([400, 401, 403, 404, 422]) },
    },
    {
      id: 'authorizations.capture',
      source: '[PAY] POST /v2/payments/authorizations/{authorization_id}/capture (operationId authorizations.capture)',
      request: {
        'x-source': '[PAY] components.schemas.capture_request, supplementary_purchase_data',
        type: 'object',
        additionalProperties: false,
        properties: {
          amount: ref('money'),
          invoice_id: str(1, 127, { pattern: '^.{1,127}$' }),
          final_capture: { type: 'boolean' },
          payment_instruction: anyObject,
          note_to_payer: str(1, 255, { pattern: '^.{1,255}$' }),
          soft_descriptor: str(null, 22),
        },
      },
      responses: { '201': ref('capture'), ...errors([400, 401, 403, 404, 422]) },
    },
    {
      id: 'authorizations.void',
      source: '[PAY] POST /v2/payments/authorizations/{authorization_id}/void (operationId authorizations.void; no body)',
      responses: { '200': ref('authorization'), '204': { type: 'null' }, ...errors([400, 401, 403, 404, 409, 422]) },
    },
    {
      id: 'authorizations.get',
      source: '[PAY] GET /v2/payments/authorizations/{authorization_id} (operationId authorizations.get)',
      responses: { '200': ref('authorization'), ...errors([401, 403, 404]) },
    },
    {
      id: 'captures.refund',
      source: '[PAY] POST /v2/payments/captures/{capture_id}/refund (operationId captures.refund)',
      request: {
        'x-source': '[PAY] components.schemas.refund_request',
        type: 'object',
        additionalProperties: false,
        properties: {
          amount: ref('money'),
          custom_id: str(1, 127, { pattern: '^.*$' }),
          invoice_id: str(1, 127, { pattern: '^.*$' }),
          note_to_payer: str(1, 255, { pattern: '^.*$' }),
          payment_instruction: anyObject,
        },
      },
      responses: { '201': ref('refund'), ...errors([400, 401, 403, 404, 409, 422]) },
    },
    {
      id: 'captures.get',
      source: '[PAY] GET /v2/payments/captures/{capture_id} (operationId captures.get)',
      responses: { '200': ref('capture'), ...errors([401, 403, 404]) },
    },
    {
      id: 'refunds.get',
      source: '[PAY] GET /v2/payments/refunds/{refund_id} (operationId refunds.get)',
      responses: { '200': ref('refund'), ...errors([401, 403, 404]) },
    },
    {
      id: 'verify-webhook-signature.post',
      source: '[WH] POST /v1/notifications/verify-webhook-signature (operationId verify-webhook-signature.post)',
      request: {
        'x-source': '[WH] components.schemas.verify_webhook_signature',
        type: 'object',
        additionalProperties: false,
        required: ['auth_algo', 'cert_url', 'transmission_id', 'transmission_sig', 'transmission_time', 'webhook_id', 'webhook_event'],
        properties: {
          auth_algo: str(null, 100, { pattern: '^[a-zA-Z0-9]+$' }),
          cert_url: str(null, 500, { format: 'uri' }),
          transmission_id: str(null, 50, { pattern: '^(?!\\d+$)\\w+\\S+' }),
          transmission_sig: str(null, 500, { pattern: '^(?!\\d+$)\\w+\\S+' }),
          transmission_time: str(null, 100, { format: 'date-time' }),
          webhook_id: str(null, 50, { pattern: '^[a-zA-Z0-9]+$' }),
          webhook_event: ref('event'),
        },
      },
      responses: {
        '200': { 'x-source': '[WH] components.schemas.verify_webhook_signature_response', type: 'object', required: ['verification_status'], properties: { verification_status: { type: 'string', enum: ['SUCCESS', 'FAILURE'] } } },
        default: { 'x-source': '[WH] components.schemas.error', type: 'object', required: ['name', 'message', 'debug_id'], properties: { name: { type: 'string' }, message: { type: 'string' }, debug_id: { type: 'string' } } },
      },
    },
    {
      id: 'webhook',
      source: '[EVT] Payments v2 and Orders events, each an [WH] `event` whose `resource` is the capture, refund, authorization or order',
      responses: {
        'PAYMENT.CAPTURE.COMPLETED': event('PAYMENT.CAPTURE.COMPLETED', ref('capture'), ['COMPLETED']),
        'PAYMENT.CAPTURE.DECLINED': event('PAYMENT.CAPTURE.DECLINED', ref('capture'), ['DECLINED', 'FAILED']),
        // the capture's statuses name no DENIED: a denied capture is DECLINED ([PAY] capture_status)
        'PAYMENT.CAPTURE.DENIED': event('PAYMENT.CAPTURE.DENIED', ref('capture'), ['DECLINED', 'FAILED']),
        'PAYMENT.CAPTURE.PENDING': event('PAYMENT.CAPTURE.PENDING', ref('capture'), ['PENDING']),
        'PAYMENT.CAPTURE.REFUNDED': event('PAYMENT.CAPTURE.REFUNDED', ref('refund')),
        'PAYMENT.AUTHORIZATION.CREATED': event('PAYMENT.AUTHORIZATION.CREATED', ref('authorization')),
        'PAYMENT.AUTHORIZATION.VOIDED': event('PAYMENT.AUTHORIZATION.VOIDED', ref('authorization'), ['VOIDED']),
        'CHECKOUT.ORDER.APPROVED': event('CHECKOUT.ORDER.APPROVED', ref('order'), ['APPROVED']),
        // [EVT] Disputes: CUSTOMER.DISPUTE.CREATED, UPDATED, RESOLVED, each with the dispute as its resource
        ...Object.fromEntries(DISPUTE_EVENTS.map((t) => [t, event(t, ref('dispute'))])),
      },
    },
    {
      id: 'disputes.get',
      source: '[DSP] GET /v1/customer/disputes/{id} (operationId disputes.get): 200 dispute',
      responses: { '200': ref('dispute'), ...errors([401, 404]) },
    },
    {
      id: 'disputes.provide-evidence',
      source: '[DSP] POST /v1/customer/disputes/{id}/provide-evidence (operationId disputes.provide-evidence): multipart/form-data; 200 subsequent_action, 400 error',
      request: ref('provide_evidence_input'),
      responses: { '200': ref('subsequent_action'), ...errors([400, 401, 404, 422]) },
    },
    {
      id: 'disputes.accept-claim',
      source: '[DSP] POST /v1/customer/disputes/{id}/accept-claim (operationId disputes.accept-claim): multipart/form-data; 200 subsequent_action, 400 error',
      request: ref('accept_claim_input'),
      responses: { '200': ref('subsequent_action'), ...errors([400, 401, 404, 422]) },
    },
  ],
};
