-- Risk: security lists (white, black, grey) linked to services, their items, the antifraud settings of
-- each merchant, and the small records the antifraud rules read (velocity events, cards seen).

-- A security list of a merchant in one environment.
create table risk_lists (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  type text not null check (type in ('WHITELIST', 'BLACKLIST', 'GREYLIST')),
  enabled boolean not null,
  description text not null check (length(description) <= 1000),
  -- kept in the same transaction as every insert and delete of items (listing pages need no count(*))
  item_count integer not null default 0 check (item_count >= 0),
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index risk_lists_merchant on risk_lists (merchant_id, env, type, created_at);

-- The services a list applies to. A list linked to no service applies to no payment.
create table risk_list_services (
  service_id uuid not null references services(id),
  list_id uuid not null references risk_lists(id) on delete cascade,
  created_at timestamptz not null,
  primary key (service_id, list_id)
);
create index risk_list_services_list on risk_list_services (list_id);

-- Items. `match_key` is what a payment is matched by, prefixed by the type: `CARD:<keyed fingerprint>`
-- (a card number never lands here: only its keyed fingerprint, BIN and last 4), `CARD_UUID:<keyed
-- fingerprint of that stored card>`, `BIN:<digits>`, `EMAIL:<lower case>`, `IP:<network>/<prefix>`,
-- `COUNTRY:<alpha-2>`, `CUSTOMER:<external id>`, `PHONE:<E.164>`. `shown` is what the API shows.
create table risk_list_items (
  id uuid primary key,
  list_id uuid not null references risk_lists(id) on delete cascade,
  seq bigint generated always as identity,
  type text not null check (type in ('CARD', 'CARD_UUID', 'BIN', 'EMAIL', 'IP', 'COUNTRY', 'CUSTOMER', 'PHONE')),
  match_key text not null check (match_key like type || ':%' and length(match_key) <= 300),
  shown text not null check (length(shown) <= 300),
  bin text check (bin ~ '^[0-9]{6,8}$'),
  last4 text check (last4 ~ '^[0-9]{4}$'),
  description text check (length(description) <= 500),
  created_at timestamptz not null
);
-- one index serves both the look-up of a payment (list, key = any(candidates)) and "no duplicates"
create unique index risk_list_items_key on risk_list_items (list_id, match_key);
create index risk_list_items_page on risk_list_items (list_id, seq);

-- Antifraud settings of a merchant (what PUT /antifraud/rules set; defaults fill the rest).
create table risk_settings (
  merchant_id uuid primary key references merchants(id),
  settings jsonb not null,
  updated_at timestamptz not null
);

-- Velocity: one row per evaluated payment and counted thing (card, IP, customer, e-mail), keyed by a
-- keyed fingerprint of the thing (no e-mail or IP in clear), at the merchant's time. Purged after
-- the longest window a rule may use.
create table risk_velocity (
  merchant_id uuid not null references merchants(id),
  key text not null,
  at timestamptz not null
);
create index risk_velocity_lookup on risk_velocity (merchant_id, key, at);
create index risk_velocity_at on risk_velocity (at);

-- Cards a merchant has seen (by keyed fingerprint): when first, and when last rejected as fraud.
create table risk_cards (
  merchant_id uuid not null references merchants(id),
  fingerprint text not null,
  first_seen_at timestamptz not null,
  last_reject_at timestamptz,
  primary key (merchant_id, fingerprint)
);
