-- The connector kit's shared ledger (src/processors/kit/ledger.ts), for the connectors after Redsys,
-- Checkout.com and PayPal (which keep their own tables: a rolling upgrade runs the previous release on
-- them). Every operation a connector sends, by (connector, our reference: the transaction uuid), is
-- written before the request is sent, so a reference without a row was never sent. `account` is the
-- provider account it went through (merchant id, processing channel...); `provider_id` the provider's id
-- of the payment (or the number drawn for it), `action_id` that of a capture, void or refund; `data`
-- the connector's own fields.
create table connector_operations (
  connector text not null,
  reference text not null,
  kind text not null,
  amount bigint not null check (amount >= 0),
  currency text not null,
  account text not null,
  provider_id text,
  action_id text,
  original_reference text,
  terminal_ref jsonb,
  data jsonb not null default '{}',
  created_at timestamptz not null default now(),
  primary key (connector, reference)
);
-- a payment's provider id is one payment's (a connector drawing its own numbers draws again on a clash)
create unique index connector_operations_payment on connector_operations (connector, account, provider_id) where original_reference is null and provider_id is not null;
-- notifications name the provider's ids
create index connector_operations_provider on connector_operations (connector, provider_id) where provider_id is not null;
create index connector_operations_action on connector_operations (connector, action_id) where action_id is not null;

-- The network transaction id of a card's first customer payment, by connector, provider account and the
-- card's keyed fingerprint (never its number), with its network and date where the provider gives them:
-- later merchant-initiated payments of that card quote it. The first one kept stays.
create table connector_cof (
  connector text not null,
  account text not null,
  card_fingerprint text not null,
  network_transaction_id text not null,
  network text,
  network_date text,
  updated_at timestamptz not null default now(),
  primary key (connector, account, card_fingerprint)
);

-- Every verified notification or webhook received, once by its event id: a replay is recognised, a late
-- one is kept without being applied again.
create table connector_events (
  connector text not null,
  event_id text not null,
  type text not null,
  resource_id text not null,
  reference text,
  outcome text not null,
  received_at timestamptz not null default now(),
  primary key (connector, event_id)
);
