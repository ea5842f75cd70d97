/** Request and response schemas of routing (ours: docs/routing.md). */
import { Amount, CurrencyCode, Int, Maybe, Nullable, OptionalText, OptionalUuid, Type, envelope, signedBody } from '../../platform/http/schemas.js';
import { CARD_TYPES, CHANNELS, CONDITION_TYPES, MAX_ATTEMPTS_LIMIT, MAX_FALLBACKS, MAX_RANGES, MAX_RULES, MAX_SPLITS, MAX_VALUES, PROFILE_STATUSES } from './routing.domain.js';
import { BREAKER_STATES } from './routing.breaker.js';
import { FEE_CARD_TYPES, FEE_REGIONS, MAX_FEE_LINES, MAX_FIXED, MAX_PERCENT_BP } from './routing.fees.js';
import { DEFAULT_MIN_OBSERVATIONS, REPLAY_MAX_DAYS } from './routing.replay.js';
import * as EX from './routing.examples.js';

const Iso = Type.String({ description: 'ISO 8601 UTC with milliseconds (the merchant\'s clock)' });
const ServiceUuid = (description: string) => Type.String({ format: 'uuid', description });
const Rate = (description: string) => Nullable(Type.Number({ description: `${description} (0 to 1; null without attempts)` }));

const Status = Type.Enum([...PROFILE_STATUSES], { description: 'ACTIVE: decides the payments of its service (one ACTIVE profile per service); DRAFT: only tried with POST /routing-profiles/{uuid}/test' });

export const Condition = Type.Object({
  type: Type.Enum([...CONDITION_TYPES], { description: 'what the condition looks at; it uses the fields named here: brand, issuer_country, card_type, currency, customer_country, channel take `values`; bin takes `ranges`; amount takes `min` and/or `max`; metadata takes `key` and, optionally, `equals`' }),
  values: Maybe(Type.Array(Type.String({ minLength: 1, maxLength: 30 }), { minItems: 1, maxItems: MAX_VALUES, description: 'the accepted values: card brands (VISA, MASTERCARD, AMEX...), ISO 3166 alpha-2 countries, card types (CREDIT, DEBIT, PREPAID), ISO 4217 alpha-3 currencies or channels (ECOMMERCE, MOTO, MIT)' })),
  ranges: Maybe(Type.Array(Type.Object({
    from: Type.String({ minLength: 6, maxLength: 8, description: 'first prefix of the range, 6 to 8 digits', examples: ['45488100'] }),
    to: Type.String({ minLength: 6, maxLength: 8, description: 'last prefix of the range, as many digits as `from`', examples: ['45488199'] }),
  }), { minItems: 1, maxItems: MAX_RANGES, description: 'bin: ranges of card prefixes; a card matches when its first digits (as many as the range\'s) are within one' })),
  min: Maybe(Amount({ description: 'amount: the smallest amount that matches, minor units, inclusive' })),
  max: Maybe(Amount({ description: 'amount: the largest amount that matches, minor units, inclusive' })),
  key: OptionalText(100, { description: 'metadata: the key of the order\'s metadata' }),
  equals: OptionalText(500, { description: 'metadata: the value the key must have; absent: the key must be present' }),
}, { title: 'RoutingCondition', description: 'One condition of a rule, over what is known before any processor is called', examples: [{ type: 'issuer_country', values: ['ES', 'PT'] }] });

export const Action = Type.Object({
  type: Type.Enum(['service', 'split'], { description: 'service: one service; split: services chosen by weight (the same order always gets the same one)' }),
  service_uuid: OptionalUuid({ description: 'service: the service to try first (one of yours)' }),
  splits: Maybe(Type.Array(Type.Object({
    service_uuid: ServiceUuid('a service of yours'),
    weight: Int({ minimum: 1, maximum: 1_000_000, description: 'its share of the orders: weight / sum of the weights' }),
  }), { minItems: 2, maxItems: MAX_SPLITS, description: 'split: the services and their weights' })),
  fallbacks: Maybe(Type.Array(ServiceUuid('a service of yours'), { maxItems: MAX_FALLBACKS, description: 'the services tried next, in order, when an attempt fails in a way the retry table allows' })),
}, { title: 'RoutingAction', description: 'What a matching rule does', examples: [EX.RULES_EXAMPLE[0].action] });

export const Rule = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'unique in the profile; named by the decision' }),
  conditions: Type.Array(Condition, { maxItems: 20, description: 'all must hold; none: the rule always matches' }),
  action: Action,
}, { title: 'RoutingRule', examples: [EX.RULES_EXAMPLE[0]] });

export const Profile = Type.Object({
  uuid: Type.String({ format: 'uuid' }),
  service_uuid: Type.String({ format: 'uuid', description: 'the entry service: the service orders name, whose payments this profile routes' }),
  name: Type.String(),
  status: Status,
  max_attempts: Type.Integer({ description: 'most services tried for one payment (1 to 5)' }),
  version: Type.Integer({ description: 'bumped by every replacement' }),
  rules: Type.Array(Rule, { description: 'read in order: the first that matches decides' }),
  created_at: Iso,
  updated_at: Iso,
}, { title: 'RoutingProfile', examples: [EX.PROFILE_EXAMPLE] });

export const ProfileResponse = envelope({ routing_profile: Profile }, { title: 'RoutingProfileResponse' });
export const ProfilesResponse = envelope({ routing_profiles: Type.Array(Profile, { description: 'newest first' }) }, { title: 'RoutingProfilesResponse' });

const profileFields = {
  service_uuid: Type.String({ format: 'uuid', description: 'the entry service (one of yours): the service orders name' }),
  name: Type.String({ minLength: 1, maxLength: 100, description: 'for you to recognise it' }),
  status: Type.Optional(Status),
  max_attempts: Type.Optional(Int({ minimum: 1, maximum: MAX_ATTEMPTS_LIMIT, default: 3, description: 'most services tried for one payment' })),
  rules: Type.Array(Rule, { maxItems: MAX_RULES, description: 'read in order; the first whose conditions all hold decides (at most 100). No rule matched: the entry service alone' }),
};

export const CreateBody = signedBody(profileFields, { title: 'CreateRoutingProfileRequest', examples: [EX.CREATE_PROFILE_EXAMPLE] });
export const ReplaceBody = signedBody(profileFields, { title: 'ReplaceRoutingProfileRequest', examples: [EX.REPLACE_PROFILE_EXAMPLE] });
export const DeleteBody = signedBody({}, { title: 'DeleteRoutingProfileRequest', examples: [{ signature: EX.CREATE_PROFILE_EXAMPLE.signature }] });

export const ProfileParams = Type.Object({ uuid: Type.String({ format: 'uuid', examples: [EX.PROFILE_EXAMPLE.uuid] }) });

export const ListQuery = Type.Object({
  service_uuid: OptionalUuid({ description: 'only the profiles of this entry service' }),
  status: Type.Optional(Status),
});

export const TestBody = signedBody({
  card_pan: OptionalText(40, { description: 'the card number (or give `bin`): read for its BIN and brand and forgotten; never stored or shown' }),
  bin: Maybe(Type.String({ pattern: '^[0-9]{6,8}$', description: 'the card\'s first 6 to 8 digits (or give `card_pan`)', examples: ['45488120'] })),
  brand: OptionalText(30, { description: 'the card brand; absent: from the card number or the BIN' }),
  amount: Amount({ description: 'minor units of the currency (100 = 1 EUR)' }),
  currency: CurrencyCode(),
  channel: Type.Optional(Type.Enum([...CHANNELS], { description: 'ECOMMERCE (default), MOTO or MIT (a merchant-initiated charge of a stored card)' })),
  issuer_country: Maybe(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166 alpha-2; absent: from the BIN table' })),
  card_type: Maybe(Type.Enum([...CARD_TYPES], { description: 'absent: from the BIN table' })),
  customer_country: Maybe(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166 alpha-2 country of the customer' })),
  metadata: Maybe(Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 500 }), { maxProperties: 50, description: 'the order\'s metadata' })),
  order_uuid: OptionalUuid({ description: 'the order whose hash picks a split\'s service; absent: a new uuid (shown in the answer, to try again the same)' }),
}, { title: 'RoutingTestRequest', examples: [EX.TEST_PAYMENT_EXAMPLE] });

const AttemptSchema = Type.Object({
  service_uuid: Type.String({ format: 'uuid' }),
  rule: Nullable(Type.String({ description: 'the rule that chose it; null: no rule matched' })),
  reason: Type.String({ description: 'why it is here, in words' }),
});

export const Decision = Type.Object({
  profile_uuid: Type.String({ format: 'uuid' }),
  profile_version: Type.Integer(),
  profile_status: Status,
  order_uuid: Type.String({ format: 'uuid', description: 'the order uuid whose hash picked a split\'s service' }),
  facts: Type.Object({
    bin: Type.String({ description: 'the BIN decided on: 8 digits (6 of a card number shorter than 16 digits)' }),
    last4: Nullable(Type.String({ description: 'the last 4 digits of `card_pan`; null with a BIN' })),
    brand: Nullable(Type.String()),
    issuer_country: Nullable(Type.String()),
    card_type: Nullable(Type.Enum([...CARD_TYPES])),
    bin_source: Nullable(Type.Enum(['TABLE', 'SANDBOX'], { description: 'where the BIN\'s facts came from: the BIN table, the sandbox test cards; null: unknown BIN' })),
    amount: Type.Integer(),
    currency: Type.String(),
    customer_country: Nullable(Type.String()),
    channel: Type.Enum([...CHANNELS]),
    metadata: Type.Record(Type.String(), Type.String()),
  }, { description: 'what the decision was made on' }),
  rule: Nullable(Type.String({ description: 'the rule that matched; null: none (the entry service alone)' })),
  attempts: Type.Array(AttemptSchema, { description: 'the services to try, in order: the first, then the fallbacks (no duplicates, at most max_attempts, open circuits left out)' }),
  skipped: Type.Array(Type.Object({ service_uuid: Type.String({ format: 'uuid' }), reason: Type.String() }), { description: 'services left out because their circuit is open in the answering process' }),
}, { title: 'RoutingDecision', examples: [EX.DECISION_EXAMPLE] });

export const DecisionResponse = envelope({ routing_decision: Decision }, { title: 'RoutingDecisionResponse' });

export const Health = Type.Object({
  service_uuid: Type.String({ format: 'uuid' }),
  service_name: Type.String(),
  state: Type.Enum([...BREAKER_STATES], { description: 'the circuit: CLOSED (tried), OPEN (skipped by routing until the cool-down is over), HALF_OPEN (tried again: the next outcome closes or re-opens it)' }),
  opened_at: Nullable(Iso),
  attempts: Type.Integer({ description: 'recent attempts counted in the figures (the last 200 of the last 5 minutes)' }),
  approval_rate: Rate('share approved'),
  decline_rate: Rate('share declined by the issuer'),
  error_rate: Rate('share that ended in a processor error'),
  timeout_rate: Rate('share that got no answer in time'),
  latency_p50_ms: Nullable(Type.Number({ description: 'median processor time, ms' })),
  latency_p95_ms: Nullable(Type.Number({ description: '95th percentile processor time, ms' })),
  window_attempts: Type.Integer({ description: 'attempts in the breaker\'s window (the last 50 of the last 60 seconds)' }),
  window_bad_rate: Rate('share of errors and timeouts in the breaker\'s window (at 0.5 with 10 attempts or more, the circuit opens)'),
}, { title: 'RoutingHealth', examples: [EX.HEALTH_EXAMPLE] });

export const HealthResponse = envelope({ routing_health: Type.Array(Health, { description: 'each of your services, as the answering process saw them' }) }, { title: 'RoutingHealthResponse' });

// ---- fees and the replay (docs/routing.md "Fees", "Replay") ---------------------------------------------

export const FeeLine = Type.Object({
  card_type: Type.Enum([...FEE_CARD_TYPES], { description: 'CREDIT, DEBIT, PREPAID, or ANY (every card type)' }),
  region: Type.Enum([...FEE_REGIONS], { description: 'DOMESTIC (issued in the merchant\'s country), INTRA_EEA (issued in another country of the European Economic Area, the merchant\'s being in it), INTERNATIONAL, or ANY (every region; the only lines that apply when a region is not known)' }),
  percent_bp: Int({ minimum: 0, maximum: MAX_PERCENT_BP, description: 'basis points of the amount (100 = 1 %), rounded half up to minor units' }),
  fixed: Int({ minimum: 0, maximum: MAX_FIXED, description: 'minor units of the payment\'s currency, added to the percentage' }),
}, { title: 'RoutingFeeLine', description: 'What a payment of this card type and region costs on the service; the most specific line applies', examples: [EX.FEES_REQUEST_EXAMPLE.fees[0]] });

export const Fees = Type.Object({
  service_uuid: Type.String({ format: 'uuid' }),
  merchant_country: Nullable(Type.String({ description: 'ISO 3166 alpha-2: your country for this service, against which a card\'s issuer country gives its region; null: regions unknown' })),
  fees: Type.Array(FeeLine, { description: 'the lines; none: no fee model (payments on the service are not priced)' }),
  updated_at: Nullable(Iso),
}, { title: 'RoutingFees', examples: [EX.FEES_EXAMPLE] });

export const FeesResponse = envelope({ routing_fees: Fees }, { title: 'RoutingFeesResponse' });
export const FeesParams = Type.Object({ service_uuid: Type.String({ format: 'uuid', examples: [EX.FEES_EXAMPLE.service_uuid] }) });

export const PutFeesBody = signedBody({
  merchant_country: Maybe(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166 alpha-2: your country for this service; absent: regions unknown (only lines of region ANY apply)' })),
  fees: Type.Array(FeeLine, { maxItems: MAX_FEE_LINES, description: 'the whole model (it replaces the previous one): at most one line per card type and region; an empty list removes the lines' }),
}, { title: 'PutRoutingFeesRequest', examples: [EX.FEES_REQUEST_EXAMPLE] });

export const ReplayBody = signedBody({
  days: Int({ minimum: 1, maximum: REPLAY_MAX_DAYS, description: 'how many days of history, back from now on your clock (1 to 90)' }),
  currency: Maybe(CurrencyCode({ description: 'the payments replayed: those in this currency (default EUR); others are counted in `other_currencies`' })),
  min_observations: Maybe(Int({ minimum: 1, maximum: 100_000, default: DEFAULT_MIN_OBSERVATIONS, description: 'payments an observed approval rate needs behind it to be used (default 5); fewer: the next, wider rate' })),
  rules: Maybe(Type.Array(Rule, { maxItems: MAX_RULES, description: 'a draft of the rules to replay instead of the profile\'s own (checked as a profile\'s rules are; nothing is stored)' })),
}, { title: 'RoutingReplayRequest', examples: [EX.REPLAY_REQUEST_EXAMPLE] });

const Replayed = Type.Object({
  payments: Type.Integer({ description: 'payments the profile sends to this service first' }),
  amount: Type.Integer({ description: 'their amount, minor units' }),
  expected_approvals: Type.Number({ description: 'the sum of each payment\'s observed approval rate on this service (2 decimals)' }),
  expected_approval_rate: Nullable(Type.Number({ description: 'expected_approvals / payments (4 decimals); null without payments' })),
  expected_fees: Type.Integer({ description: 'the fee of each payment on this service times its approval rate, minor units (a fee is paid on an approved payment)' }),
  unpriced: Type.Integer({ description: 'payments no fee line of this service prices (counted with no fee)' }),
  rate_sources: Type.Object({
    bin: Type.Integer({ description: 'payments whose rate came from their 6-digit BIN on this service' }),
    brand: Type.Integer({ description: '... from their brand on this service' }),
    service: Type.Integer({ description: '... from the whole service' }),
    overall: Type.Integer({ description: '... from every service together' }),
  }, { description: 'which observed approval rate each payment got' }),
});

const Actual = Type.Object({
  payments: Type.Integer({ description: 'payments that went to this service first' }),
  amount: Type.Integer({ description: 'their amount, minor units' }),
  approvals: Type.Integer(),
  approval_rate: Nullable(Type.Number({ description: 'approvals / payments (4 decimals); null without payments' })),
  fees: Type.Integer({ description: 'the fees of the approved ones under this service\'s fee model, minor units' }),
  unpriced: Type.Integer({ description: 'payments no fee line of this service prices' }),
});

export const Replay = Type.Object({
  profile_uuid: Type.String({ format: 'uuid' }),
  profile_version: Type.Integer(),
  draft: Type.Boolean({ description: 'true: the request\'s draft rules were replayed, not the profile\'s' }),
  from: Iso,
  to: Iso,
  days: Type.Integer(),
  currency: Type.String(),
  min_observations: Type.Integer(),
  payments: Type.Integer({ description: 'payments replayed (the first attempt of each order of the profile\'s service in the period, decided, in the currency)' }),
  other_currencies: Type.Integer({ description: 'payments of the period in other currencies, left out' }),
  capped: Type.Boolean({ description: 'true: the history held more than `cap` payments and the replay stopped at the cap (the oldest were read first)' }),
  cap: Type.Integer(),
  services: Type.Array(Type.Object({
    service_uuid: Type.String({ format: 'uuid' }),
    service_name: Nullable(Type.String()),
    replayed: Replayed,
    actual: Actual,
  }), { description: 'each service the profile chose or the history used' }),
  totals: Type.Object({
    replayed: Replayed,
    actual: Actual,
    difference: Type.Object({
      approvals: Type.Number({ description: 'expected minus actual approvals' }),
      approval_rate: Nullable(Type.Number({ description: 'expected minus actual approval rate' })),
      fees: Type.Integer({ description: 'expected minus actual fees, minor units' }),
    }),
  }),
}, { title: 'RoutingReplay', examples: [EX.REPLAY_EXAMPLE] });

export const ReplayResponse = envelope({ routing_replay: Replay }, { title: 'RoutingReplayResponse' });
