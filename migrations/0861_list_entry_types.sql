-- The shape of a GET /orders entry as composite types, so the database builds each entry from
-- row_to_json over rows of these types (compact JSON, keys in this order) with no subqueries per row.
-- An entry is the transaction part (c3_tx), then `pos` and `payment_data` when the transaction has them,
-- then its order's part (c3_order). Kept equal to the entries the application presents (a test compares
-- them on both engines).
create type c3_antifraud as (evaluation text, score jsonb, risk_score jsonb, fraud_score jsonb, triggered_rules json);
create type c3_device as (fingerprint text, user_agent text);
create type c3_dcc as (offered boolean, accepted boolean, cardholder_currency text, cardholder_amount jsonb, rate text, markup text, source text, "timestamp" text);
create type c3_tx as (
  uuid uuid, created text, created_from_client_timezone text, operative text, amount bigint, "authorization" text,
  processor_id text, status text, error text, source json, antifraud c3_antifraud, device c3_device, error_details text,
  dcc c3_dcc
);
create type c3_pos as (device_id text, tid text, mid text, stan text, rrn text, card_reading_method text, entry_mode text);
create type c3_payment_data as (terminal_action text);
create type c3_order as (
  order_uuid uuid, client_uuid uuid, currency text, service text, service_uuid uuid, reference text, customer text,
  order_status text, updated text
);
-- A JSON array of strings, compact (jsonb's own text has spaces). A function rather than a subquery in
-- the entry's expression keeps that expression parallel safe, so parallel workers can build entries.
create function c3_string_array(a jsonb) returns json language plpgsql immutable parallel safe as $$
begin
  return array_to_json(array(select jsonb_array_elements_text(a)));
end $$;
