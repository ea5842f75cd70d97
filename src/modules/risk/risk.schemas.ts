import type { TSchema } from 'typebox';
import { Bool, Nullable, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';
import { ITEM_TYPES, LIST_TYPES, MAX_ITEMS_PER_REQUEST, MAX_WINDOW_SECONDS } from './risk.domain.js';

const Iso = Type.String({ description: 'ISO 8601 UTC with milliseconds' });

/** Sets the example a schema shows in the OpenAPI document. */
function withExample(schema: object, example: unknown): void {
  Object.assign(schema, { examples: [example] });
}
const LIST_EXAMPLE = {
  uuid: '5b0f3c9e-8f0a-4a51-9c55-2f0d1c3e7a10',
  type: 'BLACKLIST',
  enabled: true,
  description: 'Cards and addresses of chargebacks',
  services: ['0d4a1f7e-3b7c-4e39-8a8b-6d2b6a5f9c01'],
  items_count: 2,
  created: '2026-03-02T10:15:00.000Z',
  updated: '2026-03-02T10:16:30.000Z',
};

export const ColorList = Type.Object(
  {
    uuid: Uuid,
    type: Type.Enum([...LIST_TYPES]),
    enabled: Type.Boolean(),
    description: Type.String(),
    services: Type.Array(Uuid, { description: 'services the list applies to (a list linked to none applies to no payment)' }),
    items_count: Type.Integer(),
    created: Iso,
    updated: Iso,
  },
  { description: 'Security list (white, black or grey)' },
);

export const Item = Type.Object(
  {
    uuid: Uuid,
    type: Type.Enum([...ITEM_TYPES]),
    value: Type.String({ description: 'the value; a card as BIN and last 4 only (454881******0004)' }),
    description: Nullable(Type.String()),
    created: Iso,
  },
  { description: 'Item of a security list' },
);

const ItemInput = Type.Object({
  type: Type.Enum([...ITEM_TYPES]),
  value: Type.Union([Type.String({ minLength: 1, maxLength: 300 }), Type.Integer()], {
    description: 'CARD: card number (kept only as a keyed fingerprint with BIN and last 4); CARD_UUID: a stored card; BIN: 6–8 digits; EMAIL; IP: address or CIDR network; COUNTRY: ISO 3166 alpha-2; CUSTOMER: external id; PHONE: with country code (+34600000000)',
  }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
});

export const CreateListBody = signedBody(
  {
    type: Type.Enum([...LIST_TYPES]),
    enabled: Bool(),
    description: Type.String({ maxLength: 1000 }),
  },
  { description: 'L1' },
);
withExample(CreateListBody, { signature: 'e5d6a1…', type: 'BLACKLIST', enabled: true, description: 'Cards and addresses of chargebacks' });

export const EnableBody = signedBody({ enabled: Bool() });
withExample(EnableBody, { signature: 'e5d6a1…', enabled: false });
export const DeleteBody = signedBody({});
export const ServiceBody = signedBody({ service_uuid: Uuid });
withExample(ServiceBody, { signature: 'e5d6a1…', service_uuid: '0d4a1f7e-3b7c-4e39-8a8b-6d2b6a5f9c01' });

export const AddItemsBody = signedBody({
  items: Type.Array(ItemInput, { minItems: 1, maxItems: MAX_ITEMS_PER_REQUEST, description: `at most ${MAX_ITEMS_PER_REQUEST} per request` }),
});
withExample(AddItemsBody, {
  signature: 'e5d6a1…',
  items: [
    { type: 'BIN', value: '454881', description: 'test BIN' },
    { type: 'IP', value: '198.51.100.0/24', description: 'proxy network' },
    { type: 'EMAIL', value: 'fraud@example.com', description: null },
  ],
});
export const RemoveItemsBody = signedBody({
  items: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { minItems: 1, maxItems: MAX_ITEMS_PER_REQUEST, description: 'item uuids or values (a card number removes its CARD item)' }),
});
withExample(RemoveItemsBody, { signature: 'e5d6a1…', items: ['fraud@example.com', '8c1b8a5e-1d0c-4f3f-a0e1-4d7b1f0b2a11'] });

export const ListParams = Type.Object({ list_uuid: Uuid });
export const ListsQuery = Type.Object({ type: Type.Optional(Type.Enum([...LIST_TYPES], { description: 'only lists of this type' })) });
export const ItemsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

export const ListResponse = envelope({ colorlists: ColorList });
withExample(ListResponse, { message: 'OK', code: 200, current_time: '2026-03-02T11:15:00+0100', colorlists: LIST_EXAMPLE });
export const ListsResponse = envelope({ colorlists: Type.Array(ColorList) });
withExample(ListsResponse, { message: 'OK', code: 200, current_time: '2026-03-02T11:15:00+0100', colorlists: [LIST_EXAMPLE] });
export const Done = envelope({});
export const AddedResponse = envelope({ added: Type.Integer({ description: 'items added (items the list already had are skipped)' }), items_count: Type.Integer() });
withExample(AddedResponse, { message: 'OK', code: 200, current_time: '2026-03-02T11:15:00+0100', added: 3, items_count: 5 });
export const RemovedResponse = envelope({ removed: Type.Integer(), items_count: Type.Integer() });
withExample(RemovedResponse, { message: 'OK', code: 200, current_time: '2026-03-02T11:15:00+0100', removed: 2, items_count: 3 });
export const ItemsResponse = envelope({
  items: Type.Array(Item),
  count: Type.Integer({ description: 'items in the list' }),
  next_offset: Nullable(Type.Integer({ description: 'null on the last page' })),
});
withExample(ItemsResponse, {
  message: 'OK', code: 200, current_time: '2026-03-02T11:15:00+0100',
  items: [{ uuid: '8c1b8a5e-1d0c-4f3f-a0e1-4d7b1f0b2a11', type: 'CARD', value: '454881******0004', description: 'chargeback 2026-02', created: '2026-03-02T10:16:30.000Z' }],
  count: 1, next_offset: null,
});

// ---- antifraud rules --------------------------------------------------------------------------------------

const Score = Type.Integer({ minimum: 0, maximum: 100, description: 'added to the score when the rule triggers' });
const Amounts = Type.Record(Type.String({ pattern: '^[A-Z]{3}$' }), Type.Integer({ minimum: 1 }), { description: 'minor units per currency (ISO 4217 alpha-3); currencies not listed are not checked' });
/** The rule shapes with `B` for their booleans: strict in answers, lenient (decisions §10) in requests. */
const ruleShapes = (B: () => TSchema) => {
const Velocity = (d: string) =>
  Type.Object({
    enabled: B(),
    score: Score,
    max_payments: Type.Integer({ minimum: 1, maximum: 100_000, description: 'triggers when more payments than this (this one included) fall in the window' }),
    window_seconds: Type.Integer({ minimum: 60, maximum: MAX_WINDOW_SECONDS, description: 'sliding window' }),
  }, { description: d });
const AmountRule = (d: string) => Type.Object({ enabled: B(), score: Score, amounts: Amounts }, { description: d });

const rulesProps = {
  CARD_VELOCITY: Velocity('payments with the same card (keyed fingerprint)'),
  IP_VELOCITY: Velocity('payments from the same customer IP (only when customer_ip is known)'),
  CUSTOMER_VELOCITY: Velocity('payments of the same customer (external id)'),
  EMAIL_VELOCITY: Velocity("payments with the same e-mail (the customer profile's)"),
  AMOUNT_HIGH: AmountRule('amount at or above a threshold'),
  AMOUNT_VERY_HIGH: AmountRule('amount at or above a higher threshold'),
  NEW_CARD_HIGH_AMOUNT: Type.Object({
    enabled: B(), score: Score, amounts: Amounts,
    new_for_seconds: Type.Integer({ minimum: 60, maximum: 365 * 86_400, description: 'a card is new when the merchant first saw it less than this long ago' }),
  }, { description: 'a card new to the merchant with an amount at or above a threshold' }),
  COUNTRY_MISMATCH: Type.Object({ enabled: B(), score: Score }, { description: "the card's issuing country differs from the customer IP's country (where both are known)" }),
};
const LowValue = Type.Object({
  enabled: B(),
  max_amounts: Type.Record(Type.String({ pattern: '^[A-Z]{3}$' }), Type.Integer({ minimum: 1 }), { description: 'highest exempted amount per currency, minor units (PSD2: 30 EUR)' }),
}, { description: 'low-value exemption from strong customer authentication for secure orders' });

return { rulesProps, LowValue };
};
const strict = ruleShapes(() => Type.Boolean());
const lenient = ruleShapes(() => Bool());

export const Rules = Type.Object(
  {
    enabled: Type.Boolean({ description: 'false: no antifraud (security lists still apply)' }),
    challenge_threshold: Type.Integer({ minimum: 1, maximum: 100 }),
    reject_threshold: Type.Integer({ minimum: 1, maximum: 100 }),
    rules: Type.Object(strict.rulesProps),
    low_value_exemption: strict.LowValue,
  },
  { description: 'Antifraud rules of the merchant' },
);

const partial = <T extends Record<string, unknown>>(props: T) => Object.fromEntries(Object.entries(props).map(([k, v]) => [k, Type.Optional(Type.Partial(v as never))])) as never;

export const PutRulesBody = signedBody({
  enabled: Type.Optional(Bool()),
  challenge_threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  reject_threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  rules: Type.Optional(Type.Object(partial(lenient.rulesProps))),
  low_value_exemption: Type.Optional(Type.Partial(lenient.LowValue)),
}, { description: 'fields left out take their defaults' });
withExample(PutRulesBody, { signature: 'e5d6a1…', challenge_threshold: 40, rules: { CARD_VELOCITY: { max_payments: 3, window_seconds: 600 }, COUNTRY_MISMATCH: { enabled: false } } });

export const RulesResponse = envelope({ antifraud: Rules });
withExample(RulesResponse, {
  message: 'OK', code: 200, current_time: '2026-03-02T11:15:00+0100',
  antifraud: {
    enabled: true, challenge_threshold: 50, reject_threshold: 90,
    rules: {
      CARD_VELOCITY: { enabled: true, score: 50, max_payments: 5, window_seconds: 3600 },
      IP_VELOCITY: { enabled: true, score: 50, max_payments: 10, window_seconds: 3600 },
      CUSTOMER_VELOCITY: { enabled: true, score: 50, max_payments: 10, window_seconds: 3600 },
      EMAIL_VELOCITY: { enabled: true, score: 50, max_payments: 10, window_seconds: 3600 },
      AMOUNT_HIGH: { enabled: true, score: 20, amounts: { EUR: 250000, USD: 250000, GBP: 220000 } },
      AMOUNT_VERY_HIGH: { enabled: true, score: 30, amounts: { EUR: 1000000, USD: 1000000, GBP: 900000 } },
      NEW_CARD_HIGH_AMOUNT: { enabled: true, score: 30, amounts: { EUR: 100000, USD: 100000, GBP: 90000 }, new_for_seconds: 86400 },
      COUNTRY_MISMATCH: { enabled: true, score: 40 },
    },
    low_value_exemption: { enabled: false, max_amounts: { EUR: 3000 } },
  },
});
