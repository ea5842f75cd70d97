/**
 * The health of the services of this process (docs/routing.md "Health and the circuit breaker"): what
 * the payments module reports of each attempt (outcome and latency) kept per service in memory, with
 * the service's circuit breaker (routing.breaker.ts). Per process, by design: a breaker reacts to what
 * this process sees, at no database cost on the money path. The clock is injected.
 */
import {
  ATTEMPT_OUTCOMES, DEFAULT_BREAKER, newBreaker, step, tick,
  type AttemptOutcome, type Breaker, type BreakerEvent, type BreakerSettings, type BreakerState, type Sample,
} from './routing.breaker.js';

/** The figures of one service. */
export interface HealthSnapshot {
  service_uuid: string;
  state: BreakerState;
  /** when the circuit last opened (ISO 8601), null when closed */
  opened_at: string | null;
  /** attempts counted in the figures (the last `figuresSize`, no older than `figuresMs`) */
  attempts: number;
  approval_rate: number | null;
  decline_rate: number | null;
  error_rate: number | null;
  timeout_rate: number | null;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  /** the breaker's window now: attempts and the share of errors + timeouts */
  window_attempts: number;
  window_bad_rate: number | null;
}

export interface HealthSettings extends BreakerSettings {
  /** attempts kept for the figures */
  figuresSize: number;
  /** how old an attempt of the figures may be (ms) */
  figuresMs: number;
}

export const DEFAULT_HEALTH: HealthSettings = { ...DEFAULT_BREAKER, figuresSize: 200, figuresMs: 5 * 60_000 };

/** What a tracker says when a breaker moves: `OPEN` events reach the merchant (routing.service.ts). */
export type BreakerListener = (serviceUuid: string, event: BreakerEvent, snapshot: HealthSnapshot) => void;

interface Entry {
  breaker: Breaker;
  /** ring of the figures' samples, oldest first */
  samples: Sample[];
}

/** Nearest-rank percentile of sorted numbers. */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

const rate = (n: number, of: number) => (of === 0 ? null : Math.round((n / of) * 10_000) / 10_000);

export class HealthTracker {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly now: () => number,
    private readonly settings: HealthSettings = DEFAULT_HEALTH,
    private readonly listener: BreakerListener | null = null,
  ) {}

  #entry(service: string): Entry {
    let e = this.#entries.get(service);
    if (!e) {
      e = { breaker: newBreaker(), samples: [] };
      this.#entries.set(service, e);
    }
    return e;
  }

  /** Records an attempt at `service`: its outcome and how long the processor took (ms). */
  record(service: string, outcome: AttemptOutcome, ms: number): void {
    if (!(ATTEMPT_OUTCOMES as readonly string[]).includes(outcome)) throw new Error(`routing.record: unknown outcome ${String(outcome)}`);
    const key = service.toLowerCase();
    const e = this.#entry(key);
    const sample: Sample = { at: this.now(), outcome, ms: Number.isFinite(ms) && ms >= 0 ? ms : 0 };
    const r = step(e.breaker, sample, this.settings);
    e.breaker = r.breaker;
    const from = sample.at - this.settings.figuresMs;
    let drop = Math.max(0, e.samples.length + 1 - this.settings.figuresSize);
    while (drop < e.samples.length && e.samples[drop].at < from) drop++;
    if (drop > 0) e.samples.splice(0, drop);
    e.samples.push(sample);
    if (this.listener) for (const ev of r.events) this.listener(key, ev, this.snapshot(key));
  }

  /** The breaker's state at this instant (an open circuit whose cool-down is over is half-open). */
  state(service: string): BreakerState {
    const key = service.toLowerCase();
    const e = this.#entries.get(key);
    if (!e) return 'CLOSED';
    const t = tick(e.breaker, this.now(), this.settings);
    if (t.event) {
      e.breaker = t.breaker;
      if (this.listener) this.listener(key, t.event, this.snapshot(key));
    }
    return e.breaker.state;
  }

  /** Whether attempts at `service` are to be skipped now (its circuit is open). */
  isOpen(service: string): boolean {
    return this.state(service) === 'OPEN';
  }

  /** The figures of `service` now (a service never recorded: no attempts, closed). */
  snapshot(service: string): HealthSnapshot {
    const key = service.toLowerCase();
    const e = this.#entries.get(key);
    const now = this.now();
    const from = now - this.settings.figuresMs;
    const samples = e ? e.samples.filter((x) => x.at >= from) : [];
    const count = { APPROVED: 0, DECLINED: 0, ERROR: 0, TIMEOUT: 0 } as Record<AttemptOutcome, number>;
    for (const x of samples) count[x.outcome]++;
    const latencies = samples.map((x) => x.ms).sort((a, b) => a - b);
    const wfrom = now - this.settings.windowMs;
    const window = e ? e.breaker.samples.filter((x) => x.at >= wfrom) : [];
    const wbad = window.filter((x) => x.outcome === 'ERROR' || x.outcome === 'TIMEOUT').length;
    return {
      service_uuid: key,
      state: e ? tick(e.breaker, now, this.settings).breaker.state : 'CLOSED',
      opened_at: e?.breaker.openedAt != null && e.breaker.state !== 'CLOSED' ? new Date(e.breaker.openedAt).toISOString() : null,
      attempts: samples.length,
      approval_rate: rate(count.APPROVED, samples.length),
      decline_rate: rate(count.DECLINED, samples.length),
      error_rate: rate(count.ERROR, samples.length),
      timeout_rate: rate(count.TIMEOUT, samples.length),
      latency_p50_ms: percentile(latencies, 50),
      latency_p95_ms: percentile(latencies, 95),
      window_attempts: window.length,
      window_bad_rate: rate(wbad, window.length),
    };
  }

  /** Every service recorded by this process. */
  services(): string[] {
    return [...this.#entries.keys()];
  }

  /** Forgets everything (tests). */
  reset(): void {
    this.#entries.clear();
  }
}
