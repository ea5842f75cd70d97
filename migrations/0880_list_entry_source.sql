-- A GET /orders entry's card snapshot (`source`) goes into the entry as the text it is stored as
-- (transactions.source_json, written by the application as compact JSON), spliced between the two parts
-- of the transaction's fields below, instead of being cast to json: the cast parsed every snapshot again
-- and took about a sixth of a 10,000-entry page's time in the database. The entry's keys and bytes are
-- unchanged. c3_tx stays for a process of the previous version still running; nothing else uses it.
create type c3_tx_head as (
  uuid uuid, created text, created_from_client_timezone text, operative text, amount bigint, "authorization" text,
  processor_id text, status text, error text
);
create type c3_tx_tail as (antifraud c3_antifraud, device c3_device, error_details text, dcc c3_dcc);
