/**
 * The page's script and style sheet, built once at start. The script is card-rules.mjs (the rules the
 * server also runs) followed by client/page.js, in one function scope; it is inlined with a per-response
 * nonce, so the page needs no request for it and no script from anywhere else can run.
 */
import fs from 'node:fs';

function read(name: string): string {
  return fs.readFileSync(new URL(`./client/${name}`, import.meta.url), 'utf8');
}

/** card-rules.mjs without its `export` keywords (the file promises they only start declarations). */
export function rulesForBrowser(source: string): string {
  const stripped = source.replace(/^export (?=(?:var|function|const|let) )/gm, '');
  if (/^\s*(?:export|import)\b/m.test(stripped)) throw new Error('card-rules.mjs must have no imports and only `export var|function` at line starts');
  return stripped;
}

export const PAGE_SCRIPT: string = `(function(){'use strict';\n${rulesForBrowser(read('card-rules.mjs'))}\n${read('page.js')}\n})();`;

/** The embedded card form's script (inside the gateway's iframe): the page's script, then card-form.js. */
export const CARD_FORM_SCRIPT: string = `(function(){'use strict';\n${rulesForBrowser(read('card-rules.mjs'))}\n${read('page.js')}\n${read('card-form.js')}\n})();`;

/** The loader merchant pages include (`/js/v1-iframe.js`), for a gateway at `publicUrl`. */
export function widgetScript(publicUrl: string): string {
  return read('widget.js').split('__PAYGATE_PUBLIC_URL__').join(publicUrl.replace(/['\\\n\r<]/g, ''));
}

/** Extra style of the embedded card form: no panel around it, the merchant's page is the frame. */
export const CARD_FORM_CSS = `
body{padding:2px;min-height:0;background:transparent;display:block}
.frame{max-width:520px}
.frame .sandbox{border-radius:8px;border:1px solid #F2DE9E;margin-bottom:10px}
.frame .note{display:flex;gap:6px;color:var(--muted);font-size:12px;margin:2px 0 0}
.frame .note svg{flex:none;margin-top:1px}
form[aria-busy=true] input{opacity:.6}
`;

/*
 * The brand logos: once a brand is recognised every logo fades (0,3,1) and the recognised one is
 * shown in full by a rule at least as specific, declared after it (`svg.b-<brand>`: 0,3,1).
 */
export const BASE_CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;min-height:100vh;background:var(--bg);color:var(--text);font:16px/1.45 var(--font);display:flex;justify-content:center;align-items:flex-start;padding:24px 12px}
.panel{width:100%;max-width:440px;background:var(--panel);border-radius:14px;box-shadow:0 1px 2px rgba(16,24,40,.06),0 8px 24px rgba(16,24,40,.08);overflow:hidden}
.sandbox{background:#FFF4D6;color:#6B4E00;font-size:13px;padding:7px 20px;border-bottom:1px solid #F2DE9E}
.head{display:flex;justify-content:space-between;align-items:center;gap:16px;padding:20px 20px 16px;border-bottom:1px solid var(--line)}
.merchant{min-width:0}
.merchant .name{font-weight:600;font-size:17px;overflow-wrap:anywhere}
.merchant img{display:block;max-height:40px;max-width:180px}
.merchant .desc{color:var(--muted);font-size:14px;margin-top:2px;overflow-wrap:anywhere}
.amount{text-align:right;white-space:nowrap}
.amount .label{display:block;color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.amount strong{font-size:22px}
.content{padding:20px}
h1{font-size:19px;margin:0 0 14px}
p{margin:0 0 14px}
.field{margin-bottom:14px}
.row{display:flex;gap:12px}
.row .field{flex:1}
label{display:block;font-size:14px;font-weight:600;margin-bottom:5px}
.hint{display:block;color:var(--muted);font-size:12px;margin-top:4px}
.input{position:relative}
input{width:100%;height:46px;padding:0 12px;font:inherit;color:var(--text);background:var(--input);border:1px solid var(--border);border-radius:9px;outline:none}
input:focus{border-color:var(--accent);box-shadow:0 0 0 3px var(--ring)}
.invalid input{border-color:#D92D20}
.invalid input:focus{box-shadow:0 0 0 3px rgba(217,45,32,.2)}
.err{color:#D92D20;font-size:13px;margin:5px 0 0;min-height:0}
.err:empty{display:none}
.form-err{margin:0 0 12px}
.brands{display:flex;gap:6px;margin:0 0 6px;flex-wrap:wrap}
.brands svg{display:block;width:38px;height:24px;transition:opacity .15s}
.brands .extra{display:none}
.brands[data-brand]:not([data-brand=""]) svg{opacity:.25}
.brands[data-brand=visa] svg.b-visa,.brands[data-brand=mastercard] svg.b-mastercard,.brands[data-brand=amex] svg.b-amex,.brands[data-brand=maestro] svg.b-maestro,.brands[data-brand=diners] svg.b-diners,.brands[data-brand=discover] svg.b-discover,.brands[data-brand=jcb] svg.b-jcb,.brands[data-brand=unionpay] svg.b-unionpay,.brands[data-brand=mir] svg.b-mir{opacity:1;display:block}
button,.button{display:flex;align-items:center;justify-content:center;width:100%;min-height:48px;margin-top:6px;padding:10px 16px;font:inherit;font-weight:700;font-size:16px;color:var(--accent-text);background:var(--accent);border:0;border-radius:10px;cursor:pointer;text-decoration:none;text-align:center}
button:hover,.button:hover{filter:brightness(.95)}
button:focus-visible,.button:focus-visible{outline:3px solid var(--ring);outline-offset:2px}
button[aria-busy=true]{opacity:.75;cursor:progress}
.button.secondary,button.secondary{background:transparent;color:var(--text);border:1px solid var(--border)}
.notice{border-radius:9px;padding:10px 12px;margin:0 0 16px;font-size:14px}
.notice.bad{background:#FEF3F2;color:#912018;border:1px solid #FECDCA}
.notice.good{background:#ECFDF3;color:#05603A;border:1px solid #ABEFC6}
.status{text-align:center;padding:12px 0 4px}
.status .icon{width:56px;height:56px;margin:0 auto 12px;display:block}
.methods{display:grid;gap:10px}
.methods.alt{margin-top:14px}
.method{display:flex;align-items:center;justify-content:space-between;gap:12px;padding:14px 16px;border:1px solid var(--border);border-radius:10px;color:var(--text);text-decoration:none;font-weight:600;background:var(--input)}
.method:hover{border-color:var(--accent)}
.method.suggested{border:2px solid var(--accent)}
.method .tag{font-size:12px;font-weight:600;color:var(--accent-text);background:var(--accent);border-radius:99px;padding:2px 8px}
.foot{padding:14px 20px 18px;border-top:1px solid var(--line);color:var(--muted);font-size:12px}
.foot .secure{display:flex;gap:6px;align-items:flex-start;margin-bottom:10px}
.foot .secure svg{flex:none;margin-top:1px}
.langs{display:flex;flex-wrap:wrap;gap:4px 10px}
.langs a{color:var(--muted);text-decoration:none}
.langs a[aria-current=true]{color:var(--text);font-weight:700}
.acs .bank{display:flex;align-items:center;gap:10px;font-weight:700;margin-bottom:14px}
.acs .actions{display:grid;gap:10px;margin-top:16px}
.acs dl{display:grid;grid-template-columns:auto 1fr;gap:6px 14px;margin:0 0 10px;font-size:14px}
.acs dt{color:var(--muted)}
.acs dd{margin:0;font-weight:600}
@media (max-width:380px){.head{flex-direction:column;align-items:flex-start}.amount{text-align:left}}
.voucher{display:grid;grid-template-columns:auto 1fr;gap:8px 14px;margin:0 0 12px}.voucher dt{color:var(--muted)}.voucher dd{margin:0;font-weight:600}.voucher code{font-size:15px;letter-spacing:.02em}.code{margin:14px 0;text-align:center}.code svg{max-width:100%;background:#fff}.code figcaption{margin-top:6px}.wrap{word-break:break-all;font-size:12px}
.dcc-options{display:grid;gap:10px;margin:4px 0 16px}.dcc-option{flex-direction:column;align-items:flex-start;gap:2px;text-align:left;margin:0;background:var(--input);color:var(--text);border:2px solid var(--border);font-weight:400}.dcc-option:hover{border-color:var(--accent);filter:none}.dcc-option .pay{font-weight:700;font-size:18px}.dcc-option .what{font-size:13px;color:var(--muted)}.dcc-terms{display:grid;grid-template-columns:auto 1fr;gap:6px 14px;margin:0 0 12px;font-size:14px}.dcc-terms dt{color:var(--muted)}.dcc-terms dd{margin:0;font-weight:600}.dcc .note{font-size:13px;color:var(--muted)}
`;

/** The colours and font of one page (all values already validated: #RRGGBB and allowlisted fonts). */
export function themeCss(v: { accent: string; accentText: string; bg: string; dark: boolean; font: string | null }): string {
  const font = v.font ?? 'system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif';
  const palette = v.dark
    ? '--panel:#1D2127;--text:#E8EAED;--muted:#A4ACB9;--line:#2E343C;--input:#262B32;--border:#3C434D;'
    : '--panel:#FFFFFF;--text:#101828;--muted:#5B6576;--line:#EAECF0;--input:#FFFFFF;--border:#CFD6E0;';
  return `:root{--accent:${v.accent};--accent-text:${v.accentText};--ring:${v.accent}40;--bg:${v.bg};--font:${font};${palette}}`;
}
