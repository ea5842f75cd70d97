/** HTTP of checkout configurations and `GET /client/resources`. Thin: schema, profiles, one service call. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { ErrorEnvelope, responses } from '../../platform/http/schemas.js';
import * as S from './checkouts.schemas.js';
import type { CheckoutsService } from './checkouts.service.js';

const WRITE = ['payment'] as const;
const READ = ['payment', 'readonly'] as const;

export function checkoutsRoutes(service: CheckoutsService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['checkouts'];

    app.post('/checkout', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'createCheckout',
        summary: 'Create a checkout configuration',
        description:
          'A named configuration of the checkout page: the payment methods offered (names of the reference checkout; `CARD` is stored as `PAYMENT_CARD`), the suggested one, and the look. ' +
          'An order uses it with `extra_data.checkout.uuid`; fields given in the order override it. The page offers only the methods the order\'s service can take.',
        tags, body: S.CreateCheckoutBody, response: responses(S.CheckoutResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { checkout: await service.create(ctx, req.body) });
    });

    app.get('/checkouts', {
      config: { profiles: READ },
      schema: { operationId: 'listCheckouts', summary: 'List checkout configurations', description: 'The merchant\'s checkout configurations, oldest first.', tags, response: responses(S.CheckoutsResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { checkouts: await service.list(ctx) });
    });

    app.get('/checkout/:uuid', {
      config: { profiles: READ },
      schema: { operationId: 'getCheckout', summary: 'Read a checkout configuration', description: 'Another merchant\'s checkout is 404.', tags, params: S.CheckoutParams, response: responses(S.CheckoutResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { checkout: await service.get(ctx, req.params.uuid) });
    });

    app.put('/checkout/:uuid', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'updateCheckout',
        summary: 'Update a checkout configuration',
        description: 'Fields left out keep their value; `customization` is replaced as a whole (null clears it). Open orders that name the checkout see the change on their page.',
        tags, params: S.CheckoutParams, body: S.UpdateCheckoutBody, response: responses(S.CheckoutResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { checkout: await service.update(ctx, req.params.uuid, req.body) });
    });

    app.delete('/checkout/:uuid', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'deleteCheckout',
        summary: 'Delete a checkout configuration',
        description: 'Answers the deleted checkout. Orders that name it keep working with their own fields (as with an unknown uuid).',
        tags, params: S.CheckoutParams, body: S.DeleteCheckoutBody, response: responses(S.CheckoutResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { checkout: await service.remove(ctx, req.params.uuid) });
    });

    app.get('/client/resources', {
      config: { profiles: READ },
      schema: {
        operationId: 'getClientResources',
        summary: 'Services, checkouts and wallets of the key\'s merchant',
        description: 'Answers `{services, checkouts, googlePay: {enabled}, applePay: {enabled}}` WITHOUT the response envelope (no `code`, `message` or `current_time`): existing checkout clients treat any `code` key as an error. Errors keep the envelope.',
        tags, response: { 200: S.ClientResourcesResponse, '4xx': ErrorEnvelope, '5xx': ErrorEnvelope },
      },
    }, async (req) => service.clientResources(ctxOf(req)));
  };
}
