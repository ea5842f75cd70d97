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
  readonly requestLogDropped = new client.Counter({
    name: 'paygate_request_log_dropped_total',
    help: 'API requests left out of the request log because too many waited to be written (the database slower than the traffic)',
    registers: [this.registry],
  });

  /** Where reads that may be stale go (set by `watchReads`). */
  #reads: { usingReplica: boolean; staleness: number | null } | null = null;
  readonly readStandby = new client.Gauge({
    name: 'paygate_read_standby_in_use',
    help: 'Reads that may be stale (lists) go to the standby now (1) or to the primary (0)',
    registers: [this.registry],
    collect: () => {
      this.readStandby.set(this.#reads?.usingReplica ? 1 : 0);
    },
  });
  readonly readStandbyStaleness = new client.Gauge({
    name: 'paygate_read_standby_staleness_seconds',
    help: 'How old the standby used for lists may be, at most (absent without a standby or before it was first found fresh)',
    registers: [this.registry],
    collect: () => {
      const s = this.#reads?.staleness;
      this.readStandbyStaleness.reset();
      if (s !== null && s !== undefined) this.readStandbyStaleness.set(s / 1000);
    },
  });

  constructor() {
    client.collectDefaultMetrics({ register: this.registry, prefix: 'paygate_' });
  }

  /** Reports the read routing of this process (PAYGATE_READ_DATABASE_URL). */
  watchReads(reads: { usingReplica: boolean; staleness: number | null }): void {
    this.#reads = reads;
  }
}
