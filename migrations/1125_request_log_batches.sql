-- The API request log written a batch at a time (issue: the request log's cost). Every request keeps its own
-- summary row in request_logs (what the dashboard lists and filters), but the bodies of a batch go in one row
-- of request_log_bodies (two entries per request: the request's body, then the answer's), so a request costs
-- PostgreSQL a narrow row and its index entries instead of a wide one: the bodies, which are most of the
-- bytes, are written once per batch and compressed together (lz4 where the server has it).
-- Entries written before this migration keep their bodies in their own row (request_body, response_body).
create table request_log_bodies (
  id uuid primary key,
  -- the newest entry of the batch: the bodies go when the retention has passed it
  created_at timestamptz not null,
  bodies text[] not null
);
alter table request_logs add column batch_id uuid, add column slot integer;
-- time-ordered: a block range index is enough to find what the retention prunes, and costs nearly nothing
-- to keep up as entries arrive in time order
drop index request_logs_created;
create index request_logs_created on request_logs using brin (created_at);
create index request_log_bodies_created on request_log_bodies using brin (created_at);
-- lz4 compresses a batch of similar JSON bodies several times faster than the default; a server built
-- without it keeps the default
do $$ begin
  alter table request_log_bodies alter column bodies set compression lz4;
exception when others then null;
end $$;
