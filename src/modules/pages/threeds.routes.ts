/**
 * B7, tokenized 3-D Secure: the sandbox ACS challenge, and the pages of a processor that runs EMV 3-D
 * Secure 2 itself (3DS method, browser data, the ACS challenge and the way back from it).
 */
import type { FastifyInstance } from 'fastify';
import type { PageKit } from './page-kit.js';
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentSecurityPolicy, originOf } from './pages.domain.js';
import type { PageOrder } from './pages.service.js';
import { PAGE_CONFIG, envOf, pageSchema, pathOf, readQuery, secure, tokenOf, withQuery, type PageQuery } from './page-http.js';
import { acsPage, acsRedirectPage, threedsMethodDonePage, threedsPage } from './views.js';

export function threedsPageRoutes(scope: FastifyInstance, kit: PageKit): void {
  const { service, chromeFor, summaryOf, html, notFound, locate, stateView, afterSubmit } = kit;

  scope.get('/payment/tokenized/:token', {
    config: PAGE_CONFIG,
    schema: pageSchema('showThreeDSPage', 'B7 Tokenized 3D Secure page', 'The 3DS challenge of a payment waiting for it (secure orders, soft declines, B3/B10 answers 303). An order with a stored card that is not paying yet starts its payment with 3DS here. The sandbox ACS lets the cardholder approve or reject.'),
  }, async (req, reply) => {
    const q = readQuery(req);
    let o = await service.load(tokenOf(req), envOf(req));
    if (!o) return notFound(req, reply);
    if (o.view.kind === 'form') {
      if (!o.sourceId) return reply.code(303).header('Location', locate(o, q)({ to: 'page', result: null })).send();
      if (req.method === 'GET') {
        await service.start3dsWithStoredCard(o, req.ip ?? null);
        o = (await service.load(o.token, o.env)) ?? o;
      }
    }
    if (o.view.kind !== 'pending3ds') return stateView(req, reply, o, q, o.view, 'tokenized');
    if (o.acquirerThreeds) return renderAcquirerThreeds(req, reply, o, q);
    const chrome = await chromeFor(req, reply, o, q, 'tokenized');
    return html(reply, 200, acsPage(chrome, {
      summary: summaryOf(o, q.lang),
      action: withQuery(pathOf(o.env, 'tokenized', o.token), { lang: q.lang, template: q.template, target: q.target }),
      formNonce: service.issueNonce(o.token, 'acs'),
      last4: (await service.last4For3ds(o)) ?? '••••',
    }));
  });

  // ---- B7 with a processor that runs EMV 3-D Secure 2 itself: 3DS method, browser data, ACS challenge ------

  const threedsPath = (o: PageOrder) => pathOf(o.env, 'tokenized', o.token);

  async function renderAcquirerThreeds(req: FastifyRequest, reply: FastifyReply, o: PageOrder, q: PageQuery) {
    const start = await service.threedsStart(o, `${service.publicUrl}${threedsPath(o)}/method`);
    if ('ended' in start) return reply.code(303).header('Location', locate(o, q)({ to: 'page', result: null })).header('Cache-Control', 'no-store').send();
    const methodOrigin = start.method ? originOf(start.method.url) : null;
    const chrome = await chromeFor(req, reply, o, q, 'tokenized', methodOrigin ? { formTargets: [methodOrigin], frames: [methodOrigin, "'self'"] } : {});
    return html(reply, 200, threedsPage(chrome, {
      summary: summaryOf(o, q.lang),
      last4: (await service.last4For3ds(o)) ?? '••••',
      action: withQuery(`${threedsPath(o)}/authenticate`, { lang: q.lang, template: q.template, target: q.target }),
      formNonce: service.issueNonce(o.token, 'threeds'),
      method: start.method,
      methodTimeoutMs: 10_000,
    }));
  }

  scope.post('/payment/tokenized/:token/authenticate', {
    config: PAGE_CONFIG,
    schema: pageSchema('submitThreeDSBrowserData', 'EMV 3-D Secure: the browser\'s data', 'The 3DS page of an order whose processor runs EMV 3-D Secure 2 itself posts the browser\'s data (screen, time zone, language, whether the 3DS method ran); the processor approves frictionlessly (303 to url_ok or url_ko) or asks for the ACS challenge (a page that sends the customer to the issuer\'s ACS).', true),
  }, async (req, reply) => {
    const q = readQuery(req);
    const o = await service.load(tokenOf(req), envOf(req));
    if (!o) return notFound(req, reply);
    const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(', ') : v ?? '');
    const out = await service.threedsAuthenticate(
      o, body, { accept: header(req.headers.accept), userAgent: header(req.headers['user-agent']) },
      `${service.publicUrl}${threedsPath(o)}/cres`, locate(o, q), withQuery(threedsPath(o), { lang: q.lang, template: q.template, target: q.target }),
    );
    if (out.kind === 'challenge') {
      const acsOrigin = originOf(out.acsUrl);
      const chrome = await chromeFor(req, reply, o, q, 'tokenized', acsOrigin ? { formTargets: [acsOrigin] } : {});
      return html(reply, 200, acsRedirectPage(chrome, { summary: summaryOf(o, q.lang), acsUrl: out.acsUrl, creq: out.creq, method: out.method, field: out.field }));
    }
    return afterSubmit(req, reply, o, q, out, 'tokenized');
  });

  scope.post('/payment/tokenized/:token/method', {
    config: PAGE_CONFIG,
    schema: pageSchema('threeDSMethodNotification', 'EMV 3-D Secure: the 3DS method is done', 'The issuer\'s 3DS method posts `threeDSMethodData` here in the hidden frame of the 3DS page once it ran; the answer tells the page to go on.', true),
  }, async (req, reply) => {
    const nonce = randomBytes(16).toString('base64');
    secure(req, reply, contentSecurityPolicy({ nonce, imgOrigins: [], formTargets: ["'none'"], frameAncestors: "'self'" }));
    return html(reply, 200, threedsMethodDonePage(nonce));
  });

  scope.post('/payment/tokenized/:token/cres', {
    config: PAGE_CONFIG,
    schema: pageSchema('threeDSChallengeResult', 'EMV 3-D Secure: the ACS challenge\'s answer', 'The issuer\'s ACS posts `cres` here when the cardholder finished the challenge (Worldpay\'s challenge page posts `TransactionId`); the processor gives the payment\'s result and the answer is 303 to url_ok or url_ko.', true),
  }, async (req, reply) => {
    const q = readQuery(req);
    const o = await service.load(tokenOf(req), envOf(req));
    if (!o) return notFound(req, reply);
    const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    const out = await service.threedsComplete(o, body, locate(o, q));
    return afterSubmit(req, reply, o, q, out, 'tokenized');
  });

  scope.get('/payment/tokenized/:token/cres', {
    config: PAGE_CONFIG,
    schema: pageSchema('threeDSRedirectResult', 'EMV 3-D Secure: back from a processor\'s authentication page', 'Processors that run the authentication on their own page send the cardholder back here (Checkout.com with its session id, `cko-session-id`; PayPal with the order, `token`); the processor gives the payment\'s result and the answer is 303 to url_ok or url_ko.'),
  }, async (req, reply) => {
    const q = readQuery(req);
    const o = await service.load(tokenOf(req), envOf(req));
    if (!o) return notFound(req, reply);
    // Checkout.com names its session (cko-session-id), PayPal its order (token)
    const query = req.query as Record<string, unknown>;
    const session = query['cko-session-id'] ?? query.token;
    const out = await service.threedsComplete(o, { cres: typeof session === 'string' ? session : '' }, locate(o, q));
    return afterSubmit(req, reply, o, q, out, 'tokenized');
  });

  scope.post('/payment/tokenized/:token', {
    config: PAGE_CONFIG,
    schema: pageSchema('submitThreeDSChallenge', 'Tokenized 3D Secure page: the challenge answer', 'The sandbox ACS form posts `result` (approve or fail); the payment completes and the answer is 303 to url_ok or url_ko.', true),
  }, async (req, reply) => {
    const q = readQuery(req);
    const o = await service.load(tokenOf(req), envOf(req));
    if (!o) return notFound(req, reply);
    const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    const out = await service.submitChallenge(o, body, locate(o, q));
    return afterSubmit(req, reply, o, q, out, 'tokenized');
  });
}
