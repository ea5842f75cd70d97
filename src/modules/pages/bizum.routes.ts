/**
 * B5, the Bizum page: the phone number of the paying account, and its post.
 */
import type { FastifyInstance } from 'fastify';
import type { PageKit } from './page-kit.js';
import { PAGE_CONFIG, envOf, pageSchema, readQuery, tokenOf } from './page-http.js';

export function bizumPageRoutes(scope: FastifyInstance, kit: PageKit): void {
  const { service, notFound, locate, stateView, methodUnavailable, renderBizum, afterSubmit } = kit;

  scope.get('/payment/bizum/:token', {
    config: PAGE_CONFIG,
    schema: pageSchema('showBizumPage', 'B5 Bizum page', 'The customer enters the phone number of the paying account. Only on REDSYS-family services with Bizum enabled (`bizum_enabled`), for AUTHORIZATION orders. Sandbox: 700000000 pays, 700000001 is refused.'),
  }, async (req, reply) => {
    const q = readQuery(req);
    const o = await service.load(tokenOf(req), envOf(req));
    if (!o) return notFound(req, reply);
    if (o.view.kind !== 'form') return stateView(req, reply, o, q, o.view, 'bizum');
    if (!o.bizum) return methodUnavailable(req, reply, o, q, 'bizum');
    return renderBizum(req, reply, o, q, 200);
  });

  scope.post('/payment/bizum/:token', {
    config: PAGE_CONFIG,
    schema: pageSchema('submitBizumPage', 'Bizum page: pay', 'The Bizum form posts `phone`; answers 303 to url_ok or url_ko.', true),
  }, async (req, reply) => {
    const q = readQuery(req);
    const o = await service.load(tokenOf(req), envOf(req));
    if (!o) return notFound(req, reply);
    if (!o.bizum) return methodUnavailable(req, reply, o, q, 'bizum');
    const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    const out = await service.submitBizum(o, body, req.ip ?? null, locate(o, q));
    return afterSubmit(req, reply, o, q, out, 'bizum');
  });
}
