/**
 * Credorax's Source payment gateway (Finaro) as schemas: the parameters the connector sends per
 * operation and the answers it reads, derived by hand from the published descriptions of the protocol
 * (facts only: names, lengths, codes). Every request is a form post of string parameters to the
 * gateway URL; the operation is the `O` parameter; every answer is a form of string parameters.
 *
 * Sources (cited per schema):
 *  [AM]   activemerchant/active_merchant lib/active_merchant/billing/gateways/credorax.rb (commit
 *         02cdd15f487b19147fb978771978937aab0cd331): parameter names (M, O, K, a1, a4, a5, a9, b1-b5, c1,
 *         d1, g2-g4, g6, h3, i2, i8, r2, 3ds_*), operation codes (1 sale, 2 authorization, 3 capture,
 *         4 authorization void, 5 refund, 7 sale void, 9 capture void, 92 3-D Secure completion), the
 *         signature (sorted values, character substitutions, SHA-256 or MD5 with the key appended), the
 *         RESPONSE_MESSAGES of z6; test/unit/gateways/credorax_test.rb (036c0c9abb12a9d5ab59d0478ff77339eb6854ee):
 *         the documented answers (M, O, T, V, a1, a2, a4, a9, z1-z15, K)
 *  [EP]   Credorax's parameter list as its proof-of-concept client names it (EPowerParameter: each
 *         parameter's minimum and maximum length: M 3-8, a1 1-32, a4 1-12, h3 1-16, h8 5-32, g6 16-32,
 *         z1 1-32, z2 1-3, z3 5-256, z4 1-10, z6 1-3, z7 6-32 the scheme's reference, z13 1-32, z15 1-10,
 *         3ds_trxid 36, 3ds_status, 3ds_acsurl, 3ds_acstrxid, 3ds_cavv, 3ds_eci, 3ds_version, 3ds_dstrxid)
 *  [MAG]  Credorax's Magento module (Model/Response/AbstractPayment.php): a challenge is 3ds_status C with
 *         3ds_acsurl, z2 then not 0; 3ds_status Y or A an authenticated payment
 *  [SDK]  steve-nester-uk/credorax-sdk (Credorax's ePower gateway SDK, com.credorax.sdk) tests/BasicOperations.java,
 *         tests/SpecialApplications.java (the minimum fields of each operation; the retrieval O=101 by the
 *         original request id in g4), util/ResultCode.java (z2: 0 executed, 5 declined, 7 redirect issued,
 *         -8 signature malformed, -9 parameter malformed)
 *  [PL]   docs.paylands.com "Finaro (Credorax)": the gateway's negative codes and the sandbox cards
 * Lengths are the [EP] ones. Request schemas are closed to the parameters the connector may send;
 * answers are open.
 */
import type { JsonSchema, ProviderSpec } from '../kit/spec.js';

const s = (min: number, max: number, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', minLength: min, maxLength: max, ...extra });
const digits = (min: number, max: number): JsonSchema => ({ type: 'string', pattern: `^\\d{${min},${max}}$` });
const oneOf = (...values: string[]): JsonSchema => ({ enum: values });

/** What every request carries: the merchant, the operation, the signature and the request id. */
const COMMON: Record<string, JsonSchema> = {
  M: s(1, 32, { pattern: '^[A-Za-z0-9_-]+$', 'x-source': '[AM] M merchant id; [EP] MERCHANT_ID' }),
  O: s(1, 3, { pattern: '^\\d{1,3}$' }),
  K: { type: 'string', pattern: '^[0-9a-f]{64}$', 'x-source': '[AM] sign_request_with_sha256: hex SHA-256' },
  a1: s(1, 32, { pattern: '^[A-Za-z0-9]+$', 'x-source': '[EP] REQUEST_ID, unique per merchant' }),
  h3: s(1, 16, { 'x-source': '[AM] add_submerchant_id; [EP] SUB_MERCHANT_IDENTIFIER' }),
  h8: s(5, 32, { 'x-source': '[EP] SUB_MERCHANT_PHONE_NUMBER' }),
  r2: s(1, 40, { 'x-source': '[AM] add_processor processor_merchant_id; [EP] REQUESTED_PROCESSOR_MID' }),
};
const PAYMENT_D1: JsonSchema = { type: 'string', minLength: 7, maxLength: 15, pattern: '^[0-9.]+$' };
const AMOUNT = { a4: digits(1, 12), a5: { type: 'string', pattern: '^[A-Z]{3}$' } };

const PAYMENT: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['M', 'O', 'K', 'a1', 'a4', 'a5', 'b1', 'b3', 'b4', 'd1'],
  properties: {
    ...COMMON,
    ...AMOUNT,
    a2: oneOf('3'),
    a9: oneOf('2', '5', '8', '9'),
    a14: oneOf('1'),
    b1: digits(8, 19),
    b3: { type: 'string', pattern: '^(0[1-9]|1[0-2])$' },
    b4: digits(2, 2),
    b5: digits(3, 4),
    c1: s(5, 64),
    d1: s(7, 15, { pattern: '^[0-9.]+$' }),
    d5: s(1, 255),
    d6: s(1, 16),
    g6: s(6, 32, { 'x-source': '[AM] add_stored_credential network_transaction_id; [EP] INITIAL_TRANSACTION_ID' }),
    i2: s(1, 39),
    i8: s(10, 128, { pattern: '^[^:]*:[^:]*:[^:]*$', 'x-source': '[AM] build_i8 eci:cavv:xid' }),
    '3ds_version': s(1, 20),
    '3ds_dstrxid': s(1, 36),
    '3ds_initiate': oneOf('01'),
    '3ds_redirect_url': s(1, 2048, { format: 'uri' }),
    '3ds_channel': oneOf('02'),
    '3ds_transtype': oneOf('01'),
    '3ds_challengewindowsize': oneOf('01', '02', '03', '04', '05'),
    '3ds_purchasedate': digits(14, 14),
    '3ds_browseracceptheader': s(0, 2048),
    '3ds_browserjavaenabled': oneOf('true', 'false'),
    '3ds_browserjavascriptenabled': oneOf('true', 'false'),
    '3ds_browsercolordepth': digits(1, 2),
    '3ds_browserscreenheight': digits(1, 6),
    '3ds_browserscreenwidth': digits(1, 6),
    '3ds_browsertz': { type: 'string', pattern: '^-?\\d{1,4}$' },
  },
  'x-source': '[AM] purchase/authorize, add_invoice, add_payment_method, add_stored_credential, add_3d_secure; [EP] lengths',
};

const REFERRAL: Record<string, JsonSchema> = {
  g2: s(1, 32, { 'x-source': '[EP] REFERRAL_RESPONSE_ID: the earlier z1' }),
  g3: s(1, 10, { 'x-source': '[EP] REFERRAL_AUTHORIZATION_CODE: the earlier z4' }),
  g4: s(1, 32, { 'x-source': '[EP] REFERRAL_REQUEST_ID: the earlier a1' }),
};
const followUp = (amount: boolean): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: ['M', 'O', 'K', 'a1', 'a4', 'd1', 'g2', 'g4', ...(amount ? ['a5'] : [])],
  properties: { ...COMMON, ...(amount ? AMOUNT : { a4: AMOUNT.a4 }), d1: PAYMENT_D1, ...REFERRAL },
  'x-source': '[AM] capture/void/refund, add_reference; [SDK] BasicOperations getReferralRequest (M, O, a1, a4, d1, g2, g3, g4)',
});

/** An answer: the result code always; the rest as the operation gives it [AM] test fixtures, [EP]. */
const ANSWER: JsonSchema = {
  type: 'object',
  required: ['M', 'O', 'a1', 'z2', 'K'],
  properties: {
    M: { type: 'string' },
    O: { type: 'string', pattern: '^\\d{1,3}$' },
    T: { type: 'string' },
    a1: s(1, 32),
    a4: { type: 'string', pattern: '^(\\d{1,12}|-)$' },
    z1: s(1, 32),
    z2: { type: 'string', pattern: '^-?\\d{1,3}$' },
    z3: s(1, 256),
    z4: s(1, 10),
    z6: s(1, 3),
    z7: s(6, 32),
    z13: s(1, 32),
    z15: { type: 'string', pattern: '^\\d{1,10}$' },
    // SHA-256 (64 hex), or MD5 (32) for accounts that still sign with it [AM]
    K: { type: 'string', pattern: '^[0-9a-f]{32}([0-9a-f]{32})?$' },
    '3ds_status': oneOf('Y', 'A', 'N', 'U', 'R', 'C', 'I'),
    '3ds_acsurl': s(1, 2048),
    '3ds_trxid': s(36, 36),
    '3ds_acstrxid': s(0, 36),
    '3ds_cavv': s(1, 40),
    '3ds_eci': s(2, 2),
    '3ds_version': s(1, 20),
  },
  'x-source': '[AM] credorax_test.rb answers; [EP] response fields; [MAG] 3-D Secure answers',
};

export const CREDORAX_SPEC: ProviderSpec = {
  provider: 'Credorax',
  sources: [
    'activemerchant/active_merchant lib/active_merchant/billing/gateways/credorax.rb 02cdd15f487b19147fb978771978937aab0cd331',
    'activemerchant/active_merchant test/unit/gateways/credorax_test.rb 036c0c9abb12a9d5ab59d0478ff77339eb6854ee',
    "Credorax's proof-of-concept client: EPowerParameter (parameter names and lengths)",
    'steve-nester-uk/credorax-sdk (com.credorax.sdk): tests/BasicOperations.java, tests/SpecialApplications.java, util/ResultCode.java',
    "Credorax's Magento module Model/Response/AbstractPayment.php (3-D Secure answers)",
    'docs.paylands.com/en/docs/integrations/payment-service-credorax (gateway error codes, sandbox cards)',
  ],
  operations: [
    { id: 'sale', source: 'O=1 Sale', request: PAYMENT, responses: { '200': ANSWER } },
    { id: 'auth', source: 'O=2 Authorization (a9=5: card verification)', request: PAYMENT, responses: { '200': ANSWER } },
    { id: 'capture', source: 'O=3 Capture', request: followUp(true), responses: { '200': ANSWER } },
    { id: 'authVoid', source: 'O=4 Authorization void', request: followUp(false), responses: { '200': ANSWER } },
    { id: 'refund', source: 'O=5 Referral credit (refund)', request: followUp(true), responses: { '200': ANSWER } },
    {
      id: 'threedsCompletion',
      source: 'O=92 3-D Secure completion',
      request: { type: 'object', additionalProperties: false, required: ['M', 'O', 'K', 'a1', 'g2', '3ds_trxid'], properties: { ...COMMON, g2: REFERRAL.g2, '3ds_trxid': s(36, 36) }, 'x-source': '[AM] ACTIONS threeds_completion 92; [EP] 3ds_trxid' },
      responses: { '200': ANSWER },
    },
    {
      id: 'retrieval',
      source: 'O=101 Retrieval of a transaction by its request id (g4) [SDK]',
      request: { type: 'object', additionalProperties: false, required: ['M', 'O', 'K', 'a1', 'd1', 'g4'], properties: { ...COMMON, d1: PAYMENT_D1, g4: REFERRAL.g4 }, 'x-source': '[SDK] SpecialApplications getRetrievalOperationRequest' },
      responses: { '200': ANSWER },
    },
  ],
};

/** The spec's operation id of an operation code. */
export const OPERATION_IDS: Record<string, string> = { '1': 'sale', '2': 'auth', '3': 'capture', '4': 'authVoid', '5': 'refund', '92': 'threedsCompletion', '101': 'retrieval' };
