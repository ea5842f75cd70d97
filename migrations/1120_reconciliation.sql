-- Reconciliation (ours, decisions §13; docs/reconciliation.md): what the acquirers settled against what
-- paygate recorded, and the payouts against the merchant's bank statements.
--
-- recon_reports: one import of an acquirer's settlement data (a file in the CSV layout, or the report a
-- connector gave for a day); recon_lines: its lines, each with the match the matcher found (the
-- transaction and the kind). recon_missing: successful money movements of paygate in a report's days and
-- service that no line of any report settles (ONLY_AT_PAYGATE). Lines and missing movements share one
-- sequence, so the exceptions of both read as one list paged by id.
-- recon_payouts: what each acquirer batch should pay (the sum of its lines' net), and what the bank
-- statement showed. recon_statements / recon_bank_lines: imported bank statements (camt.053, Norma 43).

create sequence recon_item_seq;

create table recon_reports (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  -- UPLOAD (the API or the dashboard), CLI (paygate reconcile import), CONNECTOR (the provider's report)
  source text not null check (source in ('UPLOAD', 'CLI', 'CONNECTOR')),
  acquirer text not null check (length(acquirer) between 1 and 40),
  -- the service whose transactions the report covers (ONLY_AT_PAYGATE is looked for in it), or none
  service_id uuid,
  filename text not null check (length(filename) between 1 and 255),
  -- SHA-256 of the file: the same file is not imported twice
  sha256 text not null,
  period_from date not null,
  period_to date not null check (period_to >= period_from),
  -- a line settled more days than this after paygate's transaction is SETTLED_LATE
  settlement_days integer not null check (settlement_days between 0 and 60),
  line_count integer not null check (line_count >= 0),
  created_at timestamptz not null,
  unique (merchant_id, env, sha256)
);
create index recon_reports_merchant on recon_reports (merchant_id, env, created_at desc, id desc);

create table recon_lines (
  id bigint primary key default nextval('recon_item_seq'),
  report_id uuid not null references recon_reports(id),
  merchant_id uuid not null,
  env text not null,
  -- the line of the file (the header is line 1)
  line integer not null,
  type text not null check (type in ('PAYMENT', 'REFUND', 'PAYOUT', 'CHARGEBACK', 'ADJUSTMENT')),
  processor_id text,
  reference text,
  -- the reference read as paygate's transaction uuid, when it is one
  ref_uuid uuid,
  amount bigint not null,
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  transaction_date date not null,
  settlement_date date not null,
  batch_ref text not null,
  fee_interchange bigint not null,
  fee_scheme bigint not null,
  fee_processing bigint not null,
  net bigint not null,
  -- the match (null for CHARGEBACK and ADJUSTMENT lines, which only count in their payout)
  kind text check (kind in ('MATCHED', 'AMOUNT_DIFFERS', 'ONLY_AT_ACQUIRER', 'SETTLED_LATE', 'DUPLICATE')),
  transaction_id uuid,
  order_id uuid,
  paygate_amount bigint,
  paygate_currency text,
  paygate_date date,
  paygate_status text
);
create index recon_lines_report on recon_lines (report_id, line);
create index recon_lines_exceptions on recon_lines (merchant_id, env, id) where kind <> 'MATCHED';
create index recon_lines_transaction on recon_lines (transaction_id) where transaction_id is not null;
create index recon_lines_batch on recon_lines (merchant_id, env, batch_ref);

create table recon_missing (
  id bigint primary key default nextval('recon_item_seq'),
  merchant_id uuid not null,
  env text not null,
  -- the report whose days and service found it missing
  report_id uuid not null references recon_reports(id),
  transaction_id uuid not null,
  order_id uuid not null,
  type text not null check (type in ('PAYMENT', 'REFUND', 'PAYOUT')),
  processor_id text,
  amount bigint not null,
  currency text not null,
  transaction_date date not null,
  paygate_status text not null,
  unique (merchant_id, env, transaction_id)
);
create index recon_missing_merchant on recon_missing (merchant_id, env, id);

create table recon_payouts (
  id uuid primary key,
  merchant_id uuid not null,
  env text not null,
  acquirer text not null,
  batch_ref text not null,
  currency text not null,
  settlement_date date not null,
  line_count integer not null,
  -- the signed sum of the lines' amounts (payments in, refunds, payouts and chargebacks out)
  gross bigint not null,
  fee_interchange bigint not null,
  fee_scheme bigint not null,
  fee_processing bigint not null,
  -- what the bank should receive: the sum of the lines' net
  net bigint not null,
  status text not null check (status in ('EXPECTED', 'RECEIVED', 'DIFFERENT', 'MISSING')),
  bank_line_id bigint,
  received_amount bigint,
  received_on date,
  updated_at timestamptz not null,
  unique (merchant_id, env, acquirer, batch_ref, currency)
);
create index recon_payouts_merchant on recon_payouts (merchant_id, env, settlement_date desc, id);

create table recon_statements (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  format text not null check (format in ('CAMT053', 'NORMA43')),
  source text not null check (source in ('UPLOAD', 'CLI')),
  filename text not null check (length(filename) between 1 and 255),
  sha256 text not null,
  -- IBAN, or the Spanish account (entity, office, account number) of Norma 43
  account text not null,
  currency text not null,
  period_from date not null,
  period_to date not null,
  opening_balance bigint not null,
  closing_balance bigint not null,
  line_count integer not null,
  created_at timestamptz not null,
  -- one row per account statement of a file (a file may hold several): the same file is not imported twice
  unique (merchant_id, env, sha256, account, period_from)
);
create index recon_statements_merchant on recon_statements (merchant_id, env, created_at desc, id desc);

create table recon_bank_lines (
  id bigint generated always as identity primary key,
  statement_id uuid not null references recon_statements(id),
  merchant_id uuid not null,
  env text not null,
  -- the entry's place: its line in a Norma 43 file, its position (from 1) in a camt.053 statement
  line integer not null,
  booking_date date not null,
  value_date date,
  -- credit positive, debit negative, minor units of `currency`
  amount bigint not null,
  currency text not null,
  reference text,
  remittance text,
  payout_id uuid
);
create index recon_bank_lines_statement on recon_bank_lines (statement_id, line);
create index recon_bank_lines_open on recon_bank_lines (merchant_id, env, booking_date) where payout_id is null;
