/**
 * The processors' callbacks: the signed notifications a processor posts of an operation's outcome (a
 * form, Redsys's) and its JSON webhooks (Checkout.com, PayPal, Worldpay). Mounted under /v1 and
 * /v1/sandbox like every route, without an API key (the connector verifies what arrives), and answered
 * as the customer pages answer (their error page and headers, given by app.ts as `pages`), so a
 * processor's URL is the same as ever. Only production settles anything: the sandbox ignores them.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import type { PageRoute } from '../../platform/http/types.js';
import { declarationNamed } from '../../processors/connectors.js';
import type { PaymentsService } from './payments.service.js';

/** How the callbacks answer: as a customer page does. */
export interface CallbackPages {
  /** The error page of the customer pages (the platform's error handler renders errors with it). */
  page: PageRoute;
  /** The headers of a page that shows nothing: no scripts, no forms, no framing. */
  secure(req: FastifyRequest, reply: FastifyReply): void;
}

/** The string fields of a notification, each at most 64 KiB (anything else is not passed on). */
function stringFields(body: Record<string, unknown>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === 'string' && v.length <= 64 * 1024) fields[k] = v;
  return fields;
}

function html(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

const notificationParams = { type: 'object', properties: { connector: { type: 'string', maxLength: 40 } }, required: ['connector'] };

export function callbacksRoutes(service: PaymentsService, pages: CallbackPages) {
  const CONFIG = { auth: 'none' as const, page: pages.page, bodyLimit: 16 * 1024 };
  return async (scope: FastifyInstance) => {
    // a form-encoded notification (Redsys) is parsed here only; API routes keep refusing anything but JSON
    await scope.register(formbody, { bodyLimit: 16 * 1024 });

    scope.post('/processor/:connector/notification', {
      config: CONFIG,
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
      const { outcome } = req.routeOptions.config.env === 'production' && declarationNamed(connector)?.notifications?.via === 'form' ? await service.processorNotification(connector, stringFields(body)) : { outcome: 'ignored' };
      pages.secure(req, reply);
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
        config: CONFIG,
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
        const { outcome, acknowledgement } = req.routeOptions.config.env === 'production' && declared?.via === 'webhook' ? await service.processorNotification(connector, stringFields(fields)) : { outcome: 'ignored', acknowledgement: null };
        pages.secure(req, reply);
        // what the gateway made of it, whatever the body (a processor's acknowledgement says nothing of it)
        reply.header('paygate-notification', outcome);
        // the answer a processor expects once its notification was received (SIBS: its JSON acknowledgement)
        if (acknowledgement) return reply.code(200).type('application/json').send(JSON.stringify(acknowledgement));
        return html(reply, 200, `<!doctype html><title>${outcome}</title>${outcome}`);
      });
    });
  };
}
