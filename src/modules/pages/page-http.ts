/**
 * What every customer page route shares: the page's query (language, template, leave target, ...), the
 * paths and links between pages, the hardening headers, the error page of the platform's error handler
 * and the route config and OpenAPI schema of a page.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Env } from '../../platform/db/schema.js';
import type { PageRoute } from '../../platform/http/types.js';
import { UUID_RE as UUID } from '../../platform/ids.js';
import { DEFAULT_TEMPLATES } from '../templates/index.js';
import { chooseLanguage, translator, type Language, type MessageKey } from './i18n/index.js';
import { contentSecurityPolicy } from './pages.domain.js';
import { statusPage, type LeaveTarget, type PageChrome } from './views.js';
export type PageKind = 'process' | 'tokenized' | 'bizum' | 'checkout' | 'apm' | 'wallet' | 'dcc';

/** What a page keeps in its links: the language, the payment link's template, the leave target. */
export interface PageQuery {
  lang: Language;
  template: string | null;
  result: 'ok' | 'ko' | null;
  /** Which window url_ok / url_ko open in when the page is framed (`?target=`; default top). */
  target: LeaveTarget;
  /** The browser says this request loads a frame (Sec-Fetch-Dest: iframe). */
  framed: boolean;
  /** The APM of the APM page (`?apm=`), upper case; null when absent or not a name. */
  apm: string | null;
  /** The wallet of the wallet page (`?wallet=`), upper case; null when absent or not a name. */
  wallet: string | null;
  /** The offer of the DCC screen (`?offer=`, a uuid), lower case; null when absent or not a uuid. */
  offer: string | null;
}

export const TARGETS: readonly LeaveTarget[] = ['top', 'parent', 'self'];
/** Statuses a payment attempt ends in without the money: the flow goes to url_ko. */
export const ENDED_UNPAID: readonly string[] = ['REFUSED', 'ERROR', 'FRAUD', 'BLACKLISTED'];

export function one(v: unknown): string | undefined {
  if (Array.isArray(v)) return typeof v[0] === 'string' ? v[0] : undefined;
  return typeof v === 'string' ? v : undefined;
}

export function readQuery(req: FastifyRequest): PageQuery & { raw: Record<string, unknown> } {
  const q = (req.query ?? {}) as Record<string, unknown>;
  const template = one(q.template);
  const result = one(q.result);
  const target = one(q.target);
  return {
    raw: q,
    lang: chooseLanguage(one(q.lang), req.headers['accept-language']),
    template: template && UUID.test(template) ? template.toLowerCase() : null,
    result: result === 'ok' || result === 'ko' ? result : null,
    target: TARGETS.includes(target as LeaveTarget) ? (target as LeaveTarget) : 'top',
    framed: req.headers['sec-fetch-dest'] === 'iframe',
    apm: /^[A-Za-z_]{1,20}$/.test(one(q.apm) ?? '') ? one(q.apm)!.toUpperCase() : null,
    wallet: /^[A-Za-z_]{1,20}$/.test(one(q.wallet) ?? '') ? one(q.wallet)!.toUpperCase() : null,
    offer: UUID.test(one(q.offer) ?? '') ? one(q.offer)!.toLowerCase() : null,
  };
}

export function pathOf(env: Env, kind: PageKind, token: string): string {
  return `${env === 'sandbox' ? '/v1/sandbox' : '/v1'}/payment/${kind}/${token}`;
}

export function withQuery(path: string, q: { lang?: Language; template?: string | null; result?: string | null; method?: string; target?: LeaveTarget; leave?: boolean; apm?: string | null; wait?: boolean; wallet?: string | null; offer?: string | null }): string {
  const params = new URLSearchParams();
  if (q.apm) params.set('apm', q.apm);
  if (q.wallet) params.set('wallet', q.wallet);
  if (q.offer) params.set('offer', q.offer);
  if (q.lang) params.set('lang', q.lang);
  if (q.template) params.set('template', q.template);
  if (q.result) params.set('result', q.result);
  if (q.method) params.set('method', q.method);
  if (q.target && q.target !== 'top') params.set('target', q.target);
  if (q.leave) params.set('leave', '1');
  if (q.wait) params.set('wait', '1');
  const s = params.toString();
  return s ? `${path}?${s}` : path;
}

export function envOf(req: FastifyRequest): Env {
  return req.routeOptions.config.env ?? 'sandbox';
}

export function tokenOf(req: FastifyRequest): string {
  return String((req.params as { token?: string }).token ?? '');
}

/** Headers of every page: the CSP of this response and the rest of the hardening. */
export function secure(req: FastifyRequest, reply: FastifyReply, csp: string): void {
  reply.header('Content-Security-Policy', csp);
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Cache-Control', 'no-store');
  reply.header('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
  if (req.protocol === 'https') reply.header('Strict-Transport-Security', 'max-age=31536000');
}

/** The error page of the platform's error handler (no order known: default look, any framing). */
export function renderError(req: FastifyRequest, reply: FastifyReply, error: { status: number; details: string }): string {
  const lang = chooseLanguage(one((req.query as Record<string, unknown> | undefined)?.lang), req.headers['accept-language']);
  const nonce = randomBytes(16).toString('base64');
  secure(req, reply, contentSecurityPolicy({ nonce, imgOrigins: [], formTargets: [], frameAncestors: '*' }));
  const chrome: PageChrome = { lang, t: translator(lang), nonce, env: envOf(req), template: DEFAULT_TEMPLATES.PAYMENT_CARD, langHref: null };
  const [title, text]: [MessageKey, MessageKey] =
    error.status === 403 && /HTTPS/i.test(error.details)
      ? ['error.https.title', 'error.https.text']
      : error.status === 404
        ? ['error.notfound.title', 'error.notfound.text']
        : error.status < 500
          ? ['error.request.title', 'error.request.text']
          : ['error.server.title', 'error.server.text'];
  return statusPage(chrome, { summary: null, icon: error.status >= 500 ? 'bad' : 'info', title, text });
}

export const PAGE: PageRoute = { renderError };
export const PAGE_CONFIG = { auth: 'none' as const, page: PAGE, bodyLimit: 16 * 1024 };

export function pageSchema(operationId: string, summary: string, description: string, withBody = false) {
  return {
    operationId,
    summary,
    description: `${description} Returns HTML. No API key: the order token in the path is the credential.`,
    tags: ['pages'],
    security: [],
    params: { type: 'object', properties: { token: { type: 'string', maxLength: 200 } }, required: ['token'] },
    ...(withBody ? { consumes: ['application/x-www-form-urlencoded'] } : {}),
    response: {
      200: { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } },
      ...(withBody ? { 303: { description: 'Where the customer goes next (Location): url_ok, url_ko, the 3DS challenge or the page again', content: { 'text/html': { schema: { type: 'string' } } } } } : {}),
      '4xx': { description: 'A page explaining the problem in the customer\'s language (404 unknown token, 410 paid or expired, 422 form errors)', content: { 'text/html': { schema: { type: 'string' } } } },
      '5xx': { description: 'A page explaining the problem', content: { 'text/html': { schema: { type: 'string' } } } },
    },
  };
}

/**
 * How a route that shows nothing answers as a page (the processors' callbacks, payments/callbacks.routes.ts):
 * the pages' error page, and their headers with a policy that allows no script, form or frame.
 */
export const PLAIN_PAGE = {
  page: PAGE,
  secure(req: FastifyRequest, reply: FastifyReply): void {
    secure(req, reply, contentSecurityPolicy({ nonce: randomBytes(16).toString('base64'), imgOrigins: [], formTargets: ["'none'"], frameAncestors: "'none'" }));
  },
};
