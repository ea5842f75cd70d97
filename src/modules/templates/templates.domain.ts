/**
 * Pure rules of page templates and page settings: what a template may hold, the built-in defaults, and
 * the frame-ancestors list. Everything a merchant stores here ends up in a customer's page, so the
 * rules are strict allowlists: colours are `#RRGGBB`, the logo is an https URL without characters that
 * mean anything in HTML or CSS, and frame-ancestors entries are plain origins.
 */

export const TEMPLATE_TYPES = ['PAYMENT_CARD', 'DCC'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

/** A template as the pages use it (a merchant's, or the built-in default). */
export interface PageTemplate {
  id: string | null;
  type: TemplateType;
  logoUrl: string | null;
  buttonColor: string;
  backgroundColor: string;
}

/** The built-in default of each type (used when the order names none and the merchant has no default). */
export const DEFAULT_TEMPLATES: Record<TemplateType, PageTemplate> = {
  PAYMENT_CARD: { id: null, type: 'PAYMENT_CARD', logoUrl: null, buttonColor: '#1F5FBF', backgroundColor: '#F3F5F8' },
  DCC: { id: null, type: 'DCC', logoUrl: null, buttonColor: '#1F5FBF', backgroundColor: '#F3F5F8' },
};

export type Checked<T> = { ok: T } | { error: string };

const COLOUR = /^#[0-9A-Fa-f]{6}$/;

/** `#RRGGBB` only (upper-cased), so a colour can go into a style sheet as it is. */
export function checkColour(v: unknown, field: string): Checked<string> {
  if (typeof v !== 'string' || !COLOUR.test(v)) return { error: `${field} must be a colour #RRGGBB` };
  return { ok: v.toUpperCase() };
}

/**
 * A logo URL: https, a host, no credentials, at most 2000 characters, and none of the characters that
 * could end an HTML attribute or a CSS token (quotes, angle brackets, backslash, whitespace). SVG and
 * data: URLs are not accepted as such; the page shows the logo with <img>, which never runs script.
 */
export function checkLogoUrl(v: unknown, field = 'logo_url'): Checked<string> {
  if (typeof v !== 'string' || v.length === 0 || v.length > 2000) return { error: `${field} must be an https URL of at most 2000 characters` };
  if (/[\s"'<>\\`(){}]/.test(v) || /[\u0000-\u001f\u007f]/.test(v)) return { error: `${field} contains characters a URL must not have (quotes, brackets, spaces)` };
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return { error: `${field} must be an https URL` };
  }
  if (u.protocol !== 'https:') return { error: `${field} must be an https URL` };
  if (!u.hostname) return { error: `${field} must name a host` };
  if (u.username || u.password) return { error: `${field} must not carry credentials` };
  return { ok: u.href };
}

/** The origin a logo is loaded from, for the page's Content-Security-Policy img-src. */
export function logoOrigin(url: string): string {
  return new URL(url).origin;
}

/**
 * A `frame-ancestors` entry: `'self'` or an http(s) origin, optionally with a `*.` wildcard for
 * subdomains and a port. Nothing else (no paths, spaces, quotes or semicolons) can reach the header.
 */
const ANCESTOR = /^(?:'self'|https?:\/\/(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::[0-9]{1,5})?)$/;

export const FRAME_ANCESTORS_MAX = 20;

export function checkFrameAncestors(v: unknown): Checked<string[] | null> {
  if (v === null) return { ok: null };
  if (!Array.isArray(v)) return { error: 'frame_ancestors must be an array of origins or null' };
  if (v.length > FRAME_ANCESTORS_MAX) return { error: `frame_ancestors may list at most ${FRAME_ANCESTORS_MAX} origins` };
  const out: string[] = [];
  for (const [i, e] of v.entries()) {
    if (typeof e !== 'string' || !ANCESTOR.test(e)) {
      return { error: `frame_ancestors[${i}] must be 'self' or an origin like https://shop.example.com (scheme, host, optional port)` };
    }
    const norm = e === "'self'" ? e : e.toLowerCase();
    if (!out.includes(norm)) out.push(norm);
  }
  return { ok: out };
}

/** The CSP frame-ancestors value for a merchant's setting: any origin by default (api.md B6). */
export function frameAncestorsDirective(list: string[] | null): string {
  if (list === null) return '*';
  if (list.length === 0) return "'none'";
  return list.join(' ');
}

/** Template names: 1 to 100 characters after trimming. */
export function checkName(v: unknown): Checked<string> {
  if (typeof v !== 'string') return { error: 'name must be a string' };
  const n = v.trim();
  if (n.length === 0 || n.length > 100) return { error: 'name must be 1 to 100 characters' };
  return { ok: n };
}

/** The type of a template, accepting the spellings `payment-card` and `dcc`. */
export function parseTemplateType(v: unknown): TemplateType | null {
  if (typeof v !== 'string') return null;
  const t = v.trim().toUpperCase().replace(/-/g, '_');
  return (TEMPLATE_TYPES as readonly string[]).includes(t) ? (t as TemplateType) : null;
}
