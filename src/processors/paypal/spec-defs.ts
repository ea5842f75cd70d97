/** PayPal's shared components, requests and answers as schemas ([ORD], [PAY], [WH], [SDK]; spec.ts names the sources). */
import type { JsonSchema } from '../kit/spec.js';
import { PAYPAL_CURRENCY_DECIMALS } from './currencies.js';
import { anyObject, arrayOf, CAPTURE_REASONS, CARD_BRANDS, ISO_DATE_TIME, ref, RESPONSE_CODES, str, ZERO_DECIMALS } from './spec-common.js';

export const SHARED_DEFS: Record<string, JsonSchema> = {
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
