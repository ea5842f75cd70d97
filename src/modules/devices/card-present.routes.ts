/**
 * HTTP of card-present operations (K1–K9). Authenticated by the device's bearer token (not an API key, no
 * `signature`); a token opens only its own device's operations. Thin: schema, token, one service call.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError } from '../../platform/errors/errors.js';
import { ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import type { Payments } from '../payments/index.js';
import type { CardPresentResult, CardPresentService } from './card-present.service.js';
import * as S from './devices.schemas.js';

const CONFIG = { auth: 'device' as const };
const security = [{ deviceToken: [] }];

export function cardPresentRoutes(service: CardPresentService, payments: Payments) {
  const device = (req: FastifyRequest) => (req as FastifyRequest & { device: Awaited<ReturnType<CardPresentService['authenticate']>> }).device;
  const answer = (r: CardPresentResult) => {
    const fields = { ...payments.respond(r.ctx, r.result), pos: r.pos };
    if (r.result.failed) throw new ApiError(402, r.result.failed, { extra: fields });
    return ok(r.ctx, fields) as any;
  };
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['card-present'];
    // the token first: an unauthenticated request learns nothing about the body it sent
    // then the X-Service-MID / X-Service-TID headers, on every K route: when sent they must be the device's (403)
    app.addHook('onRequest', async (req) => {
      const auth = await service.authenticate(req.headers.authorization, String(req.routeOptions.config.env));
      const header = (name: string) => [req.headers[name]].flat()[0];
      service.checkIds(auth.device, { mid: header('x-service-mid'), tid: header('x-service-tid') });
      (req as any).device = auth;
    });
    const payDescription = (what: string) =>
      `The device charges the card it read (${what}): \`card\` carries \`track2\`, or \`pan\` and \`expiration_date\` (YYMM). The order is created and paid in this call; the answer carries it and \`pos\` with the \`rrn\` the gateway assigned. ` +
      'A `stan` already used by the device today is 409 and charges nothing. Track 2 and the PIN block are never stored or logged; the order keeps BIN and last 4. Authenticate with `Authorization: Bearer DEVICE_TOKEN`. ' +
      'When the issuer asks for strong customer authentication on the terminal the order answers AUTHENTICATION_REQUIRED with `transactions[…].payment_data.terminal_action` REQUEST_PIN (call again with the PIN) or SWITCH_INTERFACE (call again with the card inserted, `card_reading_method` ICC); ' +
      'the repeat, with a new `stan` and `sca.original_order_uuid` set to that order, continues the same order (same device, operation, amount, currency and card, else 400; another device\'s order is 404). Sandbox: contactless above 5000 without a PIN asks REQUEST_PIN; the card 4000002500003155 not read by chip asks SWITCH_INTERFACE.';

    app.post('/card-present/payment', {
      config: CONFIG,
      schema: { operationId: 'cardPresentPayment', summary: 'K1 Process a card-present payment', description: payDescription('AUTHORIZATION'), tags, security, body: S.CardPresentBody, response: responses(S.CardPresentResponse) },
    }, async (req) => {
      const { device: d, ctx } = device(req);
      return answer(await service.pay(d, ctx, 'PAYMENT', req.body as any));
    });

    app.post('/card-present/preauthorization', {
      config: CONFIG,
      schema: { operationId: 'cardPresentPreauthorization', summary: 'K5 Card-present pre-authorization', description: `${payDescription('DEFERRED: the amount is held')} Confirm (K7) or cancel (K6) it by rrn.`, tags, security, body: S.CardPresentBody, response: responses(S.CardPresentResponse) },
    }, async (req) => {
      const { device: d, ctx } = device(req);
      return answer(await service.pay(d, ctx, 'PREAUTHORIZATION', req.body as any));
    });

    app.post('/card-present/refund', {
      config: CONFIG,
      schema: { operationId: 'cardPresentRefund', summary: 'K2 Refund a card-present payment', description: 'Refunds the payment of this device with `rrn` (`amount` omitted: what is left), with a new `stan`. The rules of `POST /payment/refund` apply.', tags, security, body: S.ByRrnBody, response: responses(S.CardPresentResponse) },
    }, async (req) => {
      const { device: d, ctx } = device(req);
      return answer(await service.followUp(d, ctx, 'REFUND', req.body));
    });

    app.post('/card-present/preauthorization/cancellation', {
      config: CONFIG,
      schema: { operationId: 'cardPresentPreauthorizationCancellation', summary: 'K6 Cancel a card-present pre-authorization', description: 'Releases the hold of the pre-authorization of this device with `rrn`, with a new `stan`.', tags, security, body: S.ByRrnBody, response: responses(S.CardPresentResponse) },
    }, async (req) => {
      const { device: d, ctx } = device(req);
      return answer(await service.followUp(d, ctx, 'CANCELLATION', req.body));
    });

    app.post('/card-present/preauthorization/confirmation', {
      config: CONFIG,
      schema: { operationId: 'cardPresentPreauthorizationConfirmation', summary: 'K7 Confirm a card-present pre-authorization', description: 'Captures `amount` (omitted: all) of the pre-authorization of this device with `rrn`, with a new `stan`.', tags, security, body: S.ByRrnBody, response: responses(S.CardPresentResponse) },
    }, async (req) => {
      const { device: d, ctx } = device(req);
      return answer(await service.followUp(d, ctx, 'CONFIRMATION', req.body));
    });

    app.post('/card-present/void', {
      config: CONFIG,
      schema: {
        operationId: 'cardPresentVoid', summary: 'K4 Automatic void of the last operation',
        description: 'When the terminal lost the answer to its last operation it voids it by its `stan`: a payment is refunded in full, a pre-authorization released, an operation that charged nothing is left as it is. Only the device\'s last operation can be voided (another STAN is 404).',
        tags, security, body: S.VoidBody, response: responses(S.CardPresentResponse),
      },
    }, async (req) => {
      const { device: d, ctx } = device(req);
      return answer(await service.voidLast(d, ctx, req.body));
    });

    app.get('/card-present/sync', {
      config: CONFIG,
      schema: { operationId: 'cardPresentSync', summary: 'K3 Sync a device', description: 'The device\'s MID, TID, service and EMV configuration. `tid`, `mid` and the X-Service headers must be the device\'s own (403 otherwise).', tags, security, querystring: S.SyncQuery, headers: S.ServiceHeaders, response: responses(S.SyncResponse) },
    }, async (req) => {
      const { device: d, ctx } = device(req);
      service.checkIds(d, { mid: req.headers['x-service-mid'] as string, tid: req.headers['x-service-tid'] as string });
      return ok(ctx, await service.sync(d, req.query));
    });

    app.get('/card-present/order/stan/:stan', {
      config: CONFIG,
      schema: { operationId: 'cardPresentOrderByStan', summary: 'K8 Get an order by STAN', description: 'The order of this device\'s latest operation with `stan`. Another device\'s operations are 404.', tags, security, params: S.StanParams, headers: S.ServiceHeaders, response: responses(S.CardPresentResponse) },
    }, async (req) => {
      const { device: d, ctx } = device(req);
      service.checkIds(d, { mid: req.headers['x-service-mid'] as string, tid: req.headers['x-service-tid'] as string });
      return answer(await service.find(d, ctx, { stan: req.params.stan }));
    });

    app.get('/card-present/order/rrn/:rrn', {
      config: CONFIG,
      schema: { operationId: 'cardPresentOrderByRrn', summary: 'K9 Get an order by RRN', description: 'The order of this device\'s operation with `rrn`. Another device\'s operations are 404.', tags, security, params: S.RrnParams, headers: S.ServiceHeaders, response: responses(S.CardPresentResponse) },
    }, async (req) => {
      const { device: d, ctx } = device(req);
      service.checkIds(d, { mid: req.headers['x-service-mid'] as string, tid: req.headers['x-service-tid'] as string });
      return answer(await service.find(d, ctx, { rrn: req.params.rrn }));
    });
  };
}
