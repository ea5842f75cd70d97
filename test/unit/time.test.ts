import { describe, expect, it } from 'vitest';
import { formatContractDate, parseFilterDate, startOfNextDay } from '../../src/platform/time/format.js';

describe('contract dates', () => {
  it('formats YYYY-MM-DDTHH:mm:ss+HHMM in a timezone, winter and summer', () => {
    expect(formatContractDate(new Date('2026-01-15T10:20:30.999Z'), 'Europe/Madrid')).toBe('2026-01-15T11:20:30+0100');
    expect(formatContractDate(new Date('2026-07-15T10:20:30Z'), 'Europe/Madrid')).toBe('2026-07-15T12:20:30+0200');
    expect(formatContractDate(new Date('2026-07-15T10:20:30Z'), 'America/Mexico_City')).toBe('2026-07-15T04:20:30-0600');
    expect(formatContractDate(new Date('2026-07-15T10:20:30Z'), 'Asia/Kolkata')).toBe('2026-07-15T15:50:30+0530');
    expect(formatContractDate(new Date('2026-07-15T23:59:59Z'), 'UTC')).toBe('2026-07-15T23:59:59+0000');
  });

  it('reads filter dates YYYYMMDDHHmm as wall time of a timezone and rejects bad ones', () => {
    expect(parseFilterDate('202601151120', 'Europe/Madrid')?.toISOString()).toBe('2026-01-15T10:20:00.000Z');
    expect(parseFilterDate('202607151220', 'Europe/Madrid')?.toISOString()).toBe('2026-07-15T10:20:00.000Z');
    for (const bad of ['20260115112', '202613151120', '202602301120', '202601152460', 'abcdefghijkl', '']) {
      expect(parseFilterDate(bad, 'Europe/Madrid')).toBeNull();
    }
  });

  it('finds the start of the next day in the merchant timezone, across DST', () => {
    expect(startOfNextDay(new Date('2026-03-28T22:30:00Z'), 'Europe/Madrid').toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(startOfNextDay(new Date('2026-03-29T10:00:00Z'), 'Europe/Madrid').toISOString()).toBe('2026-03-29T22:00:00.000Z');
    expect(startOfNextDay(new Date('2026-07-01T05:00:00Z'), 'America/New_York').toISOString()).toBe('2026-07-02T04:00:00.000Z');
  });
});

describe('formatContractDate agrees with Intl around DST changes', () => {
  it('every 7 minutes across the 2026 transitions in several zones', async () => {
    const { tzOffsetMinutes } = await import('../../src/platform/time/format.js');
    const zones = ['Europe/Madrid', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/St_Johns', 'UTC'];
    const ranges = [['2026-03-07T00:00:00Z', '2026-04-06T00:00:00Z'], ['2026-10-03T00:00:00Z', '2026-11-02T00:00:00Z']];
    for (const tz of zones) {
      const f = new Intl.DateTimeFormat('en-CA', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
      for (const [from, to] of ranges) {
        for (let t = Date.parse(from); t < Date.parse(to); t += 7 * 60_000 + 13_000) {
          const d = new Date(t);
          const p = Object.fromEntries(f.formatToParts(d).map((x) => [x.type, x.value]));
          const got = formatContractDate(d, tz);
          expect(got.slice(0, 19), `${tz} ${d.toISOString()}`).toBe(`${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`);
          expect(tzOffsetMinutes(d, tz)).toBe(tzOffsetMinutes(new Date(t), tz));
        }
      }
    }
  });
});
