/**
 * HTTP of the customer pages: B4 hosted payment page, B5 Bizum, B7 tokenized 3DS (with the sandbox ACS
 * challenge), and the checkout. Registered with registerApi like every route (so they exist under /v1
 * and /v1/sandbox and know their environment) with `auth: 'none'` (the order token is the credential)
 * and `page`, so every error, whatever throws it, is an HTML page in the customer's language.
 *
 * GET renders; POST takes the page's form (application/x-www-form-urlencoded, parsed only here) and
 * answers 303 to where the customer goes next (Post/Redirect/Get), so a reload never posts again.
 */
import type { FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import type { PageTemplate } from '../templates/index.js';
import { apmPageRoutes } from './apm.routes.js';
import { bizumPageRoutes } from './bizum.routes.js';
import { cardFormRoutes } from './card-form.routes.js';
import { checkoutPageRoutes } from './checkout.routes.js';
import { dccPageRoutes } from './dcc.routes.js';
import { hostedPageRoutes } from './hosted.routes.js';
import { pageKit } from './page-kit.js';
import type { PagesService } from './pages.service.js';
import { providerPageRoutes } from './provider.routes.js';
import { threedsPageRoutes } from './threeds.routes.js';
import { walletPageRoutes } from './wallet.routes.js';

/**
 * Every customer page, a file per page kind; the helpers they share are page-http.ts (no service) and
 * page-kit.ts (with it).
 */
export function pagesRoutes(service: PagesService, opts: { timezone: string }) {
  return async (scope: FastifyInstance) => {
    // form posts are accepted by the pages only; API routes keep refusing anything but JSON
    await scope.register(formbody, { bodyLimit: 16 * 1024 });

    // the embedded card form (decisions §10), opened with a customer token
    cardFormRoutes(scope, service, opts);

    const kit = pageKit(service);
    hostedPageRoutes(scope, kit);
    dccPageRoutes(scope, kit);
    threedsPageRoutes(scope, kit);
    providerPageRoutes(scope, kit);
    bizumPageRoutes(scope, kit);
    apmPageRoutes(scope, kit);
    walletPageRoutes(scope, kit);
    checkoutPageRoutes(scope, kit);
  };
}

export type { PageTemplate };
