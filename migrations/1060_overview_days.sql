-- The dashboard overview's figures kept per day, so an overview reads a few rows per day of its period
-- instead of every order and transaction (operations/overview.ts).
--
-- Every change of a counted order or transaction adds its contribution to a change table, in the same
-- transaction as the change (the triggers below): the old contribution taken away, the new one added.
-- A recurring job folds the changes into per-day rows (the merchant's calendar day) in one statement
-- that deletes the changes it adds, so a change is counted once whatever crashes. An overview adds the
-- day rows of its period and the changes not folded yet. Only inserts happen on the money path: no row
-- is shared between two payments, so no payment waits for another.

-- ---- what an order and a transaction count for ---------------------------------------------------------

-- the 3-D Secure outcome an order counts under ('' : none; the paid orders without a record count as NOT_ATTEMPTED)
create function paygate_overview_tds(d jsonb, paid boolean) returns text language sql immutable as $$
  select case
    when d is null or jsonb_typeof(d) <> 'object' then case when paid then 'NOT_ATTEMPTED' else '' end
    when d->>'flow' = 'EXEMPTED' then 'EXEMPTED'
    when d->>'status' = 'PENDING' then 'PENDING'
    when d->>'status' in ('Y', 'A', 'I') then coalesce(d->>'flow', 'OTHER')
    else 'FAILED'
  end $$;

-- a transaction counts when it is a successful charge, hold, confirmation or refund, or a refused attempt
create function paygate_overview_counts(operative text, status text) returns boolean language sql immutable as $$
  select (status = 'SUCCESS' and operative in ('AUTHORIZATION', 'DEFERRED', 'CONFIRMATION', 'REFUND'))
      or (status in ('REFUSED', 'ERROR') and operative in ('AUTHORIZATION', 'DEFERRED')) $$;

-- ---- the changes not folded yet --------------------------------------------------------------------------
-- No index: a payment's insert costs a heap row only. The fold runs every 30 seconds, so these tables hold
-- what changed since; an overview reads them whole (and a backlog, after an upgrade, only until it is folded).

create table overview_order_changes (
  merchant_id uuid not null,
  env text not null,
  currency text not null,
  created_at timestamptz not null, -- the order's
  tds text not null,
  orders integer not null,
  paid integer not null
);

create table overview_tx_changes (
  merchant_id uuid not null,
  env text not null,
  currency text not null,
  created_at timestamptz not null, -- the transaction's
  operative text not null,
  status text not null,
  error text not null,  -- '' for a success
  method text not null, -- '' but for a successful payment attempt
  kind text not null,
  n integer not null,
  amount bigint not null
);

-- ---- the days -------------------------------------------------------------------------------------------

create table overview_order_days (
  merchant_id uuid not null,
  env text not null,
  day date not null, -- the merchant's calendar day of the orders' creation
  currency text not null,
  tds text not null,
  orders integer not null,
  paid integer not null,
  primary key (merchant_id, env, day, currency, tds)
);

create table overview_tx_days (
  merchant_id uuid not null,
  env text not null,
  day date not null,
  currency text not null,
  operative text not null,
  status text not null,
  error text not null,
  method text not null,
  kind text not null,
  n integer not null,
  amount bigint not null,
  primary key (merchant_id, env, day, currency, operative, status, error, method, kind)
);

-- ---- the triggers ------------------------------------------------------------------------------------------

create function paygate_overview_order() returns trigger language plpgsql as $$
declare
  counted_before boolean := tg_op <> 'INSERT' and old.operative in ('AUTHORIZATION', 'PARTIAL_AUTHORIZATION', 'DEFERRED');
  counted_now boolean := tg_op <> 'DELETE' and new.operative in ('AUTHORIZATION', 'PARTIAL_AUTHORIZATION', 'DEFERRED');
  tds_before text;
  tds_now text;
begin
  if counted_before then tds_before := paygate_overview_tds(old.threeds_data, old.paid); end if;
  if counted_now then tds_now := paygate_overview_tds(new.threeds_data, new.paid); end if;
  if counted_before and counted_now then
    if old.paid = new.paid and tds_before = tds_now and old.currency = new.currency and old.merchant_id = new.merchant_id
        and old.env = new.env and old.created_at = new.created_at then
      return null; -- counts as before
    end if;
    -- one statement for both rows (an order paid: its unpaid self taken away, its paid self added)
    insert into overview_order_changes (merchant_id, env, currency, created_at, tds, orders, paid)
    values (old.merchant_id, old.env, old.currency, old.created_at, tds_before, -1, -(old.paid::int)),
      (new.merchant_id, new.env, new.currency, new.created_at, tds_now, 1, new.paid::int);
  elsif counted_before then
    insert into overview_order_changes (merchant_id, env, currency, created_at, tds, orders, paid)
    values (old.merchant_id, old.env, old.currency, old.created_at, tds_before, -1, -(old.paid::int));
  elsif counted_now then
    insert into overview_order_changes (merchant_id, env, currency, created_at, tds, orders, paid)
    values (new.merchant_id, new.env, new.currency, new.created_at, tds_now, 1, new.paid::int);
  end if;
  return null;
end $$;

create trigger orders_overview after insert or delete on orders
  for each row execute function paygate_overview_order();
create trigger orders_overview_update after update on orders
  for each row when (old.paid is distinct from new.paid or old.threeds_data is distinct from new.threeds_data
    or old.operative is distinct from new.operative or old.currency is distinct from new.currency
    or old.merchant_id is distinct from new.merchant_id or old.env is distinct from new.env or old.created_at is distinct from new.created_at)
  execute function paygate_overview_order();

-- the method and kind of a successful payment attempt's source (the gateway's own JSON): {method, kind}
create function paygate_overview_method(source_json text) returns text[] language plpgsql immutable as $$
declare
  src jsonb;
  obj text;
begin
  if coalesce(source_json, '') = '' then
    return array['', ''];
  end if;
  src := source_json::jsonb;
  obj := upper(coalesce(case when jsonb_typeof(src) = 'object' then src->>'object' end, 'OTHER'));
  if obj in ('CARD', 'DYNAMIC_CARD', 'TAP_TO_PAY') then
    return array[case when coalesce(src->>'brand', '') <> '' then 'CARD:' || upper(src->>'brand') else obj end, 'CARD'];
  end if;
  return array[obj, case when jsonb_typeof(src) = 'object' and src->>'type' = 'wallet' then 'WALLET' else 'APM' end];
end $$;

-- a transaction's contribution: its order gives the merchant, environment and currency
create function paygate_overview_tx() returns trigger language plpgsql as $$
declare
  o record;
  o_of uuid; -- the order o was read for
  mk text[];
begin
  if tg_op <> 'INSERT' and paygate_overview_counts(old.operative, old.status) then
    select merchant_id, env, currency into o from orders where id = old.order_id;
    o_of := old.order_id;
    mk := case when old.status = 'SUCCESS' and old.operative in ('AUTHORIZATION', 'DEFERRED') then paygate_overview_method(old.source_json) else array['', ''] end;
    insert into overview_tx_changes (merchant_id, env, currency, created_at, operative, status, error, method, kind, n, amount)
    values (o.merchant_id, o.env, o.currency, old.created_at, old.operative, old.status,
      case when old.status = 'SUCCESS' then '' else old.error end, mk[1], mk[2], -1, -old.amount);
  end if;
  if tg_op <> 'DELETE' and paygate_overview_counts(new.operative, new.status) then
    if o_of is distinct from new.order_id then
      select merchant_id, env, currency into o from orders where id = new.order_id;
    end if;
    mk := case when new.status = 'SUCCESS' and new.operative in ('AUTHORIZATION', 'DEFERRED') then paygate_overview_method(new.source_json) else array['', ''] end;
    insert into overview_tx_changes (merchant_id, env, currency, created_at, operative, status, error, method, kind, n, amount)
    values (o.merchant_id, o.env, o.currency, new.created_at, new.operative, new.status,
      case when new.status = 'SUCCESS' then '' else new.error end, mk[1], mk[2], 1, new.amount);
  end if;
  return null;
end $$;

create trigger transactions_overview_insert after insert on transactions
  for each row when ((new.status = 'SUCCESS' and new.operative in ('AUTHORIZATION', 'DEFERRED', 'CONFIRMATION', 'REFUND')) or (new.status in ('REFUSED', 'ERROR') and new.operative in ('AUTHORIZATION', 'DEFERRED'))) execute function paygate_overview_tx();
create trigger transactions_overview_delete after delete on transactions
  for each row when ((old.status = 'SUCCESS' and old.operative in ('AUTHORIZATION', 'DEFERRED', 'CONFIRMATION', 'REFUND')) or (old.status in ('REFUSED', 'ERROR') and old.operative in ('AUTHORIZATION', 'DEFERRED'))) execute function paygate_overview_tx();
create trigger transactions_overview_update after update on transactions
  for each row when ((((old.status = 'SUCCESS' and old.operative in ('AUTHORIZATION', 'DEFERRED', 'CONFIRMATION', 'REFUND')) or (old.status in ('REFUSED', 'ERROR') and old.operative in ('AUTHORIZATION', 'DEFERRED'))) or ((new.status = 'SUCCESS' and new.operative in ('AUTHORIZATION', 'DEFERRED', 'CONFIRMATION', 'REFUND')) or (new.status in ('REFUSED', 'ERROR') and new.operative in ('AUTHORIZATION', 'DEFERRED'))))
    and (old.status is distinct from new.status or old.operative is distinct from new.operative or old.error is distinct from new.error
      or old.amount is distinct from new.amount or old.source_json is distinct from new.source_json
      or old.created_at is distinct from new.created_at or old.order_id is distinct from new.order_id))
  execute function paygate_overview_tx();

-- ---- what is there already --------------------------------------------------------------------------------

-- every order and transaction that counts, as changes (for rows written with the triggers off: an upgrade)
create function paygate_overview_backfill() returns void language sql as $$
  insert into overview_order_changes (merchant_id, env, currency, created_at, tds, orders, paid)
  select merchant_id, env, currency, created_at, paygate_overview_tds(threeds_data, paid), 1, paid::int
  from orders where operative in ('AUTHORIZATION', 'PARTIAL_AUTHORIZATION', 'DEFERRED');
  insert into overview_tx_changes (merchant_id, env, currency, created_at, operative, status, error, method, kind, n, amount)
  select o.merchant_id, o.env, o.currency, t.created_at, t.operative, t.status, case when t.status = 'SUCCESS' then '' else t.error end,
    x.mk[1], x.mk[2], 1, t.amount
  from transactions t join orders o on o.id = t.order_id,
    lateral (select case when t.status = 'SUCCESS' and t.operative in ('AUTHORIZATION', 'DEFERRED') then paygate_overview_method(t.source_json) else array['', ''] end as mk) x
  where paygate_overview_counts(t.operative, t.status);
$$;

select paygate_overview_backfill();
