import { ContractDate, Nullable, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';
import { LIST_LIMIT_MAX, OPERATIVES } from './payments.domain.js';
import { ORDER_STATUSES, TX_STATUSES } from './order-states.js';

const Amount = Type.Integer({ minimum: 0, description: 'minor units of the currency (100 = 1 EUR)' });
const Str = (max: number) => Type.String({ maxLength: max });
const Opt = <T extends Parameters<typeof Nullable>[0]>(t: T) => Type.Optional(Nullable(t));
const ExtId = Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Integer()], { description: 'merchant external id of the customer' });

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
export const RedirectResponse = envelope({ url: Type.String({ description: 'send the customer here (also in the Location header)' }), ...orderFields });

const ExtraData = Type.Object(
  {
    checkout: Opt(Type.Object({
      uuid: Type.Optional(Type.String()),
      payment_methods: Type.Optional(Type.Array(Type.String())),
      default_payment_method: Opt(Type.String()),
      customization: Opt(Type.Any()),
    })),
    cof: Opt(Type.Object({ reason: Opt(Type.String()) })),
  },
  { description: 'ExtraData: checkout and cof are echoed in the response' },
);

export const orderProps = {
  amount: Amount,
  operative: Type.Enum([...OPERATIVES]),
  secure: Type.Boolean({ description: 'true when 3D Secure is required' }),
  customer_ext_id: Type.Optional(Nullable(ExtId)),
  service: Opt(Uuid),
  currency: Opt(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 alpha-3; required when service is omitted' })),
  description: Type.String({ maxLength: 1000 }),
  additional: Opt(Str(2000)),
  url_post: Opt(Str(2000)),
  url_ok: Opt(Str(2000)),
  url_ko: Opt(Str(2000)),
  template_uuid: Opt(Str(64)),
  dcc_template_uuid: Opt(Str(64)),
  reference: Opt(Type.String({ minLength: 1, maxLength: 255 })),
  dynamic_descriptor: Opt(Str(100)),
  expires_in: Opt(Type.Integer({ minimum: 600, maximum: 31_536_000, description: 'seconds; default 600' })),
  extra_data: Opt(ExtraData),
};

export const CreateOrderBody = signedBody({
  ...orderProps,
  source_uuid: Opt(Uuid),
  card_uuid: Opt(Uuid),
  save_card: Opt(Type.Boolean({ description: 'default true; consent only' })),
  customer_ip: Opt(Str(64)),
});

const cardProps = {
  card_holder: Type.String({ minLength: 1, maxLength: 200 }),
  card_pan: Type.String({ minLength: 1, maxLength: 40 }),
  card_expiry_month: Type.Union([Type.String({ maxLength: 2 }), Type.Integer()]),
  card_expiry_year: Type.Union([Type.String({ maxLength: 4 }), Type.Integer()]),
  card_cvv: Opt(Type.String({ pattern: '^[0-9]{3,4}$' })),
  card_additional: Opt(Str(500)),
};

export const SingleStepBody = signedBody({
  ...orderProps,
  customer_ext_id: ExtId,
  service: Uuid,
  ...cardProps,
  customer_ip: Opt(Str(64)),
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
  card_uuid: Opt(Uuid),
  source_uuid: Opt(Uuid),
  customer_ip: Opt(Str(64)),
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
  source_uuid: Opt(Uuid),
  card_uuid: Opt(Uuid),
});

export const ConfirmationBody = signedBody({ order_uuid: Uuid, amount: Opt(Type.Integer()) });
export const CancellationBody = signedBody({ order_uuid: Uuid });
export const RefundBody = signedBody({
  order_uuid: Uuid,
  amount: Opt(Type.Integer()),
  extra_data: Opt(Type.Object({
    marketplace_refunds: Type.Optional(Type.Array(Type.Object({
      merchant_location_id: Type.Integer(),
      amount: Type.Integer(),
      description: Type.String(),
      net_amount: Type.Integer(),
    }))),
  })),
});
export const PayoutBody = signedBody({
  order_uuid: Uuid,
  source_uuid: Opt(Uuid),
  card_uuid: Opt(Uuid),
  customer_ip: Opt(Str(64)),
  apm: Opt(Type.String()),
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
  terminal: Type.Optional(Type.Integer({ minimum: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_MAX })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});
export const ListResponse = envelope({
  count: Type.Integer(),
  transactions: Type.Array(Type.Any()),
  next_offset: Nullable(Type.Integer()),
});
