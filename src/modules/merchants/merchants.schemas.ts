import { Bool, ContractDate, Int, Mcc, Nullable, OptionalUuid, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';
import { PROFILES } from '../../platform/http/types.js';
import { MERCHANT_CATEGORIES, USER_ENVIRONMENTS, USER_GROUPS, USER_LANGUAGES } from './merchants.domain.js';
import * as EX from './merchants.examples.js';

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
  { title: 'Merchant', description: 'A merchant (client). `api_key` and `signature` are shown once, when it is created', examples: [EX.MERCHANT_EXAMPLE] },
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
}, { title: 'CreateMerchantRequest', examples: [EX.CREATE_MERCHANT_REQUEST] });

export const CreateMerchantResponse = envelope({ client: Merchant }, { title: 'MerchantResponse' });

export const PromoteParams = Type.Object({ uuid: Uuid });
export const PromoteBody = signedBody({}, { examples: [EX.PROMOTE_REQUEST] });
export const PromoteResponse = envelope({
  uuid: Type.String({ format: 'uuid', description: 'the new production merchant', examples: ['1a3c5e7b-9d0f-4b2d-8f4a-6c8e0a2c4e6b'] }),
  api_key: Type.String({ description: 'the production API key, shown once', examples: ['5d7f9b1c3e5a7c9e1b3d5f7a9c1e3b5d'] }),
  signature: Type.String({ description: 'the production signature, shown once', examples: ['b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2'] }),
});

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
}, { title: 'DashboardUser', description: 'A user of the merchant dashboard', examples: [EX.DASHBOARD_USER_EXAMPLE] });

export const CreateUserBody = signedBody({
  email: Type.String({ format: 'email', maxLength: 254 }),
  username: Type.String({ minLength: 3, maxLength: 64, pattern: '^[A-Za-z0-9._@+-]+$' }),
  language: Type.Enum([...USER_LANGUAGES]),
  environment: Type.Enum([...USER_ENVIRONMENTS]),
  send_email_with_credentials: Bool(),
  group: Type.Enum([...USER_GROUPS]),
  parent_uuid: Type.Optional(Nullable(Uuid)),
}, { examples: [EX.CREATE_USER_REQUEST] });
export const CreateUserResponse = envelope({
  user: DashboardUser,
  password: Type.String({ description: 'shown once', examples: ['pV7#kq2Lm9xR4tZa'] }),
  email: Type.String({ examples: ['lucia@ultramarinos.example'] }),
});

export const ProfilesResponse = envelope({ profiles: Type.Array(Type.Enum([...PROFILES]), { examples: [['payment', 'refund', 'readonly']] }) });
export const EmptyResponse = envelope({});

export const TestClockResponse = envelope({
  test_clock: Type.Object({
    current_time: ContractDate,
    offset_seconds: Type.Number({ description: 'how far the sandbox clock runs ahead of real time', examples: [86400] }),
  }, { title: 'TestClock', description: 'The sandbox clock of the merchant' }),
});
export const ResetTestClockBody = signedBody({}, { examples: [EX.RESET_TEST_CLOCK_REQUEST] });
export const TestClockBody = signedBody({
  advance_seconds: Type.Optional(Int({ minimum: 1, maximum: 10 * 366 * 86400 })),
  advance_to: Type.Optional(Type.String({ format: 'date-time', description: 'an instant in the future' })),
}, { examples: [EX.TEST_CLOCK_REQUEST] });
