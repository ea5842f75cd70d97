/** Prometheus metrics (prom-client), one registry per app instance. */
import client from 'prom-client';

export class Metrics {
  readonly registry = new client.Registry();
  readonly httpDuration = new client.Histogram({
    name: 'paygate_http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly jobsFinished = new client.Counter({
    name: 'paygate_jobs_finished_total',
    help: 'Background jobs finished, by queue and outcome',
    labelNames: ['queue', 'outcome'],
    registers: [this.registry],
  });

  constructor() {
    client.collectDefaultMetrics({ register: this.registry, prefix: 'paygate_' });
  }
}
