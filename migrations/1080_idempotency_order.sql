-- The order a committed Idempotency-Key's request acted on (B3 creates it): a retry whose answer was lost
-- is told which order to read. Nullable, added without a default: safe while nodes of the previous
-- version run (they never write it).
alter table idempotency_keys add column order_id uuid;
