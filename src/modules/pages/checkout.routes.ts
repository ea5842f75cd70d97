/**
 * The checkout page: the customer chooses among the order's allowed payment methods.
 */
import type { FastifyInstance } from 'fastify';
import type { PageKit } from './page-kit.js';
import { checkoutMethods } from './pages.domain.js';
import { PAGE_CONFIG, envOf, pageSchema, pathOf, readQuery, tokenOf, withQuery } from './page-http.js';
import { checkoutPage } from './views.js';

export function checkoutPageRoutes(scope: FastifyInstance, kit: PageKit): void {
  const { service, chromeFor, summaryOf, html, notFound, stateView, methodUnavailable, walletPath, apmPath } = kit;

  scope.get('/payment/checkout/:token', {
    config: PAGE_CONFIG,
    schema: pageSchema('showCheckoutPage', 'Checkout page', 'For orders with `extra_data.checkout`: the customer chooses among the allowed payment methods (`payment_methods`, `default_payment_method`) with the customization applied (`theme_type` light/dark, `font` from a list of system fonts, `description`, `payment_details.order_number`).'),
  }, async (req, reply) => {
    const q = readQuery(req);
    const o = await service.load(tokenOf(req), envOf(req));
    if (!o) return notFound(req, reply);
    const checkout = o.checkout;
    if (!checkout) return reply.code(303).header('Location', withQuery(pathOf(o.env, 'process', o.token), { lang: q.lang, template: q.template, target: q.target })).send();
    if (o.view.kind !== 'form') return stateView(req, reply, o, q, o.view, 'checkout');
    const cards = checkoutMethods(checkout, service.methods(o));
    // the APMs of the service (Bizum keeps its own page), those the checkout allows when it names methods
    const apms = o.apms.filter((x) => !(x.apm === 'BIZUM' && cards.includes('BIZUM')) && (!checkout.methods || checkout.methods.includes(x.apm)));
    const wallets = o.wallets.filter((w) => !checkout.methods || checkout.methods.includes(w));
    if (cards.length + apms.length + wallets.length === 0) return methodUnavailable(req, reply, o, q, 'checkout');
    const chrome = await chromeFor(req, reply, o, q, 'checkout');
    const label = { CARD: chrome.t('method.card'), BIZUM: chrome.t('method.bizum') };
    return html(reply, 200, checkoutPage(chrome, {
      summary: summaryOf(o, q.lang),
      methods: [
        ...cards.map((m) => ({
          method: m as string,
          label: label[m],
          suggested: m === checkout.defaultMethod,
          href: m === 'CARD'
            ? withQuery(pathOf(o.env, 'process', o.token), { lang: q.lang, template: q.template, target: q.target, method: 'card' })
            : withQuery(pathOf(o.env, 'bizum', o.token), { lang: q.lang, template: q.template, target: q.target }),
        })),
        ...apms.map((x) => ({ method: x.apm, label: x.label, suggested: x.apm === checkout.defaultMethod, href: apmPath(o, q, x.apm) })),
        ...wallets.map((w) => ({ method: w, label: service.walletLabel(w), suggested: w === checkout.defaultMethod, href: walletPath(o, q, w) })),
      ],
    }));
  });
}
