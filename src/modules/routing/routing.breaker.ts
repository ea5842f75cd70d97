/**
 * A service's circuit breaker (docs/routing.md "Health and the circuit breaker"), pure: one transition
 * table and a step function over a rolling window of the last attempts. No clock of its own: every call
 * is given `now` (ms), so tests drive it without timers.
 *
 *   CLOSED ──TRIP──▶ OPEN ──COOL_DOWN──▶ HALF_OPEN ──PROBE_OK──▶ CLOSED
 *                      ▲                     │
 *                      └─────PROBE_FAILED────┘
 *
 * TRIP: in the window (the last `windowSize` attempts no older than `windowMs`), at least `minAttempts`
 * attempts and a share of errors plus timeouts at or above `threshold`. COOL_DOWN: `coolDownMs` after
 * opening, checked whenever the breaker is read or fed. In HALF_OPEN attempts go through; the first
 * outcome decides (a success closes, an error or timeout opens again).
 */

export const BREAKER_STATES = ['CLOSED', 'OPEN', 'HALF_OPEN'] as const;
export type BreakerState = (typeof BREAKER_STATES)[number];
export const BREAKER_EVENTS = ['TRIP', 'COOL_DOWN', 'PROBE_OK', 'PROBE_FAILED'] as const;
export type BreakerEvent = (typeof BREAKER_EVENTS)[number];

/** THE transition table: a (state, event) pair absent here is no move. */
const TRANSITIONS: Readonly<Record<BreakerState, Partial<Record<BreakerEvent, BreakerState>>>> = {
  CLOSED: { TRIP: 'OPEN' },
  OPEN: { COOL_DOWN: 'HALF_OPEN' },
  HALF_OPEN: { PROBE_OK: 'CLOSED', PROBE_FAILED: 'OPEN' },
};

export function breakerTransition(state: BreakerState, event: BreakerEvent): BreakerState | null {
  return TRANSITIONS[state][event] ?? null;
}

/** What an attempt at a service came to, as the breaker and the health figures count it. */
export const ATTEMPT_OUTCOMES = ['APPROVED', 'DECLINED', 'ERROR', 'TIMEOUT'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];
/** Errors and timeouts say the service is unwell; an issuer's decline says nothing about it. */
export const isBad = (o: AttemptOutcome) => o === 'ERROR' || o === 'TIMEOUT';

export interface BreakerSettings {
  /** attempts kept in the window */
  windowSize: number;
  /** how old an attempt of the window may be (ms) */
  windowMs: number;
  /** fewer attempts in the window never trip */
  minAttempts: number;
  /** share of errors + timeouts (0..1] that trips */
  threshold: number;
  /** how long the circuit stays open before a probe (ms) */
  coolDownMs: number;
}

export const DEFAULT_BREAKER: BreakerSettings = { windowSize: 50, windowMs: 60_000, minAttempts: 10, threshold: 0.5, coolDownMs: 30_000 };

export interface Sample {
  at: number;
  outcome: AttemptOutcome;
  ms: number;
}

export interface Breaker {
  state: BreakerState;
  /** when it last opened (ms), null when it never did or is closed */
  openedAt: number | null;
  /** the window: oldest first */
  samples: Sample[];
}

export const newBreaker = (): Breaker => ({ state: 'CLOSED', openedAt: null, samples: [] });

/** The samples of the window at `now` (the last `windowSize`, none older than `windowMs`). */
export function windowOf(b: Breaker, now: number, s: BreakerSettings): Sample[] {
  const from = now - s.windowMs;
  let i = 0;
  while (i < b.samples.length && b.samples[i].at < from) i++;
  return i === 0 ? b.samples : b.samples.slice(i);
}

function apply(b: Breaker, event: BreakerEvent, now: number): { breaker: Breaker; event: BreakerEvent | null } {
  const to = breakerTransition(b.state, event);
  if (!to) return { breaker: b, event: null };
  return { breaker: { ...b, state: to, openedAt: to === 'OPEN' ? now : to === 'CLOSED' ? null : b.openedAt }, event };
}

/** The breaker as time passes: an open one whose cool-down is over is half-open. */
export function tick(b: Breaker, now: number, s: BreakerSettings): { breaker: Breaker; event: BreakerEvent | null } {
  if (b.state === 'OPEN' && b.openedAt !== null && now - b.openedAt >= s.coolDownMs) return apply(b, 'COOL_DOWN', now);
  return { breaker: b, event: null };
}

/** Whether the window at `now` trips the breaker. */
export function trips(samples: Sample[], s: BreakerSettings): boolean {
  if (samples.length < s.minAttempts) return false;
  let bad = 0;
  for (const x of samples) if (isBad(x.outcome)) bad++;
  return bad / samples.length >= s.threshold;
}

/**
 * The breaker after an attempt's outcome at `now`, and the events it went through (in order). Opening
 * empties the window: after the cool-down the probe's outcome decides, and a closed circuit starts over.
 */
export function step(b0: Breaker, sample: Sample, s: BreakerSettings): { breaker: Breaker; events: BreakerEvent[] } {
  const events: BreakerEvent[] = [];
  const t = tick(b0, sample.at, s);
  if (t.event) events.push(t.event);
  let b = t.breaker;
  const kept = windowOf(b, sample.at, s);
  const samples = [...(kept.length >= s.windowSize ? kept.slice(kept.length - s.windowSize + 1) : kept), sample];
  b = { ...b, samples };
  if (b.state === 'HALF_OPEN') {
    const r = apply(b, isBad(sample.outcome) ? 'PROBE_FAILED' : 'PROBE_OK', sample.at);
    if (r.event) events.push(r.event);
    b = { ...r.breaker, samples: [] };
  } else if (b.state === 'CLOSED' && trips(samples, s)) {
    const r = apply(b, 'TRIP', sample.at);
    if (r.event) events.push(r.event);
    b = { ...r.breaker, samples: [] };
  }
  return { breaker: b, events };
}
