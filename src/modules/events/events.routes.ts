/** HTTP of events (decisions §9): list, read, resend. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import * as S from './events.schemas.js';
import type { EventsService } from './events.service.js';

const READ = ['payment', 'readonly'] as const;
const WRITE = ['payment'] as const;

export function eventsRoutes(service: EventsService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.get('/events', {
      config: { profiles: READ },
      schema: { operationId: 'listEvents', summary: 'List notifications (events), newest first', description: 'Every notification sent to an order\'s url_post, with its delivery state; filter by `order_uuid` or `status`, page with `limit` and `offset`.', tags: ['events'], querystring: S.EventsQuery, response: responses(S.EventsResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.list(ctx, req.query));
    });

    app.get('/event/:uuid', {
      config: { profiles: READ },
      schema: { operationId: 'getEvent', summary: 'Read a notification with every delivery attempt', description: 'The notification, the body it carries, and each attempt with its HTTP status, error and duration.', tags: ['events'], params: S.EventParams, response: responses(S.EventResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { event: await service.get(ctx, req.params.uuid) });
    });

    app.post('/event/:uuid/resend', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'resendEvent',
        summary: 'Send a notification again now',
        description: 'One more attempt, now; a retry schedule still running goes on.',
        tags: ['events'], params: S.EventParams, body: S.ResendBody, response: responses(S.EventResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { event: await service.resend(ctx, req.params.uuid) });
    });
  };
}
