/**
 * The dashboard API routes of the devices area. Everything the merchant API does (the registry, sending
 * a payment, a pre-authorization, a confirmation, a cancellation or a refund to a device) goes through
 * the bridge; the API has no list of what a device did, so this area adds one: the operations sent to
 * a device with the state the device brought them to, its card-present operations with STAN and RRN,
 * and the refunds sent to it. Cards as BIN and last 4 only.
 */
import { Nullable, Type, Uuid, envelope, responses } from '../../../platform/http/schemas.js';
import type { Area } from './kit.js';

const Entry = Type.Object(
  {
    uuid: Uuid,
    source: Type.String({ enum: ['SENT', 'CARD_PRESENT', 'REFUND'], description: 'SENT: a payment or pre-authorization sent to the device; CARD_PRESENT: an operation the device made itself (K1–K7); REFUND: a refund sent to a simulated device' }),
    kind: Type.String({ description: 'PAYMENT, PREAUTHORIZATION, REFUND, CONFIRMATION, CANCELLATION or VOID' }),
    order_uuid: Uuid,
    amount: Nullable(Type.Integer({ description: 'minor units' })),
    currency: Nullable(Type.String({ description: 'ISO 4217 alpha-3' })),
    status: Nullable(Type.String({ description: 'the state the device brought it to (SENT and REFUND); null for a card-present operation (its order tells)' })),
    terminal_action: Nullable(Type.String()),
    error: Nullable(Type.String()),
    stan: Nullable(Type.String({ description: 'the terminal\'s trace number (card-present operations)' })),
    rrn: Nullable(Type.String({ description: 'the reference number the gateway gave (card-present operations)' })),
    card: Nullable(Type.Object({ bin: Nullable(Type.String()), last4: Type.String(), reading_method: Nullable(Type.String()) }, { additionalProperties: false })),
    created_at: Type.String({ description: 'ISO 8601 UTC' }),
    updated_at: Type.String({ description: 'ISO 8601 UTC' }),
  },
  { additionalProperties: false },
);

const OperationsResponse = envelope(
  {
    currency: Nullable(Type.String({ description: 'the currency of the device\'s service (ISO 4217 alpha-3)' })),
    operations: Type.Array(Entry),
  },
  { title: 'DashboardDeviceOperationsResponse' },
);

const Params = Type.Object({ id: Uuid });
const Query = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  order: Type.Optional(Uuid),
});

export const area: Area = {
  routes(kit) {
    kit.app.get('/devices/:id/operations', {
      config: { dashboard: { permission: 'devices.read' } },
      schema: { params: Params, querystring: Query, response: responses(OperationsResponse) },
    }, async (req) => {
      const ctx = await kit.service.ctx(kit.dash(req));
      const r = await kit.service.deps.devices.history(ctx, req.params.id, { limit: req.query.limit ?? 50, order: req.query.order });
      return kit.done(r) as any; // the envelope, checked against the response schema
    });
  },
  docs: {
    'GET /devices/:id/operations': {
      operationId: 'dashboardDeviceOperations',
      summary: 'What a device did',
      description: 'The latest operations of one device of the merchant, newest first: payments and pre-authorizations sent to it with the state the device brought them to, the card-present operations it made itself with their STAN and RRN, and the refunds sent to it. `order` narrows the list to one order (to follow an operation as the device works). Another merchant\'s device is 404.',
      tag: 'Dashboard devices',
    },
  },
  tag: { name: 'Dashboard devices', description: 'The devices area: what each payment terminal did.' },
};
