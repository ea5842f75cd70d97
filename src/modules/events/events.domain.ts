/** Pure rules of notifications (decisions §7): the retry schedule, the body, the record shown by §9. */
import { createHash, createHmac } from 'node:crypto';
import { formatContractDate } from '../../platform/time/format.js';
import type { EventAttemptRow, EventRow } from './events.repo.js';

/** Retries after the first try, when the merchant has resend_failed_notifications. */
export const RETRY_SCHEDULE_SECONDS = [60, 300, 900, 3600, 10_800, 21_600, 43_200, 86_400, 172_800, 259_200] as const;

/**
 * When the next attempt is due (merchant clock), after `attemptsMade` failed attempts of an event
 * first tried at `firstAttemptAt`; null when no attempt is left.
 */
export function nextAttemptAt(firstAttemptAt: Date, attemptsMade: number, retries: boolean): Date | null {
  if (!retries) return null;
  const delay = RETRY_SCHEDULE_SECONDS[attemptsMade - 1];
  if (delay === undefined) return null;
  return new Date(firstAttemptAt.getTime() + delay * 1000);
}

/** Any 2xx is delivered. */
export const delivered = (status: number | null) => status !== null && status >= 200 && status < 300;

/**
 * The notification body: the envelope, then the notified `order` and `client` exactly as serialized
 * when the event was made, then `validation_hash` over those bytes.
 */
export function notificationBody(payload: string, currentTime: string, hash: string): string {
  if (!payload.startsWith('{') || !payload.endsWith('}')) throw new Error('event payload is not a JSON object');
  return `{"message":"OK","code":200,"current_time":${JSON.stringify(currentTime)},${payload.slice(1, -1)},"validation_hash":"${hash}"}`;
}

export function presentAttempt(a: EventAttemptRow) {
  return {
    attempted_at: a.attempted_at.toISOString(),
    http_status: a.http_status,
    error: a.error,
    duration_ms: a.duration_ms,
  };
}

/** The event record of GET /events and GET /event/{uuid}. */
export function presentEvent(e: EventRow, serverTimezone: string, attempts?: EventAttemptRow[]) {
  return {
    uuid: e.id,
    type: e.type,
    created: formatContractDate(e.created_at, serverTimezone),
    order_uuid: e.order_id,
    url: e.url,
    status: e.status,
    attempts: e.attempts,
    resend_failed_notifications: e.retries,
    first_attempt_at: e.first_attempt_at ? e.first_attempt_at.toISOString() : null,
    next_attempt_at: e.next_attempt_at ? e.next_attempt_at.toISOString() : null,
    delivered_at: e.delivered_at ? e.delivered_at.toISOString() : null,
    payload: JSON.parse(e.payload) as unknown,
    ...(attempts ? { deliveries: attempts.map(presentAttempt) } : {}),
  };
}

/**
 * validation_hash (decisions §7): lowercase hex SHA-256 of the serialized `{"order":…,"client":…}`
 * (plus `,"extra_data":…` when the body carries it) with the signature appended as plain text.
 */
export function validationHash(serialized: string, signature: string): string {
  return createHash('sha256').update(serialized + signature, 'utf8').digest('hex');
}

/** `Paygate-Signature: t=UNIX,v1=HEX`: HMAC-SHA256 keyed by the signature over `t + "." + raw body`. */
export function signatureHeader(rawBody: string, signature: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', signature).update(`${unixSeconds}.${rawBody}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

// ---- the event stream (GET /events/stream) ------------------------------------------------------------

/**
 * A position in a merchant's event stream: the transaction that wrote an event and its sequence number.
 * Events are streamed in that order; a cursor names the last one received. Written `TXID-SEQ`.
 */
export interface StreamCursor {
  txid: string;
  seq: string;
}

const XID8_MAX = 18446744073709551615n;
const BIGINT_MAX = 9223372036854775807n;

export function formatCursor(c: StreamCursor): string {
  return `${c.txid}-${c.seq}`;
}

/** Reads a cursor (`Last-Event-ID` or `after`); null when it is not one. */
export function parseCursor(text: string): StreamCursor | null {
  const m = /^(\d{1,20})-(\d{1,19})$/.exec(text.trim());
  if (!m) return null;
  const txid = BigInt(m[1]);
  const seq = BigInt(m[2]);
  if (txid > XID8_MAX || seq > BIGINT_MAX) return null;
  return { txid: txid.toString(), seq: seq.toString() };
}

/** Event types a stream passes: every type when the filter is empty. */
export function parseTypes(text: string | undefined): string[] {
  if (text === undefined) return [];
  return [...new Set(text.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean))];
}

/**
 * One Server-Sent Events message. `data` is JSON (no raw line breaks); a comment line is `: text`.
 * Fields are written only when given.
 */
export function sseMessage(m: { id?: string; event?: string; data?: string; retryMs?: number }): string {
  let out = '';
  if (m.retryMs !== undefined) out += `retry: ${Math.max(0, Math.floor(m.retryMs))}\n`;
  if (m.id !== undefined) out += `id: ${m.id.replace(/[\r\n]/g, '')}\n`;
  if (m.event !== undefined) out += `event: ${m.event.replace(/[\r\n]/g, '')}\n`;
  if (m.data !== undefined) for (const line of m.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** What a notification sends: its exact body and headers (the delivery job and the stream share it). */
export interface RenderedNotification {
  body: string;
  headers: Record<string, string>;
}

export const NOTIFICATION_USER_AGENT = 'paygate-notifications/1.0';

/**
 * The request a notification makes, at `realNow` (the signature's `t`) with `merchantNow` (the merchant
 * clock) as `current_time`.
 */
export function renderNotification(
  e: Pick<EventRow, 'id' | 'payload'>,
  signature: string,
  merchantNowText: string,
  realNow: Date,
): RenderedNotification {
  const body = notificationBody(e.payload, merchantNowText, validationHash(e.payload, signature));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': NOTIFICATION_USER_AGENT,
      'paygate-signature': signatureHeader(body, signature, Math.floor(realNow.getTime() / 1000)),
      'paygate-event': e.id,
    },
  };
}

/** An event as the stream sends it (the `data` of its message). */
export function presentStreamedEvent(e: EventRow, serverTimezone: string, rendered: RenderedNotification) {
  return {
    uuid: e.id,
    type: e.type,
    created: formatContractDate(e.created_at, serverTimezone),
    env: e.env,
    order_uuid: e.order_id,
    url: e.url,
    headers: rendered.headers,
    body: rendered.body,
  };
}
