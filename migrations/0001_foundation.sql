-- Foundation: merchants (clients), API keys, dashboard users, terminals, services, durable jobs,
-- idempotency records, the mail outbox and vault canaries.

create table merchants (
  id uuid primary key,
  env text not null check (env in ('sandbox', 'production')),
  parent_id uuid references merchants(id),
  -- on a production merchant: the sandbox merchant it was promoted from
  sandbox_twin_id uuid unique references merchants(id),
  name text not null,
  email text not null,
  timezone text not null,
  autorecover_transactions boolean not null default false,
  resend_failed_notifications boolean not null default false,
  is_pci boolean not null default false,
  is_deleted boolean not null default false,
  category text,
  mcc text check (mcc ~ '^[0-9]{4}$'),
  address text,
  phone_number text,
  -- sandbox test clock: how far this merchant's time runs ahead of the real clock
  clock_offset_ms bigint not null default 0 check (clock_offset_ms >= 0),
  created_at timestamptz not null default now(),
  check (env = 'sandbox' or clock_offset_ms = 0),
  check (sandbox_twin_id is null or env = 'production')
);
create index merchants_parent on merchants (parent_id);

create table api_keys (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  -- sha256 hex of the key: keys carry 128 random bits, so the hash is safe to store and index
  key_hash text not null unique,
  key_prefix text not null,
  signature_hash text not null,
  -- the signature is also needed in clear to compute validation_hash: sealed by the vault
  signature_sealed text not null,
  profiles text[] not null check (cardinality(profiles) > 0),
  description text,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index api_keys_merchant on api_keys (merchant_id);

create table dashboard_users (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  client_sandbox_id uuid references merchants(id),
  client_production_id uuid references merchants(id),
  username text not null unique,
  email text not null,
  language text not null check (language in ('ES', 'EN', 'PT')),
  user_group text not null check (user_group in ('MANAGER', 'USER', 'VIEWER', 'MANUAL PAYMENT', 'BATCH', 'PAYMENTS')),
  status text not null default 'ACTIVE',
  password_hash text not null,
  created_at timestamptz not null default now()
);
create index dashboard_users_merchant on dashboard_users (merchant_id);

create table terminals (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  type text not null,
  code text,
  currency_code text not null check (currency_code ~ '^[A-Z]{3}$'),
  dcc_allowed boolean not null default false,
  is_cof_disabled_by_default boolean not null default false,
  description text not null,
  acquirer text,
  credentials_sealed text,
  credentials_masked jsonb,
  created_at timestamptz not null default now()
);
create index terminals_merchant on terminals (merchant_id);

create table services (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  name text not null,
  type text not null,
  terminal_id uuid references terminals(id),
  enabled boolean not null default false,
  dcc_allowed boolean not null default false,
  dcc_mode text check (dcc_mode in ('LOCAL', 'FOREIGN', 'DYNAMIC')),
  dynamic_descriptor text,
  referential_integrity text,
  mcc text check (mcc ~ '^[0-9]{4}$'),
  created_at timestamptz not null default now(),
  -- a service stays pending (disabled) until it has a terminal
  check (terminal_id is not null or not enabled)
);
create index services_merchant on services (merchant_id);

create table jobs (
  id bigserial primary key,
  queue text not null,
  payload jsonb not null default '{}'::jsonb,
  run_at timestamptz not null,
  status text not null default 'pending' check (status in ('pending', 'running', 'done', 'failed')),
  attempts integer not null default 0,
  max_attempts integer not null default 10,
  -- the sandbox merchant whose test clock the job follows (null: real time only)
  merchant_id uuid,
  locked_by text,
  locked_until timestamptz,
  last_error text,
  dedupe_key text,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index jobs_due on jobs (run_at) where status = 'pending';
create index jobs_lease on jobs (locked_until) where status = 'running';
create index jobs_merchant on jobs (merchant_id) where status = 'pending';
create unique index jobs_dedupe on jobs (queue, dedupe_key) where dedupe_key is not null and status in ('pending', 'running');

create table idempotency_keys (
  merchant_id uuid not null references merchants(id),
  key text not null,
  request_fingerprint text not null,
  status text not null check (status in ('in_flight', 'done')),
  response_status integer,
  response_body text,
  locked_until timestamptz not null,
  created_at timestamptz not null default now(),
  primary key (merchant_id, key)
);
create index idempotency_keys_created on idempotency_keys (created_at);

create table mail_outbox (
  id uuid primary key,
  merchant_id uuid references merchants(id),
  recipient text not null,
  subject text not null,
  -- bodies can carry credentials: sealed by the vault
  body_sealed text not null,
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed')),
  attempts integer not null default 0,
  last_error text,
  created_at timestamptz not null default now(),
  sent_at timestamptz
);

create table vault_canaries (
  key_id text primary key,
  sealed text not null,
  created_at timestamptz not null default now()
);
