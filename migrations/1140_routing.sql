-- Routing and cascading (ours; docs/routing.md): a merchant's routing profile hangs on one entry service
-- (the service an order names) and picks, per payment, the services to try in order. Its rules are a
-- JSON list checked by the routing module (routing.domain.ts); the table backs what a row must hold.

create table routing_profiles (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  -- the entry service: the service orders name, of the same merchant
  service_id uuid not null references services(id),
  name text not null check (length(name) between 1 and 100),
  -- ACTIVE: decides the payments of its service (one per service); DRAFT: only tried (POST .../test)
  status text not null check (status in ('ACTIVE', 'DRAFT')),
  max_attempts integer not null check (max_attempts between 1 and 5),
  -- [{name, conditions: [{type, ...}], action: {type, service_uuid | splits, fallbacks}}], at most 100
  rules jsonb not null check (jsonb_typeof(rules) = 'array' and jsonb_array_length(rules) <= 100),
  -- bumped by every replacement (PUT): a decision names the version that made it
  version integer not null check (version >= 1),
  -- the key that last wrote it: the routing events of the merchant are signed with it
  key_id uuid references api_keys(id),
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index routing_profiles_merchant on routing_profiles (merchant_id, env, created_at desc, id desc);
create index routing_profiles_service on routing_profiles (service_id);
-- at most one ACTIVE profile per entry service
create unique index routing_profiles_active on routing_profiles (service_id) where status = 'ACTIVE';

-- The operator's BIN table (`paygate routing import-bins <file>`): the issuer's country and the card's
-- type of each range of card prefixes (6 to 8 digits, both ends of one length). Ranges do not overlap
-- (checked by the import, which replaces the whole table).
create table routing_bins (
  bin_from text not null check (bin_from ~ '^[0-9]{6,8}$'),
  bin_to text not null check (bin_to ~ '^[0-9]{6,8}$'),
  brand text check (brand ~ '^[A-Z][A-Z0-9_]{1,29}$'),
  card_type text check (card_type in ('CREDIT', 'DEBIT', 'PREPAID')),
  issuer_country text check (issuer_country ~ '^[A-Z]{2}$'),
  primary key (bin_from, bin_to),
  check (length(bin_from) = length(bin_to) and bin_from <= bin_to)
);

-- every process caches the active profiles and the BIN table: a change drops those caches everywhere
create trigger routing_profiles_invalidate after insert or update or delete on routing_profiles
  for each statement execute function paygate_notify_invalidate();
create trigger routing_bins_invalidate after insert or update or delete on routing_bins
  for each statement execute function paygate_notify_invalidate();
