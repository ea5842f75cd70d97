-- What the disputes of an order mean for it, kept on the order (the payments module's row) so that every
-- read of an order, the order list's CSV export and the overview see it without reading the disputes:
-- the disputes module hands each change to the payments module through its interface (`Payments.
-- recordDisputeMoney`, docs/decisions.md "Dispute money on the order"). In the order's currency, minor
-- units; null until the order's first dispute.
--   dispute_disputed: taken by open disputes, not decided yet;
--   dispute_lost: lost (LOST, ACCEPTED, EXPIRED): money out;
--   dispute_won: won back;
--   dispute_changed_at: the last change (the merchant's clock): the overview books a loss on its day.
-- Columns without a default: adding them rewrites nothing. No index uses them, so their updates stay HOT.
alter table orders add column dispute_disputed bigint, add column dispute_lost bigint, add column dispute_won bigint,
  add column dispute_changed_at timestamptz;

-- ---- the overview: a lost dispute is money out ------------------------------------------------------------
-- A change of an order's lost amount adds its difference, on the day of the change, to the overview's
-- transaction changes as the pseudo-operative DISPUTE_LOST (status SUCCESS, n: the order's count of
-- orders with a loss, 0 or 1, taken away and added). They fold into overview_tx_days like every change.
create function paygate_overview_dispute() returns trigger language plpgsql as $$
declare
  before_amount bigint := coalesce(old.dispute_lost, 0);
  now_amount bigint := coalesce(new.dispute_lost, 0);
begin
  if before_amount = now_amount then
    return null;
  end if;
  insert into overview_tx_changes (merchant_id, env, currency, created_at, operative, status, error, method, kind, n, amount)
  values (new.merchant_id, new.env, new.currency, coalesce(new.dispute_changed_at, now()), 'DISPUTE_LOST', 'SUCCESS', '', '', '',
    (now_amount > 0)::int - (before_amount > 0)::int, now_amount - before_amount);
  return null;
end $$;

create trigger orders_overview_disputes after update on orders
  for each row when (old.dispute_lost is distinct from new.dispute_lost)
  execute function paygate_overview_dispute();

-- ---- the disputes there are already -----------------------------------------------------------------------
update orders o set dispute_disputed = x.disputed, dispute_lost = x.lost, dispute_won = x.won, dispute_changed_at = x.changed_at
from (
  select d.order_id,
    sum(case when d.stage <> 'RETRIEVAL' and d.status in ('NEEDS_RESPONSE', 'UNDER_REVIEW') then d.amount else 0 end) as disputed,
    sum(case when d.stage <> 'RETRIEVAL' and d.status in ('LOST', 'ACCEPTED', 'EXPIRED') then d.amount else 0 end) as lost,
    sum(case when d.stage <> 'RETRIEVAL' and d.status = 'WON' then d.amount else 0 end) as won,
    max(coalesce(d.resolved_at, d.updated_at)) as changed_at
  from disputes d group by d.order_id
) x
where o.id = x.order_id;

-- ---- the overview's backfill (a database upgraded with rows written with the triggers off) ----------------
-- as migration 1060's, plus each order's lost amount, booked on the day of its last dispute change (the
-- days of earlier losses of the same order are not kept on the order)
create or replace function paygate_overview_backfill() returns void language sql as $$
  insert into overview_order_changes (merchant_id, env, currency, created_at, tds, orders, paid)
  select merchant_id, env, currency, created_at, paygate_overview_tds(threeds_data, paid), 1, paid::int
  from orders where operative in ('AUTHORIZATION', 'PARTIAL_AUTHORIZATION', 'DEFERRED');
  insert into overview_tx_changes (merchant_id, env, currency, created_at, operative, status, error, method, kind, n, amount)
  select o.merchant_id, o.env, o.currency, t.created_at, t.operative, t.status, case when t.status = 'SUCCESS' then '' else t.error end,
    x.mk[1], x.mk[2], 1, t.amount
  from transactions t join orders o on o.id = t.order_id,
    lateral (select case when t.status = 'SUCCESS' and t.operative in ('AUTHORIZATION', 'DEFERRED') then paygate_overview_method(t.source_json) else array['', ''] end as mk) x
  where paygate_overview_counts(t.operative, t.status);
  insert into overview_tx_changes (merchant_id, env, currency, created_at, operative, status, error, method, kind, n, amount)
  select merchant_id, env, currency, coalesce(dispute_changed_at, created_at), 'DISPUTE_LOST', 'SUCCESS', '', '', '', 1, dispute_lost
  from orders where dispute_lost > 0;
$$;
