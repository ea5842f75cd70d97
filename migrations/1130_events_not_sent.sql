-- An event on the event log and the event stream that is not posted anywhere: NOT_SENT. Dispute events
-- are always recorded (docs/disputes.md "Events"); they are delivered only to the URL a merchant gave for
-- them, and without one they are NOT_SENT, with an empty url and no delivery job.
-- The constraint is added NOT VALID and validated apart: the validation reads the table without blocking
-- the inserts of notifications meanwhile.
alter table events drop constraint events_status_check;
alter table events add constraint events_status_check check (status in ('PENDING', 'DELIVERED', 'FAILED', 'NOT_SENT')) not valid;
alter table events validate constraint events_status_check;
