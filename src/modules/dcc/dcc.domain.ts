/**
 * Pure rules of dynamic currency conversion (DCC) on the hosted page: when an offer is made, which
 * currency the page shows first, how long an offer holds, and the choice the payment records. No IO.
 */
import type { DccChoice } from '../payments/index.js';

export const DCC_MODES = ['LOCAL', 'FOREIGN', 'DYNAMIC'] as const;
export type DccMode = (typeof DCC_MODES)[number];

/** Order operatives a conversion is offered for: card charges the cardholder makes on the page. */
export const DCC_OPERATIVES: readonly string[] = ['AUTHORIZATION', 'DEFERRED'];

/** How long an offer can be chosen at most (the rate source may hold its quote for less). */
export const OFFER_MAX_SECONDS = 600;

/** The service's settings that decide whether its payments get an offer. */
export interface DccService {
  enabled: boolean;
  dcc_allowed: boolean;
  dcc_mode: DccMode | null;
}

/**
 * Whether a card payment of an order may get a conversion offer (before the card's currency is known):
 * the service allows DCC in a mode that offers it (DYNAMIC, FOREIGN; LOCAL keeps the order's currency),
 * and the order charges a card (AUTHORIZATION, DEFERRED) a positive amount.
 */
export function offerable(service: DccService, order: { operative: string; amount: number }): Exclude<DccMode, 'LOCAL'> | null {
  if (!service.enabled || !service.dcc_allowed) return null;
  const mode = service.dcc_mode ?? 'DYNAMIC';
  if (mode === 'LOCAL') return null;
  if (!DCC_OPERATIVES.includes(order.operative) || order.amount <= 0) return null;
  return mode;
}

/** Until when an offer can be chosen (merchant clock): the quote's validity, at most OFFER_MAX_SECONDS. */
export function offerExpiry(quotedAt: Date, validSeconds: number): Date {
  return new Date(quotedAt.getTime() + Math.max(0, Math.min(validSeconds, OFFER_MAX_SECONDS)) * 1000);
}

/** Which currency the offer screen shows first: the order's (DYNAMIC) or the card's (FOREIGN). */
export function firstChoice(mode: string): 'ORDER' | 'CARD' {
  return mode === 'FOREIGN' ? 'CARD' : 'ORDER';
}

/** The cardholder's answer on the offer screen (`choice` of the form), or null for anything else. */
export function parseChoice(v: unknown): boolean | null {
  if (v === 'accept') return true;
  if (v === 'decline') return false;
  return null;
}

/** The offer as the payment records it, with the cardholder's choice. */
export function choiceOf(
  offer: { cardholder_currency: string; cardholder_amount: number; rate: string; markup: string; source: string },
  accepted: boolean,
  at: Date,
): DccChoice {
  return {
    accepted,
    cardholderCurrency: offer.cardholder_currency,
    cardholderAmount: Number(offer.cardholder_amount),
    rate: offer.rate,
    markup: offer.markup,
    source: offer.source,
    at,
  };
}
