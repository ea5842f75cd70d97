/**
 * TypeBox schemas of the dashboard's JSON API (/dashboard/api). Answers use the API's envelope
 * (`message`, `code`, `current_time`) and its error envelope, so the web app reads one error format:
 * the contract's `details` of a refused refund is shown as the API gives it.
 */
import { Nullable, Type, Uuid, envelope } from '../../platform/http/schemas.js';
import { OrderSchema } from '../payments/index.js';
import { EventSchema } from '../events/index.js';
import { GROUPS, LANGUAGES, PERMISSIONS, type Permission } from './dashboard.domain.js';

const Env = Type.Union([Type.Literal('sandbox'), Type.Literal('production')]);
const Stage = Type.Union([Type.Literal('PASSWORD_CHANGE'), Type.Literal('TOTP'), Type.Literal('ACTIVE')]);
const Language = Type.Unsafe<(typeof LANGUAGES)[number]>({ type: 'string', enum: [...LANGUAGES] });

export const SignInBody = Type.Object({
  login: Type.String({ minLength: 1, maxLength: 254, description: 'username or e-mail' }),
  password: Type.String({ minLength: 1, maxLength: 200 }),
});

export const ChangePasswordBody = Type.Object({
  current_password: Type.String({ minLength: 1, maxLength: 200 }),
  new_password: Type.String({ minLength: 1, maxLength: 400 }),
});

export const EnvBody = Type.Object({ env: Env });
export const MerchantBody = Type.Object({ merchant_uuid: Uuid });
export const LanguageBody = Type.Object({ language: Language });

const Me = {
  user: Type.Object({
    uuid: Uuid,
    username: Type.String(),
    email: Type.String(),
    language: Type.String(),
    group: Type.String(),
    totp_enabled: Type.Boolean(),
  }),
  stage: Stage,
  csrf_token: Type.String({ description: 'send it as X-CSRF-Token on every change' }),
  env: Env,
  envs: Type.Array(Env, { description: 'the environments the user has a merchant in' }),
  merchant: Type.Object({ uuid: Uuid, name: Type.String(), timezone: Type.String() }),
  merchants: Type.Array(Type.Object({ uuid: Uuid, name: Type.String(), parent_uuid: Nullable(Uuid) }), { description: 'the merchants the user may look at in this environment' }),
  permissions: Type.Array(Type.Unsafe<Permission>({ type: 'string', enum: [...PERMISSIONS] }), { description: 'what the user\'s group may do (the role table)' }),
  idle_timeout_s: Type.Integer(),
};
export const SessionResponse = envelope(Me);
export const EmptyResponse = envelope({});
export const SignedOutResponse = envelope({ sessions_ended: Type.Integer() });

// ---- payments ---------------------------------------------------------------------------------------------

const List = (t: ReturnType<typeof Type.String>) => Type.Optional(Type.Array(t, { maxItems: 20, description: 'repeat the parameter for several values' }));

export const OrdersQuery = Type.Object({
  status: List(Type.String({ maxLength: 40 })),
  operative: List(Type.String({ maxLength: 40 })),
  from: Type.Optional(Type.String({ maxLength: 40, description: 'created at or after: YYYY-MM-DD or ISO 8601' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'created before: YYYY-MM-DD or ISO 8601' })),
  amount_min: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999_999_999 })),
  amount_max: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999_999_999 })),
  service: Type.Optional(Type.String({ maxLength: 36 })),
  customer: Type.Optional(Type.String({ maxLength: 255 })),
  email: Type.Optional(Type.String({ maxLength: 254, description: 'the customer\'s e-mail (its profile, E10)' })),
  reference: Type.Optional(Type.String({ maxLength: 255 })),
  last4: Type.Optional(Type.String({ maxLength: 4 })),
  method: Type.Optional(Type.String({ maxLength: 40 })),
  q: Type.Optional(Type.String({ maxLength: 255, description: 'an order or transaction uuid, a reference, a customer id or the last 4 digits of a card' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});

const Card = Type.Object({ bin: Nullable(Type.String()), last4: Type.String(), brand: Type.String() });

export const OrderRow = Type.Object({
  uuid: Uuid,
  created_at: Type.String({ description: 'ISO 8601 UTC (the merchant clock)' }),
  status: Type.String(),
  operative: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  refunded: Type.Integer(),
  captured: Type.Integer(),
  reference: Nullable(Type.String()),
  customer: Nullable(Type.String()),
  description: Type.String(),
  service_uuid: Uuid,
  method: Nullable(Type.String({ description: 'the `object` of the last payment attempt\'s source: CARD, BIZUM, ...' })),
  card: Nullable(Card),
});

export const OrdersResponse = envelope({ orders: Type.Array(OrderRow), next_cursor: Nullable(Type.String()) });

export const OrderParams = Type.Object({ uuid: Uuid });

export const OrderDetailResponse = envelope({
  order: OrderSchema,
  currency: Type.String({ description: 'the order\'s currency, ISO 4217 alpha-3 (the order carries the numeric code)' }),
  notifications: Type.Array(EventSchema),
  payment_url: Nullable(Type.String({ description: 'the hosted payment page of an order that can still be paid' })),
  requests: Type.Array(Type.Object({ uuid: Uuid, method: Type.String(), path: Type.String(), status: Type.Integer(), request_id: Type.String(), created_at: Type.String() }), { description: 'the API requests that touched the order (the request log)' }),
  description: Type.String({ description: 'the order\'s description (B1 `description`; `order.additional` is its free text)' }),
  expires_at: Nullable(Type.String({ description: 'until when the order can be paid (its `expires_in`), ISO 8601 UTC' })),
  metadata: Type.Record(Type.String(), Type.Record(Type.String(), Type.String()), { description: 'the metadata of each transaction (C4), by transaction uuid' }),
});

export const OrderActionResponse = envelope({ order: OrderSchema });
export const AmountBody = Type.Object({ amount: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 999_999_999_999 }))) });
export const MetadataBody = Type.Object({
  metadata: Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Type.String({ maxLength: 500 }), { maxProperties: 20 }),
});
export const MetadataResponse = envelope({ transaction_uuid: Uuid, metadata: Type.Record(Type.String(), Type.String()) });
export const NotificationResponse = envelope({ notification: EventSchema });

const Filters = Type.Object({
  status: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 20 })),
  operative: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 20 })),
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
  amount_min: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999_999_999 })),
  amount_max: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999_999_999 })),
  service: Type.Optional(Type.String({ maxLength: 36 })),
  customer: Type.Optional(Type.String({ maxLength: 255 })),
  email: Type.Optional(Type.String({ maxLength: 254 })),
  reference: Type.Optional(Type.String({ maxLength: 255 })),
  last4: Type.Optional(Type.String({ maxLength: 4 })),
  method: Type.Optional(Type.String({ maxLength: 40 })),
  q: Type.Optional(Type.String({ maxLength: 255 })),
});
const View = Type.Object({ uuid: Uuid, name: Type.String(), filters: Filters });
export const ViewBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 60 }), filters: Filters });
export const ViewsResponse = envelope({ views: Type.Array(View) });
export const ViewResponse = envelope({ view: View });

// ---- developers -------------------------------------------------------------------------------------------

const Key = Type.Object({
  uuid: Uuid,
  prefix: Type.String({ description: 'the first 6 characters of the key' }),
  profiles: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  created_at: Type.String(),
  revoked_at: Nullable(Type.String()),
  last_used_at: Nullable(Type.String({ description: 'the last request the key made, from the request log' })),
});
export const KeysResponse = envelope({ keys: Type.Array(Key) });
export const CreateKeyBody = Type.Object({
  profiles: Type.Array(Type.String({ maxLength: 40 }), { minItems: 1, maxItems: 10 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
});
export const CreatedKeyResponse = envelope({
  uuid: Uuid,
  api_key: Type.String({ description: 'shown this once: it is stored hashed' }),
  signature: Type.String({ description: 'shown this once: it is stored sealed' }),
  profiles: Type.Array(Type.String()),
});

export const DeliveriesQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('PENDING'), Type.Literal('DELIVERED'), Type.Literal('FAILED')])),
  order_uuid: Type.Optional(Uuid),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
});
export const DeliveriesResponse = envelope({ count: Type.Integer(), count_capped: Type.Boolean(), events: Type.Array(EventSchema), next_offset: Nullable(Type.Integer()) });

const RequestSummary = Type.Object({
  uuid: Uuid,
  key_uuid: Nullable(Uuid),
  method: Type.String(),
  path: Type.String(),
  status: Type.Integer(),
  duration_ms: Type.Integer(),
  idempotency_key: Nullable(Type.String()),
  request_id: Type.String(),
  order_uuid: Nullable(Uuid),
  created_at: Type.String(),
});
export const RequestsQuery = Type.Object({
  request_id: Type.Optional(Type.String({ maxLength: 100 })),
  order_uuid: Type.Optional(Uuid),
  status: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('error')])),
  method: Type.Optional(Type.Union(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => Type.Literal(m)))),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
});
export const RequestsResponse = envelope({ requests: Type.Array(RequestSummary), next_cursor: Nullable(Type.String()), retention_days: Type.Integer() });
export const RequestResponse = envelope({
  request: Type.Object({
    ...RequestSummary.properties,
    request_body: Nullable(Type.String({ description: 'as sent, with card numbers, CVVs, PIN blocks, signatures and keys redacted' })),
    response_body: Nullable(Type.String({ description: 'as answered, redacted the same way' })),
  }),
});
export const RequestParams = Type.Object({ uuid: Uuid });

// ---- users and audit --------------------------------------------------------------------------------------

const GroupSchema = Type.Unsafe<(typeof GROUPS)[number]>({ type: 'string', enum: [...GROUPS], description: 'the D3 group' });
const SignInState = Type.Object({
  locks: Type.Array(Type.Object({
    address: Type.String({ description: 'the client address the user is locked at' }),
    locked_until: Type.String(),
    failures: Type.Integer({ description: 'failed sign-ins from the address in the window' }),
    attempts_during_lock: Type.Integer({ description: 'sign-ins refused since the lock began' }),
  }), { description: 'the addresses the user is locked at now (too many failed sign-ins from each)' }),
  slowed_until: Nullable(Type.String({ description: 'while set, addresses the user never signed in from wait between tries (failed sign-ins from everywhere)' })),
  failures: Type.Integer({ description: 'failed sign-ins from every address in the window, while slowed down' }),
});
const Invitation = Type.Object({
  delivery: Type.Union([Type.Literal('EMAIL'), Type.Literal('SHOWN')], { description: 'EMAIL: the one-time password was e-mailed; SHOWN: shown once to the inviting manager (no e-mail configured)' }),
  mail_status: Nullable(Type.Union([Type.Literal('PENDING'), Type.Literal('SENT'), Type.Literal('FAILED')], { description: 'the e-mail\'s delivery' })),
  mail_error: Nullable(Type.String({ description: 'why the e-mail was not delivered (yet)' })),
  invited_at: Type.String(),
});
const UserRow = Type.Object({
  uuid: Uuid,
  username: Type.String(),
  email: Type.String(),
  language: Type.String(),
  group: Type.String(),
  status: Type.String(),
  merchant_uuid: Uuid,
  totp_enabled: Type.Boolean(),
  must_change_password: Type.Boolean(),
  created_at: Type.String(),
  signin: SignInState,
  invitation: Nullable(Invitation),
});
export const UsersResponse = envelope({ users: Type.Array(UserRow) });
export const InviteBody = Type.Object({
  username: Type.String({ minLength: 3, maxLength: 64, pattern: '^[A-Za-z0-9._@+-]+$' }),
  email: Type.String({ format: 'email', maxLength: 254 }),
  language: Language,
  group: GroupSchema,
});
const Credentials = {
  delivery: Type.Union([Type.Literal('EMAIL'), Type.Literal('SHOWN')]),
  password: Nullable(Type.String({ description: 'the one-time password, answered this once when no e-mail can carry it (delivery SHOWN); null when it was e-mailed' })),
};
export const InvitedResponse = envelope({ uuid: Uuid, ...Credentials });
export const CredentialsResponse = envelope(Credentials);
export const UpdateUserBody = Type.Object({
  group: Type.Optional(GroupSchema),
  status: Type.Optional(Type.Union([Type.Literal('ACTIVE'), Type.Literal('DISABLED')])),
}, { minProperties: 1 });

export const AuditQuery = Type.Object({
  user: Type.Optional(Uuid),
  action: Type.Optional(Type.String({ maxLength: 60 })),
  // the next_cursor of the previous page: an entry's id (a bigint; 18 digits always fit)
  cursor: Type.Optional(Type.String({ maxLength: 18, pattern: '^[0-9]+$' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
});
const AuditRow = Type.Object({
  id: Type.String(),
  created_at: Type.String(),
  user_uuid: Nullable(Uuid),
  username: Nullable(Type.String()),
  action: Type.String({ description: 'signin, signin.failed, order.refund, user.invite, key.create, …' }),
  target: Nullable(Type.String()),
  details: Type.Unknown(),
  ip: Nullable(Type.String()),
  merchant_uuid: Nullable(Uuid),
});
export const AuditResponse = envelope({ entries: Type.Array(AuditRow), next_cursor: Nullable(Type.String()) });

// ---- two-factor and password reset ----------------------------------------------------------------------

export const TotpSignInBody = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 10, description: 'the 6 digits of the authenticator app' })),
  recovery_code: Type.Optional(Type.String({ maxLength: 20, description: 'one of the recovery codes, instead' })),
}, { minProperties: 1 });
export const TotpSetupResponse = envelope({
  secret: Type.String({ description: 'base32, for typing into the app' }),
  otpauth_uri: Type.String(),
  qr_code: Type.String({ description: 'the URI as a QR code, a PNG data URL' }),
});
export const TotpEnableBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 10 }) });
export const RecoveryCodesResponse = envelope({ recovery_codes: Type.Array(Type.String(), { description: 'shown this once; each works once' }) });
export const TotpDisableBody = Type.Object({ password: Type.String({ minLength: 1, maxLength: 200 }), code: Type.String({ minLength: 1, maxLength: 20 }) });
export const ResetRequestBody = Type.Object({ login: Type.String({ minLength: 1, maxLength: 254 }) });
export const ResetConfirmBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }), new_password: Type.String({ minLength: 1, maxLength: 400 }) });
