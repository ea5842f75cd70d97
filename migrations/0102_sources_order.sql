-- Insertion order of sources: "newest" must be exact even for sources stored in the same millisecond
-- (a batch of cards, parallel requests), since listings with unique=true keep the newest entry.
alter table sources add column seq bigserial;
drop index if exists sources_customer;
create index sources_customer on sources (customer_id, created_at desc, seq desc) where deleted_at is null;
