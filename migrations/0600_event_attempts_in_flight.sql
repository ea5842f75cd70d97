-- A delivery attempt is recorded before the notification is sent: `finished` is false until its answer
-- (or failure) is written, so an attempt cut short by a crash stays visible.
alter table event_attempts add column finished boolean not null default true;
