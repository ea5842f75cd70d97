import { Bool, ContractDate, Int, Maybe, Nullable, OptionalText, OptionalUuid, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';
import { CustomerSchema as Customer, ExtIdSchema as ExtId } from '../customers/index.js';
import { SOURCE_TYPES } from './sources.domain.js';
import * as EX from './sources.examples.js';

export const Source = Type.Object(
  {
    object: Type.String({ description: 'CARD for cards, BANK_ACCOUNT for bank accounts' }),
    par: Nullable(Type.String()),
    uuid: Uuid,
    type: Type.String({ description: 'card type when known (e.g. CREDIT, DEBIT), otherwise empty' }),
    token: Type.String(),
    brand: Type.String(),
    country: Type.String(),
    holder: Type.String(),
    bin: Nullable(Type.Integer({ description: 'first 6 digits of the card number' })),
    last4: Type.String(),
    is_saved: Type.Boolean(),
    expire_month: Nullable(Type.String()),
    expire_year: Nullable(Type.String()),
    additional: Nullable(Type.String()),
    bank: Type.String(),
    prepaid: Type.Union([Type.Boolean(), Type.Literal('')]),
    validation_date: Nullable(Type.String()),
    creation_date: Type.String(),
    brand_description: Nullable(Type.String()),
    origin: Type.String(),
    cof: Type.Object({ is_available: Type.Boolean() }),
  },
  { title: 'Source', description: 'A stored payment method (card or bank account). Never more of the number than the BIN and the last 4.', examples: [EX.SOURCE_EXAMPLE] },
);

/** An entry of a card listing (F10, F11): the Source record and two fields existing clients read. */
export const ListedSource = Type.Object(
  {
    ...Source.properties,
    tokenization_service_uuid: Nullable(Uuid),
    is_blacklisted: Type.Boolean({ description: 'true when a black list linked to the tokenization service holds the card' }),
  },
  {
    title: 'ListedSource',
    description: 'Source in a listing, oldest first: `tokenization_service_uuid` is the service that validated the card or charged it first (null when none has)',
    examples: [{ ...EX.SOURCE_EXAMPLE, tokenization_service_uuid: '7d2c4e6f-8a1b-4c3d-9e5f-0a1b2c3d4e5f', is_blacklisted: false }],
  },
);

const Month = Type.Union([Type.String({ minLength: 1, maxLength: 2 }), Type.Integer({ minimum: 0, maximum: 99 })], { description: '1–12' });
const Year = Type.Union([Type.String({ minLength: 2, maxLength: 4 }), Type.Integer({ minimum: 0, maximum: 9999 })], { description: '2 or 4 digits' });
const HolderVerification = Type.Union([Type.Boolean(), Type.Record(Type.String(), Type.Unknown())], {
  description: 'holder data to verify with the service (`name`, or `first_name` and `last_name`); true verifies the holder as stored',
});

const cardFields = {
  card_holder: Type.String({ minLength: 1, maxLength: 100 }),
  card_pan: Type.String({ minLength: 12, maxLength: 23, description: 'card number (digits; spaces allowed)' }),
  card_expiry_month: Month,
  card_expiry_year: Year,
  customer_ext_id: ExtId,
  additional: OptionalText(500),
  url_post: OptionalText(2000, { description: 'receives the card storage notification' }),
  validate: Maybe(Bool({ description: 'check the card with `service` (default false)' })),
  service: OptionalUuid(),
  card_cvv: OptionalText(4, { description: 'used once for validation, never stored' }),
  source_holder_verification: Maybe(HolderVerification),
};

export const CardFields = Type.Object(cardFields);
export const StoreCardBody = signedBody(cardFields, { title: 'StoreCardRequest', examples: [EX.STORE_CARD_REQUEST] });
export const StoreCardsBody = signedBody({ cards: Type.Array(CardFields, { minItems: 1, maxItems: 1000 }) }, { examples: [EX.STORE_CARDS_REQUEST] });

export const Verification = Type.Object({
  uuid: Uuid,
  source_uuid: Uuid,
  status: Type.String({ description: 'DONE, or FAILED when the service did not answer' }),
  result: Nullable(Type.String({ description: 'MATCH, PARTIAL_MATCH or NO_MATCH' })),
  created: ContractDate,
}, { title: 'Verification', description: 'A holder verification and its result', examples: [EX.VERIFICATION_EXAMPLE] });

const SourceUuidFields = {
  source_uuid: Type.Optional(Uuid),
  card_uuid: Type.Optional(Uuid),
};

export const RevalidateBody = signedBody({
  ...SourceUuidFields,
  customer_ext_id: ExtId,
  service: Uuid,
  card_cvv: OptionalText(4),
}, { examples: [EX.REVALIDATE_REQUEST] });

export const StoreBankBody = signedBody({
  customer_ext_id: ExtId,
  account_holder: Type.String({ minLength: 1, maxLength: 100 }),
  iban: Type.String({ minLength: 5, maxLength: 50 }),
  additional: OptionalText(500),
  service: OptionalUuid(),
  source_holder_verification: Maybe(HolderVerification),
}, { title: 'StoreBankRequest', examples: [EX.STORE_BANK_REQUEST] });

export const TypeParams = Type.Object({ type: Type.Enum([...SOURCE_TYPES]) });
/**
 * F8 (GET) and F9 (DELETE) share the path `/payment-method/{identifier}`: a source uuid for F8, a
 * source type for F9 (one parameter name, so the API reference lists one path).
 */
export const DeleteParams = Type.Object({ identifier: Type.Enum(['card', 'dynamic_card', 'bank', 'paypal'], { description: 'the type of the source to delete' }) });
export const VerifyParams = Type.Object({ type: Type.Enum(['card', 'dynamic_card', 'bank']) });
export const TypeUuidParams = Type.Object({ type: Type.Enum([...SOURCE_TYPES]), uuid: Uuid });
export const IdentifierParams = Type.Object({ identifier: Type.String({ format: 'uuid', description: 'the uuid of the source' }) });
export const OwnerParams = Type.Object({ source_uuid: Uuid });
export const CustomerParams = Type.Object({ ext_id: Type.String({ minLength: 1, maxLength: 255 }) });

export const AdditionalBody = signedBody({ ...SourceUuidFields, additional: Maybe(Type.String({ maxLength: 500 })) }, { examples: [EX.ADDITIONAL_REQUEST] });
export const OwnerBody = signedBody({ old_external_id: ExtId, new_external_id: ExtId }, { examples: [EX.OWNER_REQUEST] });
export const DeleteBody = signedBody({ ...SourceUuidFields, customer_external_id: ExtId }, { examples: [EX.DELETE_REQUEST] });
export const VerifyHolderBody = signedBody({
  ...SourceUuidFields,
  service: Uuid,
  holder: Type.Record(Type.String(), Type.Unknown(), { description: '`name`, or `first_name` and `last_name`' }),
}, { examples: [EX.VERIFY_HOLDER_REQUEST] });

export const ListQuery = Type.Object({
  sourceType: Type.Optional(Type.String({ description: `comma-separated: ${SOURCE_TYPES.join(', ')}; default all` })),
  status: Type.Optional(Type.Enum(['VALIDATED', 'ALL'], { default: 'VALIDATED' })),
  unique: Type.Optional(Bool({ description: 'true: each card once (the newest entry); default false' })),
  limit: Type.Optional(Int({ minimum: 1, maximum: 1000, description: 'sources per page (paging is optional: without `limit` and `cursor` every source is listed)' })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'the `next_cursor` of the previous page' })),
});
export const ListByTypeQuery = Type.Object({
  status: Type.Optional(Type.Enum(['VALIDATED', 'ALL'], { default: 'VALIDATED' })),
  unique: Type.Optional(Bool({ description: 'true: each card once (the newest entry); default false' })),
});

export const CustomerSourceResponse = envelope({ Customer, Source, verification: Type.Optional(Verification) }, { title: 'CustomerSourceResponse', description: 'A stored source and its customer' });
export const StoreCardsResponse = envelope({ cards: Type.Array(Type.Object({ Customer, Source })) });
export const SourceResponse = envelope({ source: Source }, { title: 'SourceResponse' });
/** F7 (deprecated): the record under a key named after its type. */
export const TypedSourceResponse = Type.Object(
  {
    ...envelope({}).properties,
    ...(Object.fromEntries(SOURCE_TYPES.map((t) => [t, Type.Optional(Source)])) as Record<(typeof SOURCE_TYPES)[number], ReturnType<typeof Type.Optional<typeof Source>>>),
  },
  { examples: [{ message: 'OK', code: 200, current_time: '2026-03-14T10:21:07+0100', card: EX.SOURCE_EXAMPLE }] },
);
export const SourcesResponse = envelope({
  sources: Type.Array(ListedSource),
  next_cursor: Type.Optional(Nullable(Type.String({ description: 'when paging (`limit` or `cursor` given): pass as `cursor` for the next page; null on the last page' }))),
}, { title: 'SourceListResponse' });
/** F7 (deprecated): the record under a key named after the type (`card`, `bank`, ...). */
export const SourceByTypeResponse = envelope(
  Object.fromEntries(SOURCE_TYPES.map((t) => [t, Type.Optional(Source)])) as Record<(typeof SOURCE_TYPES)[number], ReturnType<typeof Type.Optional<typeof Source>>>,
);
export const EmptyResponse = envelope({});
export const VerificationResponse = envelope({ verification: Verification });

export { Source as SourceSchema };
