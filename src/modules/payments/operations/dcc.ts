/**
 * Dynamic currency conversion on a card payment (`PayInput.dcc`): the hosted page offered the
 * cardholder their card's currency and they chose. The order keeps its amount and currency (what the
 * merchant is credited); the choice is recorded on the payment's transaction (`dcc`, which the order
 * presents for its latest attempt) and goes to the processor with the payment.
 */
import { badRequest } from '../../../platform/errors/errors.js';
import { currencyByCode, currencyByNumber } from '../../../platform/money/currency.js';
import type { DccData } from '../../../processors/index.js';
import { presentDcc, type DccRecord } from '../payments.domain.js';
import type * as repo from '../payments.repo.js';
import type { DccChoice, PayInput } from '../core.js';


/**
 * The record and the processor's data of a payment's conversion, or nulls when there is none. A
 * conversion applies to a card payment the cardholder makes on the page (ECOMMERCE), in a currency
 * other than the order's; anything else is a programming error of the caller, answered 400.
 */
export function dccOf(input: PayInput, o: Pick<repo.LockedOrder, 'currency' | 'operative'>): { record: DccRecord | null; data: DccData | null } {
  const c = input.dcc;
  if (!c) return { record: null, data: null };
  const currency = currencyByCode(c.cardholderCurrency);
  if (input.channel !== 'ECOMMERCE' || (o.operative !== 'AUTHORIZATION' && o.operative !== 'DEFERRED')) {
    throw badRequest('A currency conversion applies only to a card payment by the cardholder of an AUTHORIZATION or DEFERRED order');
  }
  if (!currency || currency.code === o.currency) throw badRequest('A currency conversion needs a currency other than the order\'s');
  if (!Number.isSafeInteger(c.cardholderAmount) || c.cardholderAmount <= 0) throw badRequest('A currency conversion needs a positive amount');
  return {
    record: {
      offered: true,
      accepted: c.accepted,
      cardholder_currency: currency.number,
      cardholder_amount: c.cardholderAmount,
      rate: c.rate,
      markup: c.markup,
      source: c.source,
      timestamp: c.at.toISOString(),
    },
    data: { accepted: c.accepted, currency: currency.code, amount: c.cardholderAmount, rate: c.rate, markup: c.markup, source: c.source },
  };
}

/** The processor's data of a conversion recorded on a transaction (a payment that resumes after 3DS). */
export function dccDataOf(stored: unknown): DccData | null {
  const r = presentDcc(stored);
  const currency = r ? currencyByNumber(r.cardholder_currency) : null;
  if (!r || !currency) return null;
  return { accepted: r.accepted, currency: currency.code, amount: r.cardholder_amount, rate: r.rate, markup: r.markup, source: r.source };
}
