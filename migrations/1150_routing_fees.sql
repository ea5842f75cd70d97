-- Routing's fee model and replay (ours; docs/routing.md "Fees"): what each of a merchant's services
-- charges per payment, by card type and region, so a replay of the merchant's history can price where a
-- routing profile would have sent each payment.
-- routing_fee_models: one per service that has one, with the merchant's country for that service (the
--   region of a card is its issuer's country against it; null: regions unknown, only ANY lines apply).
-- routing_fee_lines: percentage in basis points and a fixed part in minor units of the payment's
--   currency, per card type and region (ANY: every one); the most specific line applies.

create table routing_fee_models (
  service_id uuid primary key references services(id),
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  merchant_country text check (merchant_country ~ '^[A-Z]{2}$'),
  updated_at timestamptz not null
);
create index routing_fee_models_merchant on routing_fee_models (merchant_id, env);

create table routing_fee_lines (
  service_id uuid not null references routing_fee_models(service_id) on delete cascade,
  card_type text not null check (card_type in ('CREDIT', 'DEBIT', 'PREPAID', 'ANY')),
  region text not null check (region in ('DOMESTIC', 'INTRA_EEA', 'INTERNATIONAL', 'ANY')),
  percent_bp integer not null check (percent_bp between 0 and 10000),
  fixed integer not null check (fixed between 0 and 100000000),
  primary key (service_id, card_type, region)
);
