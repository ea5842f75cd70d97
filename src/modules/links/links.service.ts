/**
 * B2: sends the payment link of an order by e-mail (SMTP through the platform mailer) or SMS (an
 * SmsProvider), in the customer's language, with the order's (or the given) template. An order that
 * can no longer be paid is 410; another merchant's or unknown order 404.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, gone, unavailable } from '../../platform/errors/errors.js';
import type { RequestContext } from '../../platform/http/types.js';
import type { Platform } from '../../platform/index.js';
import { currencyByNumber } from '../../platform/money/currency.js';
import type { MerchantsService } from '../merchants/index.js';
import { DEFAULT_LANGUAGE, formatDateTime, formatMoney, parseLanguage, textOn, type Language } from '../pages/index.js';
import type { PaymentsService } from '../payments/index.js';
import { DEFAULT_TEMPLATES, type TemplatesService } from '../templates/index.js';
import { emailHtml, emailText, parseDestination, smsSender, smsText, type LinkContent } from './links.domain.js';
import * as repo from './links.repo.js';
import type { SmsProvider } from './sms.js';
import { UUID_RE as UUID } from '../../platform/ids.js';

export interface SendLinkInput {
  order_uuid: string;
  destination: string;
  subject: string;
  template_uuid?: string | null;
  language?: string | null;
}

const PAYABLE = new Set(['CREATED', 'REFUSED', 'ERROR']);

export class LinksService {
  constructor(
    private readonly p: Platform,
    private readonly deps: { payments: PaymentsService; merchants: MerchantsService; templates: TemplatesService; sms: SmsProvider },
  ) {}

  get sms(): SmsProvider {
    return this.deps.sms;
  }

  /**
   * `opts.url`: the link the message carries instead of the order's payment page (MoTo campaigns send a
   * link that records the opening first, then shows the page).
   */
  async send(ctx: RequestContext, input: SendLinkInput, opts: { url?: string } = {}): Promise<{ delivery: boolean; channel: 'EMAIL' | 'SMS'; provider: string; providerId: string | null; error: string | null }> {
    const dest = parseDestination(input.destination);
    if ('error' in dest) throw badRequest(dest.error);
    const subject = input.subject.trim();
    if (subject === '') throw badRequest('subject must not be empty');
    let lang: Language = DEFAULT_LANGUAGE;
    if (input.language !== undefined && input.language !== null && input.language !== '') {
      const l = parseLanguage(input.language);
      if (!l) throw badRequest('language must be one of: ES, EN, CA, EU, GL, PT, FR, DE, IT, NL, PL, RO, SV, DA');
      lang = l;
    }

    // 404 for an unknown or foreign order; the read also expires a due order on the spot
    const read = await this.deps.payments.getOrder(ctx, input.order_uuid);
    const order = read.order;
    if (!PAYABLE.has(order.status)) throw gone(`The order is ${order.status}: it can no longer be paid`);
    const found = await this.deps.payments.orderByToken(order.token!);
    if (!found) throw gone('The order can no longer be paid');
    const row = found.row;
    if (row.operative === 'PAYOUT' || row.operative === 'TRANSFER') throw badRequest(`A ${row.operative} order is not paid by the customer`);

    let templateId: string | null = null;
    if (input.template_uuid) {
      const ok = UUID.test(input.template_uuid) && (await this.deps.templates.forPage({ merchantId: ctx.merchant.id, env: ctx.env }, 'PAYMENT_CARD', input.template_uuid)).id === input.template_uuid.toLowerCase();
      if (!ok) throw badRequest(`template_uuid ${input.template_uuid} is not a payment-card template of this merchant`);
      templateId = input.template_uuid.toLowerCase();
    }
    const template = templateId
      ? await this.deps.templates.forPage({ merchantId: ctx.merchant.id, env: ctx.env }, 'PAYMENT_CARD', templateId)
      : await this.deps.templates.forPage({ merchantId: ctx.merchant.id, env: ctx.env }, 'PAYMENT_CARD', row.template_uuid);

    const merchant = await this.deps.merchants.findMerchant(this.p.database.db, row.merchant_id);
    const currency = currencyByNumber(row.currency_number) ?? { code: row.currency, number: row.currency_number, digits: 2 };
    const url = new URL(opts.url ?? order.urls.payment_card);
    url.searchParams.set('lang', lang);
    if (templateId) url.searchParams.set('template', templateId);
    const accent = template.buttonColor ?? DEFAULT_TEMPLATES.PAYMENT_CARD.buttonColor;
    const content: LinkContent = {
      lang,
      merchant: merchant?.name ?? '',
      amount: formatMoney(lang, Number(row.amount), currency),
      description: row.description || null,
      url: url.href,
      // the order's expiry is on the merchant's clock; shown in the merchant's timezone
      expires: formatDateTime(lang, new Date(row.expires_at), row.m_timezone),
      buttonColor: accent,
      buttonText: textOn(accent),
      logoUrl: template.logoUrl,
    };

    let delivered = false;
    let provider: string;
    let providerId: string | null = null;
    let error: string | null = null;
    let destination: string;
    if (dest.channel === 'EMAIL') {
      destination = dest.address;
      provider = 'smtp';
      if (!this.p.mailer.configured) throw unavailable('E-mail delivery is not configured on this gateway (PAYGATE_SMTP_URL)');
      try {
        await this.p.mailer.sendNow({ to: dest.address, subject, text: emailText(content), html: emailHtml(content) });
        delivered = true;
      } catch (err) {
        error = (err as Error).message.slice(0, 500);
        this.p.logger.warn({ order: row.id, channel: 'EMAIL', err: error }, 'payment link e-mail not delivered');
      }
    } else {
      destination = dest.number;
      const sms = this.deps.sms;
      provider = sms.name;
      if (ctx.env === 'production' && !sms.live) {
        error = `the SMS provider "${sms.name}" does not reach phones; configure a live provider for production`;
      } else {
        const r = await sms.send({ to: dest.number, sender: smsSender(subject, content.merchant), text: smsText(content) }).catch((err: Error) => ({ delivered: false, id: null, error: err.message }));
        delivered = r.delivered;
        providerId = r.id ?? null;
        error = r.error ?? null;
      }
      if (!delivered) this.p.logger.warn({ order: row.id, channel: 'SMS', err: error }, 'payment link SMS not delivered');
    }

    await repo.insertLink(this.p.database.db, {
      id: randomUUID(),
      merchant_id: ctx.merchant.id,
      env: ctx.env,
      order_id: row.id,
      channel: dest.channel,
      destination,
      language: lang,
      subject,
      template_id: templateId,
      delivered,
      provider,
      provider_id: providerId,
      error,
      created_at: ctx.clock.now(),
    });
    return { delivery: delivered, channel: dest.channel, provider, providerId, error };
  }
}
