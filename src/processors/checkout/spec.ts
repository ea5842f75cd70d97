/**
 * Checkout.com's Payments API as its published reference describes it, for the operations the connector
 * uses and every answer the simulator gives: JSON Schemas written by hand from the sources below (facts
 * only: names, types, enums, required fields, lengths and formats where they are documented). The
 * simulator checks every request it receives and every answer and webhook it gives against them
 * (`SpecLedger`); unit tests run the mapping's requests and the reference's example answers through them.
 *
 * Sources (each schema says where it comes from in `x-source`):
 *  - [REF] checkout/checkout-api-reference, branch master, commit 2fc946cd22e9a6b8e3a33db3c5f4be4d3fe7d74c
 *    (2021-07-20): the OpenAPI document of the unified Payments API, `nas_spec/` (swagger.yaml and the
 *    files it assembles: paths/*.yaml, components/schemas/**). The newest commit of that repository
 *    published; `output/swagger.json` is the same document bundled (commit 9ec49d47, 2021-06-21).
 *  - [GO] checkout/checkout-sdk-go, commit 30688abf9c8aa6196f881250d1143da006c38fe3 (2026-06-10):
 *    payments/payments.go (PaymentType, PaymentStatus, ActionType), payments/nas/payments.go
 *    (GetPaymentListResponse, GetPaymentResponse: no response_code), payments/nas/sources/sources.go
 *    (the card source's `stored` and `store_for_future_use`). What the API gained after [REF]:
 *    `payment_type` Unscheduled and PayLater, `store_for_future_use`, `GET /payments?reference=`.
 *  - [NODE] checkout/checkout-sdk-node, commit a1d2c7234c9ce6f694d3131e5b100aaa13657d20 (2026-08-07):
 *    the answers its tests replay (test/payments/getPaymentList.js, getPayment.js, getPaymentActions.js).
 *  - [DOCS] docs.checkout.com: "Webhook event types" and the examples of each event (payment_declined,
 *    payment_refund_declined), "Recurring payments with stored card details", "Unscheduled payments with
 *    stored card details", "Stored card details" (merchant_initiated, source.stored, previous_payment_id).
 *
 * Requests are closed (`additionalProperties: false`: the reference lists the fields); answers are open
 * (Checkout.com adds fields), but their required fields and enums are the reference's. A body-less
 * answer (401; 403 and 404 of the payment paths, which the reference documents without content) is
 * `null`.
 */
import type { ProviderSpec } from '../kit/spec.js';
import { CHECKOUT_DISPUTE_EVENT_TYPES, CHECKOUT_EVENT_TYPES, disputeEvent, event, int, obj, ref, str, unauthorized } from './spec-common.js';
import { CHECKOUT_DEFS } from './spec-defs.js';

export { CHECKOUT_EVENT_TYPES, CHECKOUT_DISPUTE_EVENT_TYPES, CHECKOUT_DISPUTE_CATEGORIES, CHECKOUT_DISPUTE_STATUSES, CHECKOUT_EVIDENCE_KINDS } from './spec-common.js';

export const CHECKOUT_SPEC: ProviderSpec = {
  provider: 'Checkout.com',
  sources: [
    'checkout/checkout-api-reference master 2fc946cd22e9a6b8e3a33db3c5f4be4d3fe7d74c (2021-07-20), nas_spec/',
    'checkout/checkout-sdk-go 30688abf9c8aa6196f881250d1143da006c38fe3 (2026-06-10), payments/',
    'checkout/checkout-sdk-node a1d2c7234c9ce6f694d3131e5b100aaa13657d20 (2026-08-07), test/payments/',
    'docs.checkout.com: webhook event types and examples; stored card details; recurring and unscheduled payments',
  ],
  defs: CHECKOUT_DEFS,
  operations: [
    {
      id: 'requestAPaymentOrPayout',
      source: '[REF] nas_spec/paths/payments.yaml, post (operationId requestAPaymentOrPayout): 201 PaymentResponse, 202 PaymentAcceptedResponse, 401, 422 ValidationError',
      request: ref('PaymentRequest'),
      responses: { 201: ref('PaymentResponse'), 202: ref('PaymentAcceptedResponse'), 401: unauthorized, 422: ref('ValidationError') },
    },
    {
      id: 'getPaymentLists',
      source: '[GO] payments/nas/client.go GetPaymentList and GetPaymentListResponse {limit, skip, total_count, data: [GetPaymentResponse]}; [NODE] test/payments/getPaymentList.js (GET /payments?reference=, 200, 401)',
      responses: {
        200: {
          type: 'object',
          required: ['data'],
          properties: { limit: int(), skip: int(), total_count: int(), data: { type: 'array', items: ref('PaymentDetails') } },
          'x-source': '[GO] GetPaymentListResponse; [NODE] getPaymentList.js recorded answer',
        },
        401: unauthorized,
        422: ref('ValidationError'),
      },
    },
    {
      id: 'getPaymentDetails',
      source: '[REF] nas_spec/paths/payments@{id}.yaml, get: 200 PaymentDetails (by pay_ or sid_ id), 401, 404',
      responses: { 200: ref('PaymentDetails'), 401: unauthorized, 404: ref('Empty') },
    },
    {
      id: 'getPaymentActions',
      source: '[REF] nas_spec/paths/payments@{id}@actions.yaml, get: 200 PaymentActionsResponse (latest first), 401, 404',
      responses: {
        200: { type: 'array', minItems: 1, items: ref('PaymentAction'), 'x-source': '[REF] Payments/PaymentActionsResponse.yaml' },
        401: unauthorized,
        404: ref('Empty'),
      },
    },
    {
      id: 'captureAPayment',
      source: '[REF] nas_spec/paths/payments@{id}@captures.yaml, post: 202 CaptureAcceptedResponse (processed asynchronously), 401, 403, 404, 422',
      request: ref('CaptureRequest'),
      responses: { 202: ref('ActionAccepted'), 401: unauthorized, 403: ref('Empty'), 404: ref('Empty'), 422: ref('ValidationError') },
    },
    {
      id: 'refundAPayment',
      source: '[REF] nas_spec/paths/payments@{id}@refunds.yaml, post: 202 RefundAcceptedResponse (processed asynchronously), 401, 403, 404, 422',
      request: ref('RefundRequest'),
      responses: { 202: ref('ActionAccepted'), 401: unauthorized, 403: ref('Empty'), 404: ref('Empty'), 422: ref('ValidationError') },
    },
    {
      id: 'voidAPayment',
      source: '[REF] nas_spec/paths/payments@{id}@voids.yaml, post: 202 VoidAcceptedResponse (processed asynchronously), 401, 403, 404, 422',
      request: ref('VoidRequest'),
      responses: { 202: ref('ActionAccepted'), 401: unauthorized, 403: ref('Empty'), 404: ref('Empty'), 422: ref('ValidationError') },
    },
    {
      id: 'webhook',
      source: '[REF] Events/EventObject.yaml, Data.yaml, EventTypesObject.yaml; [DOCS] webhook event types (answers by event type)',
      responses: { ...Object.fromEntries(CHECKOUT_EVENT_TYPES.map((t) => [t, event(t)])), ...Object.fromEntries(CHECKOUT_DISPUTE_EVENT_TYPES.map((t) => [t, disputeEvent(t)])) },
    },
    {
      id: 'uploadAFile',
      source: '[REF] nas_spec/paths/files.yaml, post: multipart/form-data File (file, purpose dispute_evidence; JPEG, PNG or PDF of at most 4MB), 200 FileUploadResponse, 401, 422, 429',
      request: { type: 'object', additionalProperties: false, required: ['purpose'], properties: { purpose: { enum: ['dispute_evidence'] } }, 'x-source': '[REF] Disputes/File.yaml, FilePurpose.yaml (the fields beside the file part)' },
      responses: {
        200: { type: 'object', required: ['id'], properties: { id: str({ pattern: '^file_' }), _links: obj }, 'x-source': '[REF] Disputes/FileUploadResponse.yaml' },
        401: unauthorized,
        422: ref('ValidationError'),
        429: ref('Empty'),
      },
    },
    {
      id: 'getDisputeDetails',
      source: '[REF] nas_spec/paths/disputes@{dispute_id}.yaml, get: 200 Dispute, 401, 404',
      responses: { 200: ref('Dispute'), 401: unauthorized, 404: ref('Empty') },
    },
    {
      id: 'provideDisputeEvidence',
      source: '[REF] nas_spec/paths/disputes@{dispute_id}@evidence.yaml, put: 204 (attached, not sent), 400, 401, 404, 422',
      request: ref('ProvideEvidenceRequest'),
      responses: { 204: ref('Empty'), 400: ref('Empty'), 401: unauthorized, 404: ref('Empty'), 422: ref('ValidationError') },
    },
    {
      id: 'submitDisputeEvidence',
      source: '[REF] nas_spec/paths/disputes@{dispute_id}@evidence.yaml, post: 204 (submitted; no amendment after), 401, 404; 422 ValidationError is the simulator\'s answer to a dispute that takes no submission (the reference lists no answer for it)',
      responses: { 204: ref('Empty'), 401: unauthorized, 404: ref('Empty'), 422: ref('ValidationError') },
    },
    {
      id: 'acceptDispute',
      source: '[REF] nas_spec/paths/disputes@{dispute_id}@accept.yaml, post: 204, 401, 404; 422 ValidationError is the simulator\'s answer to a dispute no longer open (the reference lists no answer for it)',
      responses: { 204: ref('Empty'), 401: unauthorized, 404: ref('Empty'), 422: ref('ValidationError') },
    },
  ],
};
