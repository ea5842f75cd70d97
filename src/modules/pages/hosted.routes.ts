/**
 * B4, the hosted payment page: the card form (GET) and its post, and the leave page of a framed flow.
 */
import type { FastifyInstance } from 'fastify';
import type { PageKit } from './page-kit.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APM_VALUES } from '../payment-methods/index.js';
import { PAID_STATUSES, destinationAfter } from './pages.domain.js';
import type { PageOrder } from './pages.service.js';
import { ENDED_UNPAID, PAGE_CONFIG, envOf, one, pageSchema, pathOf, readQuery, renderError, tokenOf, withQuery, type PageQuery } from './page-http.js';
import { statusPage } from './views.js';

export function hostedPageRoutes(scope: FastifyInstance, kit: PageKit): void {
  const { service, chromeFor, summaryOf, html, notFound, locate, stateView, methodUnavailable, renderCardForm, afterSubmit, dccPath, apmPath } = kit;

  /**
   * The last page of a framed flow: posts `paygate:outcome` to the parent and sends the target window
   * to url_ok or url_ko (by script; without it, the customer follows the link, target="_top").
   */
  async function leavePage(req: FastifyRequest, reply: FastifyReply, o: PageOrder, q: PageQuery) {
    // only once a payment attempt ended (paid, or refused and payable again); otherwise the usual page
    if (!PAID_STATUSES.includes(o.status) && !ENDED_UNPAID.includes(o.status)) return null;
    const d = destinationAfter(o.status, { ok: o.urlOk, ko: o.urlKo });
    if (d.to !== 'url') return null;
    const paid = PAID_STATUSES.includes(o.status);
    const chrome = await chromeFor(req, reply, o, q, 'process');
    const summary = summaryOf(o, q.lang);
    const outcome = { type: 'paygate:outcome', status: o.status, result: paid ? 'ok' : 'ko', order_uuid: o.id, amount: o.amount, currency: o.currency.code };
    return html(reply, 200, statusPage(chrome, {
      summary,
      icon: paid ? 'ok' : 'bad',
      title: paid ? 'result.paid.title' : 'result.refused.title',
      text: paid ? 'result.paid.text' : 'result.refused.text',
      params: { amount: summary.amount, merchant: summary.merchant },
      actions: [{ href: d.url, label: chrome.t('action.continue'), target: q.target, id: 'pg-leave' }],
      outcome,
    }));
  }

  scope.get('/payment/process/:token', {
    config: PAGE_CONFIG,
    schema: pageSchema('showPaymentPage', 'B4 Hosted payment page', 'The card form (holder, number, expiry, CVV) with live validation; `lang` (ES, EN, CA, EU, GL, PT, FR, DE, IT, NL, PL, RO, SV, DA; else Accept-Language, else ES); `apm=BIZUM` goes to the Bizum page; an order with `extra_data.checkout` goes to the checkout. Paid, expired or unknown tokens show a page saying so (410, 410, 404). In an iframe, `url_ok`/`url_ko` open in the top window (`target=parent` or `target=self` choose another) and the page posts `paygate:height` and `paygate:outcome` messages to its parent.'),
  }, async (req, reply) => {
    const q = readQuery(req);
    const o = await service.load(tokenOf(req), envOf(req));
    if (!o) return notFound(req, reply);
    if (one(q.raw.leave) === '1') {
      const left = await leavePage(req, reply, o, q);
      if (left) return left;
    }
    const apm = one(q.raw.apm);
    if (apm !== undefined && apm !== '') {
      const a = apm.toUpperCase();
      if (a === 'BIZUM' && o.bizum) return reply.code(303).header('Location', withQuery(pathOf(o.env, 'bizum', o.token), { lang: q.lang, template: q.template, target: q.target })).send();
      if (!(APM_VALUES as readonly string[]).includes(a)) return html(reply, 400, renderError(req, reply, { status: 400, details: 'apm' }));
      if (service.apmOf(o, a)) return reply.code(303).header('Location', apmPath(o, q, a)).send();
      return methodUnavailable(req, reply, o, q, 'process');
    }
    if (o.view.kind === 'processing') {
      // an APM payment waiting for the customer: its page (the phone, the voucher, the provider)
      const pending = await service.pendingApm(o);
      if (pending) return reply.code(303).header('Location', apmPath(o, q, pending.apm)).send();
    }
    if (o.checkout && one(q.raw.method) !== 'card' && o.view.kind === 'form') {
      return reply.code(303).header('Location', withQuery(pathOf(o.env, 'checkout', o.token), { lang: q.lang, template: q.template, target: q.target })).send();
    }
    if (o.view.kind !== 'form') return stateView(req, reply, o, q, o.view, 'process');
    if (!service.methods(o).includes('CARD')) return methodUnavailable(req, reply, o, q, 'process');
    return renderCardForm(req, reply, o, q, 200);
  });

  scope.post('/payment/process/:token', {
    config: PAGE_CONFIG,
    schema: pageSchema('submitPaymentPage', 'Hosted payment page: pay', 'The card form posts here; answers 303 to url_ok, url_ko, the 3DS challenge, or the page again with the problems shown.', true),
  }, async (req, reply) => {
    const q = readQuery(req);
    const o = await service.load(tokenOf(req), envOf(req));
    if (!o) return notFound(req, reply);
    const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    const out = await service.submitCard(o, body, req.ip ?? null, locate(o, q), (offerId) => dccPath(o, q, offerId));
    return afterSubmit(req, reply, o, q, out, 'process');
  });
}
