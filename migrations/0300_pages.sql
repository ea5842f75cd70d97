-- What the merchant's customers see: payment-page templates, page settings, payment links (B2), the
-- one-time form submissions of the pages, the card kept for the few minutes of a 3DS challenge, and the
-- Bizum switch of a service.

-- Templates of the hosted pages (payment-card and DCC), per merchant and environment. Colours are
-- #RRGGBB and the logo an https URL: the checks back what the API validates, so nothing stored here can
-- carry markup into a page.
create table templates (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  type text not null check (type in ('PAYMENT_CARD', 'DCC')),
  name text not null check (length(name) between 1 and 100),
  logo_url text check (logo_url ~ '^https://[^\s"''<>\\]+$' and length(logo_url) <= 2000),
  button_color text check (button_color ~ '^#[0-9A-F]{6}$'),
  background_color text check (background_color ~ '^#[0-9A-F]{6}$'),
  is_default boolean not null default false,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index templates_merchant on templates (merchant_id, env, type, created_at);
-- at most one default per merchant, environment and type
create unique index templates_one_default on templates (merchant_id, env, type) where is_default;

-- Page settings of a merchant: the origins allowed to frame its pages (CSP frame-ancestors).
-- null means any origin (the pages are embeddable by default, api.md B6).
create table page_settings (
  merchant_id uuid primary key references merchants(id),
  frame_ancestors jsonb,
  updated_at timestamptz not null
);

-- B2: every payment link sent, and how its delivery went.
create table payment_links (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  order_id uuid not null references orders(id),
  channel text not null check (channel in ('EMAIL', 'SMS')),
  destination text not null,
  language text not null,
  subject text not null,
  template_id uuid,
  delivered boolean not null,
  provider text not null,
  provider_id text,
  error text,
  created_at timestamptz not null
);
create index payment_links_order on payment_links (order_id, created_at);

-- One-time form nonces already used on the pages: a second post of the same form does not pay again.
create table page_submissions (
  nonce text primary key,
  order_id uuid not null references orders(id),
  -- where the first post of the form sent the customer: a repeated post goes there too
  location text,
  created_at timestamptz not null
);
create index page_submissions_created on page_submissions (created_at);

-- The card a customer typed on the hosted page, kept (sealed by the vault; never the CVV) only while
-- its payment waits for the 3DS challenge, when the order has no customer to store the card under.
-- Deleted when the transaction settles, and by a sweep once the challenge has timed out.
create table threeds_card_sessions (
  transaction_id uuid primary key references transactions(id),
  order_id uuid not null references orders(id),
  card_sealed text not null,
  -- real time
  expires_at timestamptz not null,
  created_at timestamptz not null
);
create index threeds_card_sessions_expiry on threeds_card_sessions (expires_at);

-- Bizum (api.md B5) is available only on REDSYS-family services where it has been enabled.
alter table services add column bizum_enabled boolean not null default false;
alter table services add constraint services_bizum_redsys check (not bizum_enabled or type = 'REDSYSPSD2');
