/** HTTP of stored payment methods: F1–F12 (decisions §3). Thin: schema, profiles, one service call. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { Type, envelope, responses } from '../../platform/http/schemas.js';
import * as S from './sources.schemas.js';
import type { SourcesApi } from './sources.api.js';

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
        operationId: 'storeCards',
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
        operationId: 'storeCard',
        summary: 'F2 Store card',
        description:
          'Always stores a new source (a new uuid), even for a card the customer already has; the customer is created when missing. `validate: true` checks the card with `service` (zero-amount verification; `card_cvv` used once, never stored). ' +
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
      schema: {
        operationId: 'revalidateCard',
        summary: 'F3 Revalidate a tokenized card',
        description: 'Checks a stored card again with `service` (zero-amount verification; `card_cvv` is used once and never stored). A declined card is 400.',
        tags, body: S.RevalidateBody, response: responses(S.CustomerSourceResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await api.revalidate(ctx, req.body));
    });

    app.post('/payment-method/bank', {
      config: { profiles: TOKENIZE },
      schema: {
        operationId: 'storeBankAccount',
        summary: 'F4 Store a bank account (IBAN)',
        description: 'Stores an IBAN (checked, stored encrypted) as a new source of the customer, who is created when missing.',
        tags, body: S.StoreBankBody, response: responses(S.CustomerSourceResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await api.storeBank(ctx, req.body));
    });

    app.put('/payment-method/:type/additional', {
      config: { profiles: CARD },
      schema: {
        operationId: 'setSourceAdditional',
        summary: 'F5 Set the description of a source',
        description: 'Sets (or with null clears) the free text `additional` of a stored source of the type in the path.',
        tags, params: S.TypeParams, body: S.AdditionalBody, response: responses(S.CustomerSourceResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await api.setAdditional(ctx, req.params.type, req.body));
    });

    app.put('/payment-method/:source_uuid/owner', {
      config: { profiles: CARD },
      schema: {
        operationId: 'changeSourceOwner',
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
      schema: {
        operationId: 'getSourceByType',
        summary: 'F7 View a source by type and uuid (deprecated)',
        description: 'The source under a key named after its type (`card`, `bank`, …). Deprecated: use `GET /payment-method/{identifier}`.',
        deprecated: true, tags, params: S.TypeUuidParams, response: responses(S.TypedSourceResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { [req.params.type]: await api.view(ctx, req.params.uuid, req.params.type) });
    });

    // F8 and F9 share one path with one parameter name (`identifier`): a uuid for GET, a type for DELETE
    app.get('/payment-method/:identifier', {
      config: { profiles: READ },
      schema: {
        operationId: 'getSource',
        summary: 'F8 View a source by uuid',
        description: 'The source under the key `source`, whatever its type. `identifier` is the source uuid.',
        tags, params: S.IdentifierParams, response: responses(S.SourceResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { source: await api.view(ctx, req.params.identifier) });
    });

    app.delete('/payment-method/:identifier', {
      config: { profiles: CARD },
      schema: {
        operationId: 'deleteSource',
        summary: 'F9 Delete a source',
        description: 'Deletes the source `source_uuid` of the customer; `identifier` is the source type (`card`, `dynamic_card`, `bank`, `paypal`). `card_uuid` is accepted as an alias of `source_uuid`. A deleted source is 404 everywhere and cannot pay.',
        tags, params: S.DeleteParams, body: S.DeleteBody, response: responses(S.EmptyResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      await api.remove(ctx, req.params.identifier, req.body);
      return ok(ctx);
    });

    app.get('/customer/:ext_id/sources', {
      config: { profiles: READ },
      schema: {
        operationId: 'listCustomerSources',
        summary: 'F10 List the sources of a customer',
        description:
          '`status=VALIDATED` (default) lists sources validated at storage or used in a successful payment; `ALL` every live source. ' +
          '`unique=true` then keeps, per card (keyed fingerprint), only the newest entry. Oldest first (in the order the entries were created); each entry has `tokenization_service_uuid` and `is_blacklisted`. ' +
          'Optional paging: `limit` sources per page, then `cursor` set to the `next_cursor` of the previous page (null on the last page); without `limit` and `cursor` every source is listed.',
        tags, params: S.CustomerParams, querystring: S.ListQuery, response: responses(S.SourcesResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await api.listPage(ctx, req.params.ext_id, req.query));
    });

    for (const [plural, type, id] of [['cards', 'card', 'Cards'], ['dynamic_cards', 'dynamic_card', 'DynamicCards'], ['banks', 'bank', 'Banks'], ['paypals', 'paypal', 'Paypals']] as const) {
      app.get(`/customer/:ext_id/${plural}`, {
        config: { profiles: READ },
        schema: {
          operationId: `listCustomer${id}`,
          summary: `F11 List the ${plural} of a customer (deprecated)`,
          description: `The customer's sources of type \`${type}\` under the key \`${plural}\`, oldest first. Deprecated: use \`GET /customer/{ext_id}/sources?sourceType=${type}\`.`,
          deprecated: true,
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
        operationId: 'verifySourceHolder',
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
