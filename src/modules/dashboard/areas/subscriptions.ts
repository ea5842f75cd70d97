/**
 * The dashboard API routes of the subscriptions area: the failed-charge view (each failed attempt with
 * its reason and what happens next, which the API's I7 list does not say). Products, plans,
 * subscriptions and their charges go through the bridge (I1–I15).
 */
import { Nullable, Type, envelope, responses } from '../../../platform/http/schemas.js';
import type { Area } from './kit.js';

const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
});

const FailedCharge = Type.Object({
  id: Type.String({ description: 'the payment (charge attempt) id' }),
  subscription: Type.String({ description: 'subscription id' }),
  customer: Type.String({ description: 'customer external id' }),
  plan: Type.String({ description: 'plan external id' }),
  subscription_status: Type.String({ description: 'CREATED, PAID, UNPAID, CANCELLED or FINISHED' }),
  payment_number: Type.Integer(),
  attempt: Type.Integer(),
  status: Type.String({ description: 'FAILED (declined) or FAILED_NOTIFICATION (could not be made: wrong service or card)' }),
  payment_date: Type.String({ description: 'when the attempt was due (ISO 8601 UTC)' }),
  amount: Type.Integer({ description: 'minor units' }),
  currency: Nullable(Type.String()),
  order_uuid: Nullable(Type.String({ description: 'the order of the attempt (null when none could be made)' })),
  reason: Nullable(Type.String({ description: 'why it failed' })),
  retry: Type.Union([Type.Literal('RETRIED'), Type.Literal('SCHEDULED'), Type.Literal('NONE')], { description: 'RETRIED: a later attempt exists; SCHEDULED: a retry is due at next_attempt_at; NONE: no retry (the subscription ended)' }),
  retry_attempt: Nullable(Type.Integer({ description: 'the latest later attempt' })),
  retry_status: Nullable(Type.String({ description: 'its status' })),
  next_attempt_at: Nullable(Type.String({ description: 'when the retry is due (ISO 8601 UTC)' })),
  attempts_limit: Type.Integer({ description: 'consecutive failed attempts that cancel the subscription' }),
}, { additionalProperties: false });

const FailedChargesResponse = envelope({
  count: Type.Integer({ description: 'failed attempts in all' }),
  charges: Type.Array(FailedCharge, { description: 'newest due first' }),
  next_offset: Nullable(Type.Integer({ description: 'offset of the next page; null on the last page' })),
}, { title: 'DashboardFailedChargesResponse' });

export const area: Area = {
  routes(kit) {
    kit.app.get('/subscriptions/failed-charges', {
      config: { dashboard: { permission: 'subscriptions.read' } },
      schema: { querystring: ListQuery, response: responses(FailedChargesResponse) },
    }, async (req) => {
      const ctx = await kit.service.ctx(kit.dash(req));
      return kit.done(await kit.service.deps.subscriptions.failedCharges(ctx, req.query));
    });
  },
  docs: {
    'GET /subscriptions/failed-charges': {
      operationId: 'dashboardListFailedCharges',
      summary: 'Failed subscription charges',
      description: 'Every declined or not chargeable attempt of the merchant\'s subscriptions, newest due first, with the reason and the retry state (retried, scheduled with its date, or none because the subscription ended), in pages.',
      tag: 'subscriptions',
    },
  },
  tag: { name: 'subscriptions', description: 'The subscriptions area: the failed-charge view (products, plans, subscriptions and charges through the merchant API).' },
};
