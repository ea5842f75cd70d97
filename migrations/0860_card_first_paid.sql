-- A stored card records its first successful payment only (it becomes valid then), not every use:
-- payments that share a card no longer write, and so no longer wait on, the card's row. "The card with
-- the newest successful payment" (payouts without a card) is found from the transactions instead.
alter table sources rename column last_paid_at to first_paid_at;
drop index if exists sources_last_paid;
create index transactions_source_success on transactions (source_id, seq) where status = 'SUCCESS' and source_id is not null;
