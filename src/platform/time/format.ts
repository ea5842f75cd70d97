/**
 * Date formats of the contract (api.md "Conventions", decisions §1).
 * - `current_time`, `created`: `YYYY-MM-DDTHH:mm:ss+HHMM` in a given IANA timezone.
 * - other records: ISO 8601 UTC with milliseconds.
 * - filters: `YYYYMMDDHHmm`, read in a given timezone.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function zonedParts(date: Date, tz: string): Parts {
  const p: Record<string, string> = {};
  for (const part of formatter(tz).formatToParts(date)) p[part.type] = part.value;
  return {
    year: Number(p.year),
    month: Number(p.month),
    day: Number(p.day),
    hour: Number(p.hour),
    minute: Number(p.minute),
    second: Number(p.second),
  };
}

function computeOffsetMinutes(date: Date, tz: string): number {
  const p = zonedParts(date, tz);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  const whole = Math.floor(date.getTime() / 1000) * 1000;
  return Math.round((asUtc - whole) / 60000);
}

/**
 * Offsets change only at transitions that fall on whole quarter hours (UTC) in every modern timezone,
 * so the offset found for one 15-minute slot holds for the whole slot. Formatting dates is on every
 * response's hot path (a list of 10,000 transactions formats 20,000 dates over a month of slots) and
 * Intl's formatToParts is slow, so the offset of each slot is remembered, per timezone, up to a bound.
 */
const QUARTER_HOUR = 900_000;
const SLOTS_PER_ZONE = 50_000; // about 520 days of slots per timezone
const slotOffsets = new Map<string, Map<number, number>>();

/** Offset of `tz` from UTC at instant `date`, in minutes (east positive). */
export function tzOffsetMinutes(date: Date, tz: string): number {
  const t = date.getTime();
  if (!(t >= 0)) return computeOffsetMinutes(date, tz); // before 1970 (historic odd offsets) or invalid
  const slot = Math.floor(t / QUARTER_HOUR);
  let zone = slotOffsets.get(tz);
  if (!zone) slotOffsets.set(tz, (zone = new Map()));
  const hit = zone.get(slot);
  if (hit !== undefined) return hit;
  const offset = computeOffsetMinutes(date, tz);
  if (zone.size >= SLOTS_PER_ZONE) zone.clear();
  zone.set(slot, offset);
  return offset;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `YYYY-MM-DDTHH:mm:ss+HHMM` of `date` seen in timezone `tz`. */
export function formatContractDate(date: Date, tz: string): string {
  const off = tzOffsetMinutes(date, tz);
  // wall-clock fields: the instant shifted by the offset, read as UTC
  const w = new Date(Math.floor(date.getTime() / 1000) * 1000 + off * 60000);
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  return `${pad(w.getUTCFullYear(), 4)}-${pad(w.getUTCMonth() + 1)}-${pad(w.getUTCDate())}T${pad(w.getUTCHours())}:${pad(w.getUTCMinutes())}:${pad(w.getUTCSeconds())}${sign}${pad(Math.floor(a / 60))}${pad(a % 60)}`;
}


/** The calendar date (YYYY-MM-DD) of `date` in `tz`. */
export function localDate(date: Date, tz: string): string {
  const p = zonedParts(date, tz);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}

/** The UTC instant of a wall-clock time in `tz` (DST gaps resolve forward, overlaps to the first). */
export function zonedTimeToUtc(year: number, month: number, day: number, hour: number, minute: number, tz: string): Date {
  const guess = Date.UTC(year, month - 1, day, hour, minute);
  let off = tzOffsetMinutes(new Date(guess), tz);
  let result = guess - off * 60000;
  const off2 = tzOffsetMinutes(new Date(result), tz);
  if (off2 !== off) {
    off = off2;
    result = guess - off * 60000;
  }
  return new Date(result);
}

/** Start of the next calendar day in `tz` after instant `date`. */
export function startOfNextDay(date: Date, tz: string): Date {
  const p = zonedParts(date, tz);
  const next = new Date(Date.UTC(p.year, p.month - 1, p.day + 1));
  return zonedTimeToUtc(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), 0, 0, tz);
}

/** Parses a filter date `YYYYMMDDHHmm` as wall-clock time in `tz`; null when malformed. */
export function parseFilterDate(value: string, tz: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi] = m.slice(1).map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59) return null;
  const check = new Date(Date.UTC(y, mo - 1, d));
  if (check.getUTCMonth() !== mo - 1) return null;
  return zonedTimeToUtc(y, mo, d, h, mi, tz);
}
