-- Checkout configurations of a merchant (decisions §10): an order's extra_data.checkout.uuid names one
-- and the fields given with the order override it.
create table checkouts (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  name text not null check (length(name) between 1 and 200),
  -- method names of the reference checkout (PAYMENT_CARD, BIZUM, GOOGLE_PAY, ...), in the merchant's order
  payment_methods jsonb not null default '[]'::jsonb check (jsonb_typeof(payment_methods) = 'array'),
  default_payment_method text,
  -- {theme_type, font, description, payment_details: {order_number}} or null
  customization jsonb check (customization is null or jsonb_typeof(customization) = 'object'),
  created_at timestamptz not null,
  updated_at timestamptz not null,
  -- insertion order: listings are oldest first, exactly, even within one millisecond
  seq bigserial
);
create index checkouts_merchant on checkouts (merchant_id, env, created_at, seq);
