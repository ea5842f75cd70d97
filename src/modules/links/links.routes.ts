/** HTTP of payment links (B2). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import * as S from './links.schemas.js';
import type { LinksService } from './links.service.js';

export function linksRoutes(service: LinksService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/payment/link', {
      config: { profiles: ['payment'] },
      schema: {
        operationId: 'sendPaymentLink',
        summary: 'B2 Send payment link by SMS or e-mail',
        description: 'Sends the hosted payment page of the order to `destination` (an e-mail address: SMTP; a mobile number: SMS) in `language`. `delivery` says whether the channel accepted it. 404: unknown order; 410: the order can no longer be paid (paid, expired, cancelled); 503: e-mail is not configured.',
        tags: ['payments'], body: S.SendLinkBody, response: responses(S.SendLinkResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      const r = await service.send(ctx, req.body);
      return ok(ctx, { delivery: r.delivery, channel: r.channel });
    });
  };
}
