-- Job claims read due jobs per queue (the worker's lanes claim their own queues; a backlog of one queue,
-- such as 10,000 due subscription charges, must cost nothing to a claim of another, such as the
-- notifications): due pending jobs in (queue, run_at, id) order replace the index on run_at alone.
create index jobs_due_queue on jobs (queue, run_at, id) where status = 'pending';
drop index jobs_due;
