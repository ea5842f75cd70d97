/** HTTP of services and terminals: D4–D6, the service read/update of ours and a sandbox service's behaviour in the simulator. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import * as S from './services.schemas.js';
import type { ServicesService } from './services.service.js';

const WRITE = ['payment'] as const;
const READ = ['payment', 'readonly'] as const;

export function servicesRoutes(service: ServicesService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.get('/client/services', {
      config: { profiles: READ },
      schema: { operationId: 'listOwnServices', summary: 'D4 List services of the key\'s merchant', description: 'The services of the merchant the API key belongs to, enabled or pending.', tags: ['services'], response: responses(S.ServicesResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { services: await service.listServices(ctx, ctx.merchant.id) });
    });

    app.get('/client/:client_uuid/services', {
      config: { profiles: READ },
      schema: { operationId: 'listMerchantServices', summary: 'D4 List services of a merchant (itself or a descendant)', description: 'The services of `client_uuid`: the key\'s merchant or one of its descendants (any other merchant is 404).', tags: ['services'], params: S.ClientParams, response: responses(S.ServicesResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { services: await service.listServices(ctx, req.params.client_uuid) });
    });

    app.post('/service', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'createService',
        summary: 'D5 Create service',
        description: 'Without `terminal_uuid` the service stays pending (`enabled: false`) until a terminal is linked.',
        tags: ['services'], body: S.CreateServiceBody, response: responses(S.ServiceResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { service: await service.createService(ctx, req.body) });
    });

    app.get('/service/:service_uuid', {
      config: { profiles: READ },
      schema: { operationId: 'getService', summary: 'Read a service', description: 'One service of the merchant or of a descendant.', tags: ['services'], params: S.ServiceParams, response: responses(S.ServiceResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { service: await service.getService(ctx, req.params.service_uuid) });
    });

    app.put('/service/:service_uuid', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'updateService',
        summary: 'Update a service: link a terminal, rename, enable or disable, Bizum and DCC',
        description: 'Fields given are changed. A terminal links only to a service of the same type and owner; a service stays pending (disabled) until it has one. `is_dcc_allowed` and `dcc_mode` (REDSYS family only) switch dynamic currency conversion on the hosted page; allowing it without a mode sets DYNAMIC.',
        tags: ['services'], params: S.ServiceParams, body: S.UpdateServiceBody, response: responses(S.ServiceResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { service: await service.updateService(ctx, req.params.service_uuid, req.body) });
    });

    app.get('/service/:service_uuid/sandbox-behaviour', {
      config: { profiles: READ },
      schema: {
        operationId: 'getSandboxBehaviour',
        summary: 'Read a sandbox service\'s behaviour in the simulator',
        description: 'How the sandbox simulator answers for the service: approval rates by BIN range, the soft decline, an outage, added latency. A service nobody configured answers the defaults with `updated: null` (the test cards alone). Sandbox only: 404 with a production key, and for a service of another merchant.',
        tags: ['sandbox'], params: S.ServiceParams, response: responses(S.SandboxBehaviourResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { sandbox_behaviour: await service.sandboxBehaviours.get(ctx, req.params.service_uuid) });
    });

    app.put('/service/:service_uuid/sandbox-behaviour', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'putSandboxBehaviour',
        summary: 'Set a sandbox service\'s behaviour in the simulator',
        description: 'Replaces the service\'s behaviour (a field not given takes its default). Payments the test-card rules approve are approved at the `approve_rate` of the first rule whose BIN range holds the card\'s first six digits, by a draw on the payment\'s transaction and the service: the same payment through the same service always has the same outcome. Cards that force an outcome (refused, CVV failure, 3-D Secure, invalid numbers) keep it. A problem is a 400 naming the field. Sandbox only: 404 with a production key, and for a service of another merchant.',
        tags: ['sandbox'], params: S.ServiceParams, body: S.PutSandboxBehaviourBody, response: responses(S.SandboxBehaviourResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { sandbox_behaviour: await service.sandboxBehaviours.put(ctx, req.params.service_uuid, req.body) });
    });

    app.delete('/service/:service_uuid/sandbox-behaviour', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'deleteSandboxBehaviour',
        summary: 'Reset a sandbox service\'s behaviour',
        description: 'Removes the service\'s behaviour: it behaves by the test cards again. Answers the defaults (`updated: null`). Sandbox only: 404 with a production key, and for a service of another merchant.',
        tags: ['sandbox'], params: S.ServiceParams, body: S.DeleteSandboxBehaviourBody, response: responses(S.SandboxBehaviourResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { sandbox_behaviour: await service.sandboxBehaviours.reset(ctx, req.params.service_uuid) });
    });

    app.post('/terminal', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'createTerminal',
        summary: 'D6 Create terminal',
        description: 'Credentials are validated for the types the contract shows, stored encrypted, and returned masked.',
        tags: ['services'], body: S.CreateTerminalBody, response: responses(S.TerminalResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { terminal: await service.createTerminal(ctx, req.body) });
    });
  };
}
