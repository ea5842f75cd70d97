/**
 * The circuit breaker's transition table and its moves over a rolling window, and the per-process
 * health tracker (figures, state, the listener), all on a clock the test moves: no timers.
 */
import { describe, expect, it } from 'vitest';
import {
  BREAKER_EVENTS, BREAKER_STATES, breakerTransition, newBreaker, step, trips,
  type AttemptOutcome, type Breaker, type BreakerEvent, type BreakerSettings, type BreakerState,
} from '../../src/modules/routing/routing.breaker.js';
import { DEFAULT_HEALTH, HealthTracker, percentile } from '../../src/modules/routing/routing.health.js';

const S: BreakerSettings = { windowSize: 10, windowMs: 60_000, minAttempts: 4, threshold: 0.5, coolDownMs: 30_000 };

describe('the transition table', () => {
  const expected: Record<BreakerState, Partial<Record<BreakerEvent, BreakerState>>> = {
    CLOSED: { TRIP: 'OPEN' },
    OPEN: { COOL_DOWN: 'HALF_OPEN' },
    HALF_OPEN: { PROBE_OK: 'CLOSED', PROBE_FAILED: 'OPEN' },
  };
  it('every state and event: exactly these moves', () => {
    for (const s of BREAKER_STATES) for (const e of BREAKER_EVENTS) expect(breakerTransition(s, e), `${s} ${e}`).toBe(expected[s][e] ?? null);
  });
});

function feed(b: Breaker, at: number, outcomes: AttemptOutcome[]): { breaker: Breaker; events: BreakerEvent[] } {
  const events: BreakerEvent[] = [];
  for (const o of outcomes) {
    const r = step(b, { at, outcome: o, ms: 10 }, S);
    b = r.breaker;
    events.push(...r.events);
  }
  return { breaker: b, events };
}

describe('the breaker over its window', () => {
  it('trips at the threshold once the window holds enough attempts; declines do not count', () => {
    expect(trips([], S)).toBe(false);
    // three errors: below minAttempts
    let r = feed(newBreaker(), 0, ['ERROR', 'TIMEOUT', 'ERROR']);
    expect(r.breaker.state).toBe('CLOSED');
    // declines are healthy answers: 2 bad of 6 stays closed
    r = feed(newBreaker(), 0, ['DECLINED', 'DECLINED', 'DECLINED', 'DECLINED', 'ERROR', 'TIMEOUT']);
    expect(r.breaker.state).toBe('CLOSED');
    // 2 bad of 4 = 0.5: opens
    r = feed(newBreaker(), 0, ['APPROVED', 'ERROR', 'APPROVED', 'TIMEOUT']);
    expect(r).toMatchObject({ breaker: { state: 'OPEN', openedAt: 0 }, events: ['TRIP'] });
  });

  it('the window forgets attempts older than windowMs and beyond windowSize', () => {
    // two errors long ago, then two approvals: the old errors are out of the window
    let r = feed(newBreaker(), 0, ['ERROR', 'ERROR']);
    r = feed(r.breaker, 61_000, ['APPROVED', 'APPROVED', 'ERROR']);
    expect(r.breaker.state).toBe('CLOSED');
    expect(r.breaker.samples).toHaveLength(3);
    // only the last 10 attempts count: 9 approvals push 5 old errors out
    r = feed(newBreaker(), 0, ['APPROVED', 'APPROVED', 'APPROVED', 'APPROVED', 'APPROVED', 'APPROVED', 'APPROVED']);
    r = feed(r.breaker, 1, ['APPROVED', 'APPROVED', 'APPROVED', 'ERROR', 'ERROR', 'ERROR', 'ERROR']);
    expect(r.breaker.samples).toHaveLength(10);
    expect(r.breaker.state).toBe('CLOSED');
    r = feed(r.breaker, 2, ['ERROR']);
    expect(r.breaker.state).toBe('OPEN');
  });

  it('OPEN → HALF_OPEN after the cool-down; a probe success closes, a failure re-opens', () => {
    let r = feed(newBreaker(), 0, ['ERROR', 'ERROR', 'ERROR', 'ERROR']);
    expect(r.breaker.state).toBe('OPEN');
    // an outcome before the cool-down is over changes nothing
    r = feed(r.breaker, 29_999, ['APPROVED']);
    expect(r).toMatchObject({ breaker: { state: 'OPEN' }, events: [] });
    r = feed(r.breaker, 30_000, ['TIMEOUT']);
    expect(r).toMatchObject({ breaker: { state: 'OPEN', openedAt: 30_000 }, events: ['COOL_DOWN', 'PROBE_FAILED'] });
    r = feed(r.breaker, 60_000, ['APPROVED']);
    expect(r).toMatchObject({ breaker: { state: 'CLOSED', openedAt: null, samples: [] }, events: ['COOL_DOWN', 'PROBE_OK'] });
    // closed again, it starts over: three errors are below minAttempts
    r = feed(r.breaker, 60_001, ['ERROR', 'ERROR', 'ERROR']);
    expect(r.breaker.state).toBe('CLOSED');
  });
});

describe('the health tracker', () => {
  it('figures, state and the listener on a moved clock', () => {
    let now = 1_000_000;
    const moves: Array<[string, BreakerEvent]> = [];
    const h = new HealthTracker(() => now, { ...DEFAULT_HEALTH, ...S, figuresSize: 100, figuresMs: 300_000 }, (s, e) => moves.push([s, e]));
    expect(h.isOpen('A')).toBe(false);
    expect(h.snapshot('a')).toMatchObject({ state: 'CLOSED', attempts: 0, approval_rate: null, latency_p50_ms: null });
    const lat = [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000];
    lat.forEach((ms, i) => h.record('A', i < 6 ? 'APPROVED' : i < 8 ? 'DECLINED' : 'ERROR', ms));
    expect(h.snapshot('A')).toMatchObject({ service_uuid: 'a', state: 'CLOSED', attempts: 10, approval_rate: 0.6, decline_rate: 0.2, error_rate: 0.2, timeout_rate: 0, latency_p50_ms: 500, latency_p95_ms: 1000, window_attempts: 10, window_bad_rate: 0.2 });
    for (let i = 0; i < 10; i++) h.record('a', 'TIMEOUT', 5000);
    expect(h.isOpen('A')).toBe(true);
    expect(moves).toEqual([['a', 'TRIP']]);
    expect(h.snapshot('a').opened_at).toBe(new Date(1_000_000).toISOString());
    // it opened at the third timeout (5 bad of the last 10), which emptied its window; the figures keep
    // the whole history, and the 7 timeouts after opening are in the window again
    expect(h.snapshot('a')).toMatchObject({ attempts: 20, timeout_rate: 0.5, window_attempts: 7, window_bad_rate: 1 });
    now += 30_000;
    expect(h.state('a')).toBe('HALF_OPEN');
    expect(h.isOpen('a')).toBe(false);
    expect(moves).toEqual([['a', 'TRIP'], ['a', 'COOL_DOWN']]);
    h.record('a', 'APPROVED', 50);
    expect(h.state('a')).toBe('CLOSED');
    expect(moves.at(-1)).toEqual(['a', 'PROBE_OK']);
    // figures older than figuresMs are left out
    now += 300_001;
    expect(h.snapshot('a').attempts).toBe(0);
    expect(h.services()).toEqual(['a']);
    expect(() => h.record('a', 'LOST' as never, 1)).toThrow(/unknown outcome/);
  });

  it('percentiles by nearest rank', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 95)).toBe(95);
  });
});
