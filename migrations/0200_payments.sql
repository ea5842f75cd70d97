-- Payments core: orders, their transactions, the retry state of cancellation/confirmation/refund, and
-- notifications (events) with every delivery attempt. Money is integer minor units (bigint); the checks
-- below back the amount rules of decisions §4 whatever the code does.

create table orders (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  -- the API key that created the order: notifications are signed with its signature
  key_id uuid not null references api_keys(id),
  service_id uuid not null references services(id),
  service_type text not null,
  operative text not null check (operative in ('AUTHORIZATION', 'PARTIAL_AUTHORIZATION', 'DEFERRED', 'PAYOUT', 'TRANSFER')),
  amount bigint not null check (amount >= 0),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  currency_number text not null check (currency_number ~ '^[0-9]{3}$'),
  secure boolean not null,
  status text not null check (status in ('CREATED', 'PENDING_3DS_RESPONSE', 'AUTHENTICATION_REQUIRED',
    'PENDING_PROCESSOR_RESPONSE', 'PENDING_CONFIRMATION', 'SUCCESS', 'PARTIALLY_REFUNDED', 'REFUNDED',
    'CANCELLED', 'REFUSED', 'ERROR', 'FRAUD', 'BLACKLISTED', 'EXPIRED')),
  paid boolean not null default false,
  safe boolean not null default false,
  -- approved by the processor: the charge (or the hold, for DEFERRED)
  authorized bigint not null default 0 check (authorized >= 0),
  -- charged: what refunds can give back
  captured bigint not null default 0 check (captured >= 0),
  refunded bigint not null default 0 check (refunded >= 0),
  -- refunds in flight (PENDING at the processor)
  refund_reserved bigint not null default 0 check (refund_reserved >= 0),
  -- an exclusive operation in flight (confirmation or cancellation): its transaction
  busy_tx_id uuid,
  description text not null,
  additional text,
  customer_ext_id text,
  cof_txnid text,
  token text not null unique,
  ip text,
  reference text,
  dynamic_descriptor text,
  threeds_data jsonb,
  url_post text,
  url_ok text,
  url_ko text,
  template_uuid text,
  dcc_template_uuid text,
  source_id uuid,
  save_card boolean not null default true,
  extra_data jsonb,
  -- on the merchant's clock (the sandbox test clock applies)
  expires_at timestamptz not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  constraint orders_authorized_le_amount check (authorized <= amount),
  constraint orders_captured_le_authorized check (captured <= authorized),
  constraint orders_refunds_le_captured check (refunded + refund_reserved <= captured),
  constraint orders_paid_means_captured check (not paid or captured > 0 or amount = 0)
);
create unique index orders_merchant_reference on orders (merchant_id, reference) where reference is not null;
create index orders_merchant_created on orders (merchant_id, created_at);
-- the expiry sweep reads only open orders
create index orders_open_expiry on orders (expires_at)
  where status in ('CREATED', 'REFUSED', 'ERROR', 'PENDING_3DS_RESPONSE', 'AUTHENTICATION_REQUIRED');

create table transactions (
  id uuid primary key,
  order_id uuid not null references orders(id),
  merchant_id uuid not null references merchants(id),
  operative text not null check (operative in ('AUTHORIZATION', 'DEFERRED', 'CONFIRMATION', 'CANCELLATION', 'REFUND', 'PAYOUT', 'TRANSFER')),
  -- the connector operation, for the reconciler's lookup
  processor_operation text not null,
  amount bigint not null check (amount >= 0),
  status text not null check (status in ('PENDING', 'SUCCESS', 'REFUSED', 'ERROR', 'CANCELLED')),
  error text not null default 'NONE' check (error in ('NONE', 'DENIED', 'INSUFFICIENT_FUNDS', 'EXPIRED_CARD',
    'INVALID_CARD', 'AUTHENTICATION_FAILED', 'FRAUD_SUSPECTED', 'BLACKLISTED', 'PROCESSOR_ERROR', 'TIMEOUT')),
  auth_code text not null default '',
  processor_id text,
  source_id uuid,
  -- the Source record at payment time, serialized (key order kept)
  source_json text,
  antifraud jsonb,
  device jsonb,
  error_details text,
  customer_ip text,
  -- waiting for the cardholder's 3DS (not for the processor): the reconciler leaves it alone
  awaiting_3ds boolean not null default false,
  metadata jsonb,
  -- on the merchant's clock
  created_at timestamptz not null,
  updated_at timestamptz not null,
  -- real time the processor call started (the reconciler's age)
  started_at timestamptz not null,
  check (status <> 'SUCCESS' or error = 'NONE'),
  check (status = 'PENDING' or not awaiting_3ds)
);
create index transactions_order on transactions (order_id, created_at);
create index transactions_merchant_created on transactions (merchant_id, created_at);
create index transactions_pending on transactions (started_at) where status = 'PENDING' and not awaiting_3ds;

-- Retry rules of api.md Limits, per order and operation.
create table order_operation_retries (
  order_id uuid not null references orders(id),
  operation text not null check (operation in ('CANCELLATION', 'CONFIRMATION', 'REFUND')),
  failures integer not null default 0 check (failures >= 0),
  last_failure_at timestamptz,
  last_success_at timestamptz,
  primary key (order_id, operation)
);

-- Notifications to the merchant (decisions §7, §9): one event per notification, every attempt kept.
create table events (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  type text not null,
  order_id uuid references orders(id),
  key_id uuid references api_keys(id),
  url text not null,
  -- the notified `{"order":…,"client":…}`, serialized once (validation_hash is computed over it)
  payload text not null,
  status text not null check (status in ('PENDING', 'DELIVERED', 'FAILED')),
  -- the merchant's resend_failed_notifications when the event was made
  retries boolean not null,
  attempts integer not null default 0,
  -- merchant clock
  first_attempt_at timestamptz,
  next_attempt_at timestamptz,
  delivered_at timestamptz,
  created_at timestamptz not null
);
create index events_merchant_created on events (merchant_id, created_at desc);
create index events_order on events (order_id);

create table event_attempts (
  id bigserial primary key,
  event_id uuid not null references events(id),
  attempted_at timestamptz not null,
  http_status integer,
  error text,
  duration_ms integer not null
);
create index event_attempts_event on event_attempts (event_id, id);
