/**
 * MoTo campaigns (G1, G2, G5 and the campaign's own reads): a campaign is accepted whole or not at all
 * (every row checked first: 422 with each line's problems), stored with its payments in one transaction,
 * and each payment is then worked by a durable job: its order is created through the payments module
 * with the payment's preassigned order uuid (a retried job finds the order instead of making another),
 * and its link is sent through the links module by e-mail or SMS (or left to the merchant for
 * CUSTOM_DELIVERY). The link opens a gateway URL that records the first opening (time, IP, user agent)
 * and then shows the order's hosted payment page.
 */
import { randomUUID } from 'node:crypto';
import { CSV_MAX_ROWS, decodeBase64File, readCsv, type LineError } from '../../platform/csv/csv.js';
import { UUID_RE } from '../../platform/ids.js';
import { badRequest, gone, notFound, unprocessable } from '../../platform/errors/errors.js';
import { refusedUrlText } from '../../platform/net/outgoing.js';
import { IdempotencyStore } from '../../platform/http/idempotency.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import type { Job } from '../../platform/jobs/queue.js';
import { randomToken } from '../../platform/security/hashing.js';
import type { LinksService } from '../links/index.js';
import type { MerchantsService } from '../merchants/index.js';
import type { Payments } from '../payments/index.js';
import { findServiceWithTerminal } from '../services/index.js';
import {
  campaignExpiry,
  campaignTransition,
  CSV_OPTIONAL,
  CSV_REQUIRED,
  paymentTransition,
  validatePayment,
  type CampaignType,
  type MotoPaymentEvent,
  type MotoPaymentStatus,
  type PaymentSpec,
} from './campaigns.domain.js';
import * as repo from './campaigns.repo.js';
import { presentCampaign, presentMotoOrder, presentPayment } from './campaigns.present.js';
import { buildCertificate, newKeyPair, verifyCertificate, type Evidence, type Verification } from './certificates.js';
import { maskDestination } from './campaigns.domain.js';
import { conflict } from '../../platform/errors/errors.js';

export const MOTO_QUEUE = 'moto.payment';
const MAX_ATTEMPTS = 6;
/** The shortest life an order can have (B1 `expires_in` minimum). */
const MIN_EXPIRES_IN = 600;
const MAX_EXPIRES_IN = 31_536_000;

export interface CampaignInput {
  description: string;
  expires_at: string;
  service_uuid: string;
  subject?: string | null;
  type: CampaignType;
}
export interface FileCampaignInput extends CampaignInput {
  file: string;
  filename?: string | null;
}
export interface JsonCampaignInput extends CampaignInput {
  payments: Array<Record<string, unknown>>;
}

type Owner = { merchantId: string; env: RequestContext['env'] };
const ownerOf = (ctx: RequestContext): Owner => ({ merchantId: ctx.merchant.id, env: ctx.env });

export class CampaignsService {
  constructor(
    private readonly p: Platform,
    private readonly deps: { payments: Payments; merchants: MerchantsService; links: LinksService },
  ) {}

  // ---- G1, G2 --------------------------------------------------------------------------------------------

  async createFromFile(ctx: RequestContext, input: FileCampaignInput) {
    const bytes = decodeBase64File('file', input.file, 'required');
    const csv = await readCsv('file', bytes, { required: CSV_REQUIRED, optional: CSV_OPTIONAL });
    return this.#create(ctx, input, 'FILE', input.filename ?? null, csv.rows.map((r) => ({ line: r.line, values: r.values })));
  }

  async createFromJson(ctx: RequestContext, input: JsonCampaignInput) {
    if (input.payments.length === 0) throw badRequest('payments must hold at least one payment');
    if (input.payments.length > CSV_MAX_ROWS) throw badRequest(`payments holds more than ${CSV_MAX_ROWS} payments, the most accepted in one campaign`);
    const rows = input.payments.map((p, i) => {
      const values: Record<string, string> = {};
      for (const [k, v] of Object.entries(p)) {
        if (v === null || v === undefined) continue;
        values[k.toUpperCase()] = typeof v === 'object' ? JSON.stringify(v) : String(v);
      }
      // JSON payments are numbered from 1 (their position in `payments`)
      return { line: i + 1, values };
    });
    return this.#create(ctx, input, 'JSON', null, rows);
  }

  async #create(ctx: RequestContext, input: CampaignInput, entry: 'FILE' | 'JSON', filename: string | null, rows: Array<{ line: number; values: Record<string, string> }>) {
    const now = ctx.clock.now();
    const expiry = campaignExpiry(input.expires_at, ctx.merchant.timezone);
    if (!expiry) throw badRequest('expires_at must be a date YYYY-MM-DD');
    const life = (expiry.at.getTime() - now.getTime()) / 1000;
    if (life < MIN_EXPIRES_IN) throw badRequest(`expires_at ${expiry.date}: the links would expire at ${expiry.at.toISOString()}, less than 10 minutes from now`);
    if (life > MAX_EXPIRES_IN) throw badRequest(`expires_at ${expiry.date} is more than a year away`);
    const service = await findServiceWithTerminal(this.p.database.db, input.service_uuid);
    if (!service || service.merchant_id !== ctx.merchant.id || service.env !== ctx.env) throw notFound(`The service ${input.service_uuid} was not found`);
    if (!service.enabled || !service.currency_code) throw badRequest(`The service ${input.service_uuid} is not enabled (it has no terminal)`);
    const subject = input.subject?.trim() || null;
    if (input.type === 'MAIL' && !subject && !input.description.trim()) throw badRequest('subject is required for a MAIL campaign');
    // G1/G2: for SMS the subject is the sender name, which SMS carries in at most 11 characters
    if (input.type === 'PHONE' && subject && subject.length > 11) throw badRequest(`subject is the SMS sender name for a PHONE campaign: at most 11 characters (it has ${subject.length})`);

    const specs: PaymentSpec[] = [];
    const errors: LineError[] = [];
    // a production URL_POST is judged now with the rules of delivery, as an order's url_post is
    const urls = new Map<string, string | null>();
    for (const r of rows) {
      const spec = validatePayment(input.type, r.line, r.values);
      if (Array.isArray(spec)) {
        errors.push(...spec);
        continue;
      }
      if (spec.url_post && ctx.env === 'production') {
        if (!urls.has(spec.url_post)) urls.set(spec.url_post, await this.p.outgoing.refusalOf(spec.url_post, ctx.env));
        const refused = urls.get(spec.url_post);
        if (refused) {
          errors.push({ line: r.line, msg: refusedUrlText('URL_POST', refused) });
          continue;
        }
      }
      specs.push(spec);
    }
    if (errors.length > 0) {
      const shown = errors.slice(0, 1000);
      throw unprocessable(`${errors.length} problem${errors.length > 1 ? 's' : ''} in ${new Set(errors.map((e) => e.line)).size} payment${errors.length > 1 ? 's' : ''}: nothing was created`, { errors: shown });
    }

    const campaign: repo.CampaignRow = {
      id: randomUUID(),
      merchant_id: ctx.merchant.id,
      env: ctx.env,
      key_id: ctx.keyId,
      service_id: service.id,
      type: input.type,
      entry,
      description: input.description.trim(),
      subject,
      filename,
      expires_on: expiry.date,
      expires_at: expiry.at,
      status: 'PENDING',
      error: null,
      payment_count: specs.length,
      created_at: now,
      updated_at: now,
    };
    const payments: repo.PaymentRow[] = specs.map((s) => ({
      id: randomUUID(),
      campaign_id: campaign.id,
      merchant_id: ctx.merchant.id,
      env: ctx.env,
      ...s,
      order_id: randomUUID(),
      open_token: randomToken(24),
      status: 'PENDING',
      error: null,
      processed: false,
      sent_at: null,
      delivered_at: null,
      delivery_provider: null,
      delivery_id: null,
      opened_at: null,
      opened_ip: null,
      opened_user_agent: null,
      paid_at: null,
      created_at: now,
      updated_at: now,
    }));
    await this.p.database.transaction(async (trx) => {
      await repo.insertCampaign(trx, campaign);
      await repo.insertPayments(trx, payments);
      // a retry whose answer was lost never sends the customers a second set of payment requests
      await IdempotencyStore.commit(trx, ctx);
      const jobs = payments.map((p) => ({ queue: MOTO_QUEUE, payload: { id: p.id }, merchantId: ctx.env === 'sandbox' ? ctx.merchant.id : null, maxAttempts: MAX_ATTEMPTS }));
      for (let i = 0; i < jobs.length; i += 1000) await this.p.jobs.enqueueMany(trx, jobs.slice(i, i + 1000));
    });
    return { detail: presentCampaign(campaign), payments: payments.map((p) => presentPayment(p, campaign, this.linkOf(p))) };
  }

  // ---- reads -------------------------------------------------------------------------------------------------

  /** The merchant's campaigns, newest first, a page at a time (`next_offset` null on the last page). */
  async list(ctx: RequestContext, page: { limit: number; offset: number }) {
    const rows = await repo.listCampaigns(this.p.database.db, ownerOf(ctx), page.limit + 1, page.offset);
    const more = rows.length > page.limit;
    return { campaigns: rows.slice(0, page.limit).map(presentCampaign), next_offset: more ? page.offset + page.limit : null };
  }

  /** The campaign, its payments (each brought up to date with its order) and progress counts. */
  async get(ctx: RequestContext, id: string) {
    const campaign = await this.#campaign(ctx, id);
    const payments = await this.#synced(ctx, campaign);
    const counts: Record<MotoPaymentStatus, number> = { PENDING: 0, SENT: 0, OPENED: 0, PAID: 0, EXPIRED: 0, FAILED: 0 };
    for (const p of payments) counts[p.status]++;
    return {
      detail: presentCampaign(campaign),
      progress: { total: payments.length, processed: payments.filter((p) => p.processed).length, ...counts },
      payments: payments.map((p) => presentPayment(p, campaign, this.linkOf(p))),
    };
  }

  /** G5: the MoTo orders of a campaign. */
  async orders(ctx: RequestContext, id: string) {
    const campaign = await this.#campaign(ctx, id);
    const payments = await this.#synced(ctx, campaign);
    const out = [];
    for (const p of payments) {
      if (!p.processed || p.status === 'FAILED') continue;
      const order = await this.deps.payments.getOrder(ctx, p.order_id).catch(() => null);
      if (order) out.push(presentMotoOrder(p, campaign, order.order));
    }
    return out;
  }

  async #campaign(ctx: RequestContext, id: string): Promise<repo.CampaignRow> {
    const c = UUID_RE.test(id) ? await repo.findCampaign(this.p.database.db, ownerOf(ctx), id.toLowerCase()) : undefined;
    if (!c) throw notFound(`The campaign ${id} was not found`);
    return c;
  }

  /** Payments whose order may have been paid or may have expired are checked against their order. */
  async #synced(ctx: RequestContext, campaign: repo.CampaignRow): Promise<repo.PaymentRow[]> {
    const payments = await repo.paymentsOf(this.p.database.db, campaign.id);
    for (const p of payments) {
      if (!p.processed || !['PENDING', 'SENT', 'OPENED'].includes(p.status)) continue;
      const r = await this.deps.payments.getOrder(ctx, p.order_id).catch(() => null);
      if (!r) continue;
      const event: MotoPaymentEvent | null = r.order.paid ? 'PAY' : r.order.status === 'EXPIRED' ? 'EXPIRE' : null;
      if (event) await this.#apply(p, event, event === 'PAY' ? { paid_at: ctx.clock.now() } : {}, ctx.clock.now());
    }
    return payments;
  }

  /** Applies a lifecycle event to a payment (row changed in place); false when it does not apply. */
  async #apply(p: repo.PaymentRow, event: MotoPaymentEvent, set: Partial<repo.PaymentRow>, now: Date): Promise<boolean> {
    const next = paymentTransition(p.status, event);
    if (!next) return false;
    const res = await this.p.database.db
      .updateTable('moto_payments')
      .set({ ...set, status: next, updated_at: now })
      .where('id', '=', p.id)
      .where('status', '=', p.status)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows ?? 0) === 0) return false;
    Object.assign(p, set, { status: next, updated_at: now });
    return true;
  }

  linkOf(p: { env: RequestContext['env']; open_token: string }): string {
    return `${this.p.config.publicUrl}/v1${p.env === 'sandbox' ? '/sandbox' : ''}/moto/open/${p.open_token}`;
  }

  // ---- certificates (G3, G4) --------------------------------------------------------------------------

  /** The active signing key, made (and its private half sealed) on first use. */
  async #signingKey(): Promise<{ id: string; publicPem: string; privatePem: string }> {
    const db = this.p.database.db;
    let row = await repo.activeCertificateKey(db);
    if (!row) {
      const pair = newKeyPair();
      const id = `ed25519-${randomUUID().slice(0, 8)}`;
      await repo.insertCertificateKey(db, { id, public_key_pem: pair.publicPem, private_key_sealed: this.p.vault.seal(pair.privatePem, `certificate-key:${id}`), active: true, created_at: this.p.clock.now() });
      row = (await repo.activeCertificateKey(db))!;
    }
    return { id: row.id, publicPem: row.public_key_pem, privatePem: this.p.vault.open(row.private_key_sealed, `certificate-key:${row.id}`).reveal() };
  }

  /** The public key certificates are verified with (`GET /certificates/public-key`). */
  async publicKey(): Promise<{ key_id: string; algorithm: 'Ed25519'; public_key: string }> {
    const k = await this.#signingKey();
    return { key_id: k.id, algorithm: 'Ed25519', public_key: k.publicPem };
  }

  /** Verifies a certificate with the key (active or older) it names. */
  async verify(pdf: Uint8Array): Promise<Verification> {
    await this.#signingKey();
    const keys = await repo.certificateKeys(this.p.database.db);
    const first = await verifyCertificate(pdf, keys[keys.length - 1].public_key_pem);
    const named = keys.find((k) => k.id === first.keyId);
    return named && named.id !== keys[keys.length - 1].id ? verifyCertificate(pdf, named.public_key_pem) : first;
  }

  /**
   * G3 (`LINK_OPENING`, SMS campaigns, once the link was opened) and G4 (`RECEIPT`, e-mail and SMS
   * campaigns, once the message was sent): the signed PDF, base64.
   */
  async certificate(ctx: RequestContext, paymentId: string, kind: 'LINK_OPENING' | 'RECEIPT'): Promise<string> {
    const db = this.p.database.db;
    const p = UUID_RE.test(paymentId) ? await repo.findPayment(db, ownerOf(ctx), paymentId.toLowerCase()) : undefined;
    if (!p) throw notFound(`The MoTo payment ${String(paymentId).slice(0, 64)} was not found`);
    const c = (await repo.campaignById(db, p.campaign_id))!;
    if (kind === 'LINK_OPENING' && c.type !== 'PHONE') throw badRequest('The opening certificate is issued for SMS (PHONE) campaigns only');
    if (kind === 'RECEIPT' && c.type === 'CUSTOM_DELIVERY') throw badRequest('The gateway sent nothing for a CUSTOM_DELIVERY campaign: there is no receipt');
    if (kind === 'LINK_OPENING' && !p.opened_at) throw conflict('The link has not been opened yet');
    if (kind === 'RECEIPT' && !p.sent_at) throw conflict('The message has not been sent yet');
    const merchant = await this.deps.merchants.findMerchant(db, c.merchant_id);
    const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
    const evidence: Evidence = {
      certificate: kind,
      issued_at: ctx.clock.now().toISOString(),
      merchant: { uuid: c.merchant_id, name: merchant?.name ?? '' },
      campaign: { uuid: c.id, type: c.type, description: c.description, created_at: iso(c.created_at)! },
      payment: { uuid: p.id, line: p.line, amount: Number(p.amount), order_uuid: p.order_id },
      destination: maskDestination(p.destination),
      channel: p.channel,
      provider: p.delivery_provider,
      provider_message_id: p.delivery_id,
      sent_at: iso(p.sent_at),
      delivered_at: iso(p.delivered_at),
      opened_at: iso(p.opened_at),
      opened_ip: p.opened_ip,
      opened_user_agent: p.opened_user_agent,
    };
    const pdf = await buildCertificate(evidence, await this.#signingKey());
    return pdf.toString('base64');
  }

  // ---- the customer opens a link ---------------------------------------------------------------------

  /**
   * Records the first opening of a link (time, IP, user agent) and returns where the customer goes: the
   * hosted payment page of the payment's order. 404 for an unknown link, 410 once it expired or failed.
   */
  async open(env: RequestContext['env'], token: string, client: { ip: string | null; userAgent: string | null; lang: string | null }): Promise<string> {
    const db = this.p.database.db;
    const p = await repo.paymentByToken(db, token);
    if (!p || p.env !== env) throw notFound('This payment link does not exist');
    const campaign = (await repo.campaignById(db, p.campaign_id))!;
    const ctx = await this.deps.merchants.contextForKey(campaign.key_id);
    const now = ctx.clock.now();
    if (p.status === 'FAILED') throw gone('This payment link could not be prepared');
    if (p.status === 'EXPIRED' || now >= campaign.expires_at) {
      await this.#apply(p, 'EXPIRE', {}, now);
      throw gone('This payment link has expired');
    }
    // the job may not have reached this payment yet: its order is created now (same uuid, so only once)
    if (!p.processed) await this.#ensureOrder(ctx, campaign, p);
    if (!p.opened_at) {
      const set = { opened_at: now, opened_ip: client.ip?.slice(0, 64) ?? null, opened_user_agent: client.userAgent?.slice(0, 500) ?? null };
      const res = await db.updateTable('moto_payments').set(set).where('id', '=', p.id).where('opened_at', 'is', null).executeTakeFirst();
      if (Number(res.numUpdatedRows ?? 0) > 0) Object.assign(p, set);
      await this.#apply(p, 'OPEN', {}, now);
    }
    const order = await this.deps.payments.getOrder(ctx, p.order_id);
    const url = new URL(order.order.urls.payment_card);
    const lang = client.lang ?? p.language;
    if (lang && /^[a-z]{2}$/i.test(lang)) url.searchParams.set('lang', lang.toLowerCase());
    if (p.card_template) url.searchParams.set('template', p.card_template);
    return url.href;
  }

  // ---- the background work of each payment -------------------------------------------------------------

  registerJobs(): void {
    this.p.jobs.register<{ id: string }>(MOTO_QUEUE, (job) => this.#process(job));
  }

  async #ensureOrder(ctx: RequestContext, campaign: repo.CampaignRow, p: repo.PaymentRow): Promise<void> {
    const expiresIn = Math.floor((campaign.expires_at.getTime() - ctx.clock.now().getTime()) / 1000);
    await this.deps.payments.create(
      ctx,
      {
        amount: Number(p.amount),
        operative: p.operative as never,
        secure: p.secure,
        description: campaign.description,
        customer_ext_id: p.customer_ext_id,
        service: campaign.service_id,
        additional: p.additional,
        url_post: p.url_post,
        url_ok: p.url_ok,
        url_ko: p.url_ko,
        template_uuid: p.card_template,
        dcc_template_uuid: p.dcc_template,
        expires_in: Math.max(MIN_EXPIRES_IN, Math.min(MAX_EXPIRES_IN, expiresIn)),
      },
      { orderId: p.order_id },
    );
  }

  async #process(job: Job<{ id: string }>): Promise<void> {
    const db = this.p.database.db;
    const p = await repo.paymentById(db, job.payload.id);
    if (!p || p.processed) return;
    const campaign = (await repo.campaignById(db, p.campaign_id))!;
    const ctx = await this.deps.merchants.contextForKey(campaign.key_id);
    const now = () => ctx.clock.now();
    await this.#campaignEvent(campaign.id, 'START', now());
    const last = job.attempts >= job.maxAttempts;
    try {
      if (p.status === 'PENDING' && (campaign.expires_at.getTime() - now().getTime()) / 1000 < MIN_EXPIRES_IN) {
        await this.#apply(p, 'EXPIRE', {}, now());
      } else if (['PENDING', 'OPENED'].includes(p.status)) {
        await this.#ensureOrder(ctx, campaign, p);
        if (campaign.type !== 'CUSTOM_DELIVERY' && p.status === 'PENDING' && p.destination) {
          const r = await this.deps.links.send(
            ctx,
            { order_uuid: p.order_id, destination: p.destination, subject: campaign.subject ?? campaign.description, language: p.language },
            { url: this.linkOf(p) },
          );
          if (!r.delivery) throw new Error(r.error ?? 'the message was not accepted');
          // the sandbox SMS provider and SMTP answer at once: accepted is delivered to the provider
          const at = now();
          await this.#apply(p, 'SEND', { sent_at: at, delivered_at: at, delivery_provider: r.provider, delivery_id: r.providerId }, at);
        }
      }
    } catch (err) {
      const message = (err as { details?: string }).details ?? (err as Error).message;
      const permanent = (err as { status?: number }).status !== undefined && (err as { status: number }).status < 500;
      if (!last && !permanent) throw err;
      await this.#apply(p, 'FAIL', { error: String(message).slice(0, 500) }, now());
    }
    await repo.updatePayment(db, p.id, { processed: true, updated_at: now() });
    const prog = await repo.progress(db, campaign.id);
    if (prog.unprocessed === 0) {
      await this.#campaignEvent(campaign.id, prog.failed === prog.total ? 'ALL_FAILED' : 'ALL_PROCESSED', now(), prog.failed === prog.total ? 'every payment failed' : null);
    }
  }

  async #campaignEvent(id: string, event: 'START' | 'ALL_PROCESSED' | 'ALL_FAILED', now: Date, error: string | null = null): Promise<void> {
    await this.p.database.transaction(async (trx) => {
      const c = await repo.campaignById(trx, id, true);
      if (!c) return;
      const next = campaignTransition(c.status, event);
      if (next) await repo.updateCampaign(trx, id, { status: next, updated_at: now, ...(error ? { error } : {}) });
    });
  }

  /** For tests and the CLI: works every due campaign job now. */
  drain(): Promise<number> {
    return this.p.jobs.drain({ queues: [MOTO_QUEUE] });
  }
}
