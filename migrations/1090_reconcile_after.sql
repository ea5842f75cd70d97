-- A PENDING transaction whose processor could not be asked is asked again later, not at every sweep
-- (decisions §13: it stays PENDING until the processor can be asked). Nullable, no default: safe while
-- nodes of the previous version run (they never write it).
alter table transactions add column reconcile_after timestamptz;
