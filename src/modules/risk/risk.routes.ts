/** HTTP of security lists (L1–L9, and the items of a list) and antifraud rules. Thin: schema, profiles, one service call. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import * as S from './risk.schemas.js';
import type { RiskService } from './risk.service.js';

// decisions §2: security lists need `all` or `payment`; every GET also `readonly`
const WRITE = ['payment'] as const;
const READ = ['payment', 'readonly'] as const;
const tags = ['security-lists'];

export function riskRoutes(service: RiskService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/security-list', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'createSecurityList',
        summary: 'L1 Create a security list',
        description: 'A white, black or grey list. It applies to the payments of the services linked to it (L6); a list linked to no service applies to none. White: antifraud is skipped. Black: the payment is refused (BLACKLISTED). Grey: 3-D Secure is required.',
        tags, body: S.CreateListBody, response: responses(S.ListResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { colorlists: await service.create(ctx, req.body) });
    });

    app.get('/security-lists', {
      config: { profiles: READ },
      schema: {
        operationId: 'listSecurityLists',
        summary: 'L2 List the security lists of a type',
        description: 'Oldest first. Without `type`, every list.',
        tags, querystring: S.ListsQuery, response: responses(S.ListsResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { colorlists: await service.lists(ctx, req.query) });
    });

    app.get('/security-list/:list_uuid', {
      config: { profiles: READ },
      schema: { operationId: 'getSecurityList', summary: 'L3 Read a security list', description: 'The list with its linked services and how many items it holds.', tags, params: S.ListParams, response: responses(S.ListResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { colorlists: await service.get(ctx, req.params.list_uuid) });
    });

    app.delete('/security-list/:list_uuid', {
      config: { profiles: WRITE },
      schema: { operationId: 'deleteSecurityList', summary: 'L4 Delete a security list', description: 'With its items and service links.', tags, params: S.ListParams, body: S.DeleteBody, response: responses(S.Done) },
    }, async (req) => {
      const ctx = ctxOf(req);
      await service.remove(ctx, req.params.list_uuid);
      return ok(ctx);
    });

    app.put('/security-list/:list_uuid/enabled', {
      config: { profiles: WRITE },
      schema: { operationId: 'enableSecurityList', summary: 'L5 Enable or disable a security list', description: 'A disabled list applies to no payment.', tags, params: S.ListParams, body: S.EnableBody, response: responses(S.ListResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { colorlists: await service.setEnabled(ctx, req.params.list_uuid, req.body.enabled) });
    });

    app.post('/security-list/:list_uuid/service', {
      config: { profiles: WRITE },
      schema: { operationId: 'linkSecurityListService', summary: 'L6 Link a service to a security list', description: 'The list applies to the payments of the service. Linking a linked service again is a no-op.', tags, params: S.ListParams, body: S.ServiceBody, response: responses(S.Done) },
    }, async (req) => {
      const ctx = ctxOf(req);
      await service.linkService(ctx, req.params.list_uuid, req.body.service_uuid);
      return ok(ctx);
    });

    app.delete('/security-list/:list_uuid/service', {
      config: { profiles: WRITE },
      schema: { operationId: 'unlinkSecurityListService', summary: 'L7 Unlink a service from a security list', description: '404 when the service is not linked to the list.', tags, params: S.ListParams, body: S.ServiceBody, response: responses(S.Done) },
    }, async (req) => {
      const ctx = ctxOf(req);
      await service.unlinkService(ctx, req.params.list_uuid, req.body.service_uuid);
      return ok(ctx);
    });

    app.post('/security-list/:list_uuid/items', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'addSecurityListItems',
        summary: 'L8 Add items to a security list',
        description: 'Items `{type, value, description}`; types CARD (a card number, kept only as a keyed fingerprint with BIN and last 4), CARD_UUID (a stored card: every stored entry of that card matches), BIN (6–8 digits), EMAIL, IP (address or CIDR network), COUNTRY (ISO 3166 alpha-2: the card\'s or the IP\'s country), CUSTOMER (external id), PHONE (with country code). All items are checked first: one bad item is 400 naming it and nothing is added. Items the list already has are skipped.',
        tags, params: S.ListParams, body: S.AddItemsBody, response: responses(S.AddedResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.addItems(ctx, req.params.list_uuid, req.body.items));
    });

    app.delete('/security-list/:list_uuid/items', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'removeSecurityListItems',
        summary: 'L9 Remove items from a security list',
        description: 'Each string is an item uuid or a value (as added: a card number removes its CARD item, a stored card\'s uuid its CARD_UUID item). Values the list does not hold are ignored; `removed` says how many items went.',
        tags, params: S.ListParams, body: S.RemoveItemsBody, response: responses(S.RemovedResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.removeItems(ctx, req.params.list_uuid, req.body.items));
    });

    app.get('/security-list/:list_uuid/items', {
      config: { profiles: READ },
      schema: {
        operationId: 'listSecurityListItems',
        summary: 'Items of a security list',
        description: 'In the order they were added, `limit` (default 100, at most 1000) from `offset`; `next_offset` is null on the last page. Cards are shown as BIN and last 4.',
        tags, params: S.ListParams, querystring: S.ItemsQuery, response: responses(S.ItemsResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.items(ctx, req.params.list_uuid, req.query));
    });

    app.get('/antifraud/rules', {
      config: { profiles: READ },
      schema: {
        operationId: 'getAntifraudRules',
        summary: 'Antifraud rules of the merchant',
        description: 'The rules every card payment is scored by, with their scores and parameters, the thresholds (score ≥ reject_threshold: REJECT; ≥ challenge_threshold: CHALLENGE) and the low-value exemption.',
        tags: ['antifraud'], response: responses(S.RulesResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { antifraud: await service.getRules(ctx) });
    });

    app.put('/antifraud/rules', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'putAntifraudRules',
        summary: 'Set the antifraud rules of the merchant',
        description: 'Replaces the merchant\'s rules: fields left out take their defaults (so `{}` restores every default). Answers the rules in force.',
        tags: ['antifraud'], body: S.PutRulesBody, response: responses(S.RulesResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { antifraud: await service.putRules(ctx, req.body as never) });
    });
  };
}
