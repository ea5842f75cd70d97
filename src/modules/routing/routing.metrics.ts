/**
 * The routing figures on the gateway's metrics (GET /metrics, Prometheus): per service tried by this
 * process, the circuit's state and the health figures of routing.health.ts, read when scraped.
 */
import client from 'prom-client';
import type { HealthTracker } from './routing.health.js';

const STATE_VALUE = { CLOSED: 0, HALF_OPEN: 1, OPEN: 2 } as const;

export function registerRoutingMetrics(registry: client.Registry, health: HealthTracker): void {
  const gauge = (name: string, help: string, read: (s: ReturnType<HealthTracker['snapshot']>) => number | null) => {
    const g: client.Gauge<'service'> = new client.Gauge({
      name,
      help,
      labelNames: ['service'],
      registers: [registry],
      collect: () => {
        g.reset();
        for (const service of health.services()) {
          health.state(service);
          const v = read(health.snapshot(service));
          if (v !== null) g.set({ service }, v);
        }
      },
    });
  };
  gauge('paygate_routing_circuit_state', 'The circuit of a service in this process: 0 closed, 1 half-open, 2 open', (s) => STATE_VALUE[s.state]);
  gauge('paygate_routing_attempts', 'Attempts at a service counted in the health figures (recent window)', (s) => s.attempts);
  gauge('paygate_routing_approval_rate', 'Share of recent attempts at a service approved', (s) => s.approval_rate);
  gauge('paygate_routing_error_rate', 'Share of recent attempts at a service that ended in a processor error', (s) => s.error_rate);
  gauge('paygate_routing_timeout_rate', 'Share of recent attempts at a service that timed out', (s) => s.timeout_rate);
  gauge('paygate_routing_latency_p50_seconds', 'Median processor time of recent attempts at a service', (s) => (s.latency_p50_ms === null ? null : s.latency_p50_ms / 1000));
  gauge('paygate_routing_latency_p95_seconds', '95th percentile processor time of recent attempts at a service', (s) => (s.latency_p95_ms === null ? null : s.latency_p95_ms / 1000));
}
