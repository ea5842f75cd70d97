/**
 * Stored payment methods (sources) and the card vault: the only file other modules import.
 *
 * API for other modules (payments, subscriptions, batch, MoTo):
 *
 *   const sources = m.sources;                       // SourcesService, built in buildModules
 *   const owner = { merchantId: ctx.merchant.id, env: ctx.env };
 *
 *   // store a card (always a NEW source, decisions §6); creates the customer when missing
 *   const row = await sources.storeCard(trx, owner, {
 *     customerExtId, holder, pan: new Secret(pan), expMonth, expYear,
 *     additional?, origin?: 'API' | 'SINGLE_STEP' | 'MOTO' | ..., isSaved?, validatedAt?, at?: ctx.clock.now(),
 *   });                                             // 400 for Luhn-invalid, unknown brand, expired, bad holder
 *
 *   // open a card to pay with it: 404 unknown / other merchant's / deleted; 400 not a card
 *   const card = await sources.loadCardForPayment(db, owner, sourceUuid);
 *   card.pan.reveal()   // only to hand it to the processor; never log it
 *
 *   // after a successful payment, in the payment's transaction: the source becomes valid, its use is
 *   // recorded for B15, and the service becomes its tokenization service unless it has one
 *   await sources.markValidated(trx, card.sourceId, ctx.clock.now(), serviceId);
 *
 *   // B15 without source_uuid: the customer's card with the newest successful payment (or null)
 *   const last = await sources.lastSuccessfullyUsedCard(db, owner, customerExtId);
 *
 *   // the Source record of api.md for transaction.source
 *   presentSource(card.row)
 *
 * A CVV is never stored or passed to storeCard: hand it (as a Secret) straight to the processor.
 */
export { SourcesService } from './sources.service.js';
export { sourceAad, sourceUuidOf, CARD_STORED_QUEUE } from './sources.types.js';
export { SourcesApi } from './sources.api.js';
export type { NewCard, LoadedCard, SourcesDeps, BlacklistCheck, CardScreen } from './sources.types.js';
export { sourcesRoutes } from './sources.routes.js';
export { presentSource, presentListedSource, isValidSource, parsePan, parseExpiry, parseCvv, luhnValid, SOURCE_TYPES } from './sources.domain.js';
export type { SourceType } from './sources.domain.js';
export type { SourceRow, SourceWithCustomer } from './sources.repo.js';
export { markPaidCte, sourceJsonSql, sourceFromJson } from './sources.repo.js';
export { SourceSchema } from './sources.schemas.js';
export { SOURCE_EXAMPLE } from './sources.examples.js';
export type { Owner } from '../customers/index.js';
