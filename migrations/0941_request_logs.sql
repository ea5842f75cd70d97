-- The API request log the dashboard shows to a merchant's developers: every request an API key made,
-- with its bodies redacted (card numbers, CVVs, PIN blocks, signatures and keys never reach this table).
-- On real time (HTTP traffic, like the jobs), kept PAYGATE_REQUEST_LOG_DAYS days then pruned by a job.
create table request_logs (
  id uuid primary key,
  merchant_id uuid not null,
  env text not null check (env in ('sandbox', 'production')),
  key_id uuid,
  method text not null,
  path text not null,
  status integer not null,
  duration_ms integer not null,
  idempotency_key text,
  request_id text not null,
  order_id uuid,
  request_body text,
  response_body text,
  created_at timestamptz not null
);
create index request_logs_merchant on request_logs (merchant_id, created_at desc, id desc);
create index request_logs_request_id on request_logs (request_id);
create index request_logs_order on request_logs (order_id) where order_id is not null;
create index request_logs_key on request_logs (key_id, created_at desc) where key_id is not null;
create index request_logs_created on request_logs (created_at);
