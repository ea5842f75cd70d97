/**
 * Pure decisions of the customer pages: which page an order shows, where the customer goes after a
 * payment, the Content-Security-Policy, the query a page keeps, and the checkout customization.
 */
import type { OrderStatus } from '../payments/index.js';

/** What a payment page shows for an order. */
export type PageView =
  | { kind: 'form' }
  | { kind: 'processing' }
  | { kind: 'pending3ds' }
  | { kind: 'paid' }
  | { kind: 'expired' }
  | { kind: 'closed' }
  | { kind: 'attempts' };

/** Failed tries after which the page stops taking new ones (card testing protection). */
export const MAX_PAGE_ATTEMPTS = 10;

/** Statuses in which the order's payment went through (the customer goes to url_ok). */
export const PAID_STATUSES: readonly OrderStatus[] = ['SUCCESS', 'PENDING_CONFIRMATION', 'PARTIALLY_REFUNDED', 'REFUNDED'];

/** The view for an order, on the merchant's clock. */
export function pageViewFor(o: { status: OrderStatus; expiresAt: Date; failedAttempts: number }, now: Date): PageView {
  const open = o.status === 'CREATED' || o.status === 'REFUSED' || o.status === 'ERROR' || o.status === 'PENDING_3DS_RESPONSE';
  if (o.status === 'EXPIRED' || (open && o.expiresAt.getTime() <= now.getTime())) return { kind: 'expired' };
  if (PAID_STATUSES.includes(o.status)) return { kind: 'paid' };
  if (o.status === 'PENDING_PROCESSOR_RESPONSE') return { kind: 'processing' };
  if (o.status === 'PENDING_3DS_RESPONSE') return { kind: 'pending3ds' };
  if (o.status === 'CREATED' || o.status === 'REFUSED' || o.status === 'ERROR') {
    return o.failedAttempts >= MAX_PAGE_ATTEMPTS ? { kind: 'attempts' } : { kind: 'form' };
  }
  return { kind: 'closed' };
}

/** HTTP status of a view (`result`: the customer arrives from the flow's last step). */
export function statusOfView(view: PageView, result: 'ok' | 'ko' | null): number {
  switch (view.kind) {
    case 'paid':
      return result === 'ok' ? 200 : 410;
    case 'expired':
    case 'closed':
    case 'attempts':
      return 410;
    default:
      return 200;
  }
}

/** Where the customer goes once a payment attempt has an answer. */
export type Destination =
  | { to: 'url'; url: string }
  | { to: 'page'; result: 'ok' | 'ko' | null }
  | { to: '3ds' };

export function destinationAfter(status: OrderStatus, urls: { ok: string | null; ko: string | null }): Destination {
  if (status === 'PENDING_3DS_RESPONSE') return { to: '3ds' };
  if (status === 'PENDING_PROCESSOR_RESPONSE') return { to: 'page', result: null };
  if (PAID_STATUSES.includes(status)) return urls.ok ? { to: 'url', url: urls.ok } : { to: 'page', result: 'ok' };
  return urls.ko ? { to: 'url', url: urls.ko } : { to: 'page', result: 'ko' };
}

/** The origin of a merchant URL (url_ok / url_ko), when it is a plain http(s) origin. */
export function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return /^https?:\/\/[A-Za-z0-9.\-:[\]]+$/.test(u.origin) ? u.origin : null;
  } catch {
    return null;
  }
}

/**
 * The policy of every page: nothing but our own inline script and style (by nonce), images only from
 * the template's logo origin, forms only to the gateway and to the redirect targets the form may end
 * on (Chromium checks form-action on redirects), framing as the merchant allows.
 */
export function contentSecurityPolicy(p: { nonce: string; imgOrigins: string[]; formTargets: string[]; frameAncestors: string; connect?: string[]; frames?: string[] }): string {
  const uniq = (xs: string[]) => [...new Set(xs)];
  return [
    "default-src 'none'",
    `script-src 'nonce-${p.nonce}'`,
    `style-src 'nonce-${p.nonce}'`,
    p.imgOrigins.length > 0 ? `img-src ${uniq(p.imgOrigins).join(' ')}` : "img-src 'none'",
    p.formTargets.length === 1 && p.formTargets[0] === "'none'" ? "form-action 'none'" : `form-action ${uniq(["'self'", ...p.formTargets]).join(' ')}`,
    `frame-ancestors ${p.frameAncestors}`,
    "base-uri 'none'",
    `connect-src ${p.connect && p.connect.length > 0 ? uniq(p.connect).join(' ') : "'none'"}`,
    "font-src 'none'",
    "object-src 'none'",
    ...(p.frames && p.frames.length > 0 ? [`frame-src ${uniq(p.frames).join(' ')}`] : []),
  ].join('; ');
}

/** WCAG relative luminance of #RRGGBB. */
export function luminance(hex: string): number {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

/** Black or white text, whichever reads better on `hex`. */
export function textOn(hex: string): '#FFFFFF' | '#111111' {
  const l = luminance(hex);
  return (1.05 / (l + 0.05)) >= ((l + 0.05) / (0.05 + 0.0059)) ? '#FFFFFF' : '#111111';
}

// ---- checkout (extra_data.checkout) -----------------------------------------------------------------

export const PAGE_METHODS = ['CARD', 'BIZUM'] as const;
export type PageMethod = (typeof PAGE_METHODS)[number];

/** Fonts the checkout may ask for, as system font stacks (the pages load no web fonts). */
const FONTS: Record<string, string> = {
  arial: 'Arial, Helvetica, sans-serif',
  helvetica: 'Helvetica, Arial, sans-serif',
  verdana: 'Verdana, Geneva, sans-serif',
  tahoma: 'Tahoma, Verdana, sans-serif',
  'trebuchet ms': '"Trebuchet MS", Helvetica, sans-serif',
  georgia: 'Georgia, serif',
  times: '"Times New Roman", Times, serif',
  'times new roman': '"Times New Roman", Times, serif',
  courier: '"Courier New", Courier, monospace',
  'courier new': '"Courier New", Courier, monospace',
  roboto: 'Roboto, system-ui, sans-serif',
  'open sans': '"Open Sans", system-ui, sans-serif',
  lato: 'Lato, system-ui, sans-serif',
  montserrat: 'Montserrat, system-ui, sans-serif',
  inter: 'Inter, system-ui, sans-serif',
  'system-ui': 'system-ui, sans-serif',
  system: 'system-ui, sans-serif',
  'sans-serif': 'sans-serif',
  serif: 'serif',
  monospace: 'monospace',
};

export interface Checkout {
  uuid: string | null;
  /** Methods the merchant allows, upper case, as given (unknown ones included). */
  methods: string[] | null;
  defaultMethod: string | null;
  theme: 'light' | 'dark';
  /** A font stack from the allowlist, or null for the default. */
  font: string | null;
  description: string | null;
  orderNumber: string | null;
}

const str = (v: unknown, max: number): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, max) : typeof v === 'number' ? String(v) : null);

/** The checkout of an order's extra_data, or null when the order has none. Unknown values fall back. */
export function parseCheckout(extraData: unknown): Checkout | null {
  if (!extraData || typeof extraData !== 'object') return null;
  const c = (extraData as Record<string, unknown>).checkout;
  if (!c || typeof c !== 'object') return null;
  const co = c as Record<string, unknown>;
  const custom = (co.customization && typeof co.customization === 'object' ? co.customization : {}) as Record<string, unknown>;
  const details = (custom.payment_details && typeof custom.payment_details === 'object' ? custom.payment_details : {}) as Record<string, unknown>;
  const methods = Array.isArray(co.payment_methods) ? co.payment_methods.filter((m): m is string => typeof m === 'string').map((m) => m.trim().toUpperCase()) : null;
  const theme = typeof custom.theme_type === 'string' && custom.theme_type.trim().toLowerCase() === 'dark' ? 'dark' : 'light';
  const fontName = typeof custom.font === 'string' ? custom.font.trim().toLowerCase().replace(/^["']|["']$/g, '') : '';
  return {
    uuid: str(co.uuid, 64),
    methods: methods && methods.length > 0 ? methods : null,
    defaultMethod: typeof co.default_payment_method === 'string' ? co.default_payment_method.trim().toUpperCase() : null,
    theme,
    font: FONTS[fontName] ?? null,
    description: str(custom.description, 500),
    orderNumber: str(details.order_number, 100),
  };
}

/** The methods a checkout offers: those the merchant allows that this order can use, card first. */
export function checkoutMethods(c: Checkout, available: readonly PageMethod[]): PageMethod[] {
  const allowed = c.methods ?? [...available];
  const aliases: Record<string, PageMethod> = { PAYMENT_CARD: 'CARD', CARD: 'CARD', CARDS: 'CARD', CREDIT_CARD: 'CARD', BIZUM: 'BIZUM' };
  const wanted = new Set(allowed.map((m) => aliases[m]).filter((m): m is PageMethod => !!m));
  return PAGE_METHODS.filter((m) => wanted.has(m) && available.includes(m));
}

