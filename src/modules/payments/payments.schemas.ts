import {
  AMOUNT_MAX, Amount, Bool, ContractDate, ExtId, Int, Maybe, Nullable, OFFSET_MAX, OptionalIp, OptionalText, OptionalUuid, Type, Uuid, envelope, signedBody,
} from '../../platform/http/schemas.js';
import { EXPIRES_IN_MAX, EXPIRES_IN_MIN, LIST_LIMIT_MAX, OPERATIVES } from './payments.domain.js';
import { ORDER_STATUSES, TX_STATUSES } from './order-states.js';

const Opt = <T extends Parameters<typeof Nullable>[0]>(t: T) => Maybe(t);
const CustomerExtId = ExtId({ description: 'merchant external id of the customer; integers are kept as strings' });

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
    source: Nullable(Type.Any({ description: 'Source record' })),
    antifraud: Nullable(Type.Any()),
    device: Nullable(Type.Any()),
    error_details: Nullable(Type.String()),
  },
  { description: 'Transaction' },
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
    threeds_data: Nullable(Type.Any()),
  },
  { description: 'Order' },
);

const Client = Type.Object({ uuid: Uuid });
const orderFields = { order: Order, client: Client, validation_hash: Type.String({ description: 'decisions §7' }) };
export const OrderResponse = envelope(orderFields);
export const CreateOrderResponse = envelope({ ...orderFields, extra_data: Type.Optional(Nullable(Type.Any())) });
/** 402: the processor refused a confirmation, cancellation or refund; the order holds the REFUSED transaction. */
export const FailedOrderResponse = envelope({ details: Type.String(), ...orderFields });
/**
 * 303: the customer must authenticate (3DS). `message` "See Other", the URL in `details` and `url`, the
 * order as on a 200, and no Location header (clients that follow redirects would re-send the POST).
 */
export const RedirectResponse = envelope({
  details: Type.String({ description: 'the URL the customer must be sent to (3DS)' }),
  url: Type.String({ description: 'the same URL' }),
  ...orderFields,
});

const ExtraData = Type.Object(
  {
    checkout: Opt(Type.Object({
      uuid: OptionalText(64, { description: 'a checkout of the merchant (POST /checkout); the fields given here override it' }),
      payment_methods: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 32 })),
      default_payment_method: OptionalText(32),
      customization: Opt(Type.Any()),
    })),
    cof: Opt(Type.Object({ reason: OptionalText(64) })),
  },
  { description: 'ExtraData: checkout and cof are echoed in the response' },
);

export const orderProps = {
  amount: Amount({ description: `minor units of the currency (100 = 1 EUR), at most ${AMOUNT_MAX}` }),
  operative: Type.Enum([...OPERATIVES]),
  secure: Type.Optional(Bool({ description: 'true when 3D Secure is required; default false', default: false })),
  customer_ext_id: Opt(CustomerExtId),
  service: OptionalUuid({ description: 'service uuid; empty or absent: the merchant\'s first enabled service in `currency`' }),
  currency: Opt(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 alpha-3; required when service is omitted' })),
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
});

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
});

export const DirectBody = signedBody({
  order_uuid: Uuid,
  card_uuid: OptionalUuid(),
  source_uuid: OptionalUuid(),
  customer_ip: OptionalIp(),
});

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
});

/** Amounts of follow-ups: negative values reach the amount rules, which say why they are refused. */
const FollowUpAmount = Int({ minimum: -AMOUNT_MAX, maximum: AMOUNT_MAX, description: 'minor units; omitted: the whole amount' });
export const ConfirmationBody = signedBody({ order_uuid: Uuid, amount: Opt(FollowUpAmount) });
export const CancellationBody = signedBody({ order_uuid: Uuid });
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
});
export const PayoutBody = signedBody({
  order_uuid: Uuid,
  source_uuid: OptionalUuid(),
  card_uuid: OptionalUuid(),
  customer_ip: OptionalIp(),
  apm: OptionalText(32),
});

export const OrderParams = Type.Object({ order_uuid: Uuid });
export const ExpireBody = signedBody({});
export const TxParams = Type.Object({ transaction_uuid: Uuid });
export const MetadataBody = signedBody({
  metadata: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), { description: 'at most 20 pairs' }),
});
export const MetadataResponse = envelope({ transaction_uuid: Uuid, metadata: Type.Record(Type.String(), Type.String()) });

export const ListQuery = Type.Object({
  start: Type.Optional(Type.String({ pattern: '^[0-9]{12}$', description: 'YYYYMMDDHHmm (merchant timezone)' })),
  end: Type.Optional(Type.String({ pattern: '^[0-9]{12}$' })),
  updated_at_start: Type.Optional(Type.String({ pattern: '^[0-9]{12}$' })),
  updated_at_end: Type.Optional(Type.String({ pattern: '^[0-9]{12}$' })),
  terminal: Type.Optional(Int({ minimum: 0, maximum: 999_999_999_999, description: 'terminal code' })),
  limit: Type.Optional(Int({ minimum: 1, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_MAX })),
  offset: Type.Optional(Int({ minimum: 0, maximum: OFFSET_MAX, default: 0, description: 'rows skipped' })),
});
export const ListResponse = envelope({
  count: Type.Integer(),
  transactions: Type.Array(Type.Any()),
  next_offset: Nullable(Type.Integer()),
});
