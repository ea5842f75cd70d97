/**
 * The page of an alternative payment method of any kind (B4 `?apm=` leads here): redirect, push and
 * voucher APMs, and the sandbox APM provider's pages.
 */
import type { FastifyInstance } from 'fastify';
import type { PageKit } from './page-kit.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APM_VALUES, SANDBOX_PUSH_PHONES } from '../payment-methods/index.js';
import { barcodeSvg, qrSvg } from './codes.js';
import { localeOf, type Language, type MessageKey } from './i18n/index.js';
import { PAID_STATUSES, destinationAfter } from './pages.domain.js';
import type { PageOrder } from './pages.service.js';
import { ENDED_UNPAID, PAGE_CONFIG, envOf, one, pageSchema, pathOf, readQuery, renderError, tokenOf, withQuery, type PageQuery } from './page-http.js';
import { apmStartPage, apmWaitPage, sandboxApmPage, type ApmView } from './views.js';

export function apmPageRoutes(scope: FastifyInstance, kit: PageKit): void {
  const { service, chromeFor, summaryOf, html, notFound, locate, stateView, methodUnavailable, afterSubmit, apmPath, sandboxApmPath } = kit;

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
}
