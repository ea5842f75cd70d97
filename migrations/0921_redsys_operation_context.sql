-- Redsys operations remember what later steps need: the EMV 3-D Secure 2 session of a payment
-- (threeDSServerTransID and protocol version between card configuration, authentication and the final
-- call), and the terminal the operation went through (a notification names only the order number).
alter table redsys_operations add column emv3ds jsonb;
alter table redsys_operations add column terminal_ref jsonb;
