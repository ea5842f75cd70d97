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
import type { JsonSchema, ProviderSpec } from '../kit/spec.js';

const str = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
const int = (extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...extra });
const bool: JsonSchema = { type: 'boolean' };
const obj: JsonSchema = { type: 'object' };
const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });

/** `payment_type`: [REF] PaymentRequest.yaml lists Regular, Recurring, MOTO, Installment; [GO] PaymentType adds PayLater and Unscheduled. */
const PAYMENT_TYPES = ['Regular', 'Recurring', 'MOTO', 'Installment', 'PayLater', 'Unscheduled'];

/** Payment statuses of payment details: [REF] PaymentDetails.yaml. */
const DETAILS_STATUSES = ['Pending', 'Authorized', 'Card Verified', 'Voided', 'Partially Captured', 'Captured', 'Partially Refunded', 'Refunded', 'Declined', 'Canceled', 'Expired', 'Paid'];

/** The webhook event types the connector reads (and the simulator sends): [REF] Events/EventTypesObject.yaml. */
export const CHECKOUT_EVENT_TYPES = [
  'payment_approved', 'payment_declined', 'card_verified', 'card_verification_declined',
  'payment_captured', 'payment_capture_declined', 'payment_voided', 'payment_void_declined',
  'payment_refunded', 'payment_refund_declined',
] as const;

/**
 * The dispute webhook event types: [REF] Events/EventTypesObject.yaml lists dispute_canceled,
 * dispute_evidence_required, dispute_expired, dispute_lost, dispute_resolved, dispute_won.
 */
export const CHECKOUT_DISPUTE_EVENT_TYPES = ['dispute_evidence_required', 'dispute_canceled', 'dispute_expired', 'dispute_lost', 'dispute_resolved', 'dispute_won'] as const;

/** Dispute categories and statuses: [REF] Disputes/Dispute.yaml, DisputeSummary.yaml. */
export const CHECKOUT_DISPUTE_CATEGORIES = ['fraudulent', 'unrecognized', 'canceled_recurring', 'product_service_not_received', 'not_as_described', 'credit_not_issued', 'duplicate', 'incorrect_amount', 'general'] as const;
export const CHECKOUT_DISPUTE_STATUSES = ['evidence_required', 'evidence_under_review', 'resolved', 'won', 'lost', 'canceled', 'expired', 'accepted', 'arbitration_under_review', 'arbitration_won', 'arbitration_lost'] as const;

/** The text fields of evidence: [REF] Disputes/ProvideEvidenceRequest.yaml (each `<kind>_text`, at most 500, beside `<kind>_file`). */
export const CHECKOUT_EVIDENCE_KINDS = ['proof_of_delivery_or_service', 'invoice_or_receipt', 'invoice_showing_distinct_transactions', 'customer_communication', 'refund_or_cancellation_policy', 'recurring_transaction_agreement', 'additional_evidence', 'proof_of_delivery_or_service_date'] as const;

const defs: Record<string, JsonSchema> = {
  PaymentId: str({ pattern: '^pay_\\w{26}$', minLength: 30, maxLength: 30, 'x-source': '[REF] Payments/PaymentId.yaml' }),
  ActionId: str({ pattern: '^act_\\w{26}$', minLength: 30, maxLength: 30, 'x-source': '[REF] Payments/ActionId.yaml' }),
  // the reference gives the length; the examples all start evt_
  EventId: str({ minLength: 30, maxLength: 30, pattern: '^evt_', 'x-source': '[REF] Events/EventId.yaml' }),
  ServerTimestamp: str({ format: 'date-time', 'x-source': '[REF] ServerTimestamp.yaml' }),
  Currency: str({ minLength: 3, maxLength: 3 }),
  Link: { type: 'object', required: ['href'], properties: { href: str() }, 'x-source': '[REF] Links/Link.yaml' },
  Empty: { type: 'null', 'x-source': 'answers the reference documents without content' },
  ValidationError: {
    type: 'object',
    properties: { request_id: str(), error_type: str(), error_codes: { type: 'array', items: str() } },
    'x-source': '[REF] ValidationError.yaml',
  },
  Address: { type: 'object', 'x-source': '[REF] Address.yaml' },
  Phone: { type: 'object', 'x-source': '[REF] PhoneNumber.yaml' },

  // ---- requests ----
  CardSourceRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'number', 'expiry_month', 'expiry_year'],
    properties: {
      type: { const: 'card' },
      number: str({ pattern: '^\\d+$' }),
      expiry_month: int({ minimum: 1, maximum: 12 }),
      expiry_year: int({ minimum: 1000, maximum: 9999 }),
      name: str(),
      cvv: str({ minLength: 3, maxLength: 4 }),
      stored: bool,
      store_for_future_use: bool,
      billing_address: ref('Address'),
      phone: ref('Phone'),
      account_holder: obj,
    },
    'x-source': '[REF] Payments/RequestSources/03_PaymentRequestCardSource.yaml (type, number, expiry_month 1-12, expiry_year 4 digits, name, cvv 3-4, stored, billing_address, phone); [GO] payments/nas/sources/sources.go requestCardSource (store_for_future_use, account_holder)',
  },
  ThreeDsRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      enabled: bool,
      attempt_n3d: bool,
      eci: str({ maxLength: 2 }),
      cryptogram: str({ maxLength: 50 }),
      xid: str({ maxLength: 100 }),
      version: str({ maxLength: 10 }),
      exemption: str(),
      challenge_indicator: str(),
    },
    'x-source': '[REF] Payments/3dsRequest.yaml; [GO] ThreeDsRequest (challenge_indicator)',
  },
  BillingDescriptor: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'city'],
    properties: { name: str({ maxLength: 25 }), city: str({ minLength: 1, maxLength: 13 }), reference: str({ maxLength: 50 }) },
    'x-source': '[REF] Payments/BillingDescriptor.yaml',
  },
  PaymentRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['currency'],
    properties: {
      source: ref('CardSourceRequest'),
      amount: int({ minimum: 0 }),
      currency: ref('Currency'),
      payment_type: { enum: PAYMENT_TYPES },
      merchant_initiated: bool,
      reference: str({ maxLength: 50 }),
      description: str({ maxLength: 100 }),
      authorization_type: { enum: ['Final', 'Estimated'] },
      capture: bool,
      capture_on: ref('ServerTimestamp'),
      customer: obj,
      billing_descriptor: ref('BillingDescriptor'),
      shipping: obj,
      '3ds': ref('ThreeDsRequest'),
      processing_channel_id: str(),
      previous_payment_id: str({ maxLength: 100 }),
      risk: obj,
      success_url: str({ format: 'uri', maxLength: 255 }),
      failure_url: str({ format: 'uri', maxLength: 255 }),
      payment_ip: str(),
      sender: obj,
      recipient: obj,
      marketplace: obj,
      processing: obj,
      metadata: obj,
    },
    'x-source': '[REF] Payments/PaymentRequest.yaml; payment_type enum per [GO] PaymentType (Unscheduled, PayLater added)',
  },
  CaptureRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { amount: int({ minimum: 0 }), capture_type: { enum: ['NonFinal', 'Final'] }, reference: str({ maxLength: 50 }), metadata: obj },
    'x-source': '[REF] Payments/CaptureRequest.yaml',
  },
  RefundRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { amount: int({ minimum: 0 }), reference: str({ maxLength: 50 }), metadata: obj },
    'x-source': '[REF] Payments/RefundRequest.yaml',
  },
  VoidRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { reference: str({ maxLength: 50 }), metadata: obj },
    'x-source': '[REF] Payments/VoidRequest.yaml',
  },

  // ---- answers ----
  CardSourceResponse: {
    type: 'object',
    required: ['type', 'expiry_month', 'expiry_year', 'last4', 'fingerprint', 'bin'],
    properties: {
      type: str(),
      id: str(),
      expiry_month: int({ minimum: 1, maximum: 12 }),
      expiry_year: int(),
      name: str(),
      scheme: str(),
      last4: str(),
      fingerprint: str(),
      bin: str({ maxLength: 6 }),
      card_type: str(),
      card_category: str(),
      issuer_country: str({ minLength: 2, maxLength: 2 }),
    },
    'x-source': '[REF] Payments/ResponseSources/01_PaymentResponseCardSource.yaml (required expiry_month, expiry_year, last4, fingerprint, bin); card_type and card_category are upper case in [NODE] getPaymentList.js, so their enums are not held',
  },
  PaymentLinks: {
    type: 'object',
    required: ['self', 'actions'],
    properties: { self: ref('Link'), actions: ref('Link'), authorize: ref('Link'), void: ref('Link'), capture: ref('Link'), refund: ref('Link'), redirect: ref('Link') },
    'x-source': '[REF] Payments/PaymentResponse.yaml and PaymentDetails.yaml _links (self and actions required)',
  },
  PaymentResponse: {
    type: 'object',
    required: ['id', 'action_id', 'amount', 'currency', 'approved', 'status', 'response_code', 'processed_on', '_links'],
    properties: {
      id: ref('PaymentId'),
      action_id: ref('ActionId'),
      amount: int(),
      currency: ref('Currency'),
      approved: bool,
      status: { enum: ['Authorized', 'Pending', 'Card Verified', 'Captured', 'Declined', 'Paid'] },
      auth_code: str(),
      response_code: str(),
      response_summary: str(),
      expires_on: str(),
      '3ds': obj,
      risk: { type: 'object', properties: { flagged: bool } },
      source: ref('CardSourceResponse'),
      customer: obj,
      balances: obj,
      processed_on: ref('ServerTimestamp'),
      reference: str(),
      processing: obj,
      eci: str(),
      scheme_id: str(),
      _links: ref('PaymentLinks'),
    },
    'x-source': '[REF] Payments/PaymentResponse.yaml (201 of POST /payments)',
  },
  PaymentAcceptedResponse: {
    type: 'object',
    required: ['id', 'status'],
    properties: {
      id: ref('PaymentId'),
      status: { enum: ['Pending'] },
      reference: str(),
      customer: obj,
      '3ds': obj,
      _links: { type: 'object', required: ['self'], properties: { self: ref('Link'), redirect: ref('Link') } },
    },
    'x-source': '[REF] Payments/PaymentAcceptedResponse.yaml (202 of POST /payments)',
  },
  ActionSummary: {
    type: 'object',
    required: ['id', 'type', 'response_code'],
    properties: {
      id: ref('ActionId'),
      type: { enum: ['Authorization', 'Card Verification', 'Void', 'Capture', 'Refund'] },
      response_code: str(),
      response_summary: str(),
    },
    'x-source': '[REF] Payments/PaymentActionSummary.yaml',
  },
  PaymentDetails: {
    type: 'object',
    required: ['id', 'requested_on', 'amount', 'currency', 'status', 'approved', '_links'],
    properties: {
      id: ref('PaymentId'),
      requested_on: ref('ServerTimestamp'),
      source: ref('CardSourceResponse'),
      amount: int(),
      currency: ref('Currency'),
      payment_type: { enum: PAYMENT_TYPES },
      reference: str(),
      description: str(),
      approved: bool,
      expires_on: str(),
      status: { enum: DETAILS_STATUSES },
      balances: {
        type: 'object',
        properties: {
          total_authorized: int(), total_voided: int(), available_to_void: int(), total_captured: int(),
          available_to_capture: int(), total_refunded: int(), available_to_refund: int(),
        },
      },
      '3ds': obj,
      risk: obj,
      customer: { type: 'object', required: ['id'], properties: { id: str() } },
      billing_descriptor: obj,
      eci: str(),
      scheme_id: str(),
      actions: { type: 'array', items: ref('ActionSummary') },
      _links: ref('PaymentLinks'),
    },
    // a payment's details carry no response code: only an action (or the summary of the actions
    // answered when the payment is fetched by its 3-D Secure session id) has one
    not: { anyOf: [{ type: 'object', required: ['response_code'] }, { type: 'object', required: ['response_summary'] }] },
    'x-source': '[REF] Payments/PaymentDetails.yaml (200 of GET /payments/{id}); [GO] GetPaymentResponse has no response_code either',
  },
  PaymentAction: {
    type: 'object',
    required: ['id', 'type', 'amount', 'response_code', 'processed_on'],
    properties: {
      id: ref('ActionId'),
      type: { enum: ['Authorization', 'Card Verification', 'Void', 'Capture', 'Refund', 'Payout', 'Return'] },
      processed_on: ref('ServerTimestamp'),
      amount: int(),
      approved: bool,
      auth_code: str(),
      response_code: str(),
      response_summary: str(),
      authorization_type: { enum: ['Final', 'Estimated', 'Incremental'] },
      reference: str(),
      processing: obj,
      metadata: obj,
    },
    'x-source': '[REF] Payments/PaymentAction.yaml',
  },
  ActionAccepted: {
    type: 'object',
    required: ['action_id', '_links'],
    properties: {
      action_id: ref('ActionId'),
      reference: str(),
      _links: { type: 'object', required: ['payment'], properties: { payment: ref('Link'), redirect: ref('Link') } },
    },
    'x-source': '[REF] Payments/CaptureAcceptedResponse.yaml, RefundAcceptedResponse.yaml, VoidAcceptedResponse.yaml (202: action_id; _links.payment required)',
  },

  // ---- disputes ----
  DisputeId: str({ pattern: '^dsp_\\w+$', 'x-source': '[REF] Disputes/Dispute.yaml id (pattern ^(dsp)_(\\w{22})$; the paths say \\w{26}: the prefix is what both agree on)' }),
  DisputeSummary: {
    type: 'object',
    required: ['id', 'category', 'status', 'amount', 'currency', 'reason_code', 'payment_id'],
    properties: {
      id: ref('DisputeId'),
      category: { enum: [...CHECKOUT_DISPUTE_CATEGORIES] },
      status: { enum: [...CHECKOUT_DISPUTE_STATUSES] },
      amount: { type: 'number' },
      currency: ref('Currency'),
      reason_code: str(),
      payment_id: ref('PaymentId'),
      payment_action_id: ref('ActionId'),
      payment_reference: str(),
      payment_arn: str(),
      payment_method: str(),
      evidence_required_by: ref('ServerTimestamp'),
      received_on: ref('ServerTimestamp'),
      last_update: ref('ServerTimestamp'),
    },
    'x-source': '[REF] Disputes/DisputeSummary.yaml (no required list; a dispute always has these: its id, category, status, amount, currency, reason code and payment)',
  },
  Dispute: {
    type: 'object',
    required: ['id', 'category', 'status', 'amount', 'currency', 'reason_code', 'payment'],
    properties: {
      id: ref('DisputeId'),
      category: { enum: [...CHECKOUT_DISPUTE_CATEGORIES] },
      status: { enum: [...CHECKOUT_DISPUTE_STATUSES] },
      amount: { type: 'number' },
      currency: ref('Currency'),
      reason_code: str(),
      resolved_reason: { enum: ['rapid_dispute_resolution', 'negative_amount', 'already_refunded'] },
      relevant_evidence: { type: 'array', items: str() },
      evidence_required_by: ref('ServerTimestamp'),
      received_on: ref('ServerTimestamp'),
      last_update: ref('ServerTimestamp'),
      payment: { type: 'object', required: ['id'], properties: { id: ref('PaymentId'), action_id: ref('ActionId'), amount: { type: 'number' }, currency: ref('Currency'), method: str(), arn: str(), processed_on: ref('ServerTimestamp') }, 'x-source': '[REF] Disputes/PaymentData.yaml' },
      _links: obj,
    },
    'x-source': '[REF] Disputes/Dispute.yaml',
  },
  ProvideEvidenceRequest: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: Object.fromEntries(CHECKOUT_EVIDENCE_KINDS.flatMap((k) => [[`${k}_file`, str({ pattern: '^file_' })], [`${k}_text`, str({ maxLength: 500 })]])),
    'x-source': '[REF] Disputes/ProvideEvidenceRequest.yaml (`maximum: 500` on the texts, read as their length); "You must provide at least one evidence type"',
  },

  // ---- webhooks ----
  EventData: {
    type: 'object',
    required: ['id'],
    properties: {
      id: ref('PaymentId'),
      action_id: ref('ActionId'),
      amount: int(),
      currency: ref('Currency'),
      approved: bool,
      status: { enum: ['Pending', 'Authorized', 'Voided', 'Partially Captured', 'Captured', 'Partially Refunded', 'Refunded', 'Declined', 'Canceled'] },
      auth_code: str(),
      response_code: str(),
      response_summary: str(),
      '3ds': obj,
      flagged: bool,
      source: obj,
      customer: obj,
      processed_on: ref('ServerTimestamp'),
      reference: str(),
      scheme_id: str(),
      metadata: obj,
    },
    'x-source': '[REF] Events/Data.yaml (no required list; the payment id is what every example names)',
  },
};

/** The body of a webhook of `type`: [REF] Events/EventObject.yaml; required as every [DOCS] example has them. */
function event(type: string): JsonSchema {
  return {
    type: 'object',
    required: ['id', 'type', 'created_on', 'data'],
    properties: {
      id: ref('EventId'),
      type: { const: type },
      version: str(),
      created_on: ref('ServerTimestamp'),
      data: ref('EventData'),
      _links: { type: 'object', properties: { self: ref('Link'), payment: ref('Link') } },
    },
    'x-source': `[REF] Events/EventObject.yaml and EventTypesObject.yaml (${type}); [DOCS] webhook examples`,
  };
}

/** The body of a dispute webhook: the event with the dispute's summary as its data ([REF] Events/EventObject.yaml, Disputes/DisputeSummary.yaml). */
function disputeEvent(type: string): JsonSchema {
  return {
    type: 'object',
    required: ['id', 'type', 'created_on', 'data'],
    properties: {
      id: ref('EventId'),
      type: { const: type },
      version: str(),
      created_on: ref('ServerTimestamp'),
      data: ref('DisputeSummary'),
      _links: obj,
    },
    'x-source': `[REF] Events/EventObject.yaml, EventTypesObject.yaml (${type}), Disputes/DisputeSummary.yaml`,
  };
}

const unauthorized = ref('Empty');

export const CHECKOUT_SPEC: ProviderSpec = {
  provider: 'Checkout.com',
  sources: [
    'checkout/checkout-api-reference master 2fc946cd22e9a6b8e3a33db3c5f4be4d3fe7d74c (2021-07-20), nas_spec/',
    'checkout/checkout-sdk-go 30688abf9c8aa6196f881250d1143da006c38fe3 (2026-06-10), payments/',
    'checkout/checkout-sdk-node a1d2c7234c9ce6f694d3131e5b100aaa13657d20 (2026-08-07), test/payments/',
    'docs.checkout.com: webhook event types and examples; stored card details; recurring and unscheduled payments',
  ],
  defs,
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
