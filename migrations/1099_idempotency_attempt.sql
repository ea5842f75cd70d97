-- Each request that takes an Idempotency-Key marks its own attempt on the key's row: its answer's record,
-- its release after a 5xx and its money step's mark touch that row only while it is still theirs. A
-- release retried in the background after the database came back once deleted the row of a later attempt
-- under the same key, whose money step then committed without the key's mark (seen twice in a proxy
-- failover: a refund and a subscription made twice). Nullable: rows of the previous release have none.
alter table idempotency_keys add column attempt uuid;
