-- Payment methods: the alternative payment methods (APMs) each service offers besides cards. Bizum is
-- also offered by a REDSYS-family service with bizum_enabled (a switch of the service itself).
create table service_apms (
  service_id uuid not null references services(id),
  apm text not null check (length(apm) <= 32),
  created_at timestamptz not null,
  primary key (service_id, apm)
);
