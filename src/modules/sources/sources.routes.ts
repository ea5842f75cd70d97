/** HTTP of stored payment methods: F1–F12 (decisions §3). Thin: schema, profiles, one service call. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { Type, envelope, responses } from '../../platform/http/schemas.js';
import * as S from './sources.schemas.js';
import type { SourcesApi } from './sources.service.js';

/** decisions §2: `card` for F1–F12, `tokenize` also for F1, F2, F4, `readonly` for every GET. */
const TOKENIZE = ['card', 'tokenize'] as const;
const CARD = ['card'] as const;
const READ = ['card', 'readonly'] as const;

export function sourcesRoutes(api: SourcesApi) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['sources'];

    app.post('/payment-method/cards', {
      config: { profiles: TOKENIZE },
      schema: {
        summary: 'F1 Store several cards',
        description: 'All or nothing: when one card is refused (400 naming `cards[i]`) none is stored. Each entry is a new source.',
        tags, body: S.StoreCardsBody, response: responses(S.StoreCardsResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { cards: await api.storeCards(ctx, req.body.cards, { many: true }) });
    });

    app.post('/payment-method/card', {
      config: { profiles: TOKENIZE },
      schema: {
        summary: 'F2 Store card',
        description:
          'Always stores a new source (decisions §6). `validate: true` checks the card with `service` (zero-amount verification; `card_cvv` used once, never stored). ' +
          'A card under suspected fraud cannot be tokenized (400). With `url_post`, a card storage notification is posted there.',
        tags, body: S.StoreCardBody, response: responses(S.CustomerSourceResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      const { signature: _s, ...card } = req.body;
      const [stored] = await api.storeCards(ctx, [card], { many: false });
      return ok(ctx, stored);
    });

    app.post('/payment-method/card/revalidate', {
      config: { profiles: CARD },
      schema: { summary: 'F3 Revalidate a tokenized card', tags, body: S.RevalidateBody, response: responses(S.CustomerSourceResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await api.revalidate(ctx, req.body));
    });

    app.post('/payment-method/bank', {
      config: { profiles: TOKENIZE },
      schema: { summary: 'F4 Store a bank account (IBAN)', tags, body: S.StoreBankBody, response: responses(S.CustomerSourceResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await api.storeBank(ctx, req.body));
    });

    app.put('/payment-method/:type/additional', {
      config: { profiles: CARD },
      schema: { summary: 'F5 Set the description of a source', tags, params: S.TypeParams, body: S.AdditionalBody, response: responses(S.CustomerSourceResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await api.setAdditional(ctx, req.params.type, req.body));
    });

    app.put('/payment-method/:source_uuid/owner', {
      config: { profiles: CARD },
      schema: {
        summary: 'F6 Change the owner (customer) of a source',
        description: 'The new customer is created when it does not exist yet.',
        tags, params: S.OwnerParams, body: S.OwnerBody, response: responses(S.EmptyResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      await api.changeOwner(ctx, req.params.source_uuid, req.body);
      return ok(ctx);
    });

    app.get('/payment-method/:type/:uuid', {
      config: { profiles: READ },
      schema: { summary: 'F7 View a source by type and uuid (deprecated: use F8)', deprecated: true, tags, params: S.TypeUuidParams, response: responses(S.TypedSourceResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { [req.params.type]: await api.view(ctx, req.params.uuid, req.params.type) });
    });

    app.get('/payment-method/:uuid', {
      config: { profiles: READ },
      schema: { summary: 'F8 View a source by uuid', tags, params: S.UuidParams, response: responses(S.SourceResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { source: await api.view(ctx, req.params.uuid) });
    });

    app.delete('/payment-method/:type', {
      config: { profiles: CARD },
      schema: {
        summary: 'F9 Delete a source',
        description: '`card_uuid` is accepted as an alias of `source_uuid`.',
        tags, params: S.DeleteParams, body: S.DeleteBody, response: responses(S.EmptyResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      await api.remove(ctx, req.params.type, req.body);
      return ok(ctx);
    });

    app.get('/customer/:ext_id/sources', {
      config: { profiles: READ },
      schema: {
        summary: 'F10 List the sources of a customer',
        description:
          '`status=VALIDATED` (default) lists sources validated at storage or used in a successful payment; `ALL` every live source. ' +
          '`unique=true` then keeps, per card (keyed fingerprint), only the newest entry. Oldest first (in the order the entries were created); each entry has `tokenization_service_uuid` and `is_blacklisted`.',
        tags, params: S.CustomerParams, querystring: S.ListQuery, response: responses(S.SourcesResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { sources: await api.list(ctx, req.params.ext_id, req.query) });
    });

    for (const [plural, type] of [['cards', 'card'], ['dynamic_cards', 'dynamic_card'], ['banks', 'bank'], ['paypals', 'paypal']] as const) {
      app.get(`/customer/:ext_id/${plural}`, {
        config: { profiles: READ },
        schema: {
          summary: `F11 List the ${plural} of a customer (deprecated: use F10)`, deprecated: true,
          tags, params: S.CustomerParams, querystring: S.ListByTypeQuery, response: responses(envelope({ [plural]: Type.Array(S.ListedSource) })),
        },
      }, async (req) => {
        const ctx = ctxOf(req);
        return ok(ctx, { [plural]: await api.list(ctx, req.params.ext_id, { ...req.query, types: [type] }) });
      });
    }

    app.post('/payment-method/:type/verify-holder', {
      config: { profiles: CARD },
      schema: {
        summary: 'F12 Verify the holder of a source',
        description: 'Compares `holder` (`name`, or `first_name` and `last_name`) with the holder the service knows: MATCH, PARTIAL_MATCH or NO_MATCH.',
        tags, params: S.VerifyParams, body: S.VerifyHolderBody, response: responses(S.VerificationResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { verification: await api.verifyHolder(ctx, req.params.type, req.body) });
    });
  };
}
