-- Card-present payments and payments sent to devices.
--
-- A card-present transaction records where the card was read (`pos`: device, TID, MID, STAN, RRN,
-- reading method) and, when the issuer asked for strong customer authentication on the terminal,
-- `payment_data` ({"terminal_action": "REQUEST_PIN" | "SWITCH_INTERFACE"}).
alter table transactions add column pos jsonb check (pos is null or jsonb_typeof(pos) = 'object');
alter table transactions add column payment_data jsonb check (payment_data is null or jsonb_typeof(payment_data) = 'object');
-- A payment sent to a device (J3, J4) is a PENDING transaction from the moment it is queued: it waits for
-- the device to read a card until this instant (the operation's deadline, on the merchant's clock). While
-- it waits no processor has it, so the reconciler leaves it alone; the device's deadline closes it, and
-- the reconciler only steps in when that has not happened well after this instant.
alter table transactions add column device_wait_until timestamptz;
create index transactions_device_wait on transactions (device_wait_until) where status = 'PENDING' and device_wait_until is not null;

-- A card read that needs strong customer authentication waits for the device to read it again (with the
-- PIN, or by chip): the operation is AUTHENTICATION_REQUIRED with the terminal action asked for.
alter table device_operations drop constraint device_operations_status_check;
alter table device_operations add constraint device_operations_status_check
  check (status in ('QUEUED', 'SENT', 'CARD_READ', 'AUTHENTICATION_REQUIRED', 'APPROVED', 'REFUSED', 'FAILED', 'CANCELLED', 'TIMED_OUT'));
alter table device_operations add column terminal_action text
  check (terminal_action is null or terminal_action in ('REQUEST_PIN', 'SWITCH_INTERFACE'));
-- the merchant's description, sent with the operation whichever process delivers it
alter table device_operations add column description text not null default '';
create index device_operations_queued on device_operations (device_id, seq) where status = 'QUEUED';

-- Processes keep devices by token for a short time (card-present calls): disabling a device, rotating its
-- token or deleting it drops those caches in every process at once, as for keys, merchants and services.
-- Only those columns: a device row is also updated by every operation and status report.
create trigger devices_invalidate after update of token_hash, active or delete on devices
  for each statement execute function paygate_notify_invalidate();
