import { Int, Nullable, OFFSET_MAX, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';

export const EventAttempt = Type.Object({
  attempted_at: Type.String({ description: 'ISO 8601 UTC (merchant clock)' }),
  http_status: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  duration_ms: Type.Integer(),
});

export const Event = Type.Object(
  {
    uuid: Uuid,
    type: Type.String({ examples: ['ORDER_NOTIFICATION'] }),
    created: Type.String(),
    order_uuid: Nullable(Uuid),
    url: Type.String(),
    status: Type.Enum(['PENDING', 'DELIVERED', 'FAILED']),
    attempts: Type.Integer(),
    resend_failed_notifications: Type.Boolean(),
    first_attempt_at: Nullable(Type.String()),
    next_attempt_at: Nullable(Type.String()),
    delivered_at: Nullable(Type.String()),
    payload: Type.Any({ description: 'the notified order and client' }),
    deliveries: Type.Optional(Type.Array(EventAttempt)),
  },
  { description: 'A notification and its delivery attempts' },
);

export const EventParams = Type.Object({ uuid: Uuid });
export const EventsQuery = Type.Object({
  order_uuid: Type.Optional(Uuid),
  status: Type.Optional(Type.Enum(['PENDING', 'DELIVERED', 'FAILED'])),
  limit: Type.Optional(Int({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Int({ minimum: 0, maximum: OFFSET_MAX, default: 0 })),
});
export const ResendBody = signedBody({});

export const EventResponse = envelope({ event: Event });
export const EventsResponse = envelope({ count: Type.Integer(), events: Type.Array(Event), next_offset: Nullable(Type.Integer()) });
