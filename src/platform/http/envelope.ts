/**
 * The response envelope of api.md: `message`, `code`, `current_time`, then the operation's own fields.
 */
import { formatContractDate } from '../time/format.js';
import { REASON } from '../errors/errors.js';

export interface EnvelopeTime {
  now: Date;
  timezone: string;
}

export function okEnvelope<T extends Record<string, unknown>>(time: EnvelopeTime, fields: T, code = 200) {
  return {
    message: REASON[code] ?? 'OK',
    code,
    current_time: formatContractDate(time.now, time.timezone),
    ...fields,
  };
}

/**
 * An error answer. `request_id` (also the `X-Request-Id` header) is the id of the request in the
 * gateway's logs and request log: what support asks for.
 */
export function errorEnvelope(time: EnvelopeTime, status: number, details: string, extra?: Record<string, unknown>, requestId?: string, reasons: Record<number, string> = REASON) {
  return {
    message: reasons[status] ?? REASON[status] ?? (status >= 500 ? 'Server Error' : 'Error'),
    code: status,
    current_time: formatContractDate(time.now, time.timezone),
    details,
    ...(requestId === undefined ? {} : { request_id: requestId }),
    ...(extra ?? {}),
  };
}
