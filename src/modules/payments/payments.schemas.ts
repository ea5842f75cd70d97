import {
  AMOUNT_MAX, Amount, Bool, CurrencyCode, ContractDate, ExtId, Int, Maybe, Nullable, OFFSET_MAX, OptionalIp, OptionalText, OptionalUuid, Type, Uuid, envelope, signedBody,
} from '../../platform/http/schemas.js';
import { SourceSchema as Source } from '../sources/index.js';
import * as EX from './payments.examples.js';
import { EXPIRES_IN_MAX, EXPIRES_IN_MIN, LIST_LIMIT_MAX, OPERATIVES } from './payments.domain.js';
import { ORDER_STATUSES, TX_STATUSES } from './order-states.js';

const Opt = <T extends Parameters<typeof Nullable>[0]>(t: T) => Maybe(t);
const CustomerExtId = ExtId({ description: 'merchant external id of the customer; integers are kept as strings' });

/** The data to pay a voucher APM (B13 `extra_data.voucher`, and the transaction's source while it waits). */
export const ApmVoucherSchema = Type.Object(
  {
    format: Type.String({ description: 'ENTITY_REFERENCE, REFERENCE, BARCODE, QR, CLABE or BANK_TRANSFER' }),
    entity: Type.Optional(Type.String({ description: 'Multibanco entity' })),
    reference: Type.Optional(Type.String({ description: 'the payment reference to quote' })),
    barcode: Type.Optional(Type.String({ description: 'digits of the barcode (Interleaved 2 of 5)' })),
    qr_code: Type.Optional(Type.String({ description: 'payload of the QR code (EMV, PIX "copia e cola")' })),
    clabe: Type.Optional(Type.String({ description: 'SPEI: the 18-digit CLABE to transfer to' })),
    iban: Type.Optional(Type.String()),
    bic: Type.Optional(Type.String()),
    beneficiary: Type.Optional(Type.String()),
    concept: Type.Optional(Type.String({ description: 'bank transfer: the concept to quote (the order description)' })),
    amount: Type.Integer({ description: 'minor units' }),
    currency: Type.String({ description: 'ISO 4217 alpha-3' }),
    expires_at: Type.String({ description: 'until when it can be paid (ISO 8601 UTC)' }),
  },
  { title: 'ApmVoucher', description: 'What the customer needs to pay a voucher APM', examples: [EX.VOUCHER_EXAMPLE] },
);

/** An alternative payment method as a transaction's source (Bizum: the masked phone; APMs of B13 and the pages). */
const ApmSource = Type.Object(
  {
    object: Type.String({ examples: ['BIZUM'] }),
    type: Type.String({ examples: ['bizum'] }),
    apm: Type.Optional(Type.String({ description: 'the APM value' })),
    kind: Type.Optional(Type.String({ description: 'redirect, push or voucher' })),
    phone: Type.Optional(Type.String({ description: 'masked phone number (push APMs)', examples: ['******000'] })),
    redirect_url: Type.Optional(Type.String({ description: 'redirect APMs: where the customer approves' })),
    voucher: Type.Optional(ApmVoucherSchema),
    expires_at: Type.Optional(Type.String({ description: 'until when the customer can complete it (ISO 8601 UTC)' })),
    flow: Type.Optional(Type.String({ description: 'wallet payments (object GOOGLE_PAY or APPLE_PAY, type wallet): APP or WEB, the `flow` of the payment' })),
  },
  { title: 'ApmSource', description: 'An alternative payment method or a wallet used by a transaction (a wallet payment shows the wallet, never card data)', examples: [{ object: 'BIZUM', type: 'bizum', phone: '******000' }] },
);

const Antifraud = Type.Object(
  {
    evaluation: Type.String({ description: 'ACCEPT, CHALLENGE or REJECT' }),
    score: Type.Number(),
    risk_score: Type.Number(),
    fraud_score: Type.Number(),
    triggered_rules: Type.Array(Type.String()),
  },
  { title: 'Antifraud', description: 'The antifraud evaluation of a payment', examples: [{ evaluation: 'ACCEPT', score: 12, risk_score: 10, fraud_score: 2, triggered_rules: [] }] },
);

const Device = Type.Object(
  { fingerprint: Type.String(), user_agent: Type.String() },
  { title: 'Device', description: 'The customer device of a payment', examples: [{ fingerprint: 'a1b2c3d4e5', user_agent: 'Mozilla/5.0 (X11; Linux x86_64)' }] },
);

const ThreeDSData = Type.Object(
  {
    version: Type.String({ description: 'the EMV 3-D Secure protocol version (2.2.0 for the gateway\'s own flows, exemptions and wallet cryptograms; what an external MPI or the acquirer reported otherwise)', examples: ['2.2.0'] }),
    flow: Type.String({ description: 'CHALLENGE or FRICTIONLESS (our 3-D Secure), EXTERNAL (an external MPI\'s result), EXEMPTED, or WALLET (authenticated by a wallet\'s cryptogram: Google Pay CRYPTOGRAM_3DS, Apple Pay)' }),
    sca_requested: Type.Boolean(),
    status: Type.String({ description: 'PENDING while the challenge is open, then the 3DS transStatus (Y, N, U, A, R)' }),
    eci: Nullable(Type.String()),
    exemption: Nullable(Type.String()),
  },
  { title: 'ThreeDSData', description: 'The 3-D Secure authentication of the order', examples: [{ version: '2.2.0', flow: 'CHALLENGE', sca_requested: true, status: 'Y', eci: '05', exemption: null }] },
);

/** The dynamic currency conversion offered on the hosted page and the cardholder's choice. */
export const DccSchema = Type.Object(
  {
    offered: Type.Boolean({ description: 'a conversion was offered to the cardholder' }),
    accepted: Type.Boolean({ description: 'true: the cardholder chose to pay in their card\'s currency (`cardholder_amount`); false: in the order\'s currency' }),
    cardholder_currency: Type.String({ description: 'ISO 4217 numeric code of the card\'s currency (like the order\'s `currency`)', examples: ['840'] }),
    cardholder_amount: Type.Integer({ description: 'the order\'s amount in the card\'s currency, minor units' }),
    rate: Type.String({ description: 'the applied exchange rate, margin included: 1 unit of the order\'s currency in the card\'s currency (decimal string)', examples: ['1.122975'] }),
    markup: Type.String({ description: 'the margin over the reference rate, in percent (decimal string)', examples: ['3.50'] }),
    source: Type.String({ description: 'who quoted the rate (SANDBOX: the sandbox\'s fixed table)' }),
    timestamp: Type.String({ description: 'when the cardholder chose (ISO 8601 UTC)' }),
  },
  { title: 'Dcc', description: 'Dynamic currency conversion: the offer made to the cardholder on the hosted page and their choice. The order is always credited in its own currency', examples: [EX.DCC_EXAMPLE] },
);

/** Where a card-present transaction's card was read (api.md Transaction `pos`). */
const TransactionPos = Type.Object(
  {
    device_id: Uuid,
    tid: Type.String({ description: 'the device\'s TID' }),
    mid: Type.String({ description: 'the device\'s MID' }),
    stan: Nullable(Type.String({ description: 'the terminal\'s trace number (card-present API); null for a payment sent to the device' })),
    rrn: Nullable(Type.String({ description: '12 digits assigned by the gateway (card-present API); null for a payment sent to the device' })),
    card_reading_method: Nullable(Type.String({ description: 'KEY_ENTRY, BAR_CODE, MAGNETIC_STRIPE, ICC or NFC; null until the card is read' })),
    entry_mode: Nullable(Type.String({ description: 'POS entry mode (ISO 8583 field 22): 01 key entry, 03 bar code, 05 chip, 07 contactless, 90 stripe' })),
  },
  { title: 'TransactionPos', description: 'The physical device that read the card of a card-present transaction', examples: [EX.POS_EXAMPLE] },
);

/** What a card-present transaction asked of the terminal (api.md Transaction `payment_data`). */
const PaymentData = Type.Object(
  { terminal_action: Nullable(Type.String({ enum: ['REQUEST_PIN', 'SWITCH_INTERFACE'], description: 'REQUEST_PIN: send the payment again with the PIN; SWITCH_INTERFACE: again with the card inserted (chip)' })) },
  { title: 'PaymentData', description: 'Strong customer authentication the issuer asked the terminal for', examples: [{ terminal_action: 'REQUEST_PIN' }] },
);

/** How routing chose a transaction's service (ours, not in the contract). */
const TxRouting = Type.Object(
  {
    service_uuid: Uuid,
    service: Type.String({ description: 'the type of the service that processed the attempt (its processor)' }),
    rule: Nullable(Type.String({ description: 'the routing rule that chose the service; null when no rule matched (the service\'s own terminal)' })),
    reason: Type.String({ description: 'why this service: the rule, a volume split, a fallback after a retriable decline, a service skipped while its circuit is open' }),
    attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt of the payment, 2 for the first fallback, and so on' }),
  },
  { title: 'TransactionRouting', description: 'Present on payment attempts a routing profile chose (docs/routing.md)', examples: [{ service_uuid: '6f1c7f5e-2b7a-4c59-9a3e-0c2f9b6a1d11', service: 'CHECKOUT', rule: 'visa-eu', reason: 'fallback after DENIED on REDSYSPSD2', attempt: 2 }] },
);

export const Transaction = Type.Object(
  {
    uuid: Uuid,
    created: ContractDate,
    created_from_client_timezone: ContractDate,
    operative: Type.String({ examples: ['AUTHORIZATION', 'DEFERRED', 'CONFIRMATION', 'CANCELLATION', 'REFUND'] }),
    amount: Type.Integer(),
    authorization: Type.String({ description: 'authorization code; empty while pending' }),
    processor_id: Nullable(Type.String()),
    status: Type.String({ description: TX_STATUSES.join(', ') }),
    error: Type.String({ examples: ['NONE', 'DENIED'] }),
    source: Nullable(Type.Union([Source, ApmSource], { description: 'the payment method used: a stored Source, or an alternative payment method' })),
    antifraud: Nullable(Antifraud),
    device: Nullable(Device),
    error_details: Nullable(Type.String()),
    dcc: Type.Union([DccSchema, Type.Null()], { description: 'payments: the currency conversion offered with this attempt and the cardholder\'s choice; null when none was offered' }),
    pos: Type.Optional(TransactionPos),
    payment_data: Type.Optional(PaymentData),
    routing: Type.Optional(TxRouting),
  },
  { title: 'Transaction', description: 'One operation on an order: a payment attempt, confirmation, cancellation or refund', examples: [EX.TRANSACTION_EXAMPLE] },
);

export const Order = Type.Object(
  {
    uuid: Uuid,
    created: ContractDate,
    created_from_client_timezone: ContractDate,
    amount: Type.Integer(),
    currency: Type.String({ description: 'ISO 4217 numeric code', examples: ['978'] }),
    paid: Type.Boolean(),
    status: Type.String({ description: ORDER_STATUSES.join(', ') }),
    safe: Type.Boolean(),
    refunded: Type.Integer(),
    additional: Nullable(Type.String()),
    service: Type.String({ description: 'service type code' }),
    service_uuid: Uuid,
    customer: Nullable(Type.String()),
    cof_txnid: Nullable(Type.String()),
    transactions: Type.Array(Transaction),
    token: Nullable(Type.String()),
    ip: Nullable(Type.String()),
    urls: Type.Object({ payment_card: Type.String(), bizum: Type.String(), '3ds_tokenized': Type.String() }),
    reference: Nullable(Type.String()),
    dynamic_descriptor: Nullable(Type.String()),
    threeds_data: Nullable(ThreeDSData),
    dcc: Type.Union([DccSchema, Type.Null()], { description: 'the currency conversion offered with the latest payment attempt and the cardholder\'s choice; null when none was offered' }),
    disputes: Type.Optional(Type.Object({
      disputed: Type.Integer({ description: 'taken by open disputes (needing a response or under review), not decided yet' }),
      lost: Type.Integer({ description: 'lost (LOST, ACCEPTED, EXPIRED): money out' }),
      won: Type.Integer({ description: 'won back' }),
    }, {
      title: 'OrderDisputes',
      description: 'ours, beyond the contract: present once the order has had a dispute (absent otherwise), what its disputes mean for it in minor units of its currency; a retrieval request counts nowhere (docs/disputes.md)',
      examples: [{ disputed: 0, lost: 1050, won: 0 }],
    })),
  },
  { title: 'Order', description: 'A payment order and its transactions', examples: [EX.ORDER_EXAMPLE] },
);

const Client = Type.Object({ uuid: Uuid }, { title: 'Client', description: 'The merchant the order belongs to', examples: [EX.CLIENT_EXAMPLE] });
export const orderFields = {
  order: Order,
  client: Client,
  validation_hash: Type.String({
    description: 'Lowercase hex SHA-256 of the serialized `{"order":…,"client":…}` (plus `,"extra_data":…` when present) followed by your signature: recompute it to check the answer or a notification is genuine',
    examples: [EX.VALIDATION_HASH_EXAMPLE],
  }),
};
export const OrderResponse = envelope(orderFields, { title: 'OrderResponse', description: 'An order with its client and validation_hash' });

const ExtraData = Type.Object(
  {
    checkout: Opt(Type.Object({
      uuid: OptionalText(64, { description: 'a checkout of the merchant (POST /checkout); the fields given here override it' }),
      payment_methods: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 32 })),
      default_payment_method: OptionalText(32),
      customization: Opt(Type.Object({
        theme_type: Type.Optional(Type.Unknown({ description: '`dark`, or light' })),
        font: Type.Optional(Type.Unknown({ description: 'a system font stack name' })),
        description: Type.Optional(Type.Unknown({ description: 'text shown on the pages instead of the order description' })),
        payment_details: Type.Optional(Type.Unknown({ description: '`{order_number}` shown on the pages' })),
      }, { description: 'the look of the checkout and payment pages' })),
    })),
    cof: Opt(Type.Object({ reason: OptionalText(64) })),
  },
  {
    title: 'ExtraData',
    description: 'Checkout and card-on-file data of an order; `checkout` and `cof` are echoed in the answer',
    examples: [{ checkout: { payment_methods: ['PAYMENT_CARD', 'BIZUM'], default_payment_method: 'PAYMENT_CARD', customization: { theme_type: 'dark', description: 'Your order at Shop' } }, cof: null }],
  },
);

export const CreateOrderResponse = envelope(
  { ...orderFields, extra_data: Type.Optional(Nullable(ExtraData)) },
  { title: 'CreateOrderResponse', description: 'The new order (not charged yet) with its payment page URLs' },
);
/** 402: the processor refused a confirmation, cancellation or refund; the order holds the REFUSED transaction. */
export const FailedOrderResponse = envelope(
  {
    details: Type.String({ description: 'why the processor refused', examples: ['The processor refused the refund: DENIED'] }),
    request_id: Type.String({ description: 'the id of this request (also the `X-Request-Id` header), as on every error answer', examples: ['3f0c9a52-6d7e-4b8a-9c1d-2e3f4a5b6c7d'] }),
    ...orderFields,
  },
  { title: 'FailedOrderResponse', description: 'The processor refused the operation; the order holds the REFUSED transaction' },
);
export const RedirectResponse = envelope(
  {
    details: Type.String({ description: 'the URL the customer must be sent to (3-D Secure)', examples: ['http://127.0.0.1:8080/v1/sandbox/payment/tokenized/6f1c2b9e8d7a4c3b2a1f0e9d8c7b6a5f4e3d2c1b'] }),
    url: Type.String({ description: 'the same URL', examples: ['http://127.0.0.1:8080/v1/sandbox/payment/tokenized/6f1c2b9e8d7a4c3b2a1f0e9d8c7b6a5f4e3d2c1b'] }),
    ...orderFields,
  },
  {
    title: 'RedirectResponse',
    description: 'HTTP 303 "See Other": the customer must authenticate (3-D Secure) at the URL in `details` and `url`; the order follows as on a 200. There is no Location header, so clients that follow redirects keep the JSON',
  },
);

export const orderProps = {
  amount: Amount({ description: `minor units of the currency (100 = 1 EUR), at most ${AMOUNT_MAX}` }),
  operative: Type.Enum([...OPERATIVES]),
  secure: Type.Optional(Bool({ description: 'true when 3D Secure is required; default false', default: false })),
  customer_ext_id: Opt(CustomerExtId),
  service: OptionalUuid({ description: 'service uuid; empty or absent: the merchant\'s first enabled service in `currency`' }),
  currency: Opt(CurrencyCode({ description: 'ISO 4217 currency, alpha-3 (EUR) or numeric (978); required when service is omitted' })),
  description: Type.String({ maxLength: 1000 }),
  additional: OptionalText(2000),
  url_post: OptionalText(2000),
  url_ok: OptionalText(2000),
  url_ko: OptionalText(2000),
  template_uuid: OptionalText(64),
  dcc_template_uuid: OptionalText(64),
  reference: Opt(Type.String({ minLength: 1, maxLength: 255 })),
  dynamic_descriptor: OptionalText(100),
  expires_in: Opt(Int({ minimum: EXPIRES_IN_MIN, maximum: EXPIRES_IN_MAX, description: 'seconds; default 600' })),
  extra_data: Opt(ExtraData),
};

export const CreateOrderBody = signedBody({
  ...orderProps,
  source_uuid: OptionalUuid(),
  card_uuid: OptionalUuid(),
  save_card: Opt(Bool({ description: 'default true; consent only' })),
  customer_ip: OptionalIp(),
}, { title: 'CreateOrderRequest', examples: [EX.CREATE_ORDER_REQUEST] });

const cardProps = {
  card_holder: Type.String({ minLength: 1, maxLength: 200 }),
  card_pan: Type.String({ minLength: 1, maxLength: 40 }),
  card_expiry_month: Type.Union([Type.String({ maxLength: 2 }), Type.Integer({ minimum: 0, maximum: 99 })]),
  card_expiry_year: Type.Union([Type.String({ maxLength: 4 }), Type.Integer({ minimum: 0, maximum: 9999 })]),
  card_cvv: Opt(Type.String({ pattern: '^[0-9]{3,4}$' })),
  card_additional: OptionalText(500),
};

export const SingleStepBody = signedBody({
  ...orderProps,
  customer_ext_id: CustomerExtId,
  service: Uuid,
  ...cardProps,
  customer_ip: OptionalIp(),
  threeds_data: Opt(Type.Object({
    version: Type.Optional(Type.Union([Type.Number(), Type.String()])),
    trans_status: Type.String(),
    eci: Type.Optional(Type.Union([Type.Number(), Type.String()])),
    cavv: Type.Optional(Type.String()),
    ds_trans_id: Type.Optional(Type.String()),
  }, { description: 'result of an external MPI/3DS' })),
  dpan_data: Opt(Type.Object({ cryptogram: Type.String({ minLength: 1 }), eci: Opt(Type.Union([Type.Number(), Type.String()])) })),
}, { title: 'SingleStepRequest', examples: [EX.SINGLE_STEP_REQUEST] });

export const DirectBody = signedBody({
  order_uuid: Uuid,
  card_uuid: OptionalUuid(),
  source_uuid: OptionalUuid(),
  customer_ip: OptionalIp(),
}, { title: 'DirectPaymentRequest', examples: [EX.DIRECT_REQUEST] });

export const MotoBody = signedBody({
  order_uuid: Uuid,
  method: Type.Enum(['MAIL', 'PHONE']),
  card_holder: Type.Optional(cardProps.card_holder),
  card_pan: Type.Optional(cardProps.card_pan),
  card_expiry_month: Type.Optional(cardProps.card_expiry_month),
  card_expiry_year: Type.Optional(cardProps.card_expiry_year),
  card_cvv: cardProps.card_cvv,
  card_additional: cardProps.card_additional,
  source_uuid: OptionalUuid(),
  card_uuid: OptionalUuid(),
}, { title: 'MotoPaymentRequest', examples: [EX.MOTO_REQUEST] });

/** Amounts of follow-ups: negative values reach the amount rules, which say why they are refused. */
const FollowUpAmount = Int({ minimum: -AMOUNT_MAX, maximum: AMOUNT_MAX, description: 'minor units; omitted: the whole amount' });
export const ConfirmationBody = signedBody({ order_uuid: Uuid, amount: Opt(FollowUpAmount) }, { title: 'ConfirmationRequest', examples: [EX.CONFIRMATION_REQUEST] });
export const CancellationBody = signedBody({ order_uuid: Uuid }, { title: 'CancellationRequest', examples: [EX.CANCELLATION_REQUEST] });
export const RefundBody = signedBody({
  order_uuid: Uuid,
  amount: Opt(FollowUpAmount),
  extra_data: Opt(Type.Object({
    marketplace_refunds: Type.Optional(Type.Array(Type.Object({
      merchant_location_id: Int({ minimum: 0, maximum: 999_999_999_999 }),
      amount: Amount(),
      description: Type.String({ maxLength: 500 }),
      net_amount: Amount(),
    }), { maxItems: 100 })),
  })),
}, { title: 'RefundRequest', examples: [EX.REFUND_REQUEST] });
export const PayoutBody = signedBody({
  order_uuid: Uuid,
  source_uuid: OptionalUuid(),
  card_uuid: OptionalUuid(),
  customer_ip: OptionalIp(),
  apm: OptionalText(32, { description: 'an APM that supports payouts (BIZUM, MBWAY, TRANSFER) and that the order\'s service offers; required when the service offers such APMs and no `source_uuid` says the way' }),
  phone: OptionalText(32, { description: 'payouts with a push APM (BIZUM, MBWAY): the phone number of the receiving account' }),
}, { title: 'PayoutRequest', examples: [EX.PAYOUT_REQUEST] });

export const OrderParams = Type.Object({ order_uuid: Uuid });
export const ExpireBody = signedBody({}, { examples: [EX.EXPIRE_REQUEST] });
export const TxParams = Type.Object({ transaction_uuid: Uuid });
export const MetadataBody = signedBody({
  metadata: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), { description: 'at most 20 pairs' }),
}, { examples: [EX.METADATA_REQUEST] });
export const MetadataResponse = envelope({
  transaction_uuid: Uuid,
  metadata: Type.Record(Type.String(), Type.String(), { examples: [{ erp_id: 'INV-2026-0042', channel: 'web' }] }),
});

export const ListQuery = Type.Object({
  start: Type.Optional(Type.String({ pattern: '^[0-9]{12}$', description: 'YYYYMMDDHHmm (merchant timezone)' })),
  end: Type.Optional(Type.String({ pattern: '^[0-9]{12}$' })),
  updated_at_start: Type.Optional(Type.String({ pattern: '^[0-9]{12}$' })),
  updated_at_end: Type.Optional(Type.String({ pattern: '^[0-9]{12}$' })),
  terminal: Type.Optional(Int({ minimum: 0, maximum: 999_999_999_999, description: 'terminal code' })),
  limit: Type.Optional(Int({ minimum: 1, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_MAX })),
  offset: Type.Optional(Int({ minimum: 0, maximum: OFFSET_MAX, default: 0, description: 'rows skipped' })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'keyset paging: the `next_cursor` of the previous page (not with `offset`); stays fast however deep the page' })),
});
/** A transaction of the C3 list: the Transaction record with its order's key fields. */
const ListedTransaction = Type.Object(
  {
    ...Transaction.properties,
    order_uuid: Uuid,
    client_uuid: Uuid,
    currency: Type.String({ description: 'ISO 4217 numeric code' }),
    service: Type.String({ description: 'service type code' }),
    service_uuid: Uuid,
    reference: Nullable(Type.String()),
    customer: Nullable(Type.String()),
    order_status: Type.String(),
    updated: Type.String({ description: 'ISO 8601 UTC' }),
    metadata: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'the metadata attached with C4 (and the extra_data of a marketplace refund)' })),
  },
  { title: 'ListedTransaction', description: 'A transaction with the key fields of its order', examples: [EX.LIST_TRANSACTION_EXAMPLE] },
);

export const ListResponse = envelope({
  count: Type.Integer({ description: 'transactions matching the filters, counted up to 100,000 (or to the end of the requested page when further): see `count_capped`', examples: [1] }),
  count_capped: Type.Boolean({ description: 'true when more transactions match than `count` (the count stopped at its cap)', examples: [false] }),
  transactions: Type.Array(ListedTransaction),
  next_offset: Nullable(Type.Integer({ description: 'offset of the next page; null on the last page (and when paging with `cursor`)' })),
  next_cursor: Nullable(Type.String({ description: 'pass as `cursor` for the next page (keyset paging); null on the last page', examples: ['dDE6NmY5YzNkMmUtOGIxYS00YzVkLTllMmYtM2E0YjVjNmQ3ZThm'] })),
}, { title: 'TransactionListResponse' });
