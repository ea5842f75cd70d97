/**
 * The virtual terminal's card form, a page of the gateway (same origin as the dashboard, which frames
 * it): `GET /dashboard/terminal-form/{token}` shows it, `POST` to the same path takes the card
 * (application/x-www-form-urlencoded, parsed only here) and shows the outcome, which the page tells the
 * dashboard with postMessage (order uuid and state only, to this origin only).
 *
 * These routes are not the merchant API: no key, the one-time token in the path is the credential, no
 * request log, and the API's card-number guard does not apply (the card fields are the point), as on
 * the hosted payment page. Strict CSP (nonce'd style and script, forms to this origin only), framed by
 * this origin only, never cached.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { plainHttpAllowed } from '../../platform/http/platform.js';
import { parseLanguage, type Language } from '../pages/index.js';
import type { TerminalService } from './terminal.service.js';
import { formPage, gonePage, outcomePage } from './terminal.view.js';

export const TERMINAL_FORM_PATH = '/dashboard/terminal-form';

function csp(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'none'",
    "connect-src 'none'",
    "font-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

function send(req: FastifyRequest, reply: FastifyReply, status: number, render: (nonce: string) => string) {
  const nonce = randomBytes(16).toString('base64');
  reply
    .code(status)
    .header('Content-Security-Policy', csp(nonce))
    .header('X-Frame-Options', 'SAMEORIGIN')
    // same-origin: the form's own post carries its Origin (no-referrer would send "null")
    .header('Referrer-Policy', 'same-origin')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', 'no-store')
    .header('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
  if (req.protocol === 'https') reply.header('Strict-Transport-Security', 'max-age=31536000');
  return reply.type('text/html; charset=utf-8').send(render(nonce));
}

const langOf = (lang: string | undefined): Language => parseLanguage(lang) ?? 'en';
const PARAMS = { type: 'object', properties: { token: { type: 'string', maxLength: 200 } }, required: ['token'] };

export function terminalFormRoutes(service: TerminalService, opts: { sandboxHttpAnyAddress: boolean }) {
  return async (scope: FastifyInstance) => {
    await scope.register(formbody, { bodyLimit: 4 * 1024 });

    /** Over plain HTTP only on loopback (like the dashboard's API); a change only from this origin. */
    scope.addHook('onRequest', async (req, reply) => {
      if (req.protocol !== 'https' && !plainHttpAllowed('sandbox', req.socket?.localAddress, opts.sandboxHttpAnyAddress)) {
        return send(req, reply, 403, (nonce) => gonePage({ lang: 'en', nonce }));
      }
      if (req.method === 'POST') {
        const origin = req.headers.origin;
        let host: string | null = null;
        try {
          host = origin ? new URL(origin).host : null;
        } catch {
          host = '';
        }
        if (origin !== undefined && host !== req.host) return send(req, reply, 403, (nonce) => gonePage({ lang: 'en', nonce }));
      }
    });

    scope.get(`${TERMINAL_FORM_PATH}/:token`, { schema: { hide: true, params: PARAMS } }, async (req, reply) => {
      const token = (req.params as { token: string }).token;
      const loaded = await service.load(token);
      if (!loaded) return send(req, reply, 410, (nonce) => gonePage({ lang: 'en', nonce }));
      const lang = langOf(loaded.view.language);
      return send(req, reply, 200, (nonce) => formPage({ lang, nonce, action: `${TERMINAL_FORM_PATH}/${token}`, view: loaded.view }));
    });

    scope.post(`${TERMINAL_FORM_PATH}/:token`, { schema: { hide: true, params: PARAMS } }, async (req, reply) => {
      const token = (req.params as { token: string }).token;
      const body = (req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {}) as Record<string, unknown>;
      const out = await service.pay(token, body);
      if (out.kind === 'gone') return send(req, reply, 410, (nonce) => gonePage({ lang: 'en', nonce }));
      const lang = langOf(out.view.language);
      if (out.kind === 'invalid') {
        return send(req, reply, 422, (nonce) => formPage({ lang, nonce, action: `${TERMINAL_FORM_PATH}/${token}`, view: out.view, errors: out.errors, values: out.values }));
      }
      return send(req, reply, 200, (nonce) => outcomePage({ lang, nonce, view: out.view, status: out.status, paid: out.paid, details: out.details }));
    });
  };
}
