-- Queries that stay fast with size, an indexable expiry sweep, and cache invalidation across processes.

-- ---- the expiry sweep: an absolute instant, so the filter is indexable ------------------------------
-- expires_at is on the merchant's clock (the sandbox test clock applies). due_at is the same instant on
-- the real clock: expires_at minus the merchant's test-clock offset when the order was created, moved
-- earlier whenever that clock moves forward (see the merchants trigger below). The sweep reads
-- `due_at <= now()` through a partial index of open orders.
alter table orders add column due_at timestamptz;
update orders o set due_at = o.expires_at - make_interval(secs => (case when o.env = 'sandbox' then m.clock_offset_ms else 0 end) / 1000.0)
  from merchants m where m.id = o.merchant_id;
alter table orders alter column due_at set not null;

create function orders_set_due_at() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' or new.expires_at is distinct from old.expires_at then
    new.due_at := new.expires_at - make_interval(secs => coalesce((
      select case when new.env = 'sandbox' then m.clock_offset_ms else 0 end from merchants m where m.id = new.merchant_id), 0) / 1000.0);
  end if;
  return new;
end $$;
create trigger orders_due_at before insert or update of expires_at on orders
  for each row execute function orders_set_due_at();

create function merchants_shift_due_at() returns trigger language plpgsql as $$
begin
  update orders set due_at = due_at - make_interval(secs => (new.clock_offset_ms - old.clock_offset_ms) / 1000.0)
    where merchant_id = new.id and env = 'sandbox'
      and status in ('CREATED', 'REFUSED', 'ERROR', 'PENDING_3DS_RESPONSE', 'AUTHENTICATION_REQUIRED');
  return null;
end $$;
create trigger merchants_clock_moved after update of clock_offset_ms on merchants
  for each row when (new.clock_offset_ms is distinct from old.clock_offset_ms)
  execute function merchants_shift_due_at();

drop index if exists orders_open_expiry;
create index orders_open_due on orders (due_at)
  where status in ('CREATED', 'REFUSED', 'ERROR', 'PENDING_3DS_RESPONSE', 'AUTHENTICATION_REQUIRED');

-- ---- list filters ----------------------------------------------------------------------------------
-- GET /orders pages transactions by (created_at, id) per merchant (keyset and offset) and, for a parent
-- merchant with many children, by time across merchants.
drop index if exists transactions_merchant_created;
create index transactions_merchant_created on transactions (merchant_id, created_at, id);
create index transactions_created on transactions (created_at, id);
-- GET /events: newest first, by status, by order
drop index if exists events_merchant_created;
create index events_merchant_created on events (merchant_id, created_at desc, id);
create index events_merchant_status on events (merchant_id, status, created_at desc, id);
create index events_merchant_order on events (merchant_id, order_id, created_at desc, id);
-- jobs.purge deletes finished jobs older than a week
create index jobs_finished on jobs (finished_at) where status in ('done', 'failed');
-- customers' sources, oldest first (keyset paging on created_at, seq)
create index sources_customer_page on sources (customer_id, created_at, seq) where deleted_at is null;

-- ---- tables updated often: room on each page for HOT updates ---------------------------------------
alter table orders set (fillfactor = 80);
alter table transactions set (fillfactor = 85);
alter table sources set (fillfactor = 85);
alter table jobs set (fillfactor = 70);
alter table events set (fillfactor = 85);

-- ---- cache invalidation across processes --------------------------------------------------------------
-- Every process keeps short-lived caches of keys, merchants and services. A change to those tables
-- sends a notification on channel paygate_invalidate (payload: schema.table, delivered at commit); every process listening
-- drops its caches, so a revoked key is refused everywhere at once.
create function paygate_notify_invalidate() returns trigger language plpgsql as $$
begin
  perform pg_notify('paygate_invalidate', tg_table_schema || '.' || tg_table_name);
  return null;
end $$;
create trigger api_keys_invalidate after insert or update or delete on api_keys
  for each statement execute function paygate_notify_invalidate();
create trigger merchants_invalidate after update or delete on merchants
  for each statement execute function paygate_notify_invalidate();
create trigger services_invalidate after insert or update or delete on services
  for each statement execute function paygate_notify_invalidate();
