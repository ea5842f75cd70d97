-- Recurring billing: the company of a merchant, its products and plans, subscriptions and their
-- payments. Each charge of a subscription is an order of the payments module (order_id); the rule
-- "one charge per (subscription, payment number, attempt)" is the unique key of subscription_payments.
create table subscription_companies (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  name text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (merchant_id, env)
);

create table subscription_products (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  external_id text not null check (length(external_id) between 1 and 255),
  name text not null check (length(name) between 1 and 255),
  notification_url text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
);
create unique index subscription_products_ext on subscription_products (merchant_id, env, external_id) where deleted_at is null;

create table subscription_plans (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  product_id uuid not null references subscription_products(id),
  external_id text not null check (length(external_id) between 1 and 255),
  name text not null check (length(name) between 1 and 255),
  amount bigint not null check (amount >= 0),
  interval integer not null check (interval >= 1),
  interval_type text not null check (interval_type in ('DAILY', 'WEEKLY', 'MONTHLY', 'ANNUAL')),
  interval_offset integer check (interval_offset >= 0),
  interval_offset_type text check (interval_offset_type in ('DAILY', 'WEEKLY', 'MONTHLY', 'ANNUAL')),
  trial_available boolean not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
);
create unique index subscription_plans_ext on subscription_plans (merchant_id, env, external_id) where deleted_at is null;

create table subscriptions (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  -- the key that subscribed: charges are made in its name
  key_id uuid not null references api_keys(id),
  plan_id uuid not null references subscription_plans(id),
  customer_ext_id text not null,
  additional_data jsonb,
  -- copied from the plan at subscription time (removing or changing the plan changes no subscription)
  amount bigint not null check (amount >= 0),
  interval integer not null check (interval >= 1),
  interval_type text not null,
  status text not null check (status in ('CREATED', 'PAID', 'UNPAID', 'CANCELLED', 'FINISHED')),
  active boolean not null,
  total_payment_number integer check (total_payment_number >= 1),
  payment_attempts_limit integer not null check (payment_attempts_limit >= 1),
  -- merchant clock; the anchor of every charge date
  first_charge_date timestamptz not null,
  next_charge_date timestamptz,
  -- the charge the schedule waits for: payment number and attempt
  next_payment_number integer not null default 1,
  next_attempt integer not null default 1,
  total_payment_charged integer not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  seq bigserial
);
create index subscriptions_merchant on subscriptions (merchant_id, env, created_at, seq);

create table subscription_payments (
  id uuid primary key,
  subscription_id uuid not null references subscriptions(id),
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  payment_number integer not null check (payment_number >= 1),
  attempt integer not null check (attempt >= 1),
  amount bigint not null check (amount >= 0),
  currency text,
  status text not null check (status in ('CREATED', 'PAID', 'FAILED', 'FAILED_NOTIFICATION')),
  -- merchant clock: when the charge was due
  payment_date timestamptz not null,
  order_id uuid,
  transaction_id uuid,
  source_uuid text,
  error text,
  -- real time: the run that is charging it holds it until then (a crashed run's lease runs out)
  charging_until timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  seq bigserial,
  unique (subscription_id, payment_number, attempt)
);
create index subscription_payments_merchant on subscription_payments (merchant_id, env, created_at, seq);
-- at most one paid charge per payment number, whatever happens
create unique index subscription_payments_paid on subscription_payments (subscription_id, payment_number) where status = 'PAID';
