/**
 * HTTP of the customer pages: B4 hosted payment page, B5 Bizum, B7 tokenized 3DS (with the sandbox ACS
 * challenge), and the checkout. Registered with registerApi like every route (so they exist under /v1
 * and /v1/sandbox and know their environment) with `auth: 'none'` (the order token is the credential)
 * and `page`, so every error, whatever throws it, is an HTML page in the customer's language.
 *
 * GET renders; POST takes the page's form (application/x-www-form-urlencoded, parsed only here) and
 * answers 303 to where the customer goes next (Post/Redirect/Get), so a reload never posts again.
 */
import { declarationNamed } from '../../processors/connectors.js';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import type { Env } from '../../platform/db/schema.js';
import type { PageRoute } from '../../platform/http/types.js';
import { DEFAULT_TEMPLATES, frameAncestorsDirective, logoOrigin, type PageTemplate } from '../templates/index.js';
import { todayOf, type CardFormErrors } from './card.domain.js';
import { chooseLanguage, formatMoney, localeOf, translator, type Language, type MessageKey } from './i18n/index.js';
import { PAID_STATUSES, checkoutMethods, contentSecurityPolicy, destinationAfter, originOf, statusOfView, type Destination, type PageView } from './pages.domain.js';
import type { PageOrder, PagesService, SubmitOutcome } from './pages.service.js';
import { cardFormRoutes } from './card-form.routes.js';
import { acsPage, acsRedirectPage, providerRedirectPage, threedsMethodDonePage, threedsPage, apmStartPage, apmWaitPage, bizumPage, cardPage, checkoutPage, sandboxApmPage, statusPage, type ApmView, type LeaveTarget, type OrderSummary, type PageChrome } from './views.js';
import { barcodeSvg, qrSvg } from './codes.js';
import { dccPage } from './dcc.view.js';
import { firstChoice } from '../dcc/index.js';
import { currencyByCode } from '../../platform/money/currency.js';
import { APM_VALUES, SANDBOX_PUSH_PHONES } from '../payment-methods/index.js';
import { walletPage, walletSection, type WalletButton } from './wallet-view.js';
import type { Wallet } from '../wallets/index.js';
import { UUID_RE as UUID } from '../../platform/ids.js';


type PageKind = 'process' | 'tokenized' | 'bizum' | 'checkout' | 'apm' | 'wallet' | 'dcc';

/** What a page keeps in its links: the language, the payment link's template, the leave target. */
interface PageQuery {
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

const TARGETS: readonly LeaveTarget[] = ['top', 'parent', 'self'];
/** Statuses a payment attempt ends in without the money: the flow goes to url_ko. */
const ENDED_UNPAID: readonly string[] = ['REFUSED', 'ERROR', 'FRAUD', 'BLACKLISTED'];

function one(v: unknown): string | undefined {
  if (Array.isArray(v)) return typeof v[0] === 'string' ? v[0] : undefined;
  return typeof v === 'string' ? v : undefined;
}

function readQuery(req: FastifyRequest): PageQuery & { raw: Record<string, unknown> } {
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

function pathOf(env: Env, kind: PageKind, token: string): string {
  return `${env === 'sandbox' ? '/v1/sandbox' : '/v1'}/payment/${kind}/${token}`;
}

function withQuery(path: string, q: { lang?: Language; template?: string | null; result?: string | null; method?: string; target?: LeaveTarget; leave?: boolean; apm?: string | null; wait?: boolean; wallet?: string | null; offer?: string | null }): string {
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

function envOf(req: FastifyRequest): Env {
  return req.routeOptions.config.env ?? 'sandbox';
}

function tokenOf(req: FastifyRequest): string {
  return String((req.params as { token?: string }).token ?? '');
}

/** Headers of every page: the CSP of this response and the rest of the hardening. */
function secure(req: FastifyRequest, reply: FastifyReply, csp: string): void {
  reply.header('Content-Security-Policy', csp);
  reply.header('Referrer-Policy', 'no-referrer');
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Cache-Control', 'no-store');
  reply.header('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
  if (req.protocol === 'https') reply.header('Strict-Transport-Security', 'max-age=31536000');
}

/** The error page of the platform's error handler (no order known: default look, any framing). */
function renderError(req: FastifyRequest, reply: FastifyReply, error: { status: number; details: string }): string {
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

const PAGE: PageRoute = { renderError };
const PAGE_CONFIG = { auth: 'none' as const, page: PAGE, bodyLimit: 16 * 1024 };

function pageSchema(operationId: string, summary: string, description: string, withBody = false) {
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

export function pagesRoutes(service: PagesService, opts: { timezone: string }) {
  return async (scope: FastifyInstance) => {
    // form posts are accepted by the pages only; API routes keep refusing anything but JSON
    await scope.register(formbody, { bodyLimit: 16 * 1024 });

    // the embedded card form (decisions §10), opened with a customer token
    cardFormRoutes(scope, service, opts);

    /** Everything a page response needs besides its body. */
    async function chromeFor(req: FastifyRequest, reply: FastifyReply, o: PageOrder, q: PageQuery, kind: PageKind, extra: { formTargets?: string[]; frames?: string[] } = {}): Promise<PageChrome> {
      // the DCC offer screen has its own template type (the order's dcc_template_uuid)
      const [template, ancestors] = await Promise.all([kind === 'dcc' ? service.dccTemplate(o) : service.template(o, q.template), service.frameAncestors(o)]);
      const nonce = randomBytes(16).toString('base64');
      secure(
        req,
        reply,
        contentSecurityPolicy({
          nonce,
          imgOrigins: template.logoUrl ? [logoOrigin(template.logoUrl)] : [],
          formTargets: [originOf(o.urlOk), originOf(o.urlKo), ...(extra.formTargets ?? [])].filter((x): x is string => !!x),
          frameAncestors: frameAncestorsDirective(ancestors),
          frames: extra.frames,
        }),
      );
      const path = pathOf(o.env, kind, o.token);
      // a checkout's customization (theme, font) applies to every page of its order
      const checkout = o.checkout;
      return {
        lang: q.lang,
        t: translator(q.lang),
        nonce,
        env: o.env,
        template,
        theme: checkout?.theme,
        font: checkout?.font,
        langHref: (lang) => withQuery(path, { lang, template: q.template, target: q.target, method: kind === 'process' && checkout ? 'card' : undefined, apm: kind === 'apm' ? q.apm : undefined, wallet: kind === 'wallet' ? q.wallet : undefined, offer: kind === 'dcc' ? q.offer : undefined }),
        orderUuid: o.id,
      };
    }

    function summaryOf(o: PageOrder, lang: Language): OrderSummary {
      const checkout = o.checkout;
      return { merchant: o.merchantName, amount: service.amount(o, lang), description: checkout?.description ?? o.description, orderNumber: checkout?.orderNumber ?? null };
    }

    function html(reply: FastifyReply, status: number, body: string) {
      return reply.code(status).type('text/html; charset=utf-8').send(body);
    }

    /**
     * A merchant URL as a Location header can carry it. URLs are normalised when the order is created;
     * an order stored before that rule may still hold `€` or CR/LF: encoded here, so the redirect after
     * a successful payment never fails.
     */
    function headerSafeUrl(url: string): string {
      try {
        return new URL(url.replace(/[\u0000-\u001f\u007f]/g, '')).href;
      } catch {
        return encodeURI(url.replace(/[\u0000-\u001f\u007f]/g, ''));
      }
    }

    function notFound(req: FastifyRequest, reply: FastifyReply) {
      return html(reply, 404, renderError(req, reply, { status: 404, details: 'unknown token' }));
    }

    /**
     * Where a Destination is, as a URL (relative for our pages). url_ok / url_ko from a framed page go
     * through the leave page, which posts the outcome to the parent and opens them in the target window.
     */
    function locate(o: PageOrder, q: PageQuery) {
      return (d: Destination): string => {
        if (d.to === 'url') return q.framed && q.target !== 'self' ? withQuery(pathOf(o.env, 'process', o.token), { lang: q.lang, template: q.template, target: q.target, leave: true }) : headerSafeUrl(d.url);
        if (d.to === '3ds') return withQuery(pathOf(o.env, 'tokenized', o.token), { lang: q.lang, template: q.template, target: q.target });
        return withQuery(pathOf(o.env, 'process', o.token), { lang: q.lang, template: q.template, target: q.target, result: d.result, method: o.checkout ? 'card' : undefined });
      };
    }

    /** The page of an order that is not waiting for a form (paid, processing, expired, ...). */
    async function stateView(req: FastifyRequest, reply: FastifyReply, o: PageOrder, q: PageQuery, view: PageView, kind: PageKind) {
      const chrome = await chromeFor(req, reply, o, q, kind);
      const summary = summaryOf(o, q.lang);
      const status = statusOfView(view, q.result);
      const t = chrome.t;
      const back = (url: string | null) => (url ? [{ href: url, label: t('action.back'), target: q.target }] : []);
      switch (view.kind) {
        case 'paid':
          return q.result === 'ok'
            ? html(reply, status, statusPage(chrome, { summary, icon: 'ok', title: 'result.paid.title', text: 'result.paid.text', params: { amount: summary.amount, merchant: summary.merchant }, actions: back(o.urlOk) }))
            : html(reply, status, statusPage(chrome, { summary, icon: 'ok', title: 'error.used.title', text: 'error.used.text', actions: back(o.urlOk) }));
        case 'processing':
          return html(reply, status, statusPage(chrome, { summary, icon: 'wait', title: 'result.processing.title', text: 'result.processing.text', refreshSeconds: 2 }));
        case 'pending3ds':
          return html(reply, status, statusPage(chrome, {
            summary, icon: 'wait', title: 'result.pending3ds.title', text: 'result.pending3ds.text',
            actions: [{ href: withQuery(pathOf(o.env, 'tokenized', o.token), { lang: q.lang, template: q.template, target: q.target }), label: t('action.continue') }],
          }));
        case 'expired':
          return html(reply, status, statusPage(chrome, { summary, icon: 'info', title: 'error.expired.title', text: 'error.expired.text', actions: back(o.urlKo) }));
        case 'attempts':
          return html(reply, status, statusPage(chrome, { summary, icon: 'bad', title: 'error.attempts.title', text: 'error.attempts.text', actions: back(o.urlKo) }));
        case 'closed':
        default:
          return html(reply, status, statusPage(chrome, { summary, icon: 'info', title: 'error.closed.title', text: 'error.closed.text', actions: back(o.urlKo) }));
      }
    }

    async function methodUnavailable(req: FastifyRequest, reply: FastifyReply, o: PageOrder, q: PageQuery, kind: PageKind) {
      const chrome = await chromeFor(req, reply, o, q, kind);
      return html(reply, 400, statusPage(chrome, { summary: summaryOf(o, q.lang), icon: 'info', title: 'error.method.title', text: 'error.method.text', actions: o.urlKo ? [{ href: o.urlKo, label: chrome.t('action.back'), target: q.target }] : [] }));
    }

    async function renderCardForm(req: FastifyRequest, reply: FastifyReply, o: PageOrder, q: PageQuery, status: number, state: { errors?: CardFormErrors; values?: { holder: string; expiry: string } } = {}) {
      const chrome = await chromeFor(req, reply, o, q, 'process');
      const today = todayOf(o.now);
      const alternatives = !o.checkout && o.bizum ? [{ href: withQuery(pathOf(o.env, 'bizum', o.token), { lang: q.lang, template: q.template, target: q.target }), label: chrome.t('bizum.title') }] : [];
      // the wallet buttons (a checkout lists the wallets as methods of their own instead)
      const wallets = o.checkout ? null : walletSection(chrome, { buttons: o.wallets.map((w) => walletButton(o, q, w)), amount: service.amount(o, q.lang) });
      return html(reply, status, cardPage(chrome, {
        summary: summaryOf(o, q.lang),
        action: withQuery(pathOf(o.env, 'process', o.token), { lang: q.lang, template: q.template, target: q.target, method: o.checkout ? 'card' : undefined }),
        formNonce: service.issueNonce(o.token, 'card'),
        today: `${today.year}-${String(today.month).padStart(2, '0')}`,
        values: state.values ?? { holder: '', expiry: '' },
        errors: state.errors ?? {},
        notice: (o.status === 'REFUSED' || o.status === 'ERROR') && !state.errors ? 'refused' : null,
        alternatives,
        wallets,
      }));
    }

    function walletPath(o: PageOrder, q: PageQuery, wallet: Wallet): string {
      return withQuery(pathOf(o.env, 'wallet', o.token), { lang: q.lang, template: q.template, target: q.target, wallet });
    }

    function walletButton(o: PageOrder, q: PageQuery, wallet: Wallet): WalletButton {
      return { wallet, label: service.walletLabel(wallet), action: walletPath(o, q, wallet), formNonce: service.issueNonce(o.token, 'wallet') };
    }

    async function renderBizum(req: FastifyRequest, reply: FastifyReply, o: PageOrder, q: PageQuery, status: number, state: { phone?: string; error?: MessageKey } = {}) {
      const chrome = await chromeFor(req, reply, o, q, 'bizum');
      return html(reply, status, bizumPage(chrome, {
        summary: summaryOf(o, q.lang),
        action: withQuery(pathOf(o.env, 'bizum', o.token), { lang: q.lang, template: q.template, target: q.target }),
        formNonce: service.issueNonce(o.token, 'bizum'),
        phone: state.phone ?? '',
        error: state.error ?? null,
        notice: (o.status === 'REFUSED' || o.status === 'ERROR') && !state.error ? 'refused' : null,
      }));
    }

    /** After a form post: 303 to where the customer goes, or a page when the form must be shown again. */
    async function afterSubmit(req: FastifyRequest, reply: FastifyReply, o: PageOrder, q: PageQuery, out: SubmitOutcome, kind: PageKind) {
      const here = locate(o, q);
      switch (out.kind) {
        case 'redirect':
          return reply.code(303).header('Location', here(out.destination)).header('Cache-Control', 'no-store').send();
        case 'duplicate':
          return reply.code(303).header('Location', out.location ?? here({ to: 'page', result: null })).header('Cache-Control', 'no-store').send();
        case 'invalid': {
          const fresh = (await service.load(o.token, o.env)) ?? o;
          if (fresh.view.kind !== 'form') return reply.code(303).header('Location', here({ to: 'page', result: null })).send();
          return renderCardForm(req, reply, fresh, q, 422, { errors: out.errors, values: out.values });
        }
        case 'invalid-phone':
          return renderBizum(req, reply, o, q, 422, { phone: out.phone, error: 'err.phone.invalid' });
        case 'goto':
          return reply.code(303).header('Location', out.location).header('Cache-Control', 'no-store').send();
        case 'state':
          return reply.code(303).header('Location', kind === 'bizum' && o.view.kind === 'form' ? withQuery(pathOf(o.env, 'bizum', o.token), { lang: q.lang, template: q.template, target: q.target }) : here({ to: 'page', result: null })).send();
        case 'invalid-apm-phone':
          return reply.code(303).header('Location', here({ to: 'page', result: null })).send();
        case 'error':
        default:
          return html(reply, out.status, renderError(req, reply, { status: out.status, details: 'page form' }));
      }
    }

    // ---- B4: the hosted payment page ----------------------------------------------------------------------

    /**
     * The last page of a framed flow: posts `paygate:outcome` to the parent and sends the target window
     * to url_ok or url_ko (by script; without it, the customer follows the link, target="_top").
     */
    async function leavePage(req: FastifyRequest, reply: FastifyReply, o: PageOrder, q: PageQuery) {
      // only once a payment attempt ended (paid, or refused and payable again); otherwise the usual page
      if (!PAID_STATUSES.includes(o.status) && !ENDED_UNPAID.includes(o.status)) return null;
      const d = destinationAfter(o.status, { ok: o.urlOk, ko: o.urlKo });
      if (d.to !== 'url') return null;
      const paid = PAID_STATUSES.includes(o.status);
      const chrome = await chromeFor(req, reply, o, q, 'process');
      const summary = summaryOf(o, q.lang);
      const outcome = { type: 'paygate:outcome', status: o.status, result: paid ? 'ok' : 'ko', order_uuid: o.id, amount: o.amount, currency: o.currency.code };
      return html(reply, 200, statusPage(chrome, {
        summary,
        icon: paid ? 'ok' : 'bad',
        title: paid ? 'result.paid.title' : 'result.refused.title',
        text: paid ? 'result.paid.text' : 'result.refused.text',
        params: { amount: summary.amount, merchant: summary.merchant },
        actions: [{ href: d.url, label: chrome.t('action.continue'), target: q.target, id: 'pg-leave' }],
        outcome,
      }));
    }

    scope.get('/payment/process/:token', {
      config: PAGE_CONFIG,
      schema: pageSchema('showPaymentPage', 'B4 Hosted payment page', 'The card form (holder, number, expiry, CVV) with live validation; `lang` (ES, EN, CA, EU, GL, PT, FR, DE, IT, NL, PL, RO, SV, DA; else Accept-Language, else ES); `apm=BIZUM` goes to the Bizum page; an order with `extra_data.checkout` goes to the checkout. Paid, expired or unknown tokens show a page saying so (410, 410, 404). In an iframe, `url_ok`/`url_ko` open in the top window (`target=parent` or `target=self` choose another) and the page posts `paygate:height` and `paygate:outcome` messages to its parent.'),
    }, async (req, reply) => {
      const q = readQuery(req);
      const o = await service.load(tokenOf(req), envOf(req));
      if (!o) return notFound(req, reply);
      if (one(q.raw.leave) === '1') {
        const left = await leavePage(req, reply, o, q);
        if (left) return left;
      }
      const apm = one(q.raw.apm);
      if (apm !== undefined && apm !== '') {
        const a = apm.toUpperCase();
        if (a === 'BIZUM' && o.bizum) return reply.code(303).header('Location', withQuery(pathOf(o.env, 'bizum', o.token), { lang: q.lang, template: q.template, target: q.target })).send();
        if (!(APM_VALUES as readonly string[]).includes(a)) return html(reply, 400, renderError(req, reply, { status: 400, details: 'apm' }));
        if (service.apmOf(o, a)) return reply.code(303).header('Location', apmPath(o, q, a)).send();
        return methodUnavailable(req, reply, o, q, 'process');
      }
      if (o.view.kind === 'processing') {
        // an APM payment waiting for the customer: its page (the phone, the voucher, the provider)
        const pending = await service.pendingApm(o);
        if (pending) return reply.code(303).header('Location', apmPath(o, q, pending.apm)).send();
      }
      if (o.checkout && one(q.raw.method) !== 'card' && o.view.kind === 'form') {
        return reply.code(303).header('Location', withQuery(pathOf(o.env, 'checkout', o.token), { lang: q.lang, template: q.template, target: q.target })).send();
      }
      if (o.view.kind !== 'form') return stateView(req, reply, o, q, o.view, 'process');
      if (!service.methods(o).includes('CARD')) return methodUnavailable(req, reply, o, q, 'process');
      return renderCardForm(req, reply, o, q, 200);
    });

    scope.post('/payment/process/:token', {
      config: PAGE_CONFIG,
      schema: pageSchema('submitPaymentPage', 'Hosted payment page: pay', 'The card form posts here; answers 303 to url_ok, url_ko, the 3DS challenge, or the page again with the problems shown.', true),
    }, async (req, reply) => {
      const q = readQuery(req);
      const o = await service.load(tokenOf(req), envOf(req));
      if (!o) return notFound(req, reply);
      const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
      const out = await service.submitCard(o, body, req.ip ?? null, locate(o, q), (offerId) => dccPath(o, q, offerId));
      return afterSubmit(req, reply, o, q, out, 'process');
    });

    // ---- dynamic currency conversion: the offer screen (dcc.view.ts, docs/dcc.md) ---------------------------

    function dccPath(o: PageOrder, q: PageQuery, offerId: string): string {
      return withQuery(pathOf(o.env, 'dcc', o.token), { lang: q.lang, template: q.template, target: q.target, offer: offerId });
    }

    scope.get('/payment/dcc/:token', {
      config: PAGE_CONFIG,
      schema: pageSchema('showDccPage', 'Dynamic currency conversion: the offer', 'After a card in another currency than the order\'s was posted on the hosted page of an order whose service allows DCC (`dcc_allowed`, `dcc_mode` DYNAMIC or FOREIGN): the amount in both currencies, the rate with its margin over the reference rate, its source and validity, and two buttons: pay in the card\'s currency or in the order\'s. Styled by the order\'s DCC template (`dcc_template_uuid`). `offer` names the offer; one that lapsed or was chosen shows a page leading back to the card form (410).'),
    }, async (req, reply) => {
      const q = readQuery(req);
      const o = await service.load(tokenOf(req), envOf(req));
      if (!o) return notFound(req, reply);
      if (o.view.kind !== 'form') return stateView(req, reply, o, q, o.view, 'dcc');
      const offer = await service.dccOffer(o, q.offer ?? undefined);
      const chrome = await chromeFor(req, reply, o, q, 'dcc');
      const summary = summaryOf(o, q.lang);
      const cardPage = withQuery(pathOf(o.env, 'process', o.token), { lang: q.lang, template: q.template, target: q.target, method: o.checkout ? 'card' : undefined });
      if (!offer || offer.expires_at.getTime() <= o.now.getTime()) {
        return html(reply, 410, statusPage(chrome, { summary, icon: 'info', title: 'dcc.expired.title', text: 'dcc.expired.text', actions: [{ href: cardPage, label: chrome.t('card.title') }] }));
      }
      const locale = localeOf(q.lang);
      const names = new Intl.DisplayNames([locale], { type: 'currency' });
      const cardCurrency = currencyByCode(offer.cardholder_currency) ?? { code: offer.cardholder_currency, number: '', digits: 2 };
      const decimal = new Intl.NumberFormat(locale, { maximumFractionDigits: 8 });
      return html(reply, 200, dccPage(chrome, {
        summary,
        action: withQuery(pathOf(o.env, 'dcc', o.token), { lang: q.lang, template: q.template, target: q.target }),
        formNonce: service.issueNonce(o.token, 'dcc'),
        offerId: offer.id,
        first: firstChoice(offer.mode),
        order: { code: o.currency.code, name: names.of(o.currency.code) ?? o.currency.code, amount: formatMoney(q.lang, o.amount, o.currency) },
        card: { code: cardCurrency.code, name: names.of(cardCurrency.code) ?? cardCurrency.code, amount: formatMoney(q.lang, offer.cardholder_amount, cardCurrency) },
        last4: offer.card_last4,
        rate: `1 ${o.currency.code} = ${decimal.format(Number(offer.rate))} ${cardCurrency.code}`,
        markup: new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(Number(offer.markup) / 100),
        source: offer.source,
        until: `${new Intl.DateTimeFormat(locale, { timeStyle: 'short', timeZone: 'UTC' }).format(offer.expires_at)} UTC`,
      }));
    });

    scope.post('/payment/dcc/:token', {
      config: PAGE_CONFIG,
      schema: pageSchema('submitDccChoice', 'Dynamic currency conversion: the choice', 'The offer screen posts `offer` and `choice` (`accept`: pay in the card\'s currency; `decline`: in the order\'s). The order is paid with the card posted before and the choice, recorded as `dcc` on the order and its transaction; the answer is 303 to url_ok, url_ko or the 3DS challenge, as after the card form. A lapsed offer leads back to the card form.', true),
    }, async (req, reply) => {
      const q = readQuery(req);
      const o = await service.load(tokenOf(req), envOf(req));
      if (!o) return notFound(req, reply);
      const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
      const out = await service.submitDcc(o, body, req.ip ?? null, locate(o, q), (offerId) => dccPath(o, q, offerId));
      return afterSubmit(req, reply, o, q, out, 'dcc');
    });

    // ---- B7: tokenized 3DS and the sandbox ACS challenge ---------------------------------------------------

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

    // ---- processors' own pages and notifications (Bizum through Redsys) --------------------------------------

    const processorParams = { type: 'object', properties: { connector: { type: 'string', maxLength: 40 }, reference: { type: 'string', maxLength: 100 } }, required: ['connector', 'reference'] };
    const notificationParams = { type: 'object', properties: { connector: { type: 'string', maxLength: 40 } }, required: ['connector'] };

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

    scope.post('/processor/:connector/notification', {
      config: PAGE_CONFIG,
      schema: {
        operationId: 'receiveProcessorNotification', summary: 'A processor\'s notification', tags: ['pages'], security: [],
        description: 'Where a processor posts its signed notifications of an operation\'s outcome (Redsys: `Ds_SignatureVersion`, `Ds_MerchantParameters`, `Ds_Signature`, form-encoded). The connector verifies the signature with the terminal\'s key before anything is read; a verified final outcome settles the transaction it names, once. Answers 200 whatever it said (a processor retries otherwise).',
        params: notificationParams,
        consumes: ['application/x-www-form-urlencoded'],
        response: { 200: { description: 'Received', content: { 'text/html': { schema: { type: 'string' } } } }, '4xx': { description: 'A page explaining the problem', content: { 'text/html': { schema: { type: 'string' } } } } },
      },
    }, async (req, reply) => {
      const { connector } = req.params as { connector: string };
      const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
      const { outcome } = envOf(req) === 'production' && declarationNamed(connector)?.notifications?.via === 'form' ? await service.processorNotification(connector, body) : { outcome: 'ignored' };
      secure(req, reply, contentSecurityPolicy({ nonce: randomBytes(16).toString('base64'), imgOrigins: [], formTargets: ["'none'"], frameAncestors: "'none'" }));
      return html(reply, 200, `<!doctype html><title>${outcome}</title>${outcome}`);
    });

    // JSON webhooks (Checkout.com's Cko-Signature, PayPal's transmission headers, Worldpay's Event-Signature): the connector verifies
    // the body exactly as received, so this route keeps it as text; only the headers its declaration names
    // are passed on (src/processors/connectors.ts)
    await scope.register(async (raw) => {
      raw.removeContentTypeParser('application/json');
      raw.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => done(null, body));
      // JSON under a provider's own media type (Worldpay's events: application/vnd.worldpay.events-v1.hal+json)
      raw.addContentTypeParser(/^application\/vnd\.[a-z0-9.-]+\+json$/, { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => done(null, body));
      raw.post('/processor/:connector/webhook', {
        config: PAGE_CONFIG,
        schema: {
          operationId: 'receiveProcessorWebhook', summary: 'A processor\'s JSON webhook', tags: ['pages'], security: [],
          description: 'Where a processor posts its JSON webhooks (Checkout.com: signed with `Cko-Signature`, the HMAC-SHA256 of the raw body; PayPal: verified through PayPal\'s verify-webhook-signature call; Worldpay: its events as `application/vnd.worldpay.events-v1.hal+json`, signed with `Event-Signature`, the HMAC-SHA256 of the raw body). The connector verifies the webhook before anything in it is used; a verified final outcome settles the transaction it names, once; an event received before is not applied again. Answers 200 whatever it said (a processor retries otherwise), with what the gateway made of it in `Paygate-Notification` (settled, already-settled, ignored, dispute): a page, or the JSON acknowledgement the processor expects once it was received (SIBS: `{"statusCode": "200", "statusMsg": "Success", "notificationID": ...}`, its notification being an AES-256-GCM ciphertext as text with its `X-Initialization-Vector` and `X-Authentication-Tag`).',
          params: notificationParams,
          consumes: ['application/json'],
          response: { 200: { description: 'Received', content: { 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'object', additionalProperties: true } } } }, '4xx': { description: 'A page explaining the problem', content: { 'text/html': { schema: { type: 'string' } } } } },
        },
      }, async (req, reply) => {
        const { connector } = req.params as { connector: string };
        const declared = declarationNamed(connector)?.notifications;
        const fields: Record<string, unknown> = { body: typeof req.body === 'string' ? req.body : '' };
        if (declared?.via === 'webhook') for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && declared.headers.test(k)) fields[k] = v;
        // a connector's notifications arrive the way it declares: a webhook here, a form at /notification
        const { outcome, acknowledgement } = envOf(req) === 'production' && declared?.via === 'webhook' ? await service.processorNotification(connector, fields) : { outcome: 'ignored', acknowledgement: null };
        secure(req, reply, contentSecurityPolicy({ nonce: randomBytes(16).toString('base64'), imgOrigins: [], formTargets: ["'none'"], frameAncestors: "'none'" }));
        // what the gateway made of it, whatever the body (a processor's acknowledgement says nothing of it)
        reply.header('paygate-notification', outcome);
        // the answer a processor expects once its notification was received (SIBS: its JSON acknowledgement)
        if (acknowledgement) return reply.code(200).type('application/json').send(JSON.stringify(acknowledgement));
        return html(reply, 200, `<!doctype html><title>${outcome}</title>${outcome}`);
      });
    });

    // ---- B5: Bizum -------------------------------------------------------------------------------------------

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

    // ---- APMs of every kind (B4 `?apm=`) and the sandbox APM provider -------------------------------------------

    function apmPath(o: PageOrder, q: PageQuery, apm: string, wait = false): string {
      return withQuery(pathOf(o.env, 'apm', o.token), { lang: q.lang, template: q.template, target: q.target, apm, wait });
    }

    function sandboxApmPath(o: PageOrder, q: PageQuery, kind: 'bank' | 'phone' | 'voucher'): string {
      return withQuery(`${o.env === 'sandbox' ? '/v1/sandbox' : '/v1'}/sandbox-apm/${kind}/${o.token}`, { lang: q.lang, template: q.template, target: q.target });
    }

    async function renderApmStart(req: FastifyRequest, reply: FastifyReply, o: PageOrder, q: PageQuery, apm: ApmView, status: number, state: { phone?: string; error?: MessageKey } = {}) {
      const chrome = await chromeFor(req, reply, o, q, 'apm');
      const phones = (SANDBOX_PUSH_PHONES as Record<string, { PAYS: string; REFUSED: string }>)[apm.apm];
      return html(reply, status, apmStartPage(chrome, {
        summary: summaryOf(o, q.lang),
        apm,
        action: apmPath(o, q, apm.apm),
        formNonce: service.issueNonce(o.token, 'apm'),
        phone: state.phone ?? '',
        error: state.error ?? null,
        notice: (o.status === 'REFUSED' || o.status === 'ERROR') && !state.error ? 'refused' : null,
        sandboxPhones: phones ? { pays: phones.PAYS, refused: phones.REFUSED } : null,
      }));
    }

    function dateText(lang: Language, iso: string | undefined): string | null {
      if (!iso) return null;
      return `${new Intl.DateTimeFormat(localeOf(lang), { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(iso))} UTC`;
    }

    scope.get('/payment/apm/:token', {
      config: PAGE_CONFIG,
      schema: pageSchema('showApmPage', 'APM page', 'The hosted page of an alternative payment method (`apm`, one the order\'s service offers; B4 `?apm=` leads here). Redirect APMs: a button to the provider\'s page, where the customer approves. Push APMs (MBWAY, BIZUM): the phone number, then a page that waits for the approval in the app. Voucher APMs: the data to pay (entity and reference, barcode, QR code, CLABE, or IBAN and concept) with its expiry, QR codes and barcodes drawn as images. In the sandbox, links to the sandbox phone and a button that pays the voucher.'),
    }, async (req, reply) => {
      const q = readQuery(req);
      const o = await service.load(tokenOf(req), envOf(req));
      if (!o) return notFound(req, reply);
      const pending = await service.pendingApm(o);
      if (pending) {
        if (pending.kind === 'redirect' && pending.redirect_url) return reply.code(303).header('Location', pending.redirect_url).send();
        const chrome = await chromeFor(req, reply, o, q, 'apm');
        const info = o.apms.find((a) => a.apm === pending.apm) ?? { apm: pending.apm, label: pending.apm, kind: pending.kind };
        const v = pending.voucher ?? null;
        const sandbox = o.env === 'sandbox';
        return html(reply, 200, apmWaitPage(chrome, {
          summary: summaryOf(o, q.lang),
          apm: info,
          voucher: v,
          until: dateText(q.lang, v?.expires_at),
          refreshSeconds: v ? 30 : 3,
          sandbox: sandbox
            ? { phoneHref: pending.kind === 'push' ? sandboxApmPath(o, q, 'phone') : null, payAction: v ? sandboxApmPath(o, q, 'voucher') : null, formNonce: v ? service.issueNonce(o.token, 'sandbox-apm') : null }
            : null,
          images: {
            qr: v?.qr_code ? qrSvg(v.qr_code, chrome.t('apm.f.qr')) : null,
            barcode: v?.barcode ? barcodeSvg(v.barcode, chrome.t('apm.f.barcode')) : null,
          },
        }));
      }
      // the waiting page refreshed once the payment ended: where the flow goes now
      if (one(q.raw.wait) === '1' && (PAID_STATUSES.includes(o.status) || ENDED_UNPAID.includes(o.status))) {
        return reply.code(303).header('Location', locate(o, q)(destinationAfter(o.status, { ok: o.urlOk, ko: o.urlKo }))).send();
      }
      if (o.view.kind !== 'form') return stateView(req, reply, o, q, o.view, 'apm');
      const apm = service.apmOf(o, q.apm ?? undefined);
      if (!apm) {
        if (q.apm && !(APM_VALUES as readonly string[]).includes(q.apm)) return html(reply, 400, renderError(req, reply, { status: 400, details: 'apm' }));
        return methodUnavailable(req, reply, o, q, 'apm');
      }
      if (apm.apm === 'BIZUM' && o.bizum) return reply.code(303).header('Location', withQuery(pathOf(o.env, 'bizum', o.token), { lang: q.lang, template: q.template, target: q.target })).send();
      return renderApmStart(req, reply, o, q, apm, 200);
    });

    scope.post('/payment/apm/:token', {
      config: PAGE_CONFIG,
      schema: pageSchema('submitApmPage', 'APM page: pay', 'The APM form posts here (`phone` for push APMs); answers 303 to the provider\'s page (redirect), to the APM page that waits or shows the voucher (push, voucher), or to url_ko when the provider refuses at once.', true),
    }, async (req, reply) => {
      const q = readQuery(req);
      const o = await service.load(tokenOf(req), envOf(req));
      if (!o) return notFound(req, reply);
      const apm = service.apmOf(o, q.apm ?? undefined);
      if (!apm) return methodUnavailable(req, reply, o, q, 'apm');
      const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
      const out = await service.submitApm(o, apm, body, req.ip ?? null, locate(o, q), apmPath(o, q, apm.apm, true));
      if (out.kind === 'invalid-apm-phone') return renderApmStart(req, reply, o, q, apm, 422, { phone: out.phone, error: 'err.phone.invalid' });
      return afterSubmit(req, reply, o, q, out, 'apm');
    });

    for (const kind of ['bank', 'phone', 'voucher'] as const) {
      const what = { bank: 'bank page of redirect APMs', phone: 'phone of push APMs', voucher: 'payment of a voucher' }[kind];
      if (kind !== 'voucher') {
        scope.get(`/sandbox-apm/${kind}/:token`, {
          config: PAGE_CONFIG,
          schema: { ...pageSchema(`showSandboxApm${kind[0].toUpperCase()}${kind.slice(1)}`, `Sandbox APM provider: the ${what}`, `Sandbox only (404 in production). The customer approves or refuses the started APM payment of the order.`), tags: ['sandbox'] },
        }, async (req, reply) => {
          const q = readQuery(req);
          const o = envOf(req) === 'sandbox' ? await service.load(tokenOf(req), envOf(req)) : null;
          if (!o) return notFound(req, reply);
          const pending = await service.pendingApm(o);
          if (!pending) return stateView(req, reply, o, q, o.view.kind === 'form' ? { kind: 'closed' } : o.view, 'apm');
          const chrome = await chromeFor(req, reply, o, q, 'apm');
          const info = o.apms.find((a) => a.apm === pending.apm) ?? { apm: pending.apm, label: pending.apm, kind: pending.kind };
          return html(reply, 200, sandboxApmPage(chrome, { summary: summaryOf(o, q.lang), apm: info, action: sandboxApmPath(o, q, kind), formNonce: service.issueNonce(o.token, 'sandbox-apm') }));
        });
      }
      scope.post(`/sandbox-apm/${kind}/:token`, {
        config: PAGE_CONFIG,
        schema: { ...pageSchema(`submitSandboxApm${kind[0].toUpperCase()}${kind.slice(1)}`, `Sandbox APM provider: answer the ${what}`, 'Sandbox only (404 in production). Posts `result` (approve or fail); the payment completes and the answer is 303 to url_ok or url_ko.', true), tags: ['sandbox'] },
      }, async (req, reply) => {
        const q = readQuery(req);
        const o = envOf(req) === 'sandbox' ? await service.load(tokenOf(req), envOf(req)) : null;
        if (!o) return notFound(req, reply);
        const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
        const out = await service.submitSandboxApm(o, body, locate(o, q));
        return afterSubmit(req, reply, o, q, out, 'apm');
      });
    }

    // ---- wallets: the checkout's wallet page and the wallet buttons ---------------------------------------------

    scope.get('/payment/wallet/:token', {
      config: PAGE_CONFIG,
      schema: pageSchema('showWalletPage', 'Wallet page', 'The button of one wallet (`wallet`: GOOGLE_PAY or APPLE_PAY, one the order\'s service offers), as the checkout links it. Sandbox only: the button runs the wallet\'s test mode (a sandbox token for a test card, paid through B14). In production the hosted pages do not offer wallets (the method is unavailable).'),
    }, async (req, reply) => {
      const q = readQuery(req);
      const o = await service.load(tokenOf(req), envOf(req));
      if (!o) return notFound(req, reply);
      if (o.view.kind !== 'form') return stateView(req, reply, o, q, o.view, 'wallet');
      const wallet = service.walletOf(o, q.wallet ?? undefined);
      if (!wallet) return methodUnavailable(req, reply, o, q, 'wallet');
      const chrome = await chromeFor(req, reply, o, q, 'wallet');
      return html(reply, 200, walletPage(chrome, { summary: summaryOf(o, q.lang), button: walletButton(o, q, wallet), notice: o.status === 'REFUSED' || o.status === 'ERROR' ? 'refused' : null }));
    });

    scope.post('/payment/wallet/:token', {
      config: PAGE_CONFIG,
      schema: pageSchema('submitWalletPage', 'Wallet page: pay', 'A wallet button posts here (`wallet` in the query); answers 303 to url_ok, url_ko or the 3DS challenge.', true),
    }, async (req, reply) => {
      const q = readQuery(req);
      const o = await service.load(tokenOf(req), envOf(req));
      if (!o) return notFound(req, reply);
      const wallet = service.walletOf(o, q.wallet ?? undefined);
      if (!wallet) return methodUnavailable(req, reply, o, q, 'wallet');
      const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
      const out = await service.submitWallet(o, wallet, body, req.ip ?? null, locate(o, q));
      return afterSubmit(req, reply, o, q, out, 'wallet');
    });

    // ---- checkout ---------------------------------------------------------------------------------------------

    scope.get('/payment/checkout/:token', {
      config: PAGE_CONFIG,
      schema: pageSchema('showCheckoutPage', 'Checkout page', 'For orders with `extra_data.checkout`: the customer chooses among the allowed payment methods (`payment_methods`, `default_payment_method`) with the customization applied (`theme_type` light/dark, `font` from a list of system fonts, `description`, `payment_details.order_number`).'),
    }, async (req, reply) => {
      const q = readQuery(req);
      const o = await service.load(tokenOf(req), envOf(req));
      if (!o) return notFound(req, reply);
      const checkout = o.checkout;
      if (!checkout) return reply.code(303).header('Location', withQuery(pathOf(o.env, 'process', o.token), { lang: q.lang, template: q.template, target: q.target })).send();
      if (o.view.kind !== 'form') return stateView(req, reply, o, q, o.view, 'checkout');
      const cards = checkoutMethods(checkout, service.methods(o));
      // the APMs of the service (Bizum keeps its own page), those the checkout allows when it names methods
      const apms = o.apms.filter((x) => !(x.apm === 'BIZUM' && cards.includes('BIZUM')) && (!checkout.methods || checkout.methods.includes(x.apm)));
      const wallets = o.wallets.filter((w) => !checkout.methods || checkout.methods.includes(w));
      if (cards.length + apms.length + wallets.length === 0) return methodUnavailable(req, reply, o, q, 'checkout');
      const chrome = await chromeFor(req, reply, o, q, 'checkout');
      const label = { CARD: chrome.t('method.card'), BIZUM: chrome.t('method.bizum') };
      return html(reply, 200, checkoutPage(chrome, {
        summary: summaryOf(o, q.lang),
        methods: [
          ...cards.map((m) => ({
            method: m as string,
            label: label[m],
            suggested: m === checkout.defaultMethod,
            href: m === 'CARD'
              ? withQuery(pathOf(o.env, 'process', o.token), { lang: q.lang, template: q.template, target: q.target, method: 'card' })
              : withQuery(pathOf(o.env, 'bizum', o.token), { lang: q.lang, template: q.template, target: q.target }),
          })),
          ...apms.map((x) => ({ method: x.apm, label: x.label, suggested: x.apm === checkout.defaultMethod, href: apmPath(o, q, x.apm) })),
          ...wallets.map((w) => ({ method: w, label: service.walletLabel(w), suggested: w === checkout.defaultMethod, href: walletPath(o, q, w) })),
        ],
      }));
    });
  };
}

export type { PageTemplate };
