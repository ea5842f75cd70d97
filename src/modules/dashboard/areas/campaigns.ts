/**
 * The dashboard API routes of MoTo campaigns: the list of the merchant's campaigns and the services a
 * campaign may use (the API has no operation for either). Sending, a campaign's state, its orders and
 * certificates go through the bridge (G1–G5).
 */
import { Type, envelope, responses } from '../../../platform/http/schemas.js';
import { CampaignDetailSchema } from '../../campaigns/index.js';
import type { Area } from './kit.js';

const TAG = 'campaigns';

const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
});
const ListResponse = envelope({
  campaigns: Type.Array(CampaignDetailSchema),
  next_offset: Type.Union([Type.Integer(), Type.Null()], { description: 'the offset of the next page; null on the last' }),
});
const ServicesResponse = envelope({
  services: Type.Array(Type.Object({
    uuid: Type.String(),
    name: Type.String(),
    enabled: Type.Boolean(),
    currency: Type.Union([Type.String(), Type.Null()], { description: "the currency of the service's terminal (ISO 4217), which a campaign's amounts are in; null without a terminal" }),
  })),
});

export const area: Area = {
  routes(kit) {
    kit.app.get('/campaigns', {
      config: { dashboard: { permission: 'moto.read' } },
      schema: { querystring: ListQuery, response: responses(ListResponse) },
    }, async (req) => {
      const ctx = await kit.service.ctx(kit.dash(req));
      const r = await kit.service.deps.campaigns.list(ctx, { limit: req.query.limit ?? 20, offset: req.query.offset ?? 0 });
      return kit.done(r);
    });

    kit.app.get('/campaigns/services', {
      config: { dashboard: { permission: 'moto.read' } },
      schema: { response: responses(ServicesResponse) },
    }, async (req) => {
      const ctx = await kit.service.ctx(kit.dash(req));
      const services = await kit.service.deps.services.listServices(ctx, ctx.merchant.id);
      const terminals = await kit.service.deps.services.listTerminals(ctx);
      const currency = new Map(terminals.map((x) => [x.uuid, x.currency_code]));
      return kit.done({ services: services.map((x) => ({ uuid: x.uuid, name: x.name, enabled: x.enabled, currency: (x.terminal && currency.get(x.terminal)) || null })) });
    });
  },
  docs: {
    'GET /campaigns': {
      operationId: 'listCampaigns',
      summary: 'MoTo campaigns of the merchant',
      description: 'The campaigns of the merchant looked at, newest first (as G1 and G2 answer them: status, type, payment count), paged by `limit` and `next_offset`.',
      tag: TAG,
    },
    'GET /campaigns/services': {
      operationId: 'listCampaignServices',
      summary: 'Services a campaign may use',
      description: 'The merchant\'s services (uuid, name, enabled, and the currency of their terminal) to choose the `service_uuid` of a new campaign and to read its amounts, which are in minor units of that currency.',
      tag: TAG,
    },
  },
  tag: { name: TAG, description: 'MoTo campaigns: the list of campaigns and their services' },
};
