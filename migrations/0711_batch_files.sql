-- Batch files (H1 payments with stored cards, H2 refunds): a file and its lines. Each line is processed
-- by one durable job; a line's order uuid is chosen when the file is accepted, so a line processed again
-- after a crash finds its order instead of creating a second one.

create table batch_files (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  key_id uuid not null,
  kind text not null check (kind in ('AUTHORIZATION', 'REFUND')),
  filename text not null check (length(filename) <= 255),
  status text not null check (status in ('SCHEDULED', 'PROCESSING', 'COMPLETED')),
  execute_at timestamptz not null,
  line_count integer not null check (line_count > 0),
  created_at timestamptz not null,
  finished_at timestamptz
);
create index batch_files_merchant on batch_files (merchant_id, env, created_at);

create table batch_lines (
  id uuid primary key,
  batch_id uuid not null references batch_files(id) on delete cascade,
  line integer not null,
  -- the row as validated (amount, source, customer, service, ...); never card numbers (CARD is a source uuid)
  data jsonb not null,
  order_id uuid not null,
  status text not null check (status in ('PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED')),
  outcome text,
  error text,
  -- refunds: how many refund transactions the order had before this line's refund was asked for
  refunds_before integer,
  attempts integer not null default 0,
  updated_at timestamptz not null,
  unique (batch_id, line)
);
create index batch_lines_pending on batch_lines (batch_id, status);
