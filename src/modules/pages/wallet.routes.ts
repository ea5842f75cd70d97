/**
 * The checkout's wallet page: the button of one wallet, and its post.
 */
import type { FastifyInstance } from 'fastify';
import type { PageKit } from './page-kit.js';
import { PAGE_CONFIG, envOf, pageSchema, readQuery, tokenOf } from './page-http.js';
import { walletPage } from './wallet-view.js';

export function walletPageRoutes(scope: FastifyInstance, kit: PageKit): void {
  const { service, chromeFor, summaryOf, html, notFound, locate, stateView, methodUnavailable, walletButton, afterSubmit } = kit;

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
}
