/** HTTP of events (decisions §9): list, read, resend. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { ErrorEnvelope, responses } from '../../platform/http/schemas.js';
import * as S from './events.schemas.js';
import type { EventsService } from './events.service.js';

const READ = ['payment', 'readonly'] as const;
const WRITE = ['payment'] as const;

export function eventsRoutes(service: EventsService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();
    // open streams end when the gateway closes (they would keep it open); clients reconnect
    scope.addHook('preClose', () => service.streams.closeAll());

    app.get('/events', {
      config: { profiles: READ },
      schema: { operationId: 'listEvents', summary: 'List notifications (events), newest first', description: 'Every notification sent to an order\'s url_post, with its delivery state; filter by `order_uuid` or `status`, page with `limit` and `offset`.', tags: ['events'], querystring: S.EventsQuery, response: responses(S.EventsResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.list(ctx, req.query));
    });

    app.get('/events/stream', {
      config: { profiles: READ, stream: true },
      // a HEAD would open a stream with nothing to send
      exposeHeadRoute: false,
      schema: {
        operationId: 'streamEvents',
        summary: 'Stream notifications as they are made (Server-Sent Events)',
        description: [
          'A `text/event-stream` that stays open and sends each notification of the merchant (this environment only) as it is made: the exact body and headers the gateway sends to url_post, signed as delivered, so it can be forwarded to a receiver that verifies as in production (`paygate listen --forward-to URL` does this).',
          '',
          'The first message is `event: ready` (its `data`: `client_uuid`, `env`, `cursor`, `types`). Then one message per notification: `id` (its position: TXID-SEQ), `event` (its type) and `data`, a StreamedEvent as JSON. A comment line (`: keep-alive`) comes every 15 seconds.',
          '',
          '```',
          'id: 7421-118',
          'event: ORDER_NOTIFICATION',
          'data: {"uuid":"b5d7f9a1-…","type":"ORDER_NOTIFICATION",…,"headers":{…},"body":"{\\"message\\":\\"OK\\",…}"}',
          '```',
          '',
          'To resume after a lost connection, reconnect with the last `id` received in `Last-Event-ID` (EventSource does it by itself) or `after`: every notification made since is sent, in order, none twice. Notifications made by any gateway or worker process sharing the database are streamed. Without a cursor the stream starts now. At most 10 streams per merchant are open at once in each gateway process by default; more are 429.',
        ].join('\n'),
        tags: ['events'],
        querystring: S.StreamQuery,
        headers: S.StreamHeaders,
        response: {
          200: { description: 'Server-Sent Events; each message\'s `data` is a StreamedEvent', content: { 'text/event-stream': { schema: S.StreamedEvent } } },
          '4xx': ErrorEnvelope,
          '5xx': ErrorEnvelope,
        },
      },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      const body = await service.streams.openStream(ctx, { after: req.query.after, lastEventId: req.headers['last-event-id'], types: req.query.types });
      return reply
        .header('Content-Type', 'text/event-stream; charset=utf-8')
        .header('Cache-Control', 'no-store')
        // proxies that buffer answers (nginx) pass this one through as it comes
        .header('X-Accel-Buffering', 'no')
        // the connection ends with the stream (a gateway that closes its streams is not kept waiting
        // by connections left idle); clients open a new one to resume
        .header('Connection', 'close')
        .send(body as never); // a stream of messages, each one carrying a StreamedEvent
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
