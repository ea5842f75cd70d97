/**
 * The virtual terminal's card form (MoTo payments taken by phone or mail, B11, PCI merchants only).
 *
 * The dashboard never carries a card number: a staff user opens a form (`open`, from the dashboard's
 * terminal area), which creates the order (the B1 service, not charged) and a one-time token for a
 * page of the gateway's own; the card typed there is posted to the gateway (`pay`), which pays the
 * order with the B11 service for the token's merchant. The token is kept as its SHA-256, works once
 * and for FORM_TTL_MS, and only while the staff user who opened it is still active for the merchant
 * and in a group that takes manual payments.
 * Card data is never stored here, never logged; the CVV goes to the payment only.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Platform } from '../../platform/index.js';
import { ApiError, forbidden } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import { Secret } from '../../platform/security/secret.js';
import { currencyByNumber } from '../../platform/money/currency.js';
import { can } from '../../platform/security/permissions.js';
import type { MerchantsService } from '../merchants/index.js';
import type { Operative, PaymentsService } from '../payments/index.js';
import { checkCard, readCardForm, todayOf, type CardFormErrors } from '../pages/index.js';
import * as repo from './terminal.repo.js';

/** How long a form may wait for the card. */
export const FORM_TTL_MS = 15 * 60_000;

export interface TerminalPaymentInput {
  amount: number;
  currency?: string | null;
  service?: string | null;
  description: string;
  operative?: Operative;
  customer_ext_id?: string | null;
  reference?: string | null;
  additional?: string | null;
  url_post?: string | null;
  method: 'MAIL' | 'PHONE';
  language?: string | null;
}

export interface TerminalForm {
  token: string;
  order_uuid: string;
  expires_at: Date;
  /** the form's path on this gateway */
  path: string;
}

/** What the form shows: the order's summary (never card data). */
export interface FormView {
  order_uuid: string;
  merchant: string;
  amount: number;
  currency: { code: string; digits: number };
  description: string;
  method: 'MAIL' | 'PHONE';
  language: string;
  today: { year: number; month: number };
}

export type PayOutcome =
  | { kind: 'gone' }
  | { kind: 'invalid'; view: FormView; errors: CardFormErrors; values: { holder: string; expiry: string } }
  | { kind: 'done'; view: FormView; status: string; paid: boolean; details: string | null };

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

export class TerminalService {
  constructor(
    private readonly p: Platform,
    private readonly deps: { payments: PaymentsService; merchants: MerchantsService },
  ) {}

  /**
   * Opens a card form for a MoTo payment of `ctx`'s merchant (403 when it is not PCI-compliant, as
   * B11 is): the order is created now (B1, not charged), the card comes through the form.
   */
  async open(ctx: RequestContext, userId: string, input: TerminalPaymentInput): Promise<TerminalForm> {
    if (!ctx.merchant.isPci) throw forbidden('MoTo payment with card data is only available to PCI-compliant merchants (is_pci)');
    const created = await this.deps.payments.create(ctx, {
      amount: input.amount,
      operative: input.operative ?? 'AUTHORIZATION',
      secure: false,
      description: input.description,
      currency: input.currency ?? null,
      service: input.service ?? null,
      customer_ext_id: input.customer_ext_id ?? null,
      reference: input.reference ?? null,
      additional: input.additional ?? null,
      url_post: input.url_post ?? null,
      expires_in: FORM_TTL_MS / 1000,
    });
    const token = randomBytes(32).toString('base64url');
    const now = this.p.clock.now();
    const expires = new Date(now.getTime() + FORM_TTL_MS);
    const db = this.p.database.db;
    await repo.insertForm(db, {
      token_hash: hashToken(token),
      merchant_id: ctx.merchant.id,
      env: ctx.env,
      order_id: created.order.uuid,
      user_id: userId,
      method: input.method,
      description: input.description,
      language: (input.language ?? 'en').toLowerCase(),
      expires_at: expires,
      used_at: null,
      outcome: null,
      created_at: now,
    });
    // forms that lapsed a day ago are of no use to anyone
    await repo.purge(db, new Date(now.getTime() - 86_400_000));
    return { token, order_uuid: created.order.uuid, expires_at: expires, path: `/dashboard/terminal-form/${token}` };
  }

  /**
   * The form of a token still waiting for its card, or null (unknown, used or lapsed, or the staff user
   * who opened it is no longer active for its merchant: disabled, gone, their merchant deleted, or moved
   * to a group that does not take manual payments).
   */
  async load(token: string): Promise<{ row: repo.TerminalFormsTable; view: FormView; ctx: RequestContext } | null> {
    if (!TOKEN_RE.test(token)) return null;
    const row = await repo.formByHash(this.p.database.db, hashToken(token));
    if (!row || row.used_at !== null || row.expires_at.getTime() <= this.p.clock.now().getTime()) return null;
    const staff = await this.deps.merchants.dashboardUserActiveFor(row.user_id, row.merchant_id);
    // the user's group may have changed since: it must still take manual payments
    if (!staff || !can(staff.group, 'manual.create')) return null;
    return this.#view(row);
  }

  async #view(row: repo.TerminalFormsTable) {
    const ctx = await this.deps.merchants.dashboardContext(row.merchant_id);
    const { order } = await this.deps.payments.getOrder(ctx, row.order_id);
    const currency = currencyByNumber(order.currency) ?? { code: String(order.currency), number: String(order.currency), digits: 2 };
    const view: FormView = {
      order_uuid: order.uuid,
      merchant: ctx.merchant.name,
      amount: order.amount,
      currency: { code: currency.code, digits: currency.digits },
      description: row.description,
      method: row.method,
      language: row.language,
      today: todayOf(ctx.clock.now()),
    };
    return { row, view, ctx };
  }

  /**
   * The card posted by the form: the form is loaded again (so a user disabled since the page was shown
   * gets nothing charged), the card checked as the hosted page checks it (a mistake shows the form again,
   * the token still valid), then the token is claimed and the order paid with B11. The answer holds
   * the order's state, never the card.
   */
  async pay(token: string, body: Record<string, unknown>): Promise<PayOutcome> {
    const loaded = await this.load(token);
    if (!loaded) return { kind: 'gone' };
    const { row, view, ctx } = loaded;
    const form = readCardForm(body);
    const checked = checkCard(form, view.today);
    if (!checked.card) return { kind: 'invalid', view, errors: checked.errors, values: { holder: form.holder.slice(0, 100), expiry: form.expiry.slice(0, 7) } };
    const card = checked.card;
    if (!(await repo.claimForm(this.p.database.db, row.token_hash, this.p.clock.now()))) return { kind: 'gone' };
    let status: string;
    let paid = false;
    let details: string | null = null;
    try {
      const r = await this.deps.payments.payMoto(ctx, {
        order_uuid: row.order_id,
        method: row.method,
        card_holder: card.holder,
        card_pan: new Secret(card.digits),
        card_expiry_month: card.month,
        card_expiry_year: card.year,
        card_cvv: form.cvv.trim() === '' ? null : new Secret(form.cvv.trim()),
      });
      status = r.order.status;
      paid = r.order.paid;
      details = r.failed;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      status = 'ERROR';
      details = err.details;
    }
    await repo.setOutcome(this.p.database.db, row.token_hash, status);
    return { kind: 'done', view, status, paid, details };
  }
}
