/** Version 7 uuids (platform/ids.ts): valid uuids, the version and variant bits set, in the order of their times. */
import { describe, expect, it } from 'vitest';
import { isUuid, uuidV7 } from '../../src/platform/ids.js';

describe('uuidV7', () => {
  it('is a uuid of version 7 and variant 10, its first 48 bits the time in milliseconds', () => {
    const t = Date.UTC(2026, 11, 7, 10, 0, 0);
    const id = uuidV7(t);
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(t);
  });
  it('sorts by time: an id made a millisecond later sorts after, whatever the random bits', () => {
    const ids = Array.from({ length: 200 }, (_, i) => uuidV7(1_700_000_000_000 + i));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 1000 }, () => uuidV7(1)))).toHaveProperty('size', 1000);
  });
});
