import { Bool, ContractDate, Int, Mcc, Nullable, OptionalUuid, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';
import { PROFILES } from '../../platform/http/types.js';
import { MERCHANT_CATEGORIES, USER_ENVIRONMENTS, USER_GROUPS, USER_LANGUAGES } from './merchants.domain.js';

export const Merchant = Type.Object(
  {
    uuid: Uuid,
    created: ContractDate,
    name: Type.String(),
    email: Type.String(),
    timezone: Type.String(),
    autorecover_transactions: Type.Boolean(),
    resend_failed_notifications: Type.Boolean(),
    is_pci: Type.Boolean(),
    is_deleted: Type.Boolean(),
    category: Nullable(Type.String()),
    mcc: Nullable(Type.String()),
    address: Nullable(Type.String()),
    phone_number: Nullable(Type.String()),
    api_key: Nullable(Type.String({ description: 'shown once, when the merchant is created' })),
    signature: Nullable(Type.String({ description: 'shown once, when the merchant is created' })),
    services: Nullable(Type.Array(Type.Unknown())),
  },
  { description: 'Merchant (client)' },
);

export const CreateMerchantBody = signedBody({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ format: 'email', maxLength: 254 }),
  timezone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA timezone, e.g. Europe/Madrid' }),
  autorecover_transactions: Type.Optional(Bool()),
  resend_failed_notifications: Type.Optional(Bool()),
  is_pci: Type.Optional(Bool()),
  category: Type.Optional(Nullable(Type.Enum([...MERCHANT_CATEGORIES]))),
  mcc: Type.Optional(Nullable(Mcc)),
  address: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
  phone_number: Type.Optional(Nullable(Type.String({ maxLength: 32 }))),
  parent_uuid: OptionalUuid(),
});

export const CreateMerchantResponse = envelope({ client: Merchant });

export const PromoteParams = Type.Object({ uuid: Uuid });
export const PromoteBody = signedBody({});
export const PromoteResponse = envelope({ uuid: Uuid, api_key: Type.String(), signature: Type.String() });

export const DashboardUser = Type.Object({
  uuid: Uuid,
  client_production: Nullable(Uuid),
  client_sandbox: Nullable(Uuid),
  created: ContractDate,
  username: Type.String(),
  email: Type.String(),
  language: Type.String(),
  group: Type.String(),
  status: Type.String(),
});

export const CreateUserBody = signedBody({
  email: Type.String({ format: 'email', maxLength: 254 }),
  username: Type.String({ minLength: 3, maxLength: 64, pattern: '^[A-Za-z0-9._@+-]+$' }),
  language: Type.Enum([...USER_LANGUAGES]),
  environment: Type.Enum([...USER_ENVIRONMENTS]),
  send_email_with_credentials: Bool(),
  group: Type.Enum([...USER_GROUPS]),
  parent_uuid: Type.Optional(Nullable(Uuid)),
});
export const CreateUserResponse = envelope({
  user: DashboardUser,
  password: Type.String({ description: 'shown once' }),
  email: Type.String(),
});

export const ProfilesResponse = envelope({ profiles: Type.Array(Type.Enum([...PROFILES])) });
export const EmptyResponse = envelope({});

export const TestClockResponse = envelope({
  test_clock: Type.Object({
    current_time: ContractDate,
    offset_seconds: Type.Number(),
  }),
});
export const TestClockBody = signedBody({
  advance_seconds: Type.Optional(Int({ minimum: 1, maximum: 10 * 366 * 86400 })),
  advance_to: Type.Optional(Type.String({ format: 'date-time', description: 'an instant in the future' })),
});
