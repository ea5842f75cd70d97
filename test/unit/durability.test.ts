/**
 * The synchronous-standby guard (src/platform/db/durability.ts): what a primary's replication state
 * means, and how checks are shared: a check counts for a caller only if it started after the caller's
 * moment (its commit), concurrent callers share one query, at most one runs and one waits.
 */
import { describe, expect, it } from 'vitest';
import { replicationProblem, SyncStandbyGuard } from '../../src/platform/db/durability.js';

describe('replicationProblem', () => {
  it('a primary with a synchronous standby streaming is fine; anything else is named', () => {
    expect(replicationProblem({ standby: false, names: 'ANY 1 (pgautofailover_standby_2, pgautofailover_standby_3)', synced: 1, hidden: 0 })).toBeNull();
    expect(replicationProblem({ standby: false, names: 'ANY 2 (a, b, c)', synced: 1, hidden: 0 })).toBe('no synchronous standby: 1 of 2 streaming');
    // pg_auto_failover's wait_primary: no standby names, so PostgreSQL acknowledges commits alone
    expect(replicationProblem({ standby: false, names: '', synced: 0, hidden: 0 })).toMatch(/takes writes alone/);
    // a standby that streams but is not synchronous does not count (names empty: it is asynchronous)
    expect(replicationProblem({ standby: false, names: '', synced: 0, hidden: 0 })).not.toBeNull();
    expect(replicationProblem({ standby: true, names: '', synced: 0, hidden: 0 })).toMatch(/standby/);
    expect(replicationProblem({ standby: false, names: 'FIRST 1 (x)', synced: 0, hidden: 2 })).toMatch(/pg_monitor/);
  });
});

/** Lets every promise callback queued so far run. */
const settled = () => new Promise<void>((r) => setImmediate(r));

/** A probe the test answers by hand, counting its queries. */
function manualProbe() {
  const pending: Array<(p: string | null) => void> = [];
  let calls = 0;
  return {
    probe: () => {
      calls++;
      return new Promise<string | null>((resolve) => pending.push(resolve));
    },
    answer: (p: string | null) => pending.shift()!(p),
    get calls() {
      return calls;
    },
    get waiting() {
      return pending.length;
    },
  };
}

describe('SyncStandbyGuard', () => {
  it('callers whose moment came before a running check wait for the next one, shared by all of them', async () => {
    let now = 0;
    const p = manualProbe();
    const g = new SyncStandbyGuard(p.probe, () => now);
    const a = g.check(0); // starts check 1 at t=0
    expect(p.calls).toBe(1);
    const b = g.check(0); // shares check 1
    expect(p.calls).toBe(1);
    now = 5;
    const c = g.check(5); // committed after check 1 started: waits for check 2
    const d = g.check(5);
    expect(p.calls).toBe(1);
    p.answer(null);
    expect(await a).toBeNull();
    expect(await b).toBeNull();
    // check 2 starts once check 1 ended, for c and d together
    await settled();
    expect(p.calls).toBe(2);
    p.answer('no synchronous standby: 0 of 1 streaming');
    expect(await c).toMatch(/no synchronous standby/);
    expect(await d).toMatch(/no synchronous standby/);
    expect(g.last).toMatch(/no synchronous standby/);
    // a result newer than the caller's moment is reused without a query
    expect(await g.check(5)).toMatch(/no synchronous standby/);
    expect(p.calls).toBe(2);
    now = 9;
    const e = g.check();
    expect(p.calls).toBe(3);
    p.answer(null);
    expect(await e).toBeNull();
    expect(g.last).toBeNull();
  });

  it('a database that cannot be asked is a problem, never a pass', async () => {
    const g = new SyncStandbyGuard(() => Promise.reject(new Error('connection terminated')), () => 1);
    expect(await g.check(0)).toBe('database unavailable');
  });

  it('under a burst at most one query runs and one waits', async () => {
    let now = 0;
    const p = manualProbe();
    const g = new SyncStandbyGuard(p.probe, () => now);
    const all: Array<Promise<string | null>> = [];
    for (let i = 0; i < 100; i++) {
      now = i;
      all.push(g.check(i));
    }
    expect(p.calls).toBe(1);
    p.answer(null);
    await settled();
    expect(p.calls).toBe(2);
    expect(p.waiting).toBe(1);
    p.answer(null);
    expect((await Promise.all(all)).every((x) => x === null)).toBe(true);
    expect(p.calls).toBe(2);
  });
});
