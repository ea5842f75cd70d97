/**
 * A provider's own payment page, reached by a form (Bizum through Redsys: the signed form, posted;
 * PayPal: its approval page): the page that sends the customer's browser to it. The processors'
 * notifications and webhooks are the payments module's (payments/callbacks.routes.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { PageKit } from './page-kit.js';
import { randomBytes } from 'node:crypto';
import { DEFAULT_TEMPLATES } from '../templates/index.js';
import { chooseLanguage, translator } from './i18n/index.js';
import { contentSecurityPolicy, originOf } from './pages.domain.js';
import { PAGE_CONFIG, envOf, renderError, secure } from './page-http.js';
import { providerRedirectPage, type PageChrome } from './views.js';

export function providerPageRoutes(scope: FastifyInstance, kit: PageKit): void {
  const { service, html } = kit;

  const processorParams = { type: 'object', properties: { connector: { type: 'string', maxLength: 40 }, reference: { type: 'string', maxLength: 100 } }, required: ['connector', 'reference'] };

  scope.get('/processor/:connector/redirect/:reference', {
    config: PAGE_CONFIG,
    schema: {
      operationId: 'showProviderRedirect', summary: 'A provider\'s payment page (a form to it)', tags: ['pages'], security: [],
      description: 'For a started payment whose provider\'s page is reached by a form (Bizum through Redsys: the signed form, posted; PayPal: its approval page): a page that sends the form to the provider. Returns HTML; unknown or settled payments answer 404.',
      params: processorParams,
      response: { 200: { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } }, '4xx': { description: 'A page explaining the problem', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  }, async (req, reply) => {
    const { connector, reference } = req.params as { connector: string; reference: string };
    const form = /^[0-9a-f-]{36}$/.test(reference) ? await service.apmRedirectForm(connector, reference) : null;
    if (!form) return html(reply, 404, renderError(req, reply, { status: 404, details: 'unknown payment' }));
    const lang = chooseLanguage(null, req.headers['accept-language']);
    const nonce = randomBytes(16).toString('base64');
    secure(req, reply, contentSecurityPolicy({ nonce, imgOrigins: [], formTargets: [originOf(form.url)].filter((x): x is string => !!x), frameAncestors: "'none'" }));
    const chrome: PageChrome = { lang, t: translator(lang), nonce, env: envOf(req), template: DEFAULT_TEMPLATES.PAYMENT_CARD, langHref: null };
    return html(reply, 200, providerRedirectPage(chrome, form));
  });
}
