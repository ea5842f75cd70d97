import { EXAMPLE_SIGNATURE, Int, Nullable, OFFSET_MAX, Type, Uuid, envelope, signedBody } from '../../platform/http/schemas.js';
import { toWireJson } from '../../platform/http/json.js';
import { renderNotification } from './events.domain.js';

const ATTEMPT_EXAMPLE = { attempted_at: '2026-03-14T09:21:08.530Z', http_status: 200, error: null, duration_ms: 84 };
const EVENT_EXAMPLE = {
  uuid: 'b5d7f9a1-3c5e-4a7c-9e1b-3d5f7a9c1e3b',
  type: 'ORDER_NOTIFICATION',
  created: '2026-03-14T09:21:08.452Z',
  order_uuid: '3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34',
  url: 'https://shop.example/paygate/notify',
  status: 'DELIVERED',
  attempts: 1,
  resend_failed_notifications: true,
  first_attempt_at: '2026-03-14T09:21:08.530Z',
  next_attempt_at: null,
  delivered_at: '2026-03-14T09:21:08.614Z',
  payload: { order: { uuid: '3c9a7e52-1b4d-4f0e-8a6b-9d2f5c1e7a34', status: 'SUCCESS', paid: true, amount: 1050 }, client: { uuid: 'c0a8012e-5d6f-4a7b-8c9d-0e1f2a3b4c5d' } },
  deliveries: [ATTEMPT_EXAMPLE],
};

export const EventAttempt = Type.Object({
  attempted_at: Type.String({ description: 'ISO 8601 UTC (merchant clock)' }),
  http_status: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  duration_ms: Type.Integer(),
}, { title: 'EventAttempt', description: 'One delivery attempt of a notification', examples: [ATTEMPT_EXAMPLE] });

export const Event = Type.Object(
  {
    uuid: Uuid,
    type: Type.String({ examples: ['ORDER_NOTIFICATION'] }),
    created: Type.String(),
    order_uuid: Nullable(Uuid),
    url: Type.String({ description: 'where the notification is delivered; empty for a NOT_SENT event' }),
    status: Type.Enum(['PENDING', 'DELIVERED', 'FAILED', 'NOT_SENT'], { description: 'NOT_SENT: on the event log and the event stream only, never posted (dispute events of a merchant that gave no URL for them)' }),
    attempts: Type.Integer(),
    resend_failed_notifications: Type.Boolean(),
    first_attempt_at: Nullable(Type.String()),
    next_attempt_at: Nullable(Type.String()),
    delivered_at: Nullable(Type.String()),
    payload: Type.Unknown({ description: 'the notified body: the order with its transactions and the client (card storage notifications: the customer and source)' }),
    deliveries: Type.Optional(Type.Array(EventAttempt)),
  },
  { title: 'Event', description: 'A notification to url_post and its delivery attempts', examples: [EVENT_EXAMPLE] },
);

export const EventParams = Type.Object({ uuid: Uuid });
export const EventsQuery = Type.Object({
  order_uuid: Type.Optional(Uuid),
  status: Type.Optional(Type.Enum(['PENDING', 'DELIVERED', 'FAILED', 'NOT_SENT'])),
  limit: Type.Optional(Int({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Int({ minimum: 0, maximum: OFFSET_MAX, default: 0 })),
});
export const ResendBody = signedBody({}, { examples: [{ signature: EXAMPLE_SIGNATURE }] });

export const EventResponse = envelope({ event: Event }, { title: 'EventResponse' });
export const EventsResponse = envelope({
  count: Type.Integer({ description: 'events matching the filters, counted up to 10,000 (or to the end of the requested page when further): see `count_capped`', examples: [1] }),
  count_capped: Type.Boolean({ description: 'true when more events match than `count` (the count stopped at its cap)', examples: [false] }),
  events: Type.Array(Event),
  next_offset: Nullable(Type.Integer({ description: 'offset of the next page; null on the last page' })),
}, { title: 'EventListResponse' });

// ---- the event stream ---------------------------------------------------------------------------------

const STREAM_PAYLOAD = toWireJson({ order: EVENT_EXAMPLE.payload.order, client: EVENT_EXAMPLE.payload.client });
const STREAM_CURRENT_TIME = '2026-03-14T10:21:08+0100';
const STREAM_EXAMPLE_RENDERED = renderNotification({ id: EVENT_EXAMPLE.uuid, payload: STREAM_PAYLOAD }, EXAMPLE_SIGNATURE, STREAM_CURRENT_TIME, new Date('2026-03-14T09:21:08Z'));
export const STREAMED_EVENT_EXAMPLE = {
  uuid: EVENT_EXAMPLE.uuid,
  type: 'ORDER_NOTIFICATION',
  created: '2026-03-14T10:21:08+0100',
  env: 'sandbox',
  order_uuid: EVENT_EXAMPLE.order_uuid,
  url: EVENT_EXAMPLE.url,
  headers: STREAM_EXAMPLE_RENDERED.headers,
  body: STREAM_EXAMPLE_RENDERED.body,
};

export const StreamedEvent = Type.Object(
  {
    uuid: Uuid,
    type: Type.String({ description: 'the event type, also the `event` field of the message: ORDER_NOTIFICATION (an order reached a state that notifies url_post), SUBSCRIPTION_PAYMENT (a subscription charge, to the product notification_url), DISPUTE_* (a dispute of an order changed: docs/disputes.md)', examples: ['ORDER_NOTIFICATION'] }),
    created: Type.String({ description: 'when the event was made (merchant clock), in the server timezone', examples: ['2026-03-14T10:21:08+0100'] }),
    env: Type.Enum(['sandbox', 'production']),
    order_uuid: Nullable(Uuid),
    url: Type.String({ description: 'where the gateway itself delivers the notification (url_post); empty for an event it does not post (dispute events without a URL for them)', examples: ['https://shop.example/paygate/notify'] }),
    headers: Type.Record(Type.String(), Type.String(), {
      description: 'the headers the notification is sent with: content-type, user-agent, Paygate-Signature (`t=UNIX,v1=HEX`, HMAC-SHA256 keyed by the signature over `t + "." + body`, computed when the event was streamed) and Paygate-Event (the event uuid)',
      examples: [STREAM_EXAMPLE_RENDERED.headers],
    }),
    body: Type.String({
      description: 'the exact body of the notification, as a string: forward these bytes unchanged so `validation_hash` and `Paygate-Signature` verify (`current_time` is the time it was streamed)',
      examples: [STREAM_EXAMPLE_RENDERED.body],
    }),
  },
  { title: 'StreamedEvent', description: 'A notification as the event stream sends it: the request the gateway makes to url_post', examples: [STREAMED_EVENT_EXAMPLE] },
);

const CURSOR_PATTERN = '^[0-9]{1,20}-[0-9]{1,19}$';
export const StreamQuery = Type.Object({
  after: Type.Optional(Type.String({ pattern: CURSOR_PATTERN, description: 'resume after this event id (the `id` of a message); wins over `Last-Event-ID`. Without either, the stream starts now', examples: ['7421-118'] })),
  types: Type.Optional(Type.String({ maxLength: 500, pattern: '^[A-Za-z_, ]*$', description: 'only these event types, comma-separated (e.g. `ORDER_NOTIFICATION`); all by default', examples: ['ORDER_NOTIFICATION'] })),
});
export const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(Type.String({ pattern: CURSOR_PATTERN, description: 'the id of the last message received: the stream resumes after it (browsers\' EventSource sends it when it reconnects)' })),
});
