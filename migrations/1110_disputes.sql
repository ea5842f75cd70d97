-- Disputes and chargebacks (ours, decisions §13; docs/disputes.md): a cardholder's dispute of a payment
-- (an order and its transaction, same merchant), its stage at the scheme, its status (one transition
-- table: disputes.domain.ts), the evidence the merchant gives and every change with its time and author.
-- Every timestamp here is on the merchant's clock (the sandbox test clock).

create table disputes (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  order_id uuid not null,
  transaction_id uuid not null,
  -- the service of the disputed order (a CONNECTOR dispute's evidence and acceptance go through its connector)
  service_id uuid,
  service_type text,
  -- where it came from: entered by hand (API, dashboard), a file of the acquirer, the sandbox, a connector
  source text not null check (source in ('MANUAL', 'IMPORT', 'SANDBOX', 'CONNECTOR')),
  -- the acquirer or provider (CHECKOUT, PAYPAL, REDSYS, a bank's name; SANDBOX) and its id of the dispute
  acquirer text not null check (length(acquirer) between 1 and 40),
  provider_id text check (length(provider_id) between 1 and 100),
  reason_code text not null check (length(reason_code) between 1 and 20),
  category text not null check (category in ('FRAUD', 'PRODUCT_NOT_RECEIVED', 'PRODUCT_UNACCEPTABLE', 'DUPLICATE', 'CREDIT_NOT_PROCESSED', 'SUBSCRIPTION_CANCELLED', 'PROCESSING_ERROR', 'AUTHORIZATION', 'GENERAL')),
  amount bigint not null check (amount > 0),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  stage text not null check (stage in ('RETRIEVAL', 'CHARGEBACK', 'PRE_ARBITRATION', 'ARBITRATION')),
  status text not null check (status in ('NEEDS_RESPONSE', 'UNDER_REVIEW', 'WON', 'LOST', 'ACCEPTED', 'EXPIRED')),
  evidence_due_at timestamptz not null,
  -- the sandbox's decision of a submitted dispute (SANDBOX disputes only)
  sandbox_outcome text check (sandbox_outcome in ('WON', 'LOST')),
  submitted_at timestamptz,
  resolved_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  check ((source = 'SANDBOX') = (sandbox_outcome is not null))
);
create index disputes_merchant on disputes (merchant_id, env, created_at desc, id desc);
create index disputes_order on disputes (order_id);
-- one dispute per provider id of an acquirer (an import or a webhook twice updates it)
create unique index disputes_provider on disputes (merchant_id, env, acquirer, provider_id) where provider_id is not null;
-- one open dispute per payment at a time (a new stage is the same dispute escalated)
create unique index disputes_open on disputes (transaction_id) where status in ('NEEDS_RESPONSE', 'UNDER_REVIEW');

create table dispute_history (
  id bigint generated always as identity primary key,
  dispute_id uuid not null references disputes(id),
  at timestamptz not null,
  -- who or what: api:<key uuid>, sandbox, system (the deadline), import:<file name>, connector:<name>
  actor text not null check (length(actor) between 1 and 300),
  -- CREATE, EVIDENCE, or an event of the transition table (SUBMIT, ACCEPT, WIN, LOSE, EXPIRE, ESCALATE)
  event text not null,
  from_status text,
  to_status text not null,
  stage text not null,
  detail text check (length(detail) <= 1000)
);
create index dispute_history_dispute on dispute_history (dispute_id, id);

-- Evidence: text fields (by category) and documents (PDF, PNG, JPEG by their magic bytes, at most
-- 4 MiB each and 10 MiB per dispute), kept in the database.
create table dispute_evidence (
  id uuid primary key,
  dispute_id uuid not null references disputes(id),
  kind text not null check (kind in ('TEXT', 'DOCUMENT')),
  -- TEXT: the field (product_description, ...); DOCUMENT: the file name
  name text not null check (length(name) between 1 and 255),
  text_value text check (length(text_value) <= 20000),
  content_type text check (content_type in ('application/pdf', 'image/png', 'image/jpeg')),
  size integer not null check (size between 0 and 4194304),
  content bytea,
  -- DOCUMENT: the evidence field it supports (proof_of_delivery, ...), when the merchant named one
  field text check (length(field) between 1 and 60),
  created_at timestamptz not null,
  check ((kind = 'TEXT') = (text_value is not null and content is null and content_type is null)),
  check ((kind = 'DOCUMENT') = (content is not null and content_type is not null and text_value is null))
);
create index dispute_evidence_dispute on dispute_evidence (dispute_id, created_at, id);
create unique index dispute_evidence_field on dispute_evidence (dispute_id, name) where kind = 'TEXT';

-- Opt-in: dispute events go to the merchant's event log, stream and this URL (signed with the key that
-- turned it on, as every notification is).
create table dispute_settings (
  merchant_id uuid primary key references merchants(id),
  notification_url text check (length(notification_url) between 1 and 500),
  key_id uuid references api_keys(id),
  reminder_days integer not null default 3 check (reminder_days between 0 and 30),
  updated_at timestamptz not null
);
