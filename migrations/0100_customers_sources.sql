-- Customers and stored payment methods (sources). Card numbers and IBANs are stored only sealed by the
-- vault (envelope encryption, associated data `source:<uuid>`), with a keyed fingerprint (HMAC) to tell
-- "same card" apart. There is no column for a CVV: it is used once and dropped.

create table customers (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  -- the merchant-chosen identifier (customer_ext_id / external_id); numbers are kept as strings
  external_id text not null check (length(external_id) between 1 and 255),
  token text not null unique,
  created_at timestamptz not null default now(),
  constraint customers_merchant_external unique (merchant_id, external_id)
);

create table sources (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  customer_id uuid not null references customers(id),
  type text not null check (type in ('card', 'dynamic_card', 'bank', 'paypal', 'tap_to_pay', 'ecopaynet')),
  -- card holder or bank account holder
  holder text not null,
  -- Source.token: an opaque random reference, never derived from the number
  token text not null unique,
  -- the PAN (cards) or IBAN (banks), sealed by the vault with associated data source:<id>
  number_sealed text not null check (number_sealed like 'v1.%'),
  -- keyed HMAC of the number (namespace 'pan' or 'iban'): "same card" without anything reversible
  fingerprint text not null check (fingerprint ~ '^[0-9a-f]{64}$'),
  bin text check (bin ~ '^[0-9]{6}$'),
  last4 text not null check (last4 ~ '^[0-9A-Z]{4}$'),
  brand text,
  brand_description text,
  card_type text not null default '',
  country text,
  bank text not null default '',
  prepaid boolean,
  expire_month smallint check (expire_month between 1 and 12),
  expire_year smallint check (expire_year between 2000 and 2199),
  additional text,
  origin text not null default 'API',
  is_saved boolean not null default true,
  -- set when the source is validated at storage (or revalidated) or used in a successful payment
  validation_date timestamptz,
  -- the last successful payment made with the source (B15 payouts pick the newest)
  last_paid_at timestamptz,
  deleted_at timestamptz,
  created_at timestamptz not null default now(),
  check (type <> 'card' or (bin is not null and expire_month is not null and expire_year is not null and brand is not null))
);
create index sources_customer on sources (customer_id, created_at desc) where deleted_at is null;
create index sources_merchant on sources (merchant_id);
create index sources_fingerprint on sources (merchant_id, fingerprint) where deleted_at is null;
create index sources_last_paid on sources (customer_id, last_paid_at desc) where deleted_at is null and last_paid_at is not null;
