/**
 * Use cases of the customer pages. The order token is the credential: a page loads the order behind
 * it (in the route's environment only), decides what to show, and pays through the payments core
 * (`payByToken`, `completeAfter3ds`, `payApmByToken`). Form posts carry a signed one-time nonce, so a
 * repeated post (double click, reload, a second tab) never pays again: it ends where the first ended.
 */
import { randomBytes } from 'node:crypto';
import type { Env } from '../../platform/db/schema.js';
import { ApiError } from '../../platform/errors/errors.js';
import type { Platform } from '../../platform/index.js';
import { currencyByCode, type Currency } from '../../platform/money/currency.js';
import { isAbsoluteHttpUrl } from '../../platform/net/outgoing.js';
import { safeEqual } from '../../platform/security/hashing.js';
import { Secret } from '../../platform/security/secret.js';
import { methodsServiceCanTake, type CheckoutsService } from '../checkouts/index.js';
import type { CustomersService } from '../customers/index.js';
import type { MerchantsService } from '../merchants/index.js';
import type { SourcesService } from '../sources/index.js';
import type { ApmRecord, OrderResult, OrderStatus, PaymentsService } from '../payments/index.js';
import { findServiceWithTerminal, isRedsysFamily } from '../services/index.js';
import type { PageTemplate, TemplatesService } from '../templates/index.js';
import { checkCard, parseBizumPhone, readCardForm, todayOf, type CardFormErrors } from './card.domain.js';
import { formatMoney, type Language } from './i18n/index.js';
import { MAX_PAGE_ATTEMPTS, destinationAfter, pageViewFor, parseCheckout, type Checkout, type Destination, type PageMethod, type PageView } from './pages.domain.js';
import * as repo from './pages.repo.js';
import { CardFormService } from './card-form.service.js';
import { parsePushPhone, type PaymentMethodsService } from '../payment-methods/index.js';
import { WALLET_LABEL, parseWallet, type Wallet, type WalletsService } from '../wallets/index.js';
import type { ApmView } from './views.js';
import type { DccService, OfferView } from '../dcc/index.js';
import { parseChoice } from '../dcc/index.js';

type ByToken = NonNullable<Awaited<ReturnType<PaymentsService['orderByToken']>>>;

/** An order as the pages see it. */
export interface PageOrder {
  token: string;
  id: string;
  env: Env;
  merchantId: string;
  merchantName: string;
  serviceId: string;
  /** The order's processor runs EMV 3-D Secure itself (the 3DS page runs its steps). */
  acquirerThreeds: boolean;
  status: OrderStatus;
  operative: string;
  amount: number;
  currency: Currency;
  description: string | null;
  urlOk: string | null;
  urlKo: string | null;
  templateId: string | null;
  dccTemplateId: string | null;
  extraData: unknown;
  /** The order's checkout (extra_data.checkout over the stored checkout it names), or null. */
  checkout: Checkout | null;
  sourceId: string | null;
  expiresAt: Date;
  /** Now on the merchant's clock. */
  now: Date;
  failedAttempts: number;
  bizum: boolean;
  /** Methods the order's service can take, in the reference names (PAYMENT_CARD, BIZUM, ...). */
  serviceMethods: string[];
  /** The APMs the order's service offers (the hosted page's `?apm=`). */
  apms: ApmView[];
  /** The wallets the page offers (sandbox: the wallet's test mode; none in production, docs/wallets.md). */
  wallets: Wallet[];
  view: PageView;
}

/** How long a rendered form can be posted (real time). */
export const FORM_TTL_MS = 2 * 3600_000;
/** How long a repeated post waits for the first one to finish. */
const DUPLICATE_WAIT_MS = 15_000;

export type FormPurpose = 'card' | 'acs' | 'bizum' | 'card-form' | 'apm' | 'sandbox-apm' | 'wallet' | 'dcc' | 'threeds';

export type SubmitOutcome =
  | { kind: 'redirect'; destination: Destination }
  | { kind: 'invalid'; errors: CardFormErrors; values: { holder: string; expiry: string } }
  | { kind: 'invalid-phone'; phone: string }
  | { kind: 'duplicate'; location: string | null }
  /** Somewhere that is not a Destination (an APM provider's page). */
  | { kind: 'goto'; location: string }
  | { kind: 'invalid-apm-phone'; phone: string }
  | { kind: 'state' }
  | { kind: 'error'; status: number };

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class PagesService {
  /** The embedded card form (`/js/v1-iframe.js`), opened with a customer token. */
  readonly cardForm: CardFormService;

  constructor(
    private readonly p: Platform,
    private readonly deps: {
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
  async #whereFirstWent(nonce: string): Promise<string | null> {
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
  async #once(
    o: PageOrder,
    nonce: string,
    pay: () => Promise<(OrderResult & { goto?: string | null }) | { goto: string }>,
    locate: (d: Destination) => string,
    onError: (err: ApiError) => SubmitOutcome | null = () => null,
  ): Promise<SubmitOutcome> {
    if (!(await repo.claim(this.p.database.db, nonce, o.id, this.p.clock.now()))) {
      return { kind: 'duplicate', location: await this.#whereFirstWent(nonce) };
    }
    let outcome: SubmitOutcome;
    try {
      const r = await pay();
      outcome = r.goto
        ? { kind: 'goto', location: r.goto }
        : { kind: 'redirect', destination: destinationAfter((r as OrderResult).order.status as OrderStatus, { ok: o.urlOk, ko: o.urlKo }) };
    } catch (err) {
      outcome = (err instanceof ApiError ? onError(err) : null) ?? this.#fromError(err);
    }
    const location = outcome.kind === 'redirect' ? locate(outcome.destination) : outcome.kind === 'goto' ? outcome.location : locate({ to: 'page', result: null });
    await repo.setLocation(this.p.database.db, nonce, location);
    return outcome;
  }

  #fromError(err: unknown): SubmitOutcome {
    if (!(err instanceof ApiError)) throw err;
    // 400/409: the order changed under the form (paid, expired, in progress, not waiting for 3DS):
    // the page shows where it stands. Anything else is an error page.
    if (err.status === 400 || err.status === 404 || err.status === 409) return { kind: 'state' };
    return { kind: 'error', status: err.status };
  }

  // ---- the card form (B4) -----------------------------------------------------------------------------

  async submitCard(o: PageOrder, body: Record<string, unknown>, customerIp: string | null, locate: (d: Destination) => string, dccHref?: (offerId: string) => string): Promise<SubmitOutcome> {
    const nonce = this.verifyNonce(o.token, 'card', body.nonce);
    if (!nonce) return { kind: 'error', status: 400 };
    const seen = await repo.location(this.p.database.db, nonce);
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.#whereFirstWent(nonce)) };
    if (o.view.kind !== 'form') return { kind: 'state' };
    const form = readCardForm(body);
    const checked = checkCard(form, todayOf(o.now));
    if (!checked.card) return { kind: 'invalid', errors: checked.errors, values: { holder: form.holder.slice(0, 100), expiry: form.expiry.slice(0, 7) } };
    const card = checked.card;
    const outcome = await this.#once(
      o,
      nonce,
      async () => {
        const pan = new Secret(card.digits);
        const cvv = new Secret(form.cvv.trim());
        // a card in another currency than the order's, on a service with DCC: the offer screen first
        const offer = dccHref ? await this.#dccOffer(o, { pan, expMonth: card.month, expYear: card.year, holder: card.holder }, cvv) : null;
        if (offer) return { goto: dccHref!(offer.id) };
        return this.deps.payments.payByToken(o.token, {
          channel: 'ECOMMERCE',
          card: { kind: 'card', holder: card.holder, pan, expMonth: card.month, expYear: card.year, origin: 'PAYMENT_PAGE', store: true },
          cvv,
          customerIp,
          keepCardFor3ds: true,
        });
      },
      locate,
      // the payments core checks the card once more (the vault's brand table, its clock): a 400 about
      // the card is shown on the form like the page's own checks
      (err) => {
        if (err.status !== 400) return null;
        const errors: CardFormErrors = {};
        if (/^card_pan/.test(err.details)) errors.number = 'err.number.invalid';
        else if (/^card_expiry|expired/i.test(err.details) && !/order/i.test(err.details)) errors.expiry = 'err.expiry.past';
        else if (/^card_holder/.test(err.details)) errors.holder = 'err.holder.invalid';
        else return null;
        return { kind: 'invalid', errors, values: { holder: form.holder.slice(0, 100), expiry: form.expiry.slice(0, 7) } };
      },
    );
    return outcome;
  }

  // ---- dynamic currency conversion (docs/dcc.md) -----------------------------------------------------------

  async #dccOffer(o: PageOrder, card: { pan: Secret<string>; expMonth: number; expYear: number; holder: string }, cvv: Secret<string>): Promise<OfferView | null> {
    if (!this.deps.dcc) return null;
    return this.deps.dcc.offer(
      { id: o.id, merchantId: o.merchantId, env: o.env, serviceId: o.serviceId, operative: o.operative, amount: o.amount, currency: o.currency.code },
      card,
      cvv,
      o.now,
    );
  }

  /** The offer shown on the DCC screen of an order, or null (chosen, lapsed, unknown). */
  dccOffer(o: PageOrder, offerId: string | undefined): Promise<OfferView | null> {
    if (!this.deps.dcc || !offerId) return Promise.resolve(null);
    return this.deps.dcc.find(offerId, o.id);
  }

  /**
   * The cardholder's choice on the DCC screen: the offer is taken (once) and the order is paid with the
   * kept card and the choice; a lapsed or unknown offer sends the cardholder back to the card form.
   */
  async submitDcc(o: PageOrder, body: Record<string, unknown>, customerIp: string | null, locate: (d: Destination) => string, dccHref: (offerId: string) => string): Promise<SubmitOutcome> {
    const nonce = this.verifyNonce(o.token, 'dcc', body.nonce);
    if (!nonce) return { kind: 'error', status: 400 };
    const seen = await repo.location(this.p.database.db, nonce);
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.#whereFirstWent(nonce)) };
    const accepted = parseChoice(body.choice);
    if (accepted === null || typeof body.offer !== 'string' || !this.deps.dcc) return { kind: 'error', status: 400 };
    if (o.view.kind !== 'form') return { kind: 'state' };
    const dcc = this.deps.dcc;
    const offerId = body.offer;
    return this.#once(o, nonce, async () => {
      const taken = await dcc.take(offerId, o.id, accepted, o.now);
      // lapsed or already chosen: the offer screen says so and leads back to the card form
      if (taken.kind !== 'taken') return { goto: dccHref(offerId) };
      return this.deps.payments.payByToken(o.token, {
        channel: 'ECOMMERCE',
        card: { kind: 'card', holder: taken.card.holder, pan: taken.card.pan, expMonth: taken.card.expMonth, expYear: taken.card.expYear, origin: 'PAYMENT_PAGE', store: true },
        // checked when the offer was made (zero-amount verification), never kept
        cvv: null,
        customerIp,
        keepCardFor3ds: true,
        dcc: taken.choice,
      });
    }, locate);
  }

  // ---- 3DS (B7 and the challenge) ----------------------------------------------------------------------

  /**
   * B7 for an order with a stored card that is not yet paying: starts the payment with the card and
   * 3DS (the order waits in PENDING_3DS_RESPONSE while the challenge is shown).
   */
  async start3dsWithStoredCard(o: PageOrder, customerIp: string | null): Promise<void> {
    if (!o.sourceId) return;
    try {
      await this.deps.payments.payByToken(o.token, { channel: 'ECOMMERCE', card: { kind: 'source', sourceUuid: o.sourceId }, customerIp, force3ds: true });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      // the order changed meanwhile (or the card is gone): the page shows the order as it is now
    }
  }

  /** The form the customer's browser posts to a redirect APM provider's page, or null. */
  apmRedirectForm(connector: string, reference: string) {
    return this.deps.payments.apmRedirectForm(connector, reference);
  }

  /** The gateway's public base URL (absolute URLs given to the issuer's 3DS servers). */
  get publicUrl(): string {
    return this.p.config.publicUrl;
  }

  #acquirerThreeds(serviceType: string, env: Env): boolean {
    try {
      return this.deps.payments.hasAcquirerThreeds({ service_type: serviceType, env });
    } catch {
      return false;
    }
  }

  // ---- EMV 3-D Secure 2 through the acquirer (B7 when the processor authenticates itself) -------------------

  /** Step 1: card configuration; the 3DS method to run, or the payment already ended (card without 3DS 2). */
  async threedsStart(o: PageOrder, methodNotification: string): Promise<{ method: { url: string; data: string } | null } | { ended: true }> {
    const r = await this.deps.payments.acquirerThreedsStart(o.token, { methodNotification });
    return 'done' in r ? { ended: true } : r;
  }

  /** Step 2: the browser's data posted by the 3DS page; the payment's result, or the ACS challenge to show. */
  async threedsAuthenticate(
    o: PageOrder,
    body: Record<string, unknown>,
    headers: { accept: string; userAgent: string },
    challengeNotification: string,
    locate: (d: Destination) => string,
    threedsPage: string,
  ): Promise<SubmitOutcome | { kind: 'challenge'; acsUrl: string; creq: string; method: 'post' | 'get'; field?: 'creq' | 'JWT' }> {
    const nonce = this.verifyNonce(o.token, 'threeds', body.nonce);
    if (!nonce) return { kind: 'error', status: 400 };
    const seen = await repo.location(this.p.database.db, nonce);
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.#whereFirstWent(nonce)) };
    if (o.view.kind !== 'pending3ds') return { kind: 'state' };
    const num = (v: unknown, max: number) => {
      const n = Number(v);
      return Number.isInteger(n) && Math.abs(n) <= max ? n : 0;
    };
    const browser = {
      acceptHeader: headers.accept.slice(0, 2048) || 'text/html',
      userAgent: headers.userAgent.slice(0, 2048) || 'unknown',
      javaEnabled: body.java === 'true',
      javascriptEnabled: body.js === 'true',
      language: typeof body.language === 'string' && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(body.language) ? body.language : 'es-ES',
      colorDepth: num(body.color_depth, 64) || 24,
      screenHeight: num(body.screen_height, 100_000),
      screenWidth: num(body.screen_width, 100_000),
      tz: num(body.tz, 1440),
    };
    const method = body.method === 'Y' ? true : body.method === 'N' ? false : null;
    let challenge: { acsUrl: string; creq: string; method: 'post' | 'get'; field?: 'creq' | 'JWT' } | null = null;
    const outcome = await this.#once(o, nonce, async () => {
      const r = await this.deps.payments.acquirerThreedsAuthenticate(o.token, browser, { challengeNotification }, method);
      if ('challenge' in r) {
        challenge = r.challenge;
        // the same form posted again finds the 3DS page (the challenge is still pending)
        return { goto: threedsPage };
      }
      return r.done;
    }, locate);
    if (challenge) return { kind: 'challenge', ...(challenge as { acsUrl: string; creq: string; method: 'post' | 'get'; field?: 'creq' | 'JWT' }) };
    return outcome;
  }

  /**
   * Step 3: the ACS posted the challenge's answer (cres) back, or a provider's challenge page its
   * transaction id (Worldpay's: `TransactionId`); the payment's result.
   */
  async threedsComplete(o: PageOrder, body: Record<string, unknown>, locate: (d: Destination) => string): Promise<SubmitOutcome> {
    const cres = typeof body.cres === 'string' ? body.cres : typeof body.cRes === 'string' ? body.cRes : typeof body.TransactionId === 'string' ? body.TransactionId : null;
    if (!cres || cres.length > 8192 || !/^[A-Za-z0-9+/_=-]+$/.test(cres)) return { kind: 'error', status: 400 };
    if (o.view.kind !== 'pending3ds') return { kind: 'state' };
    try {
      const r = await this.deps.payments.acquirerThreedsComplete(o.token, cres);
      if ('challenge' in r) return { kind: 'error', status: 502 };
      return { kind: 'redirect', destination: destinationAfter(r.done.order.status as OrderStatus, { ok: o.urlOk, ko: o.urlKo }) };
    } catch (err) {
      return this.#fromError(err);
    }
  }

  async submitChallenge(o: PageOrder, body: Record<string, unknown>, locate: (d: Destination) => string): Promise<SubmitOutcome> {
    const nonce = this.verifyNonce(o.token, 'acs', body.nonce);
    if (!nonce) return { kind: 'error', status: 400 };
    const seen = await repo.location(this.p.database.db, nonce);
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.#whereFirstWent(nonce)) };
    if (o.view.kind !== 'pending3ds') return { kind: 'state' };
    const result = body.result === 'approve' ? 'APPROVED' : body.result === 'fail' ? 'FAILED' : null;
    if (!result) return { kind: 'error', status: 400 };
    return this.#once(o, nonce, () => this.deps.payments.completeAfter3ds(o.token, { challenge: result }), locate);
  }

  // ---- Bizum (B5) ----------------------------------------------------------------------------------------

  async submitBizum(o: PageOrder, body: Record<string, unknown>, customerIp: string | null, locate: (d: Destination) => string): Promise<SubmitOutcome> {
    const nonce = this.verifyNonce(o.token, 'bizum', body.nonce);
    if (!nonce) return { kind: 'error', status: 400 };
    const seen = await repo.location(this.p.database.db, nonce);
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.#whereFirstWent(nonce)) };
    if (o.view.kind !== 'form') return { kind: 'state' };
    const phone = parseBizumPhone(body.phone);
    if (!phone) return { kind: 'invalid-phone', phone: typeof body.phone === 'string' ? body.phone.slice(0, 20) : '' };
    return this.#once(o, nonce, () => this.deps.payments.payApmByToken(o.token, { apm: 'BIZUM', phone, customerIp }), locate);
  }

  // ---- APMs of every kind (B4 `?apm=`) ---------------------------------------------------------------------

  /** The APM of `value` when the order's service offers it. */
  apmOf(o: PageOrder, value: string | undefined): ApmView | null {
    if (!value) return null;
    return o.apms.find((a) => a.apm === value.trim().toUpperCase()) ?? null;
  }

  /** The started APM payment waiting on the order, or null. */
  pendingApm(o: PageOrder): Promise<ApmRecord | null> {
    return this.deps.payments.pendingApmByToken(o.token);
  }

  /**
   * The APM form: starts the payment with the provider. Redirect: the customer goes to the provider's
   * page; push and voucher: back to the page, which shows the wait or the voucher; refused at once: url_ko.
   */
  async submitApm(o: PageOrder, apm: ApmView, body: Record<string, unknown>, customerIp: string | null, locate: (d: Destination) => string, here: string): Promise<SubmitOutcome> {
    const nonce = this.verifyNonce(o.token, 'apm', body.nonce);
    if (!nonce) return { kind: 'error', status: 400 };
    const seen = await repo.location(this.p.database.db, nonce);
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.#whereFirstWent(nonce)) };
    if (o.view.kind !== 'form') return { kind: 'state' };
    let phone: string | null = null;
    if (apm.kind === 'push') {
      phone = parsePushPhone(apm.apm, body.phone);
      if (!phone) return { kind: 'invalid-apm-phone', phone: typeof body.phone === 'string' ? body.phone.slice(0, 20) : '' };
    }
    return this.#once(o, nonce, async () => {
      const r = await this.deps.payments.startApmByToken(o.token, { apm: apm.apm, phone, customerIp });
      return { ...r, goto: r.apm ? (r.apm.redirect_url ?? here) : null };
    }, locate);
  }

  /** The sandbox provider's pages (bank page, phone, voucher payment): the customer approves or refuses. */
  async submitSandboxApm(o: PageOrder, body: Record<string, unknown>, locate: (d: Destination) => string): Promise<SubmitOutcome> {
    const nonce = this.verifyNonce(o.token, 'sandbox-apm', body.nonce);
    if (!nonce) return { kind: 'error', status: 400 };
    const seen = await repo.location(this.p.database.db, nonce);
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.#whereFirstWent(nonce)) };
    const action = body.result === 'approve' ? 'PAID' : body.result === 'fail' ? 'REFUSED' : null;
    if (!action) return { kind: 'error', status: 400 };
    if (!(await this.pendingApm(o))) return { kind: 'state' };
    return this.#once(o, nonce, () => this.deps.payments.completeApmByToken(o.token, action), locate);
  }

  // ---- wallets (sandbox: the wallet's test mode) -----------------------------------------------------------

  /** The wallet of `value` when the page offers it. */
  walletOf(o: PageOrder, value: string | undefined): Wallet | null {
    const w = parseWallet(value);
    return w && o.wallets.includes(w) ? w : null;
  }

  walletLabel(w: Wallet): string {
    return WALLET_LABEL[w];
  }

  /**
   * A wallet button: in the sandbox the gateway builds a token as the wallet's test mode would (test
   * card, no network) and pays it through B14; a PAN_ONLY card would go on to 3-D Secure.
   */
  async submitWallet(o: PageOrder, wallet: Wallet, body: Record<string, unknown>, customerIp: string | null, locate: (d: Destination) => string): Promise<SubmitOutcome> {
    const nonce = this.verifyNonce(o.token, 'wallet', body.nonce);
    if (!nonce) return { kind: 'error', status: 400 };
    const seen = await repo.location(this.p.database.db, nonce);
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.#whereFirstWent(nonce)) };
    if (o.view.kind !== 'form' || !this.deps.wallets || o.env !== 'sandbox') return { kind: 'state' };
    const wallets = this.deps.wallets;
    return this.#once(o, nonce, () => wallets.payOnSandboxPage(o.token, wallet, customerIp), locate);
  }

  // ---- background -----------------------------------------------------------------------------------------

  registerJobs(): void {
    this.p.jobs.register('pages.sweep', async () => {
      await this.deps.payments.expireKeptCardChallenges();
      await repo.purge(this.p.database.db, new Date(this.p.clock.now().getTime() - FORM_TTL_MS - 3600_000));
    });
    this.p.jobs.every('pages.sweep', 60_000);
  }
}

export { MAX_PAGE_ATTEMPTS };
