/** HTTP of routing (ours, beyond the payment API's contract: docs/routing.md). */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import { Secret } from '../../platform/security/secret.js';
import * as S from './routing.schemas.js';
import type { RoutingService } from './routing.service.js';
import type { ProfileInput } from './routing.domain.js';

const READ = ['readonly'] as const;
const tags = ['routing'];

/** The body of a write, as the service takes it (nulls of optional fields dropped). */
const content = (b: { service_uuid: string; name: string; status?: ProfileInput['status']; max_attempts?: number; rules: ProfileInput['rules'] }): ProfileInput => ({
  service_uuid: b.service_uuid,
  name: b.name,
  status: b.status ?? null,
  max_attempts: b.max_attempts ?? null,
  rules: b.rules,
});

export function routingRoutes(service: RoutingService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/routing-profiles', {
      config: { profiles: [] },
      schema: {
        operationId: 'createRoutingProfile',
        summary: 'Create a routing profile',
        description: 'A routing profile for one of the caller\'s services (the entry service, the one orders name): ordered rules whose conditions (card brand, BIN ranges, issuer country, card type, currency, amount, customer country, channel, metadata) pick the service to try first, or a weighted split of services, and the fallbacks tried next. A profile starts as a DRAFT unless `status` is ACTIVE; a service has at most one ACTIVE profile (409). Every service named must be the caller\'s (400 naming the field).',
        tags, body: S.CreateBody, response: responses(S.ProfileResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.create(ctx, content(req.body)));
    });

    app.get('/routing-profiles', {
      config: { profiles: READ },
      schema: {
        operationId: 'listRoutingProfiles',
        summary: 'The routing profiles, newest first',
        description: 'The caller\'s routing profiles, filtered by entry service (`service_uuid`) or `status`.',
        tags, querystring: S.ListQuery, response: responses(S.ProfilesResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.list(ctx, req.query));
    });

    app.get('/routing-profiles/:uuid', {
      config: { profiles: READ },
      schema: {
        operationId: 'getRoutingProfile',
        summary: 'A routing profile',
        description: 'The profile with its rules and version. Another merchant\'s profile is 404.',
        tags, params: S.ProfileParams, response: responses(S.ProfileResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.get(ctx, req.params.uuid));
    });

    app.put('/routing-profiles/:uuid', {
      config: { profiles: [] },
      schema: {
        operationId: 'replaceRoutingProfile',
        summary: 'Replace a routing profile',
        description: 'Replaces the whole profile (entry service, name, status, max_attempts, rules) and bumps its version; the payments of its service follow the new version at once. Checked as a new profile is.',
        tags, params: S.ProfileParams, body: S.ReplaceBody, response: responses(S.ProfileResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.replace(ctx, req.params.uuid, content(req.body)));
    });

    app.delete('/routing-profiles/:uuid', {
      config: { profiles: [] },
      schema: {
        operationId: 'deleteRoutingProfile',
        summary: 'Delete a routing profile',
        description: 'Deletes the profile; the answer is the profile as it was. Its service\'s payments go to the service itself again.',
        tags, params: S.ProfileParams, body: S.DeleteBody, response: responses(S.ProfileResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.remove(ctx, req.params.uuid));
    });

    app.post('/routing-profiles/:uuid/test', {
      config: { profiles: [] },
      schema: {
        operationId: 'testRoutingProfile',
        summary: 'Try a routing profile on a hypothetical payment',
        description: 'The decision the profile (ACTIVE or DRAFT) makes for a payment of this card (`card_pan` or `bin`), amount, currency, channel, countries and metadata: the services in the order they would be tried, the rule that matched and why. Nothing is charged or stored; the answer shows the card\'s BIN and last 4 digits at most.',
        tags, params: S.ProfileParams, body: S.TestBody, response: responses(S.DecisionResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      const b = req.body;
      return ok(ctx, await service.test(ctx, req.params.uuid, {
        ...b,
        card_pan: b.card_pan ? new Secret(b.card_pan.replace(/[\s-]/g, '')) : null,
      }));
    });

    app.post('/routing-profiles/:uuid/replay', {
      config: { profiles: READ },
      schema: {
        operationId: 'replayRoutingProfile',
        summary: 'Replay a routing profile over your payment history',
        description: 'For the first payment attempt of each order of the profile\'s service in the last `days` (1 to 90) on your clock, in one currency: the service the profile (or the draft `rules` given instead) would have sent it to, and per service the payments, amount, expected approvals (the approval rate observed in the same history for the card\'s 6-digit BIN on that service, else its brand on that service, else the service, else every service; `rate_sources` says which) and expected fees (the services\' fee models, `PUT /routing/fees/{service_uuid}`); beside them what actually happened (approvals and fees on the services used), the totals and the difference. Nothing is charged or stored. At most 200,000 payments are read (`capped`).',
        tags, params: S.ProfileParams, body: S.ReplayBody, response: responses(S.ReplayResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.economics.replay(ctx, req.params.uuid, req.body));
    });

    app.get('/routing/fees/:service_uuid', {
      config: { profiles: READ },
      schema: {
        operationId: 'getRoutingFees',
        summary: 'The fee model of a service',
        description: 'What a payment costs on one of your services, by card type and region: a percentage in basis points plus a fixed part in minor units (the replay prices payments with it). A service without a model has no lines. Another merchant\'s service is 404.',
        tags, params: S.FeesParams, response: responses(S.FeesResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.economics.getFees(ctx, req.params.service_uuid));
    });

    app.put('/routing/fees/:service_uuid', {
      config: { profiles: [] },
      schema: {
        operationId: 'putRoutingFees',
        summary: 'Set the fee model of a service',
        description: 'Replaces the whole fee model of one of your services: your country for it (the region of a card is its issuer\'s country against it) and at most one line per card type (CREDIT, DEBIT, PREPAID, ANY) and region (DOMESTIC, INTRA_EEA, INTERNATIONAL, ANY). The most specific line prices a payment: card type and region, then the card type with ANY region, then ANY card type with the region, then ANY with ANY. A problem is a 400 naming its field; another merchant\'s service is 404.',
        tags, params: S.FeesParams, body: S.PutFeesBody, response: responses(S.FeesResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.economics.putFees(ctx, req.params.service_uuid, { merchant_country: req.body.merchant_country ?? null, fees: req.body.fees }));
    });

    app.get('/routing/health', {
      config: { profiles: READ },
      schema: {
        operationId: 'getRoutingHealth',
        summary: 'The health of the caller\'s services',
        description: 'Per service, as the answering gateway process saw its recent attempts: approval, decline, error and timeout rates, processor time (p50, p95) and the circuit breaker\'s state. A service whose circuit is OPEN is skipped by routing until its cool-down is over.',
        tags, response: responses(S.HealthResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.healthOf(ctx));
    });
  };
}
