-- Card listings (decisions §10): the service that validated a card or first charged it.
alter table sources add column tokenization_service_id uuid references services(id);

-- Customer tokens (E1 `Customer.token`) open the embedded card form until this instant; null: not
-- usable (never issued by POST /customer, or revoked). POST /customer extends it.
alter table customers add column token_expires_at timestamptz;
