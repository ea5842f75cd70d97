/**
 * The merchant API, for the signed-in user: /dashboard/api/v1/<path> is /v1[/sandbox]/<path>, through the
 * very route a key reaches (with a one-request ticket).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../../platform/errors/errors.js';
import { INTERNAL_TICKET_HEADER } from '../../../platform/http/internal-call.js';
import { redactCardNumbersInUrl } from '../../../platform/logging.js';
import type { Area } from '../areas/kit.js';

export const area: Area = {
  routes({ app, service, dash }) {
    // Everything the contract lets a merchant do, the same route does here: its validation, guards,
    // idempotency, business rules and notifications. The operation must be in API_OPERATIONS and allowed to
    // the user's group (checked by the API's authentication, with the ticket); a change is audited.
    const bridge = async (req: FastifyRequest, reply: FastifyReply) => {
      const s = dash(req);
      const rest = (req.params as { '*': string })['*'] ?? '';
      const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
      if (/(^|\/)\.\.?(\/|$)|\/\/|%2e|%2f|\\/i.test(rest)) throw notFound(`No route ${req.method} ${redactCardNumbersInUrl(req.url.split('?')[0])}`);
      const path = `/v1${s.env === 'sandbox' ? '/sandbox' : ''}/${rest}`;
      const idem = req.headers['idempotency-key'];
      const { res, operationId } = await service.orders.callApi(s, req.method, redactCardNumbersInUrl(path), (ticket, signature) => {
        let payload: string | undefined;
        if (req.method !== 'GET') {
          const body = req.body;
          payload = JSON.stringify(body && typeof body === 'object' && !Array.isArray(body) ? { ...(body as object), signature } : (body ?? {}));
        }
        return reply.server.inject({
          method: req.method as 'GET',
          url: `${path}${query}`,
          headers: {
            [INTERNAL_TICKET_HEADER]: ticket,
            ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
            ...(typeof idem === 'string' ? { 'idempotency-key': idem } : {}),
            ...(typeof req.headers['accept-language'] === 'string' ? { 'accept-language': req.headers['accept-language'] } : {}),
          },
          payload,
        });
      });
      // only a route the ticket was used on answers (an unknown path is the API's own 404)
      if (!operationId && res.statusCode < 400) throw notFound(`No route ${req.method} ${redactCardNumbersInUrl(req.url.split('?')[0])}`);
      reply.code(res.statusCode);
      for (const h of ['content-type', 'content-disposition', 'retry-after', 'allow', 'idempotent-replayed']) {
        const v = res.headers[h];
        if (typeof v === 'string') reply.header(h, v);
      }
      return reply.send(res.rawPayload);
    };
    for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
      app.route({ method, url: '/v1/*', config: { dashboard: { bridge: true } }, exposeHeadRoute: false, schema: {}, handler: bridge });
    }
  },
  docs: {
    'GET /v1/*': { operationId: 'apiRead', tag: 'api', summary: 'Read through the merchant API', description: "The merchant API for the signed-in user: `/v1/{path}` here is `/v1/sandbox/{path}` (sandbox) or `/v1/{path}` (production) of the merchant API, for the merchant looked at, with the same validation, rules, answers and notifications. Write bodies need no `signature`. Only the operations of the dashboard's table, each allowed to the groups of its permission (docs/dashboard.md); any other is 403. Never card data. A change is audited." },
    'POST /v1/*': { operationId: 'apiCreate', tag: 'api', summary: 'Act through the merchant API', description: "The merchant API for the signed-in user: `/v1/{path}` here is `/v1/sandbox/{path}` (sandbox) or `/v1/{path}` (production) of the merchant API, for the merchant looked at, with the same validation, rules, answers and notifications. Write bodies need no `signature`. Only the operations of the dashboard's table, each allowed to the groups of its permission (docs/dashboard.md); any other is 403. Never card data. A change is audited." },
    'PUT /v1/*': { operationId: 'apiUpdate', tag: 'api', summary: 'Change through the merchant API', description: "The merchant API for the signed-in user: `/v1/{path}` here is `/v1/sandbox/{path}` (sandbox) or `/v1/{path}` (production) of the merchant API, for the merchant looked at, with the same validation, rules, answers and notifications. Write bodies need no `signature`. Only the operations of the dashboard's table, each allowed to the groups of its permission (docs/dashboard.md); any other is 403. Never card data. A change is audited." },
    'DELETE /v1/*': { operationId: 'apiDelete', tag: 'api', summary: 'Delete through the merchant API', description: "The merchant API for the signed-in user: `/v1/{path}` here is `/v1/sandbox/{path}` (sandbox) or `/v1/{path}` (production) of the merchant API, for the merchant looked at, with the same validation, rules, answers and notifications. Write bodies need no `signature`. Only the operations of the dashboard's table, each allowed to the groups of its permission (docs/dashboard.md); any other is 403. Never card data. A change is audited." },
  },
  tag: { name: 'api', description: 'The merchant API, through the dashboard\'s session' },
};
