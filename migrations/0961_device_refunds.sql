-- J7 refunds sent to a SIMULATION device: processed 10 seconds after they are sent, like a payment, with
-- the contract's outcomes by amount (100 CANCELLED on the terminal, 200 REFUSED, otherwise REFUNDED).
-- `amount` null: what is left of the order when the refund is processed.
create table device_refunds (
  id uuid primary key,
  device_id uuid not null references devices(id),
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  -- the API key that sent it: the refund is made in its name
  key_id uuid not null,
  order_id uuid not null,
  amount bigint check (amount is null or amount >= 0),
  -- QUEUED → PROCESSING (claimed, committed before the refund is made: never made twice) → REFUNDED or
  -- FAILED; or QUEUED → CANCELLED / REFUSED (the terminal's outcome by amount)
  status text not null check (status in ('QUEUED', 'PROCESSING', 'REFUNDED', 'CANCELLED', 'REFUSED', 'FAILED')),
  error text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index device_refunds_order on device_refunds (order_id);
