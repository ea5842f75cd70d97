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
