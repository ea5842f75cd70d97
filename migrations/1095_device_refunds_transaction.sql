-- A J7 refund sent to a simulated device is judged and its amount reserved when it is sent: the
-- payments module's PENDING REFUND transaction that holds it. `amount` is then always the amount
-- reserved (a refund of "the rest" is the rest when it was sent). Nullable: refunds queued by the
-- previous release have none and are processed as before.
alter table device_refunds add column transaction_id uuid;
