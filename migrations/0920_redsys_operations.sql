-- Redsys connector: the order number of every operation sent to Redsys, by our reference (the
-- transaction uuid). A payment allocates a new order number (4 digits, then 8 letters or digits),
-- unique per merchant code (FUC) and terminal; confirmations, cancellations and refunds reuse the
-- number of the payment they refer to (original_reference). Written before the request is sent, so a
-- reference without a row was never sent.
create table redsys_operations (
  reference text primary key,
  merchant_code text not null,
  terminal text not null,
  order_number text not null check (order_number ~ '^[0-9]{4}[0-9A-Za-z]{0,8}$'),
  transaction_type text not null,
  amount bigint not null check (amount >= 0),
  currency text not null,
  original_reference text,
  created_at timestamptz not null default now()
);

-- a new order number is unique per merchant code and terminal
create unique index redsys_operations_number on redsys_operations (merchant_code, terminal, order_number) where original_reference is null;
-- notifications and query answers name the order number
create index redsys_operations_order on redsys_operations (merchant_code, order_number);

-- The network transaction id (Ds_Merchant_Cof_Txnid) Redsys gave the first customer-initiated payment
-- of a card, by merchant code and the card's keyed fingerprint: later merchant-initiated payments of
-- that card quote it (DS_MERCHANT_COF_TXNID).
create table redsys_cof (
  merchant_code text not null,
  card_fingerprint text not null,
  cof_txnid text not null,
  updated_at timestamptz not null default now(),
  primary key (merchant_code, card_fingerprint)
);
