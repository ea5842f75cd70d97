-- Dashboard sign-in, second part: TOTP two-factor with recovery codes, and password reset by e-mail.
-- Real time throughout (security machinery, like the sessions).

-- The last TOTP time step accepted for the user: a code is good once.
alter table dashboard_users add column totp_last_step bigint;

-- Recovery codes: shown once when two-factor is turned on, stored as SHA-256 (random, 50 bits each),
-- each good once.
create table dashboard_recovery_codes (
  user_id uuid not null references dashboard_users(id),
  code_hash text not null,
  used_at timestamptz,
  created_at timestamptz not null,
  primary key (user_id, code_hash)
);

-- Password resets: the SHA-256 of the token e-mailed to the user, good once and for a short while.
create table dashboard_password_resets (
  token_hash text primary key,
  user_id uuid not null references dashboard_users(id),
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz
);
create index dashboard_password_resets_user on dashboard_password_resets (user_id, created_at);
