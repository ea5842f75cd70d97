-- An Idempotency-Key whose request committed the first write of a money step (a PENDING transaction,
-- the processor about to be called) is `committed`: never run again, even when the answer was lost
-- (a failover, a gateway node killed) and even when the request answered 5xx. Widening a check: safe
-- while nodes of the previous version run (they never write the new value).
alter table idempotency_keys drop constraint idempotency_keys_status_check;
alter table idempotency_keys add constraint idempotency_keys_status_check check (status in ('in_flight', 'committed', 'done'));
