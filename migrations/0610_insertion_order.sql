-- Rows written in the same millisecond tie on created_at: a sequence keeps the order they were written
-- in, as the tiebreaker of every list by creation time (transactions of an order, its payment links).
alter table transactions add column seq bigserial;
alter table payment_links add column seq bigserial;
