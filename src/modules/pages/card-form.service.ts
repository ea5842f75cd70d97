/**
 * The embedded card form (decisions §10): a gateway page in an iframe of the merchant's page, opened
 * with the customer token `POST /customer` returned (E1). The customer types the card there; the frame
 * posts it to the gateway (same origin), which stores it for that customer through the sources module
 * and answers the `savedCard` record the frame hands to the merchant's page. The merchant's page never
 * sees the card.
 */
import type { Env } from '../../platform/db/schema.js';
import { ApiError } from '../../platform/errors/errors.js';
import type { Platform } from '../../platform/index.js';
import { Secret } from '../../platform/security/secret.js';
import { formatContractDate } from '../../platform/time/format.js';
import type { CustomersService } from '../customers/index.js';
import type { MerchantsService } from '../merchants/index.js';
import { presentSource, type SourcesService } from '../sources/index.js';
import type { PageTemplate, TemplatesService } from '../templates/index.js';
import { checkCard, readCardForm, todayOf } from './card.domain.js';
import type { MessageKey } from './i18n/index.js';

/** Failed stores (declined, invalid) one token may make per window before the form refuses more. */
export const CARD_FORM_MAX_FAILURES = 10;
const FAILURE_WINDOW_MS = 3600_000;

/** The customer a card form is for. */
export interface CardFormCustomer {
  token: string;
  env: Env;
  merchantId: string;
  externalId: string;
  /** Now on the merchant's clock. */
  now: Date;
}

export type StoreOutcome =
  | { ok: true; body: Record<string, unknown> }
  | { ok: false; status: number; message: MessageKey };

export class CardFormService {
  /** Failed stores per token (this process): card testing through a token stops after a few. */
  readonly #failures = new Map<string, { n: number; until: number }>();

  constructor(
    private readonly p: Platform,
    private readonly deps: { merchants: MerchantsService; templates: TemplatesService; customers?: CustomersService; sources?: SourcesService },
  ) {}

  async #merchantNow(merchantId: string, env: Env): Promise<Date> {
    const m = await this.deps.merchants.findMerchant(this.p.database.db, merchantId);
    return new Date(this.p.clock.now().getTime() + (env === 'sandbox' && m ? Number(m.clock_offset_ms) : 0));
  }

  /** The customer whose valid token this is, in `env`; null for unknown, expired and revoked tokens. */
  async load(token: string, env: Env): Promise<CardFormCustomer | null> {
    if (!this.deps.customers) return null;
    const c = await this.deps.customers.customerForToken(env, token, (merchantId) => this.#merchantNow(merchantId, env));
    if (!c) return null;
    return { token: c.token, env, merchantId: c.merchant_id, externalId: c.external_id, now: await this.#merchantNow(c.merchant_id, env) };
  }

  /** The merchant's own look (its default payment-card template) and framing settings. */
  async chrome(merchantId: string, env: Env): Promise<{ template: PageTemplate; ancestors: string[] | null }> {
    const [template, ancestors] = await Promise.all([
      this.deps.templates.forPage({ merchantId, env }, 'PAYMENT_CARD'),
      this.deps.templates.frameAncestors(merchantId),
    ]);
    return { template, ancestors };
  }

  #failed(token: string): number {
    const now = Date.now();
    const f = this.#failures.get(token);
    if (!f || f.until < now) return 0;
    return f.n;
  }

  #fail(token: string): void {
    const now = Date.now();
    const f = this.#failures.get(token);
    if (this.#failures.size > 10_000) this.#failures.clear();
    this.#failures.set(token, !f || f.until < now ? { n: 1, until: now + FAILURE_WINDOW_MS } : { n: f.n + 1, until: f.until });
  }

  /**
   * Stores the card the customer typed (the frame's post, already checked for its nonce). The answer
   * is the `savedCard` record of decisions §10, or a message for the customer.
   */
  async store(c: CardFormCustomer, body: Record<string, unknown>, serverTimezone: string): Promise<StoreOutcome> {
    if (!this.deps.sources) return { ok: false, status: 503, message: 'error.server.text' };
    if (this.#failed(c.token) >= CARD_FORM_MAX_FAILURES) return { ok: false, status: 429, message: 'cardform.attempts' };
    const form = readCardForm(body);
    const checked = checkCard(form, todayOf(c.now));
    if (!checked.card) {
      this.#fail(c.token);
      return { ok: false, status: 422, message: 'err.form' };
    }
    let row;
    try {
      row = await this.deps.sources.api.storeFromCardForm(
        { merchantId: c.merchantId, env: c.env },
        {
          customerExtId: c.externalId,
          holder: checked.card.holder,
          pan: new Secret(checked.card.digits),
          expMonth: checked.card.month,
          expYear: checked.card.year,
          cvv: new Secret(form.cvv.trim()),
          now: c.now,
        },
      );
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) {
        if (err instanceof ApiError) return { ok: false, status: err.status, message: 'error.server.text' };
        throw err;
      }
      this.#fail(c.token);
      return { ok: false, status: err.status === 404 ? 410 : 400, message: err.status === 404 ? 'cardform.expired' : 'cardform.refused' };
    }
    const s = presentSource(row);
    return {
      ok: true,
      body: {
        code: 200,
        current_time: formatContractDate(c.now, serverTimezone),
        source: {
          uuid: s.uuid,
          type: s.type,
          brand: s.brand,
          holder: s.holder,
          bin: s.bin,
          last4: s.last4,
          expire_month: s.expire_month,
          expire_year: s.expire_year,
          additional: s.additional,
          validation_date: s.validation_date,
          creation_date: s.creation_date,
        },
        customer: { external_id: row.customer_ext_id },
      },
    };
  }
}
