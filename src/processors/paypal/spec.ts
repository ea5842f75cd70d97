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
import { PAYPAL_CURRENCY_DECIMALS } from './currencies.js';

const str = (min: number | null, max: number | null, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...(min !== null ? { minLength: min } : {}), ...(max !== null ? { maxLength: max } : {}), ...extra });
const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });
const arrayOf = (items: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({ type: 'array', items, ...extra });
const anyObject: JsonSchema = { type: 'object' };

/** [SDK] doc/models/card-brand.md (a superset of [ORD] `card_brand`). */
export const CARD_BRANDS = [
  'VISA', 'MASTERCARD', 'DISCOVER', 'AMEX', 'SOLO', 'JCB', 'STAR', 'DELTA', 'SWITCH', 'MAESTRO', 'CB_NATIONALE', 'CONFIGOGA', 'CONFIDIS',
  'ELECTRON', 'CETELEM', 'CHINA_UNION_PAY', 'DINERS', 'ELO', 'HIPER', 'HIPERCARD', 'RUPAY', 'GE', 'SYNCHRONY', 'EFTPOS', 'CARTE_BANCAIRE',
  'STAR_ACCESS', 'PULSE', 'NYCE', 'ACCEL', 'UNKNOWN',
] as const;

/** [PAY] `capture_status_details.reason`. */
export const CAPTURE_REASONS = [
  'BUYER_COMPLAINT', 'CHARGEBACK', 'ECHECK', 'INTERNATIONAL_WITHDRAWAL', 'OTHER', 'PENDING_REVIEW', 'RECEIVING_PREFERENCE_MANDATES_MANUAL_ACTION',
  'REFUNDED', 'TRANSACTION_APPROVED_AWAITING_FUNDING', 'UNILATERAL', 'VERIFICATION_REQUIRED',
] as const;

/** [PAY] `processor_response.response_code`. */
const RESPONSE_CODES = [
  '0000', '00N7', '0100', '0390', '0500', '0580', '0800', '0880', '0890', '0960', '0R00', '1000', '10BR', '1300', '1310', '1312', '1317', '1320',
  '1330', '1335', '1340', '1350', '1352', '1360', '1370', '1380', '1382', '1384', '1390', '1393', '5100', '5110', '5120', '5130', '5135', '5140',
  '5150', '5160', '5170', '5180', '5190', '5200', '5210', '5400', '5500', '5650', '5700', '5710', '5800', '5900', '5910', '5920', '5930', '5950',
  '6300', '7600', '7700', '7710', '7800', '7900', '8000', '8010', '8020', '8030', '8100', '8110', '8220', '9100', '9500', '9510', '9520', '9530',
  '9540', '9600', 'PCNR', 'PCVV', 'PP06', 'PPRN', 'PPAD', 'PPAB', 'PPAE', 'PPAG', 'PPAI', 'PPAR', 'PPAU', 'PPAV', 'PPAX', 'PPBG', 'PPC2', 'PPCE',
  'PPCO', 'PPCR', 'PPCT', 'PPCU', 'PPD3', 'PPDC', 'PPDI', 'PPDV', 'PPDT', 'PPEF', 'PPEL', 'PPER', 'PPEX', 'PPFE', 'PPFI', 'PPFR', 'PPFV', 'PPGR',
  'PPH1', 'PPIF', 'PPII', 'PPIM', 'PPIT', 'PPLR', 'PPLS', 'PPMB', 'PPMC', 'PPMD', 'PPNC', 'PPNL', 'PPNM', 'PPNT', 'PPPH', 'PPPI', 'PPPM', 'PPQC',
  'PPRE', 'PPRF', 'PPRR', 'PPS0', 'PPS1', 'PPS2', 'PPS3', 'PPS4', 'PPS5', 'PPS6', 'PPSC', 'PPSD', 'PPSE', 'PPTE', 'PPTF', 'PPTI', 'PPTR', 'PPTT',
  'PPTV', 'PPUA', 'PPUC', 'PPUE', 'PPUI', 'PPUP', 'PPUR', 'PPVC', 'PPVE', 'PPVT',
];

/** The webhook events the connector reads ([EVT], Payments v2; CHECKOUT.ORDER.APPROVED under Orders). */
export const WEBHOOK_EVENTS = [
  'PAYMENT.CAPTURE.COMPLETED', 'PAYMENT.CAPTURE.DECLINED', 'PAYMENT.CAPTURE.DENIED', 'PAYMENT.CAPTURE.PENDING', 'PAYMENT.CAPTURE.REFUNDED',
  'PAYMENT.AUTHORIZATION.CREATED', 'PAYMENT.AUTHORIZATION.VOIDED', 'CHECKOUT.ORDER.APPROVED',
] as const;

const ZERO_DECIMALS = Object.entries(PAYPAL_CURRENCY_DECIMALS).filter(([, d]) => d === 0).map(([c]) => c);
const ISO_DATE_TIME = '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[1-2][0-9]|3[0-1])[T,t]([0-1][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)([.][0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$';

const defs: Record<string, JsonSchema> = {
  // ---- shared -------------------------------------------------------------------------------------------
  /** A request amount: [ORD] `money`, with the currencies and decimals of [CUR]. */
  money: {
    'x-source': '[ORD] components.schemas.money; [CUR]',
    type: 'object',
    additionalProperties: false,
    required: ['currency_code', 'value'],
    properties: {
      currency_code: { type: 'string', minLength: 3, maxLength: 3, enum: Object.keys(PAYPAL_CURRENCY_DECIMALS) },
      value: str(null, 32, { pattern: '^((-?[0-9]+)|(-?([0-9]+)?[.][0-9]+))$' }),
    },
    allOf: [
      // "This currency does not support decimals. If you pass a decimal amount, an error occurs." [CUR]
      { if: { properties: { currency_code: { enum: ZERO_DECIMALS } }, required: ['currency_code'] }, then: { properties: { value: { type: 'string', pattern: '^[0-9]+$' } } } },
      // "If the currency supports decimals, only two decimal place precision is supported." [ORD] DECIMAL_PRECISION
      { properties: { value: { type: 'string', pattern: '^[0-9]+([.][0-9]{1,2})?$' } } },
    ],
  },
  /** An answer's amount: [ORD]/[PAY] `money` (open). */
  moneyAnswer: {
    'x-source': '[PAY] components.schemas.money',
    type: 'object',
    required: ['currency_code', 'value'],
    properties: { currency_code: str(3, 3), value: str(null, 32, { pattern: '^((-?[0-9]+)|(-?([0-9]+)?[.][0-9]+))$' }) },
  },
  link: {
    'x-source': '[ORD] components.schemas.link_description',
    type: 'object',
    required: ['href', 'rel'],
    properties: { href: { type: 'string' }, rel: { type: 'string' }, method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'CONNECT', 'OPTIONS', 'PATCH'] } },
  },
  dateTime: { 'x-source': '[ORD] components.schemas.date_time', type: 'string', minLength: 20, maxLength: 64, pattern: ISO_DATE_TIME },
  /** [ORD]/[PAY] `error_400`, `error_401`, `error_404`, `error_409`, `error_422`, with `error_details` and `error_link_description`. */
  error: {
    'x-source': '[ORD] components.schemas.error_422, error_details, error_link_description',
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string' },
      message: { type: 'string' },
      debug_id: { type: 'string' },
      details: arrayOf({
        type: 'object',
        required: ['issue'],
        properties: { field: { type: 'string' }, value: { type: 'string' }, location: { type: 'string', enum: ['body', 'path', 'query'] }, issue: { type: 'string' }, description: { type: 'string' } },
      }),
      links: arrayOf({
        type: 'object',
        required: ['href', 'rel'],
        properties: { href: str(0, 20000), rel: str(0, 100), method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] } },
      }, { minItems: 0, maxItems: 10000 }),
    },
  },
  /** A card network reference as a request quotes it: [ORD] `network_transaction_reference`, [SDK] network-transaction.md. */
  networkReferenceRequest: {
    'x-source': '[ORD] components.schemas.network_transaction_reference; [SDK] doc/models/network-transaction.md',
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: {
      id: str(9, 36, { pattern: "^[a-zA-Z0-9-_@.:&+=*^'~#!$%()]+$" }),
      date: str(4, 4, { pattern: '^[0-9]+$' }),
      network: { type: 'string', enum: [...CARD_BRANDS] },
      acquirer_reference_number: str(1, 36, { pattern: '^[a-zA-Z0-9]+$' }),
    },
    // "For some specific networks, such as MasterCard and Discover, this date field is mandatory when the
    // previous_network_transaction_reference_id is passed." [SDK]
    if: { properties: { network: { enum: ['MASTERCARD', 'DISCOVER'] } }, required: ['network'] },
    then: { required: ['date'] },
  },
  networkReferenceAnswer: {
    'x-source': '[PAY] components.schemas.network_transaction_reference',
    type: 'object',
    required: ['id'],
    properties: { id: str(9, 36), date: str(4, 4, { pattern: '^[0-9]+$' }), network: { type: 'string', enum: [...CARD_BRANDS] }, acquirer_reference_number: str(1, 36) },
  },
  // ---- requests ------------------------------------------------------------------------------------------
  /** [ORD] `card_request` (`card` + vault_id, stored_credential, network_token, experience_context), fields as [SDK] card-request.md. */
  cardRequest: {
    'x-source': '[ORD] components.schemas.card_request, card, card_stored_credential, card_experience_context; [SDK] doc/models/card-request.md, card-attributes.md, card-verification.md',
    type: 'object',
    additionalProperties: false,
    properties: {
      name: str(1, 300, { pattern: '^.{1,300}$' }),
      number: str(13, 19, { pattern: '^[0-9]{13,19}$' }),
      expiry: str(7, 7, { pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$' }),
      security_code: str(3, 4, { pattern: '^[0-9]{3,4}$' }),
      billing_address: anyObject,
      attributes: {
        type: 'object',
        additionalProperties: false,
        properties: {
          customer: anyObject,
          vault: anyObject,
          verification: {
            type: 'object',
            additionalProperties: false,
            properties: { method: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[0-9A-Z_]+$', enum: ['SCA_ALWAYS', 'SCA_WHEN_REQUIRED', '3D_SECURE', 'AVS_CVV'] } },
          },
        },
      },
      vault_id: str(1, 255, { pattern: '^[0-9a-zA-Z_-]+$' }),
      single_use_token: str(1, 255, { pattern: '^[0-9a-zA-Z_-]+$' }),
      stored_credential: {
        type: 'object',
        additionalProperties: false,
        required: ['payment_initiator', 'payment_type'],
        properties: {
          payment_initiator: { type: 'string', enum: ['CUSTOMER', 'MERCHANT'] },
          payment_type: { type: 'string', enum: ['ONE_TIME', 'RECURRING', 'UNSCHEDULED'] },
          usage: { type: 'string', enum: ['FIRST', 'SUBSEQUENT', 'DERIVED'] },
          previous_network_transaction_reference: ref('networkReferenceRequest'),
        },
        // "Parameter compatibility" of card_stored_credential
        allOf: [
          { if: { properties: { payment_type: { const: 'ONE_TIME' } }, required: ['payment_type'] }, then: { properties: { payment_initiator: { const: 'CUSTOMER' } } } },
          { if: { properties: { usage: { const: 'FIRST' } }, required: ['usage'] }, then: { properties: { payment_initiator: { const: 'CUSTOMER' } } } },
          { if: { required: ['previous_network_transaction_reference'] }, then: { properties: { payment_initiator: { const: 'MERCHANT' } } } },
        ],
      },
      network_token: anyObject,
      experience_context: {
        type: 'object',
        additionalProperties: false,
        properties: { return_url: str(10, 4000, { format: 'uri' }), cancel_url: str(10, 4000, { format: 'uri' }) },
      },
    },
    // security_code: "This parameter cannot be present in the request when `payment_initiator=MERCHANT`."
    if: { properties: { stored_credential: { type: 'object', properties: { payment_initiator: { const: 'MERCHANT' } }, required: ['payment_initiator'] } }, required: ['stored_credential'] },
    then: { not: { required: ['security_code'] } },
  },
  /** [ORD] `paypal_wallet` with `paypal_wallet_experience_context`. */
  paypalWalletRequest: {
    'x-source': '[ORD] components.schemas.paypal_wallet, paypal_wallet_experience_context',
    type: 'object',
    additionalProperties: false,
    properties: {
      vault_id: { type: 'string' },
      email_address: { type: 'string' },
      name: anyObject,
      phone: anyObject,
      birth_date: { type: 'string' },
      tax_info: anyObject,
      address: anyObject,
      attributes: anyObject,
      experience_context: {
        type: 'object',
        additionalProperties: false,
        properties: {
          brand_name: str(1, 127),
          locale: { type: 'string' },
          shipping_preference: { type: 'string', enum: ['GET_FROM_FILE', 'NO_SHIPPING', 'SET_PROVIDED_ADDRESS'] },
          return_url: { type: 'string', format: 'uri' },
          cancel_url: { type: 'string', format: 'uri' },
          landing_page: { type: 'string', enum: ['LOGIN', 'GUEST_CHECKOUT', 'NO_PREFERENCE'] },
          user_action: { type: 'string', enum: ['CONTINUE', 'PAY_NOW'] },
          payment_method_preference: { type: 'string', enum: ['UNRESTRICTED', 'IMMEDIATE_PAYMENT_REQUIRED'] },
        },
      },
      billing_agreement_id: { type: 'string' },
    },
  },
  /** [ORD] `payment_source`. */
  paymentSourceRequest: {
    'x-source': '[ORD] components.schemas.payment_source',
    type: 'object',
    additionalProperties: false,
    properties: {
      card: ref('cardRequest'),
      token: anyObject,
      paypal: ref('paypalWalletRequest'),
      bancontact: anyObject, blik: anyObject, eps: anyObject, giropay: anyObject, ideal: anyObject, mybank: anyObject, p24: anyObject,
      sofort: anyObject, trustly: anyObject, apple_pay: anyObject, google_pay: anyObject, venmo: anyObject,
    },
  },
  /** [ORD] `purchase_unit_request`. */
  purchaseUnitRequest: {
    'x-source': '[ORD] components.schemas.purchase_unit_request, amount_with_breakdown',
    type: 'object',
    additionalProperties: false,
    required: ['amount'],
    properties: {
      reference_id: str(1, 256),
      amount: ref('money'),
      payee: anyObject,
      payment_instruction: anyObject,
      description: str(1, 127),
      custom_id: str(1, 127),
      invoice_id: str(1, 127),
      soft_descriptor: str(1, 22),
      items: { type: 'array' },
      shipping: anyObject,
      supplementary_data: anyObject,
    },
  },
  // ---- answers -------------------------------------------------------------------------------------------
  processorResponse: {
    'x-source': '[PAY] components.schemas.processor_response',
    type: 'object',
    properties: {
      avs_code: { type: 'string' },
      cvv_code: { type: 'string' },
      response_code: { type: 'string', enum: RESPONSE_CODES },
      payment_advice_code: { type: 'string', enum: ['01', '02', '03', '21'] },
    },
  },
  relatedIds: {
    'x-source': '[PAY] components.schemas.supplementary_data, related_ids',
    type: 'object',
    properties: {
      related_ids: {
        type: 'object',
        properties: { order_id: str(1, 20, { pattern: '^[A-Z0-9]+$' }), authorization_id: str(1, 20, { pattern: '^[A-Z0-9]+$' }), capture_id: str(1, 20, { pattern: '^[A-Z0-9]+$' }) },
      },
    },
  },
  capture: {
    'x-source': '[PAY] components.schemas.capture-2, capture, capture_status, capture_status_details',
    type: 'object',
    required: ['id', 'status'],
    properties: {
      id: { type: 'string' },
      status: { type: 'string', enum: ['COMPLETED', 'DECLINED', 'PARTIALLY_REFUNDED', 'PENDING', 'REFUNDED', 'FAILED'] },
      status_details: { type: 'object', properties: { reason: { type: 'string', enum: [...CAPTURE_REASONS] } } },
      amount: ref('moneyAnswer'),
      invoice_id: { type: 'string' },
      custom_id: str(null, 127),
      network_transaction_reference: ref('networkReferenceAnswer'),
      seller_protection: anyObject,
      final_capture: { type: 'boolean' },
      seller_receivable_breakdown: anyObject,
      links: arrayOf(ref('link')),
      processor_response: ref('processorResponse'),
      create_time: ref('dateTime'),
      update_time: ref('dateTime'),
      supplementary_data: ref('relatedIds'),
    },
  },
  authorization: {
    'x-source': '[PAY] components.schemas.authorization-2, authorization, authorization_status, authorization_status_details; [ORD] authorization_with_additional_data',
    type: 'object',
    required: ['id', 'status'],
    properties: {
      id: { type: 'string' },
      status: { type: 'string', enum: ['CREATED', 'CAPTURED', 'DENIED', 'PARTIALLY_CAPTURED', 'VOIDED', 'PENDING'] },
      status_details: { type: 'object', properties: { reason: { type: 'string', enum: ['PENDING_REVIEW'] } } },
      amount: ref('moneyAnswer'),
      invoice_id: { type: 'string' },
      custom_id: str(null, 127),
      network_transaction_reference: ref('networkReferenceAnswer'),
      seller_protection: anyObject,
      expiration_time: ref('dateTime'),
      links: arrayOf(ref('link')),
      processor_response: ref('processorResponse'),
      create_time: ref('dateTime'),
      update_time: ref('dateTime'),
      supplementary_data: ref('relatedIds'),
    },
  },
  refund: {
    'x-source': '[PAY] components.schemas.refund, refund_status, refund_status_details',
    type: 'object',
    required: ['id', 'status'],
    properties: {
      id: { type: 'string' },
      status: { type: 'string', enum: ['CANCELLED', 'FAILED', 'PENDING', 'COMPLETED'] },
      status_details: { type: 'object', properties: { reason: { type: 'string', enum: ['ECHECK'] } } },
      amount: ref('moneyAnswer'),
      invoice_id: { type: 'string' },
      custom_id: str(1, 127, { pattern: '^[A-Za-z0-9-_.,]*$' }),
      acquirer_reference_number: str(1, 36),
      note_to_payer: { type: 'string' },
      seller_payable_breakdown: anyObject,
      links: arrayOf(ref('link')),
      create_time: ref('dateTime'),
      update_time: ref('dateTime'),
      supplementary_data: ref('relatedIds'),
    },
  },
  /** [ORD] `card_response` with `authentication_response` (3-D Secure's result). */
  cardResponse: {
    'x-source': '[ORD] components.schemas.card_response, authentication_response, three_d_secure_authentication_response, liability_shift, pares_status, enrolled',
    type: 'object',
    properties: {
      name: str(2, 300),
      last_digits: { type: 'string', pattern: '[0-9]{2,}' },
      brand: { type: 'string', enum: [...CARD_BRANDS] },
      available_networks: arrayOf({ type: 'string', enum: [...CARD_BRANDS] }),
      type: { type: 'string', enum: ['CREDIT', 'DEBIT', 'PREPAID', 'UNKNOWN'] },
      authentication_result: {
        type: 'object',
        properties: {
          liability_shift: { type: 'string', enum: ['NO', 'POSSIBLE', 'UNKNOWN'] },
          three_d_secure: {
            type: 'object',
            properties: {
              authentication_status: { type: 'string', enum: ['Y', 'N', 'U', 'A', 'C', 'R', 'D', 'I'] },
              enrollment_status: { type: 'string', enum: ['Y', 'N', 'U', 'B'] },
            },
          },
          authentication_flow: {},
          exemption_details: {},
        },
      },
      attributes: anyObject,
      from_request: anyObject,
      expiry: { type: 'string', pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$' },
      bin_details: anyObject,
    },
  },
  /** [ORD] `order` (answers of create, get, capture, authorize). */
  order: {
    'x-source': '[ORD] components.schemas.order, order_status, purchase_unit, payment_collection, payment_source_response',
    type: 'object',
    properties: {
      id: { type: 'string' },
      intent: { type: 'string', enum: ['CAPTURE', 'AUTHORIZE'] },
      status: { type: 'string', enum: ['CREATED', 'SAVED', 'APPROVED', 'VOIDED', 'COMPLETED', 'PAYER_ACTION_REQUIRED'] },
      payment_source: { type: 'object', properties: { card: ref('cardResponse'), paypal: anyObject } },
      processing_instruction: { type: 'string' },
      purchase_units: arrayOf({
        type: 'object',
        properties: {
          reference_id: str(1, 256),
          amount: ref('moneyAnswer'),
          description: str(1, 127),
          custom_id: str(1, 127),
          invoice_id: str(1, 127),
          soft_descriptor: str(1, 22),
          payments: {
            type: 'object',
            properties: { authorizations: arrayOf(ref('authorization')), captures: arrayOf(ref('capture')), refunds: arrayOf(ref('refund')) },
          },
        },
      }, { minItems: 1, maxItems: 10 }),
      links: arrayOf(ref('link')),
      create_time: ref('dateTime'),
      update_time: ref('dateTime'),
    },
  },
  /** [WH] `event`. */
  event: {
    'x-source': '[WH] components.schemas.event, event_version, resource_version',
    type: 'object',
    required: ['id', 'event_type', 'resource'],
    properties: {
      id: { type: 'string' },
      create_time: { type: 'string', format: 'date-time' },
      resource_type: { type: 'string' },
      event_version: { type: 'string', pattern: '^([0-9]+.[0-9]+)$' },
      event_type: { type: 'string' },
      summary: { type: 'string' },
      resource_version: { type: 'string', pattern: '^([0-9]+.[0-9]+)$' },
      resource: { type: 'object' },
      links: arrayOf(ref('link')),
    },
  },
};

// ---- disputes ([DSP] openapi/customer_disputes_v1.json, Disputes 1.10) ----
export const DISPUTE_REASONS = ['MERCHANDISE_OR_SERVICE_NOT_RECEIVED', 'MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED', 'UNAUTHORISED', 'CREDIT_NOT_PROCESSED', 'DUPLICATE_TRANSACTION', 'INCORRECT_AMOUNT', 'PAYMENT_BY_OTHER_MEANS', 'CANCELED_RECURRING_BILLING', 'PROBLEM_WITH_REMITTANCE', 'OTHER'] as const;
export const DISPUTE_STATUSES = ['OPEN', 'WAITING_FOR_BUYER_RESPONSE', 'WAITING_FOR_SELLER_RESPONSE', 'UNDER_REVIEW', 'RESOLVED', 'OTHER'] as const;
export const DISPUTE_STAGES = ['INQUIRY', 'CHARGEBACK', 'PRE_ARBITRATION', 'ARBITRATION'] as const;
export const DISPUTE_OUTCOMES = ['RESOLVED_BUYER_FAVOUR', 'RESOLVED_SELLER_FAVOUR', 'RESOLVED_WITH_PAYOUT', 'CANCELED_BY_BUYER', 'ACCEPTED', 'DENIED', 'NONE'] as const;
export const DISPUTE_EVENTS = ['CUSTOMER.DISPUTE.CREATED', 'CUSTOMER.DISPUTE.UPDATED', 'CUSTOMER.DISPUTE.RESOLVED'] as const;
/** [DSP] components.schemas.evidence.properties.evidence_type (the types the connector sends). */
export const EVIDENCE_TYPES = ['PROOF_OF_FULFILLMENT', 'PROOF_OF_REFUND', 'PROOF_OF_DELIVERY_SIGNATURE', 'PROOF_OF_RECEIPT_COPY', 'RETURN_POLICY', 'BILLING_AGREEMENT', 'PROOF_OF_RESHIPMENT', 'ITEM_DESCRIPTION', 'POLICE_REPORT', 'AFFIDAVIT', 'PAID_WITH_OTHER_METHOD', 'COPY_OF_CONTRACT', 'TERMINAL_ATM_RECEIPT', 'PRICE_DIFFERENCE_REASON', 'SOURCE_CONVERSION_RATE', 'BANK_STATEMENT', 'CREDIT_DUE_REASON', 'REQUEST_CREDIT_RECEIPT', 'PROOF_OF_RETURN', 'CREATE', 'CHANGE_REASON', 'OTHER'] as const;

defs.dispute_money = { 'x-source': '[DSP] components.schemas.money (currency_code, value)', type: 'object', required: ['currency_code', 'value'], properties: { currency_code: { type: 'string', minLength: 3, maxLength: 3 }, value: { type: 'string', maxLength: 32, pattern: '^((-?[0-9]+)|(-?([0-9]+)?[.][0-9]+))$' } } };
defs.dispute = {
  'x-source': '[DSP] components.schemas.dispute (no required list; a dispute notification always has its id, reason, status, amount and transactions)',
  type: 'object',
  required: ['dispute_id', 'reason', 'status', 'dispute_amount', 'disputed_transactions'],
  properties: {
    dispute_id: str(1, 255, { pattern: '^[A-Za-z0-9-]+$' }),
    create_time: str(null, null, { pattern: ISO_DATE_TIME }),
    update_time: str(null, null, { pattern: ISO_DATE_TIME }),
    disputed_transactions: arrayOf({
      type: 'object',
      'x-source': '[DSP] components.schemas.transaction_info',
      properties: {
        seller_transaction_id: str(1, 255, { pattern: '^[A-Za-z0-9-]+$' }),
        custom: str(1, 2000),
        invoice_number: str(1, 127),
        transaction_status: { type: 'string' },
        gross_amount: ref('dispute_money'),
        create_time: str(null, null, { pattern: ISO_DATE_TIME }),
      },
    }, { minItems: 1, maxItems: 1000 }),
    reason: { type: 'string', enum: [...DISPUTE_REASONS] },
    status: { type: 'string', enum: [...DISPUTE_STATUSES] },
    dispute_amount: ref('dispute_money'),
    external_reason_code: str(1, 2000),
    dispute_outcome: { type: 'object', properties: { outcome_code: { type: 'string', enum: [...DISPUTE_OUTCOMES] }, amount_refunded: ref('dispute_money') } },
    dispute_life_cycle_stage: { type: 'string', enum: [...DISPUTE_STAGES] },
    dispute_channel: { type: 'string', enum: ['INTERNAL', 'EXTERNAL', 'ALERT'] },
    seller_response_due_date: str(null, null, { pattern: ISO_DATE_TIME }),
    links: arrayOf(anyObject),
  },
};
/**
 * The `input` part of provide-evidence's multipart body: [DSP] documents the body as multipart/form-data
 * with an `evidence-file` part; PayPal's dispute integration guide puts the evidences JSON in an `input`
 * part (`evidences`: [DSP] components.schemas.evidence: evidence_type, notes of 1–2000).
 */
defs.provide_evidence_input = {
  'x-source': '[DSP] requestBodies.evidences; components.schemas.evidence (evidence_type, notes)',
  type: 'object',
  additionalProperties: false,
  required: ['evidences'],
  properties: {
    evidences: arrayOf({
      type: 'object',
      additionalProperties: false,
      required: ['evidence_type'],
      properties: {
        evidence_type: { type: 'string', enum: [...EVIDENCE_TYPES] },
        notes: str(1, 2000),
        // [DSP] components.schemas.document: the name of an `evidence-file` part of the same request
        documents: arrayOf({ type: 'object', additionalProperties: false, required: ['name'], properties: { name: str(1, 2000, { pattern: '^[A-Za-z0-9-_,\\s]+[.]{1}[A-Za-z]+$' }) } }, { minItems: 1, maxItems: 100 }),
      },
    }, { minItems: 1, maxItems: 100 }),
  },
};
defs.accept_claim_input = {
  'x-source': '[DSP] components.schemas.accept_claim (note; accept_claim_type); the body is multipart/form-data with an optional accept-claim-document',
  type: 'object',
  additionalProperties: false,
  properties: { note: str(1, 2000), accept_claim_type: { type: 'string', enum: ['REFUND', 'REFUND_WITH_RETURN', 'PARTIAL_REFUND', 'REFUND_WITH_RETURN_SHIPMENT_LABEL'] } },
};
defs.subsequent_action = { 'x-source': '[DSP] components.schemas.subsequent_action', type: 'object', properties: { links: arrayOf(anyObject, { minItems: 1, maxItems: 10 }) } };

const errors = (statuses: number[]): Record<string, JsonSchema> => Object.fromEntries(statuses.map((s) => [String(s), ref('error')]));
const event = (type: string, resource: JsonSchema, resourceStatus?: string[]): JsonSchema => ({
  allOf: [ref('event'), {
    type: 'object',
    properties: { event_type: { const: type }, resource: resourceStatus ? { allOf: [resource, { type: 'object', properties: { status: { enum: resourceStatus } } }] } : resource },
  }],
});

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
