/** HTTP of MoTo campaigns (G1, G2, G5, the campaign's status, and the link customers open). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CSV_BODY_LIMIT } from '../../platform/csv/csv.js';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { FileProblemsResponse, responses } from '../../platform/http/schemas.js';
import { chooseLanguage, escapeHtml, translate } from '../pages/index.js';
import * as S from './campaigns.schemas.js';
import type { CampaignsService } from './campaigns.service.js';

// the `moto` profile covers G1–G5 (reads also `readonly`)
const WRITE = ['moto'] as const;
const READ = ['moto', 'readonly'] as const;
const tags = ['moto'];

function hardened(reply: FastifyReply): void {
  reply.header('Content-Security-Policy', "default-src 'none'; base-uri 'none'; form-action 'none'");
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Cache-Control', 'no-store');
}

/** The link's errors, as a page in the customer's language (never a stack trace). */
const OPEN_PAGE = {
  renderError(req: FastifyRequest, reply: FastifyReply, error: { status: number; details: string }): string {
    const q = req.query as Record<string, unknown> | undefined;
    const lang = chooseLanguage(typeof q?.lang === 'string' ? q.lang : undefined, req.headers['accept-language']);
    hardened(reply);
    reply.type('text/html; charset=utf-8');
    const [title, text] = error.status === 404 ? (['error.notfound.title', 'error.notfound.text'] as const) : error.status < 500 ? (['error.request.title', 'error.request.text'] as const) : (['error.server.title', 'error.server.text'] as const);
    const detail = error.status === 410 ? `<p>${escapeHtml(error.details)}</p>` : '';
    return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(translate(lang, title))}</title></head><body style="font-family:Arial,Helvetica,sans-serif"><h1>${escapeHtml(translate(lang, title))}</h1><p>${escapeHtml(translate(lang, text))}</p>${detail}</body></html>`;
  },
};

export function campaignsRoutes(service: CampaignsService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/moto/campaign/file', {
      config: { profiles: WRITE, bodyLimit: CSV_BODY_LIMIT },
      schema: {
        operationId: 'createCampaignFromFile',
        summary: 'G1 Send payment links (CSV)',
        description: 'One payment per row of the CSV file; each becomes a real order, and its link is sent by SMS (PHONE), e-mail (MAIL) or returned for the merchant to deliver (CUSTOM_DELIVERY). Every row is checked first: rows with problems make the whole file 422 with `errors: [{line, msg}]` (line 1 is the header) and nothing is created. A file that cannot be read (not base64, not UTF-8, not CSV, wrong header, more than 10 MiB or 10,000 rows) is 400. The orders are created and the messages sent in the background; follow them with `GET /moto/campaign/{uuid}`.',
        tags, body: S.FileCampaignBody, response: { ...responses(S.CampaignResponse), 422: FileProblemsResponse },
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
        tags, body: S.JsonCampaignBody, response: { ...responses(S.CampaignResponse), 422: FileProblemsResponse },
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

    app.get('/moto/payment/:moto_payment_uuid/opening-certificate', {
      config: { profiles: READ },
      schema: {
        operationId: 'getOpeningCertificate',
        summary: 'G3 Link-opening certificate',
        description: 'SMS (PHONE) campaigns: a signed PDF stating when the link was sent, delivered and first opened, from which IP address and user agent, with the destination masked. 400 for other campaigns; 409 while the link has not been opened.',
        tags, params: S.PaymentParams, response: responses(S.CertificateResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { certificate: await service.certificate(ctx, req.params.moto_payment_uuid, 'LINK_OPENING') });
    });

    app.get('/moto/payment/:moto_payment_uuid/receipt-certificate', {
      config: { profiles: READ },
      schema: {
        operationId: 'getReceiptCertificate',
        summary: 'G4 Receipt certificate',
        description: 'E-mail and SMS campaigns: a signed PDF stating when the message was sent and delivered (and opened, when it was). 400 for CUSTOM_DELIVERY campaigns; 409 while the message has not been sent.',
        tags, params: S.PaymentParams, response: responses(S.CertificateResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { certificate: await service.certificate(ctx, req.params.moto_payment_uuid, 'RECEIPT') });
    });

    app.get('/certificates/public-key', {
      config: { profiles: READ },
      schema: {
        operationId: 'getCertificatePublicKey',
        summary: 'The key certificates are signed with',
        description: 'The gateway\'s Ed25519 public key (PEM) that verifies the signature of G3 and G4 certificates.',
        tags, response: responses(S.PublicKeyResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.publicKey());
    });

    app.get('/moto/open/:token', {
      config: { auth: 'none', page: OPEN_PAGE },
      schema: {
        operationId: 'openCampaignLink',
        summary: 'The link a campaign sends',
        description: 'What the customer opens. The first opening is recorded (time, IP address, user agent) as evidence; the answer is a small page that goes on at once to the hosted payment page of the order (and links to it). No API key: the token in the path is the credential. 404: unknown link; 410: expired. Returns HTML.',
        tags, security: [], params: S.OpenParams, querystring: S.OpenQuery,
        response: {
          200: { description: 'A page that opens the hosted payment page', content: { 'text/html': { schema: { type: 'string' } } } },
          '4xx': { description: 'A page explaining the problem (404 unknown link, 410 expired)', content: { 'text/html': { schema: { type: 'string' } } } },
          '5xx': { description: 'A page explaining the problem', content: { 'text/html': { schema: { type: 'string' } } } },
        },
      },
    }, async (req, reply) => {
      const env = req.routeOptions.config.env === 'production' ? 'production' : 'sandbox';
      const to = await service.open(env, req.params.token, { ip: req.ip ?? null, userAgent: req.headers['user-agent'] ?? null, lang: req.query.lang ?? null });
      const lang = chooseLanguage(req.query.lang, req.headers['accept-language']);
      hardened(reply);
      const url = escapeHtml(to);
      return reply.type('text/html; charset=utf-8').send(`<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta http-equiv="refresh" content="0;url=${url}"><title>${escapeHtml(translate(lang, 'link.cta'))}</title></head><body style="font-family:Arial,Helvetica,sans-serif"><p><a href="${url}">${escapeHtml(translate(lang, 'link.cta'))}</a></p></body></html>`);
    });
  };
}
