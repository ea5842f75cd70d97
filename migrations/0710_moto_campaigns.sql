-- MoTo campaigns (G1–G5): payment links sent in bulk by SMS or e-mail (or handed to the merchant for its
-- own delivery), one real order per payment, with the evidence of each message (sent, delivered, opened).

create table moto_campaigns (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  -- the key that created the campaign: its background work runs as that key
  key_id uuid not null,
  service_id uuid not null,
  type text not null check (type in ('PHONE', 'MAIL', 'CUSTOM_DELIVERY')),
  entry text not null check (entry in ('FILE', 'JSON')),
  description text not null check (length(description) <= 500),
  subject text check (length(subject) <= 200),
  filename text check (length(filename) <= 255),
  -- the date of `expires_at` as sent, and the instant its links expire (00:00 in the merchant's timezone)
  expires_on text not null,
  expires_at timestamptz not null,
  status text not null check (status in ('PENDING', 'PROCESSING', 'COMPLETED', 'FAILED')),
  error text,
  payment_count integer not null check (payment_count > 0),
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index moto_campaigns_merchant on moto_campaigns (merchant_id, env, created_at);

-- One payment of a campaign: its order (created by a background job with this row's `order_id`, so a
-- retried job finds it), its link and the evidence of its message.
create table moto_payments (
  id uuid primary key,
  campaign_id uuid not null references moto_campaigns(id) on delete cascade,
  merchant_id uuid not null,
  env text not null check (env in ('sandbox', 'production')),
  line integer not null,
  amount bigint not null check (amount > 0),
  operative text not null,
  secure boolean not null,
  destination text,
  channel text check (channel in ('EMAIL', 'SMS')),
  customer_ext_id text,
  additional text,
  url_post text,
  url_ok text,
  url_ko text,
  card_template text,
  moto_template text,
  dcc_template text,
  language text,
  order_id uuid not null unique,
  -- the secret of the link the customer opens (it records the opening, then shows the payment page)
  open_token text not null unique,
  status text not null check (status in ('PENDING', 'SENT', 'OPENED', 'PAID', 'EXPIRED', 'FAILED')),
  error text,
  -- true once the background job is done with it (order created, message sent or given up)
  processed boolean not null default false,
  sent_at timestamptz,
  delivered_at timestamptz,
  delivery_provider text,
  delivery_id text,
  opened_at timestamptz,
  opened_ip text,
  opened_user_agent text,
  paid_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (campaign_id, line)
);
create index moto_payments_campaign on moto_payments (campaign_id, line);
