/** HTTP of merchants: A1–A3, D1–D3 and the sandbox test clock. Thin: schema, profile, one call. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { badRequest, notFound } from '../../platform/errors/errors.js';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import { PROFILES } from '../../platform/http/types.js';
import { formatContractDate } from '../../platform/time/format.js';
import * as S from './merchants.schemas.js';
import type { MerchantsService } from './merchants.service.js';

const ANY_KEY = PROFILES;
const PARTNER = ['payment'] as const;

export function merchantsRoutes(service: MerchantsService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.get('/auth/check', {
      config: { profiles: ANY_KEY },
      schema: { operationId: 'checkAuth', summary: 'A1 Check authentication', description: 'Answers OK when the API key is valid for this environment; 401 otherwise.', tags: ['auth'], response: responses(S.EmptyResponse) },
    }, async (req) => ok(ctxOf(req)));

    app.get('/auth/profiles', {
      config: { profiles: ANY_KEY },
      schema: { operationId: 'listKeyProfiles', summary: 'A2 Profiles of the key used', description: 'The profiles of the API key that made the request (`all` when it has total access).', tags: ['auth'], response: responses(S.ProfilesResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { profiles: ctx.profiles });
    });

    app.get('/profiles', {
      config: { profiles: ANY_KEY },
      schema: { operationId: 'listProfiles', summary: 'A3 Every possible profile', description: 'Every profile a key can have: all, payment, refund, readonly, card, tokenize, moto, batch_authorization, batch_refund, keyentry.', tags: ['auth'], response: responses(S.ProfilesResponse) },
    }, async (req) => ok(ctxOf(req), { profiles: [...PROFILES] }));

    app.post('/client', {
      config: { profiles: PARTNER },
      schema: { operationId: 'createMerchant', summary: 'D1 Create merchant', description: 'Creates a child merchant of the key\'s merchant (or of `parent_uuid`, a descendant) in this environment, with its own API key and signature, returned once.', tags: ['merchants'], body: S.CreateMerchantBody, response: responses(S.CreateMerchantResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      const client = await service.createChild(ctx, req.body);
      return ok(ctx, { client });
    });

    app.post('/client/:uuid/promote', {
      config: { profiles: PARTNER },
      schema: {
        operationId: 'promoteMerchant',
        summary: 'D2 Promote a sandbox merchant to production',
        description: 'Creates the production twin; the new API key and signature are returned once.',
        tags: ['merchants'], params: S.PromoteParams, body: S.PromoteBody, response: responses(S.PromoteResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.promote(ctx, req.params.uuid));
    });

    app.post('/client/user', {
      config: { profiles: PARTNER },
      schema: { operationId: 'createDashboardUser', summary: 'D3 Create dashboard user', description: 'Creates a user of the merchant dashboard; the password is returned once. A taken username is 409.', tags: ['merchants'], body: S.CreateUserBody, response: responses(S.CreateUserResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.createUser(ctx, req.body));
    });

    app.get('/test-clock', {
      config: { profiles: ANY_KEY },
      schema: { operationId: 'getTestClock', summary: 'Sandbox clock of the merchant', description: 'The merchant\'s sandbox time and how far it runs ahead of real time. Sandbox only (404 in production).', tags: ['sandbox'], response: responses(S.TestClockResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      if (ctx.env !== 'sandbox') throw notFound('The test clock exists only in sandbox (/v1/sandbox/test-clock)');
      return ok(ctx, { test_clock: { current_time: formatContractDate(ctx.clock.now(), ctx.timezone), offset_seconds: ctx.clock.offsetMs / 1000 } });
    });

    app.post('/test-clock', {
      config: { profiles: ANY_KEY },
      schema: {
        operationId: 'advanceTestClock',
        summary: 'Move the sandbox clock forward',
        description: 'Moves this merchant\'s sandbox time forward by `advance_seconds` or to `advance_to`. Expiry, retry rules and scheduled notifications follow it.',
        tags: ['sandbox'], body: S.TestClockBody, response: responses(S.TestClockResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      if (ctx.env !== 'sandbox') throw notFound('The test clock exists only in sandbox (/v1/sandbox/test-clock)');
      let seconds: number;
      if (req.body.advance_seconds !== undefined) seconds = req.body.advance_seconds;
      else if (req.body.advance_to !== undefined) {
        seconds = Math.ceil((Date.parse(req.body.advance_to) - ctx.clock.now().getTime()) / 1000);
        if (!(seconds > 0)) throw badRequest('advance_to must be in the future of the merchant clock');
      } else throw badRequest('advance_seconds or advance_to is required');
      const { offsetMs, now } = await service.advanceClock(ctx, seconds);
      return ok({ ...ctx, clock: { now: () => now, offsetMs } }, {
        test_clock: { current_time: formatContractDate(now, ctx.timezone), offset_seconds: offsetMs / 1000 },
      });
    });

    app.post('/test-clock/reset', {
      config: { profiles: ANY_KEY },
      schema: {
        operationId: 'resetTestClock',
        summary: 'Set the sandbox clock back to real time',
        description: 'Sets this merchant\'s sandbox time back to real time (`offset_seconds` 0). Pending scheduled work (expiry, retries, notifications) keeps its place on the merchant\'s time line: what was due in one sandbox hour is due in one real hour. Records written while the clock ran ahead keep their times. Sandbox only (404 in production).',
        tags: ['sandbox'], body: S.ResetTestClockBody, response: responses(S.TestClockResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      if (ctx.env !== 'sandbox') throw notFound('The test clock exists only in sandbox (/v1/sandbox/test-clock)');
      const { offsetMs, now } = await service.resetClock(ctx);
      return ok({ ...ctx, clock: { now: () => now, offsetMs } }, {
        test_clock: { current_time: formatContractDate(now, ctx.timezone), offset_seconds: offsetMs / 1000 },
      });
    });
  };
}
