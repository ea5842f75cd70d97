-- A `reference` is held only by an order that is paid, being paid or held (decisions "Existing clients"):
-- an earlier order with the same reference that was never paid (created, expired, refused, cancelled)
-- does not block a new one, because shops (Magento) create a new order with the same reference when the
-- customer retries. The unique index covers only the holding statuses, so two orders with one reference
-- can never both be paid; a plain index keeps lookups by reference (dashboard search) fast.
drop index orders_merchant_reference;
create index orders_merchant_reference on orders (merchant_id, reference) where reference is not null;
create unique index orders_merchant_reference_held on orders (merchant_id, reference)
  where reference is not null
    and status in ('PENDING_3DS_RESPONSE', 'AUTHENTICATION_REQUIRED', 'PENDING_PROCESSOR_RESPONSE', 'PENDING_CONFIRMATION', 'SUCCESS', 'PARTIALLY_REFUNDED', 'REFUNDED');
