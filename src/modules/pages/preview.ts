/**
 * The hosted payment page as it would look with settings that are not saved yet: a template's colours
 * and logo, a checkout's theme, font and texts. Pure: the card form of a sample order, nothing stored,
 * no order behind it, no script, and a form that goes nowhere (its action is `#`, its nonce a throwaway).
 */
import { randomBytes } from 'node:crypto';
import type { Env } from '../../platform/db/schema.js';
import { DEFAULT_TEMPLATES, type PageTemplate } from '../templates/index.js';
import { formatMoney, translator, type Language } from './i18n/index.js';
import { parseCheckout } from './pages.domain.js';
import { cardPage } from './views.js';

export interface PagePreviewInput {
  merchantName: string;
  env: Env;
  lang: Language;
  /** the template's look (missing values: the built-in default) */
  template: { logoUrl: string | null; buttonColor: string | null; backgroundColor: string | null };
  /** a checkout's customization, when the preview is of a checkout */
  checkout: { theme_type?: string | null; font?: string | null; description?: string | null; order_number?: string | null; payment_methods?: string[] | null } | null;
  /** the sample order */
  amount: number;
  currency: { code: string; digits: number };
  description: string;
}

/** The HTML of the hosted payment page for a sample order with the given settings. */
export function previewPage(p: PagePreviewInput): string {
  const base = DEFAULT_TEMPLATES.PAYMENT_CARD;
  const template: PageTemplate = { ...base, logoUrl: p.template.logoUrl, buttonColor: p.template.buttonColor ?? base.buttonColor, backgroundColor: p.template.backgroundColor ?? base.backgroundColor };
  const checkout = p.checkout ? parseCheckout({ checkout: { payment_methods: p.checkout.payment_methods ?? null, customization: { theme_type: p.checkout.theme_type, font: p.checkout.font, description: p.checkout.description, payment_details: { order_number: p.checkout.order_number } } } }) : null;
  const t = translator(p.lang);
  const chrome = { lang: p.lang, t, nonce: randomBytes(16).toString('base64'), env: p.env, template, theme: checkout?.theme, font: checkout?.font, langHref: null, orderUuid: null };
  const amount = formatMoney(p.lang, p.amount, p.currency);
  const summary = { merchant: p.merchantName, amount, description: checkout?.description ?? p.description, orderNumber: checkout?.orderNumber ?? null };
  const page = cardPage(chrome, { summary, action: '#', formNonce: 'preview', today: '2000-01', values: { holder: '', expiry: '' }, errors: {}, notice: null, alternatives: [], wallets: null });
  // a picture of the page: its scripts are left out (the frame showing it runs none)
  return page.replace(/<script\b[^>]*>[\s\S]*?<\/script>\n?/g, '');
}
