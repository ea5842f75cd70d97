-- Customer accounts, addresses and profiles (api.md E2–E12).

create table customer_accounts (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  customer_id uuid not null references customers(id),
  account_type text not null check (account_type in ('ACCOUNT_NUMBER', 'BUSINESS', 'ACCOUNT_CLABE', 'CARD_NUMBER',
    'INTEREST_CHECKING', 'MONEY_MARKET', 'MOBILE_PHONE_NUMBER', 'NOT_USED_FOR_THIS_BANK', 'PERSONAL', 'REGULAR_CHECKING',
    'SAVING_ACCOUNT')),
  -- account numbers can be card numbers or bank accounts: sealed by the vault (account:<id>); what is
  -- shown is kept apart (the number itself, or BIN and last 4 for CARD_NUMBER)
  account_number_sealed text not null check (account_number_sealed like 'v1.%'),
  account_number_shown text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index customer_accounts_customer on customer_accounts (customer_id);

create table customer_addresses (
  id uuid primary key,
  merchant_id uuid not null references merchants(id),
  customer_id uuid not null references customers(id),
  address1 text not null check (length(address1) between 1 and 50),
  address2 text check (length(address2) <= 50),
  address3 text check (length(address3) <= 50),
  city text not null,
  country text not null check (country ~ '^[A-Z]{3}$'),
  is_default boolean not null default false,
  state_code text not null,
  type text not null check (type in ('OTHER', 'BILLING', 'SHIPPING')),
  zip_code text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index customer_addresses_customer on customer_addresses (customer_id);
-- one default address per customer
create unique index customer_addresses_one_default on customer_addresses (customer_id) where is_default;

create table customer_profiles (
  customer_id uuid primary key references customers(id),
  merchant_id uuid not null references merchants(id),
  first_name text not null,
  last_name text not null,
  cardholder_name text,
  document_identification_issuer_type text check (document_identification_issuer_type in ('STATE_GOVERNMENT',
    'FEDERAL_GOVERNMENT', 'MONEY_TRANSMITTER', 'PROFESSIONAL_ASSOCIATION')),
  document_identification_type text check (document_identification_type in ('ALIEN_REGISTRATION_CARD',
    'ELECTOR_CREDENTIAL', 'FISCAL_IDENTIFICATION_CODE', 'ORIGIN_COUNTRY_IDENTIFICATION_CODE',
    'FOREIGN_IDENTIFICATION_DOCUMENT', 'NATIONAL_IDENTITY_DOCUMENT', 'OTHER_PHYSICAL_PERSON_DOCUMENTS', 'DRIVER_LICENSE',
    'CONSULAR_REGISTRATION', 'UNDER_AGE', 'RESIDENCE_CARD', 'TAX_IDENTIFICATION_NUMBER', 'NON_DRIVER_LICENSE_PHOTO_ID',
    'VALID_PASSPORT', 'DIPLOMAT_IDENTITY_CARD', 'US_GOVERNMENT_ISSUER_ID', 'UNIQUE_ID_ISSUED_BY_MT')),
  document_identification_number text,
  email text,
  phone jsonb,
  work_phone jsonb,
  home_phone jsonb,
  mobile_phone jsonb,
  -- YYYY-MM-DD, a real calendar date
  birthdate text check (birthdate ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' and (birthdate::date)::text = birthdate),
  source_of_funds text,
  occupation text,
  -- sealed by the vault (ssn:<customer_id>); only the last 4 are shown
  social_security_number_sealed text check (social_security_number_sealed like 'v1.%'),
  social_security_number_last4 text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
