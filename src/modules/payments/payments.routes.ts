/**
 * HTTP of payments: B1, B3, B8–B12, B15 and C1–C4. Thin: schema, profiles, one service call.
 *
 * Order-bearing answers carry `order`, `client` and `validation_hash`. When the customer must
 * authenticate (3DS), the answer is HTTP 303 "See Other" with the URL in the body's `details` and `url`
 * and NO Location header (decisions §10: clients that follow redirects would re-send the POST to the
 * page or replace the JSON with HTML). When the processor refuses a confirmation, cancellation or refund, the answer is HTTP 402
 * ("Failed") with the order (holding the REFUSED transaction) next to the error.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Static } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError } from '../../platform/errors/errors.js';
import { okEnvelope } from '../../platform/http/envelope.js';
import { toWireJsonWithRawArray } from '../../platform/http/json.js';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import type { RequestContext } from '../../platform/http/types.js';
import { Secret } from '../../platform/security/secret.js';
import * as S from './payments.schemas.js';
import type { OrderResult, PaymentsService } from './payments.service.js';

const PAYMENT = ['payment'] as const;
const READ = ['payment', 'readonly'] as const;
const KEYENTRY = ['payment', 'keyentry'] as const;
const MOTO = ['payment', 'keyentry', 'moto'] as const;
const REFUND = ['refund'] as const;

const withRedirect = (ok: typeof S.OrderResponse) => responses(ok, { 303: S.RedirectResponse });
/** Confirmation, cancellation and refund: 402 carries the order next to the error. */
const withFailure = (ok: typeof S.OrderResponse) => responses(ok, { 402: S.FailedOrderResponse });

const secret = (v: string | undefined | null) => (v === undefined || v === null ? v : new Secret(v.replace(/[\s-]/g, '')));

/**
 * The answer of every order-bearing operation: 200 with the order; 402 when the processor refused a
 * follow-up; 303 when the customer must authenticate: `code` 303, `message` "See Other", the URL in
 * `details` (and `url`), the order fields as on a 200, and no Location header.
 */
export function answer(reply: FastifyReply, ctx: RequestContext, service: PaymentsService, r: OrderResult) {
  // the common answer: the order serialized once, for its validation_hash and for the body
  if (!r.failed && !r.redirect) return reply.type('application/json; charset=utf-8').send(service.respondWire(ctx, r));
  const fields = service.respond(ctx, r);
  if (r.failed) throw new ApiError(402, r.failed, { extra: fields });
  if (r.redirect) {
    reply.code(303);
    return okEnvelope({ now: ctx.clock.now(), timezone: ctx.timezone }, { details: r.redirect, url: r.redirect, ...fields }, 303);
  }
  return ok(ctx, fields);
}

export function paymentsRoutes(service: PaymentsService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/payment', {
      config: { profiles: PAYMENT },
      schema: {
        operationId: 'createOrder',
        summary: 'B1 Generate payment order',
        description: 'The order is created, not charged: send the customer to `order.urls.payment_card` (redirect or iframe), or pay it from your server (`/payment/direct`). `currency` is required when `service` is omitted or empty (the merchant\'s first enabled service in that currency is used). A new order with the `reference` of an order that is paid, being paid or held is 409 (an order never paid does not hold it). `url_ok`, `url_ko` and `url_post` may be relative: stored as sent, never used (the page shows its own result; the notification fails with the reason). In production a `url_post` on a private, loopback, link-local or reserved address is 400. `secure` is optional (default false). `extra_data.checkout.uuid` names a checkout of the merchant (`POST /checkout`); fields given with it override the checkout\'s.',
        tags: ['payments'], body: S.CreateOrderBody, response: responses(S.CreateOrderResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      // extra_data is the checkout/cof echo the schema describes (typed `unknown` by the service)
      return ok(ctx, (await service.createOrder(ctx, { ...req.body, secure: req.body.secure ?? false })) as Static<typeof S.CreateOrderResponse>);
    });

    app.post('/payment/direct', {
      config: { profiles: PAYMENT },
      schema: {
        operationId: 'payDirect',
        summary: 'B10 WebService payment with a stored card',
        description: 'Pays the order with `card_uuid` (or the order\'s `source_uuid`). A declined payment is HTTP 200 with a REFUSED transaction. When 3DS is needed: HTTP 303 "See Other" with the URL in `details` and `url` and the order as on a 200 (no Location header).',
        tags: ['payments'], body: S.DirectBody, response: withRedirect(S.OrderResponse),
      },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      return answer(reply, ctx, service, await service.payDirect(ctx, req.body));
    });

    app.post('/payment/single-step', {
      config: { profiles: KEYENTRY },
      schema: {
        operationId: 'paySingleStep',
        summary: 'B3 Single-step payment (PCI merchants)',
        description: 'Creates the order, stores the card and pays. `secure: true` answers 303 "See Other" with the tokenized 3DS URL in `details` and `url` (no Location header) unless `threeds_data` (external MPI) is given.',
        tags: ['payments'], body: S.SingleStepBody, response: withRedirect(S.OrderResponse),
      },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      const b = req.body;
      const r = await service.paySingleStep(ctx, { ...b, secure: b.secure ?? false, card_pan: secret(b.card_pan)!, card_cvv: secret(b.card_cvv) });
      return answer(reply, ctx, service, r);
    });

    app.post('/payment/moto', {
      config: { profiles: MOTO },
      schema: {
        operationId: 'payMoto',
        summary: 'B11 MoTo payment (PCI merchants)',
        description: 'Pays an order with card data taken by mail or phone (`method`), or with a stored card (`source_uuid`). No cardholder authentication (PSD2-exempt); for PCI-compliant merchants only.',
        tags: ['payments'], body: S.MotoBody, response: responses(S.OrderResponse),
      },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      const b = req.body;
      const r = await service.payMoto(ctx, { ...b, card_pan: secret(b.card_pan) ?? undefined, card_cvv: secret(b.card_cvv) });
      return answer(reply, ctx, service, r);
    });

    app.post('/payment/confirmation', {
      config: { profiles: PAYMENT },
      schema: {
        operationId: 'confirmOrder',
        summary: 'B9 Confirm a DEFERRED order',
        description: 'Captures the held amount; `amount` below it only where the service supports partial confirmation. Retry rules: 429 with Retry-After. A refusal by the processor is 402.',
        tags: ['payments'], body: S.ConfirmationBody, response: withFailure(S.OrderResponse),
      },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      return answer(reply, ctx, service, await service.confirm(ctx, req.body));
    });

    app.post('/payment/cancellation', {
      config: { profiles: PAYMENT },
      schema: {
        operationId: 'cancelOrder',
        summary: 'B8 Cancel a DEFERRED order',
        description: 'Releases the held amount. Retry rules: 429 with Retry-After. A refusal by the processor is 402.',
        tags: ['payments'], body: S.CancellationBody, response: withFailure(S.OrderResponse),
      },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      return answer(reply, ctx, service, await service.cancel(ctx, req.body));
    });

    app.post('/payment/refund', {
      config: { profiles: REFUND },
      schema: {
        operationId: 'refundOrder',
        summary: 'B12 Refund',
        description: 'Full (amount omitted) or partial. More than the refundable remainder, a negative amount, or an unconfirmed DEFERRED order is 400. Retry rules: 429 with Retry-After. A refusal by the processor is 402.',
        tags: ['payments'], body: S.RefundBody, response: withFailure(S.OrderResponse),
      },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      return answer(reply, ctx, service, await service.refund(ctx, req.body));
    });

    app.post('/payment/payout', {
      config: { profiles: PAYMENT },
      schema: {
        operationId: 'payout',
        summary: 'B15 Payout to a stored card or with an APM',
        description: 'Credits the order amount (PAYOUT and TRANSFER orders) to a stored card of the order\'s customer; without `source_uuid`, the customer\'s last card with a successful payment is used. With `apm`, the payout goes through an APM that supports payouts and that the order\'s service offers: BIZUM and MBWAY to the phone in `phone`, TRANSFER to a stored bank account of the customer (`source_uuid` of `POST /payment-method/bank`). `apm` is required when the service offers such APMs and no `source_uuid` says the way (a card, or a bank account: TRANSFER). An APM that does not support payouts, or that the service does not offer, is 400. Sandbox: a phone ending in 1 cannot receive (REFUSED).',
        tags: ['payments'], body: S.PayoutBody, response: responses(S.OrderResponse),
      },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      return answer(reply, ctx, service, await service.payout(ctx, req.body));
    });

    app.get('/order/:order_uuid', {
      config: { profiles: READ },
      schema: {
        operationId: 'getOrder',
        summary: 'C2 Read order',
        description: 'The order with every transaction, its client and validation_hash. An order of another merchant is 404.',
        tags: ['orders'], params: S.OrderParams, response: responses(S.OrderResponse),
      },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      return answer(reply, ctx, service, await service.getOrder(ctx, req.params.order_uuid));
    });

    app.post('/order/:order_uuid/expire', {
      config: { profiles: PAYMENT },
      schema: { operationId: 'expireOrder', summary: 'C1 Expire order', description: 'The payment link stops working; the order becomes EXPIRED.', tags: ['orders'], params: S.OrderParams, body: S.ExpireBody, response: responses(S.OrderResponse) },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      return answer(reply, ctx, service, await service.expireOrder(ctx, req.params.order_uuid));
    });

    app.get('/orders', {
      config: { profiles: READ },
      schema: {
        operationId: 'listTransactions',
        summary: 'C3 List transactions of the merchant and its children',
        description: 'Dates `YYYYMMDDHHmm` in the merchant timezone; `limit` default and maximum 10000; oldest first. Page with `offset` (`next_offset` is null on the last page) or, faster on deep pages, with `cursor` (pass the `next_cursor` of the previous page). `count` stops at 100,000 (`count_capped` is then true).',
        tags: ['orders'], querystring: S.ListQuery, response: responses(S.ListResponse),
      },
    }, async (req, reply) => {
      const ctx = ctxOf(req);
      const r = await service.listTransactions(ctx, req.query);
      // up to 10,000 entries, built as text (listedTransactionJson) and spliced into the envelope
      const page = { count: r.count, count_capped: r.count_capped, transactions: [], next_offset: r.next_offset, next_cursor: r.next_cursor };
      // (already serialized: the plain reply takes the text as it is; the response schema still checks it in tests)
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(toWireJsonWithRawArray(ok(ctx, page), 'transactions', r.transactionsJson));
    });

    app.post('/transaction/:transaction_uuid/metadata', {
      config: { profiles: PAYMENT },
      schema: { operationId: 'setTransactionMetadata', summary: 'C4 Attach metadata to a transaction', description: 'At most 20 key-value pairs; replaces earlier metadata.', tags: ['orders'], params: S.TxParams, body: S.MetadataBody, response: responses(S.MetadataResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.attachMetadata(ctx, req.params.transaction_uuid, req.body.metadata));
    });
  };
}
