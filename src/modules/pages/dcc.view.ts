/**
 * The DCC offer screen (docs/dcc.md): after the cardholder posted a card in another currency than the
 * order's, the page offers both currencies. Two buttons of equal weight, nothing pre-selected and
 * nothing charged until one is pressed; the rate, the margin over the reference rate, the rate's source
 * and the offer's validity are shown beside them. A plain form: it works without JavaScript.
 */
import { Html, html, safeUrl } from './html.js';
import { layout, type OrderSummary, type PageChrome } from './views.js';

export interface DccOption {
  /** ISO 4217 alpha-3. */
  code: string;
  /** The currency's name in the page's language. */
  name: string;
  /** The amount to pay in it, formatted for the page's language. */
  amount: string;
}

export interface DccPageInput {
  summary: OrderSummary;
  action: string;
  formNonce: string;
  offerId: string;
  /** Which option comes first: the order's currency (DYNAMIC) or the card's (FOREIGN). */
  first: 'ORDER' | 'CARD';
  order: DccOption;
  card: DccOption;
  last4: string;
  /** "1 EUR = 1.122975 USD", formatted for the language. */
  rate: string;
  /** "3.50 %", formatted for the language. */
  markup: string;
  source: string;
  until: string;
}

export function dccPage(chrome: PageChrome, p: DccPageInput): string {
  const { t } = chrome;
  const option = (value: 'accept' | 'decline', o: DccOption, note: string): Html =>
    html`<button type="submit" name="choice" value="${value}" class="dcc-option" data-currency="${o.code}"><span class="pay">${t('dcc.pay', { amount: o.amount })}</span><span class="what">${note}</span></button>`;
  const orderOption = option('decline', p.order, t('dcc.order', { currency: p.order.name }));
  const cardOption = option('accept', p.card, t('dcc.card', { currency: p.card.name }));
  const body = html`<h1>${t('dcc.title')}</h1>
<p>${t('dcc.text', { currency: p.card.name })}</p>
<form method="post" action="${safeUrl(p.action)}" data-form="dcc" data-first="${p.first === 'CARD' ? 'card' : 'order'}" novalidate>
<input type="hidden" name="nonce" value="${p.formNonce}">
<input type="hidden" name="offer" value="${p.offerId}">
<div class="dcc-options">${p.first === 'CARD' ? [cardOption, orderOption] : [orderOption, cardOption]}</div>
</form>
<dl class="dcc-terms">
<dt>${t('card.number')}</dt><dd>•••• ${p.last4}</dd>
<dt>${t('dcc.rate')}</dt><dd id="dcc-rate">${p.rate}</dd>
<dt>${t('dcc.markup')}</dt><dd id="dcc-markup">${p.markup}</dd>
<dt>${t('dcc.source')}</dt><dd>${p.source}</dd>
<dt>${t('dcc.until')}</dt><dd id="dcc-until">${p.until}</dd>
</dl>
<p class="note">${t('dcc.notice')}</p>`;
  return layout(chrome, { title: t('dcc.title'), summary: p.summary, body, script: true, className: 'dcc', cardNote: true });
}
