/**
 * HTML built from tagged templates that escape every interpolated value, so text from an order, a
 * merchant or a template can never become markup. Only values already wrapped as `Html` (built by this
 * tag, or by `trusted()` for constants of our own) are inserted as they are.
 */

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes text for HTML content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"'`]/g, (c) => ESCAPES[c]);
}

type Part = Html | string | number | boolean | null | undefined | Part[];

function render(v: Part): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(v);
}

/** `html\`<p>${text}</p>\``: every value is escaped unless it is Html. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** Marks a constant of our own (CSS, the page script) as HTML. Never for outside data. */
export function trusted(value: string): Html {
  return new Html(value);
}

/** JSON inside a <script type="application/json"> block: `<` and friends escaped so it cannot end the block. */
export function jsonForScript(value: unknown): Html {
  return new Html(JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029'));
}

/** A URL for href/action: only http(s) or our own paths; anything else becomes '#'. */
export function safeUrl(url: string): string {
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : '#';
  } catch {
    return '#';
  }
}
