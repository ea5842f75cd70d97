/**
 * Use cases of the customer pages. The order token is the credential: a page loads the order behind
 * it (in the route's environment only), decides what to show, and pays through the payments core
 * (`payByToken`, `completeAfter3ds`, `payApmByToken`). Form posts carry a signed one-time nonce, so a
 * repeated post (double click, reload, a second tab) never pays again: it ends where the first ended.
 */
import { ApiError } from '../../platform/errors/errors.js';
import { Secret } from '../../platform/security/secret.js';
import type { ApmRecord, OrderStatus } from '../payments/index.js';
import { checkCard, parseBizumPhone, readCardForm, todayOf, type CardFormErrors } from './card.domain.js';
import { MAX_PAGE_ATTEMPTS, destinationAfter, type Destination } from './pages.domain.js';
import * as repo from './pages.repo.js';
import { parsePushPhone } from '../payment-methods/index.js';
import { WALLET_LABEL, parseWallet, type Wallet } from '../wallets/index.js';
import type { ApmView } from './views.js';
import type { OfferView } from '../dcc/index.js';
import { parseChoice } from '../dcc/index.js';
import { FORM_TTL_MS, type FormPurpose, type PageOrder, type SubmitOutcome } from './pages.types.js';
import { PagesCore } from './pages.core.js';

export { FORM_TTL_MS } from './pages.types.js';
export type { FormPurpose, PageOrder, SubmitOutcome } from './pages.types.js';

/** The customer pages' use cases: every form post (card, DCC, 3DS, Bizum, APMs, wallets) and the sweep. */
export class PagesService extends PagesCore {
  // ---- the card form (B4) -----------------------------------------------------------------------------

  async submitCard(o: PageOrder, body: Record<string, unknown>, customerIp: string | null, locate: (d: Destination) => string, dccHref?: (offerId: string) => string): Promise<SubmitOutcome> {
    const nonce = this.verifyNonce(o.token, 'card', body.nonce);
    if (!nonce) return { kind: 'error', status: 400 };
    const seen = await repo.location(this.p.database.db, nonce);
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.whereFirstWent(nonce)) };
    if (o.view.kind !== 'form') return { kind: 'state' };
    const form = readCardForm(body);
    const checked = checkCard(form, todayOf(o.now));
    if (!checked.card) return { kind: 'invalid', errors: checked.errors, values: { holder: form.holder.slice(0, 100), expiry: form.expiry.slice(0, 7) } };
    const card = checked.card;
    const outcome = await this.once(
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
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.whereFirstWent(nonce)) };
    const accepted = parseChoice(body.choice);
    if (accepted === null || typeof body.offer !== 'string' || !this.deps.dcc) return { kind: 'error', status: 400 };
    if (o.view.kind !== 'form') return { kind: 'state' };
    const dcc = this.deps.dcc;
    const offerId = body.offer;
    return this.once(o, nonce, async () => {
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
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.whereFirstWent(nonce)) };
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
    const outcome = await this.once(o, nonce, async () => {
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
      return this.fromError(err);
    }
  }

  async submitChallenge(o: PageOrder, body: Record<string, unknown>, locate: (d: Destination) => string): Promise<SubmitOutcome> {
    const nonce = this.verifyNonce(o.token, 'acs', body.nonce);
    if (!nonce) return { kind: 'error', status: 400 };
    const seen = await repo.location(this.p.database.db, nonce);
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.whereFirstWent(nonce)) };
    if (o.view.kind !== 'pending3ds') return { kind: 'state' };
    const result = body.result === 'approve' ? 'APPROVED' : body.result === 'fail' ? 'FAILED' : null;
    if (!result) return { kind: 'error', status: 400 };
    return this.once(o, nonce, () => this.deps.payments.completeAfter3ds(o.token, { challenge: result }), locate);
  }

  // ---- Bizum (B5) ----------------------------------------------------------------------------------------

  async submitBizum(o: PageOrder, body: Record<string, unknown>, customerIp: string | null, locate: (d: Destination) => string): Promise<SubmitOutcome> {
    const nonce = this.verifyNonce(o.token, 'bizum', body.nonce);
    if (!nonce) return { kind: 'error', status: 400 };
    const seen = await repo.location(this.p.database.db, nonce);
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.whereFirstWent(nonce)) };
    if (o.view.kind !== 'form') return { kind: 'state' };
    const phone = parseBizumPhone(body.phone);
    if (!phone) return { kind: 'invalid-phone', phone: typeof body.phone === 'string' ? body.phone.slice(0, 20) : '' };
    return this.once(o, nonce, () => this.deps.payments.payApmByToken(o.token, { apm: 'BIZUM', phone, customerIp }), locate);
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
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.whereFirstWent(nonce)) };
    if (o.view.kind !== 'form') return { kind: 'state' };
    let phone: string | null = null;
    if (apm.kind === 'push') {
      phone = parsePushPhone(apm.apm, body.phone);
      if (!phone) return { kind: 'invalid-apm-phone', phone: typeof body.phone === 'string' ? body.phone.slice(0, 20) : '' };
    }
    return this.once(o, nonce, async () => {
      const r = await this.deps.payments.startApmByToken(o.token, { apm: apm.apm, phone, customerIp });
      return { ...r, goto: r.apm ? (r.apm.redirect_url ?? here) : null };
    }, locate);
  }

  /** The sandbox provider's pages (bank page, phone, voucher payment): the customer approves or refuses. */
  async submitSandboxApm(o: PageOrder, body: Record<string, unknown>, locate: (d: Destination) => string): Promise<SubmitOutcome> {
    const nonce = this.verifyNonce(o.token, 'sandbox-apm', body.nonce);
    if (!nonce) return { kind: 'error', status: 400 };
    const seen = await repo.location(this.p.database.db, nonce);
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.whereFirstWent(nonce)) };
    const action = body.result === 'approve' ? 'PAID' : body.result === 'fail' ? 'REFUSED' : null;
    if (!action) return { kind: 'error', status: 400 };
    if (!(await this.pendingApm(o))) return { kind: 'state' };
    return this.once(o, nonce, () => this.deps.payments.completeApmByToken(o.token, action), locate);
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
    if (seen !== undefined) return { kind: 'duplicate', location: seen ?? (await this.whereFirstWent(nonce)) };
    if (o.view.kind !== 'form' || !this.deps.wallets || o.env !== 'sandbox') return { kind: 'state' };
    const wallets = this.deps.wallets;
    return this.once(o, nonce, () => wallets.payOnSandboxPage(o.token, wallet, customerIp), locate);
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
