-- The event stream (GET /events/stream, `paygate listen`): a merchant's notifications as they are made,
-- resumable from a cursor.
--
-- A cursor must never skip a row that commits late. A sequence alone does not do it: a transaction can
-- take a lower number and commit after a higher one was read. So every event records the id of the
-- transaction that wrote it (xid8, never wraps), and the stream reads in (txid, seq) order only the rows
-- of transactions older than every transaction still running (the snapshot's xmin): those are final, and
-- any row still to come has a larger txid than any row read. On the embedded database transactions run
-- one at a time, so this holds trivially there too.
--
-- Neither column rewrites a large events table: pg_current_xact_id() is stable, so existing rows take
-- this migration's transaction id as a stored default; the sequence is only the default of new rows
-- (existing rows keep a null seq and are never streamed: they are older than any stream's start).
alter table events add column txid xid8 not null default pg_current_xact_id();
create sequence events_seq;
alter table events add column seq bigint;
alter table events alter column seq set default nextval('events_seq');
alter sequence events_seq owned by events.seq;
create index events_stream on events (merchant_id, txid, seq);

-- Listening streams are woken at commit (payload: the merchant), in every process; they also poll.
create function paygate_notify_event() returns trigger language plpgsql as $$
begin
  perform pg_notify('paygate_events', new.merchant_id::text);
  return null;
end $$;
create trigger events_notify after insert on events
  for each row execute function paygate_notify_event();
