/**
 * The result paths every connector shares (the connector kit), so each connector words and logs them
 * the same way and keeps only what its provider says:
 *  - no answer (kit/http.ts `unknown`): UNKNOWN, the transaction stays PENDING for the reconciler;
 *  - an answer not believed (it names another reference, amount or currency, or its signature does not
 *    verify): UNKNOWN, logged as an error, left to the reconciler;
 *  - a refused request (4xx except 408 and 429: the provider did not process it): DECLINED
 *    PROCESSOR_ERROR with the provider's own words;
 *  - a server error, another status or an answer that cannot be read: UNKNOWN;
 *  - what a connector does not offer (payouts, card-present, holder verification): refused before
 *    anything is sent.
 * One error shape (Hyperswitch's ErrorResponse is the model): a connector's mapping gives the words, the
 * kit gives the outcome.
 */
import type { Logger } from 'pino';
import type {
  LookupResult,
  NotificationResult,
  ProcessorResult,
  SettledResult,
  TerminalRef,
  TxError,
  VerifyCardResult,
  VerifyHolderResult,
} from '../connector.js';
import type { Answer, Sent } from './http.js';

export type Declined = Extract<ProcessorResult, { outcome: 'DECLINED' }>;
export type Unknown = Extract<ProcessorResult, { outcome: 'UNKNOWN' }>;

/** A decline (PROCESSOR_ERROR unless the provider's code says otherwise). */
export function declined(details: string, error: Exclude<TxError, 'NONE'> = 'PROCESSOR_ERROR', processorId: string | null = null): Declined {
  return { outcome: 'DECLINED', error, details, processorId };
}

export function unknown(details: string): Unknown {
  return { outcome: 'UNKNOWN', details };
}

/** No answer: the operation may have happened. */
export function noAnswer(sent: Extract<Sent, { kind: 'unknown' }>): Unknown {
  return unknown(sent.details);
}

/**
 * An answer that cannot be believed (it names another operation, amount or currency; a signature that
 * does not verify): UNKNOWN, logged as an error, so the reconciler asks the provider again.
 */
export function notBelieved(logger: Logger | undefined, name: string, facts: Record<string, unknown>, details: string, log = 'answer not believed; the operation is left to the reconciler'): Unknown {
  logger?.error({ ...facts, details }, `${name}: ${log}`);
  return unknown(details);
}

/** An answer that is not JSON where JSON was due. */
export function notJson(label: string): Unknown {
  return unknown(`${label} answered something that is not JSON`);
}

/** Whether a status is a refusal: the provider did not process the request (4xx except 408 and 429). */
export function isRefusal(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/**
 * An answer whose status is not the one expected: a refusal (4xx except 408/429) is DECLINED
 * PROCESSOR_ERROR `<label> refused the <what>: <why>`, `why` being the provider's words (`words`, else
 * the status); anything else (5xx, 408, 429, 3xx) is UNKNOWN.
 */
export function refusedOrUnknown(sent: Answer, o: { label: string; what: string; words?: (a: Answer) => string | null; logger?: Logger; name?: string }): Declined | Unknown {
  if (isRefusal(sent.status)) {
    const why = o.words?.(sent) || `HTTP ${sent.status}`;
    return declined(`${o.label} refused the ${o.what}: ${why}`);
  }
  if (o.logger && o.name) o.logger.warn({ status: sent.status }, `${o.name}: unexpected answer`);
  return unknown(`${o.label} answered HTTP ${sent.status}`);
}

/** Card payouts are a product this connector does not offer: refused, nothing is sent. */
export function payoutNotOffered(through: string): Declined {
  return declined(`Payouts to cards are not offered through ${through}: use a service of a type that supports payouts`);
}

/** Card-present payments do not go through an online connector. */
export function cardPresentRefused(through: string): Declined {
  return declined(`Card-present payments do not go through ${through}`);
}

/** The provider does not compare holder names. */
export function holderNotOffered(label: string): VerifyHolderResult {
  return { outcome: 'UNKNOWN', details: `${label} does not offer holder verification` };
}

/** A payment's result read as a card verification. */
export function verificationOf(r: ProcessorResult): VerifyCardResult {
  if (r.outcome === 'APPROVED') return { outcome: 'VERIFIED', processorId: r.processorId };
  if (r.outcome === 'DECLINED') return { outcome: 'DECLINED', error: r.error, details: r.details };
  if (r.outcome === 'CHALLENGE') return { outcome: 'DECLINED', error: 'AUTHENTICATION_FAILED', details: r.details };
  return { outcome: 'UNKNOWN', details: r.details };
}

/**
 * A lookup's answer from a result the provider gave for the operation: a final one is found; one not
 * decided yet (UNKNOWN, PENDING, waiting for authentication) cannot be settled now.
 */
export function lookupOf(r: ProcessorResult, challenge: (r: Extract<ProcessorResult, { outcome: 'CHALLENGE' }>) => LookupResult = () => ({ found: 'unknown', details: 'the payment waits for 3-D Secure authentication' })): LookupResult {
  if (r.outcome === 'UNKNOWN' || r.outcome === 'PENDING') return { found: 'unknown', details: r.details };
  if (r.outcome === 'CHALLENGE') return challenge(r);
  return { found: true, result: r as SettledResult };
}

/** Nothing to settle from a notification. */
export function ignored(reason: string): NotificationResult {
  return { outcome: 'IGNORED', reason };
}

/** A notification's result: a final one settles the operation, anything else is ignored (its reason logged). */
export function settles(reference: string, r: ProcessorResult, challenge = 'a soft decline: the payment goes on with authentication'): NotificationResult {
  if (r.outcome === 'UNKNOWN' || r.outcome === 'PENDING') return ignored(r.details);
  if (r.outcome === 'CHALLENGE') return ignored(challenge);
  return { outcome: 'SETTLE', reference, result: r };
}

/** The terminal an operation went through, as the ledger keeps it (a notification finds its key with it). */
export interface TerminalRefRecord {
  serviceId?: string | null;
  terminalId?: string | null;
  serviceType?: string;
  [extra: string]: unknown;
}

export function terminalRecord(t: TerminalRef): TerminalRefRecord {
  return { serviceType: t.serviceType, serviceId: t.serviceId ?? null, terminalId: t.terminalId ?? null };
}

/** The TerminalRef of a recorded operation (its service type, or the connector's first). */
export function terminalOfRecord(r: TerminalRefRecord, serviceType: string): TerminalRef {
  return { serviceType: r.serviceType ?? serviceType, terminalId: r.terminalId ?? null, serviceId: r.serviceId ?? null };
}
