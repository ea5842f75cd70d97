-- The virtual terminal's card forms: one row per form a staff user opened for a MoTo payment. The
-- token (in the form's address) is kept only as its SHA-256; it works once (used_at) and for a short
-- time (expires_at). No card data here: the card typed into the form goes straight to the payment.
create table terminal_forms (
  token_hash text primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  order_id uuid not null,
  user_id uuid not null,
  method text not null check (method in ('MAIL', 'PHONE')),
  description text not null,
  language text not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  outcome text,
  created_at timestamptz not null
);
create index terminal_forms_expiry on terminal_forms (expires_at);
