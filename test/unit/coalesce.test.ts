import { describe, expect, it } from 'vitest';
import { Coalescer } from '../../src/platform/db/coalesce.js';

describe('Coalescer', () => {
  it('runs the calls of one turn of the event loop together, in order, each with its own result', async () => {
    const groups: number[][] = [];
    const c = new Coalescer<number, string>(async (items) => {
      groups.push(items);
      return items.map((i) => `r${i}`);
    });
    const first = await Promise.all([c.add(1), c.add(2), c.add(3)]);
    expect(first).toEqual(['r1', 'r2', 'r3']);
    // a later turn is a group of its own
    expect(await c.add(4)).toBe('r4');
    expect(groups).toEqual([[1, 2, 3], [4]]);
  });

  it('a call made while a group runs waits for the next group', async () => {
    const groups: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const c = new Coalescer<number, number>(async (items) => {
      groups.push(items);
      if (groups.length === 1) await gate;
      return items;
    });
    const a = c.add(1);
    await new Promise((r) => setImmediate(r));
    const b = c.add(2);
    await new Promise((r) => setImmediate(r));
    expect(groups).toEqual([[1], [2]]);
    release();
    expect(await Promise.all([a, b])).toEqual([1, 2]);
  });

  it('never runs more than `max` at once', async () => {
    const sizes: number[] = [];
    const c = new Coalescer<number, number>(async (items) => {
      sizes.push(items.length);
      return items;
    }, 4);
    const out = await Promise.all(Array.from({ length: 10 }, (_, i) => c.add(i)));
    expect(out).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(sizes).toEqual([4, 4, 2]);
  });

  it('a failed group rejects every call of it, and the next group runs', async () => {
    let fail = true;
    const c = new Coalescer<number, number>(async (items) => {
      if (fail) throw new Error('database away');
      return items;
    });
    const results = await Promise.allSettled([c.add(1), c.add(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason.message).toBe('database away');
    fail = false;
    expect(await c.add(3)).toBe(3);
  });
});
