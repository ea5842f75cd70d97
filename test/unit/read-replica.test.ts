/**
 * Reads that may be stale go to a standby only while the standby has replayed what the primary had
 * committed less than the bound ago (measured by WAL positions on this process's clock); otherwise, and
 * when either server cannot be asked, they go to the primary.
 */
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/platform/db/database.js';
import { lsnBytes, ReadRouting, type Positions } from '../../src/platform/db/read-replica.js';

const primary = { db: { name: 'primary' } } as unknown as Database;
const replica = { db: { name: 'replica' }, close: async () => {} } as unknown as Database;
const where = (r: ReadRouting) => (r.db as unknown as { name: string }).name;

function scripted() {
  let now = 1_000_000;
  const state = { primary: '0/100', replica: { standby: true, lsn: '0/100' as string | null }, fail: false };
  const positions: Positions = {
    async primary() {
      if (state.fail) throw new Error('connection refused');
      return state.primary;
    },
    async replica() {
      if (state.fail) throw new Error('connection refused');
      return state.replica;
    },
  };
  const r = new ReadRouting({ primary, replica, maxLagMs: 5000, positions, now: () => now });
  return { r, state, advance: (ms: number) => (now += ms) };
}

describe('reads that may be stale', () => {
  it('use the primary when no standby is configured', async () => {
    const r = new ReadRouting({ primary, replica: null, maxLagMs: 5000 });
    await r.check();
    expect(where(r)).toBe('primary');
    expect(r.staleness).toBeNull();
  });

  it('use the primary until a check found the standby fresh, then the standby', async () => {
    const { r } = scripted();
    expect(where(r)).toBe('primary');
    await r.check();
    expect(where(r)).toBe('replica');
    expect(r.staleness).toBe(0);
  });

  it('go back to the primary once the standby has not replayed for longer than the bound', async () => {
    const { r, state, advance } = scripted();
    await r.check(); // fresh as of t0
    // the primary moves on; the standby stops replaying
    state.primary = '0/200';
    for (let i = 0; i < 4; i++) {
      advance(1000);
      await r.check();
    }
    expect(where(r)).toBe('replica'); // 4 s behind at most
    expect(r.staleness).toBe(4000);
    advance(1001);
    await r.check();
    expect(where(r)).toBe('primary');
    // it replays what the primary had at the last check while the primary moved on: fresh as of that
    // check, a second ago
    state.primary = '0/300';
    state.replica.lsn = '0/200';
    advance(1000);
    await r.check();
    expect(r.staleness).toBe(1000);
    expect(where(r)).toBe('replica');
    // it catches up with the primary: fresh as of this check
    state.replica.lsn = '0/300';
    await r.check();
    expect(where(r)).toBe('replica');
    expect(r.staleness).toBe(0);
    advance(5001);
    expect(where(r)).toBe('primary'); // the bound is re-evaluated at every read, not only at checks
  });

  it('count a standby that replayed past an older position as fresh only as of that position', async () => {
    const { r, state, advance } = scripted();
    state.replica.lsn = '0/50'; // behind the first position
    await r.check();
    expect(where(r)).toBe('primary');
    state.primary = '0/300';
    advance(1000);
    state.replica.lsn = '0/150'; // past the first position (0/100), not the second (0/300)
    await r.check();
    expect(where(r)).toBe('replica');
    expect(r.staleness).toBe(1000);
  });

  it('use the primary while the standby or the primary cannot be asked', async () => {
    const { r, state, advance } = scripted();
    await r.check();
    expect(where(r)).toBe('replica');
    state.fail = true;
    advance(100);
    await r.check();
    expect(where(r)).toBe('primary');
    state.fail = false;
    await r.check();
    expect(where(r)).toBe('replica');
  });

  it('treat a "standby" that is a primary (the proxy sent the connection to one) as current', async () => {
    const { r, state, advance } = scripted();
    state.replica = { standby: false, lsn: null };
    state.primary = '0/900';
    advance(60_000);
    await r.check();
    expect(where(r)).toBe('replica');
    expect(r.staleness).toBe(0);
  });

  it('are reported in the metrics: standby in use and how stale it may be', async () => {
    const { Metrics } = await import('../../src/platform/metrics.js');
    const { r, state, advance } = scripted();
    const metrics = new Metrics();
    metrics.watchReads(r);
    expect(await metrics.registry.metrics()).toMatch(/^paygate_read_standby_in_use 0$/m);
    await r.check();
    state.primary = '0/200';
    advance(1500);
    await r.check();
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^paygate_read_standby_in_use 1$/m);
    expect(text).toMatch(/^paygate_read_standby_staleness_seconds 1\.5$/m);
  });

  it('read WAL positions as byte counts', () => {
    expect(lsnBytes('0/10')).toBe(16n);
    expect(lsnBytes('1/0')).toBe(4294967296n);
    expect(lsnBytes('A/FF') > lsnBytes('9/FFFFFFFF')).toBe(true);
  });
});
