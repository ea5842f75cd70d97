-- Wallets (B14, Google Pay and Apple Pay): the roots the gateway generates to sign sandbox wallet tokens,
-- the merchants' wallet keys, the tokens already used (replays are refused), and the wallets each
-- service offers. Private keys are sealed by the vault; no card number, device PAN or cryptogram is
-- ever stored here.

-- One row per wallet: the sandbox's own root (Google Pay root signing key; Apple Pay root CA,
-- intermediate CA and leaf signing certificate), generated on first use. `material_sealed` holds the
-- private keys (vault, associated data `wallet-root:<wallet>`); `public_json` what may be shown.
create table wallet_sandbox_roots (
  wallet text primary key check (wallet in ('GOOGLE_PAY', 'APPLE_PAY')),
  material_sealed text not null,
  public_json text not null,
  created_at timestamptz not null
);

-- A merchant's wallet key: Google Pay ECv2 key pair (identifier: the recipient id, merchant:<id> or
-- gateway:<id>; public_key: the base64 uncompressed point to register with Google) or Apple Pay payment
-- processing key and certificate (identifier: the merchant identifier; public_key: the base64
-- SHA-256 of the certificate's public key, as tokens name it in header.publicKeyHash).
create table wallet_keys (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  wallet text not null check (wallet in ('GOOGLE_PAY', 'APPLE_PAY')),
  identifier text not null check (length(identifier) between 1 and 200),
  private_key_sealed text not null,
  public_key text not null check (length(public_key) <= 200),
  certificate_pem text check (length(certificate_pem) <= 20000),
  -- made by the gateway (sandbox, or a production key generated on request) rather than imported
  generated boolean not null,
  created_at timestamptz not null,
  check ((wallet = 'APPLE_PAY') = (certificate_pem is not null))
);
create index wallet_keys_merchant on wallet_keys (merchant_id, env, wallet, created_at desc);
create unique index wallet_keys_apple_hash on wallet_keys (merchant_id, env, public_key) where wallet = 'APPLE_PAY';

-- Every token a payment used, by the wallet's id of it (Google Pay messageId, Apple Pay transactionId):
-- a second use is refused. Written in the transaction that starts the payment.
create table wallet_token_uses (
  merchant_id uuid not null references merchants(id),
  env text not null check (env in ('sandbox', 'production')),
  wallet text not null check (wallet in ('GOOGLE_PAY', 'APPLE_PAY')),
  token_id text not null check (length(token_id) between 1 and 500),
  order_id uuid not null,
  used_at timestamptz not null,
  primary key (merchant_id, env, wallet, token_id)
);
create index wallet_token_uses_used_at on wallet_token_uses (used_at);

-- The wallets a service offers (the checkout, the hosted page and B14 follow it).
create table service_wallets (
  service_id uuid not null references services(id),
  wallet text not null check (wallet in ('GOOGLE_PAY', 'APPLE_PAY')),
  created_at timestamptz not null,
  primary key (service_id, wallet)
);
