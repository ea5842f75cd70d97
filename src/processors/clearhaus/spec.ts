/**
 * Clearhaus's Gateway API as its public reference describes it, for the requests the connector sends and
 * the answers it reads: JSON Schemas written by hand from the sources below (facts only: names, formats,
 * enums, which parameters go together). A request is checked as its decoded form parameters, named as
 * sent (`card[pan]`). The simulator checks every request it receives and every answer it gives against
 * them (`SpecLedger`); unit tests run the mapping's requests and the reference's examples through them.
 *
 * Sources (each schema says which in `x-source`):
 *  - [GW] Clearhaus Gateway API documentation, docs.gateway.clearhaus.com (built from the public
 *    repository clearhaus/gateway-api-docs, website/content/gateway): "API endpoint", "Authentication",
 *    "Response format", "Signing requests", "RSA signature", "Authorizations" and its methods "card" and
 *    "moto", "Authentication: [3dsecure][v2]", "Captures", "Capture refunds", "Voids", "Account",
 *    "Transaction status codes", "Test card numbers", and the examples ("Reserve money", "Withdraw
 *    money", "Refund to cardholder", "Repeatedly reserve money", "Secure transactions", "Fetch account
 *    information").
 *    Sections by address: https://docs.gateway.clearhaus.com/#api-endpoint, #authentication,
 *    #response-format, #accounts_and_keys, #signing-requests, #rsa-signature, #authorizations,
 *    #method-card, #method-moto, #authentication-3dsecure-v2, #scheme-reference-to-series, #captures,
 *    #capture_refunds, #voids, #account, #transaction-status-codes, #status-message,
 *    #merchant-blocked-by-cardholder-status, #test-card-numbers, #changes; the sources:
 *    https://github.com/clearhaus/gateway-api-docs/tree/master/website/content/gateway.
 *  - [CH] The repository's history: "Remove GET endpoints" (2019-08-27: transactions cannot be read back),
 *    https://github.com/clearhaus/gateway-api-docs/commit/31cbe9ac744474a500295f7e7aff4d092d271353;
 *    earlier, "Remove section about pagination" (2016-05-19: "we are removing GET support from all
 *    collection endpoints"), https://github.com/clearhaus/gateway-api-docs/commit/5a9a39c6958b76a3731c4def3aa8ea7af13ecc93.
 *  - [SDK] Clearhaus's C# library https://github.com/clearhaus/payment-api-csharp (Account.cs: the API key as Basic username,
 *    the signing API key and RSA private key, the endpoints) and the answers Clearhaus-integrating
 *    libraries read (payfunc/service-clearhaus api/Authorization/Response.ts: `amount`, `currency`, `csc`,
 *    `3dsecure`, `_links` of an authorization).
 *
 * Requests are closed (`additionalProperties: false`: the parameters the connector may send, each in the
 * reference); answers are open (Clearhaus returns more than the connector reads), but what they require
 * and the formats they name are the reference's.
 */
import type { JsonSchema, ProviderSpec } from '../kit/spec.js';

const str = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
const pat = (pattern: string): JsonSchema => str({ pattern });
const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });
const closed = (required: string[], properties: Record<string, JsonSchema>, source: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'object', required, additionalProperties: false, properties, 'x-source': source, ...extra });
const open = (required: string[], properties: Record<string, JsonSchema>, source: string): JsonSchema => ({ type: 'object', required, properties, 'x-source': source });
const has = (...names: string[]): JsonSchema => ({ required: names });

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const PRINTABLE = (min: number, max: number) => `^[\\x20-\\x7E]{${min},${max}}$`;

/** The status codes of [GW] "Transaction status codes". */
export const STATUS_CODE_VALUES = [20000, 40000, 40110, 40111, 40120, 40130, 40135, 40140, 40150, 40200, 40300, 40310, 40400, 40410, 40411, 40412, 40413, 40414, 40415, 40416, 40420, 50000];

const raw = (p: string): Record<string, JsonSchema> => ({
  [`${p}[3dsecure][v2][raw][eci]`]: pat('^[0-9]{2}$'),
  [`${p}[3dsecure][v2][raw][av]`]: pat('^[A-Za-z0-9+/]{27}[A-Za-z0-9+/=]$'),
  [`${p}[3dsecure][v2][raw][trans_status]`]: pat('^[A-Z]$'),
  [`${p}[3dsecure][v2][raw][message_version]`]: pat('^2[.][0-9][.][0-9]$'),
  [`${p}[3dsecure][v2][raw][message_type]`]: { enum: ['ARes', 'RReq'] },
  [`${p}[3dsecure][v2][raw][authentication_type]`]: pat('^[0-9]{2}$'),
  [`${p}[3dsecure][v2][raw][ds_trans_id]`]: pat(UUID),
  [`${p}[3dsecure][v2][ares]`]: str({ minLength: 2 }),
  [`${p}[3dsecure][v2][rreq]`]: str({ minLength: 2 }),
});

/** POST /authorizations: [GW] "Authorizations", "Method: card", "Method: moto", "Authentication: [3dsecure][v2]". */
const AUTHORIZATION_REQUEST = closed(['amount', 'currency'], {
  amount: pat('^(0|[1-9][0-9]{0,8})$'),
  currency: pat('^[A-Z]{3}$'),
  credential_on_file: { enum: ['store', 'use'] },
  initiator: { enum: ['cardholder', 'merchant'] },
  ip: pat('^[0-9.a-fA-F:]{3,45}$'),
  reference: pat(PRINTABLE(1, 30)),
  'series[type]': { enum: ['recurring', 'unscheduled'] },
  'series[previous][id]': pat(UUID),
  sca_exemption: { enum: ['low_value_payment', 'secure_corporate_payment', 'transaction_risk_analysis'] },
  text_on_statement: pat(PRINTABLE(2, 22)),
  'card[pan]': pat('^[0-9]{12,19}$'),
  'card[expire_month]': pat('^[0-9]{2}$'),
  'card[expire_year]': pat('^20[0-9]{2}$'),
  'card[csc]': pat('^[0-9]{3}$'),
  ...raw('card'),
  'moto[pan]': pat('^[0-9]{12,19}$'),
  'moto[expire_month]': pat('^[0-9]{2}$'),
  'moto[expire_year]': pat('^[0-9]{4}$'),
}, '[GW] Authorizations; Method: card; Method: moto; Authentication: [3dsecure][v2]', {
  allOf: [
    // exactly one payment method, whole
    { oneOf: [has('card[pan]', 'card[expire_month]', 'card[expire_year]'), has('moto[pan]', 'moto[expire_month]', 'moto[expire_year]')] },
    { not: { anyOf: [has('card[pan]', 'moto[pan]')] } },
    // series[type] is mutually exclusive with series[previous] and sca_exemption
    { not: { anyOf: [has('series[type]', 'series[previous][id]'), has('series[type]', 'sca_exemption'), has('series[previous][id]', 'sca_exemption')] } },
    // a subsequent-in-series cannot include card[csc] or an RReq
    { not: { anyOf: [has('series[previous][id]', 'card[csc]'), has('series[previous][id]', 'card[3dsecure][v2][rreq]')] } },
    // one 3-D Secure authentication method of ares, rreq and raw
    { not: { anyOf: [has('card[3dsecure][v2][ares]', 'card[3dsecure][v2][rreq]'), has('card[3dsecure][v2][ares]', 'card[3dsecure][v2][raw][trans_status]'), has('card[3dsecure][v2][rreq]', 'card[3dsecure][v2][raw][trans_status]')] } },
    // raw: trans_status, message_version and message_type are not optional
    { if: { anyOf: [has('card[3dsecure][v2][raw][eci]'), has('card[3dsecure][v2][raw][av]'), has('card[3dsecure][v2][raw][ds_trans_id]'), has('card[3dsecure][v2][raw][message_type]')] }, then: has('card[3dsecure][v2][raw][trans_status]', 'card[3dsecure][v2][raw][message_version]', 'card[3dsecure][v2][raw][message_type]') },
    // moto: neither series[] nor credential_on_file; initiator cannot be merchant
    { if: has('moto[pan]'), then: { not: { anyOf: [has('series[type]'), has('series[previous][id]'), has('credential_on_file'), { required: ['initiator'], properties: { initiator: { const: 'merchant' } } }] } } },
    // credential_on_file=store is invalid when the merchant initiates
    { not: { required: ['initiator', 'credential_on_file'], properties: { initiator: { const: 'merchant' }, credential_on_file: { const: 'store' } } } },
  ],
});

const STATUS = open(['code'], { code: { type: 'integer', enum: STATUS_CODE_VALUES }, message: str() }, '[GW] Transaction status codes; Status messages');
const LINK = open(['href'], { href: str() }, '[GW] Response format (HAL)');

const defs: Record<string, JsonSchema> = {
  Status: STATUS,
  Link: LINK,
  // an authorization: [GW] "Reserve money", "Repeatedly reserve money", "Secure transactions" answers; [SDK]
  Authorization: open(['id', 'status', 'processed_at'], {
    id: pat(UUID), status: ref('Status'), processed_at: str({ format: 'date-time' }),
    amount: { type: 'integer', minimum: 0 }, currency: pat('^[A-Z]{3}$'), text_on_statement: str(),
    csc: open(['present', 'matches'], { present: { type: 'boolean' }, matches: { type: 'boolean' } }, '[GW] Reserve money'),
    '3dsecure': open([], { version: str(), status: str() }, '[GW] Secure transactions'),
    series: open(['type'], { type: { enum: ['recurring', 'unscheduled'] }, tid: str(), tlid: str(), economically_related_tlid: str() }, '[GW] Repeatedly reserve money'),
    sca: open([], { provided: { type: 'boolean' }, necessary: { type: 'boolean' } }, '[GW] Changes: the sca dictionary'),
    liable_for_fraud_disputes: { enum: ['merchant', 'issuer'] },
    _links: { type: 'object', additionalProperties: ref('Link') },
  }, '[GW] authorization answers; [SDK] Response.ts'),
  // a capture or refund: [GW] "Withdraw money", "Refund to cardholder" answers
  Movement: open(['id', 'status', 'processed_at'], {
    id: pat(UUID), status: ref('Status'), processed_at: str({ format: 'date-time' }), amount: { type: 'integer', minimum: 1 },
    _links: { type: 'object', additionalProperties: ref('Link') },
  }, '[GW] Withdraw money; Refund to cardholder'),
  // a void: [GW] "Voids" (a transaction: id, status, processed_at)
  Void: open(['id', 'status', 'processed_at'], { id: pat(UUID), status: ref('Status'), processed_at: str({ format: 'date-time' }), _links: { type: 'object', additionalProperties: ref('Link') } }, '[GW] Voids'),
  // a request refused with its status ([GW] Status messages: 40000 "parameter 'amount' is required")
  Refused: open(['status'], { status: ref('Status') }, '[GW] Status messages'),
};

const MOVEMENT_REQUEST = (source: string) => closed([], {
  amount: pat('^[1-9][0-9]{0,8}$'),
  text_on_statement: pat(PRINTABLE(2, 22)),
}, source);

export const CLEARHAUS_SPEC: ProviderSpec = {
  provider: 'Clearhaus',
  sources: [
    'Clearhaus Gateway API documentation, docs.gateway.clearhaus.com (repository clearhaus/gateway-api-docs, commit 63da699, 2026)',
    'clearhaus/gateway-api-docs history: "Remove GET endpoints" (31cbe9a, 2019-08-27)',
    'Clearhaus C# library clearhaus/payment-api-csharp (Gateway/src/Account.cs); payfunc/service-clearhaus (api/Authorization/Response.ts)',
  ],
  defs,
  operations: [
    { id: 'authorize', source: '[GW] POST /authorizations', request: AUTHORIZATION_REQUEST, responses: { '201': ref('Authorization'), '400': ref('Refused') } },
    { id: 'capture', source: '[GW] POST /authorizations/:id/captures', request: MOVEMENT_REQUEST('[GW] Captures'), responses: { '201': ref('Movement'), '400': ref('Refused'), '404': open([], {}, '[GW] Response format: 404 Not Found') } },
    { id: 'refund', source: '[GW] POST /authorizations/:id/refunds', request: MOVEMENT_REQUEST('[GW] Capture refunds'), responses: { '201': ref('Movement'), '400': ref('Refused'), '404': open([], {}, '[GW] Response format: 404 Not Found') } },
    { id: 'void', source: '[GW] POST /authorizations/:id/voids', request: closed([], {}, '[GW] Voids: no parameters'), responses: { '201': ref('Void'), '400': ref('Refused'), '404': open([], {}, '[GW] Response format: 404 Not Found') } },
    {
      id: 'account', source: '[GW] GET /account',
      responses: {
        '200': open(['merchant_id'], {
          merchant_id: pat('^[0-9]{15}$'), descriptor: pat(PRINTABLE(0, 22)), name: pat(PRINTABLE(0, 20)), country: pat('^[A-Z]{2}$'), currency: pat('^[A-Z]{3}$'),
          mcc: pat('^[0-9]{4}$'), acquirer: { type: 'object' }, transaction_rules: pat('^[\\x20-\\x7E]*$'),
        }, '[GW] Account; Fetch account information'),
      },
    },
  ],
};
