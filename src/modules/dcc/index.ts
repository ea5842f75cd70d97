/**
 * Dynamic currency conversion (DCC) on the hosted page: offers by the card's BIN through the rate source
 * of processors/dcc.ts, the kept card while the cardholder chooses, the choice the payment records. The
 * only file other modules import.
 *
 *   const dcc = new DccService(p, { processors });
 *   const offer = await dcc.offer(order, card, cvv, now);   // null: no offer, pay as usual
 *   const taken = await dcc.take(offer.id, order.id, accepted, now);
 *   payments.payByToken(token, { ..., card: taken.card, dcc: taken.choice })
 */
export { DccService } from './dcc.service.js';
export type { OfferOrder, OfferCard, Taken } from './dcc.service.js';
export type { OfferView } from './dcc.repo.js';
export { DCC_MODES, DCC_OPERATIVES, OFFER_MAX_SECONDS, firstChoice, offerable, parseChoice } from './dcc.domain.js';
export type { DccMode } from './dcc.domain.js';
