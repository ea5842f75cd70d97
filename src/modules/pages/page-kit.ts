/**
 * The helpers of the customer pages that need the pages service: the chrome of a page (template, CSP,
 * language links), the summary of the order, the pages of an order's state, the card and Bizum forms
 * (shown again after a form post) and where a form post leads. One kit serves every page kind's routes.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { frameAncestorsDirective, logoOrigin } from '../templates/index.js';
import { todayOf, type CardFormErrors } from './card.domain.js';
import { translator, type Language, type MessageKey } from './i18n/index.js';
import { contentSecurityPolicy, originOf, statusOfView, type Destination, type PageView } from './pages.domain.js';
import type { PageOrder, PagesService, SubmitOutcome } from './pages.service.js';
import { pathOf, renderError, secure, withQuery, type PageKind, type PageQuery } from './page-http.js';
import { bizumPage, cardPage, statusPage, type OrderSummary, type PageChrome } from './views.js';
import { walletSection, type WalletButton } from './wallet-view.js';
import type { Wallet } from '../wallets/index.js';

export type PageKit = ReturnType<typeof pageKit>;

export function pageKit(service: PagesService) {
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

  function dccPath(o: PageOrder, q: PageQuery, offerId: string): string {
    return withQuery(pathOf(o.env, 'dcc', o.token), { lang: q.lang, template: q.template, target: q.target, offer: offerId });
  }

  function apmPath(o: PageOrder, q: PageQuery, apm: string, wait = false): string {
    return withQuery(pathOf(o.env, 'apm', o.token), { lang: q.lang, template: q.template, target: q.target, apm, wait });
  }

  function sandboxApmPath(o: PageOrder, q: PageQuery, kind: 'bank' | 'phone' | 'voucher'): string {
    return withQuery(`${o.env === 'sandbox' ? '/v1/sandbox' : '/v1'}/sandbox-apm/${kind}/${o.token}`, { lang: q.lang, template: q.template, target: q.target });
  }

  return { service, chromeFor, summaryOf, html, notFound, locate, stateView, methodUnavailable, renderCardForm, walletPath, walletButton, renderBizum, afterSubmit, dccPath, apmPath, sandboxApmPath };
}
