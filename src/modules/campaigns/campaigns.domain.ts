/**
 * Pure rules of MoTo campaigns: the lifecycles of a campaign and of its payments (one transition table
 * each), what a campaign row is (CSV or JSON), and when its links expire.
 */
import { AMOUNT_MAX } from '../../platform/http/schemas.js';
import { csvAmount, csvBool, csvUrl, type LineError } from '../../platform/csv/csv.js';
import { UUID_RE } from '../../platform/ids.js';
import { zonedTimeToUtc } from '../../platform/time/format.js';
import { parseDestination } from '../links/index.js';

// ---- lifecycles -----------------------------------------------------------------------------------------

export const CAMPAIGN_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export type CampaignEvent = 'START' | 'ALL_PROCESSED' | 'ALL_FAILED';

const CAMPAIGN_TABLE: Record<CampaignStatus, Partial<Record<CampaignEvent, CampaignStatus>>> = {
  PENDING: { START: 'PROCESSING', ALL_PROCESSED: 'COMPLETED', ALL_FAILED: 'FAILED' },
  PROCESSING: { ALL_PROCESSED: 'COMPLETED', ALL_FAILED: 'FAILED' },
  COMPLETED: {},
  FAILED: {},
};

/** The next campaign status, or null when the event does not apply in `from`. */
export function campaignTransition(from: CampaignStatus, event: CampaignEvent): CampaignStatus | null {
  return CAMPAIGN_TABLE[from][event] ?? null;
}

export const PAYMENT_STATUSES = ['PENDING', 'SENT', 'OPENED', 'PAID', 'EXPIRED', 'FAILED'] as const;
export type MotoPaymentStatus = (typeof PAYMENT_STATUSES)[number];
/**
 * SEND: the message left (provider accepted it); OPEN: the customer opened the link; PAY: its order was
 * paid; EXPIRE: the links' date passed unpaid; FAIL: the order could not be created or the message not
 * sent after every retry.
 */
export type MotoPaymentEvent = 'SEND' | 'OPEN' | 'PAY' | 'EXPIRE' | 'FAIL';

const PAYMENT_TABLE: Record<MotoPaymentStatus, Partial<Record<MotoPaymentEvent, MotoPaymentStatus>>> = {
  // CUSTOM_DELIVERY payments go from PENDING straight to OPENED (the merchant delivered the link)
  PENDING: { SEND: 'SENT', OPEN: 'OPENED', PAY: 'PAID', EXPIRE: 'EXPIRED', FAIL: 'FAILED' },
  SENT: { OPEN: 'OPENED', PAY: 'PAID', EXPIRE: 'EXPIRED' },
  OPENED: { PAY: 'PAID', EXPIRE: 'EXPIRED' },
  PAID: {},
  EXPIRED: {},
  FAILED: {},
};

export function paymentTransition(from: MotoPaymentStatus, event: MotoPaymentEvent): MotoPaymentStatus | null {
  return PAYMENT_TABLE[from][event] ?? null;
}

/** `moToPaymentStatus` of a MoTo order. */
export function motoOrderStatus(paid: boolean): 'PENDING' | 'COMPLETED' {
  return paid ? 'COMPLETED' : 'PENDING';
}

// ---- campaigns ---------------------------------------------------------------------------------------------

export const CAMPAIGN_TYPES = ['PHONE', 'MAIL', 'CUSTOM_DELIVERY'] as const;
export type CampaignType = (typeof CAMPAIGN_TYPES)[number];

/** Operatives a customer pays through a link. */
export const LINK_OPERATIVES = ['AUTHORIZATION', 'DEFERRED', 'PARTIAL_AUTHORIZATION'] as const;

export const CSV_REQUIRED = ['AMOUNT'] as const;
export const CSV_OPTIONAL = ['OPERATIVE', 'DESTINATION', 'CUSTOMER_EXT_ID', 'ADDITIONAL', 'SECURE', 'URL_POST', 'URL_OK', 'URL_KO', 'CARD_TEMPLATE', 'MOTO_TEMPLATE', 'DCC_TEMPLATE', 'LANGUAGE'] as const;

/** A campaign payment as validated, ready to store. */
export interface PaymentSpec {
  line: number;
  amount: number;
  operative: string;
  secure: boolean;
  destination: string | null;
  channel: 'EMAIL' | 'SMS' | null;
  customer_ext_id: string | null;
  additional: string | null;
  url_post: string | null;
  url_ok: string | null;
  url_ko: string | null;
  card_template: string | null;
  moto_template: string | null;
  dcc_template: string | null;
  language: string | null;
}

const LANGUAGES = ['ES', 'EN', 'CA', 'EU', 'GL', 'PT', 'FR', 'DE', 'IT', 'NL', 'PL', 'RO', 'SV', 'DA'];

/**
 * Validates one payment (a CSV row as upper-case column → text, or a JSON payment mapped to the same
 * names). Returns the spec or every problem of the row.
 */
export function validatePayment(type: CampaignType, line: number, v: Record<string, string | undefined>): PaymentSpec | LineError[] {
  const errors: string[] = [];
  const amount = csvAmount(v.AMOUNT, AMOUNT_MAX);
  if (amount === null) errors.push('AMOUNT is required');
  else if (amount === 'invalid') errors.push(`AMOUNT must be a whole number of minor units from 1 to ${AMOUNT_MAX}`);
  const operative = (v.OPERATIVE ?? '').trim().toUpperCase() || 'AUTHORIZATION';
  if (!(LINK_OPERATIVES as readonly string[]).includes(operative)) errors.push(`OPERATIVE must be one of ${LINK_OPERATIVES.join(', ')}`);
  const secure = csvBool(v.SECURE, false);
  if (secure === 'invalid') errors.push('SECURE must be true or false');
  const rawDest = (v.DESTINATION ?? '').trim();
  let destination: string | null = null;
  let channel: 'EMAIL' | 'SMS' | null = null;
  if (rawDest === '') {
    if (type !== 'CUSTOM_DELIVERY') errors.push(`DESTINATION is required in a ${type} campaign`);
  } else {
    const d = parseDestination(rawDest);
    if ('error' in d) {
      if (type !== 'CUSTOM_DELIVERY') errors.push(`DESTINATION: ${d.error}`);
      else destination = rawDest.slice(0, 254);
    } else if (type === 'PHONE' && d.channel !== 'SMS') errors.push('DESTINATION must be a mobile phone number in a PHONE campaign');
    else if (type === 'MAIL' && d.channel !== 'EMAIL') errors.push('DESTINATION must be an e-mail address in a MAIL campaign');
    else {
      destination = d.channel === 'SMS' ? d.number : d.address;
      channel = type === 'CUSTOM_DELIVERY' ? null : d.channel;
    }
  }
  const text = (name: string, max: number): string | null => {
    const t = (v[name] ?? '').trim();
    if (t === '') return null;
    if (t.length > max) errors.push(`${name} is longer than ${max} characters`);
    return t;
  };
  const customer = text('CUSTOMER_EXT_ID', 100);
  const additional = text('ADDITIONAL', 500);
  const urls: Record<string, string | null> = {};
  for (const name of ['URL_POST', 'URL_OK', 'URL_KO']) {
    const u = csvUrl(v[name]);
    if (u === 'invalid') errors.push(`${name} must be an absolute http or https URL of at most 500 characters`);
    urls[name] = u === 'invalid' ? null : u;
  }
  const templates: Record<string, string | null> = {};
  for (const name of ['CARD_TEMPLATE', 'MOTO_TEMPLATE', 'DCC_TEMPLATE']) {
    const t = (v[name] ?? '').trim();
    if (t !== '' && !UUID_RE.test(t)) errors.push(`${name} must be a template uuid`);
    templates[name] = t === '' ? null : t.toLowerCase();
  }
  const language = (v.LANGUAGE ?? '').trim().toUpperCase() || null;
  if (language && !LANGUAGES.includes(language)) errors.push(`LANGUAGE must be one of ${LANGUAGES.join(', ')}`);
  if (errors.length > 0) return errors.map((msg) => ({ line, msg }));
  return {
    line,
    amount: amount as number,
    operative,
    secure: secure as boolean,
    destination,
    channel,
    customer_ext_id: customer,
    additional,
    url_post: urls.URL_POST,
    url_ok: urls.URL_OK,
    url_ko: urls.URL_KO,
    card_template: templates.CARD_TEMPLATE,
    moto_template: templates.MOTO_TEMPLATE,
    dcc_template: templates.DCC_TEMPLATE,
    language,
  };
}

/**
 * The instant a campaign's links expire: 00:00:00 of `expiresAt` (`YYYY-MM-DD`, or a date-time whose
 * date part is used) in the merchant's timezone. Null when it is not a date.
 */
export function campaignExpiry(expiresAt: string, tz: string): { date: string; at: Date } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T ])/.exec(expiresAt.trim());
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(y, mo - 1, d));
  if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== mo - 1 || probe.getUTCDate() !== d) return null;
  return { date: `${m[1]}-${m[2]}-${m[3]}`, at: zonedTimeToUtc(y, mo, d, 0, 0, tz) };
}

/** Masks a destination for certificates and logs: `l***@example.com`, `+3461****78`. */
export function maskDestination(d: string | null): string | null {
  if (!d) return null;
  const at = d.indexOf('@');
  if (at > 0) return `${d[0]}***${d.slice(at)}`;
  if (d.length <= 6) return '*'.repeat(d.length);
  return `${d.slice(0, 5)}${'*'.repeat(d.length - 7)}${d.slice(-2)}`;
}
