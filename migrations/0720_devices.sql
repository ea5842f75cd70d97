-- Physical devices (payment terminals) of a merchant and the operations sent to them.
-- Card data a device reads is never kept here: only the BIN and last 4 of the card of an operation.
create table devices (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  service_id uuid not null references services(id),
  -- the merchant's name for the device (its serial number, usually); unique per merchant and environment
  identifier text not null check (length(identifier) between 1 and 100),
  -- TID: 8 digits, assigned by the gateway
  terminal_id text not null check (terminal_id ~ '^[0-9]{8}$'),
  -- MID: the terminal code of the service's terminal
  mid text not null,
  communication_type text not null check (communication_type in ('SIMULATION', 'SOCKET')),
  connection_status text not null check (connection_status in ('ONLINE', 'OFFLINE')),
  active boolean not null default true,
  configured boolean not null default false,
  properties jsonb not null default '{}'::jsonb check (jsonb_typeof(properties) = 'object'),
  status jsonb not null default '{}'::jsonb check (jsonb_typeof(status) = 'object'),
  -- sha-256 of the device's bearer token (shown once)
  token_hash text not null unique,
  -- the API key that registered the device: card-present operations act in its name
  key_id uuid not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  seq bigserial,
  unique (merchant_id, env, identifier),
  unique (merchant_id, env, terminal_id)
);
create index devices_merchant on devices (merchant_id, env, created_at, seq);

create table device_operations (
  id uuid primary key,
  device_id uuid not null references devices(id),
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  -- the API key that sent the operation: background steps act in its name
  key_id uuid not null,
  kind text not null check (kind in ('PAYMENT', 'PREAUTHORIZATION')),
  order_id uuid not null unique,
  amount bigint not null check (amount >= 0),
  currency text not null,
  status text not null check (status in ('QUEUED', 'SENT', 'CARD_READ', 'APPROVED', 'REFUSED', 'FAILED', 'CANCELLED', 'TIMED_OUT')),
  error text,
  card_bin text check (card_bin is null or card_bin ~ '^[0-9]{6}$'),
  card_last4 text check (card_last4 is null or card_last4 ~ '^[0-9]{4}$'),
  card_reading_method text,
  -- on the merchant's clock: an operation not answered by then fails
  deadline_at timestamptz not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  seq bigserial
);
create index device_operations_device on device_operations (device_id, status, seq);

-- Card-present operations (K1-K9) a device made with its token. `stan` is unique per device and day (the
-- merchant's day); `rrn` (12 digits) is assigned by the gateway, unique per merchant and environment.
create table card_present_operations (
  id uuid primary key,
  device_id uuid not null references devices(id),
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  kind text not null check (kind in ('PAYMENT', 'PREAUTHORIZATION', 'REFUND', 'CONFIRMATION', 'CANCELLATION', 'VOID')),
  order_id uuid not null,
  stan text not null check (stan ~ '^[0-9]{1,12}$'),
  stan_day text not null,
  rrn text not null check (rrn ~ '^[0-9]{12}$'),
  amount bigint,
  card_bin text check (card_bin is null or card_bin ~ '^[0-9]{6}$'),
  card_last4 text check (card_last4 is null or card_last4 ~ '^[0-9]{4}$'),
  card_reading_method text,
  created_at timestamptz not null,
  seq bigserial,
  unique (device_id, stan_day, stan),
  unique (merchant_id, env, rrn)
);
create index card_present_operations_device on card_present_operations (device_id, seq);
create index card_present_operations_order on card_present_operations (order_id);
