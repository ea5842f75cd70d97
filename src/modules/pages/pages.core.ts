/**
 * The first layer of PagesService (pages.service.ts): loading the order behind a token as the pages see
 * it, what a page shows of it (amount, template, framing, methods), and the signed one-time form nonces
 * that make a repeated post end where the first ended.
 */
import { randomBytes } from 'node:crypto';
import type { Env } from '../../platform/db/schema.js';
import { ApiError } from '../../platform/errors/errors.js';
import type { Platform } from '../../platform/index.js';
import { currencyByCode } from '../../platform/money/currency.js';
import { isAbsoluteHttpUrl } from '../../platform/net/outgoing.js';
import { safeEqual } from '../../platform/security/hashing.js';
import { methodsServiceCanTake, type CheckoutsService } from '../checkouts/index.js';
import type { CustomersService } from '../customers/index.js';
import type { MerchantsService } from '../merchants/index.js';
import type { SourcesService } from '../sources/index.js';
import type { OrderResult, OrderStatus, PaymentsService } from '../payments/index.js';
import { findServiceWithTerminal, isRedsysFamily } from '../services/index.js';
import type { PageTemplate, TemplatesService } from '../templates/index.js';
import { formatMoney, type Language } from './i18n/index.js';
import { destinationAfter, pageViewFor, parseCheckout, type Destination, type PageMethod } from './pages.domain.js';
import * as repo from './pages.repo.js';
import { CardFormService } from './card-form.service.js';
import { type PaymentMethodsService } from '../payment-methods/index.js';
import { type Wallet, type WalletsService } from '../wallets/index.js';
import type { DccService } from '../dcc/index.js';
import { DUPLICATE_WAIT_MS, FORM_TTL_MS, type ByToken, type FormPurpose, type PageOrder, type SubmitOutcome } from './pages.types.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class PagesCore {
  /** The embedded card form (`/js/v1-iframe.js`), opened with a customer token. */
  readonly cardForm: CardFormService;

  constructor(
    protected readonly p: Platform,
    protected readonly deps: {
      payments: PaymentsService;
      merchants: MerchantsService;
      templates: TemplatesService;
      checkouts: CheckoutsService;
      customers?: CustomersService;
      sources?: SourcesService;
      paymentMethods?: PaymentMethodsService;
      wallets?: WalletsService;
      /** Dynamic currency conversion offers on the card page (docs/dcc.md). */
      dcc?: DccService;
    },
  ) {
    this.cardForm = new CardFormService(p, deps);
  }

  // ---- loading ---------------------------------------------------------------------------------------

  /** The order behind a token, in the route's environment; null when there is none. */
  async load(token: string, env: Env): Promise<PageOrder | null> {
    if (!/^[0-9a-f]{16,128}$/i.test(token)) return null;
    const found = await this.deps.payments.orderByToken(token.toLowerCase());
    if (!found || found.row.env !== env) return null;
    return this.#toPageOrder(found);
  }

  async #toPageOrder(found: ByToken): Promise<PageOrder> {
    const { row, order } = found;
    const db = this.p.database.db;
    const cardOrder = row.operative === 'AUTHORIZATION' || row.operative === 'PARTIAL_AUTHORIZATION' || row.operative === 'DEFERRED';
    const [merchant, service, checkout, apms, wallets] = await Promise.all([
      this.deps.merchants.findMerchant(db, row.merchant_id),
      findServiceWithTerminal(db, row.service_id),
      this.deps.checkouts.forOrder({ merchantId: row.merchant_id, env: row.env }, row.extra_data),
      this.deps.paymentMethods ? this.deps.paymentMethods.offered(row.service_id) : Promise.resolve([]),
      // the hosted page runs the wallets' test mode in the sandbox only (production needs the wallets' scripts)
      this.deps.wallets && row.env === 'sandbox' && cardOrder ? this.deps.wallets.offered(row.service_id, row.env) : Promise.resolve([] as Wallet[]),
    ]);
    const now = new Date(this.p.clock.now().getTime() + (row.env === 'sandbox' ? Number(row.m_offset) : 0));
    const failedAttempts = order.transactions.filter(
      (t) => (t.operative === 'AUTHORIZATION' || t.operative === 'DEFERRED') && (t.status === 'REFUSED' || t.status === 'ERROR'),
    ).length;
    const status = row.status as OrderStatus;
    const expiresAt = new Date(row.expires_at);
    return {
      token: row.token,
      id: row.id,
      env: row.env,
      merchantId: row.merchant_id,
      merchantName: merchant?.name ?? '',
      serviceId: row.service_id,
      acquirerThreeds: this.#acquirerThreeds(row.service_type, row.env),
      status,
      operative: row.operative,
      amount: Number(row.amount),
      currency: currencyByCode(row.currency) ?? { code: row.currency, number: row.currency_number, digits: 2 },
      description: row.description || null,
      // a relative url_ok / url_ko (stored as the shop sent it) is not followed: the page's own result
      urlOk: isAbsoluteHttpUrl(row.url_ok) ? row.url_ok : null,
      urlKo: isAbsoluteHttpUrl(row.url_ko) ? row.url_ko : null,
      templateId: row.template_uuid,
      dccTemplateId: row.dcc_template_uuid,
      extraData: row.extra_data,
      checkout: checkout ? parseCheckout({ checkout }) : null,
      sourceId: row.source_id,
      expiresAt,
      now,
      failedAttempts,
      bizum: !!service && service.bizum_enabled && isRedsysFamily(service.type) && row.operative === 'AUTHORIZATION',
      serviceMethods: service ? methodsServiceCanTake({ type: service.type, bizumEnabled: service.bizum_enabled, redsysFamily: isRedsysFamily(service.type) }, row.operative) : [],
      apms: apms.map((a) => ({ apm: a.apm, label: a.label, kind: a.kind })),
      wallets,
      view: pageViewFor({ status, expiresAt, failedAttempts }, now),
    };
  }

  amount(o: PageOrder, lang: Language): string {
    return formatMoney(lang, o.amount, o.currency);
  }

  /** The DCC template of the offer screen: the order's `dcc_template_uuid`, the merchant's default DCC template, or ours. */
  dccTemplate(o: PageOrder): Promise<PageTemplate> {
    return this.deps.templates.forPage({ merchantId: o.merchantId, env: o.env }, 'DCC', o.dccTemplateId);
  }

  /** The payment-card template of a page: the link's, the order's, the merchant's default, or ours. */
  template(o: PageOrder, linkTemplate: string | null): Promise<PageTemplate> {
    return this.deps.templates.forPage({ merchantId: o.merchantId, env: o.env }, 'PAYMENT_CARD', linkTemplate, o.templateId);
  }

  frameAncestors(o: PageOrder): Promise<string[] | null> {
    return this.deps.templates.frameAncestors(o.merchantId);
  }

  /** The methods this order can be paid with on the pages (those its service can take that a page exists for). */
  methods(o: PageOrder): PageMethod[] {
    const out: PageMethod[] = [];
    if (o.serviceMethods.includes('PAYMENT_CARD')) out.push('CARD');
    if (o.serviceMethods.includes('BIZUM')) out.push('BIZUM');
    return out;
  }

  last4For3ds(o: PageOrder): Promise<string | null> {
    return this.deps.payments.pending3dsCardLast4(o.id);
  }

  // ---- one-time form nonces ----------------------------------------------------------------------------

  /** A nonce for a form of this order: time, randomness, and a keyed MAC over both and the purpose. */
  issueNonce(token: string, purpose: FormPurpose): string {
    const ts = this.p.clock.now().getTime().toString(36);
    const rand = randomBytes(16).toString('base64url');
    return `${ts}.${rand}.${this.#mac(token, purpose, ts, rand)}`;
  }

  #mac(token: string, purpose: string, ts: string, rand: string): string {
    return this.p.vault.fingerprint('page-form', `${purpose}|${token}|${ts}|${rand}`).slice(0, 32);
  }

  /** The id of a valid nonce (what is claimed), or null for a forged, foreign or stale one. */
  verifyNonce(token: string, purpose: FormPurpose, value: unknown): string | null {
    if (typeof value !== 'string' || value.length > 100) return null;
    const parts = value.split('.');
    if (parts.length !== 3) return null;
    const [ts, rand, mac] = parts;
    if (!/^[0-9a-z]{1,12}$/.test(ts) || !/^[A-Za-z0-9_-]{22}$/.test(rand)) return null;
    if (!safeEqual(mac, this.#mac(token, purpose, ts, rand))) return null;
    const age = this.p.clock.now().getTime() - parseInt(ts, 36);
    if (age > FORM_TTL_MS || age < -60_000) return null;
    return `${ts}.${rand}`;
  }

  /** After a repeated post: where the first post went, once it is known (waits for it a while). */
  protected async whereFirstWent(nonce: string): Promise<string | null> {
    const deadline = Date.now() + DUPLICATE_WAIT_MS;
    for (;;) {
      const loc = await repo.location(this.p.database.db, nonce);
      if (loc) return loc;
      if (Date.now() >= deadline) return null;
      await sleep(100);
    }
  }

  /**
   * Runs a form post once per nonce: a repeated post waits for the first one's destination instead of
   * paying again. `locate` turns the outcome into the URL the customer is sent to (recorded for repeats).
   */
  protected async once(
    o: PageOrder,
    nonce: string,
    pay: () => Promise<(OrderResult & { goto?: string | null }) | { goto: string }>,
    locate: (d: Destination) => string,
    onError: (err: ApiError) => SubmitOutcome | null = () => null,
  ): Promise<SubmitOutcome> {
    if (!(await repo.claim(this.p.database.db, nonce, o.id, this.p.clock.now()))) {
      return { kind: 'duplicate', location: await this.whereFirstWent(nonce) };
    }
    let outcome: SubmitOutcome;
    try {
      const r = await pay();
      outcome = r.goto
        ? { kind: 'goto', location: r.goto }
        : { kind: 'redirect', destination: destinationAfter((r as OrderResult).order.status as OrderStatus, { ok: o.urlOk, ko: o.urlKo }) };
    } catch (err) {
      outcome = (err instanceof ApiError ? onError(err) : null) ?? this.fromError(err);
    }
    const location = outcome.kind === 'redirect' ? locate(outcome.destination) : outcome.kind === 'goto' ? outcome.location : locate({ to: 'page', result: null });
    await repo.setLocation(this.p.database.db, nonce, location);
    return outcome;
  }

  protected fromError(err: unknown): SubmitOutcome {
    if (!(err instanceof ApiError)) throw err;
    // 400/409: the order changed under the form (paid, expired, in progress, not waiting for 3DS):
    // the page shows where it stands. Anything else is an error page.
    if (err.status === 400 || err.status === 404 || err.status === 409) return { kind: 'state' };
    return { kind: 'error', status: err.status };
  }

  #acquirerThreeds(serviceType: string, env: Env): boolean {
    try {
      return this.deps.payments.hasAcquirerThreeds({ service_type: serviceType, env });
    } catch {
      return false;
    }
  }
}
