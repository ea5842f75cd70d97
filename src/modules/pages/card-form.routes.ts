/**
 * HTTP of the embedded card form (decisions §10):
 *  - `GET /js/v1-iframe.js` at the host root: the loader merchant pages include (global `paylands`);
 *  - `GET /v1[/sandbox]/card-form/{customerToken}`: the form, a page in the merchant page's iframe;
 *  - `POST` to the same path: the frame stores the typed card (JSON in, the `savedCard` record out).
 * The form's framing follows the merchant's page settings (`PUT /page-settings`, CSP frame-ancestors).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Env } from '../../platform/db/schema.js';
import type { PageRoute } from '../../platform/http/types.js';
import { frameAncestorsDirective } from '../templates/index.js';
import { widgetScript } from './assets.js';
import { todayOf } from './card.domain.js';
import { chooseLanguage, translator, type MessageKey } from './i18n/index.js';
import { contentSecurityPolicy, originOf } from './pages.domain.js';
import type { PagesService } from './pages.service.js';
import { cardFormPage, statusPage, type PageChrome } from './views.js';
import { DEFAULT_TEMPLATES } from '../templates/index.js';

/** How long browsers and CDNs may keep the loader before asking again (ETag revalidation after). */
export const WIDGET_MAX_AGE_S = 3600;

function one(v: unknown): string | undefined {
  if (Array.isArray(v)) return typeof v[0] === 'string' ? v[0] : undefined;
  return typeof v === 'string' ? v : undefined;
}

function envOf(req: FastifyRequest): Env {
  return req.routeOptions.config.env ?? 'sandbox';
}

function tokenOf(req: FastifyRequest): string {
  return String((req.params as { token?: string }).token ?? '');
}

function langOf(req: FastifyRequest) {
  return chooseLanguage(one((req.query as Record<string, unknown> | undefined)?.lang), req.headers['accept-language']);
}

function hardening(req: FastifyRequest, reply: FastifyReply, csp: string) {
  reply.header('Content-Security-Policy', csp);
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Cache-Control', 'no-store');
  reply.header('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
  if (req.protocol === 'https') reply.header('Strict-Transport-Security', 'max-age=31536000');
}

/** Errors of the form's routes: a page in the frame saying so (the platform's error handler calls it). */
function renderError(req: FastifyRequest, reply: FastifyReply, error: { status: number; details: string }): string {
  const lang = langOf(req);
  const nonce = randomBytes(16).toString('base64');
  hardening(req, reply, contentSecurityPolicy({ nonce, imgOrigins: [], formTargets: ["'none'"], frameAncestors: '*' }));
  const chrome: PageChrome = { lang, t: translator(lang), nonce, env: envOf(req), template: DEFAULT_TEMPLATES.PAYMENT_CARD, langHref: null };
  const [title, text]: [MessageKey, MessageKey] = error.status < 500 ? ['error.request.title', 'error.request.text'] : ['error.server.title', 'error.server.text'];
  return statusPage(chrome, { summary: null, icon: error.status >= 500 ? 'bad' : 'info', title, text });
}

const PAGE: PageRoute = { renderError };
const CONFIG = { auth: 'none' as const, page: PAGE, bodyLimit: 16 * 1024 };
const PARAMS = { type: 'object', properties: { token: { type: 'string', maxLength: 200 } }, required: ['token'] };
const HTML = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

const str = { type: 'string' };
const strOrNull = { type: ['string', 'null'] };
const SavedCard = {
  type: 'object',
  description: 'The `savedCard` record the frame posts to the merchant page',
  properties: {
    code: { type: 'integer' },
    current_time: str,
    source: {
      type: 'object',
      properties: {
        uuid: str, type: str, brand: str, holder: str, bin: { type: 'integer' }, last4: str, expire_month: str, expire_year: str,
        additional: strOrNull, validation_date: strOrNull, creation_date: str,
      },
    },
    customer: { type: 'object', properties: { external_id: str } },
  },
};
const JsonError = { type: 'object', properties: { error: { type: 'object', properties: { message: { type: 'string' } } } } };

/** The form's routes, inside the pages' plugin scope (under /v1 and /v1/sandbox). */
export function cardFormRoutes(scope: FastifyInstance, service: PagesService, opts: { timezone: string }) {
  const path = (env: Env, token: string) => `${env === 'sandbox' ? '/v1/sandbox' : '/v1'}/card-form/${token}`;

  scope.get('/card-form/:token', {
    config: CONFIG,
    schema: {
      operationId: 'showCardForm',
      summary: 'Embedded card form (iframe)',
      description:
        'The card form `/js/v1-iframe.js` shows in an iframe of the merchant\'s page, for the customer whose token `POST /customer` returned (`origin`: the merchant page\'s origin, the only one the frame talks to). ' +
        'Framing follows `PUT /page-settings`. An expired, revoked or unknown token shows a message and posts `error: {"message": ...}` to the page. Returns HTML.',
      tags: ['pages'], security: [], params: PARAMS,
      response: { 200: HTML('The form'), 410: HTML('The token has expired or was revoked'), '4xx': HTML('A page explaining the problem'), '5xx': HTML('A page explaining the problem') },
    },
  }, async (req, reply) => {
    const env = envOf(req);
    const lang = langOf(req);
    const query = (req.query ?? {}) as Record<string, unknown>;
    const referer = one(req.headers.referer);
    const parentOrigin = originOf(one(query.origin)) ?? originOf(referer);
    const customer = await service.cardForm.load(tokenOf(req), env);
    const { template, ancestors } = customer ? await service.cardForm.chrome(customer.merchantId, env) : { template: DEFAULT_TEMPLATES.PAYMENT_CARD, ancestors: null };
    const nonce = randomBytes(16).toString('base64');
    hardening(req, reply, contentSecurityPolicy({ nonce, imgOrigins: [], formTargets: ["'none'"], frameAncestors: frameAncestorsDirective(ancestors), connect: ["'self'"] }));
    const chrome: PageChrome = { lang, t: translator(lang), nonce, env, template, langHref: null };
    if (!customer) {
      return reply.code(410).type('text/html; charset=utf-8').send(cardFormPage(chrome, { parentOrigin, state: 'expired', action: '', formNonce: '', today: '' }));
    }
    const today = todayOf(customer.now);
    return reply.type('text/html; charset=utf-8').send(
      cardFormPage(chrome, {
        parentOrigin,
        state: 'form',
        action: `${path(env, customer.token)}?lang=${lang}`,
        formNonce: service.issueNonce(customer.token, 'card-form'),
        today: `${today.year}-${String(today.month).padStart(2, '0')}`,
      }),
    );
  });

  scope.post('/card-form/:token', {
    config: CONFIG,
    schema: {
      operationId: 'storeCardFromForm',
      summary: 'Embedded card form: store the card',
      description:
        'The form\'s frame posts the typed card here (JSON: `nonce`, `holder`, `number`, `expiry`, `cvv`); the card is validated through the merchant\'s first enabled card service (CVV included, used once) and stored for the token\'s customer. ' +
        'Answers the `savedCard` record, or `{error: {message}}` in the customer\'s language (410 expired token, 422 invalid fields, 400 card refused, 429 too many failed tries).',
      tags: ['pages'], security: [], params: PARAMS,
      response: {
        200: { description: 'The stored card', content: { 'application/json': { schema: SavedCard } } },
        '4xx': { description: 'What went wrong, for the customer', content: { 'application/json': { schema: JsonError } } },
        '5xx': { description: 'What went wrong', content: { 'application/json': { schema: JsonError } } },
      },
    },
  }, async (req, reply) => {
    const env = envOf(req);
    const t = translator(langOf(req));
    reply.header('Cache-Control', 'no-store');
    reply.header('X-Content-Type-Options', 'nosniff');
    const fail = (status: number, key: MessageKey) => reply.code(status).type('application/json; charset=utf-8').send({ error: { message: t(key) } });
    const customer = await service.cardForm.load(tokenOf(req), env);
    if (!customer) return fail(410, 'cardform.expired');
    const body = (req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {}) as Record<string, unknown>;
    if (!service.verifyNonce(customer.token, 'card-form', body.nonce)) return fail(400, 'error.request.text');
    const out = await service.cardForm.store(customer, body, opts.timezone);
    if (!out.ok) return fail(out.status, out.message);
    return reply.type('application/json; charset=utf-8').send(out.body);
  });
}

/**
 * `GET /js/v1-iframe.js` at the host root: the loader of the embedded card form, as a widget is served:
 * cacheable (an ETag for revalidation), loadable from any origin (CORS, CORP), never sniffed.
 */
export function widgetRoutes(opts: { publicUrl: string }) {
  const body = widgetScript(opts.publicUrl);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return async (app: FastifyInstance) => {
    app.get('/js/v1-iframe.js', { schema: { hide: true } }, async (req, reply) => {
      reply.header('Access-Control-Allow-Origin', '*');
      reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('Cache-Control', `public, max-age=${WIDGET_MAX_AGE_S}`);
      reply.header('ETag', etag);
      reply.header('Vary', 'Accept-Encoding');
      const inm = one(req.headers['if-none-match']);
      if (inm && inm.split(',').map((x) => x.trim().replace(/^W\//, '')).includes(etag)) return reply.code(304).send();
      return reply.type('text/javascript; charset=utf-8').send(body);
    });
  };
}
