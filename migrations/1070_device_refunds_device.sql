-- A device's latest refunds (the dashboard's device page, newest first) read from an index instead of
-- every device's refunds.
create index device_refunds_device on device_refunds (device_id, created_at);
