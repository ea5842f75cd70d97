-- An order is updated several times in its life (payment started, settled, refunds). PostgreSQL can
-- write such an update in place (a HOT update: no new entry in any index) only when no column that an
-- index uses changes, its predicate included. The expiry sweep's partial index named `status` in its
-- predicate, so every status change wrote a new entry into each of the order's indexes (the primary key,
-- the unique token, the merchant's list) and left dead ones behind.
--
-- open_due_at is due_at while the order is open (it can still expire) and null otherwise, computed by
-- PostgreSQL on every write (a stored generated column: after BEFORE triggers, so it follows due_at when
-- the test clock moves). It changes only when an order enters or leaves the open states; the index of
-- the sweep uses it alone. A payment's settlement and refunds then touch no indexed column.
--
-- Adding a stored generated column rewrites the table once (an exclusive lock for the time of a copy).
alter table orders add column open_due_at timestamptz generated always as (
  case when status in ('CREATED', 'REFUSED', 'ERROR', 'PENDING_3DS_RESPONSE', 'AUTHENTICATION_REQUIRED') then due_at end
) stored;
drop index orders_open_due;
create index orders_open_due on orders (open_due_at) where open_due_at is not null;
