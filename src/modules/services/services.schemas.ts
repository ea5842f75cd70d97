import { Bool, CurrencyCode, ContractDate, Int, Maybe, Mcc, Nullable, OptionalText, OptionalUuid, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';
import { MAX_APPROVAL_RULES, MAX_LATENCY_MS, OUTAGES, SOFT_DECLINES } from '../../processors/sandbox-behaviour.js';
import { DCC_MODES, SERVICE_TYPES } from './services.domain.js';
import * as EX from './services.examples.js';

export const Service = Type.Object(
  {
    uuid: Uuid,
    name: Type.String(),
    type: Type.String({ description: 'service type code' }),
    enabled: Type.Boolean({ description: 'false while the service is pending (no terminal)' }),
    terminal: Nullable(Uuid),
    created: ContractDate,
    dcc_allowed: Type.Boolean(),
    dcc_mode: Nullable(Type.Enum([...DCC_MODES])),
    dynamic_descriptor: Nullable(Type.String()),
    referential_integrity: Nullable(Type.String()),
    mcc: Nullable(Type.String()),
    status: Type.Enum(['ACTIVE', 'PENDING']),
    bizum_enabled: Type.Boolean({ description: 'Bizum on the payment pages (REDSYS family only)' }),
  },
  { title: 'Service', description: 'A service: how a merchant takes payments with one processor type, through a terminal', examples: [EX.SERVICE_EXAMPLE] },
);

export const Terminal = Type.Object(
  {
    uuid: Uuid,
    client_uuid: Uuid,
    client_name: Type.String(),
    type: Type.String(),
    code: Nullable(Type.String()),
    currency_code: Type.String(),
    dcc_allowed: Type.Boolean(),
    is_cof_disabled_by_default: Type.Boolean(),
    description: Type.String(),
    created: ContractDate,
    acquirer: Type.String({ description: 'the acquirer given at creation, or the one the terminal type implies' }),
    credentials: Nullable(Type.Record(Type.String(), Type.String(), { description: 'masked: only the last 4 characters of each value' })),
  },
  { title: 'Terminal', description: 'A terminal: the processor account and its credentials (returned masked)', examples: [EX.TERMINAL_EXAMPLE] },
);

const ServiceType = Type.Enum([...SERVICE_TYPES]);

export const CreateServiceBody = signedBody({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  type: ServiceType,
  dcc_mode: Maybe(Type.Enum([...DCC_MODES], { description: 'DYNAMIC (the default with is_dcc_allowed): the cardholder chooses on the hosted page, the order\'s currency shown first; FOREIGN: the cardholder chooses, the card\'s currency shown first; LOCAL: no offer, always the order\'s currency' })),
  is_dcc_allowed: Maybe(Bool({ description: 'dynamic currency conversion on the hosted page (REDSYS family only)' })),
  terminal_uuid: OptionalUuid(),
  parent_uuid: OptionalUuid(),
  mcc: Maybe(Mcc),
  dynamic_descriptor: OptionalText(25),
  referential_integrity: OptionalText(32),
  bizum_enabled: Maybe(Bool({ description: 'Bizum on the payment pages (REDSYS family only; default false)' })),
}, { title: 'CreateServiceRequest', examples: [EX.CREATE_SERVICE_REQUEST] });

export const UpdateServiceBody = signedBody({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  terminal_uuid: Type.Optional(Nullable(Uuid)),
  enabled: Type.Optional(Bool()),
  bizum_enabled: Type.Optional(Bool({ description: 'Bizum on the payment pages (REDSYS family only)' })),
  is_dcc_allowed: Maybe(Bool({ description: 'dynamic currency conversion on the hosted page (REDSYS family only)' })),
  dcc_mode: Maybe(Type.Enum([...DCC_MODES], { description: 'DYNAMIC: the cardholder chooses, the order\'s currency shown first; FOREIGN: the cardholder chooses, the card\'s currency shown first; LOCAL: no offer, always the order\'s currency' })),
}, { title: 'UpdateServiceRequest', examples: [EX.UPDATE_SERVICE_REQUEST] });

export const CreateTerminalBody = signedBody({
  currency_code: CurrencyCode({ description: 'ISO 4217 currency of the terminal: alpha-3 (EUR) or numeric (978)' }),
  type: ServiceType,
  description: Type.String({ minLength: 1, maxLength: 200 }),
  code: Type.Optional(Nullable(Type.Union([Type.String({ pattern: '^[0-9]{1,12}$' }), Type.Integer({ minimum: 0, maximum: 999999999999 })]))),
  parent_uuid: OptionalUuid(),
  acquirer: OptionalText(100, { description: 'acquirer name; empty or absent: the one the type implies (e.g. REDSYS for REDSYSPSD2)' }),
  dcc_allowed: Maybe(Bool()),
  is_cof_disabled_by_default: Maybe(Bool()),
  credentials: Type.Optional(Nullable(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
    description: 'depends on type: REDSYSPSD2 key_secure, key_not_secure, terminal_secure, terminal_not_secure (+ optional signature_version: HMAC_SHA256_V1, the default, or HMAC_SHA512_V2; the merchant code in `code`); CREDORAX merchant_id, signing_api_key (+ optional sub_merchant_id and the *_amex keys)',
  }))),
  test_credentials: Maybe(Bool({ description: 'production terminals of a type with a connector (REDSYSPSD2): before the terminal is created, its credentials are tried against the processor without moving money; a problem (e.g. Redsys SIS0042, a wrong key) is a 400 naming it' })),
}, { title: 'CreateTerminalRequest', examples: [EX.CREATE_TERMINAL_REQUEST] });

export const ServiceParams = Type.Object({ service_uuid: Uuid });
export const ClientParams = Type.Object({ client_uuid: Uuid });

export const ServiceResponse = envelope({ service: Service }, { title: 'ServiceResponse' });
export const ServicesResponse = envelope({ services: Type.Array(Service) }, { title: 'ServiceListResponse' });
export const TerminalResponse = envelope({ terminal: Terminal }, { title: 'TerminalResponse' });

// ---- per-service behaviour of the sandbox simulator (services.behaviour.ts) -----------------------------

const Bin = (description: string) => Type.String({ pattern: '^[0-9]{6}$', description, examples: ['400000'] });

export const ApprovalRule = Type.Object(
  {
    bin_from: Bin('the first BIN of the range: six digits, the card number\'s first six'),
    bin_to: Bin('the last BIN of the range (inclusive), not below bin_from'),
    approve_rate: Type.Number({ minimum: 0, maximum: 1, description: 'the share of the payments the test-card rules approve that this service approves: 0 approves none, 1 all' }),
  },
  { title: 'SandboxApprovalRule', description: 'Payments of cards whose BIN falls in the range are approved at `approve_rate` (the first rule that matches counts)', examples: [EX.APPROVAL_RULE_EXAMPLE] },
);

const SoftDecline = Type.Enum([...SOFT_DECLINES], { description: 'the decline of a payment the approval draw refuses: DENIED ("Do not honour", the default) or PROCESSOR_ERROR ("Issuer unavailable")' });
const Outage = Type.Enum([...OUTAGES], {
  description: 'none (the default); refuse: the connection is refused, nothing is sent (the payment\'s result is unknown but nothing happened at the processor); timeout: the request is sent and no answer comes (unknown; the processor has no record of it)',
});

export const SandboxBehaviour = Type.Object(
  {
    service_uuid: Uuid,
    approval: Type.Array(ApprovalRule, { description: 'approval rules by BIN range, the first match counts; empty: every payment the test-card rules approve is approved' }),
    soft_decline: SoftDecline,
    outage: Outage,
    latency_ms: Type.Integer({ minimum: 0, maximum: MAX_LATENCY_MS, description: 'milliseconds added before every money operation of the service' }),
    updated: Type.Union([ContractDate, Type.Null()], { description: 'when it was set; null: none is set, the service behaves by the test cards (the values shown are the defaults)' }),
  },
  { title: 'SandboxBehaviour', description: 'How the sandbox simulator answers for one sandbox service', examples: [EX.SANDBOX_BEHAVIOUR_EXAMPLE] },
);

export const PutSandboxBehaviourBody = signedBody({
  approval: Type.Optional(Type.Array(ApprovalRule, { maxItems: MAX_APPROVAL_RULES, description: `approval rules by BIN range, at most ${MAX_APPROVAL_RULES}, the first match counts; absent or empty: the test-card rules alone` })),
  soft_decline: Type.Optional(SoftDecline),
  outage: Type.Optional(Outage),
  latency_ms: Type.Optional(Int({ maximum: MAX_LATENCY_MS, description: 'milliseconds added before every money operation of the service (default 0)' })),
}, { title: 'SandboxBehaviourRequest', examples: [EX.PUT_SANDBOX_BEHAVIOUR_REQUEST] });

export const DeleteSandboxBehaviourBody = signedBody({}, { examples: [EX.DELETE_SANDBOX_BEHAVIOUR_REQUEST] });

export const SandboxBehaviourResponse = envelope({ sandbox_behaviour: SandboxBehaviour }, { title: 'SandboxBehaviourResponse' });
