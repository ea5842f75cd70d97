-- events_order (order_id) duplicates what events_merchant_order (merchant_id, order_id, created_at desc,
-- id) serves: every lookup of an order's events names its merchant (GET /events?order_uuid=), and no
-- order is ever deleted (the one use of an index on the referencing column alone). Each notification
-- wrote an entry into it twice: when it was made and when its delivery ended (the status changes, so
-- that update is not a HOT update).
drop index if exists events_order;
