/**
 * The embedded database's one connection: API work goes before queued background work, and background
 * work still gets a turn under steady API load.
 */
import { describe, expect, it } from 'vitest';
import { PriorityMutex } from '../../src/platform/db/pglite-dialect.js';

describe('the connection lock of the embedded database', () => {
  it('hands the connection to waiting API work before queued background work, each line first come first served', async () => {
    const m = new PriorityMutex();
    const order: string[] = [];
    const release = await m.lock(true); // a background job holds the connection
    const waiters = [
      ...['b1', 'b2', 'b3', 'b4', 'b5'].map((name) => m.lock(true).then((r) => ({ name, r }))),
      ...['api1', 'api2'].map((name) => m.lock(false).then((r) => ({ name, r }))),
    ];
    expect(m.waiting).toBe(7);
    const pending = waiters.map((w) => w.then(async ({ name, r }) => {
      order.push(name);
      await Promise.resolve();
      r();
    }));
    release();
    await Promise.all(pending);
    expect(order).toEqual(['api1', 'api2', 'b1', 'b2', 'b3', 'b4', 'b5']);
    expect(m.waiting).toBe(0);
  });

  it('gives background work one turn after every FOREGROUND_BURST API grants while both wait', async () => {
    const m = new PriorityMutex();
    const order: string[] = [];
    const release = await m.lock(false);
    const burst = PriorityMutex.FOREGROUND_BURST;
    const names = [...Array.from({ length: 2 }, (_, i) => `b${i}`), ...Array.from({ length: 2 * burst + 1 }, (_, i) => `a${i}`)];
    const pending = names.map((name) => m.lock(name.startsWith('b')).then((r) => {
      order.push(name);
      r();
    }));
    release();
    await Promise.all(pending);
    expect(order.indexOf('b0')).toBe(burst);
    expect(order.indexOf('b1')).toBe(2 * burst + 1);
  });

  it('a release called twice hands the connection on once', async () => {
    const m = new PriorityMutex();
    const r1 = await m.lock(false);
    let second = false;
    let third = false;
    const p2 = m.lock(false).then((r) => {
      second = true;
      return r;
    });
    const p3 = m.lock(false).then((r) => {
      third = true;
      r();
    });
    r1();
    r1();
    const r2 = await p2;
    await Promise.resolve();
    expect(second).toBe(true);
    expect(third).toBe(false);
    r2();
    await p3;
    expect(third).toBe(true);
  });
});
