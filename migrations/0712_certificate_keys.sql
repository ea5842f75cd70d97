-- The Ed25519 key pair that signs MoTo certificates: made on first use, the private key sealed by the
-- vault. One active key; older ones stay so certificates they signed still verify.
create table certificate_keys (
  id text primary key,
  public_key_pem text not null,
  private_key_sealed text not null,
  active boolean not null,
  created_at timestamptz not null
);
create unique index certificate_keys_one_active on certificate_keys (active) where active;
