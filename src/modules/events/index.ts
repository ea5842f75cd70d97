export { EventsService, DELIVER_QUEUE, ORDER_NOTIFICATION } from './events.service.js';
export type { NewNotification } from './events.service.js';
export { eventsRoutes } from './events.routes.js';
export { validationHash, signatureHeader, RETRY_SCHEDULE_SECONDS, nextAttemptAt, parseCursor } from './events.domain.js';
export { Event as EventSchema } from './events.schemas.js';
