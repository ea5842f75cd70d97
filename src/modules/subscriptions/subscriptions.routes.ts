/** HTTP of recurring billing (I1–I15). Thin: schema, profiles, one service call. */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, ok } from '../../platform/http/respond.js';
import { responses } from '../../platform/http/schemas.js';
import * as S from './subscriptions.schemas.js';
import type { SubscriptionsService } from './subscriptions.service.js';

const WRITE = ['payment'] as const;
const READ = ['payment', 'readonly'] as const;

export function subscriptionsRoutes(service: SubscriptionsService) {
  return async (scope: FastifyInstance) => {
    const app = scope.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['subscriptions'];

    // ---- company ----------------------------------------------------------------------------------------
    app.post('/subscriptions/company', {
      config: { profiles: WRITE, unsigned: true },
      schema: {
        operationId: 'createSubscriptionCompany',
        summary: 'I1 Create the company',
        description: 'The merchant\'s company in recurring billing: one per merchant and environment. Creates it the first time and answers the same one after that. Needs no body and no signature. Creating a product also creates it.',
        tags, response: responses(S.CompanyResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { company: await service.createCompany(ctx) });
    });

    app.get('/subscriptions/company', {
      config: { profiles: READ },
      schema: { operationId: 'getSubscriptionCompany', summary: 'Read the company', description: 'The merchant\'s company; 404 until it exists.', tags, response: responses(S.CompanyResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { company: await service.getCompany(ctx) });
    });

    // ---- products ---------------------------------------------------------------------------------------
    app.post('/subscriptions/product', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'createSubscriptionProduct',
        summary: 'I2 Create a product',
        description: 'What you sell by subscription. `notification_url` is told about every status change of a payment of its subscriptions (signed like order notifications, retried when the merchant resends failed notifications, visible in `/events`). A second product with the same `external_id` is 409.',
        tags, body: S.CreateProductBody, response: responses(S.ProductResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { product: await service.createProduct(ctx, req.body) });
    });

    app.get('/subscriptions/products', {
      config: { profiles: READ },
      schema: { operationId: 'listSubscriptionProducts', summary: 'I3 List products', description: 'The merchant\'s products, oldest first (removed ones are left out).', tags, response: responses(S.ProductsResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { products: await service.listProducts(ctx) });
    });

    app.get('/subscriptions/product/:external_id', {
      config: { profiles: READ },
      schema: { operationId: 'getSubscriptionProduct', summary: 'I4 Read a product', description: 'By its external id; 404 when unknown or removed.', tags, params: S.ExternalIdParams, response: responses(S.ProductResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { product: await service.getProduct(ctx, req.params.external_id) });
    });

    app.delete('/subscriptions/product/:external_id', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'deleteSubscriptionProduct',
        summary: 'I5 Remove a product',
        description: 'Removes the product (its external id may be used again). Its subscriptions are NOT cancelled: they go on charging and notifying.',
        tags, params: S.ExternalIdParams, body: S.DeleteBody, response: responses(S.DeletedResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { deleted: await service.deleteProduct(ctx, req.params.external_id) });
    });

    // ---- payments ---------------------------------------------------------------------------------------
    app.get('/subscriptions/payment/:id', {
      config: { profiles: READ },
      schema: { operationId: 'getSubscriptionPayment', summary: 'I6 Read a subscription payment', description: 'One charge attempt, with its subscription. `payment_details` names the order, card and transaction of the charge.', tags, params: S.IdParams, response: responses(S.PaymentResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { payment: await service.getPayment(ctx, req.params.id) });
    });

    app.get('/subscriptions/payments', {
      config: { profiles: READ },
      schema: {
        operationId: 'listSubscriptionPayments',
        summary: 'I7 List subscription payments',
        description: 'Every charge attempt of the merchant\'s subscriptions, oldest first, filtered by status, subscription and due date, in pages (`limit`, `offset`, `next_offset`).',
        tags, querystring: S.PaymentsQuery, response: responses(S.PaymentsResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.listPayments(ctx, req.query));
    });

    // ---- plans ------------------------------------------------------------------------------------------
    app.post('/subscriptions/plan', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'createSubscriptionPlan',
        summary: 'I8 Create a plan',
        description: 'How a product is charged: `amount` every `interval` × `interval_type` (DAILY, WEEKLY, MONTHLY, ANNUAL; YEARLY is read as ANNUAL). With `trial_available`, the first charge waits `interval_offset` × `interval_offset_type`. Months keep the day of the first charge (31 Jan, 28 or 29 Feb, 31 Mar, …).',
        tags, body: S.CreatePlanBody, response: responses(S.PlanResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { plan: await service.createPlan(ctx, req.body) });
    });

    app.get('/subscriptions/plans', {
      config: { profiles: READ },
      schema: { operationId: 'listSubscriptionPlans', summary: 'I9 List plans', description: 'The merchant\'s plans, oldest first; `product` keeps those of one product.', tags, querystring: S.PlansQuery, response: responses(S.PlansResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { plans: await service.listPlans(ctx, req.query) });
    });

    app.get('/subscriptions/plan/:external_id', {
      config: { profiles: READ },
      schema: { operationId: 'getSubscriptionPlan', summary: 'I10 Read a plan', description: 'By its external id, with its product; 404 when unknown or removed.', tags, params: S.ExternalIdParams, response: responses(S.PlanResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { plan: await service.getPlan(ctx, req.params.external_id) });
    });

    app.delete('/subscriptions/plan/:external_id', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'deleteSubscriptionPlan',
        summary: 'I11 Remove a plan',
        description: 'Removes the plan (no new subscriptions to it). Its subscriptions are NOT cancelled: they keep the amount and interval they were made with.',
        tags, params: S.ExternalIdParams, body: S.DeleteBody, response: responses(S.DeletedResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { deleted: await service.deletePlan(ctx, req.params.external_id) });
    });

    // ---- subscriptions ----------------------------------------------------------------------------------
    app.post('/subscriptions/subscription', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'subscribeCustomer',
        summary: 'I12 Subscribe a customer to a plan',
        description:
          'Registers the subscription. Without a trial and with `initial_date` today (the default), the first charge is made now and the answer carries its result (`status` PAID or FAILED); ' +
          'otherwise it is scheduled and the answer says `CREATED` with the due date. Each charge is an order of the payments API, paid with the stored card `additional_data.source_uuid` as a merchant-initiated recurring payment, notified to `additional_data.url_post` like any order. ' +
          'When the service or card is wrong the subscription is still registered and the payment is `FAILED_NOTIFICATION`. A failed charge is retried 1, 3 and 5 days after its due date, then every 7 days; `payment_attempts_limit` consecutive failures cancel the subscription; ' +
          '`total_payment_number` paid charges finish it. An unknown plan is 404.',
        tags, body: S.SubscribeBody, response: responses(S.SubscribeResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.subscribe(ctx, req.body));
    });

    app.get('/subscriptions/subscriptions', {
      config: { profiles: READ },
      schema: {
        operationId: 'listSubscriptions',
        summary: 'I13 List subscriptions',
        description: 'The merchant\'s subscriptions with their plan and payments, oldest first, filtered by status, customer, plan, product, active and creation date, in pages (`limit`, `offset`, `next_offset`).',
        tags, querystring: S.SubscriptionsQuery, response: responses(S.SubscriptionsResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, await service.listSubscriptions(ctx, req.query));
    });

    app.get('/subscriptions/subscription/:id', {
      config: { profiles: READ },
      schema: { operationId: 'getSubscription', summary: 'I14 Read a subscription', description: 'With its plan and every charge attempt; 404 when unknown.', tags, params: S.IdParams, response: responses(S.SubscriptionResponse) },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { subscription: await service.getSubscription(ctx, req.params.id) });
    });

    app.delete('/subscriptions/subscription/:id', {
      config: { profiles: WRITE },
      schema: {
        operationId: 'cancelSubscription',
        summary: 'I15 Cancel a subscription',
        description: 'No charge is made after this, not even a scheduled retry. `deleted` is 1 when it was cancelled now and 0 when it had already ended (cancelled or finished).',
        tags, params: S.IdParams, body: S.DeleteBody, response: responses(S.DeletedResponse),
      },
    }, async (req) => {
      const ctx = ctxOf(req);
      return ok(ctx, { deleted: await service.cancel(ctx, req.params.id) });
    });
  };
}
