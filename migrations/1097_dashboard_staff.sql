-- The dashboard's sign-in throttling per user and address, the addresses each user signed in from, and
-- the invitations of new users (how their one-time password was given).
--
-- Failed sign-ins are counted per user and address (`pair:<subject>@<address>`, locked past the limit),
-- per user from every address (`<subject>`: `user:<uuid>`, or `name:<login>` for a name that is no user;
-- past the limit it slows down the addresses the user never signed in from, `slowed_until`) and per
-- address (`ip:<address>`). `blocked` counts the attempts refused while locked or slowed.
alter table dashboard_signin_failures add column user_id uuid;
alter table dashboard_signin_failures add column ip text;
alter table dashboard_signin_failures add column blocked integer not null default 0;
alter table dashboard_signin_failures add column slowed_until timestamptz;
create index dashboard_signin_failures_user on dashboard_signin_failures (user_id) where user_id is not null;

-- Where each user signed in from (the whole sign-in, second factor included): a known address is never
-- slowed down by failures from elsewhere. Kept 90 days after the last sign-in from it.
create table dashboard_known_addresses (
  user_id uuid not null references dashboard_users(id),
  ip text not null,
  last_signin_at timestamptz not null,
  primary key (user_id, ip)
);

-- How a user invited from the dashboard got the one-time password: by e-mail (the outbox message, whose
-- state the Users page shows) or shown once to the manager who invited them (no e-mail configured).
create table dashboard_invitations (
  user_id uuid primary key references dashboard_users(id),
  delivery text not null check (delivery in ('EMAIL', 'SHOWN')),
  mail_id uuid,
  invited_by uuid,
  invited_at timestamptz not null
);
