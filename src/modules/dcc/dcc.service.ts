/**
 * Dynamic currency conversion on the hosted page (docs/dcc.md). When the cardholder posts a card on the
 * page of an order whose service allows DCC, the rate source is asked for a quote by the card's BIN; when
 * the card's currency differs from the order's, the card is checked with its security code (a
 * zero-amount verification: the code is used once and dropped) and kept sealed while the page shows the
 * offer. The cardholder accepts (pays in the card's currency) or declines (pays in the order's); the page
 * then pays the order with the kept card and the choice (payments `PayInput.dcc`), which the order and
 * its transaction record.
 *
 * Nothing here blocks a payment: no rate, a rate source that fails, a card that fails the verification
 * or a processor that cannot be asked all mean "no offer", and the payment goes on as usual.
 */
import { randomUUID } from 'node:crypto';
import type { Env } from '../../platform/db/schema.js';
import type { Platform } from '../../platform/index.js';
import { Secret } from '../../platform/security/secret.js';
import type { ProcessorRegistry } from '../../processors/index.js';
import type { DccChoice } from '../payments/index.js';
import { findServiceWithTerminal } from '../services/index.js';
import { OFFER_MAX_SECONDS, choiceOf, offerable, offerExpiry, type DccMode } from './dcc.domain.js';
import * as repo from './dcc.repo.js';

/** The order a card is posted for (as the pages know it). */
export interface OfferOrder {
  id: string;
  merchantId: string;
  env: Env;
  serviceId: string;
  operative: string;
  amount: number;
  /** ISO 4217 alpha-3. */
  currency: string;
}

/** The card the cardholder typed (checked by the page's rules). */
export interface OfferCard {
  pan: Secret<string>;
  expMonth: number;
  expYear: number;
  holder: string;
}

/** After the sweep keeps an offer this long past its longest possible life (real time). */
const PURGE_GRACE_MS = 5 * 60_000;

export type Taken =
  | { kind: 'taken'; card: OfferCard; choice: DccChoice }
  /** The offer's time is over (the card is gone with it). */
  | { kind: 'expired' }
  /** No such offer of this order (already chosen, purged, or never made). */
  | { kind: 'none' };

export class DccService {
  constructor(
    private readonly p: Platform,
    private readonly deps: { processors: ProcessorRegistry },
  ) {}

  /**
   * Makes an offer for a card posted on an order's page, or answers null (no offer: pay as usual). `now`
   * is the merchant's clock.
   */
  async offer(order: OfferOrder, card: OfferCard, cvv: Secret<string> | null, now: Date): Promise<repo.OfferView | null> {
    const db = this.p.database.db;
    const service = await findServiceWithTerminal(db, order.serviceId);
    if (!service) return null;
    const mode = offerable(service as { enabled: boolean; dcc_allowed: boolean; dcc_mode: DccMode | null }, order);
    if (!mode) return null;
    const rates = this.deps.processors.dccRates(order.env);
    if (!rates) return null;
    const pan = card.pan.reveal();
    let quote;
    try {
      quote = await rates.quote({ bin: pan.slice(0, 8), amount: order.amount, currency: order.currency, now });
    } catch (err) {
      this.p.logger.warn({ err, source: rates.name }, 'dcc: the rate source failed; no offer');
      return null;
    }
    if (!quote || quote.cardholderCurrency === order.currency || quote.cardholderAmount <= 0) return null;

    // the security code is checked now (zero-amount verification) and never kept: the payment after the
    // cardholder's choice goes without it, as a payment after a 3-D Secure challenge does
    const id = randomUUID();
    let verified = false;
    try {
      const connector = this.deps.processors.forService(service.type, order.env);
      const r = await connector.verifyCard({
        reference: `${id}:dcc`,
        terminal: { serviceType: service.type, terminalId: service.terminal_id },
        now,
        currency: order.currency,
        card: { pan: card.pan, expiryMonth: card.expMonth, expiryYear: card.expYear, cvv, holder: card.holder },
      });
      verified = r.outcome === 'VERIFIED';
    } catch {
      verified = false;
    }
    if (!verified) return null;

    const realNow = this.p.clock.now();
    const row: repo.OfferRow = {
      id,
      order_id: order.id,
      merchant_id: order.merchantId,
      env: order.env,
      card_sealed: this.p.vault.seal(JSON.stringify({ pan, m: card.expMonth, y: card.expYear, h: card.holder }), repo.offerAad(id)),
      card_last4: pan.slice(-4),
      amount: order.amount,
      currency: order.currency,
      cardholder_currency: quote.cardholderCurrency,
      cardholder_amount: quote.cardholderAmount,
      rate: quote.rate,
      reference_rate: quote.referenceRate,
      markup: quote.markup,
      source: quote.source,
      mode,
      quoted_at: now,
      expires_at: offerExpiry(now, quote.validSeconds),
      purge_at: new Date(realNow.getTime() + OFFER_MAX_SECONDS * 1000 + PURGE_GRACE_MS),
      created_at: now,
    };
    await repo.insertOffer(db, row);
    const { card_sealed: _sealed, ...view } = row;
    return view;
  }

  /** An offer of an order, for its screen (no card); null when there is none. */
  async find(offerId: string, orderId: string): Promise<repo.OfferView | null> {
    if (!/^[0-9a-f-]{36}$/i.test(offerId)) return null;
    return (await repo.findOffer(this.p.database.db, offerId.toLowerCase(), orderId)) ?? null;
  }

  /**
   * The cardholder chose: takes the offer (once; the sealed card goes with it) and answers the card and
   * the choice to pay with. `now` is the merchant's clock.
   */
  async take(offerId: string, orderId: string, accepted: boolean, now: Date): Promise<Taken> {
    if (!/^[0-9a-f-]{36}$/i.test(offerId)) return { kind: 'none' };
    const row = await repo.takeOffer(this.p.database.db, offerId.toLowerCase(), orderId);
    if (!row) return { kind: 'none' };
    if (row.expires_at.getTime() <= now.getTime()) return { kind: 'expired' };
    const c = JSON.parse(this.p.vault.open(row.card_sealed, repo.offerAad(row.id)).reveal()) as { pan: string; m: number; y: number; h: string };
    return { kind: 'taken', card: { pan: new Secret(c.pan), expMonth: c.m, expYear: c.y, holder: c.h }, choice: choiceOf(row, accepted, now) };
  }

  /** Offers nobody chose are deleted with their card (real time). */
  purge(): Promise<number> {
    return repo.purgeOffers(this.p.database.db, this.p.clock.now());
  }

  registerJobs(): void {
    this.p.jobs.register('dcc.sweep', async () => {
      await this.purge();
    });
    this.p.jobs.every('dcc.sweep', 60_000);
  }
}
