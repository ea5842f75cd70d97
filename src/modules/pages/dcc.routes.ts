/**
 * Dynamic currency conversion: the offer screen (dcc.view.ts, docs/dcc.md) and the customer's choice.
 */
import type { FastifyInstance } from 'fastify';
import type { PageKit } from './page-kit.js';
import { firstChoice } from '../dcc/index.js';
import { currencyByCode } from '../../platform/money/currency.js';
import { formatMoney, localeOf } from './i18n/index.js';
import { PAGE_CONFIG, envOf, pageSchema, pathOf, readQuery, tokenOf, withQuery } from './page-http.js';
import { dccPage } from './dcc.view.js';
import { statusPage } from './views.js';

export function dccPageRoutes(scope: FastifyInstance, kit: PageKit): void {
  const { service, chromeFor, summaryOf, html, notFound, locate, stateView, afterSubmit, dccPath } = kit;

  scope.get('/payment/dcc/:token', {
    config: PAGE_CONFIG,
    schema: pageSchema('showDccPage', 'Dynamic currency conversion: the offer', 'After a card in another currency than the order\'s was posted on the hosted page of an order whose service allows DCC (`dcc_allowed`, `dcc_mode` DYNAMIC or FOREIGN): the amount in both currencies, the rate with its margin over the reference rate, its source and validity, and two buttons: pay in the card\'s currency or in the order\'s. Styled by the order\'s DCC template (`dcc_template_uuid`). `offer` names the offer; one that lapsed or was chosen shows a page leading back to the card form (410).'),
  }, async (req, reply) => {
    const q = readQuery(req);
    const o = await service.load(tokenOf(req), envOf(req));
    if (!o) return notFound(req, reply);
    if (o.view.kind !== 'form') return stateView(req, reply, o, q, o.view, 'dcc');
    const offer = await service.dccOffer(o, q.offer ?? undefined);
    const chrome = await chromeFor(req, reply, o, q, 'dcc');
    const summary = summaryOf(o, q.lang);
    const cardPage = withQuery(pathOf(o.env, 'process', o.token), { lang: q.lang, template: q.template, target: q.target, method: o.checkout ? 'card' : undefined });
    if (!offer || offer.expires_at.getTime() <= o.now.getTime()) {
      return html(reply, 410, statusPage(chrome, { summary, icon: 'info', title: 'dcc.expired.title', text: 'dcc.expired.text', actions: [{ href: cardPage, label: chrome.t('card.title') }] }));
    }
    const locale = localeOf(q.lang);
    const names = new Intl.DisplayNames([locale], { type: 'currency' });
    const cardCurrency = currencyByCode(offer.cardholder_currency) ?? { code: offer.cardholder_currency, number: '', digits: 2 };
    const decimal = new Intl.NumberFormat(locale, { maximumFractionDigits: 8 });
    return html(reply, 200, dccPage(chrome, {
      summary,
      action: withQuery(pathOf(o.env, 'dcc', o.token), { lang: q.lang, template: q.template, target: q.target }),
      formNonce: service.issueNonce(o.token, 'dcc'),
      offerId: offer.id,
      first: firstChoice(offer.mode),
      order: { code: o.currency.code, name: names.of(o.currency.code) ?? o.currency.code, amount: formatMoney(q.lang, o.amount, o.currency) },
      card: { code: cardCurrency.code, name: names.of(cardCurrency.code) ?? cardCurrency.code, amount: formatMoney(q.lang, offer.cardholder_amount, cardCurrency) },
      last4: offer.card_last4,
      rate: `1 ${o.currency.code} = ${decimal.format(Number(offer.rate))} ${cardCurrency.code}`,
      markup: new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(Number(offer.markup) / 100),
      source: offer.source,
      until: `${new Intl.DateTimeFormat(locale, { timeStyle: 'short', timeZone: 'UTC' }).format(offer.expires_at)} UTC`,
    }));
  });

  scope.post('/payment/dcc/:token', {
    config: PAGE_CONFIG,
    schema: pageSchema('submitDccChoice', 'Dynamic currency conversion: the choice', 'The offer screen posts `offer` and `choice` (`accept`: pay in the card\'s currency; `decline`: in the order\'s). The order is paid with the card posted before and the choice, recorded as `dcc` on the order and its transaction; the answer is 303 to url_ok, url_ko or the 3DS challenge, as after the card form. A lapsed offer leads back to the card form.', true),
  }, async (req, reply) => {
    const q = readQuery(req);
    const o = await service.load(tokenOf(req), envOf(req));
    if (!o) return notFound(req, reply);
    const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    const out = await service.submitDcc(o, body, req.ip ?? null, locate(o, q), (offerId) => dccPath(o, q, offerId));
    return afterSubmit(req, reply, o, q, out, 'dcc');
  });
}
