/**
 * Calls of the merchant API made inside the process for a signed-in dashboard user (the dashboard's
 * bridge): the request goes through the very route, validation, guards, idempotency and handler a
 * merchant's key reaches, with the caller context of the merchant the user looks at instead of a key.
 *
 * The caller gets a ticket: 32 random bytes, held in this process's memory only, good for one request
 * and for a few seconds. The API's authentication takes a ticket in `X-Paygate-Internal-Ticket` in place
 * of the Authorization header; a ticket it does not hold is 401, like an unknown key. The ticket also
 * carries who decides whether the route's operation is allowed (the dashboard's role table), asked with
 * the operationId the router found before anything runs.
 */
import { randomBytes } from 'node:crypto';
import type { RequestContext } from './types.js';

export const INTERNAL_TICKET_HEADER = 'x-paygate-internal-ticket';

export interface InternalTicket {
  ctx: RequestContext;
  /** Throws (an ApiError, 403) when the operation may not be called with this ticket. */
  authorize(operationId: string | undefined): void;
  /** The operation the router matched, set once authorized. */
  operationId?: string;
}

const TTL_MS = 30_000;
const tickets = new Map<string, { ticket: InternalTicket; until: number }>();

/** A ticket for one internal request. */
export function issueTicket(ticket: InternalTicket): string {
  const now = Date.now();
  // forgotten tickets (a request that never came) go with the next issue
  for (const [k, v] of tickets) if (v.until < now) tickets.delete(k);
  const value = randomBytes(32).toString('base64url');
  tickets.set(value, { ticket, until: now + TTL_MS });
  return value;
}

/** The ticket of a request, used up by this call; null when it is unknown, used or too old. */
export function redeemTicket(value: string | undefined): InternalTicket | null {
  if (!value) return null;
  const t = tickets.get(value);
  if (!t) return null;
  tickets.delete(value);
  return t.until >= Date.now() ? t.ticket : null;
}
