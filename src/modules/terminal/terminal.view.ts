/**
 * The virtual terminal's card form and its outcome, as plain HTML of the gateway (no framework, no
 * external resource): one style and one script element, each with the response's CSP nonce. The card
 * labels and errors are the hosted page's own words; the rest is here in the dashboard's languages.
 * Never a card number or CVV in what is rendered: a form shown again keeps only the holder and expiry.
 */
import { formatMoney, html, jsonForScript, safeUrl, translator, trusted, type Html, type Language } from '../pages/index.js';
import type { CardFormErrors } from '../pages/index.js';
import type { FormView } from './terminal.service.js';

const WORDS = {
  en: {
    title: 'Card details',
    PHONE: 'Payment taken by phone',
    MAIL: 'Payment taken by mail',
    pay: 'Charge {amount}',
    gone: 'This card form has been used or has expired. Start the payment again from the virtual terminal.',
    goneTitle: 'Form no longer valid',
    paidTitle: 'Payment completed',
    paid: 'The card was charged {amount}.',
    failedTitle: 'Payment not completed',
    failed: 'The payment was not completed (state {status}). The card was not charged; start again to try another card.',
    order: 'Order',
    fix: 'Correct the highlighted fields.',
  },
  es: {
    title: 'Datos de la tarjeta',
    PHONE: 'Pago tomado por teléfono',
    MAIL: 'Pago tomado por correo',
    pay: 'Cobrar {amount}',
    gone: 'Este formulario ya se usó o ha caducado. Empieza el pago de nuevo desde el terminal virtual.',
    goneTitle: 'Formulario no válido',
    paidTitle: 'Pago completado',
    paid: 'Se cobraron {amount} a la tarjeta.',
    failedTitle: 'Pago no completado',
    failed: 'El pago no se completó (estado {status}). No se cobró a la tarjeta; empieza de nuevo para probar otra tarjeta.',
    order: 'Pedido',
    fix: 'Corrige los campos marcados.',
  },
  pt: {
    title: 'Dados do cartão',
    PHONE: 'Pagamento recebido por telefone',
    MAIL: 'Pagamento recebido por correio',
    pay: 'Cobrar {amount}',
    gone: 'Este formulário já foi usado ou expirou. Comece o pagamento de novo no terminal virtual.',
    goneTitle: 'Formulário já não é válido',
    paidTitle: 'Pagamento concluído',
    paid: 'Foram cobrados {amount} ao cartão.',
    failedTitle: 'Pagamento não concluído',
    failed: 'O pagamento não foi concluído (estado {status}). O cartão não foi cobrado; comece de novo para tentar outro cartão.',
    order: 'Encomenda',
    fix: 'Corrija os campos assinalados.',
  },
} as const;

type WordLang = keyof typeof WORDS;
export const wordsOf = (lang: string) => WORDS[(lang in WORDS ? lang : 'en') as WordLang];
const fill = (s: string, vars: Record<string, string>) => s.replace(/\{(\w+)\}/g, (_m, k) => vars[k] ?? '');

const CSS = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;background:#fff}
main{max-width:28rem;margin:0 auto;padding:1rem}h1{font-size:1.25rem;margin:0 0 .25rem}.summary{margin:0 0 1rem;color:#444}
.field{margin:0 0 .75rem}label{display:block;font-weight:600;margin-bottom:.25rem}
input{width:100%;font:inherit;padding:.5rem .6rem;border:1px solid #767676;border-radius:6px}input:focus{outline:3px solid #0a58ca;outline-offset:1px}
input[aria-invalid=true]{border-color:#b00020}.err{color:#b00020;margin:.2rem 0 0;font-size:.9rem;min-height:0}
.row{display:flex;gap:.75rem}.row .field{flex:1}
button{width:100%;font:inherit;font-weight:600;padding:.65rem;border:0;border-radius:6px;background:#0a58ca;color:#fff;cursor:pointer}
button:focus{outline:3px solid #1b1b1b;outline-offset:2px}.notice{padding:.75rem;border-radius:6px;background:#f3f3f3}
.ok{background:#e6f4ea}.bad{background:#fdecea}`;

/** Tells the dashboard that framed the form (same origin only) the order and its state: nothing else. */
const OUTCOME_SCRIPT = "(function(){var o=JSON.parse(document.getElementById('outcome').textContent);if(window.parent&&window.parent!==window){window.parent.postMessage({type:'paygate.terminal',order_uuid:o.order_uuid,status:o.status},window.location.origin);}})();";

function page(p: { lang: string; nonce: string; title: string; body: Html; outcome?: { order_uuid: string; status: string } }): string {
  const script = p.outcome
    ? html`<script type="application/json" id="outcome">${jsonForScript(p.outcome)}</script><script nonce="${p.nonce}">${trusted(OUTCOME_SCRIPT)}</script>`
    : '';
  return html`<!doctype html><html lang="${p.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">
<title>${p.title}</title><style nonce="${p.nonce}">${trusted(CSS)}</style></head>
<body><main>${p.body}</main>${script}</body></html>`.toString();
}

function summary(v: FormView, lang: Language): Html {
  const w = wordsOf(lang);
  return html`<p class="summary">${w[v.method]} · <strong>${v.merchant}</strong> · ${formatMoney(lang, v.amount, v.currency)}${v.description ? html` · ${v.description}` : ''}</p>`;
}

export function formPage(p: { lang: Language; nonce: string; action: string; view: FormView; errors?: CardFormErrors; values?: { holder: string; expiry: string } }): string {
  const t = translator(p.lang);
  const w = wordsOf(p.lang);
  const e = (k: keyof CardFormErrors) => (p.errors?.[k] ? t(p.errors[k] as Parameters<typeof t>[0]) : null);
  const inv = (k: keyof CardFormErrors) => (e(k) ? html` aria-invalid="true"` : '');
  const err = (k: keyof CardFormErrors) => html`<p class="err" id="err-${k}">${e(k) ?? ''}</p>`;
  const amount = formatMoney(p.lang, p.view.amount, p.view.currency);
  const body = html`<h1>${w.title}</h1>${summary(p.view, p.lang)}
${p.errors && Object.keys(p.errors).length > 0 ? html`<p class="notice bad" role="alert">${w.fix}</p>` : ''}
<form method="post" action="${safeUrl(p.action)}" autocomplete="off" novalidate>
<div class="field"><label for="f-holder">${t('card.holder')}</label><input id="f-holder" name="holder" type="text" spellcheck="false" maxlength="100" value="${p.values?.holder ?? ''}" aria-describedby="err-holder"${inv('holder')} required>${err('holder')}</div>
<div class="field"><label for="f-number">${t('card.number')}</label><input id="f-number" name="number" type="text" inputmode="numeric" spellcheck="false" maxlength="23" aria-describedby="err-number"${inv('number')} required>${err('number')}</div>
<div class="row"><div class="field"><label for="f-expiry">${t('card.expiry')} (${t('card.expiry_hint')})</label><input id="f-expiry" name="expiry" type="text" inputmode="numeric" spellcheck="false" maxlength="7" value="${p.values?.expiry ?? ''}" aria-describedby="err-expiry"${inv('expiry')} required>${err('expiry')}</div>
<div class="field"><label for="f-cvv">${t('card.cvv')}</label><input id="f-cvv" name="cvv" type="password" inputmode="numeric" spellcheck="false" maxlength="4" aria-describedby="err-cvv"${inv('cvv')}>${err('cvv')}</div></div>
<button type="submit">${fill(w.pay, { amount })}</button>
</form>`;
  return page({ lang: p.lang, nonce: p.nonce, title: w.title, body });
}

export function outcomePage(p: { lang: Language; nonce: string; view: FormView; status: string; paid: boolean; details: string | null }): string {
  const w = wordsOf(p.lang);
  const amount = formatMoney(p.lang, p.view.amount, p.view.currency);
  const title = p.paid ? w.paidTitle : w.failedTitle;
  const body = html`<h1>${title}</h1>${summary(p.view, p.lang)}
<p class="notice ${p.paid ? 'ok' : 'bad'}" role="status">${p.paid ? fill(w.paid, { amount }) : fill(w.failed, { status: p.status })}${!p.paid && p.details ? html` ${p.details}` : ''}</p>
<p>${w.order}: <code>${p.view.order_uuid}</code></p>`;
  return page({ lang: p.lang, nonce: p.nonce, title, body, outcome: { order_uuid: p.view.order_uuid, status: p.status } });
}

export function gonePage(p: { lang: Language; nonce: string }): string {
  const w = wordsOf(p.lang);
  return page({ lang: p.lang, nonce: p.nonce, title: w.goneTitle, body: html`<h1>${w.goneTitle}</h1><p class="notice">${w.gone}</p>` });
}
