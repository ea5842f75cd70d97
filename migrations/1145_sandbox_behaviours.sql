-- Per-service behaviour of the sandbox simulator (the services module's; docs/payments.md, "Per-service
-- behaviour"): how a sandbox service answers the payments the test-card rules approve (approval rates by
-- BIN range), whether it is down (an outage) and how slow it is. A service without a row behaves by the
-- test cards. Only sandbox services have one (the API refuses production keys).
--   approval: the rules, first match: [{"bin_from": "400000", "bin_to": "499999", "approve_rate": 0.6}, ...];
--   soft_decline: the decline of a payment the draw refuses (DENIED "Do not honour", PROCESSOR_ERROR
--     "Issuer unavailable");
--   outage: none; refuse (the connection is refused: nothing is sent); timeout (sent, no answer);
--   latency_ms: added before every money operation of the service;
--   updated_at: when it was set (the merchant's clock).
create table service_sandbox_behaviours (
  service_id uuid primary key references services(id),
  approval jsonb not null default '[]' check (jsonb_typeof(approval) = 'array' and jsonb_array_length(approval) <= 50),
  soft_decline text not null default 'DENIED' check (soft_decline in ('DENIED', 'PROCESSOR_ERROR')),
  outage text not null default 'none' check (outage in ('none', 'refuse', 'timeout')),
  latency_ms integer not null default 0 check (latency_ms between 0 and 60000),
  updated_at timestamptz not null
);

-- every process keeps the behaviours it read for a short time: a change drops them everywhere (0630)
create trigger service_sandbox_behaviours_invalidate after insert or update or delete on service_sandbox_behaviours
  for each statement execute function paygate_notify_invalidate();
