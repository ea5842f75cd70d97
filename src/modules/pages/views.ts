/**
 * The HTML of every customer page. Pure: each view takes what it shows and returns the document; all
 * outside text goes through the escaping `html` tag. One layout: merchant and amount on top, the
 * page's content, then the security note and the language menu.
 */
import type { Env } from '../../platform/db/schema.js';
import type { PageTemplate } from '../templates/index.js';
import { BASE_CSS, CARD_FORM_CSS, CARD_FORM_SCRIPT, PAGE_SCRIPT, themeCss } from './assets.js';
import type { CardFormErrors } from './card.domain.js';
import { Html, html, jsonForScript, safeUrl, trusted } from './html.js';
import { CATALOGUES, LANGUAGES, type Language, type MessageKey, type T } from './i18n/index.js';
import { textOn } from './pages.domain.js';

export interface PageChrome {
  lang: Language;
  t: T;
  /** CSP nonce of this response. */
  nonce: string;
  env: Env;
  template: PageTemplate;
  theme?: 'light' | 'dark';
  font?: string | null;
  /** The URL of this page in another language (the language menu); null: no menu. */
  langHref: ((lang: Language) => string) | null;
  /** The order of the page, named in the messages a framed page posts to its parent (docs/pages.md). */
  orderUuid?: string | null;
}

/** Where links that leave the flow (to url_ok, url_ko) open: the top window unless the merchant chose. */
export type LeaveTarget = 'top' | 'parent' | 'self';

/** The `target` attribute of a link that leaves the flow. */
export function targetAttr(target: LeaveTarget): Html {
  return target === 'self' ? trusted('') : trusted(` target="_${target}"`);
}

export interface OrderSummary {
  merchant: string;
  amount: string;
  description: string | null;
  orderNumber?: string | null;
}

const LOCK = trusted(
  '<svg width="14" height="14" viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" d="M12 2a5 5 0 0 0-5 5v3H6a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-8a2 2 0 0 0-2-2h-1V7a5 5 0 0 0-5-5zm-3 8V7a3 3 0 0 1 6 0v3H9z"/></svg>',
);

const ICONS = {
  ok: trusted('<svg class="icon" viewBox="0 0 56 56" aria-hidden="true"><circle cx="28" cy="28" r="28" fill="#ECFDF3"/><path d="M17 29l7 7 15-16" fill="none" stroke="#079455" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/></svg>'),
  bad: trusted('<svg class="icon" viewBox="0 0 56 56" aria-hidden="true"><circle cx="28" cy="28" r="28" fill="#FEF3F2"/><path d="M20 20l16 16M36 20L20 36" stroke="#D92D20" stroke-width="4" stroke-linecap="round"/></svg>'),
  wait: trusted('<svg class="icon" viewBox="0 0 56 56" aria-hidden="true"><circle cx="28" cy="28" r="28" fill="#EFF4FF"/><path d="M28 16v12l8 5" fill="none" stroke="#1F5FBF" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/></svg>'),
  info: trusted('<svg class="icon" viewBox="0 0 56 56" aria-hidden="true"><circle cx="28" cy="28" r="28" fill="#F2F4F7"/><path d="M28 25v13" stroke="#475467" stroke-width="4" stroke-linecap="round"/><circle cx="28" cy="18" r="2.6" fill="#475467"/></svg>'),
};

/** Card brand marks (simple badges drawn here; no third-party images). */
const BRAND_MARKS: Array<{ id: string; extra: boolean; svg: string }> = [
  { id: 'visa', extra: false, svg: '<rect width="38" height="24" rx="4" fill="#1A1F71"/><text x="19" y="16.5" text-anchor="middle" font-family="Arial,sans-serif" font-size="11" font-style="italic" font-weight="700" fill="#fff">VISA</text>' },
  { id: 'mastercard', extra: false, svg: '<rect width="38" height="24" rx="4" fill="#fff" stroke="#D0D5DD"/><circle cx="15.5" cy="12" r="7" fill="#EB001B"/><circle cx="22.5" cy="12" r="7" fill="#F79E1B" fill-opacity=".9"/>' },
  { id: 'amex', extra: false, svg: '<rect width="38" height="24" rx="4" fill="#2E77BC"/><text x="19" y="16" text-anchor="middle" font-family="Arial,sans-serif" font-size="9.5" font-weight="700" fill="#fff">AMEX</text>' },
  { id: 'maestro', extra: false, svg: '<rect width="38" height="24" rx="4" fill="#fff" stroke="#D0D5DD"/><circle cx="15.5" cy="12" r="7" fill="#0099DF"/><circle cx="22.5" cy="12" r="7" fill="#EB001B" fill-opacity=".85"/>' },
  { id: 'diners', extra: false, svg: '<rect width="38" height="24" rx="4" fill="#fff" stroke="#D0D5DD"/><circle cx="19" cy="12" r="7.5" fill="none" stroke="#0079BE" stroke-width="2.2"/><path d="M17 7.5v9M21 7.5v9" stroke="#0079BE" stroke-width="1.6"/>' },
  { id: 'discover', extra: true, svg: '<rect width="38" height="24" rx="4" fill="#fff" stroke="#D0D5DD"/><circle cx="27" cy="12" r="5" fill="#F58220"/><text x="13" y="15" text-anchor="middle" font-family="Arial,sans-serif" font-size="7" font-weight="700" fill="#231F20">DISC</text>' },
  { id: 'jcb', extra: true, svg: '<rect width="38" height="24" rx="4" fill="#0B4EA2"/><text x="19" y="16" text-anchor="middle" font-family="Arial,sans-serif" font-size="10" font-weight="700" fill="#fff">JCB</text>' },
  { id: 'unionpay', extra: true, svg: '<rect width="38" height="24" rx="4" fill="#D10429"/><text x="19" y="15.5" text-anchor="middle" font-family="Arial,sans-serif" font-size="7.5" font-weight="700" fill="#fff">UnionPay</text>' },
  { id: 'mir', extra: true, svg: '<rect width="38" height="24" rx="4" fill="#0F754E"/><text x="19" y="16" text-anchor="middle" font-family="Arial,sans-serif" font-size="10" font-weight="700" fill="#fff">MIR</text>' },
];

function brandRow(): Html {
  return trusted(
    `<div class="brands" id="pg-brands" data-brand="" aria-hidden="true">${BRAND_MARKS.map(
      (b) => `<svg class="b-${b.id}${b.extra ? ' extra' : ''}" viewBox="0 0 38 24">${b.svg}</svg>`,
    ).join('')}</div>`,
  );
}

/** Messages the page's script needs (its error texts and a few labels), in the page's language. */
function scriptMessages(lang: Language): Record<string, string> {
  const c = CATALOGUES[lang];
  const out: Record<string, string> = {};
  for (const k of Object.keys(c) as MessageKey[]) if (k.startsWith('err.') || k === 'card.processing' || k.startsWith('card.cvv_hint')) out[k] = c[k];
  return out;
}

function head(chrome: PageChrome, summary: OrderSummary | null): Html {
  if (!summary) return html``;
  const logo = chrome.template.logoUrl
    ? html`<img src="${chrome.template.logoUrl}" alt="${summary.merchant}" referrerpolicy="no-referrer">`
    : html`<div class="name">${summary.merchant}</div>`;
  return html`<header class="head">
<div class="merchant">${logo}${summary.description ? html`<div class="desc">${summary.description}</div>` : ''}${summary.orderNumber ? html`<div class="desc">${chrome.t('order.number')}: ${summary.orderNumber}</div>` : ''}</div>
<div class="amount"><span class="label">${chrome.t('order.amount')}</span><strong id="pg-amount">${summary.amount}</strong></div>
</header>`;
}

function foot(chrome: PageChrome, cardNote: boolean): Html {
  const langs = chrome.langHref
    ? html`<nav class="langs" aria-label="${chrome.t('page.language')}">${LANGUAGES.map(
        (l) => html`<a href="${safeUrl(chrome.langHref!(l))}" hreflang="${l}" lang="${l}"${l === chrome.lang ? trusted(' aria-current="true"') : ''}>${CATALOGUES[l]['lang.name']}</a>`,
      )}</nav>`
    : '';
  return html`<footer class="foot"><div class="secure">${LOCK}<span>${chrome.t(cardNote ? 'page.secure_note' : 'page.title')}</span></div>${langs}</footer>`;
}

/** The whole document. */
export function layout(chrome: PageChrome, p: { title: string; summary: OrderSummary | null; body: Html; refreshSeconds?: number; script?: boolean; className?: string; cardNote?: boolean; outcome?: Record<string, unknown>; extraScript?: string }): string {
  const accent = chrome.template.buttonColor;
  const css = themeCss({ accent, accentText: textOn(accent), bg: chrome.template.backgroundColor, dark: chrome.theme === 'dark', font: chrome.font ?? null });
  const doc = html`<!doctype html>
<html lang="${chrome.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
${p.refreshSeconds ? html`<meta http-equiv="refresh" content="${p.refreshSeconds}">` : ''}
<title>${p.title} · ${chrome.t('page.title')}</title>
<style nonce="${chrome.nonce}">${trusted(BASE_CSS)}${trusted(css)}</style>
</head>
<body>
<main class="panel${p.className ? ` ${p.className}` : ''}"${chrome.orderUuid ? html` data-order="${chrome.orderUuid}"` : ''}>
${chrome.env === 'sandbox' ? html`<div class="sandbox" role="note">${chrome.t('page.sandbox')}</div>` : ''}
${head(chrome, p.summary)}
<div class="content">
${p.body}
</div>
${foot(chrome, !!p.cardNote)}
</main>
${p.script ? html`<script type="application/json" id="pg-messages">${jsonForScript(scriptMessages(chrome.lang))}</script>` : ''}
${p.outcome ? html`<script type="application/json" id="pg-outcome">${jsonForScript(p.outcome)}</script>` : ''}
<script nonce="${chrome.nonce}">${trusted(PAGE_SCRIPT)}</script>
${p.extraScript ? html`<script nonce="${chrome.nonce}">${trusted(p.extraScript)}</script>` : ''}
</body>
</html>
`;
  return doc.value;
}

function field(p: { name: string; label: string; input: Html; error: string | null; hint?: Html }): Html {
  return html`<div class="field"><label for="f-${p.name}">${p.label}</label><div class="input${p.error ? ' invalid' : ''}">${p.input}</div>${p.hint ?? ''}<p class="err" id="err-${p.name}" aria-live="polite">${p.error ?? ''}</p></div>`;
}

function invalidAttr(error: string | null): Html {
  return error ? trusted(' aria-invalid="true"') : trusted('');
}

export interface CardPageInput {
  summary: OrderSummary;
  action: string;
  formNonce: string;
  today: string;
  values: { holder: string; expiry: string };
  errors: CardFormErrors & { form?: boolean };
  notice: 'refused' | null;
  alternatives?: Array<{ href: string; label: string }>;
  /** The wallet buttons (wallet-view.ts), shown above the form. */
  wallets?: Html | null;
}

/** The hosted payment page (B4): the card form. */
export function cardPage(chrome: PageChrome, p: CardPageInput): string {
  const { t } = chrome;
  const e = (k: keyof CardFormErrors) => (p.errors[k] ? t(p.errors[k]!) : null);
  const anyError = Object.keys(p.errors).length > 0;
  const body = html`<h1>${t('card.title')}</h1>
${p.notice === 'refused' ? html`<div class="notice bad" role="alert"><strong>${t('result.refused.title')}.</strong> ${t('result.refused.text')}</div>` : ''}
${p.wallets ?? ''}
<form method="post" action="${safeUrl(p.action)}" data-form="card" data-today="${p.today}" autocomplete="on" novalidate>
<input type="hidden" name="nonce" value="${p.formNonce}">
<p class="err form-err" id="err-form" role="alert">${anyError ? t('err.form') : ''}</p>
${field({ name: 'holder', label: t('card.holder'), error: e('holder'), input: html`<input id="f-holder" name="holder" type="text" autocomplete="cc-name" autocapitalize="words" spellcheck="false" maxlength="100" value="${p.values.holder}" aria-describedby="err-holder"${invalidAttr(e('holder'))} required>` })}
<div class="field"><label for="f-number">${t('card.number')}</label>${brandRow()}<div class="input${e('number') ? ' invalid' : ''}"><input id="f-number" name="number" type="text" inputmode="numeric" autocomplete="cc-number" spellcheck="false" maxlength="23" placeholder="•••• •••• •••• ••••" aria-describedby="err-number"${invalidAttr(e('number'))} required></div><p class="err" id="err-number" aria-live="polite">${e('number') ?? ''}</p></div>
<div class="row">
${field({ name: 'expiry', label: t('card.expiry'), error: e('expiry'), input: html`<input id="f-expiry" name="expiry" type="text" inputmode="numeric" autocomplete="cc-exp" spellcheck="false" maxlength="7" placeholder="${t('card.expiry_hint')}" value="${p.values.expiry}" aria-describedby="err-expiry"${invalidAttr(e('expiry'))} required>` })}
${field({ name: 'cvv', label: t('card.cvv'), error: e('cvv'), hint: html`<span class="hint" id="cvv-hint">${t('card.cvv_hint3')}</span>`, input: html`<input id="f-cvv" name="cvv" type="text" inputmode="numeric" autocomplete="cc-csc" spellcheck="false" maxlength="4" placeholder="•••" aria-describedby="err-cvv cvv-hint"${invalidAttr(e('cvv'))} required>` })}
</div>
<button type="submit">${t('card.pay', { amount: p.summary.amount })}</button>
</form>
${p.alternatives && p.alternatives.length > 0 ? html`<div class="methods alt">${p.alternatives.map((a) => html`<a class="button secondary" href="${safeUrl(a.href)}">${a.label}</a>`)}</div>` : ''}`;
  return layout(chrome, { title: t('card.title'), summary: p.summary, body, script: true, cardNote: true });
}

/** A page that tells where the payment stands (paid, refused, processing, errors). */
export function statusPage(
  chrome: PageChrome,
  p: {
    summary: OrderSummary | null;
    icon: keyof typeof ICONS;
    title: MessageKey;
    text: MessageKey;
    params?: Record<string, string>;
    actions?: Array<{ href: string; label: string; secondary?: boolean; target?: LeaveTarget; id?: string }>;
    refreshSeconds?: number;
    outcome?: Record<string, unknown>;
  },
): string {
  const { t } = chrome;
  const body = html`<div class="status" role="status">${ICONS[p.icon]}<h1>${t(p.title, p.params)}</h1><p>${t(p.text, p.params)}</p></div>
${(p.actions ?? []).map((a) => html`<a class="button${a.secondary ? ' secondary' : ''}"${a.id ? html` id="${a.id}"` : ''} href="${safeUrl(a.href)}"${targetAttr(a.target ?? 'self')}${a.target && a.target !== 'self' ? html` data-target="${a.target}"` : ''}>${a.label}</a>`)}`;
  return layout(chrome, { title: t(p.title, p.params), summary: p.summary, body, refreshSeconds: p.refreshSeconds, outcome: p.outcome });
}

/** The sandbox ACS challenge (3DS): approve or reject, like a bank's test ACS. */
export function acsPage(chrome: PageChrome, p: { summary: OrderSummary; action: string; formNonce: string; last4: string }): string {
  const { t } = chrome;
  const body = html`<div class="bank">${LOCK}<span>${t('acs.bank')}</span></div>
<h1>${t('acs.title')}</h1>
<p>${t('acs.text', { amount: p.summary.amount, merchant: p.summary.merchant, last4: p.last4 })}</p>
<dl><dt>${t('order.merchant')}</dt><dd>${p.summary.merchant}</dd><dt>${t('order.amount')}</dt><dd>${p.summary.amount}</dd><dt>${t('card.number')}</dt><dd>•••• ${p.last4}</dd></dl>
<div class="notice good">${t('acs.sandbox')}</div>
<form method="post" action="${safeUrl(p.action)}" data-form="acs">
<input type="hidden" name="nonce" value="${p.formNonce}">
<div class="actions"><button type="submit" name="result" value="approve">${t('acs.approve')}</button><button type="submit" name="result" value="fail" class="secondary">${t('acs.fail')}</button></div>
</form>`;
  return layout(chrome, { title: t('acs.title'), summary: p.summary, body, script: true, className: 'acs', cardNote: true });
}

/**
 * EMV 3-D Secure 2 through the acquirer (B7 with a processor that authenticates itself): the issuer's 3DS
 * method runs in a hidden frame (when the card has one), the page reads the browser's data (screen,
 * time zone, language) and posts them; without JavaScript the customer presses the button.
 */
export function threedsPage(chrome: PageChrome, p: { summary: OrderSummary; last4: string; action: string; formNonce: string; method: { url: string; data: string } | null; methodTimeoutMs: number }): string {
  const { t } = chrome;
  const body = html`<div class="bank">${LOCK}<span>${t('acs.title')}</span></div>
<h1>${t('acs.title')}</h1>
<p>${t('acs.text', { amount: p.summary.amount, merchant: p.summary.merchant, last4: p.last4 })}</p>
${p.method ? html`<iframe name="threeds-method" id="threeds-method" title="3-D Secure" hidden></iframe>
<form id="threeds-method-form" method="post" action="${safeUrl(p.method.url)}" target="threeds-method"><input type="hidden" name="threeDSMethodData" value="${p.method.data}"></form>` : ''}
<form method="post" action="${safeUrl(p.action)}" id="threeds-browser" data-method="${p.method ? 'pending' : 'none'}" data-timeout="${String(p.methodTimeoutMs)}">
<input type="hidden" name="nonce" value="${p.formNonce}">
<input type="hidden" name="method" value="${p.method ? 'N' : 'U'}">
<input type="hidden" name="js" value="false">
<input type="hidden" name="java" value="false">
<input type="hidden" name="language" value="">
<input type="hidden" name="color_depth" value="24">
<input type="hidden" name="screen_height" value="0">
<input type="hidden" name="screen_width" value="0">
<input type="hidden" name="tz" value="0">
<div class="actions"><button type="submit" id="threeds-continue">${t('action.continue')}</button></div>
</form>`;
  return layout(chrome, { title: t('acs.title'), summary: p.summary, body, className: 'acs', cardNote: true, extraScript: THREEDS_BROWSER_SCRIPT });
}

/**
 * Reads the browser's data into the 3DS form, runs the 3DS method (the frame's page tells us when the
 * issuer is done, or the timeout passes), then submits.
 */
const THREEDS_BROWSER_SCRIPT = `(function(){
var f=document.getElementById('threeds-browser');if(!f)return;
function set(n,v){f.elements[n].value=String(v);}
set('js','true');set('java',navigator.javaEnabled?String(!!navigator.javaEnabled()):'false');
set('language',navigator.language||'');set('color_depth',screen.colorDepth||24);
set('screen_height',screen.height||0);set('screen_width',screen.width||0);set('tz',new Date().getTimezoneOffset());
var sent=false;function go(){if(sent)return;sent=true;f.submit();}
if(f.getAttribute('data-method')!=='pending'){go();return;}
window.addEventListener('message',function(e){if(e.origin===location.origin&&e.data==='paygate:3ds-method'){set('method','Y');go();}});
setTimeout(go,Number(f.getAttribute('data-timeout'))||10000);
document.getElementById('threeds-method-form').submit();
})();`;

/** The issuer's 3DS method is done (it posted to the gateway in the hidden frame): tell the page. */
export function threedsMethodDonePage(nonce: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>3-D Secure</title></head><body><script nonce="${nonce}">parent.postMessage('paygate:3ds-method', location.origin);</script></body></html>`;
}

/**
 * The ACS challenge: the page posts `creq` to the issuer's ACS (by script; otherwise the button; under
 * `field` when the provider's challenge page names it otherwise, Worldpay's `JWT`), or, for
 * a provider's own authentication page (`method: 'get'`, PayPal's payer-action link), goes there as the
 * link is (a form GET would drop the link's query; a redirect would not pass the page's form-action).
 */
export function acsRedirectPage(chrome: PageChrome, p: { summary: OrderSummary; acsUrl: string; creq: string; method?: 'post' | 'get'; field?: 'creq' | 'JWT' }): string {
  const { t } = chrome;
  if (p.method === 'get') {
    const url = safeUrl(p.acsUrl);
    const body = html`<h1>${t('acs.title')}</h1>
<div class="actions"><a class="button" href="${url}" id="threeds-acs-link">${t('action.continue')}</a></div>`;
    const target = JSON.stringify(String(url)).replace(/</g, '\\u003c');
    return layout(chrome, { title: t('acs.title'), summary: p.summary, body, className: 'acs', extraScript: `location.replace(${target});` });
  }
  const body = html`<h1>${t('acs.title')}</h1>
<form method="post" action="${safeUrl(p.acsUrl)}" id="threeds-acs">
<input type="hidden" name="${p.field ?? 'creq'}" value="${p.creq}">
<div class="actions"><button type="submit">${t('action.continue')}</button></div>
</form>`;
  return layout(chrome, { title: t('acs.title'), summary: p.summary, body, className: 'acs', extraScript: "document.getElementById('threeds-acs').submit();" });
}

/** A provider's payment page that expects a form POST (Bizum through Redsys): the page posts it. */
export function providerRedirectPage(chrome: PageChrome, p: { url: string; fields: Record<string, string>; method?: 'get' | 'post'; apm?: string }): string {
  const { t } = chrome;
  const title = p.apm ? t('apm.title', { apm: p.apm }) : t('bizum.title');
  const body = html`<h1>${title}</h1>
<form method="${p.method === 'get' ? 'get' : 'post'}" action="${safeUrl(p.url)}" id="provider-redirect">
${Object.entries(p.fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
<div class="actions"><button type="submit">${t('action.continue')}</button></div>
</form>`;
  return layout(chrome, { title, summary: null, body, extraScript: "document.getElementById('provider-redirect').submit();" });
}

/** The Bizum page (B5): the phone number of the paying account. */
export function bizumPage(chrome: PageChrome, p: { summary: OrderSummary; action: string; formNonce: string; phone: string; error: MessageKey | null; notice: 'refused' | null }): string {
  const { t } = chrome;
  const err = p.error ? t(p.error) : null;
  const body = html`<h1>${t('bizum.title')}</h1>
${p.notice === 'refused' ? html`<div class="notice bad" role="alert"><strong>${t('result.refused.title')}.</strong> ${t('result.refused.text')}</div>` : ''}
<p>${t('bizum.help')}</p>
${chrome.env === 'sandbox' ? html`<div class="notice good">${t('bizum.sandbox')}</div>` : ''}
<form method="post" action="${safeUrl(p.action)}" data-form="phone" novalidate>
<input type="hidden" name="nonce" value="${p.formNonce}">
${field({ name: 'phone', label: t('bizum.phone'), error: err, input: html`<input id="f-phone" name="phone" type="tel" inputmode="tel" autocomplete="tel-national" maxlength="20" value="${p.phone}" aria-describedby="err-phone"${invalidAttr(err)} required>` })}
<button type="submit">${t('bizum.pay', { amount: p.summary.amount })}</button>
</form>`;
  return layout(chrome, { title: t('bizum.title'), summary: p.summary, body, script: true });
}

/** The checkout (orders with extra_data.checkout): choose among the allowed payment methods. */
export function checkoutPage(chrome: PageChrome, p: { summary: OrderSummary; methods: Array<{ method: string; label: string; href: string; suggested: boolean }> }): string {
  const { t } = chrome;
  const body = html`<h1>${t('checkout.title')}</h1>
<nav class="methods">${p.methods.map(
    (m) => html`<a class="method${m.suggested ? ' suggested' : ''}" href="${safeUrl(m.href)}" data-method="${m.method}"><span>${m.label}</span>${m.suggested ? html`<span class="tag">${t('checkout.suggested')}</span>` : ''}</a>`,
  )}</nav>`;
  return layout(chrome, { title: t('checkout.title'), summary: p.summary, body });
}

export interface CardFormFrameInput {
  /** Where the merchant's page is: the only origin the frame talks to (postMessage). */
  parentOrigin: string | null;
  state: 'form' | 'expired';
  /** The URL the frame posts the card to (same origin). */
  action: string;
  formNonce: string;
  today: string;
}

/** Messages the embedded card form's script needs, in the page's language. */
function cardFormMessages(lang: Language): Record<string, string> {
  const c = CATALOGUES[lang];
  const out = scriptMessages(lang);
  for (const k of ['cardform.expired', 'cardform.refused', 'cardform.attempts', 'error.server.text'] as const) out[k] = c[k];
  return out;
}

/**
 * The embedded card form (`/js/v1-iframe.js` renders it in an iframe of the merchant's page): holder,
 * number, expiry and CVV with the hosted page's rules, look and languages, and no button of its own
 * (the merchant's page drives it through `paylands.validate()` and `paylands.storeSourceCard()`).
 */
export function cardFormPage(chrome: PageChrome, p: CardFormFrameInput): string {
  const { t } = chrome;
  const accent = chrome.template.buttonColor;
  const css = themeCss({ accent, accentText: textOn(accent), bg: chrome.template.backgroundColor, dark: false, font: null });
  const body =
    p.state === 'expired'
      ? html`<div class="notice bad" role="alert">${t('cardform.expired')}</div>`
      : html`<form data-form="card" data-action="${safeUrl(p.action)}" data-today="${p.today}" autocomplete="on" novalidate>
<input type="hidden" name="nonce" value="${p.formNonce}">
${field({ name: 'holder', label: t('card.holder'), error: null, input: html`<input id="f-holder" name="holder" type="text" autocomplete="cc-name" autocapitalize="words" spellcheck="false" maxlength="100" aria-describedby="err-holder" required>` })}
<div class="field"><label for="f-number">${t('card.number')}</label>${brandRow()}<div class="input"><input id="f-number" name="number" type="text" inputmode="numeric" autocomplete="cc-number" spellcheck="false" maxlength="23" placeholder="•••• •••• •••• ••••" aria-describedby="err-number" required></div><p class="err" id="err-number" aria-live="polite"></p></div>
<div class="row">
${field({ name: 'expiry', label: t('card.expiry'), error: null, input: html`<input id="f-expiry" name="expiry" type="text" inputmode="numeric" autocomplete="cc-exp" spellcheck="false" maxlength="7" placeholder="${t('card.expiry_hint')}" aria-describedby="err-expiry" required>` })}
${field({ name: 'cvv', label: t('card.cvv'), error: null, hint: html`<span class="hint" id="cvv-hint">${t('card.cvv_hint3')}</span>`, input: html`<input id="f-cvv" name="cvv" type="text" inputmode="numeric" autocomplete="cc-csc" spellcheck="false" maxlength="4" placeholder="•••" aria-describedby="err-cvv cvv-hint" required>` })}
</div>
<p class="note">${LOCK}<span>${t('page.secure_note')}</span></p>
</form>`;
  const doc = html`<!doctype html>
<html lang="${chrome.lang}" data-parent-origin="${p.parentOrigin ?? ''}" data-state="${p.state}" data-message="${p.state === 'expired' ? t('cardform.expired') : ''}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${t('cardform.title')}</title>
<style nonce="${chrome.nonce}">${trusted(BASE_CSS)}${trusted(css)}${trusted(CARD_FORM_CSS)}</style>
</head>
<body>
<main class="frame">
${chrome.env === 'sandbox' ? html`<div class="sandbox" role="note">${t('page.sandbox')}</div>` : ''}
${body}
</main>
<script type="application/json" id="pg-messages">${jsonForScript(cardFormMessages(chrome.lang))}</script>
<script nonce="${chrome.nonce}">${trusted(CARD_FORM_SCRIPT)}</script>
</body>
</html>
`;
  return doc.value;
}

// ---- APMs of every kind (the hosted page with ?apm=) ----------------------------------------------------

export interface ApmView {
  apm: string;
  label: string;
  kind: 'redirect' | 'push' | 'voucher';
}

/** The first screen of an APM: continue to the provider (redirect), the phone (push), or get the voucher. */
export function apmStartPage(
  chrome: PageChrome,
  p: { summary: OrderSummary; apm: ApmView; action: string; formNonce: string; phone: string; error: MessageKey | null; notice: 'refused' | null; sandboxPhones: { pays: string; refused: string } | null },
): string {
  const { t } = chrome;
  const name = { apm: p.apm.label, amount: p.summary.amount };
  const err = p.error ? t(p.error) : null;
  const inner =
    p.apm.kind === 'push'
      ? html`<p>${t('apm.push.help', name)}</p>
${chrome.env === 'sandbox' && p.sandboxPhones ? html`<div class="notice good">${t('apm.sandbox.push', { pays: p.sandboxPhones.pays, refused: p.sandboxPhones.refused })}</div>` : ''}
${field({ name: 'phone', label: t('bizum.phone'), error: err, input: html`<input id="f-phone" name="phone" type="tel" inputmode="tel" autocomplete="tel-national" maxlength="20" value="${p.phone}" aria-describedby="err-phone"${invalidAttr(err)} required>` })}
<button type="submit">${t('apm.push.send')}</button>`
      : p.apm.kind === 'redirect'
        ? html`<p>${t('apm.redirect.text', name)}</p><button type="submit">${t('apm.redirect.go', name)}</button>`
        : html`<p>${t('apm.voucher.text', name)}</p><button type="submit">${t('apm.voucher.get')}</button>`;
  const body = html`<h1>${t('apm.title', name)}</h1>
${p.notice === 'refused' ? html`<div class="notice bad" role="alert"><strong>${t('result.refused.title')}.</strong> ${t('result.refused.text')}</div>` : ''}
<form method="post" action="${safeUrl(p.action)}" data-form="apm" data-apm="${p.apm.apm}" data-kind="${p.apm.kind}" novalidate>
<input type="hidden" name="nonce" value="${p.formNonce}">
${inner}
</form>`;
  return layout(chrome, { title: t('apm.title', name), summary: p.summary, body, script: true });
}

export interface VoucherView {
  format: string;
  entity?: string;
  reference?: string;
  barcode?: string;
  qr_code?: string;
  clabe?: string;
  iban?: string;
  bic?: string;
  beneficiary?: string;
  concept?: string;
}

/** While an APM payment waits: approve on the phone (push), or the voucher to pay (voucher). */
export function apmWaitPage(
  chrome: PageChrome,
  p: { summary: OrderSummary; apm: ApmView; voucher: VoucherView | null; until: string | null; refreshSeconds: number; sandbox: { phoneHref: string | null; payAction: string | null; formNonce: string | null } | null; images: { qr: Html | null; barcode: Html | null } },
): string {
  const { t } = chrome;
  const name = { apm: p.apm.label, amount: p.summary.amount };
  const v = p.voucher;
  const row = (label: string, value: string | undefined) => (value ? html`<dt>${label}</dt><dd data-field="${label}"><code>${value}</code></dd>` : '');
  const details = v
    ? html`<dl class="voucher" data-format="${v.format}">
${row(t('apm.f.entity'), v.entity)}${row(t('apm.f.reference'), v.reference)}${row('CLABE', v.clabe)}${row('IBAN', v.iban)}${row('BIC', v.bic)}${row(t('apm.f.beneficiary'), v.beneficiary)}${row(t('apm.f.concept'), v.concept)}
<dt>${t('order.amount')}</dt><dd>${p.summary.amount}</dd>
</dl>
${p.images.qr ? html`<figure class="code">${p.images.qr}<figcaption><code class="wrap">${v.qr_code ?? ''}</code></figcaption></figure>` : ''}
${p.images.barcode ? html`<figure class="code">${p.images.barcode}<figcaption><code>${v.barcode ?? ''}</code></figcaption></figure>` : ''}
${p.until ? html`<p>${t('apm.voucher.until', { date: p.until })}</p>` : ''}`
    : html`<p>${t('apm.push.wait', name)}</p>`;
  const sandbox = p.sandbox
    ? html`${p.sandbox.phoneHref ? html`<p><a class="button secondary" id="pg-sandbox-phone" href="${safeUrl(p.sandbox.phoneHref)}">${t('apm.sandbox.phone')}</a></p>` : ''}
${p.sandbox.payAction ? html`<form method="post" action="${safeUrl(p.sandbox.payAction)}" data-form="sandbox-voucher"><input type="hidden" name="nonce" value="${p.sandbox.formNonce ?? ''}"><div class="actions"><button type="submit" name="result" value="approve" class="secondary">${t('apm.sandbox.pay')}</button></div></form>` : ''}`
    : '';
  const body = html`<h1>${v ? t('apm.voucher.title') : t('apm.title', name)}</h1>
${details}
${sandbox}`;
  return layout(chrome, { title: t('apm.title', name), summary: p.summary, body, refreshSeconds: p.refreshSeconds, script: true });
}

/** The sandbox APM provider's page (bank page of redirect APMs, phone of push APMs): approve or refuse. */
export function sandboxApmPage(chrome: PageChrome, p: { summary: OrderSummary; apm: ApmView; action: string; formNonce: string }): string {
  const { t } = chrome;
  const name = { apm: p.apm.label, amount: p.summary.amount };
  const body = html`<div class="bank">${LOCK}<span>${t('apm.sandbox.title', name)}</span></div>
<h1>${t('apm.title', name)}</h1>
<dl><dt>${t('order.merchant')}</dt><dd>${p.summary.merchant}</dd><dt>${t('order.amount')}</dt><dd>${p.summary.amount}</dd></dl>
<div class="notice good">${t('apm.sandbox.text')}</div>
<form method="post" action="${safeUrl(p.action)}" data-form="sandbox-apm" data-kind="${p.apm.kind}">
<input type="hidden" name="nonce" value="${p.formNonce}">
<div class="actions"><button type="submit" name="result" value="approve">${t('acs.approve')}</button><button type="submit" name="result" value="fail" class="secondary">${t('acs.fail')}</button></div>
</form>`;
  return layout(chrome, { title: t('apm.sandbox.title', name), summary: p.summary, body, script: true, className: 'acs' });
}
