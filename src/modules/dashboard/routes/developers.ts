/** The dashboard API routes of the developers page: API keys, url_post deliveries, the API request log. */
import { badRequest } from '../../../platform/errors/errors.js';
import { responses } from '../../../platform/http/schemas.js';
import * as S from '../dashboard.schemas.js';
import type { Area } from '../areas/kit.js';

export const area: Area = {
  routes({ app, service, done, dash, opts }) {
    app.get('/developers/keys', {
      config: { dashboard: { permission: 'developers.read' } },
      schema: { response: responses(S.KeysResponse) },
    }, async (req) => done({ keys: await service.developers.keys(dash(req)) }));

    app.post('/developers/keys', {
      config: { dashboard: { permission: 'developers.keys' } },
      schema: { body: S.CreateKeyBody, response: responses(S.CreatedKeyResponse) },
    }, async (req) => done(await service.developers.createKey(dash(req), req.body)));

    app.post('/developers/keys/:uuid/revoke', {
      config: { dashboard: { permission: 'developers.keys' } },
      schema: { params: S.OrderParams, response: responses(S.EmptyResponse) },
    }, async (req) => {
      await service.developers.revokeKey(dash(req), req.params.uuid);
      return done({});
    });

    app.get('/developers/deliveries', {
      config: { dashboard: { permission: 'developers.read' } },
      schema: { querystring: S.DeliveriesQuery, response: responses(S.DeliveriesResponse) },
    }, async (req) => done(await service.developers.deliveries(dash(req), { ...req.query, limit: req.query.limit ?? 50 })));

    const presentRequest = (x: { id: string; key_id: string | null; method: string; path: string; status: number; duration_ms: number; idempotency_key: string | null; request_id: string; order_id: string | null; created_at: Date }) => ({
      uuid: x.id, key_uuid: x.key_id, method: x.method, path: x.path, status: x.status, duration_ms: x.duration_ms, idempotency_key: x.idempotency_key,
      request_id: x.request_id, order_uuid: x.order_id, created_at: x.created_at.toISOString(),
    });

    app.get('/developers/requests', {
      config: { dashboard: { permission: 'developers.read' } },
      schema: { querystring: S.RequestsQuery, response: responses(S.RequestsResponse) },
    }, async (req) => {
      const q = req.query;
      const limit = q.limit ?? 50;
      let before: { at: Date; id: string } | undefined;
      if (q.cursor) {
        const m = /^r1:(\d{4}-\d\d-\d\dT[\d:.]+Z):([0-9a-f-]{36})$/.exec(Buffer.from(q.cursor, 'base64url').toString('utf8'));
        if (!m) throw badRequest('cursor is not valid: pass the next_cursor of the previous page unchanged');
        before = { at: new Date(m[1]), id: m[2] };
      }
      const rows = await service.developers.requests(dash(req), { requestId: q.request_id, orderId: q.order_uuid, status: q.status, method: q.method, before, limit: limit + 1 });
      const more = rows.length > limit;
      const page = more ? rows.slice(0, limit) : rows;
      const last = page[page.length - 1];
      return done({
        requests: page.map(presentRequest),
        next_cursor: more ? Buffer.from(`r1:${last.created_at.toISOString()}:${last.id}`).toString('base64url') : null,
        retention_days: opts.requestLogDays,
      });
    });

    app.get('/developers/requests/:uuid', {
      config: { dashboard: { permission: 'developers.read' } },
      schema: { params: S.RequestParams, response: responses(S.RequestResponse) },
    }, async (req) => {
      const x = await service.developers.request(dash(req), req.params.uuid);
      return done({ request: { ...presentRequest(x), request_body: x.request_body, response_body: x.response_body } });
    });
  },
  docs: {
    'GET /developers/keys': { operationId: 'listApiKeys', tag: 'developers', summary: 'API keys', description: 'The merchant\'s API keys: prefix, profiles, description, creation, revocation and last use. Never their values.' },
    'POST /developers/keys': { operationId: 'createApiKey', tag: 'developers', summary: 'Create an API key', description: 'A new key and signature with the profiles given, answered this once. Audited.' },
    'POST /developers/keys/:uuid/revoke': { operationId: 'revokeApiKey', tag: 'developers', summary: 'Revoke an API key', description: 'Requests with the key are refused from now on. Audited.' },
    'GET /developers/deliveries': { operationId: 'listDeliveries', tag: 'developers', summary: 'url_post deliveries', description: 'The merchant\'s notifications with their delivery state, filtered by state or order.' },
    'GET /developers/requests': { operationId: 'listApiRequests', tag: 'developers', summary: 'The API request log', description: 'Every request of the merchant\'s keys, newest first: by request id, status, method or order; paged by `next_cursor`.' },
    'GET /developers/requests/:uuid': { operationId: 'getApiRequest', tag: 'developers', summary: 'One API request with its bodies', description: 'The request and answer bodies, card numbers, CVVs, PIN blocks, signatures and keys redacted.' },
  },
  tag: { name: 'developers', description: 'API keys, url_post deliveries, the API request log' },
};
