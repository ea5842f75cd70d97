-- Routing and cascading (docs/routing.md): which service took each payment attempt, and why.
-- orders.entry_service_id / entry_service_type: the service the order named, kept when routing sent a
--   payment attempt to another service (null: never routed away). The order's service_id and
--   service_type are then the service that processes it (its follow-ups, lookups and disputes go there);
--   the order is presented with the service it named.
-- transactions.service_id: the service that processed the attempt (null: the order's, before routing).
-- transactions.routing: how routing chose it, as the transaction presents it ({service_uuid, service,
--   rule, reason, attempt}); null when no routing profile applied.
-- transactions.routing_next: the fallbacks still to try after a retriable decline of this attempt
--   ([{service_id, service_type, rule, reason}]), internal.
-- Columns without a default: adding them rewrites nothing; no index uses them.
alter table orders add column entry_service_id uuid, add column entry_service_type text;
alter table transactions add column service_id uuid, add column routing jsonb, add column routing_next jsonb;
