-- Checkout.com connector: every operation sent to Checkout.com, by our reference (the transaction
-- uuid), written before the request is sent, so a reference without a row was never sent. A payment's
-- row learns its payment id (pay_...) from the answer; captures, voids and refunds carry the payment id
-- they act on and learn their action id (act_...). The reference is also Checkout.com's `reference`
-- and the Cko-Idempotency-Key of the request, so a payment is found by it when its answer was lost.
create table checkout_operations (
  reference text primary key,
  kind text not null check (kind in ('payment', 'preauth', 'verify', 'capture', 'void', 'refund')),
  amount bigint not null check (amount >= 0),
  currency text not null,
  processing_channel_id text not null,
  payment_id text,
  action_id text,
  original_reference text,
  terminal_ref jsonb,
  created_at timestamptz not null default now()
);
create index checkout_operations_payment on checkout_operations (payment_id);

-- The scheme transaction id Checkout.com gave the first customer-initiated payment of a card, by
-- processing channel and the card's keyed fingerprint: later merchant-initiated payments of that card
-- quote it (previous_payment_id).
create table checkout_cof (
  processing_channel_id text not null,
  card_fingerprint text not null,
  scheme_id text not null,
  updated_at timestamptz not null default now(),
  primary key (processing_channel_id, card_fingerprint)
);

-- Every verified webhook received, once by its event id (Checkout.com delivers at least once): a
-- replay is recognised, and a late one for a settled operation is kept here without being applied.
create table checkout_webhook_events (
  event_id text primary key,
  type text not null,
  payment_id text not null,
  reference text,
  outcome text not null,
  received_at timestamptz not null default now()
);
