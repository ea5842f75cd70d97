-- The merchant dashboard: sign-in state of the D3 users, sessions, sign-in throttling, the audit log and
-- saved views.
--
-- Times here are real time (the gateway's machinery and a security record, like the jobs and the mail
-- outbox), never a sandbox merchant's test clock: a session's timeouts and a lockout must not move when a
-- test clock does.

-- D3 users get the generated password e-mailed: they must change it at their first sign-in.
alter table dashboard_users add column must_change_password boolean not null default true;
alter table dashboard_users add column password_changed_at timestamptz;
alter table dashboard_users add constraint dashboard_users_status check (status in ('ACTIVE', 'DISABLED'));
-- TOTP second factor: the secret sealed by the vault, enabled once the user proved a code.
alter table dashboard_users add column totp_secret_sealed text;
alter table dashboard_users add column totp_enabled_at timestamptz;
create index dashboard_users_email on dashboard_users (lower(email));

-- A session: the SHA-256 of the random token held in the browser's cookie (never the token itself).
-- `stage` is how far the sign-in went: PASSWORD_CHANGE and TOTP sessions reach only the routes that finish
-- the sign-in. `merchant_id` is the merchant being looked at (the user's own twin of `env`, or a child).
create table dashboard_sessions (
  token_hash text primary key,
  user_id uuid not null references dashboard_users(id),
  stage text not null check (stage in ('PASSWORD_CHANGE', 'TOTP', 'ACTIVE')),
  env text not null check (env in ('sandbox', 'production')),
  merchant_id uuid not null references merchants(id),
  ip text,
  user_agent text,
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  expires_at timestamptz not null,
  ended_at timestamptz,
  end_reason text
);
create index dashboard_sessions_user on dashboard_sessions (user_id) where ended_at is null;

-- Failed sign-ins counted per key (`user:<uuid>`, `login:<name as typed>`, `ip:<address>`) in a window;
-- past the limit the key is locked until `locked_until`.
create table dashboard_signin_failures (
  key text primary key,
  failures integer not null,
  window_started_at timestamptz not null,
  locked_until timestamptz
);

-- Every staff action and sign-in: who, what, when, from where. Append-only.
create table dashboard_audit (
  id bigint generated always as identity primary key,
  merchant_id uuid references merchants(id),
  user_id uuid references dashboard_users(id),
  username text,
  action text not null,
  target text,
  details jsonb,
  ip text,
  created_at timestamptz not null
);
create index dashboard_audit_merchant on dashboard_audit (merchant_id, id desc);
create index dashboard_audit_user on dashboard_audit (user_id, id desc);

-- Filter combinations a user saved on the payments list.
create table dashboard_saved_views (
  id uuid primary key,
  user_id uuid not null references dashboard_users(id),
  name text not null check (length(name) between 1 and 60),
  filters jsonb not null,
  created_at timestamptz not null,
  unique (user_id, name)
);

-- The dashboard acts through the same services as the API, with the caller context of a key: one
-- internal key per merchant, issued when the dashboard first acts for it. Its value is never shown nor
-- kept (only its hash, like every key), so no client can call the API with it; key lists leave it out.
alter table api_keys add column internal boolean not null default false;
create unique index api_keys_internal on api_keys (merchant_id) where internal and revoked_at is null;

-- The dashboard's payments list: search by the last 4 digits of a card, and by customer.
create index transactions_merchant_last4 on transactions (merchant_id, ((source_json::jsonb) ->> 'last4')) where source_json is not null;
create index orders_merchant_customer on orders (merchant_id, customer_ext_id) where customer_ext_id is not null;
