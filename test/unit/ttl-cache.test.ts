/** The platform's one time-limited cache, driven by an injected clock. */
import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../src/platform/cache/ttl-cache.js';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('TtlCache', () => {
  it('keeps an entry for its time to live and no longer', () => {
    const c = clock();
    const cache = new TtlCache<string>(2000, { now: c.now });
    expect(cache.set('a', 'x')).toBe('x');
    expect(cache.get('a')).toBe('x');
    c.advance(1999);
    expect(cache.get('a')).toBe('x');
    c.advance(1);
    expect(cache.get('a')).toBeUndefined();
    // an expired entry read is gone
    expect(cache.size).toBe(0);
  });

  it('keeps null values apart from a miss', () => {
    const c = clock();
    const cache = new TtlCache<string | null>(1000, { now: c.now });
    expect(cache.get('k')).toBeUndefined();
    cache.set('k', null);
    expect(cache.get('k')).toBeNull();
  });

  it('takes a time to live per entry', () => {
    const c = clock();
    const cache = new TtlCache<number>(60_000, { now: c.now });
    cache.set('short', 1, 500);
    cache.set('long', 2);
    c.advance(500);
    expect(cache.get('short')).toBeUndefined();
    expect(cache.get('long')).toBe(2);
    c.advance(59_500);
    expect(cache.get('long')).toBeUndefined();
  });

  it('a set again restarts the time to live', () => {
    const c = clock();
    const cache = new TtlCache<number>(1000, { now: c.now });
    cache.set('a', 1);
    c.advance(900);
    cache.set('a', 2);
    c.advance(900);
    expect(cache.get('a')).toBe(2);
  });

  it('keeps nothing with a time to live of 0 (caching off), and a set of 0 drops the entry', () => {
    const c = clock();
    const off = new TtlCache<number>(0, { now: c.now });
    expect(off.set('a', 1)).toBe(1);
    expect(off.get('a')).toBeUndefined();
    expect(off.size).toBe(0);
    const on = new TtlCache<number>(1000, { now: c.now });
    on.set('a', 1);
    on.set('a', 2, 0);
    expect(on.get('a')).toBeUndefined();
  });

  it('is bounded: a new key past max empties it first; a known key replaces its entry', () => {
    const c = clock();
    const cache = new TtlCache<number>(60_000, { max: 3, now: c.now });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    cache.set('c', 30);
    expect(cache.size).toBe(3);
    expect(cache.get('a')).toBe(1);
    cache.set('d', 4);
    expect(cache.size).toBe(1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('d')).toBe(4);
  });

  it('deletes one entry or clears them all', () => {
    const cache = new TtlCache<number>(60_000);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe(2);
    cache.clear();
    expect(cache.get('b')).toBeUndefined();
  });

  it('takes keys of any type', () => {
    const cache = new TtlCache<string, number>(60_000);
    cache.set(7, 'seven');
    expect(cache.get(7)).toBe('seven');
    expect(cache.get(8)).toBeUndefined();
  });
});
