-- PayPal connector: every operation sent to PayPal, by our reference (the transaction uuid), written
-- before the request is sent. A payment creates a PayPal order first (no money moves) and keeps its id
-- (order_id) before the order is captured or authorized with the card; the capture or authorization id
-- is payment_id. Captures and voids of an authorization, and refunds of a capture, carry the id they act
-- on (payment_id) and learn the id of what they did (action_id). The reference is PayPal's custom_id and
-- the PayPal-Request-Id of each request.
create table paypal_operations (
  reference text primary key,
  kind text not null check (kind in ('payment', 'preauth', 'verify', 'capture', 'void', 'refund', 'apm')),
  amount bigint not null check (amount >= 0),
  currency text not null,
  client_id text not null,
  order_id text,
  payment_id text,
  action_id text,
  original_reference text,
  terminal_ref jsonb,
  created_at timestamptz not null default now()
);
create index paypal_operations_order on paypal_operations (order_id);
create index paypal_operations_payment on paypal_operations (payment_id);

-- The network transaction reference of a card's first customer payment, by REST app (client id) and
-- the card's keyed fingerprint: later merchant-initiated payments quote it.
create table paypal_cof (
  client_id text not null,
  card_fingerprint text not null,
  network_reference text not null,
  network text not null,
  updated_at timestamptz not null default now(),
  primary key (client_id, card_fingerprint)
);

-- Every verified webhook received, once by its event id: a replay is recognised, a late one is kept.
create table paypal_webhook_events (
  event_id text primary key,
  event_type text not null,
  resource_id text not null,
  reference text,
  outcome text not null,
  received_at timestamptz not null default now()
);
