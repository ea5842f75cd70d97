/**
 * Pure rules of payment links (B2): what a destination is (an e-mail address or a mobile number), and
 * the messages, in the customer's language.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { escapeHtml, safeUrl, translate, type Language } from '../pages/index.js';

export type Destination = { channel: 'EMAIL'; address: string } | { channel: 'SMS'; number: string };

const EMAIL = /^[^\s@<>"'(),;:\\[\]]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** Phone types that cannot take a text message. */
const NOT_MOBILE = new Set(['FIXED_LINE', 'TOLL_FREE', 'PREMIUM_RATE', 'SHARED_COST', 'VOIP', 'UAN', 'VOICEMAIL', 'PAGER']);

/**
 * An e-mail address, or a mobile number (international with +, or Spanish without a prefix) in E.164.
 * Returns an error text naming the field otherwise.
 */
export function parseDestination(value: string, defaultCountry: 'ES' = 'ES'): Destination | { error: string } {
  const v = value.trim();
  if (v.includes('@')) {
    if (v.length > 254 || !EMAIL.test(v)) return { error: 'destination is not a valid e-mail address' };
    return { channel: 'EMAIL', address: v };
  }
  if (!/^[+0-9][0-9\s().-]{5,24}$/.test(v)) return { error: 'destination must be an e-mail address or a mobile phone number' };
  const p = parsePhoneNumberFromString(v, defaultCountry);
  if (!p || !p.isValid()) return { error: 'destination is not a valid phone number' };
  const type = p.getType();
  if (type && NOT_MOBILE.has(type)) return { error: 'destination is not a mobile phone number (SMS cannot reach it)' };
  return { channel: 'SMS', number: p.number };
}

/** An SMS sender id from the subject: letters, digits and spaces, at most 11 characters. */
export function smsSender(subject: string, fallback: string): string {
  const clean = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^A-Za-z0-9 ]/g, '').trim().slice(0, 11).trim();
  return clean(subject) || clean(fallback) || 'PAYGATE';
}

export interface LinkContent {
  lang: Language;
  merchant: string;
  amount: string;
  description: string | null;
  url: string;
  expires: string;
  /** #RRGGBB (validated by the templates module) and an https logo URL, or defaults. */
  buttonColor: string;
  buttonText: string;
  logoUrl: string | null;
}

export function emailText(c: LinkContent): string {
  const t = (k: Parameters<typeof translate>[1], p?: Record<string, string>) => translate(c.lang, k, p);
  return [
    t('link.greeting'),
    '',
    t('link.intro', { merchant: c.merchant, amount: c.amount }),
    c.description ? t('link.concept', { description: c.description }) : null,
    '',
    `${t('link.cta')}: ${c.url}`,
    '',
    t('link.expires', { date: c.expires }),
    '',
    t('link.ignore'),
    '',
  ]
    .filter((l) => l !== null)
    .join('\n');
}

/** The HTML e-mail: every value escaped; the button in the template's colour. */
export function emailHtml(c: LinkContent): string {
  const t = (k: Parameters<typeof translate>[1], p?: Record<string, string>) => escapeHtml(translate(c.lang, k, p));
  const url = escapeHtml(safeUrl(c.url));
  const logo = c.logoUrl ? `<p><img src="${escapeHtml(c.logoUrl)}" alt="${escapeHtml(c.merchant)}" style="max-height:48px"></p>` : '';
  return `<!doctype html><html lang="${c.lang}"><head><meta charset="utf-8"><title>${escapeHtml(c.merchant)}</title></head>
<body style="font-family:Arial,Helvetica,sans-serif;color:#101828;line-height:1.5">
${logo}<p>${t('link.greeting')}</p>
<p>${t('link.intro', { merchant: c.merchant, amount: c.amount })}</p>
${c.description ? `<p>${t('link.concept', { description: c.description })}</p>` : ''}
<p><a href="${url}" style="display:inline-block;padding:12px 22px;border-radius:8px;background:${c.buttonColor};color:${c.buttonText};font-weight:bold;text-decoration:none">${t('link.cta')}</a></p>
<p style="font-size:13px;color:#5B6576">${t('link.expires', { date: c.expires })}<br>${t('link.ignore')}</p>
<p style="font-size:12px;color:#5B6576;word-break:break-all">${url}</p>
</body></html>`;
}

export function smsText(c: LinkContent): string {
  return translate(c.lang, 'link.sms', { merchant: c.merchant, amount: c.amount, url: c.url });
}
