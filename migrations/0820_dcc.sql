-- Dynamic currency conversion (DCC) on the hosted payment page.
--
-- transactions.dcc: the conversion offered with a card payment and the cardholder's choice (accepted or
-- declined), as the order and the transaction present it; null when no conversion was offered.
alter table transactions add column dcc jsonb;

-- An offer waiting for the cardholder's choice. The card typed on the page is kept sealed by the vault
-- (number, expiry, holder; never the security code, which was checked with a zero-amount verification
-- when the offer was made) until the cardholder chooses (the row is deleted then) or the offer lapses
-- (the sweep deletes it).
create table dcc_offers (
  id uuid primary key,
  order_id uuid not null references orders(id),
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  card_sealed text not null,
  card_last4 text not null check (card_last4 ~ '^[0-9]{4}$'),
  -- the order's amount and currency when the rate was quoted
  amount bigint not null check (amount > 0),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  -- the card's currency and the amount in it
  cardholder_currency text not null check (cardholder_currency ~ '^[A-Z]{3}$' and cardholder_currency <> currency),
  cardholder_amount bigint not null check (cardholder_amount > 0),
  -- decimal strings: the applied rate (order currency -> card currency, margin included), the reference
  -- rate and the margin in percent
  rate text not null check (rate ~ '^[0-9]+\.[0-9]+$'),
  reference_rate text not null check (reference_rate ~ '^[0-9]+\.[0-9]+$'),
  markup text not null check (markup ~ '^[0-9]+\.[0-9]+$'),
  source text not null,
  -- the service's dcc_mode when the offer was made: which currency the page shows first
  mode text not null check (mode in ('DYNAMIC', 'FOREIGN')),
  -- on the merchant's clock (the sandbox test clock applies)
  quoted_at timestamptz not null,
  expires_at timestamptz not null,
  -- real time after which the sweep deletes it
  purge_at timestamptz not null,
  created_at timestamptz not null
);
create index dcc_offers_order on dcc_offers (order_id);
create index dcc_offers_purge on dcc_offers (purge_at);
