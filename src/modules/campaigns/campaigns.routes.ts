/** HTTP of MoTo campaigns (G1, G2, G5, the campaign's status, and the link customers open). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CSV_BODY_LIMIT } from '../../platform/csv/csv.js';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import * as S from './campaigns.schemas.js';
import type { CampaignsService } from './campaigns.service.js';

// decisions: the `moto` profile for G1–G5
const WRITE = ['moto'] as const;
const READ = ['moto', 'readonly'] as const;
const tags = ['moto'];

export function campaignsRoutes(service: CampaignsService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/moto/campaign/file', {
      config: { profiles: WRITE, bodyLimit: CSV_BODY_LIMIT },
      schema: {
        operationId: 'createCampaignFromFile',
        summary: 'G1 Send payment links (CSV)',
        description: 'One payment per row of the CSV file; each becomes a real order, and its link is sent by SMS (PHONE), e-mail (MAIL) or returned for the merchant to deliver (CUSTOM_DELIVERY). Every row is checked first: rows with problems make the whole file 422 with `errors: [{line, msg}]` (line 1 is the header) and nothing is created. A file that cannot be read (not base64, not UTF-8, not CSV, wrong header, more than 10 MiB or 10,000 rows) is 400. The orders are created and the messages sent in the background; follow them with `GET /moto/campaign/{uuid}`.',
        tags, body: S.FileCampaignBody, response: responses(S.CampaignResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.createFromFile(ctx, req.body));
    });

    app.post('/moto/campaign', {
      config: { profiles: WRITE, bodyLimit: CSV_BODY_LIMIT },
      schema: {
        operationId: 'createCampaign',
        summary: 'G2 Send payment links (JSON)',
        description: 'As G1 with the payments in `payments` (at most 10,000); `line` of each payment and of each problem is its position in `payments`, from 1.',
        tags, body: S.JsonCampaignBody, response: responses(S.CampaignResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.createFromJson(ctx, req.body));
    });

    app.get('/moto/campaign/:campaign_uuid', {
      config: { profiles: READ },
      schema: {
        operationId: 'getCampaign',
        summary: 'Read a campaign, its progress and its payments',
        description: 'The campaign with every payment: its order, its status (PENDING, SENT, OPENED, PAID, EXPIRED, FAILED), and when its message was sent, delivered and first opened.',
        tags, params: S.CampaignParams, response: responses(S.CampaignStatusResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.get(ctx, req.params.campaign_uuid));
    });

    app.get('/moto/campaign/:campaign_uuid/orders', {
      config: { profiles: READ },
      schema: {
        operationId: 'listCampaignOrders',
        summary: 'G5 Consult MoTo orders',
        description: 'The orders of a campaign (those created so far). `moToPaymentStatus` is PENDING until the order is paid, then COMPLETED.',
        tags, params: S.CampaignParams, response: responses(S.MotoOrdersResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { orders: await service.orders(ctx, req.params.campaign_uuid) });
    });

    app.get('/moto/open/:token', {
      config: { auth: 'none' },
      schema: {
        operationId: 'openCampaignLink',
        summary: 'The link a campaign sends',
        description: 'What the customer opens. The first opening is recorded (time, IP address, user agent) as evidence; the answer is a 303 to the hosted payment page of the order. No API key: the token in the path is the credential. 404: unknown link; 410: expired.',
        tags, security: [], params: S.OpenParams, querystring: S.OpenQuery,
        response: {
          303: { description: 'To the hosted payment page (Location)', type: 'null' },
          '4xx': responses(S.CampaignResponse)['4xx'],
          '5xx': responses(S.CampaignResponse)['5xx'],
        },
      },
    }, async (req, reply) => {
      const env = req.routeOptions.config.env === 'production' ? 'production' : 'sandbox';
      const to = await service.open(env, req.params.token, { ip: req.ip ?? null, userAgent: req.headers['user-agent'] ?? null, lang: req.query.lang ?? null });
      return reply.code(303).header('Location', to).header('Cache-Control', 'no-store').send(null);
    });
  };
}
