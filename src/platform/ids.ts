import { randomBytes } from 'node:crypto';

/** A uuid in its canonical text form (any case): what every id of the API is. */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `v` is a uuid (checked before a value reaches a `uuid` column or parameter). */
export const isUuid = (v: string): boolean => UUID_RE.test(v);

/**
 * A version 7 uuid (RFC 9562): 48 bits of Unix milliseconds, then random bits. Ids made in time order sit
 * next to each other in an index, so a table written in time order (the request log) appends to its
 * primary key instead of touching a random page per row. Not for ids whose creation time must stay private.
 */
export function uuidV7(now = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
